//! Outputs: answer fields, their formats, and reports.
//!
//! An answer field is a value written in a format, or a list over a per-item
//! group (`each`) whose fields are read in an item's scope. The format must
//! suit the value's type, since an answer is never rounded silently. A report
//! is a table of a group's items shown at the top of a text trace: its
//! columns are outputs read per item, its totals outputs read at the top.
//!
//! Invariant: lists from `each` do not nest.

use indexmap::IndexMap;
use std::collections::HashMap;
use std::sync::Arc;
use toml::Spanned;

use super::{sp, type_word, Checker, Declared, GroupNames, Pending};
use crate::model::*;
use crate::num::MAX_PLACES;
use crate::rulebook::raw::*;
use crate::rulebook::resolve::Scope;

impl Checker<'_> {
    /// One answer field: a value in a format, or a list over a per-item group.
    pub(super) fn output(
        &mut self,
        key: &str,
        out: &RawOutput,
        scope: &Scope<'_>,
        groups: &HashMap<&str, usize>,
        group_scopes: &[GroupNames],
        depth: usize,
    ) -> Option<Output> {
        let key: Arc<str> = Arc::from(key);
        match (&out.expr, &out.each, &out.fields) {
            (Some(expr), None, None) => {
                let p = self.parse(expr);
                self.unrecorded_rounding(&p, "an answer field or a report's column");
                let (f, ty) = self.resolve(&p, scope)?;
                let format = self.format(out.format.as_ref(), &ty, &p);
                Some(Output {
                    key,
                    value: OutputValue::Value { expr: f, format },
                })
            }
            (None, Some(each), Some(fields)) if depth == 0 => {
                let Some(&g) = groups.get(each.get_ref().as_str()) else {
                    let message = format!("unknown per-item group `{}`", each.get_ref());
                    self.problem(
                        "check::unknown_name",
                        each.anchor(),
                        message,
                        "not declared under [per_item]",
                    );
                    return None;
                };
                let gs = group_scopes.get(g)?;
                let inner = Scope {
                    answer_builtins: scope.answer_builtins,
                    group: Some(gs.scope()),
                    ..Scope::top(
                        scope.names,
                        scope.shapes,
                        scope.tables,
                        scope.step_types,
                        scope.group_types,
                    )
                };
                let mut list = Vec::new();
                for (k, o) in fields {
                    if let Some(field) = self.output(k, o, &inner, groups, group_scopes, depth + 1)
                    {
                        list.push(field);
                    }
                }
                if out.format.is_some() {
                    self.problem(
                        "check::bad_output",
                        each.anchor(),
                        "a list from `each` takes no `format`; give each field its own",
                        "here",
                    );
                }
                let key_formula = out.key.as_ref().and_then(|k| {
                    let p = self.parse(k);
                    self.unrecorded_rounding(&p, "an `each` list's `key`");
                    let (f, ty) = self.resolve(&p, &inner)?;
                    self.expect_type(&p, &ty, &Type::Text, "the `key` of an `each` list");
                    Some(f)
                });
                Some(Output {
                    key,
                    value: OutputValue::Each {
                        group: g,
                        fields: list,
                        key: key_formula,
                    },
                })
            }
            _ => {
                let message = format!("answer field `{key}` needs either `expr`, or `each` with `fields` (lists do not nest)");
                self.problem("check::bad_output", out.anchor(), message, "here");
                None
            }
        }
    }

    /// An answer field's format: the one named, which must suit the value's
    /// type, or the type's own when none is named.
    fn format(&mut self, format: Option<&Spanned<String>>, ty: &Type, p: &Pending) -> Format {
        let Some(f) = format else {
            return match ty {
                Type::Number | Type::Any => Format::Decimal,
                Type::Bool => Format::Bool,
                Type::Date | Type::Month => Format::Calendar,
                Type::Clauses => Format::Clauses,
                Type::Text => Format::Text,
                other => {
                    self.problem(
                        "check::bad_output",
                        p.span,
                        format!("{} cannot be an answer field", type_word(other)),
                        "here",
                    );
                    Format::Text
                }
            };
        };
        let (format, want) = match f.get_ref().as_str() {
            "money" => (Format::Fixed(2), Type::Number),
            "decimal" => (Format::Decimal, Type::Number),
            "integer" => (Format::Integer, Type::Number),
            "number" => (Format::Number, Type::Number),
            "text" => (Format::Text, Type::Text),
            "bool" => (Format::Bool, Type::Bool),
            "clauses" => (Format::Clauses, Type::Clauses),
            "date" => (Format::Calendar, Type::Date),
            "month" => (Format::Calendar, Type::Month),
            other => {
                if let Some(places) = other
                    .strip_prefix("fixed")
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|p| *p <= MAX_PLACES)
                {
                    (Format::Fixed(places), Type::Number)
                } else {
                    let message = format!("unknown format `{other}`; formats are money, fixedN, decimal, integer, number, text, bool, date, month, clauses");
                    self.problem("check::bad_output", sp(f), message, "here");
                    return Format::Text;
                }
            }
        };
        if !want.accepts(ty) {
            let message = format!(
                "format `{}` needs {}, the expression gives {}",
                f.get_ref(),
                type_word(&want),
                type_word(ty)
            );
            self.problem("check::type_mismatch", sp(f), message, "here");
        }
        format
    }

    /// Builds each report: a table over the items of a per-item group, its
    /// columns read in an item's scope and its totals at the top level.
    pub(super) fn reports(
        &mut self,
        raw: &IndexMap<String, RawReport>,
        group_index: &HashMap<&str, usize>,
        declared: &Declared<'_>,
    ) -> Vec<Report> {
        let mut built = Vec::new();
        for (name, r) in raw {
            let Some(&g) = group_index.get(r.each.get_ref().as_str()) else {
                let message = format!("unknown per-item group `{}`", r.each.get_ref());
                self.problem(
                    "check::unknown_name",
                    r.each.anchor(),
                    message,
                    "not declared under [per_item]",
                );
                continue;
            };
            let Some(gs) = declared.group_scopes.get(g) else {
                continue;
            };
            let inner = declared.in_group(Some(gs));
            let when = r.when.as_ref().and_then(|w| {
                let p = self.parse(w);
                self.unrecorded_rounding(&p, "a report's `when`");
                let (f, ty) = self.resolve(&p, &inner)?;
                self.expect_type(&p, &ty, &Type::Bool, "a report's `when`");
                Some(f)
            });
            let no_groups = HashMap::new();
            let columns = r
                .columns
                .iter()
                .filter_map(|(title, o)| self.output(title, o, &inner, &no_groups, &[], 1))
                .collect();
            let top = declared.scope(false, None);
            let totals = r
                .totals
                .iter()
                .filter_map(|(title, o)| self.output(title, o, &top, &no_groups, &[], 1))
                .collect();
            built.push(Report {
                name: Arc::from(name.as_str()),
                title: r.title.clone(),
                group: g,
                when,
                columns,
                totals,
            });
        }
        built
    }
}
