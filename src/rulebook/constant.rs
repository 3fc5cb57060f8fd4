//! Warnings: a part of a formula that reads nothing of the case and fails.
//!
//! `1 / 0`, `1 / (rate - 0.5)` with that rate, or
//! `pow(1.05, 0.5) * pow(1.05, 0.5)` (past exact arithmetic's range) passes
//! every check, yet faults every case that computes it: the author learns
//! of it from the first case that does, if any case does. Such a part reads
//! only constants, parameters with one value and the rulebook's own tables,
//! so it has one value for every case: it is computed once here, by the
//! evaluator itself, and a fault is a warning located at the part that
//! failed. What it would give otherwise is the evaluator's business: the
//! part is still computed on every case, as written.

use super::lower::{each_formula, formula};
use crate::diag::Problem;
use crate::eval::FormulaReader;
use crate::facts::{Facts, Given};
use crate::model::code::node_count;
use crate::model::{Formula, InputKind, Node, NodeKind, ParamValue, Rulebook};
use crate::span::Span;
use crate::value::Value;

/// One warning for each part of a formula of `rb` that reads nothing of
/// the case and fails, in the order of the formulas and of their text. `rb` is the
/// checked rulebook, before its groups are specialised: only what its
/// author wrote is looked at.
pub(crate) fn failing_constants(rb: &mut Rulebook) -> Vec<Problem> {
    let fixed: Vec<bool> = (rb.params.iter())
        .map(|p| matches!(p.value, ParamValue::Fixed(_)))
        .collect();
    let mut replaceable = vec![false; rb.tables.len()];
    for input in &rb.inputs {
        if let InputKind::Table { table } = input.kind {
            if let Some(r) = replaceable.get_mut(table.index()) {
                *r = true;
            }
        }
    }
    let reads = ReadsNothing {
        fixed: &fixed,
        replaceable: &replaceable,
    };
    // The parts are copied out of the rulebook to be computed against it;
    // no more nodes than the budget could compute, nor than `MAX_NODES`.
    let mut room = MAX_NODES.min(rb.limits.max_eval_steps);
    let mut parts: Vec<Formula> = Vec::new();
    each_formula(rb, &mut |f| {
        let mut found = Vec::new();
        if reads.visit(&f.node, &mut found) && computes(&f.node) {
            found.push(&f.node);
        }
        // In the order of the text, once for the formula (not at every
        // level: a long sum would sort its parts once per term).
        found.sort_by_key(|n| n.span.start);
        for node in found {
            let Some(left) = room.checked_sub(node_count(node)) else {
                room = 0;
                return;
            };
            room = left;
            parts.push(formula(f.text.clone(), node.clone(), f.offset));
        }
    });
    let facts = Facts {
        values: vec![Value::Absent; rb.inputs.len()],
        given: vec![Given::Absent; rb.inputs.len()],
        tables: vec![None; rb.tables.len()],
        spent: 0,
    };
    // One budget for every part, as for one case: a rulebook of many
    // costly parts is checked in the time one case of it would take, and
    // what is left unchecked when the budget runs out (or past the nodes
    // copied) is not warned of.
    let mut reader = FormulaReader::new(rb, &facts);
    let mut warnings = Vec::new();
    for part in &parts {
        let Err(e) = reader.read(part) else {
            continue;
        };
        if reader.spent() {
            break;
        }
        let whole = part.text.get(span_range(part.node.span)).unwrap_or("");
        let message = format!(
            "`{whole}` reads nothing of the case and fails on every case that computes it: {}",
            e.message
        );
        let mut problem = Problem::new("warn::always_fails", message)
            .help("compute it another way (round an operand first, say), or remove it")
            .as_warning();
        if let Some(offset) = part.offset {
            problem = problem.at(e.span.shifted(offset), "fails whatever the case");
        }
        warnings.push(problem);
    }
    warnings
}

/// The most nodes of parts copied for one check: a rulebook's parts that
/// read nothing are a few dozen nodes; one written to make the check copy
/// much is bounded to a few megabytes (the budget bounds the computing).
const MAX_NODES: u64 = 1 << 16;

fn span_range(span: Span) -> std::ops::Range<usize> {
    span.start as usize..span.end as usize
}

/// What a part may read and still read nothing of the case.
struct ReadsNothing<'a> {
    /// Whether each parameter has one value (not one chosen by a date).
    fixed: &'a [bool],
    /// Whether a case may supply each table's rows.
    replaceable: &'a [bool],
}

impl ReadsNothing<'_> {
    /// Whether `node` reads nothing of the case; every largest part of it
    /// that does not (and computes something) is added to `found` when
    /// `node` itself reads the case.
    fn visit<'n>(&self, node: &'n Node, found: &mut Vec<&'n Node>) -> bool {
        stacker::maybe_grow(256 * 1024, 8 * 1024 * 1024, || self.visit_now(node, found))
    }

    fn visit_now<'n>(&self, node: &'n Node, found: &mut Vec<&'n Node>) -> bool {
        let own = match &node.kind {
            NodeKind::Const(_) | NodeKind::Mode(_) => true,
            NodeKind::Param(i) => self.fixed.get(*i).copied().unwrap_or(false),
            NodeKind::Table(t) => !self.replaceable.get(t.index()).copied().unwrap_or(true),
            // Bound names stand for what the case gives, whatever they are
            // bound to here.
            NodeKind::Let { .. } | NodeKind::Comprehension { .. } => false,
            NodeKind::Input(_)
            | NodeKind::Step(_)
            | NodeKind::Item
            | NodeKind::ItemStep(_)
            | NodeKind::Group(_)
            | NodeKind::Local(_)
            | NodeKind::InItem(_)
            | NodeKind::Decision
            | NodeKind::Reason
            | NodeKind::Clauses => false,
            _ => true,
        };
        let children = node.children();
        let mut marks = Vec::with_capacity(children.len());
        for child in &children {
            let mut inner = Vec::new();
            marks.push(self.visit(child, &mut inner));
            found.append(&mut inner);
        }
        if own && marks.iter().all(|m| *m) {
            return true;
        }
        // Each child that reads nothing is a largest such part: kept, in
        // place of the parts found inside it (there are none: a child
        // that reads nothing reports nothing).
        for (child, reads_nothing) in children.into_iter().zip(marks) {
            if reads_nothing && computes(child) {
                found.push(child);
            }
        }
        false
    }
}

/// Whether a part computes anything: a constant, a parameter or a table
/// named alone cannot fail.
fn computes(node: &Node) -> bool {
    !matches!(
        node.kind,
        NodeKind::Const(_) | NodeKind::Mode(_) | NodeKind::Param(_) | NodeKind::Table(_)
    )
}

#[cfg(test)]
mod tests;
