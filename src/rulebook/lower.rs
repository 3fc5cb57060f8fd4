//! Lowering: each formula's resolved tree turned into the [`Code`] that the
//! evaluator runs, traced or not, and the code generator writes out.
//!
//! A formula is lowered when it is made ([`formula`]), and every formula of
//! a checked rulebook again once groups over constant rows are specialised
//! ([`lower_all`], through `rulebook::prepare`), now knowing the values of
//! parameters that have one.
//!
//! INVARIANT: lowering never changes what a formula computes; constants are
//! folded with the very operations the evaluator uses, and each shortcut
//! keeps the code it stands for (see `model::plan`).

use std::sync::Arc;

use crate::expr::BinOp;
use crate::model::code::{node_count, Code, CodeKind};
use crate::model::*;
use crate::num::exact::Num;
use crate::num::RoundingMode;
use crate::value::Value;

/// A formula with its code, lowered without knowing the rulebook around it
/// (every parameter read as one that may be dated).
pub(crate) fn formula(text: Arc<str>, node: Node, offset: Option<usize>) -> Formula {
    let code = Lower::plain().code(&node);
    Formula {
        text,
        node,
        offset,
        code,
    }
}

/// Lowers every formula of the rulebook again, parameters with one value
/// read as the constants they are.
pub(crate) fn lower_all(rb: &mut Rulebook) {
    let fixed: Vec<Option<Value>> = rb
        .params
        .iter()
        .map(|p| match &p.value {
            ParamValue::Fixed(v) => Some(v.clone()),
            ParamValue::Dated { .. } => None,
        })
        .collect();
    let lower = Lower {
        fixed: &fixed,
        row: None,
        depth: 0,
    };
    each_formula(rb, &mut |f| f.code = lower.code(&f.node));
}

/// Calls `f` on every formula of the rulebook.
pub(crate) fn each_formula(rb: &mut Rulebook, f: &mut dyn FnMut(&mut Formula)) {
    for input in &mut rb.inputs {
        input_formulas(input, f);
    }
    for table in &mut rb.tables {
        for column in &mut table.columns {
            input_formulas(column, f);
        }
    }
    for param in &mut rb.params {
        if let ParamValue::Dated { at, .. } = &mut param.value {
            f(at);
        }
    }
    for step in &mut rb.steps {
        step_formulas(step, f);
    }
    for group in &mut rb.groups {
        f(&mut group.over);
        for step in &mut group.steps {
            step_formulas(step, f);
        }
        if let Some(specialized) = &mut group.specialized {
            for row in &mut Arc::make_mut(specialized).rows {
                for step in &mut row.steps {
                    step_formulas(step, f);
                }
            }
        }
    }
    for check in &mut rb.checks {
        if let Some(w) = &mut check.when {
            f(w);
        }
        if let CheckOutcome::Reject { path, message } = &mut check.outcome {
            parts_formulas(path, f);
            parts_formulas(message, f);
        }
    }
    for decision in &mut rb.decisions {
        for (when, _) in &mut decision.cite {
            f(when);
        }
        for output in &mut decision.answer {
            output_formulas(output, f);
        }
    }
    for report in &mut rb.reports {
        if let Some(w) = &mut report.when {
            f(w);
        }
        for output in report.columns.iter_mut().chain(&mut report.totals) {
            output_formulas(output, f);
        }
    }
    for ablation in &mut rb.ablations {
        for (_, formula) in &mut ablation.replacements {
            f(formula);
        }
    }
}

fn input_formulas(input: &mut Input, f: &mut dyn FnMut(&mut Formula)) {
    for w in input.when.iter_mut().chain(&mut input.required_when) {
        f(w);
    }
    for (when, path, message) in &mut input.after {
        f(when);
        parts_formulas(path, f);
        parts_formulas(message, f);
    }
    for rule in &mut input.rejects {
        f(&mut rule.when);
        parts_formulas(&mut rule.message, f);
    }
    match &mut input.kind {
        InputKind::Record { fields, .. } => {
            for field in fields {
                input_formulas(field, f);
            }
        }
        InputKind::List { item, .. } | InputKind::Map { item, .. } => input_formulas(item, f),
        _ => {}
    }
}

fn step_formulas(step: &mut Step, f: &mut dyn FnMut(&mut Formula)) {
    f(&mut step.expr);
    for w in step.when.iter_mut().chain(&mut step.otherwise) {
        f(w);
    }
    for (when, _) in &mut step.cite {
        f(when);
    }
}

fn parts_formulas(parts: &mut [MessagePart], f: &mut dyn FnMut(&mut Formula)) {
    for part in parts {
        if let MessagePart::Value(formula) = part {
            f(formula);
        }
    }
}

fn output_formulas(output: &mut Output, f: &mut dyn FnMut(&mut Formula)) {
    match &mut output.value {
        OutputValue::Value { expr, .. } => f(expr),
        OutputValue::Each { key, fields, .. } => {
            if let Some(k) = key {
                f(k);
            }
            for field in fields {
                output_formulas(field, f);
            }
        }
    }
}

/// Lowering of one formula, with what is constant for every case folded
/// in: parameters with one value, and arithmetic on constants (computed by
/// the same `Num::arith` the evaluator uses, so the value is the one it
/// would get).
struct Lower<'f> {
    /// The value of each parameter that has one (empty: none known).
    fixed: &'f [Option<Value>],
    /// Inside the body of a `SumRows`: the index of its variable, whose
    /// fields are `RowField`s.
    row: Option<usize>,
    /// Comprehension variables bound around the node.
    depth: usize,
}

impl Lower<'static> {
    fn plain() -> Self {
        Lower {
            fixed: &[],
            row: None,
            depth: 0,
        }
    }
}

impl Lower<'_> {
    fn boxed(&self, node: &Node) -> Box<Code> {
        Box::new(self.code(node))
    }

    fn all(&self, nodes: &[Node]) -> Vec<Code> {
        nodes.iter().map(|n| self.code(n)).collect()
    }

    /// Grows the stack rather than overflow it on a formula nested to the
    /// parser's bound.
    fn code(&self, node: &Node) -> Code {
        stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || self.code_now(node))
    }

    fn code_now(&self, node: &Node) -> Code {
        let kind = match &node.kind {
            NodeKind::Const(v) => CodeKind::Const(v.clone()),
            NodeKind::Input(i) => CodeKind::Input(*i),
            NodeKind::Step(i) => CodeKind::Step(*i),
            NodeKind::Param(i) => match self.fixed.get(*i).and_then(Option::as_ref) {
                Some(v) => CodeKind::Fixed(*i, v.clone()),
                None => CodeKind::Param(*i),
            },
            NodeKind::Item => CodeKind::Item,
            NodeKind::ItemStep(j) => CodeKind::ItemStep(*j),
            NodeKind::Group(g) => CodeKind::Group(*g),
            NodeKind::Local(i) => CodeKind::Local(*i),
            NodeKind::InItem(i) => CodeKind::InItem(*i),
            NodeKind::Table(t) => CodeKind::Table(*t),
            NodeKind::Mode(m) => CodeKind::Mode(*m),
            NodeKind::Decision => CodeKind::Decision,
            NodeKind::Reason => CodeKind::Reason,
            NodeKind::Clauses => CodeKind::Clauses,
            NodeKind::Field { base, index, path } => match base.kind {
                NodeKind::Local(k) if self.row == Some(k) => {
                    CodeKind::RowField(*index, path.clone())
                }
                _ => CodeKind::Field(self.boxed(base), *index, path.clone()),
            },
            NodeKind::Neg(a) => CodeKind::Neg(self.boxed(a)),
            NodeKind::Not(a) => CodeKind::Not(self.boxed(a)),
            NodeKind::Binary(op, a, b) => return self.binary(node, *op, a, b),
            NodeKind::If(parts) => CodeKind::If(Box::new((
                self.code(&parts.0),
                self.code(&parts.1),
                self.code(&parts.2),
            ))),
            NodeKind::Match {
                scrutinee,
                arms,
                otherwise,
            } => CodeKind::Match(
                self.boxed(scrutinee),
                arms.iter()
                    .map(|(lit, v)| (lit.clone(), self.code(v)))
                    .collect(),
                self.boxed(otherwise),
            ),
            NodeKind::Call(func, args) => self.call(node, *func, args),
            NodeKind::Let { value, body } => {
                let inner = Lower {
                    depth: self.depth + 1,
                    ..*self
                };
                CodeKind::Let(self.boxed(value), inner.boxed(body))
            }
            NodeKind::Comprehension {
                indexed,
                body,
                list,
                filter,
            } => {
                let inner = Lower {
                    depth: self.depth + 1 + usize::from(*indexed),
                    ..*self
                };
                CodeKind::Comprehension {
                    indexed: *indexed,
                    body: inner.boxed(body),
                    list: self.boxed(list),
                    filter: filter.as_deref().map(|f| inner.boxed(f)),
                    nodes: node_count(body) + filter.as_deref().map_or(0, node_count),
                }
            }
        };
        Code {
            span: node.span,
            kind,
        }
    }

    fn binary(&self, node: &Node, op: BinOp, a: &Node, b: &Node) -> Code {
        let kind = match op {
            BinOp::And => CodeKind::And(self.boxed(a), self.boxed(b)),
            BinOp::Or => CodeKind::Or(self.boxed(a), self.boxed(b)),
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                let (x, y) = (self.code(a), self.code(b));
                let folded = match (x.constant_number(), y.constant_number()) {
                    (Some(p), Some(q)) => match Num::Dec(p).arith(op, Num::Dec(q)) {
                        Ok(Num::Dec(d)) => Some(d),
                        _ => None,
                    },
                    _ => None,
                };
                let whole = CodeKind::Arith(op, Box::new(x), Box::new(y));
                match folded {
                    Some(d) => CodeKind::Folded {
                        value: Value::Number(d),
                        nodes: node_count(node),
                        whole: Box::new(Code {
                            span: node.span,
                            kind: whole,
                        }),
                    },
                    None => whole,
                }
            }
            _ => CodeKind::Compare(op, self.boxed(a), self.boxed(b)),
        };
        Code {
            span: node.span,
            kind,
        }
    }

    fn call(&self, node: &Node, func: Func, args: &[Node]) -> CodeKind {
        let generic = || CodeKind::Call(func, self.all(args));
        match (func, args) {
            (Func::Round | Func::Floor | Func::Ceil, [x, places, rest @ ..]) => {
                // The evaluator reads places and mode the same way; anything
                // else is a fault of the generic call, named where it runs.
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
                    (Some(p), Some(m)) => CodeKind::Round(self.boxed(x), p, m),
                    _ => generic(),
                }
            }
            (Func::Min | Func::Max, [_, _, ..]) => CodeKind::Extremum(func, self.all(args)),
            (Func::Coalesce, _) => CodeKind::Coalesce(self.all(args)),
            (Func::IsMissing, [a]) => CodeKind::IsMissing(self.boxed(a)),
            (Func::Sum, [list]) => self.sum(node, list).unwrap_or_else(generic),
            _ => generic(),
        }
    }

    /// `sum(group.field)` and `sum([… for x in group if …])` read in place.
    fn sum(&self, node: &Node, list: &Node) -> Option<CodeKind> {
        let whole = || {
            Box::new(Code {
                span: node.span,
                kind: CodeKind::Call(Func::Sum, vec![self.code(list)]),
            })
        };
        match &list.kind {
            NodeKind::Field { base, index, .. } => match base.kind {
                NodeKind::Group(group) => Some(CodeKind::SumColumn {
                    group,
                    index: *index,
                    whole: whole(),
                }),
                _ => None,
            },
            NodeKind::Comprehension {
                indexed: false,
                body,
                list: over,
                filter,
            } => {
                let var = self.depth;
                let in_place = |n: &Node| reads_fields_only(n, var);
                let NodeKind::Group(group) = over.kind else {
                    return None;
                };
                if self.row.is_some() || !in_place(body) || !filter.as_deref().is_none_or(in_place)
                {
                    return None;
                }
                let row = Lower {
                    fixed: self.fixed,
                    row: Some(var),
                    depth: var + 1,
                };
                Some(CodeKind::SumRows {
                    group,
                    filter: filter.as_deref().map(|f| row.boxed(f)),
                    body: row.boxed(body),
                    nodes: node_count(body) + filter.as_deref().map_or(0, node_count),
                    whole: whole(),
                })
            }
            _ => None,
        }
    }
}

/// Whether a comprehension's body uses its variable (local `var`) only
/// through fields, and binds or reads no other local: then each item's
/// fields can be read in place.
fn reads_fields_only(node: &Node, var: usize) -> bool {
    match &node.kind {
        NodeKind::Local(_) | NodeKind::InItem(_) | NodeKind::Comprehension { .. } => false,
        NodeKind::Field { base, .. } => match base.kind {
            NodeKind::Local(k) => k == var,
            _ => reads_fields_only(base, var),
        },
        _ => node
            .children()
            .into_iter()
            .all(|n| reads_fields_only(n, var)),
    }
}
