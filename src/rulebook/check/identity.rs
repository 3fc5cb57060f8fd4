//! Identity: what the rulebook and each of its parts are called.
//!
//! The `[rulebook]` table (id, version, schema), the clause texts, the
//! `[limits]`, and the one namespace that inputs, tables, parameters, steps
//! and per-item groups share: a formula names any of them the same way, so
//! no two may have one name, and each must be an identifier.

use indexmap::IndexMap;
use std::collections::HashMap;
use std::sync::Arc;
use toml::Spanned;

use super::{is_ident, sp, Checker};
use crate::model::*;
use crate::rulebook::raw::*;
use crate::rulebook::resolve::Binding;
use crate::span::Span;

/// Whether `id` is a rulebook id: lowercase ASCII letters, digits, `-` and
/// `_`, at least one. Such an id names a folder (`rulebooks/<id>/`) and
/// nothing above it, so a task or a `bareme new` may build a path from it.
pub fn is_rulebook_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

impl Checker<'_> {
    /// The `[rulebook]` table: an id of lowercase letters, digits, `-` and `_`,
    /// a positive version, schema 1.
    pub(super) fn identity(&mut self, ident: &RawIdentity) {
        if !is_rulebook_id(ident.id.get_ref()) {
            self.problem(
                "check::identity",
                sp(&ident.id),
                "the id must be lowercase letters, digits, `-` and `_`",
                "here",
            );
        }
        if *ident.version.get_ref() < 1 {
            self.problem(
                "check::identity",
                sp(&ident.version),
                "the version must be a positive integer",
                "here",
            );
        }
        if *ident.schema.get_ref() != 1 {
            self.problem(
                "check::identity",
                sp(&ident.schema),
                "this engine reads schema 1 only",
                "unsupported schema",
            );
        }
    }

    /// Declares every input, table, parameter, step and group in one
    /// namespace, in that order; a name declared twice is reported at its
    /// second declaration, a name that is no identifier where it stands.
    pub(super) fn names(
        &mut self,
        inputs: &IndexMap<String, RawInput>,
        built_inputs: &[Input],
        tables: &IndexMap<String, RawTable>,
        parameters: &IndexMap<String, RawParameter>,
        steps: &IndexMap<String, RawStep>,
        groups: &IndexMap<String, RawGroup>,
    ) -> HashMap<Arc<str>, Binding> {
        let mut names: HashMap<Arc<str>, Binding> = HashMap::new();
        // A name's problems point at the name where this file declares it
        // (`[inputs.decision]`), else at what declares it (its type, say).
        // Found only for a problem: the search reads the file's lines.
        let mut declare = |cx: &mut Self,
                           section: &str,
                           name: &str,
                           binding: Binding,
                           span: Span| {
            let twice = names.contains_key(name);
            let span = match twice || !is_ident(name) {
                true => cx.declared_at(section, name).unwrap_or(span),
                false => span,
            };
            cx.check_ident(name, span);
            if twice {
                let message = format!("`{name}` is declared twice (inputs, parameters, tables and steps share one namespace)");
                cx.problem("check::duplicate_name", span, message, "second declaration");
            } else {
                names.insert(Arc::from(name), binding);
            }
        };
        for (i, (name, raw)) in inputs.iter().enumerate() {
            if name == "case" {
                let message =
                    "`case` cannot name an input: `{\"case\": …}` is the envelope around a case";
                let at = self.declared_at("inputs", name).unwrap_or(sp(raw));
                self.problem("check::bad_name", at, message, "here");
            }
            let ty = built_inputs
                .get(i)
                .map_or(Type::Any, |input| input.kind.value_type());
            declare(
                self,
                "inputs",
                name,
                Binding::Input(InputId::new(i), ty),
                sp(raw),
            );
        }
        for (i, (name, raw)) in tables.iter().enumerate() {
            declare(
                self,
                "tables",
                name,
                Binding::Table(TableId::new(i)),
                sp(raw),
            );
        }
        for (i, (name, raw)) in parameters.iter().enumerate() {
            declare(
                self,
                "parameters",
                name,
                Binding::Param(i, Type::Number),
                sp(raw),
            );
        }
        for (i, (name, raw)) in steps.iter().enumerate() {
            declare(self, "steps", name, Binding::Step(StepId::new(i)), sp(raw));
        }
        for (g, (name, raw)) in groups.iter().enumerate() {
            declare(self, "per_item", name, Binding::Group(g), sp(raw));
        }
        names
    }
}

/// The rulebook's `[limits]`.
impl Checker<'_> {
    /// Each limit as given, or its default. A limit of 0, or above its cap
    /// (`Limits::MAX_CASE_BYTES`, `MAX_LIST_ITEMS`, `MAX_EVAL_STEPS`), is
    /// refused where it is written: a rulebook may tighten the budget of a
    /// case, never switch it off.
    pub(super) fn limits(&mut self, raw: &RawLimits) -> Limits {
        let default = Limits::default();
        Limits {
            max_case_bytes: self.limit(
                "max_case_bytes",
                raw.max_case_bytes.as_ref(),
                Limits::MAX_CASE_BYTES,
                default.max_case_bytes,
            ),
            max_list_items: self.limit(
                "max_list_items",
                raw.max_list_items.as_ref(),
                Limits::MAX_LIST_ITEMS,
                default.max_list_items,
            ),
            max_eval_steps: self.limit(
                "max_eval_steps",
                raw.max_eval_steps.as_ref(),
                Limits::MAX_EVAL_STEPS,
                default.max_eval_steps,
            ),
        }
    }

    /// One limit: from 1 to `cap`, else reported (and the default kept).
    fn limit<T>(&mut self, key: &str, raw: Option<&Spanned<T>>, cap: T, default: T) -> T
    where
        T: Copy + PartialOrd + From<u8> + std::fmt::Display,
    {
        let Some(raw) = raw else {
            return default;
        };
        let value = *raw.get_ref();
        if value == T::from(0) || value > cap {
            let message = format!("`{key}` must be from 1 to {cap}, found {value}");
            self.problem("check::bad_limit", sp(raw), message, "here");
            return default;
        }
        value
    }
}
