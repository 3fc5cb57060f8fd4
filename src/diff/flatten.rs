//! A rulebook's TOML mirror flattened to named facts, so that two versions
//! compare by meaning: each thing of the rulebook (a clause, an input, a
//! parameter, a table row, a step…) is an entity with a stable name, and each
//! of its options a (attribute, value) pair in a canonical text.
//!
//! What is lost on purpose is what has no meaning: the order of keys, the
//! layout of expressions (each is printed in canonical form), comments, and
//! options left at their default. Table rows are named by their key columns
//! (keyed tables), their first period (`from`) or their bracket number
//! (scales and ranges), so a row moved in the file is its table's order
//! changed, not a row removed and another added.

use indexmap::IndexMap;
use std::collections::BTreeMap;
use toml::Spanned;

use super::changes::Section;
use crate::expr::{parse_expr, print::print};
use crate::rulebook::raw::*;

/// One option of one entity, with where it is written.
#[derive(Clone, Debug)]
pub(super) struct Fact {
    /// Option within the entity: `expr`, `columns.rate.min`, `periods[from=2026-01].value`.
    pub attr: String,
    /// Canonical text of its value.
    pub value: String,
    /// Byte offset in the file.
    pub offset: usize,
    /// A number as the evaluator reads it (a money, decimal or integer
    /// value): `7.0` and `7.00` are then the same value.
    pub numeric: bool,
}

/// Input types whose values are numbers.
fn numeric_type(ty: &str) -> bool {
    matches!(ty, "money" | "decimal" | "integer")
}

/// A thing of the rulebook and its options.
#[derive(Clone, Debug)]
pub(super) struct Entity {
    /// Which part of the rulebook it belongs to.
    pub section: Section,
    /// The entity this one is part of (a table for its rows), if any: a
    /// removed table is reported once, not once per row.
    pub parent: Option<String>,
    /// Byte offset of the entity in the file.
    pub offset: usize,
    /// Its options, in file order.
    pub facts: Vec<Fact>,
}

/// Every entity of a rulebook by its name (`steps.rgdu`, `tables.schedule[code=x]`).
pub(super) type Entities = IndexMap<String, Entity>;

/// The flattened rulebook, and the orders that have a meaning of their
/// own: the checks' (the first that holds decides), the inputs' (their
/// validation order: which fault a case is refused for), a table's rows'
/// (`rows(t)` and a group over them go in row order) and an answer's
/// fields' (the order it is written in).
pub(super) struct Flat {
    pub entities: Entities,
    pub orders: Vec<Order>,
}

/// The order of the members of one thing: `checks`, `inputs`, a table's
/// rows, a decision's answer fields, each by its entity name.
pub(super) struct Order {
    pub section: Section,
    pub entity: String,
    pub names: Vec<String>,
}

/// An expression's canonical form; text that does not parse (the checker
/// would have refused it) is compared with its whitespace collapsed.
pub(super) fn canonical(text: &str) -> String {
    match parse_expr(text) {
        Ok(mut expr) => {
            default_modes(&mut expr);
            print(&expr)
        }
        Err(_) => text.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// `round(x, p, half_up)` as `round(x, p)`: `half_up` is the default
/// mode, so the two are one rule, and no change between them.
fn default_modes(expr: &mut crate::expr::Expr) {
    use crate::expr::ast::ExprKind;
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        if let ExprKind::Call(f, args) = &mut e.kind {
            let default = |m: &crate::expr::Expr| matches!(&m.kind, ExprKind::Name(n) if &*n.name == "half_up");
            if &*f.name == "round" && args.len() == 3 && args.last().is_some_and(default) {
                args.pop();
            }
        }
        stack.extend(e.children_mut());
    }
}

/// A TOML value as text, tables with their keys sorted.
pub(super) fn toml_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(toml_text).collect();
            format!("[{}]", parts.join(", "))
        }
        // A date is its text, as the same date written as a string (a bare
        // `Value`'s own display writes serde's private wrapper of it).
        toml::Value::Datetime(d) => d.to_string(),
        toml::Value::Table(t) => {
            let sorted: BTreeMap<&String, String> =
                t.iter().map(|(k, v)| (k, toml_text(v))).collect();
            let parts: Vec<String> = sorted.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => other.to_string(),
    }
}

fn start<T>(s: &Spanned<T>) -> usize {
    s.span().start
}

fn names(list: &[Spanned<String>]) -> String {
    list.iter()
        .map(|s| s.get_ref().as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Collects the facts of one entity.
struct Facts {
    at: usize,
    facts: Vec<Fact>,
    /// The orders of its nested fields (a record input's, a list answer's
    /// line's), by where they are within it (`fields`, `items.fields`):
    /// a record's fields are validated in theirs, an answer's written in
    /// theirs.
    orders: Vec<(String, Vec<String>)>,
}

impl Facts {
    fn new(at: usize) -> Self {
        Facts {
            at,
            facts: Vec::new(),
            orders: Vec::new(),
        }
    }

    /// The order of the fields at `path` within the entity.
    fn order<'k>(&mut self, path: String, names: impl Iterator<Item = &'k String>) {
        let names: Vec<String> = names.cloned().collect();
        if names.len() > 1 {
            self.orders.push((path, names));
        }
    }

    fn put(&mut self, attr: impl Into<String>, value: impl Into<String>, offset: Option<usize>) {
        self.facts.push(Fact {
            attr: attr.into(),
            value: value.into(),
            offset: offset.unwrap_or(self.at),
            numeric: false,
        });
    }

    /// Marks the fact just put as a number.
    fn numeric(&mut self) {
        if let Some(f) = self.facts.last_mut() {
            f.numeric = true;
        }
    }

    fn text(&mut self, attr: &str, value: &Option<String>) {
        if let Some(v) = value {
            self.put(attr, v.clone(), None);
        }
    }

    fn spanned(&mut self, attr: &str, value: &Option<Spanned<String>>) {
        if let Some(v) = value {
            self.put(attr, v.get_ref().clone(), Some(start(v)));
        }
    }

    /// `extra_keys`: its word, or the keys it names.
    fn extra_keys(&mut self, attr: &str, value: &Option<Spanned<RawExtraKeys>>) {
        if let Some(v) = value {
            let said = match v.get_ref() {
                RawExtraKeys::Word(word) => word.clone(),
                RawExtraKeys::Keys(keys) => names(keys),
            };
            self.put(attr, said, Some(start(v)));
        }
    }

    fn expr(&mut self, attr: &str, value: &Option<Spanned<String>>) {
        if let Some(v) = value {
            self.put(attr, canonical(v.get_ref()), Some(start(v)));
        }
    }

    fn flag(&mut self, attr: &str, on: bool) {
        if on {
            self.put(attr, "true", None);
        }
    }

    fn number<T: ToString>(&mut self, attr: &str, value: &Option<T>) {
        if let Some(v) = value {
            self.put(attr, v.to_string(), None);
        }
    }

    fn list(&mut self, attr: &str, value: &[Spanned<String>]) {
        if let Some(first) = value.first() {
            self.put(attr, names(value), Some(start(first)));
        }
    }

    fn check(&mut self, prefix: &str, c: &RawCheck) {
        self.text(&format!("{prefix}label"), &c.label);
        self.expr(&format!("{prefix}when"), &c.when);
        self.spanned(&format!("{prefix}decision"), &c.decision);
        self.text(&format!("{prefix}reason"), &c.reason);
        self.list(&format!("{prefix}clauses"), &c.clauses);
        self.spanned(&format!("{prefix}reject"), &c.reject);
        self.spanned(&format!("{prefix}message"), &c.message);
    }

    /// Every option of an input (or column, or field), nested ones under `prefix`.
    fn input(&mut self, prefix: &str, i: &RawInput) {
        let p = |a: &str| format!("{prefix}{a}");
        self.put(p("type"), i.ty.get_ref().clone(), Some(start(&i.ty)));
        self.text(&p("label"), &i.label);
        self.spanned(&p("clause"), &i.clause);
        self.flag(&p("required"), i.required);
        self.expr(&p("when"), &i.when);
        self.expr(&p("required_when"), &i.required_when);
        for (n, c) in i.after.iter().enumerate() {
            self.check(&p(&format!("after[{}].", n + 1)), c);
        }
        self.flag(&p("nullable"), i.nullable);
        let number = numeric_type(i.ty.get_ref());
        if let Some(d) = &i.default {
            self.put(p("default"), toml_text(d.get_ref()), Some(start(d)));
            if number {
                self.numeric();
            }
        }
        self.number(&p("places"), &i.places);
        for (attr, bound) in [("min", &i.min), ("max", &i.max)] {
            self.spanned(&p(attr), bound);
            if number && bound.is_some() {
                self.numeric();
            }
        }
        self.spanned(&p("numbers"), &i.numbers);
        if let Some(values) = &i.values {
            self.put(p("values"), values.join(", "), None);
        }
        if let Some(fields) = &i.fields {
            self.order(p("fields"), fields.keys());
            for (name, f) in fields {
                self.input(&p(&format!("fields.{name}.")), f);
            }
        }
        if let Some(items) = &i.items {
            self.input(&p("items."), items);
        }
        self.number(&p("max_items"), &i.max_items);
        self.number(&p("max_length"), &i.max_length);
        self.number(&p("min_items"), &i.min_items);
        if let Some(keys) = &i.keys {
            self.put(p("keys"), keys.join(", "), None);
        }
        self.spanned(&p("ref"), &i.refers);
        self.flag(&p("unique"), i.unique);
        self.spanned(&p("key_ref"), &i.key_ref);
        for (n, r) in i.reject.iter().enumerate() {
            let at = format!("reject[{}].", n + 1);
            self.put(
                p(&format!("{at}when")),
                canonical(r.when.get_ref()),
                Some(start(&r.when)),
            );
            self.put(
                p(&format!("{at}message")),
                r.message.get_ref().clone(),
                Some(start(&r.message)),
            );
        }
        self.spanned(&p("table"), &i.table);
        self.spanned(&p("invalid"), &i.invalid);
        self.extra_keys(&p("extra_keys"), &i.extra_keys);
    }

    fn step(&mut self, s: &RawStep) {
        self.text("label", &s.label);
        self.put("expr", canonical(s.expr.get_ref()), Some(start(&s.expr)));
        self.expr("when", &s.when);
        self.expr("otherwise", &s.otherwise);
        if let Some(r) = &s.round {
            self.put(
                "round",
                format!("{} places, {}", r.places, r.mode.get_ref()),
                Some(start(&r.mode)),
            );
        }
        self.list("clauses", &s.clauses);
        self.cites(&s.cite);
    }

    /// `cite[1].when`, `cite[1].clauses`, …: a decision's or a step's
    /// conditional citations, by position.
    fn cites(&mut self, cites: &[RawCite]) {
        for (n, c) in cites.iter().enumerate() {
            let key = format!("cite[{}]", n + 1);
            self.put(
                format!("{key}.when"),
                canonical(c.when.get_ref()),
                Some(start(&c.when)),
            );
            self.list(&format!("{key}.clauses"), &c.clauses);
        }
    }

    fn output(&mut self, prefix: &str, o: &RawOutput) {
        self.expr(&format!("{prefix}expr"), &o.expr);
        self.spanned(&format!("{prefix}format"), &o.format);
        self.expr(&format!("{prefix}each"), &o.each);
        self.expr(&format!("{prefix}key"), &o.key);
        if let Some(fields) = &o.fields {
            self.order(format!("{prefix}fields"), fields.keys());
        }
        for (name, f) in o.fields.iter().flatten() {
            self.output(&format!("{prefix}fields.{name}."), f);
        }
    }
}

struct Builder {
    entities: Entities,
    /// The orders of nested fields, each named under its entity.
    orders: Vec<Order>,
}

impl Builder {
    fn add(&mut self, section: Section, name: String, parent: Option<&str>, facts: Facts) {
        for (path, names) in facts.orders {
            let entity = format!("{name}.{path}");
            self.orders.push(Order {
                section,
                names: names.iter().map(|n| format!("{entity}.{n}")).collect(),
                entity,
            });
        }
        self.entities.insert(
            name,
            Entity {
                section,
                parent: parent.map(str::to_string),
                offset: facts.at,
                facts: facts.facts,
            },
        );
    }
}

/// Where clause `key` is written: the line that starts with it after the
/// `[clauses]` header (clause texts carry no span in the mirror).
fn clause_offset(text: &str, key: &str) -> usize {
    let Some(header) = text.find("\n[clauses]") else {
        return 0;
    };
    let mut offset = header + 1;
    for line in text[header + 1..].split_inclusive('\n') {
        let t = line.trim_start();
        let bare = t.strip_prefix(key);
        let quoted = t.strip_prefix(&format!("\"{key}\"")[..]);
        if bare
            .or(quoted)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return offset;
        }
        offset += line.len();
    }
    header + 1
}

/// Flattens a rulebook's mirror; `text` is the file it was read from.
pub(super) fn flatten(raw: &RawRulebook, text: &str) -> Flat {
    flatten_over(raw, text, &[])
}

/// [`flatten`] of one file of an `extends` chain, over the files it
/// extends (`bases`, nearest first): a table it writes without its `kind`,
/// `keys` or `columns` changes the extended one's rows, so they are named
/// and typed as that table's are (`tables.ky[size=3]`, not `[#1]`), and a
/// change is found in the file that writes it. Only the naming is taken:
/// the options stay this file's own.
pub(super) fn flatten_over(raw: &RawRulebook, text: &str, bases: &[&RawRulebook]) -> Flat {
    let mut b = Builder {
        orders: Vec::new(),
        entities: IndexMap::new(),
    };
    let id = &raw.rulebook;
    let mut f = Facts::new(start(&id.id));
    f.put("id", id.id.get_ref().clone(), Some(start(&id.id)));
    f.put(
        "version",
        id.version.get_ref().to_string(),
        Some(start(&id.version)),
    );
    f.put(
        "schema",
        id.schema.get_ref().to_string(),
        Some(start(&id.schema)),
    );
    f.spanned("title", &id.title);
    f.spanned("description", &id.description);
    b.add(Section::Identity, "rulebook".into(), None, f);

    for (name, clause) in &raw.clauses {
        let mut f = Facts::new(clause_offset(text, name));
        f.put("text", clause.clone(), None);
        b.add(Section::Clauses, format!("clauses.{name}"), None, f);
    }
    if let Some(extra) = &raw.case.extra_keys {
        let mut f = Facts::new(start(extra));
        f.extra_keys("extra_keys", &raw.case.extra_keys);
        b.add(Section::Inputs, "case".into(), None, f);
    }
    for (name, input) in &raw.inputs {
        let mut f = Facts::new(start(&input.ty));
        f.input("", input);
        b.add(Section::Inputs, format!("inputs.{name}"), None, f);
    }
    for (name, p) in &raw.parameters {
        parameter(&mut b, name, p);
    }
    for (name, t) in &raw.tables {
        let base = |has: fn(&RawTable) -> bool| {
            (bases.iter())
                .filter_map(|r| r.tables.get(name))
                .find(|t| has(t))
        };
        let rows = RowNaming {
            kind: (t.kind.as_ref())
                .or_else(|| base(|t| t.kind.is_some()).and_then(|b| b.kind.as_ref()))
                .map_or("", |k| k.get_ref().as_str()),
            keys: match t.keys.is_empty() {
                true => base(|t| !t.keys.is_empty()).map_or(&t.keys, |b| &b.keys),
                false => &t.keys,
            },
            columns: match t.columns.is_empty() {
                true => base(|t| !t.columns.is_empty()).map_or(&t.columns, |b| &b.columns),
                false => &t.columns,
            },
        };
        table(&mut b, name, t, &rows);
    }
    for (name, s) in &raw.steps {
        let mut f = Facts::new(start(&s.expr));
        f.step(s);
        b.add(Section::Steps, format!("steps.{name}"), None, f);
    }
    for (group, g) in &raw.per_item {
        let entity = format!("per_item.{group}");
        // An effective rulebook's groups have both (a base's are merged in).
        let at = g.over.as_ref().map_or(0, start);
        let mut f = Facts::new(at);
        f.text("label", &g.label);
        if let Some(over) = &g.over {
            f.put("over", canonical(over.get_ref()), Some(start(over)));
        }
        if let Some(item) = &g.item {
            f.put("item", item.get_ref().clone(), Some(start(item)));
        }
        b.add(Section::Steps, entity.clone(), None, f);
        for (name, s) in &g.steps {
            let mut f = Facts::new(start(&s.expr));
            f.step(s);
            b.add(Section::Steps, format!("{entity}.{name}"), Some(&entity), f);
        }
    }
    let mut check_names = Vec::new();
    for (n, c) in raw.checks.iter().enumerate() {
        let check = c.get_ref();
        let mut name = match &check.label {
            Some(label) => format!("checks[{label}]"),
            None => format!("checks[#{}]", n + 1),
        };
        if b.entities.contains_key(&name) {
            // Two checks with one label: the second is told apart by its position.
            name = format!(
                "checks[{} #{}]",
                check.label.as_deref().unwrap_or(""),
                n + 1
            );
        }
        let mut f = Facts::new(start(c));
        f.check("", check);
        check_names.push(name.clone());
        b.add(Section::Checks, name, None, f);
    }
    for (name, d) in &raw.decisions {
        decision(&mut b, name, d);
    }
    for (name, a) in &raw.ablations {
        let mut f = Facts::new(a.steps.values().next().map_or(0, start));
        f.text("label", &a.label);
        f.text("description", &a.description);
        for (step, e) in &a.steps {
            f.put(
                format!("steps.{step}"),
                canonical(e.get_ref()),
                Some(start(e)),
            );
        }
        b.add(Section::Ablations, format!("ablations.{name}"), None, f);
    }
    for (name, r) in &raw.reports {
        let mut f = Facts::new(start(&r.each));
        f.text("title", &r.title);
        f.put("each", r.each.get_ref().clone(), Some(start(&r.each)));
        f.expr("when", &r.when);
        // A report's columns and totals are shown in their order (the
        // trace's header, rows and totals, the payslip's table).
        f.order("columns".into(), r.columns.keys());
        for (col, o) in &r.columns {
            f.output(&format!("columns.{col}."), o);
        }
        f.order("totals".into(), r.totals.keys());
        for (label, o) in &r.totals {
            f.output(&format!("totals.{label}."), o);
        }
        b.add(Section::Reports, format!("reports.{name}"), None, f);
    }
    let l = &raw.limits;
    let mut f = Facts::new(0);
    if let Some(v) = &l.max_case_bytes {
        f.put("max_case_bytes", v.get_ref().to_string(), Some(start(v)));
    }
    if let Some(v) = &l.max_list_items {
        f.put("max_list_items", v.get_ref().to_string(), Some(start(v)));
    }
    if let Some(v) = &l.max_eval_steps {
        f.put("max_eval_steps", v.get_ref().to_string(), Some(start(v)));
    }
    if let Some(first) = f.facts.first() {
        f.at = first.offset;
    }
    b.add(Section::Limits, "limits".into(), None, f);
    let mut orders = vec![
        Order {
            section: Section::Checks,
            entity: "checks".into(),
            names: check_names,
        },
        Order {
            section: Section::Inputs,
            entity: "inputs".into(),
            names: raw.inputs.keys().map(|n| format!("inputs.{n}")).collect(),
        },
    ];
    // Each entity's members, in one pass: asking every entity of every
    // table and decision was quadratic in a rulebook's size.
    let mut members: std::collections::HashMap<&str, Vec<String>> = Default::default();
    for (n, e) in &b.entities {
        if let Some(parent) = e.parent.as_deref() {
            members.entry(parent).or_default().push(n.clone());
        }
    }
    let mut members = |parent: &str| members.remove(parent).unwrap_or_default();
    for name in raw.tables.keys() {
        let entity = format!("tables.{name}");
        let names = members(&entity);
        orders.push(Order {
            section: Section::Tables,
            entity,
            names,
        });
    }
    for name in raw.decisions.keys() {
        let entity = format!("decisions.{name}");
        let names = members(&entity);
        orders.push(Order {
            section: Section::Answers,
            entity: format!("{entity}.answer"),
            names,
        });
    }
    orders.append(&mut b.orders);
    Flat {
        entities: b.entities,
        orders,
    }
}

fn parameter(b: &mut Builder, name: &str, p: &RawParameter) {
    let at = p
        .value
        .as_ref()
        .map(start)
        .or(p.at.as_ref().map(start))
        .or(p.periods.as_ref().and_then(|v| v.first()).map(start))
        .unwrap_or(0);
    let mut f = Facts::new(at);
    f.text("label", &p.label);
    f.spanned("clause", &p.clause);
    f.spanned("value", &p.value);
    if p.value.is_some() {
        f.numeric();
    }
    f.expr("at", &p.at);
    for period in p.periods.iter().flatten() {
        let v = period.get_ref();
        let key = format!("periods[from={}]", v.from);
        f.put(format!("{key}.value"), v.value.clone(), Some(start(period)));
        f.numeric();
        if let Some(to) = &v.to {
            f.put(format!("{key}.to"), to.clone(), Some(start(period)));
        }
    }
    b.add(Section::Parameters, format!("parameters.{name}"), None, f);
}

/// How a table's rows are named and typed: its own kind, keys and columns,
/// or, where a file of an `extends` chain leaves them out, the extended
/// table's ([`flatten_over`]).
struct RowNaming<'r> {
    kind: &'r str,
    keys: &'r [String],
    columns: &'r IndexMap<String, RawInput>,
}

fn table(b: &mut Builder, name: &str, t: &RawTable, rows: &RowNaming<'_>) {
    let entity = format!("tables.{name}");
    let own_kind = t.kind.as_ref().map_or("", |k| k.get_ref().as_str());
    let mut f = Facts::new(t.anchor().start as usize);
    f.put("kind", own_kind.to_string(), t.kind.as_ref().map(start));
    f.text("label", &t.label);
    f.spanned("clause", &t.clause);
    if !t.keys.is_empty() {
        f.put("keys", t.keys.join(", "), None);
    }
    for (col, c) in &t.columns {
        f.input(&format!("columns.{col}."), c);
    }
    b.add(Section::Tables, entity.clone(), None, f);
    for (n, row) in t.rows.iter().enumerate() {
        let cells = row.get_ref();
        let cell = |k: &str| cells.get(k).map(toml_text);
        let id = match rows.kind {
            "keyed" if !rows.keys.is_empty() => {
                let parts: Option<Vec<String>> = rows
                    .keys
                    .iter()
                    .map(|k| cell(k).map(|v| format!("{k}={v}")))
                    .collect();
                parts.map(|p| p.join(", "))
            }
            "periods" => cell("from").map(|v| format!("from={v}")),
            _ => None,
        };
        let id = id.unwrap_or_else(|| format!("#{}", n + 1));
        let mut name = format!("{entity}[{id}]");
        if b.entities.contains_key(&name) {
            name = format!("{entity}[{id} #{}]", n + 1);
        }
        let mut f = Facts::new(start(row));
        for (k, v) in cells {
            f.put(k.clone(), toml_text(v), None);
            // Scales and ranges have no typed columns: their cells are bounds and rates.
            let number = match rows.columns.get(k) {
                Some(c) => numeric_type(c.ty.get_ref()),
                None => rows.columns.is_empty(),
            };
            if number {
                f.numeric();
            }
        }
        b.add(Section::Tables, name, Some(&entity), f);
    }
}

fn decision(b: &mut Builder, name: &str, d: &RawDecision) {
    let entity = format!("decisions.{name}");
    let at = d
        .answer
        .values()
        .next()
        .map_or(0, |o| o.anchor().start as usize);
    let mut f = Facts::new(at);
    f.text("label", &d.label);
    f.list("clauses", &d.clauses);
    f.cites(&d.cite);
    b.add(Section::Decisions, entity.clone(), None, f);
    for (field, o) in &d.answer {
        let mut f = Facts::new(o.anchor().start as usize);
        f.output("", o);
        b.add(
            Section::Answers,
            format!("{entity}.answer.{field}"),
            Some(&entity),
            f,
        );
    }
}
