//! Input rules: what an input checks against other names.
//!
//! These wait until every name has a type, so they may read steps' types
//! and parameters as well as inputs: a `ref` to a table a case may replace
//! must come after the input that replaces it; `unique` stands only on a field
//! of the records of a list; checks after an input and field rules (`reject`)
//! resolve their conditions and messages; `when` and `required_when` read
//! only the inputs before theirs.
//!
//! Invariant: a rule reads only inputs validated before it (or its own value
//! and record), so a case is validated in one pass, in declaration order.

use indexmap::IndexMap;
use std::sync::Arc;

use super::{Checker, Condition, Declared};
use crate::model::*;
use crate::rulebook::raw::*;
use crate::rulebook::resolve::Scope;
use crate::span::Span;

impl Checker<'_> {
    /// What inputs check against other names, once every name has a type:
    /// the order of `ref`s to replaceable tables, where `unique` may stand,
    /// the checks after an input, field rules, and the inputs' conditions.
    pub(super) fn input_rules(
        &mut self,
        built: &mut [Input],
        raw: &IndexMap<String, RawInput>,
        conditions: Vec<Condition>,
        declared: &Declared<'_>,
    ) {
        self.ref_order(built, raw);
        for (input, raw) in built.iter().zip(raw.values()) {
            self.unique_positions(input, raw, false);
        }
        self.after_checks(built, raw, declared);

        // Field rules read their own value, their record, and earlier inputs.
        for (i, (_, raw)) in raw.iter().enumerate() {
            let scope = declared.scope(false, Some(i));
            self.field_rules(&mut built[i], raw, None, &scope);
        }

        // Conditional inputs read only earlier inputs.
        for Condition {
            input,
            expr,
            required,
        } in conditions
        {
            if let Some((f, ty)) = self.resolve(&expr, &declared.scope(false, Some(input))) {
                self.expect_type(&expr, &ty, &Type::Bool, "an input's condition");
                if required {
                    built[input].required_when = Some(f);
                } else {
                    built[input].when = Some(f);
                }
            }
        }
    }

    /// Checks after an input read it and the inputs before it; they only reject.
    fn after_checks(
        &mut self,
        built: &mut [Input],
        raw: &IndexMap<String, RawInput>,
        declared: &Declared<'_>,
    ) {
        for (i, (name, raw)) in raw.iter().enumerate() {
            let scope = declared.scope(false, Some(i + 1));
            for c in &raw.after {
                let (Some(w), Some(path)) = (&c.when, &c.reject) else {
                    let span = c.when.as_ref().map_or(raw.anchor(), |w| w.anchor());
                    self.problem(
                        "check::check_shape",
                        span,
                        format!("a check after `{name}` needs `when` and `reject`"),
                        "here",
                    );
                    continue;
                };
                if c.decision.is_some() || c.reason.is_some() {
                    self.problem(
                        "check::check_shape",
                        w.anchor(),
                        "checks after an input only reject",
                        "here",
                    );
                }
                self.require_reject_path(path);
                let p = self.parse(w);
                self.unrecorded_rounding(&p, "an input's `after` check");
                if let Some((f, ty)) = self.resolve(&p, &scope) {
                    self.expect_type(&p, &ty, &Type::Bool, "a check's `when`");
                    let path = self.message(path, &scope);
                    let message = match &c.message {
                        Some(m) => self.message(m, &scope),
                        None => vec![MessagePart::Text("is invalid".into())],
                    };
                    built[i].after.push((f, path, message));
                }
            }
        }
    }

    /// Compiles the `reject` rules of an input and of the fields nested in it.
    fn field_rules(
        &mut self,
        input: &mut Input,
        raw: &RawInput,
        item: Option<&Type>,
        scope: &Scope<'_>,
    ) {
        for hidden in ["value", "item"] {
            if !raw.reject.is_empty() && scope.names.contains_key(hidden) {
                let span = raw.reject.first().map_or(raw.anchor(), |r| r.when.anchor());
                let message = format!("field rules bind `{hidden}`, which is also the name of an input, step or table: rename it");
                self.problem("check::duplicate_name", span, message, "here");
            }
        }
        let mut locals: Vec<(Arc<str>, Type)> = vec![(Arc::from("value"), input.kind.value_type())];
        if let Some(t) = item {
            locals.push((Arc::from("item"), t.clone()));
        }
        for rule in &raw.reject {
            let p = self.parse(&rule.when);
            self.unrecorded_rounding(&p, "an input's `reject` rule");
            if let Some((when, ty)) = self.resolve_locals(&p, scope, locals.clone()) {
                self.expect_type(&p, &ty, &Type::Bool, "a rule's `when`");
                let message = self.message_locals(&rule.message, scope, &locals);
                input.rejects.push(FieldRule { when, message });
            }
        }
        match &mut input.kind {
            InputKind::Record { fields, shape, .. } => {
                let record = Type::Record(*shape);
                for (field, raw_field) in fields
                    .iter_mut()
                    .zip(raw.fields.iter().flat_map(|f| f.values()))
                {
                    self.field_rules(field, raw_field, Some(&record), scope);
                }
            }
            InputKind::List { item, .. } | InputKind::Map { item, .. } => {
                if let Some(raw_item) = &raw.items {
                    self.field_rules(item, raw_item, None, scope);
                }
            }
            _ => {}
        }
    }

    /// `unique` is meaningful only on a field of the records of a list, or
    /// on the items of a list of plain values.
    fn unique_positions(&mut self, input: &Input, raw: &RawInput, in_list_record: bool) {
        if input.unique && !in_list_record {
            self.problem(
                "check::bad_input",
                raw.anchor(),
                "`unique` applies to a field of the records of a list, or to the plain items of a list",
                "here",
            );
        }
        match (&input.kind, &raw.fields, &raw.items) {
            (InputKind::List { item, .. }, _, Some(raw_item)) => {
                if let (InputKind::Record { fields, .. }, Some(raw_fields)) =
                    (&item.kind, &raw_item.fields)
                {
                    if item.unique {
                        self.problem(
                            "check::bad_input",
                            raw_item.anchor(),
                            "`unique` applies to a field of the records of a list",
                            "here",
                        );
                    }
                    for (f, rf) in fields.iter().zip(raw_fields.values()) {
                        self.unique_positions(f, rf, true);
                    }
                } else {
                    // A plain item (a text, a number, …): no two may be equal.
                    let plain = !matches!(
                        item.kind,
                        InputKind::Record { .. } | InputKind::List { .. } | InputKind::Map { .. }
                    );
                    self.unique_positions(item, raw_item, plain);
                }
            }
            (InputKind::Map { item, .. }, _, Some(raw_item)) => {
                self.unique_positions(item, raw_item, false)
            }
            (InputKind::Record { fields, .. }, Some(raw_fields), _) => {
                for (f, rf) in fields.iter().zip(raw_fields.values()) {
                    self.unique_positions(f, rf, false);
                }
            }
            _ => {}
        }
    }

    /// A `ref` to a table whose rows the case may replace must come after the
    /// input that replaces them, or it would be checked against the wrong rows.
    fn ref_order(&mut self, inputs: &[Input], raws: &IndexMap<String, RawInput>) {
        fn targets(input: &Input, out: &mut Vec<TableId>) {
            if let Some(RefTarget::Table(t)) = input.refers.or(input.key_ref) {
                out.push(t);
            }
            match &input.kind {
                InputKind::Record { fields, .. } => fields.iter().for_each(|f| targets(f, out)),
                InputKind::List { item, .. } | InputKind::Map { item, .. } => targets(item, out),
                _ => {}
            }
        }
        for (i, input) in inputs.iter().enumerate() {
            let mut found = Vec::new();
            targets(input, &mut found);
            for t in found {
                let replaced_by = inputs
                    .iter()
                    .position(|x| matches!(x.kind, InputKind::Table { table } if table == t));
                if let Some(j) = replaced_by.filter(|j| *j > i) {
                    let span = raws
                        .get_index(i)
                        .map_or(Span::default(), |(_, r)| r.anchor());
                    let message = format!("`{}` refers to keys of a table that `{}` may replace, but is validated before it: declare `{}` first", input.name, inputs[j].name, inputs[j].name);
                    self.problem("check::input_order", span, message, "here");
                }
            }
        }
    }
}
