//! Parameters: named constants, fixed or chosen by a date.
//!
//! A fixed parameter is a plain decimal. A dated one holds values for
//! periods that must not overlap, and an `at` formula that picks the period;
//! `at` may read a step, so it is resolved only once steps have their types,
//! and the step graph counts a parameter read as a read of what `at` reads.
//!
//! Invariant: every parameter is a number.

use indexmap::IndexMap;
use std::mem::discriminant;
use std::sync::Arc;

use super::periods::overlapping_periods;
use super::{parse_plain_decimal, sp, Checker, Declared, Pending};
use crate::model::*;
use crate::rulebook::raw::*;
use crate::span::Span;
use crate::value::Value;

impl Checker<'_> {
    /// Reads each parameter's fixed value or dated values. A dated
    /// parameter's `at` is parsed now, and resolved by
    /// [`Checker::parameter_selectors`] once steps have their types.
    pub(super) fn parameters(
        &mut self,
        raw: &IndexMap<String, RawParameter>,
        clause_ids: &[Arc<str>],
    ) -> (Vec<Parameter>, Vec<Option<Pending>>) {
        let mut built = Vec::new();
        let mut selectors = Vec::new();
        for (name, p) in raw {
            let (param, at) = self.parameter(name, p, clause_ids);
            built.push(param);
            selectors.push(at);
        }
        (built, selectors)
    }

    /// One parameter; a dated one's `at` comes back parsed, not yet resolved.
    fn parameter(
        &mut self,
        name: &str,
        raw: &RawParameter,
        clause_ids: &[Arc<str>],
    ) -> (Parameter, Option<Pending>) {
        let p = raw;
        let clause = p.clause.as_ref().map(|c| self.clause_ref(c, clause_ids));
        let number = |cx: &mut Self, text: &str, span: Span| match parse_plain_decimal(text) {
            Some(d) => Value::Number(d),
            None => {
                cx.problem("check::bad_value", span, format!("parameter `{name}`: expected a plain decimal like \"350.00\", found {text:?}"), "here");
                Value::Absent
            }
        };
        let (value, at) = match (&p.value, &p.periods, &p.at) {
            (Some(v), None, None) => (ParamValue::Fixed(number(self, v.get_ref(), sp(v))), None),
            (None, Some(periods), Some(at)) => {
                let mut list = Vec::new();
                for pv in periods {
                    let r = pv.get_ref();
                    let from = toml::Value::String(r.from.clone());
                    let to = r.to.clone().map(toml::Value::String);
                    if let Some(period) = self.period(Some(&from), to.as_ref(), sp(pv)) {
                        list.push((period, number(self, &r.value, sp(pv))));
                    }
                }
                // Periods of another kind than the first overlap it, and
                // those of one kind are swept in order (n log n, where each
                // pair was compared before): each period at fault once.
                let first_kind = list.first().map(|(p, _)| discriminant(p));
                let mixed = list
                    .iter()
                    .filter(|(p, _)| Some(discriminant(p)) != first_kind)
                    .count();
                let periods: Vec<(usize, Period)> =
                    list.iter().enumerate().map(|(i, (p, _))| (i, *p)).collect();
                for _ in 0..mixed + overlapping_periods(&periods).len() {
                    self.problem(
                        "check::bad_value",
                        sp(raw),
                        format!("periods of parameter `{name}` overlap"),
                        "here",
                    );
                }
                let pending = self.parse(at);
                let placeholder = crate::rulebook::lower::formula(
                    pending.text.clone(),
                    Node {
                        span: Span::default(),
                        kind: NodeKind::Const(Value::Absent),
                    },
                    None,
                );
                (
                    ParamValue::Dated {
                        at: placeholder,
                        periods: list,
                    },
                    Some(pending),
                )
            }
            _ => {
                // With neither `value` nor `at` written, nothing in it has a
                // span: its header (`[parameters.rate]`) is where it is.
                let span = match sp(raw) {
                    s if s == Span::default() => self.header("parameters", name),
                    s => s,
                };
                self.problem(
                    "check::bad_value",
                    span,
                    format!("parameter `{name}` needs either `value`, or `periods` with `at`"),
                    "here",
                );
                (ParamValue::Fixed(Value::Absent), None)
            }
        };
        (
            Parameter {
                name: Arc::from(name),
                label: p.label.clone(),
                clause,
                value,
            },
            at,
        )
    }

    /// Resolves the `at` of each dated parameter: a month or a date, which may
    /// be computed by a step.
    pub(super) fn parameter_selectors(
        &mut self,
        params: &mut [Parameter],
        selectors: Vec<Option<Pending>>,
        declared: &Declared<'_>,
    ) {
        for (param, at) in params.iter_mut().zip(selectors) {
            if let (Some(at), ParamValue::Dated { at: slot, .. }) = (at, &mut param.value) {
                if let Some((f, ty)) = self.resolve(&at, &declared.scope(false, None)) {
                    if !matches!(ty, Type::Month | Type::Date | Type::Any) {
                        self.problem(
                            "check::type_mismatch",
                            at.span,
                            "`at` must be a month or a date",
                            "here",
                        );
                    }
                    *slot = f;
                }
            }
        }
    }
}
