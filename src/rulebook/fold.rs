//! Per-item steps specialised against the constant rows of a table.
//!
//! A group that runs over `rows(table)` of a table no case can replace sees
//! the same rows every time: each row's fields are constants. Folding them
//! into the group's formulas once, at load, removes the work of reading and
//! comparing them for every case (a payslip's `match line.base { … }` becomes
//! the base itself). The folded formulas (lowered like every other) are run
//! only when no trace is asked for, so traces still show every read (a
//! traced evaluation replays what a known step recorded the first time it
//! ran in full, `eval/known.rs`, kept in `SpecializedRow::traces`, and runs
//! the row's other steps as written with their parts the same for every
//! case replayed, `rulebook::recorded`); the conformance runner checks that
//! both give the same answers.
//!
//! Invariant: folding never changes a result or an error: a node is folded
//! only when its value is certain (constants of the right kind), and anything
//! that could fail is left for the evaluator, which reports it in place.

use std::sync::{Arc, OnceLock};

use crate::expr::BinOp;
use crate::model::code::node_count;
use crate::model::{
    item_label, Formula, Func, InputKind, Node, NodeKind, Rulebook, Specialized, SpecializedRow,
    Step,
};
use crate::num::exact::Num;
use crate::value::compare;
use crate::value::Value;

/// How many formula nodes folding may copy, over every group of the
/// rulebook (a group's nodes, once per row): paie-fr's payslip group is
/// 135 nodes over 27 rows, 3,645 copies. A copied node costs a few hundred
/// bytes (the row's folded tree, its code and the traced copy), so this
/// holds the copies under about 100 MB; a budget of formula text per group
/// let a 47 KB rulebook of six groups over 1,100 rows take 3.9 GB to load.
/// Past it, a group runs as written: the same values, at the cost of
/// reading rows.
const FOLD_BUDGET: u64 = 1 << 18;

/// Fills `specialized` for every group over the rows of a table no input replaces.
pub fn specialize(rb: &mut Rulebook) {
    let mut budget = FOLD_BUDGET;
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
        // Each row gets a copy of every step: past the budget, the group
        // runs as written (the same values, at the cost of reading rows).
        let nodes: u64 = steps
            .iter()
            .flat_map(Step::formulas)
            .map(|f| node_count(&f.node))
            .sum();
        let copies = nodes.saturating_mul(rows.len() as u64);
        match budget.checked_sub(copies) {
            Some(left) => budget = left,
            None => continue,
        }
        let order = fold_order(steps);
        let per_row: Vec<SpecializedRow> = rows
            .iter()
            .map(|row| specialize_row(steps, &order, row))
            .collect();
        let name = &rb.groups[g].name;
        let labels = (0..rows.len()).map(|i| item_label(name, i)).collect();
        rb.groups[g].specialized = Some(Arc::new(Specialized {
            items: Value::List(rows.into()),
            rows: per_row,
            labels,
        }));
    }
}

/// The group's steps in an order where each comes after the steps of the
/// group it reads (Kahn's algorithm), so that one pass folds each step
/// against the final values of what it reads; and whether every step is
/// in it. The checker refuses a cycle, so all are, but a step on one would
/// be left for [`specialize_row`]'s rounds.
fn fold_order(steps: &[Step]) -> (Vec<usize>, bool) {
    let n = steps.len();
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiting: Vec<usize> = vec![0; n];
    for (j, s) in steps.iter().enumerate() {
        let (mut top, mut local) = (Vec::new(), Vec::new());
        for f in s.formulas() {
            f.node.step_reads(0, &mut top, &mut local);
        }
        local.sort_unstable();
        local.dedup();
        for k in local.into_iter().filter(|&k| k < n && k != j) {
            readers[k].push(j);
            waiting[j] += 1;
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&j| waiting[j] == 0).collect();
    let mut at = 0;
    while let Some(&k) = order.get(at) {
        at += 1;
        for &j in &readers[k] {
            waiting[j] -= 1;
            if waiting[j] == 0 {
                order.push(j);
            }
        }
    }
    let complete = order.len() == n;
    (order, complete)
}

/// A group's steps for one row. A step that folds to a constant (no condition
/// left, no rounding, each citation's condition a constant boolean, so that
/// not running it skips no fault) is itself folded into the steps that read
/// it. Folded in `order` (see [`fold_order`]), each step once: rounds until
/// nothing changes cost steps² per row on a chain of steps, so they are
/// left for a group whose order is not complete.
fn specialize_row(steps: &[Step], order: &(Vec<usize>, bool), row: &Value) -> SpecializedRow {
    let settled = |s: &Step| match (&s.expr.node.kind, &s.when, s.round) {
        (NodeKind::Const(v), None, None) if cites_settled(s) => Some(v.clone()),
        _ => None,
    };
    let mut known: Vec<Option<Value>> = vec![None; steps.len()];
    let mut folded: Vec<Option<Step>> = vec![None; steps.len()];
    for &j in &order.0 {
        let cx = Fold {
            item: row,
            steps: &known,
        };
        let step = cx.step(&steps[j]);
        known[j] = settled(&step);
        folded[j] = Some(step);
    }
    let mut folded: Vec<Step> = if order.1 {
        folded.into_iter().flatten().collect()
    } else {
        Vec::new()
    };
    if !order.1 {
        for _ in 0..=steps.len() {
            let cx = Fold {
                item: row,
                steps: &known,
            };
            folded = steps.iter().map(|s| cx.step(s)).collect();
            let next: Vec<Option<Value>> = folded.iter().map(settled).collect();
            if next == known {
                break;
            }
            known = next;
        }
    }
    SpecializedRow {
        steps: folded,
        traces: known.iter().map(|_| OnceLock::new()).collect(),
        traced: Vec::new(),
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
                expr: self.value_formula(&s.expr, s.round.is_some()),
                when: None,
                otherwise: None,
                ..s.clone()
            },
            Some(Some(Value::Bool(false))) => Step {
                expr: match &s.otherwise {
                    Some(o) => self.value_formula(o, false),
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
                expr: self.value_formula(&s.expr, s.round.is_some()),
                when,
                otherwise: s.otherwise.as_ref().map(|o| self.value_formula(o, false)),
                ..s.clone()
            },
        }
    }

    /// A condition: its value is judged (true or false) where it stands.
    fn formula(&self, f: &Formula) -> Formula {
        super::lower::formula(f.text.clone(), self.fold(&f.node), f.offset)
    }

    /// A step's formula: its value is kept as it is, missing or not, so
    /// nothing judges what its root gives but a rounding point (`rounded`),
    /// which names the whole formula when it cannot round it.
    fn value_formula(&self, f: &Formula, rounded: bool) -> Formula {
        super::lower::formula(f.text.clone(), self.fold_in(&f.node, rounded), f.offset)
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

/// The arm an `if` or `match` settles on, standing for the choice where
/// that keeps what any fault says. Where nothing in the formula judges the
/// choice's value, any arm stands for it as it is (its own faults are named
/// at its own text, as the evaluator names them). Where the value is judged,
/// what cannot use it names the choice (the text at its span), so only an
/// arm that cannot fault by itself and is named by that text too, a constant
/// or a per-item step's read, stands for it, at the choice's span; any other
/// arm leaves the choice to the evaluator.
fn chosen(span: crate::span::Span, arm: &Node, judged: bool) -> Option<Node> {
    if !judged {
        return Some(arm.clone());
    }
    match &arm.kind {
        NodeKind::Const(_) | NodeKind::ItemStep(_) => Some(Node {
            span,
            kind: arm.kind.clone(),
        }),
        _ => None,
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
        self.fold_in(node, true)
    }

    /// `judged`: whether what the node gives is judged by a node of the same
    /// formula (an operand, an argument, a condition), which names the node
    /// when it cannot use the value. A choice's arms stand where the choice
    /// stands; the root of a step's formula is not judged.
    fn fold_in(&self, node: &Node, judged: bool) -> Node {
        stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || self.fold_now(node, judged))
    }

    fn fold_now(&self, node: &Node, judged: bool) -> Node {
        let span = node.span;
        let kind = match &node.kind {
            NodeKind::Item => return constant(span, self.item.clone()),
            NodeKind::ItemStep(j) => match self.steps.get(*j) {
                Some(Some(v)) => return constant(span, v.clone()),
                _ => NodeKind::ItemStep(*j),
            },
            NodeKind::Field { base, index, path } => {
                let base = self.fold(base);
                // A missing field that is judged stays a read: what cannot
                // use it names the read by its path, as the evaluator does.
                match as_const(&base) {
                    Some(Value::Record(r)) => match r.fields.get(*index) {
                        Some(v) if !(judged && v.is_missing()) => return constant(span, v.clone()),
                        None if !judged => return constant(span, Value::Absent),
                        _ => NodeKind::Field {
                            base: Box::new(base),
                            index: *index,
                            path: path.clone(),
                        },
                    },
                    Some(v) if v.is_missing() && !judged => return constant(span, v.clone()),
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
                if let Some(v) = fold_binary(*op, span, &a, &b) {
                    return v;
                }
                NodeKind::Binary(*op, Box::new(a), Box::new(b))
            }
            NodeKind::If(parts) => {
                let c = self.fold(&parts.0);
                let (a, b) = (
                    self.fold_in(&parts.1, judged),
                    self.fold_in(&parts.2, judged),
                );
                let arm = match as_const(&c) {
                    Some(Value::Bool(true)) => chosen(span, &a, judged),
                    Some(Value::Bool(false)) => chosen(span, &b, judged),
                    _ => None,
                };
                match arm {
                    Some(arm) => return arm,
                    None => NodeKind::If(Box::new((c, a, b))),
                }
            }
            NodeKind::Match {
                scrutinee,
                arms,
                otherwise,
            } => {
                let s = self.fold(scrutinee);
                let arms: Vec<_> = arms
                    .iter()
                    .map(|(lit, value)| (lit.clone(), self.fold_in(value, judged)))
                    .collect();
                let otherwise = self.fold_in(otherwise, judged);
                if let Some(v) = as_const(&s).filter(|v| !v.is_missing()) {
                    let arm = arms.iter().find(|(lits, _)| {
                        lits.iter()
                            .any(|lit| compare(v, lit).is_some_and(|o| o.is_eq()))
                    });
                    let arm = arm.map_or(&otherwise, |(_, value)| value);
                    if let Some(arm) = chosen(span, arm, judged) {
                        return arm;
                    }
                }
                NodeKind::Match {
                    scrutinee: Box::new(s),
                    arms,
                    otherwise: Box::new(otherwise),
                }
            }
            NodeKind::Call(func, args) => {
                // These take a missing argument as it is: no fault to name.
                let judged = !matches!(func, Func::Coalesce | Func::IsMissing | Func::IsNull);
                let args: Vec<Node> = args.iter().map(|a| self.fold_in(a, judged)).collect();
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
                                Some(v) => {
                                    if kept.is_empty() {
                                        return constant(span, v.clone());
                                    }
                                    kept.push(a);
                                    break;
                                }
                                None => kept.push(a),
                            }
                        }
                        match kept.len() {
                            0 => return constant(span, Value::Absent),
                            // One argument left stays a call: its missing or null
                            // value is the call's missing value, named as the call.
                            _ => NodeKind::Call(Func::Coalesce, kept),
                        }
                    }
                    _ => NodeKind::Call(*func, args),
                }
            }
            NodeKind::Let { value, body } => NodeKind::Let {
                value: Box::new(self.fold(value)),
                body: Box::new(self.fold_in(body, judged)),
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
fn fold_binary(op: BinOp, span: crate::span::Span, a: &Node, b: &Node) -> Option<Node> {
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

#[cfg(test)]
mod tests;
