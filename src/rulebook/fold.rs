//! Per-item steps specialised against the constant rows of a table.
//!
//! A group that runs over `rows(table)` of a table no case can replace sees
//! the same rows every time: each row's fields are constants. Folding them
//! into the group's formulas once, at load, removes the work of reading and
//! comparing them for every case (a payslip's `match line.base { … }` becomes
//! the base itself). The folded formulas (lowered like every other) are run
//! only when no trace is asked for, so traces still show every read; the
//! conformance runner checks that both give the same answers.
//!
//! Invariant: folding never changes a result or an error: a node is folded
//! only when its value is certain (constants of the right kind), and anything
//! that could fail is left for the evaluator, which reports it in place.

use std::sync::Arc;

use crate::expr::BinOp;
use crate::model::{
    Formula, Func, InputKind, Node, NodeKind, Rulebook, Specialized, SpecializedRow, Step,
};
use crate::num::exact::Num;
use crate::value::compare;
use crate::value::Value;

/// Fills `specialized` for every group over the rows of a table no input replaces.
pub fn specialize(rb: &mut Rulebook) {
    for g in 0..rb.groups.len() {
        let table = match &rb.groups[g].over.node.kind {
            NodeKind::Call(Func::Rows, args) => match args.first().map(|a| &a.kind) {
                Some(NodeKind::Table(t)) => *t,
                _ => continue,
            },
            _ => continue,
        };
        let replaceable = rb
            .inputs
            .iter()
            .any(|i| matches!(i.kind, InputKind::Table { table: t } if t == table));
        if replaceable {
            continue;
        }
        let rows: Vec<Value> = rb.tables[table.index()]
            .rows
            .iter()
            .map(|r| Value::Record(r.record.clone()))
            .collect();
        let steps = &rb.groups[g].steps;
        let per_row: Vec<SpecializedRow> =
            rows.iter().map(|row| specialize_row(steps, row)).collect();
        rb.groups[g].specialized = Some(Arc::new(Specialized {
            items: Value::List(rows.into()),
            rows: per_row,
        }));
    }
}

/// A group's steps for one row. A step that folds to a constant (no condition
/// left, no rounding, each citation's condition a constant boolean, so that
/// not running it skips no fault) is itself folded into the steps that read
/// it, until nothing changes.
fn specialize_row(steps: &[Step], row: &Value) -> SpecializedRow {
    let mut known: Vec<Option<Value>> = vec![None; steps.len()];
    let mut folded: Vec<Step> = Vec::new();
    for _ in 0..=steps.len() {
        let cx = Fold {
            item: row,
            steps: &known,
        };
        folded = steps.iter().map(|s| cx.step(s)).collect();
        let next: Vec<Option<Value>> = folded
            .iter()
            .map(|s| match (&s.expr.node.kind, &s.when, s.round) {
                (NodeKind::Const(v), None, None) if cites_settled(s) => Some(v.clone()),
                _ => None,
            })
            .collect();
        if next == known {
            break;
        }
        known = next;
    }
    SpecializedRow {
        steps: folded,
        known,
    }
}

/// What is constant while folding one row: the item, and the steps already known.
struct Fold<'a> {
    item: &'a Value,
    steps: &'a [Option<Value>],
}

impl Fold<'_> {
    /// The step with the row folded in. A condition that folds to a constant
    /// is settled here: when it holds the step is its formula; when it fails
    /// the step is its `otherwise` (never rounded), or absent.
    fn step(&self, s: &Step) -> Step {
        let s = &Step {
            cite: s
                .cite
                .iter()
                .map(|(w, clauses)| (self.formula(w), clauses.clone()))
                .collect(),
            ..s.clone()
        };
        let when = s.when.as_ref().map(|w| self.formula(w));
        match when.as_ref().map(|w| as_const(&w.node)) {
            Some(Some(Value::Bool(true))) => Step {
                expr: self.formula(&s.expr),
                when: None,
                otherwise: None,
                ..s.clone()
            },
            Some(Some(Value::Bool(false))) => Step {
                expr: match &s.otherwise {
                    Some(o) => self.formula(o),
                    None => super::lower::formula(
                        s.expr.text.clone(),
                        constant(s.expr.node.span, Value::Absent),
                        s.expr.offset,
                    ),
                },
                when: None,
                otherwise: None,
                round: None,
                ..s.clone()
            },
            _ => Step {
                expr: self.formula(&s.expr),
                when,
                otherwise: s.otherwise.as_ref().map(|o| self.formula(o)),
                ..s.clone()
            },
        }
    }

    fn formula(&self, f: &Formula) -> Formula {
        super::lower::formula(f.text.clone(), self.fold(&f.node), f.offset)
    }
}

/// Whether every citation of a folded step has a constant boolean condition.
fn cites_settled(s: &Step) -> bool {
    s.cite
        .iter()
        .all(|(w, _)| matches!(as_const(&w.node), Some(Value::Bool(_))))
}

fn constant(span: crate::span::Span, v: Value) -> Node {
    Node {
        span,
        kind: NodeKind::Const(v),
    }
}

fn as_const(node: &Node) -> Option<&Value> {
    match &node.kind {
        NodeKind::Const(v) => Some(v),
        _ => None,
    }
}

/// The node with the item's fields replaced by their values, simplified where certain.
impl Fold<'_> {
    /// Grows the stack rather than overflow it on a formula nested to the
    /// parser's bound.
    fn fold(&self, node: &Node) -> Node {
        stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || self.fold_now(node))
    }

    fn fold_now(&self, node: &Node) -> Node {
        let span = node.span;
        let kind = match &node.kind {
            NodeKind::Item => return constant(span, self.item.clone()),
            NodeKind::ItemStep(j) => match self.steps.get(*j) {
                Some(Some(v)) => return constant(span, v.clone()),
                _ => NodeKind::ItemStep(*j),
            },
            NodeKind::Field { base, index, path } => {
                let base = self.fold(base);
                match as_const(&base) {
                    Some(Value::Record(r)) => {
                        return constant(
                            span,
                            r.fields.get(*index).cloned().unwrap_or(Value::Absent),
                        )
                    }
                    Some(v) if v.is_missing() => return constant(span, v.clone()),
                    _ => NodeKind::Field {
                        base: Box::new(base),
                        index: *index,
                        path: path.clone(),
                    },
                }
            }
            NodeKind::Not(inner) => {
                let inner = self.fold(inner);
                if let Some(Value::Bool(b)) = as_const(&inner) {
                    return constant(span, Value::Bool(!b));
                }
                NodeKind::Not(Box::new(inner))
            }
            NodeKind::Neg(inner) => {
                let inner = self.fold(inner);
                if let Some(n) = as_const(&inner).and_then(Value::as_num) {
                    return constant(span, Value::from_num(-n));
                }
                NodeKind::Neg(Box::new(inner))
            }
            NodeKind::Binary(op, a, b) => {
                let (a, b) = (self.fold(a), self.fold(b));
                if let Some(v) = fold_binary(*op, &a, &b) {
                    return v;
                }
                NodeKind::Binary(*op, Box::new(a), Box::new(b))
            }
            NodeKind::If(parts) => {
                let c = self.fold(&parts.0);
                match as_const(&c) {
                    Some(Value::Bool(true)) => return self.fold(&parts.1),
                    Some(Value::Bool(false)) => return self.fold(&parts.2),
                    _ => NodeKind::If(Box::new((c, self.fold(&parts.1), self.fold(&parts.2)))),
                }
            }
            NodeKind::Match {
                scrutinee,
                arms,
                otherwise,
            } => {
                let s = self.fold(scrutinee);
                if let Some(v) = as_const(&s).filter(|v| !v.is_missing()) {
                    let arm = arms.iter().find(|(lits, _)| {
                        lits.iter()
                            .any(|lit| compare(v, lit).is_some_and(|o| o.is_eq()))
                    });
                    return self.fold(arm.map_or(&**otherwise, |(_, value)| value));
                }
                NodeKind::Match {
                    scrutinee: Box::new(s),
                    arms: arms
                        .iter()
                        .map(|(lit, value)| (lit.clone(), self.fold(value)))
                        .collect(),
                    otherwise: Box::new(self.fold(otherwise)),
                }
            }
            NodeKind::Call(func, args) => {
                let args: Vec<Node> = args.iter().map(|a| self.fold(a)).collect();
                match (func, args.first().and_then(as_const)) {
                    (Func::IsMissing, Some(v)) => {
                        return constant(span, Value::Bool(v.is_missing()))
                    }
                    (Func::IsNull, Some(v)) => {
                        return constant(span, Value::Bool(*v == Value::Null))
                    }
                    (Func::Coalesce, _) => {
                        // Constants that are missing drop out; a present constant ends the search.
                        let mut kept: Vec<Node> = Vec::new();
                        for a in args {
                            match as_const(&a) {
                                Some(v) if v.is_missing() => {}
                                Some(_) => {
                                    if kept.is_empty() {
                                        return a;
                                    }
                                    kept.push(a);
                                    break;
                                }
                                None => kept.push(a),
                            }
                        }
                        match kept.len() {
                            0 => return constant(span, Value::Absent),
                            1 => return kept.remove(0),
                            _ => NodeKind::Call(Func::Coalesce, kept),
                        }
                    }
                    _ => NodeKind::Call(*func, args),
                }
            }
            NodeKind::Let { value, body } => NodeKind::Let {
                value: Box::new(self.fold(value)),
                body: Box::new(self.fold(body)),
            },
            NodeKind::Comprehension {
                indexed,
                body,
                list,
                filter,
            } => NodeKind::Comprehension {
                indexed: *indexed,
                body: Box::new(self.fold(body)),
                list: Box::new(self.fold(list)),
                filter: filter.as_ref().map(|f| Box::new(self.fold(f))),
            },
            other => other.clone(),
        };
        Node { span, kind }
    }
}

/// A binary operation on constants, when its value is certain.
fn fold_binary(op: BinOp, a: &Node, b: &Node) -> Option<Node> {
    let span = a.span.join(b.span);
    let (x, y) = (as_const(a), as_const(b));
    match op {
        BinOp::And => match (x, y) {
            (Some(Value::Bool(false)), _) => Some(constant(span, Value::Bool(false))),
            (Some(Value::Bool(true)), Some(Value::Bool(v))) => {
                Some(constant(span, Value::Bool(*v)))
            }
            _ => None,
        },
        BinOp::Or => match (x, y) {
            (Some(Value::Bool(true)), _) => Some(constant(span, Value::Bool(true))),
            (Some(Value::Bool(false)), Some(Value::Bool(v))) => {
                Some(constant(span, Value::Bool(*v)))
            }
            _ => None,
        },
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
            let (x, y): (Num, Num) = (x?.as_num()?, y?.as_num()?);
            x.arith(op, y)
                .ok()
                .map(|n| constant(span, Value::from_num(n)))
        }
        _ => {
            let (x, y) = (x?, y?);
            if x.is_missing() || y.is_missing() {
                return None;
            }
            let ord = compare(x, y)?;
            Some(constant(span, Value::Bool(op.holds(ord))))
        }
    }
}
