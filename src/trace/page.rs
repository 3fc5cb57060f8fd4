//! What an audit page shows, worked out once for its two renderings
//! (`html.rs`, `markdown.rs`, `docs/audit-page.md`): the header (rulebook,
//! engine, the case's digest), the evaluation as blocks in order (a
//! per-item group gathered into one block), where each value read came
//! from, and the anchor of every step and clause, so that a value links to
//! the step that made it (the answer is `answer.rs`'s).
//!
//! The rulebook gives what the trace only names: clause texts, which names
//! are inputs and parameters, a group's item and list, the decision's fields.
//!
//! Invariant: nothing here is written for a reader; the renderers escape
//! every piece of text they take from here (case text included), and the
//! anchors made here hold only `[A-Za-z0-9_-]`.

use std::collections::{HashMap, HashSet};

use sha2::{Digest, Sha256};

use super::text::shown;
use super::{CheckTrace, CiteTrace, Event, OutcomeTrace, ReadTrace, StepTrace, Trace};
use crate::model::{Clauses, Rulebook};
use crate::value::Value;

/// Characters of a value in a table cell before `…`.
const CELL_CHARS: usize = 80;

/// Columns of item fields a group's table shows beside its steps.
const ITEM_FIELDS: usize = 2;

/// What a page is made from: the evaluation's trace and answer, the
/// rulebook it ran under and the case's bytes as read (for their digest).
#[derive(Clone, Copy, Debug)]
pub struct PageSource<'a> {
    /// The rulebook evaluated under (clause texts, names, decisions).
    pub rulebook: &'a Rulebook,
    /// The trace of the evaluation.
    pub trace: &'a Trace,
    /// The answer's JSON text as its writer writes it; `None` for a rejection.
    pub answer: Option<&'a str>,
    /// The case's bytes as read (a file, or a batch line without its ending).
    pub case: &'a [u8],
}

/// The page, worked out.
pub(super) struct Page<'a> {
    /// The rulebook's title, or its id.
    pub title: String,
    /// Label and value of each header line.
    pub header: Vec<(&'static str, String)>,
    /// `bareme` and its version.
    pub engine: String,
    /// The ablation evaluated under, if any.
    pub ablation: Option<&'a str>,
    /// The evaluation in order.
    pub blocks: Vec<Block<'a>>,
    /// Every clause the page names, in the rulebook's order, with its text.
    pub clauses: Vec<(String, String)>,
    /// The trace.
    pub trace: &'a Trace,
    /// The rulebook.
    pub rb: &'a Rulebook,
    /// Anchor and first trace of each step: (item or "", step) → both.
    anchors: HashMap<(String, String), (String, &'a StepTrace)>,
    /// Anchor of each clause the page names.
    clause_ids: HashMap<String, String>,
}

/// One block of the evaluation.
pub(super) enum Block<'a> {
    /// A check tested.
    Check(&'a CheckTrace),
    /// A top-level step.
    Step(&'a StepTrace),
    /// A decision's conditional citation.
    Cite(&'a CiteTrace),
    /// Every step of a per-item group.
    Group(Group<'a>),
}

/// A per-item group: its steps (columns) and items (rows).
pub(super) struct Group<'a> {
    /// Its name (`lines`).
    pub name: String,
    /// Its label.
    pub label: Option<String>,
    /// The list it runs over, as written.
    pub over: Option<String>,
    /// Its steps, in order of first appearance, with the first trace of each.
    pub columns: Vec<&'a StepTrace>,
    /// The item fields read (`line.base`), a few at most.
    pub fields: Vec<String>,
    /// Each item: its name (`lines[3]`) and its steps in order.
    pub items: Vec<(String, Vec<&'a StepTrace>)>,
    /// Where each item is in `items`.
    at: HashMap<String, usize>,
}

/// Where a value read came from.
pub(super) struct Origin {
    /// What it is: `input`, `parameter`, `step`, `table row`, …
    pub kind: &'static str,
    /// More words (a label, the row and its key).
    pub detail: String,
    /// The anchor of where it is shown, when the page shows it.
    pub href: Option<String>,
}

impl<'a> Page<'a> {
    /// Works the page out.
    pub fn new(src: &PageSource<'a>) -> Page<'a> {
        let (rb, trace) = (src.rulebook, src.trace);
        let mut page = Page {
            title: rb.title().unwrap_or(rb.id()).to_string(),
            header: header(src),
            engine: engine(),
            ablation: trace.ablation.as_deref(),
            blocks: Vec::new(),
            clauses: Vec::new(),
            trace,
            rb,
            anchors: HashMap::new(),
            clause_ids: HashMap::new(),
        };
        let mut used = HashSet::new();
        for e in &trace.events {
            if let Event::Step(s) = e {
                let key = (
                    s.item.as_deref().unwrap_or("").to_string(),
                    s.step.to_string(),
                );
                if let std::collections::hash_map::Entry::Vacant(slot) = page.anchors.entry(key) {
                    let id = unique(&mut used, &step_id(s.item.as_deref(), &s.step));
                    slot.insert((id, &**s));
                }
            }
        }
        page.blocks = blocks(rb, &trace.events);
        page.clauses = clauses(rb, trace);
        for (id, _) in &page.clauses {
            let anchor = unique(&mut used, &format!("clause-{}", safe(id)));
            page.clause_ids.insert(id.clone(), anchor);
        }
        page
    }

    /// The anchor of a step: per-item in `item`, else top-level.
    pub fn step_href(&self, item: Option<&str>, name: &str) -> Option<String> {
        self.step_at(item, name).map(|(id, _)| id.clone())
    }

    /// The anchor and first trace of a step, per-item in `item` first.
    fn step_at(&self, item: Option<&str>, name: &str) -> Option<&(String, &'a StepTrace)> {
        item.and_then(|i| self.anchors.get(&(i.to_string(), name.to_string())))
            .or_else(|| self.anchors.get(&(String::new(), name.to_string())))
    }

    /// The anchor of a step's own trace.
    pub fn anchor(&self, s: &StepTrace) -> String {
        let key = (
            s.item.as_deref().unwrap_or("").to_string(),
            s.step.to_string(),
        );
        match self.anchors.get(&key) {
            Some((id, _)) => id.clone(),
            None => step_id(s.item.as_deref(), &s.step),
        }
    }

    /// A per-item step's own clauses and its conditional ones (condition,
    /// clauses) as the rulebook declares them: an item's trace holds only
    /// the clauses its own citations added.
    pub fn declared_clauses(
        &self,
        group: &str,
        s: &StepTrace,
    ) -> (Clauses, Vec<(String, Clauses)>) {
        let step = self
            .rb
            .groups
            .iter()
            .find(|g| *g.name == *group)
            .and_then(|g| g.steps.iter().find(|m| m.name == s.step));
        match step {
            Some(m) => (
                m.clauses.clone(),
                m.cite
                    .iter()
                    .map(|(f, c)| (f.text.trim().to_string(), c.clone()))
                    .collect(),
            ),
            None => (s.clauses.clone(), Vec::new()),
        }
    }

    /// The anchor of a clause the page names.
    pub fn clause_anchor(&self, id: &str) -> String {
        self.clause_ids
            .get(id)
            .cloned()
            .unwrap_or_else(|| format!("clause-{}", safe(id)))
    }

    /// Where a value read by a formula (of a step of `item`) came from.
    pub fn origin(&self, read: &ReadTrace, item: Option<&str>) -> Origin {
        let name = &*read.name;
        let (root, field) = match name.split_once('.') {
            Some((root, field)) => (root, Some(field)),
            None => (name, None),
        };
        let group = item.and_then(|i| self.rb.groups.iter().find(|g| *g.name == *group_of(i)));
        if let Some((href, step)) = self.step_at(item, root) {
            let href = href.clone();
            if field.is_none() {
                return origin("step", String::new(), Some(href));
            }
            let row = step.lookups.iter().find(|l| l.row.is_some());
            return match row {
                Some(l) => origin(
                    "table row",
                    format!(
                        "table {} ({}), row {} by {} {}",
                        l.table,
                        l.source,
                        l.row.as_deref().unwrap_or(""),
                        l.kind,
                        l.key
                    ),
                    Some(href),
                ),
                None => origin("step field", format!("of step {root}"), Some(href)),
            };
        }
        if let Some(g) = group.filter(|g| *g.item == *root) {
            let over = format!("an item of {}", g.over.text.trim());
            return origin("item field", over, None);
        }
        if let Some(input) = self.rb.inputs.iter().find(|i| *i.name == *root) {
            let kind = if field.is_some() {
                "input field"
            } else {
                "input"
            };
            let label = input.label.clone().unwrap_or_default();
            return origin(kind, label, Some(format!("input-{}", safe(root))));
        }
        if let Some(p) = self.rb.params.iter().find(|p| *p.name == *root) {
            let mut detail = p.label.clone().unwrap_or_default();
            if let Some(c) = &p.clause {
                detail = format!("{detail} [{c}]").trim().to_string();
            }
            return origin("parameter", detail, None);
        }
        origin("local", String::new(), None)
    }

    /// The clause's text, if the rulebook has it.
    pub fn clause_text(&self, id: &str) -> Option<&'a str> {
        self.rb.clauses.get(id).map(|t| t.as_str())
    }

    /// Why the decision is what it is: the check that held, if one did.
    pub fn deciding_check(&self) -> Option<&'a CheckTrace> {
        self.trace.events.iter().rev().find_map(|e| match e {
            Event::Check(c) if c.held => Some(c),
            _ => None,
        })
    }

    /// The decision's conditional citations, in order.
    pub fn decision_cites(&self) -> impl Iterator<Item = &'a CiteTrace> {
        self.trace.events.iter().filter_map(|e| match e {
            Event::Cite(c) => Some(c),
            _ => None,
        })
    }
}

fn origin(kind: &'static str, detail: String, href: Option<String>) -> Origin {
    Origin { kind, detail, href }
}

/// `bareme` and its version.
fn engine() -> String {
    format!("bareme {}", env!("CARGO_PKG_VERSION"))
}

/// The header lines: rulebook, version, hashes, engine, the case's digest.
fn header(src: &PageSource<'_>) -> Vec<(&'static str, String)> {
    let rb = src.rulebook;
    let digest = Sha256::digest(src.case);
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push_str(&format!("{b:02x}"));
    }
    vec![
        ("rulebook", rb.id().to_string()),
        ("version", rb.version().to_string()),
        ("rulebook sha256", rb.hash().to_string()),
        ("engine", engine()),
        ("case sha256", hex),
        ("trace reference", src.trace.rulebook.clone()),
    ]
}

/// `step-net_pay`, `step-lines-3-employee_part`.
fn step_id(item: Option<&str>, step: &str) -> String {
    match item {
        Some(item) => format!("step-{}-{}", safe(item), safe(step)),
        None => format!("step-{}", safe(step)),
    }
}

/// A name as an anchor's part: `[A-Za-z0-9_]` kept, runs of others one `-`,
/// none at either end.
pub(super) fn safe(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// `id`, or `id-2`, `id-3`… when taken.
fn unique(used: &mut HashSet<String>, id: &str) -> String {
    let mut candidate = id.to_string();
    let mut n = 1;
    while used.contains(&candidate) {
        n += 1;
        candidate = format!("{id}-{n}");
    }
    used.insert(candidate.clone());
    candidate
}

/// `lines` of `lines[3]`.
pub(super) fn group_of(item: &str) -> &str {
    item.split('[').next().unwrap_or(item)
}

/// The events as blocks: a per-item group gathered where its last step
/// finished, so that the top-level steps its items read come before it.
fn blocks<'a>(rb: &Rulebook, events: &'a [Event]) -> Vec<Block<'a>> {
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (at, e) in events.iter().enumerate() {
        if let Event::Step(s) = e {
            if let Some(item) = &s.item {
                last.insert(group_of(item), at);
            }
        }
    }
    let mut open: HashMap<&str, Group<'a>> = HashMap::new();
    let mut out = Vec::new();
    for (at, e) in events.iter().enumerate() {
        match e {
            Event::Check(c) => out.push(Block::Check(c)),
            Event::Cite(c) => out.push(Block::Cite(c)),
            Event::Step(s) => match &s.item {
                None => out.push(Block::Step(s)),
                Some(item) => {
                    let name = group_of(item);
                    let g = open.entry(name).or_insert_with(|| new_group(rb, name));
                    add_to_group(rb, g, s);
                    if last.get(name) == Some(&at) {
                        if let Some(g) = open.remove(name) {
                            out.push(Block::Group(g));
                        }
                    }
                }
            },
        }
    }
    out
}

fn new_group<'a>(rb: &Rulebook, name: &str) -> Group<'a> {
    let model = rb.groups.iter().find(|g| *g.name == *name);
    Group {
        name: name.to_string(),
        label: model.and_then(|g| g.label.clone()),
        over: model.map(|g| g.over.text.trim().to_string()),
        columns: Vec::new(),
        fields: Vec::new(),
        items: Vec::new(),
        at: HashMap::new(),
    }
}

fn add_to_group<'a>(rb: &Rulebook, g: &mut Group<'a>, s: &'a StepTrace) {
    let item = s.item.as_deref().unwrap_or("");
    if !g.columns.iter().any(|c| c.step == s.step) {
        g.columns.push(s);
    }
    let var = rb
        .groups
        .iter()
        .find(|m| *m.name == *g.name)
        .map(|m| format!("{}.", m.item));
    if let Some(var) = var {
        for r in &s.reads {
            let name = &*r.name;
            if name.starts_with(&var)
                && g.fields.len() < ITEM_FIELDS
                && !g.fields.iter().any(|f| f == name)
            {
                g.fields.push(name.to_string());
            }
        }
    }
    match g.at.get(item).and_then(|&at| g.items.get_mut(at)) {
        Some((_, steps)) => steps.push(s),
        None => {
            g.at.insert(item.to_string(), g.items.len());
            g.items.push((item.to_string(), vec![s]));
        }
    }
}

/// Every clause named by the outcome, a step or a citation, in the
/// rulebook's order (an id the rulebook lacks last, with no text).
fn clauses(rb: &Rulebook, trace: &Trace) -> Vec<(String, String)> {
    let mut named: HashSet<&str> = HashSet::new();
    if let OutcomeTrace::Decision { clauses, .. } = &trace.outcome {
        named.extend(clauses.iter().map(|c| c.as_str()));
    }
    for e in &trace.events {
        match e {
            Event::Step(s) => {
                named.extend(s.clauses.iter().map(|c| &**c));
                for c in &s.cites {
                    named.extend(c.clauses.iter().map(|c| &**c));
                }
                // A group's table names its steps' declared clauses.
                let declared = s.item.as_deref().and_then(|item| {
                    let g = rb.groups.iter().find(|g| *g.name == *group_of(item))?;
                    g.steps.iter().find(|m| m.name == s.step)
                });
                if let Some(m) = declared {
                    named.extend(m.clauses.iter().map(|c| &**c));
                    for (_, c) in &m.cite {
                        named.extend(c.iter().map(|c| &**c));
                    }
                }
            }
            Event::Cite(c) => named.extend(c.clauses.iter().map(|c| &**c)),
            Event::Check(_) => {}
        }
    }
    let mut out: Vec<(String, String)> = rb
        .clauses
        .iter()
        .filter(|(id, _)| named.contains(&***id))
        .map(|(id, text)| (id.to_string(), text.clone()))
        .collect();
    let mut missing: Vec<&str> = named
        .into_iter()
        .filter(|id| !rb.clauses.contains_key(*id))
        .collect();
    missing.sort_unstable();
    out.extend(
        missing
            .into_iter()
            .map(|id| (id.to_string(), String::new())),
    );
    out
}

/// A value as a page shows it (as a text trace does, capped).
pub(super) fn value_text(v: &Value) -> String {
    shown(v)
}

/// A value in a table cell: shorter.
pub(super) fn cell_text(v: &Value) -> String {
    let text = shown(v);
    if text.chars().count() <= CELL_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(CELL_CHARS).collect();
    cut.push('…');
    cut
}

/// Whether a value is nothing: zero, false or absent (an item whose steps
/// all are is shown dimmed).
pub(super) fn is_nothing(v: &Value) -> bool {
    match v {
        Value::Number(d) => d.is_zero(),
        Value::Bool(b) => !b,
        Value::Absent | Value::Null => true,
        _ => false,
    }
}

impl Page<'_> {
    /// The anchor a formula that is a bare name points to: a step (of
    /// `item` first) or an input.
    pub(super) fn name_href(&self, item: Option<&str>, formula: &str) -> Option<String> {
        let name = formula.trim();
        if let Some(href) = self.step_href(item, name) {
            return Some(href);
        }
        self.rb
            .inputs
            .iter()
            .any(|i| *i.name == *name)
            .then(|| format!("input-{}", safe(name)))
    }
}
