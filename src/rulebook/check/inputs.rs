//! Inputs: the case schema, declared in validation order.
//!
//! Each input gets its kind (type, places, bounds, items, fields), its
//! options and its default, checked with the same code that validates a case;
//! a `ref` or `key_ref` resolves to a map or list declared before it, or to a
//! keyed table. Table columns are declared here too ([`Checker::input`] at
//! depth 1). What an input reads of other names (`when`, field rules, checks
//! after it) waits until every name has a type: see `input_rules`.
//!
//! Invariant: an input refers only to inputs before it, so a case is
//! validated in one pass, in declaration order.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::collections::HashMap;
use std::sync::Arc;
use toml::Spanned;

use super::{parse_plain_decimal, sp, Checker, Condition, InputCx};
use crate::case::{toml::json_from_toml as toml_to_json, validate_value};
use crate::diag::Problem;
use crate::model::*;
use crate::num::MAX_PLACES;
use crate::rulebook::raw::*;
use crate::span::Span;
use crate::value::{parse_date, Month, Value};

impl Checker<'_> {
    /// Declares the inputs in validation order: each one's type, bounds and
    /// options, and its `ref` to a map or list declared before it. `when` and
    /// `required_when` are parsed now and resolved once every name has a type.
    pub(super) fn inputs(
        &mut self,
        raw: &IndexMap<String, RawInput>,
        tables: &HashMap<&str, usize>,
        built_tables: &[Table],
        clause_ids: &[Arc<str>],
        limits: &Limits,
    ) -> (Vec<Input>, Vec<Condition>) {
        let mut built = Vec::new();
        let mut conditions = Vec::new();
        let mut maps: HashMap<String, usize> = HashMap::new();
        let mut lists: HashMap<String, (usize, Vec<Arc<str>>)> = HashMap::new();
        for (i, (name, raw)) in raw.iter().enumerate() {
            let cx = InputCx {
                clause_ids,
                tables,
                built_tables,
                limits,
                maps: &maps,
                lists: &lists,
            };
            let input = self.input(name, raw, &cx, 0);
            match &input.kind {
                InputKind::Map { .. } => {
                    maps.insert(name.clone(), i);
                }
                InputKind::List { item, .. } => {
                    if let InputKind::Record { fields, .. } = &item.kind {
                        let text_fields = fields
                            .iter()
                            .filter(|f| f.kind.value_type() == Type::Text)
                            .map(|f| f.name.clone())
                            .collect();
                        lists.insert(name.clone(), (i, text_fields));
                    }
                }
                _ => {}
            }
            if let Some(w) = &raw.when {
                let expr = self.parse(w);
                self.unrecorded_rounding(&expr, "an input's `when`");
                conditions.push(Condition {
                    input: i,
                    expr,
                    required: false,
                });
            }
            if let Some(w) = &raw.required_when {
                let expr = self.parse(w);
                self.unrecorded_rounding(&expr, "an input's `required_when`");
                conditions.push(Condition {
                    input: i,
                    expr,
                    required: true,
                });
            }
            built.push(input);
        }
        (built, conditions)
    }

    /// Declares one input, record field, list item or table column (`depth`
    /// counts the records, lists and maps around it).
    pub(super) fn input(
        &mut self,
        name: &str,
        raw: &RawInput,
        cx: &InputCx<'_>,
        depth: usize,
    ) -> Input {
        let span = sp(raw);
        let clause = raw
            .clause
            .as_ref()
            .map(|c| self.clause_ref(c, cx.clause_ids));
        let ty = raw.ty.get_ref().as_str();
        let (kind, allowed) = self.input_kind(name, raw, cx, depth);
        self.keys_apply(raw, ty, &allowed);
        let mut input = Input {
            label: raw.label.clone(),
            clause,
            required: raw.required,
            nullable: raw.nullable,
            unique: raw.unique,
            ..Input::new(name, kind)
        };
        self.input_refs(&mut input, raw, cx);
        self.input_options(raw, depth, span);
        if let Some(d) = &raw.default {
            input.default = self.default_value(&input, d, name);
        }
        // After the default, which must be valid whatever `invalid` says.
        input.invalid_absent = self.invalid_option(raw);
        input.extra_keys = self.extra_keys_option(raw, &input.kind, cx.built_tables);
        input
    }

    /// `extra_keys = "refuse" | "allow" | ["key", …]`: what an object may
    /// hold besides `declared`, its keys (`[case]` for the case itself). A
    /// key named is ignored, so it must not be one the rulebook declares
    /// (whose value would then be read and ignored at once), nor named twice.
    pub(super) fn extra_keys(
        &mut self,
        raw: &Option<Spanned<RawExtraKeys>>,
        declared: &[&str],
        what: &str,
    ) -> ExtraKeys {
        let Some(option) = raw else {
            return ExtraKeys::Refuse;
        };
        match option.get_ref() {
            RawExtraKeys::Word(word) => match word.as_str() {
                "refuse" => ExtraKeys::Refuse,
                "allow" => ExtraKeys::Allow,
                other => {
                    self.problem(
                        "check::bad_input",
                        sp(option),
                        format!(
                            "`extra_keys` is `refuse`, `allow` or the keys ignored (`[\"id\"]`), not `{other}`"
                        ),
                        "here",
                    );
                    ExtraKeys::Refuse
                }
            },
            RawExtraKeys::Keys(keys) => {
                let mut named: Vec<Arc<str>> = Vec::with_capacity(keys.len());
                for key in keys {
                    let k = key.get_ref().as_str();
                    if declared.contains(&k) {
                        self.problem(
                            "check::bad_input",
                            sp(key),
                            format!(
                                "`{k}` is a declared {what}: `extra_keys` names the keys ignored, which the rulebook does not declare"
                            ),
                            "declared",
                        );
                    } else if named.iter().any(|n| **n == *k) {
                        self.problem(
                            "check::bad_input",
                            sp(key),
                            format!("`{k}` is named twice in `extra_keys`"),
                            "again",
                        );
                    } else {
                        named.push(Arc::from(k));
                    }
                }
                if named.is_empty() {
                    ExtraKeys::Refuse
                } else {
                    ExtraKeys::Ignore(named.into())
                }
            }
        }
    }

    /// `extra_keys` on an input: only where the input holds an object whose
    /// keys the rulebook declares (a record written as an object, a `table`
    /// input), so that the option says what it does where it stands.
    fn extra_keys_option(
        &mut self,
        raw: &RawInput,
        kind: &InputKind,
        tables: &[Table],
    ) -> ExtraKeys {
        let Some(option) = &raw.extra_keys else {
            return ExtraKeys::Refuse;
        };
        let misplaced = match kind {
            InputKind::Record {
                pattern: Some(_), ..
            } => Some("a text read through a `pattern` has no keys"),
            InputKind::Record { fields, .. } => {
                let declared: Vec<&str> = fields.iter().map(|f| &*f.name).collect();
                return self.extra_keys(&raw.extra_keys, &declared, "field");
            }
            InputKind::Table { table } => {
                // The option covers the rows (by name) and each row's columns.
                let declared: Vec<&str> = tables
                    .get(table.index())
                    .map(|t| {
                        let rows = t.rows.iter().filter_map(|r| r.name.as_deref());
                        t.columns.iter().map(|c| &*c.name).chain(rows).collect()
                    })
                    .unwrap_or_default();
                return self.extra_keys(&raw.extra_keys, &declared, "column or row");
            }
            InputKind::List { .. } | InputKind::Map { .. } => Some(
                "write it on the items (`items.extra_keys`), the records whose keys it is about",
            ),
            _ => Some("it applies to a record or a `table` input"),
        };
        if let Some(why) = misplaced {
            // The option's own value is judged too, so a wrong word is
            // reported whatever the type.
            self.extra_keys(&raw.extra_keys, &[], "field");
            self.problem(
                "check::bad_input",
                sp(option),
                format!(
                    "`extra_keys` does not apply to type `{}`: {why}",
                    raw.ty.get_ref()
                ),
                "here",
            );
        }
        ExtraKeys::Refuse
    }

    /// `invalid = "reject" | "absent"`: whether a value that does not
    /// validate reads as absent. Not with `required` or `required_when`,
    /// which such a value would then pass or fail unseen, nor on a table.
    fn invalid_option(&mut self, raw: &RawInput) -> bool {
        let Some(invalid) = &raw.invalid else {
            return false;
        };
        let absent = match invalid.get_ref().as_str() {
            "reject" => return false,
            "absent" => true,
            other => {
                self.problem(
                    "check::bad_input",
                    sp(invalid),
                    format!("`invalid` is `reject` or `absent`, not `{other}`"),
                    "here",
                );
                return false;
            }
        };
        let clash = if raw.required {
            Some("`required`")
        } else if raw.required_when.is_some() {
            Some("`required_when`")
        } else if raw.ty.get_ref() == "table" {
            Some("type `table`")
        } else {
            None
        };
        if let Some(clash) = clash {
            self.problem(
                "check::bad_input",
                sp(invalid),
                format!("`invalid = \"absent\"` cannot go with {clash}: a value that is not valid would be read as absent"),
                "here",
            );
        }
        absent
    }

    /// An input's kind from its `type`, with the keys that type takes.
    fn input_kind(
        &mut self,
        name: &str,
        raw: &RawInput,
        cx: &InputCx<'_>,
        depth: usize,
    ) -> (InputKind, Vec<&'static str>) {
        let span = sp(raw);
        let ty = raw.ty.get_ref().as_str();
        let mut allowed: Vec<&'static str> = vec![];
        let kind = match ty {
            "money" | "decimal" => {
                allowed.extend(["places", "min", "max", "numbers"]);
                self.number_kind(raw, ty == "money")
            }
            "fraction" => {
                allowed.extend(["min", "max"]);
                InputKind::Fraction {
                    min: self.decimal_bound(&raw.min),
                    max: self.decimal_bound(&raw.max),
                }
            }
            "integer" => {
                allowed.extend(["min", "max"]);
                InputKind::Integer {
                    min: self.decimal_bound(&raw.min),
                    max: self.decimal_bound(&raw.max),
                }
            }
            "bool" => InputKind::Bool,
            "text" if raw.pattern.is_some() && depth < 8 => {
                allowed.extend(["pattern", "fields"]);
                self.pattern_kind(name, raw, cx, depth)
            }
            "text" => {
                allowed.push("max_length");
                InputKind::Text {
                    max_length: raw.max_length.unwrap_or(1000),
                }
            }
            "enum" => {
                allowed.push("values");
                let values: Vec<Arc<str>> = raw
                    .values
                    .iter()
                    .flatten()
                    .map(|v| Arc::from(v.as_str()))
                    .collect();
                if values.is_empty() {
                    self.problem("check::bad_input", span, "an enum needs `values`", "here");
                }
                InputKind::Enum { values }
            }
            "date" => {
                allowed.extend(["min", "max"]);
                let min = self.bound(&raw.min, parse_date, "a date YYYY-MM-DD");
                let max = self.bound(&raw.max, parse_date, "a date YYYY-MM-DD");
                InputKind::Date { min, max }
            }
            "month" => {
                allowed.extend(["min", "max"]);
                let min = self.bound(&raw.min, Month::parse, "a month YYYY-MM");
                let max = self.bound(&raw.max, Month::parse, "a month YYYY-MM");
                InputKind::Month { min, max }
            }
            "record" if depth < 8 => {
                allowed.push("fields");
                self.record_kind(name, raw, cx, depth)
            }
            "list" | "map" if depth < 8 => {
                allowed.extend(["items", "max_items", "min_items"]);
                if ty == "map" {
                    allowed.extend(["keys", "key_ref"]);
                }
                self.collection_kind(raw, cx, depth)
            }
            "table" if depth == 0 => {
                allowed.push("table");
                self.table_input_kind(raw, cx)
            }
            other => {
                let message = format!("unknown input type `{other}`");
                let help = "types are money, decimal, fraction, integer, bool, text, enum, date, month, record, list, map, table (top level only); records, lists and maps nest at most 8 deep";
                self.diags.push(
                    Problem::new("check::bad_input", message)
                        .at(sp(&raw.ty), "here")
                        .help(help),
                );
                InputKind::Bool
            }
        };
        if let Some(why) = crossed(&kind) {
            self.problem("check::bad_input", span, why, "here");
        }
        (kind, allowed)
    }

    /// `money` (two places unless told, never below zero unless told) or `decimal`.
    fn number_kind(&mut self, raw: &RawInput, money: bool) -> InputKind {
        let span = sp(raw);
        let numbers = match raw.numbers.as_ref().map(|n| n.get_ref().as_str()) {
            None | Some("reject") => JsonNumbers::Reject,
            Some("plain") => JsonNumbers::Plain,
            Some("integer") => JsonNumbers::Integer,
            Some(other) => {
                let span = raw.numbers.as_ref().map_or(span, sp);
                self.problem(
                    "check::bad_value",
                    span,
                    format!("unknown `numbers` policy `{other}`; use reject, plain or integer"),
                    "here",
                );
                JsonNumbers::Reject
            }
        };
        let places = raw.places.or(money.then_some(2));
        if places.is_some_and(|p| p > MAX_PLACES) {
            self.problem(
                "check::bad_value",
                span,
                format!("at most {MAX_PLACES} places"),
                "here",
            );
        }
        let spec = NumberSpec {
            places,
            rescale: if money { places } else { None },
            min: self
                .decimal_bound(&raw.min)
                .or(money.then_some(Decimal::ZERO)),
            max: self.decimal_bound(&raw.max),
            numbers,
        };
        if money {
            InputKind::Money(spec)
        } else {
            InputKind::Decimal(spec)
        }
    }

    /// A record: its fields, each declared as an input one level deeper.
    pub(super) fn record_kind(
        &mut self,
        name: &str,
        raw: &RawInput,
        cx: &InputCx<'_>,
        depth: usize,
    ) -> InputKind {
        let mut fields = Vec::new();
        for (fname, f) in raw.fields.iter().flatten() {
            self.check_ident(fname, sp(f));
            fields.push(self.input(fname, f, cx, depth + 1));
        }
        let shape_fields = fields
            .iter()
            .map(|f: &Input| (f.name.clone(), f.kind.value_type()))
            .collect();
        let shape = self.shape(name.to_string(), shape_fields);
        let names = fields.iter().map(|f| f.name.clone()).collect();
        InputKind::Record {
            shape,
            fields,
            names,
            pattern: None,
        }
    }

    /// A list or a map: its items, and how many a case may give.
    fn collection_kind(&mut self, raw: &RawInput, cx: &InputCx<'_>, depth: usize) -> InputKind {
        let span = sp(raw);
        let ty = raw.ty.get_ref().as_str();
        let item = match &raw.items {
            Some(item) => {
                if let Some(invalid) = &item.invalid {
                    self.problem(
                        "check::bad_input",
                        sp(invalid),
                        format!("`invalid` applies to inputs and record fields, not to the items of a {ty}"),
                        "here",
                    );
                }
                self.input("item", item, cx, depth + 1)
            }
            None => {
                self.problem(
                    "check::bad_input",
                    span,
                    format!("a {ty} needs `items`"),
                    "here",
                );
                Input::new("item", InputKind::Bool)
            }
        };
        let max_items = raw
            .max_items
            .unwrap_or(cx.limits.max_list_items)
            .min(cx.limits.max_list_items);
        let min_items = raw.min_items.unwrap_or(0);
        if ty != "map" {
            return InputKind::List {
                item: Box::new(item),
                min_items,
                max_items,
            };
        }
        if raw.keys.is_some() && (raw.min_items.is_some() || raw.max_items.is_some()) {
            self.problem("check::bad_input", span, "a map with `keys` has exactly those keys: `min_items` and `max_items` do not apply", "here");
        }
        let keys = raw
            .keys
            .as_ref()
            .map(|k| k.iter().map(|k| Arc::from(k.as_str())).collect());
        InputKind::Map {
            item: Box::new(item),
            keys,
            min_items,
            max_items,
        }
    }

    /// A `table` input: the rows of a table a case may replace.
    fn table_input_kind(&mut self, raw: &RawInput, cx: &InputCx<'_>) -> InputKind {
        let table = match &raw.table {
            Some(t) => match cx.tables.get(t.get_ref().as_str()) {
                Some(i) if replaceable(&cx.built_tables[*i].kind) => TableId::new(*i),
                Some(_) => {
                    self.problem(
                        "check::bad_input",
                        sp(t),
                        "a case can replace the rows of a period table or of a keyed table with one key",
                        "here",
                    );
                    TableId::new(0)
                }
                None => {
                    self.problem(
                        "check::unknown_table",
                        sp(t),
                        format!("unknown table `{}`", t.get_ref()),
                        "here",
                    );
                    TableId::new(0)
                }
            },
            None => {
                self.problem(
                    "check::bad_input",
                    sp(raw),
                    "a `table` input names the table it replaces: `table = \"...\"`",
                    "here",
                );
                TableId::new(0)
            }
        };
        InputKind::Table { table }
    }

    /// Each key given that the input's type does not take.
    fn keys_apply(&mut self, raw: &RawInput, ty: &str, allowed: &[&str]) {
        let given: [(&str, bool); 14] = [
            ("places", raw.places.is_some()),
            ("min", raw.min.is_some()),
            ("max", raw.max.is_some()),
            ("numbers", raw.numbers.is_some()),
            ("values", raw.values.is_some()),
            ("fields", raw.fields.is_some()),
            ("items", raw.items.is_some()),
            ("max_items", raw.max_items.is_some()),
            ("table", raw.table.is_some()),
            ("key_ref", raw.key_ref.is_some()),
            ("max_length", raw.max_length.is_some()),
            ("min_items", raw.min_items.is_some()),
            ("keys", raw.keys.is_some()),
            ("pattern", raw.pattern.is_some()),
        ];
        for (key, present) in given {
            if present && !allowed.contains(&key) {
                self.problem(
                    "check::bad_input",
                    sp(raw),
                    format!("`{key}` does not apply to type `{ty}`"),
                    "in this input",
                );
            }
        }
    }

    /// `ref` (on a text or enum) and `key_ref` (on a map).
    fn input_refs(&mut self, input: &mut Input, raw: &RawInput, cx: &InputCx<'_>) {
        if let Some(target) = &raw.refers {
            if matches!(input.kind, InputKind::Text { .. } | InputKind::Enum { .. }) {
                input.refers = self.ref_target(target, cx);
            } else {
                self.problem(
                    "check::bad_input",
                    target.anchor(),
                    "`ref` applies to text fields",
                    "here",
                );
            }
        }
        if let Some(target) = &raw.key_ref {
            if matches!(input.kind, InputKind::Map { .. }) {
                input.key_ref = self.ref_target(target, cx);
            } else {
                self.problem(
                    "check::bad_input",
                    target.anchor(),
                    "`key_ref` applies to maps",
                    "here",
                );
            }
        }
    }

    /// Options that exclude each other, or apply to top-level inputs only.
    fn input_options(&mut self, raw: &RawInput, depth: usize, span: Span) {
        if raw.required && raw.default.is_some() {
            self.problem(
                "check::bad_input",
                span,
                "a required input cannot have a default",
                "here",
            );
        }
        if depth > 0 && (raw.when.is_some() || raw.required_when.is_some() || !raw.after.is_empty())
        {
            self.problem(
                "check::bad_input",
                span,
                "`when` and `required_when` apply to top-level inputs only",
                "here",
            );
        }
        if raw.required && raw.required_when.is_some() {
            self.problem(
                "check::bad_input",
                span,
                "an input is `required` or `required_when`, not both",
                "here",
            );
        }
    }

    /// A default, validated as a case's value would be.
    fn default_value(
        &mut self,
        input: &Input,
        d: &Spanned<toml::Value>,
        name: &str,
    ) -> Option<Value> {
        let json = match toml_to_json(d.get_ref()) {
            Ok(j) => j,
            Err(message) => {
                self.problem(
                    "check::bad_value",
                    sp(d),
                    format!("bad default: {message}"),
                    "here",
                );
                return None;
            }
        };
        match validate_value(input, Some(&json), name, None) {
            Ok(v) => Some(v),
            Err(e) => {
                self.problem(
                    "check::bad_value",
                    sp(d),
                    format!("bad default: {}", e.message),
                    "here",
                );
                None
            }
        }
    }

    /// A `min` or `max` of a number, a plain decimal; a malformed one is reported.
    fn decimal_bound(&mut self, raw: &Option<Spanned<String>>) -> Option<Decimal> {
        let v = raw.as_ref()?;
        let parsed = parse_plain_decimal(v.get_ref());
        if parsed.is_none() {
            self.problem(
                "check::bad_value",
                sp(v),
                "expected a plain decimal like \"0.00\"",
                "here",
            );
        }
        parsed
    }

    /// A `min` or `max` of an input, parsed; a malformed one is reported.
    fn bound<T>(
        &mut self,
        raw: &Option<Spanned<String>>,
        parse: impl Fn(&str) -> Option<T>,
        what: &str,
    ) -> Option<T> {
        let v = raw.as_ref()?;
        let parsed = parse(v.get_ref());
        if parsed.is_none() {
            self.problem(
                "check::bad_value",
                sp(v),
                format!("expected {what}"),
                "here",
            );
        }
        parsed
    }

    /// Resolves `ref`: an earlier map input, or a keyed table with one text key.
    fn ref_target(&mut self, target: &Spanned<String>, cx: &InputCx<'_>) -> Option<RefTarget> {
        let name = target.get_ref().as_str();
        if let Some(i) = cx.maps.get(name) {
            return Some(RefTarget::Input(InputId::new(*i)));
        }
        if let Some((list, field)) = name.split_once('.') {
            if let Some((i, fields)) = cx.lists.get(list) {
                if let Some(f) = fields.iter().position(|n| &**n == field) {
                    return Some(RefTarget::ListField(InputId::new(*i), f));
                }
            }
        }
        if let Some(t) = cx.tables.get(name) {
            let table = &cx.built_tables[*t];
            if let TableKind::Keyed { keys } = &table.kind {
                let text_key = keys.len() == 1
                    && table
                        .columns
                        .get(keys[0])
                        .is_some_and(|c| c.kind.value_type() == Type::Text);
                if text_key {
                    return Some(RefTarget::Table(TableId::new(*t)));
                }
            }
        }
        let message = format!("`{name}` is none of: a map input declared before this one, `list.field` (a text field) of a list of records declared before, a keyed table with one text key");
        self.problem("check::unknown_ref", target.anchor(), message, "here");
        None
    }
}

/// Whether a case may supply a table's rows.
fn replaceable(kind: &TableKind) -> bool {
    match kind {
        TableKind::Periods => true,
        TableKind::Keyed { keys } => keys.len() == 1,
        TableKind::Scale | TableKind::Ranges => false,
    }
}

/// Why no value can meet a kind's bounds (`min` above `max`, more items
/// required than allowed), or `None`: such an input passed the check and
/// then rejected every case.
fn crossed(kind: &InputKind) -> Option<String> {
    fn pair<T: PartialOrd + std::fmt::Display>(min: Option<&T>, max: Option<&T>) -> Option<String> {
        match (min, max) {
            (Some(a), Some(b)) if a > b => {
                Some(format!("no value fits: `min` {a} is above `max` {b}"))
            }
            _ => None,
        }
    }
    match kind {
        InputKind::Money(s) | InputKind::Decimal(s) => pair(s.min.as_ref(), s.max.as_ref()),
        InputKind::Integer { min, max } | InputKind::Fraction { min, max } => {
            pair(min.as_ref(), max.as_ref())
        }
        InputKind::Date { min, max } => pair(min.as_ref(), max.as_ref()),
        InputKind::Month { min, max } => pair(min.as_ref(), max.as_ref()),
        InputKind::List {
            min_items,
            max_items,
            ..
        } if min_items > max_items => Some(format!(
            "no list fits: `min_items` {min_items} is above the most items allowed, {max_items}"
        )),
        InputKind::Map {
            min_items,
            max_items,
            ..
        } if min_items > max_items => Some(format!(
            "no map fits: `min_items` {min_items} is above the most entries allowed, {max_items}"
        )),
        _ => None,
    }
}
