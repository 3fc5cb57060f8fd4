//! Warnings: inputs, parameters, tables, steps and per-item groups that a
//! rulebook declares and nothing reads, and decisions no check gives.
//!
//! A dead rate parameter or a step left behind by an edit passes every
//! check and changes no answer, so it goes unnoticed until the next version
//! is written from this one. `bareme check` prints these warnings (and
//! `--deny warnings` fails on them); loading for evaluation ignores them.
//!
//! What counts as read: every formula of the rulebook other than a
//! top-level step's (checks, answers, reports, ablations, per-item groups,
//! inputs' conditions and rules, dated parameters' selectors) is a root, and
//! a step is read when a root or a read step reads it; an input is also
//! read when another input refers to its keys (`ref`, `key_ref`) or when it
//! supplies the rows of a table that is read, and a keyed table when an
//! input's keys refer to it; a group is read by a formula, an answer
//! written for each of its items, or a report over it.

use indexmap::IndexMap;
use std::collections::BTreeSet;

use super::raw::{Anchor, RawRulebook};
use crate::diag::Problem;
use crate::model::{
    CheckOutcome, Input, InputKind, Node, NodeKind, Output, OutputValue, RefTarget, Rulebook,
};
use crate::span::Span;

/// Where each top-level name is declared, taken from the file before the
/// checker consumes it.
pub(crate) struct Declarations {
    inputs: IndexMap<String, Span>,
    params: IndexMap<String, Span>,
    tables: IndexMap<String, Span>,
    steps: IndexMap<String, Span>,
    groups: IndexMap<String, Span>,
    decisions: IndexMap<String, Span>,
}

impl Declarations {
    /// The declarations of a rulebook file as written.
    pub(crate) fn of(raw: &RawRulebook) -> Self {
        fn spans<T: Anchor>(items: &IndexMap<String, T>) -> IndexMap<String, Span> {
            items.iter().map(|(k, v)| (k.clone(), v.anchor())).collect()
        }
        Declarations {
            inputs: spans(&raw.inputs),
            params: spans(&raw.parameters),
            tables: spans(&raw.tables),
            steps: spans(&raw.steps),
            groups: spans(&raw.per_item),
            decisions: spans(&raw.decisions),
        }
    }
}

/// What the formulas seen so far read.
#[derive(Default)]
struct Reads {
    inputs: BTreeSet<usize>,
    params: BTreeSet<usize>,
    tables: BTreeSet<usize>,
    steps: BTreeSet<usize>,
    groups: BTreeSet<usize>,
}

impl Reads {
    fn node(&mut self, node: &Node) {
        match &node.kind {
            NodeKind::Input(i) => {
                self.inputs.insert(i.index());
            }
            NodeKind::Step(s) => {
                self.steps.insert(s.index());
            }
            NodeKind::Param(p) => {
                self.params.insert(*p);
            }
            NodeKind::Table(t) => {
                self.tables.insert(t.index());
            }
            NodeKind::Group(g) => {
                self.groups.insert(*g);
            }
            _ => {}
        }
        for child in node.children() {
            self.node(child);
        }
    }

    /// Inputs and tables an input's keys refer to, at any depth.
    fn refs(&mut self, input: &Input) {
        for target in input.refers.iter().chain(&input.key_ref) {
            match target {
                RefTarget::Input(i) | RefTarget::ListField(i, _) => {
                    self.inputs.insert(i.index());
                }
                RefTarget::Table(t) => {
                    self.tables.insert(t.index());
                }
            }
        }
        match &input.kind {
            InputKind::Record { fields, .. } => fields.iter().for_each(|f| self.refs(f)),
            InputKind::List { item, .. } | InputKind::Map { item, .. } => self.refs(item),
            _ => {}
        }
    }
}

/// The warnings of a checked rulebook (before it is prepared), in the
/// order of declaration: inputs, parameters, tables, then steps.
pub(crate) fn unused(rb: &mut Rulebook, declared: &Declarations) -> Vec<Problem> {
    let mut reads = Reads::default();
    // The roots: every formula but the top-level steps'.
    let steps = std::mem::take(&mut rb.steps);
    super::lower::each_formula(rb, &mut |f| reads.node(&f.node));
    rb.steps = steps;
    for input in &rb.inputs {
        reads.refs(input);
    }
    // Steps read from the roots, and what they read in turn.
    let mut pending: Vec<usize> = reads.steps.iter().copied().collect();
    while let Some(s) = pending.pop() {
        let Some(step) = rb.steps.get(s) else {
            continue;
        };
        let mut inner = Reads::default();
        for f in step.formulas() {
            inner.node(&f.node);
        }
        for t in inner.steps {
            if reads.steps.insert(t) {
                pending.push(t);
            }
        }
        reads.inputs.extend(inner.inputs);
        reads.params.extend(inner.params);
        reads.tables.extend(inner.tables);
        reads.groups.extend(inner.groups);
    }
    for decision in &rb.decisions {
        each_groups(&decision.answer, &mut reads.groups);
    }
    for report in &rb.reports {
        reads.groups.insert(report.group);
    }

    let mut warnings = Vec::new();
    let mut warn = |code, what: &str, name: &str, spans: &IndexMap<String, Span>| {
        let message = format!("{what} `{name}` is never read");
        let mut problem = Problem::new(code, message)
            .help("read it where it applies, or remove it")
            .as_warning();
        if let Some(span) = spans.get(name) {
            problem = problem.at(*span, "declared here, read nowhere");
        }
        warnings.push(problem);
    };
    for (i, input) in rb.inputs.iter().enumerate() {
        // Rows supplied for a table are read wherever the table is.
        let supplies_read_rows = matches!(input.kind, InputKind::Table { table } if reads.tables.contains(&table.index()));
        if !reads.inputs.contains(&i) && !supplies_read_rows {
            warn("warn::unused_input", "input", &input.name, &declared.inputs);
        }
    }
    for (i, param) in rb.params.iter().enumerate() {
        if !reads.params.contains(&i) {
            warn(
                "warn::unused_parameter",
                "parameter",
                &param.name,
                &declared.params,
            );
        }
    }
    for (i, table) in rb.tables.iter().enumerate() {
        if !reads.tables.contains(&i) {
            warn("warn::unused_table", "table", &table.name, &declared.tables);
        }
    }
    for (i, step) in rb.steps.iter().enumerate() {
        if !reads.steps.contains(&i) {
            warn("warn::unused_step", "step", &step.name, &declared.steps);
        }
    }
    for (g, group) in rb.groups.iter().enumerate() {
        if !reads.groups.contains(&g) {
            warn(
                "warn::unused_group",
                "per-item group",
                &group.name,
                &declared.groups,
            );
        }
    }
    let given: BTreeSet<usize> = rb
        .checks
        .iter()
        .filter_map(|c| match c.outcome {
            CheckOutcome::Decide { decision, .. } => Some(decision),
            CheckOutcome::Reject { .. } => None,
        })
        .collect();
    for (d, decision) in rb.decisions.iter().enumerate() {
        if !given.contains(&d) {
            let message = format!("decision `{}` is given by no check", decision.name);
            let mut problem = Problem::new("warn::unused_decision", message)
                .help("give it from a check, or remove it")
                .as_warning();
            if let Some(span) = declared.decisions.get(&*decision.name) {
                problem = problem.at(*span, "declared here, given nowhere");
            }
            warnings.push(problem);
        }
    }
    warnings
}

/// The groups whose items answer fields are written for (`each`), at any depth.
fn each_groups(outputs: &[Output], groups: &mut BTreeSet<usize>) {
    for output in outputs {
        if let OutputValue::Each { group, fields, .. } = &output.value {
            groups.insert(*group);
            each_groups(fields, groups);
        }
    }
}
