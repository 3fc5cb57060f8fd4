//! Lowering: a checked rulebook's formulas turned into the [`Plan`] the
//! untraced evaluator runs and the code generator writes out, after groups
//! over constant rows are specialised (`fold`).
//!
//! Invariant: lowering never changes what a formula computes; constants are
//! folded with the very operations the evaluator uses.

use std::sync::Arc;

use super::fold;
use crate::expr::BinOp;
use crate::model::plan::{node_count, Code, GroupCode, Plan, StepCode};
use crate::model::{Func, Node, NodeKind, OutputValue, ParamValue, Rulebook, Step};
use crate::num::exact::Num;
use crate::num::RoundingMode;
use crate::value::Value;

/// Readies a checked (or ablated) rulebook for evaluation: specialises groups
/// over constant rows, then lowers every step for the untraced road.
pub(crate) fn prepare(rb: &mut Rulebook) {
    fold::specialize(rb);
    rb.plan = Arc::new(Plan::build(rb));
}

impl Plan {
    /// Lowers every step of the rulebook, using the specialised rows of groups.
    pub fn build(rb: &Rulebook) -> Plan {
        let lower = Lower { rb, in_row: false };
        Plan {
            items: rb
                .groups
                .iter()
                .map(|g| match (&g.specialized, &g.over.node.kind) {
                    (Some(_), NodeKind::Call(Func::Rows, args)) => {
                        match args.first().map(|a| &a.kind) {
                            Some(NodeKind::Table(t)) => rb.tables.get(*t).map(|table| {
                                Value::List(
                                    table
                                        .rows
                                        .iter()
                                        .map(|r| Value::Record(r.record.clone()))
                                        .collect(),
                                )
                            }),
                            _ => None,
                        }
                    }
                    _ => None,
                })
                .collect(),
            steps: rb.steps.iter().map(|s| lower.step(s)).collect(),
            groups: rb
                .groups
                .iter()
                .map(|g| match &g.specialized {
                    Some(rows) => GroupCode::Rows(
                        rows.iter()
                            .map(|r| r.steps.iter().map(|s| lower.step(s)).collect())
                            .collect(),
                    ),
                    None => GroupCode::Any(g.steps.iter().map(|s| lower.step(s)).collect()),
                })
                .collect(),
            checks: rb
                .checks
                .iter()
                .map(|c| c.when.as_ref().map(|w| lower.code(&w.node)))
                .collect(),
            answers: rb
                .decisions
                .iter()
                .map(|d| {
                    d.answer
                        .iter()
                        .map(|o| match &o.value {
                            OutputValue::Value { expr, .. } => Some(lower.code(&expr.node)),
                            OutputValue::Each { .. } => None,
                        })
                        .collect()
                })
                .collect(),
        }
    }

    /// A formula outside the plan (a decision's `cite` condition, a dated
    /// parameter's `at`) lowered the same way.
    pub(crate) fn lower(rb: &Rulebook, node: &Node) -> Code {
        Lower { rb, in_row: false }.code(node)
    }

    /// The same inside the body of a `SumRows`, whose variable's fields are `RowField`s.
    pub(crate) fn lower_in_row(rb: &Rulebook, node: &Node) -> Code {
        Lower { rb, in_row: true }.code(node)
    }
}

/// Lowering, with what is constant for every case folded in: parameters
/// with a fixed value, and arithmetic on constants (computed by the same
/// `Num::arith` the walker would use, so the value is the one it would get).
struct Lower<'r> {
    rb: &'r Rulebook,
    /// Inside the body of a `SumRows`: its variable's fields are `RowField`s.
    in_row: bool,
}

impl Lower<'_> {
    fn step(&self, step: &Step) -> StepCode {
        StepCode {
            when: step.when.as_ref().map(|w| self.code(&w.node)),
            expr: self.code(&step.expr.node),
            otherwise: step.otherwise.as_ref().map(|o| self.code(&o.node)),
            round: step.round,
        }
    }

    fn boxed(&self, node: &Node) -> Box<Code> {
        Box::new(self.code(node))
    }

    fn code(&self, node: &Node) -> Code {
        match &node.kind {
            NodeKind::Const(v) => Code::Const(v.clone()),
            NodeKind::Input(i) => Code::Input(*i),
            NodeKind::Step(i) => Code::Step(*i),
            NodeKind::Param(i) => match self.rb.params.get(*i).map(|p| &p.value) {
                Some(ParamValue::Fixed(v)) => Code::Const(v.clone()),
                _ => Code::Param(*i),
            },
            NodeKind::Item => Code::Item,
            NodeKind::ItemStep(j) => Code::ItemStep(*j),
            NodeKind::Field { base, index, .. } => match base.kind {
                NodeKind::Local(_) if self.in_row => Code::RowField(*index),
                _ => Code::Field(self.boxed(base), *index),
            },
            NodeKind::Neg(a) => Code::Neg(self.boxed(a)),
            NodeKind::Not(a) => Code::Not(self.boxed(a)),
            NodeKind::Binary(op, a, b) => match op {
                BinOp::And => Code::And(self.boxed(a), self.boxed(b)),
                BinOp::Or => Code::Or(self.boxed(a), self.boxed(b)),
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                    let (x, y) = (self.code(a), self.code(b));
                    if let (Code::Const(Value::Number(x)), Code::Const(Value::Number(y))) = (&x, &y)
                    {
                        if let Ok(Num::Dec(d)) = Num::Dec(*x).arith(*op, Num::Dec(*y)) {
                            return Code::Const(Value::Number(d));
                        }
                    }
                    Code::Arith(*op, Box::new(x), Box::new(y))
                }
                _ => Code::Compare(*op, self.boxed(a), self.boxed(b)),
            },
            NodeKind::If(parts) => Code::If(Box::new((
                self.code(&parts.0),
                self.code(&parts.1),
                self.code(&parts.2),
            ))),
            NodeKind::Match {
                scrutinee,
                arms,
                otherwise,
            } => Code::Match(
                self.boxed(scrutinee),
                arms.iter()
                    .map(|(lit, v)| (lit.clone(), self.code(v)))
                    .collect(),
                self.boxed(otherwise),
            ),
            NodeKind::Call(func, args) => self.call(node, *func, args),
            _ => Code::Tree(node.clone()),
        }
    }

    fn call(&self, node: &Node, func: Func, args: &[Node]) -> Code {
        match (func, args) {
            (Func::Round | Func::Floor | Func::Ceil, [x, places, rest @ ..]) => {
                // The walker reads places and mode the same way; anything else is its to refuse.
                let places = match &places.kind {
                    NodeKind::Const(Value::Number(p)) => crate::model::ops::whole(*p, "places")
                        .ok()
                        .and_then(|p| u32::try_from(p).ok()),
                    _ => None,
                };
                let mode = match rest.first().map(|m| &m.kind) {
                    Some(NodeKind::Mode(m)) => Some(*m),
                    Some(_) => None,
                    None => Some(RoundingMode::HalfUp),
                };
                match (places, mode) {
                    (Some(p), Some(m)) => Code::Round(self.boxed(x), p, m),
                    _ => Code::Tree(node.clone()),
                }
            }
            (Func::Min | Func::Max, [_, _, ..]) => {
                Code::Extremum(func, args.iter().map(|a| self.code(a)).collect())
            }
            (Func::Coalesce, _) => Code::Coalesce(args.iter().map(|a| self.code(a)).collect()),
            (Func::IsMissing, [a]) => Code::IsMissing(self.boxed(a)),
            (Func::Sum, [list]) => match &list.kind {
                NodeKind::Field { base, index, .. } => match base.kind {
                    NodeKind::Group(g) => Code::SumColumn(g, *index),
                    _ => Code::Tree(node.clone()),
                },
                NodeKind::Comprehension { body, list, filter }
                    if !self.in_row
                        && reads_fields_only(body)
                        && filter.as_deref().is_none_or(reads_fields_only) =>
                {
                    match list.kind {
                        NodeKind::Group(group) => {
                            let row = Lower {
                                rb: self.rb,
                                in_row: true,
                            };
                            Code::SumRows {
                                group,
                                filter: filter.as_deref().map(|f| row.boxed(f)),
                                body: row.boxed(body),
                                nodes: node_count(body) + filter.as_deref().map_or(0, node_count),
                            }
                        }
                        _ => Code::Tree(node.clone()),
                    }
                }
                _ => Code::Tree(node.clone()),
            },
            _ => Code::Tree(node.clone()),
        }
    }
}

/// Whether a comprehension's body uses its variable only through fields, and
/// binds no variable of its own: then each item's fields can be read in place.
fn reads_fields_only(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Local(_) | NodeKind::Comprehension { .. } => false,
        NodeKind::Field { base, .. } if matches!(base.kind, NodeKind::Local(_)) => true,
        _ => node.children().into_iter().all(reads_fields_only),
    }
}
