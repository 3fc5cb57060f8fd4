//! A decision's answer: its fields evaluated in declared order and put in
//! their formats, in one walk that builds the typed [`Answer`] (written as
//! JSON by `outcome`, its one writer), the clauses it cites, and (with a
//! trace) the rulebook's report tables.
use rust_decimal::Decimal;
use std::collections::HashSet;
use std::sync::Arc;

use crate::model::*;
use crate::outcome::{write_value, Answer, AnswerValue, Fields};
use crate::trace::{CiteTrace, Event, OutcomeTrace, ReportTrace};
use crate::value::{describe_value, Value};

use super::machine::{Chosen, ItemCtx, Machine, Site};
use super::tracer::Tracer;
use crate::outcome::EvalError;

impl<'a, T: Tracer> Machine<'a, T> {
    /// Decision `index`'s answer: its `cite` conditions, then each field in
    /// declared order, in its format (and, with a trace, the report tables).
    pub(super) fn answer(
        &mut self,
        index: usize,
        reason: Option<Arc<str>>,
        check_clauses: &[Arc<str>],
    ) -> Result<Answer, EvalError> {
        let decision = &self.rb.decisions[index];
        let clauses = self.decide(index, reason.clone(), check_clauses)?;
        let mut fields = Vec::with_capacity(decision.answer.len());
        for (o, out) in decision.answer.iter().enumerate() {
            let value = self.output(out, Site::Answer(index, o), &clauses)?;
            fields.push((out.key.clone(), value));
        }
        if T::ON {
            let reports = self.reports(&clauses)?;
            self.tracer.reports(reports);
            self.tracer.outcome(OutcomeTrace::Decision {
                decision: decision.name.to_string(),
                reason: reason.map(|r| r.to_string()),
                clauses: clauses.iter().map(|c| c.to_string()).collect(),
            });
        }
        Ok(Answer {
            decision: decision.name.clone(),
            fields: Fields(fields),
        })
    }

    /// Takes decision `index` (its name and reason read by `decision` and
    /// `reason` in answers) and gives the clauses its answer cites, its
    /// `cite` conditions evaluated in order.
    pub(super) fn decide(
        &mut self,
        index: usize,
        reason: Option<Arc<str>>,
        check_clauses: &[Arc<str>],
    ) -> Result<Vec<Arc<str>>, EvalError> {
        let decision = &self.rb.decisions[index];
        let mut clauses = answer_clauses(check_clauses, decision);
        for (when, extra) in &decision.cite {
            let held = self.bool_formula(when, Site::Cite(index))?;
            if T::ON {
                self.tracer.event(Event::Cite(CiteTrace {
                    when: when.text.clone(),
                    held,
                    clauses: extra.clone(),
                }));
            }
            if held {
                cite_clauses(&mut clauses, extra);
            }
        }
        self.decision = Some(Chosen {
            name: decision.name.clone(),
            reason,
        });
        Ok(clauses)
    }

    /// The rulebook's report tables, for the trace: one row of cells per item shown.
    pub(super) fn reports(&mut self, clauses: &[Arc<str>]) -> Result<Vec<ReportTrace>, EvalError> {
        let rb = self.rb;
        let mut out = Vec::with_capacity(rb.reports.len());
        for report in &rb.reports {
            let g = report.group;
            let rows: Vec<Vec<String>> = self
                .each_item(g, |m, i| {
                    let shown = match &report.when {
                        Some(w) => m.bool_formula(w, Site::ItemAnswer(g, i))?,
                        None => true,
                    };
                    if !shown {
                        return Ok(None);
                    }
                    report
                        .columns
                        .iter()
                        .map(|c| m.cell(c, Site::ItemAnswer(g, i), clauses))
                        .collect::<Result<Vec<_>, _>>()
                        .map(Some)
                })?
                .into_iter()
                .flatten()
                .collect();
            let totals = report
                .totals
                .iter()
                .map(|t| {
                    Ok((
                        t.key.to_string(),
                        self.cell(t, Site::Answer(0, 0), clauses)?,
                    ))
                })
                .collect::<Result<Vec<_>, EvalError>>()?;
            let header = report.columns.iter().map(|c| c.key.to_string()).collect();
            out.push(ReportTrace {
                title: report.title.clone(),
                header,
                rows,
                totals,
            });
        }
        Ok(out)
    }

    /// Runs `f` once in the scope of each item of group `g` (its steps computed
    /// once, read from the memo), restoring the enclosing scope even on error.
    pub(super) fn each_item<V>(
        &mut self,
        g: usize,
        mut f: impl FnMut(&mut Self, usize) -> Result<V, EvalError>,
    ) -> Result<Vec<V>, EvalError> {
        let over = &self.rb.groups[g].over;
        let res = self
            .group(g)
            .map_err(|fault| self.name(fault, over, Site::GroupOver(g)))?;
        let saved = self.current.take();
        let mut out = Vec::with_capacity(res.items.len());
        let mut failure = None;
        for (i, item) in res.items.iter().enumerate() {
            let slots = res.row(i).to_vec();
            self.current = Some(ItemCtx {
                group: g,
                index: i,
                item: item.clone(),
                slots,
                label: None,
            });
            match f(self, i) {
                Ok(v) => out.push(v),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        self.current = saved;
        match failure {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// One report cell: the value in its format, as text (a JSON string's
    /// without its quotes, any other value's JSON); a missing value is blank.
    pub(super) fn cell(
        &mut self,
        out: &'a Output,
        context: Site,
        clauses: &[Arc<str>],
    ) -> Result<String, EvalError> {
        // The value is computed once, both to see it is missing and to write it.
        let value = match &out.value {
            OutputValue::Value { expr, format } => {
                let value = self.formula(expr, context)?;
                if value.is_missing() {
                    return Ok(String::new());
                }
                self.formatted(&value, expr, *format, context, clauses)?
            }
            OutputValue::Each { .. } => self.output(out, context, clauses)?,
        };
        let text = value.as_text().unwrap_or_else(|| {
            let mut text = Vec::new();
            write_value(&mut text, &value);
            String::from_utf8_lossy(&text).into_owned()
        });
        if T::ON {
            self.tracer.text(text.len());
        }
        Ok(text)
    }

    /// A text with `{expr}` parts filled in.
    pub(super) fn render(
        &mut self,
        parts: &'a [MessagePart],
        context: Site,
    ) -> Result<String, EvalError> {
        let mut text = String::new();
        for part in parts {
            match part {
                MessagePart::Text(t) => text.push_str(t),
                MessagePart::Value(f) => match self.formula(f, context)? {
                    Value::Text(t) => text.push_str(&t),
                    other => text.push_str(&other.to_string()),
                },
            }
        }
        Ok(text)
    }

    /// The key of item `i` of a keyed answer list: a text as itself, any
    /// other present value as it prints; a missing one is a fault.
    pub(super) fn item_key(
        &mut self,
        k: &'a Formula,
        context: Site,
        i: usize,
    ) -> Result<Arc<str>, EvalError> {
        match self.formula(k, context)? {
            Value::Text(t) => Ok(t),
            v if v.is_missing() => {
                let message = format!("the key of item {i} is {}", v.kind_name());
                Err(self.error(k, context, k.code.span, message))
            }
            other => Ok(Arc::from(other.to_string())),
        }
    }

    /// One answer field in its format; a list over a group gives one object
    /// per item, in order, or keyed by each item's key (evaluated after its
    /// fields). Two items with one key are a fault of the key's formula,
    /// found once every item is evaluated.
    pub(super) fn output(
        &mut self,
        out: &'a Output,
        context: Site,
        clauses: &[Arc<str>],
    ) -> Result<AnswerValue, EvalError> {
        match &out.value {
            OutputValue::Value { expr, format } => {
                let value = self.formula(expr, context)?;
                self.formatted(&value, expr, *format, context, clauses)
            }
            OutputValue::Each {
                group,
                fields,
                key: None,
            } => {
                let g = *group;
                let items = self.each_item(g, |m, i| m.item_fields(fields, g, i, clauses))?;
                Ok(AnswerValue::List(items))
            }
            OutputValue::Each {
                group,
                fields,
                key: Some(k),
            } => {
                let g = *group;
                let items = self.each_item(g, |m, i| {
                    let object = m.item_fields(fields, g, i, clauses)?;
                    Ok((m.item_key(k, context, i)?, object))
                })?;
                if let Some(name) = repeated_key(&items) {
                    return Err(self.error(
                        k,
                        context,
                        k.code.span,
                        format!("two items have the key {name:?}"),
                    ));
                }
                Ok(AnswerValue::Keyed(items))
            }
        }
    }

    /// The object of item `i` of group `g`: its fields in declared order.
    fn item_fields(
        &mut self,
        fields: &'a [Output],
        g: usize,
        i: usize,
        clauses: &[Arc<str>],
    ) -> Result<Fields, EvalError> {
        let mut object = Vec::with_capacity(fields.len());
        for field in fields {
            let value = self.output(field, Site::ItemAnswer(g, i), clauses)?;
            object.push((field.key.clone(), value));
        }
        Ok(Fields(object))
    }

    /// An answer value in its format; a value the format cannot write is a
    /// fault of the answer's formula.
    pub(super) fn formatted(
        &self,
        value: &Value,
        expr: &Formula,
        format: Format,
        context: Site,
        clauses: &[Arc<str>],
    ) -> Result<AnswerValue, EvalError> {
        format_value(value, format, clauses)
            .map_err(|m| self.error(expr, context, expr.code.span, m))
    }
}

/// The first key, in item order, that an earlier item already has.
fn repeated_key<V>(items: &[(Arc<str>, V)]) -> Option<&str> {
    let mut seen = HashSet::with_capacity(items.len());
    items.iter().map(|(k, _)| &**k).find(|&k| !seen.insert(k))
}

/// The clauses an answer cites before its `cite` rules: the deciding
/// check's, else its decision's.
pub(crate) fn answer_clauses(check_clauses: &[Arc<str>], decision: &Decision) -> Vec<Arc<str>> {
    if check_clauses.is_empty() {
        decision.clauses.clone()
    } else {
        check_clauses.to_vec()
    }
}

/// Adds a held `cite` rule's clauses, each once.
pub(crate) fn cite_clauses(clauses: &mut Vec<Arc<str>>, extra: &[Arc<str>]) {
    for c in extra {
        if !clauses.contains(c) {
            clauses.push(c.clone());
        }
    }
}

/// An answer value in its format, or why the format cannot write it: an
/// amount with more decimals than its format is an error, never a silent
/// rounding; `clauses` are what a `clauses` field lists.
pub(crate) fn format_value(
    v: &Value,
    format: Format,
    clauses: &[Arc<str>],
) -> Result<AnswerValue, String> {
    let number = |n: &Decimal| {
        let mut n = *n;
        if n.is_zero() {
            n.set_sign_positive(true);
        }
        n
    };
    match (format, v) {
        (Format::Clauses, _) => Ok(AnswerValue::Clauses(clauses.to_vec())),
        (_, v) if v.is_missing() => Err(format!("the answer value is {}", v.kind_name())),
        (Format::Fixed(places), Value::Number(n)) => {
            let mut n = number(n);
            if n.scale() > places {
                let r = n.round_dp(places);
                if r != n {
                    return Err(format!(
                        "{n} has more than {places} decimals: round it in a step"
                    ));
                }
                n = r;
            }
            n.rescale(places);
            if n.scale() != places {
                // `10` to 28 places is 30 digits: rescale stops at 27.
                return Err(format!(
                    "{n} cannot be written with {places} decimals: more digits than a decimal holds"
                ));
            }
            Ok(AnswerValue::Amount(n))
        }
        (Format::Decimal, Value::Number(n)) => Ok(AnswerValue::Amount(number(n))),
        (Format::Integer, Value::Number(n)) => {
            if !n.fract().is_zero() {
                return Err(format!("{n} is not a whole number: round it in a step"));
            }
            Ok(AnswerValue::Number(number(&n.trunc())))
        }
        (Format::Number, Value::Number(n)) => Ok(AnswerValue::Number(number(&n.normalize()))),
        (Format::Text, Value::Text(t)) => Ok(AnswerValue::Text(t.clone())),
        (Format::Bool, Value::Bool(b)) => Ok(AnswerValue::Bool(*b)),
        (Format::Calendar, Value::Date(d)) => Ok(AnswerValue::Date(*d)),
        (Format::Calendar, Value::Month(m)) => Ok(AnswerValue::Month(*m)),
        (_, Value::Fraction(f)) => Err(format!(
            "{f} is an exact fraction with {}: round it in a step",
            f.why_not_decimal()
        )),
        (_, other) => Err(format!(
            "cannot write {} in this format",
            describe_value(other)
        )),
    }
}
