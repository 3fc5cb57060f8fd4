//! A decision's answer written as JSON text while it is evaluated, for the
//! untraced batch road (`pipeline::evaluate_case_json_to`).
//!
//! Building the answer as a `serde_json::Value` (a map and a `String` per
//! key and per amount), writing it, then dropping it cost a sales-tax cart
//! more than its evaluation. Here the same formulas are evaluated in the
//! same order as `answer::output` evaluates them, each value put in its
//! format by the same `answer::in_format`, and written where it goes.
//!
//! INVARIANT: the bytes are those `serde_json` writes for the answer
//! `Machine::answer` builds (compact, keys in declared order), and every
//! fault is the one `Machine::answer` meets, at the same place: a keyed
//! list's repeated key is reported after every item is evaluated, as the
//! map built there reports it.

use std::collections::HashSet;
use std::sync::Arc;

use crate::facts::CaseError;
use crate::model::*;
use crate::trace::write_json_string;
use crate::value::write_decimal;

use super::answer::{in_format, Formatted};
use super::tracer::NoTrace;
use super::{Ctx, Ended, EvalError, Machine};

impl<'a> Machine<'a, NoTrace> {
    /// The checks, then the decision's answer written to `out`; a rejection
    /// is returned unwritten. On a fault, `out` holds part of an answer.
    pub(super) fn run_written(
        &mut self,
        out: &mut Vec<u8>,
    ) -> Result<Option<CaseError>, EvalError> {
        match self.checks()? {
            Ended::Rejected(error) => Ok(Some(error)),
            Ended::Decided {
                decision,
                reason,
                clauses,
            } => {
                let cited = self.decide(decision, reason, clauses)?;
                let outputs = &self.rb.decisions[decision].answer;
                out.push(b'{');
                for (o, output) in outputs.iter().enumerate() {
                    if o > 0 {
                        out.push(b',');
                    }
                    write_key(out, &output.key);
                    self.write_output(out, output, Ctx::Answer(decision, o), &cited)?;
                }
                out.push(b'}');
                Ok(None)
            }
        }
    }

    /// One answer field as `answer::output` gives it, written.
    fn write_output(
        &mut self,
        out: &mut Vec<u8>,
        output: &'a Output,
        context: Ctx,
        clauses: &[Arc<str>],
    ) -> Result<(), EvalError> {
        match &output.value {
            OutputValue::Value { expr, format } => {
                let value = self.formula(expr, context)?;
                let formatted = in_format(&value, *format)
                    .map_err(|m| self.error(expr, context, expr.code.span, m))?;
                write_formatted(out, formatted, clauses);
                Ok(())
            }
            OutputValue::Each {
                group,
                fields,
                key: None,
            } => {
                let g = *group;
                out.push(b'[');
                self.each_item(g, |m, i| {
                    if i > 0 {
                        out.push(b',');
                    }
                    m.write_fields(out, fields, Ctx::ItemAnswer(g, i), clauses)
                })?;
                out.push(b']');
                Ok(())
            }
            OutputValue::Each {
                group,
                fields,
                key: Some(k),
            } => {
                let g = *group;
                // An item's key is evaluated after its fields: they are
                // written aside, then moved after the key.
                let mut item = Vec::new();
                let mut names: HashSet<String> = HashSet::new();
                let mut repeated: Option<String> = None;
                out.push(b'{');
                self.each_item(g, |m, i| {
                    item.clear();
                    m.write_fields(&mut item, fields, Ctx::ItemAnswer(g, i), clauses)?;
                    let name = m.item_key(k, context, i)?;
                    if names.contains(&name) {
                        repeated.get_or_insert(name);
                        return Ok(());
                    }
                    if i > 0 {
                        out.push(b',');
                    }
                    write_key(out, &name);
                    out.extend_from_slice(&item);
                    names.insert(name);
                    Ok(())
                })?;
                if let Some(name) = repeated {
                    return Err(self.error(
                        k,
                        context,
                        k.code.span,
                        format!("two items have the key {name:?}"),
                    ));
                }
                out.push(b'}');
                Ok(())
            }
        }
    }

    /// One item's object of fields.
    fn write_fields(
        &mut self,
        out: &mut Vec<u8>,
        fields: &'a [Output],
        context: Ctx,
        clauses: &[Arc<str>],
    ) -> Result<(), EvalError> {
        out.push(b'{');
        for (f, field) in fields.iter().enumerate() {
            if f > 0 {
                out.push(b',');
            }
            write_key(out, &field.key);
            self.write_output(out, field, context, clauses)?;
        }
        out.push(b'}');
        Ok(())
    }
}

/// A value in its format, as `serde_json` writes the value `format_value` makes of it.
fn write_formatted(out: &mut Vec<u8>, formatted: Formatted<'_>, clauses: &[Arc<str>]) {
    match formatted {
        // Digits, a sign and a point: nothing to escape.
        Formatted::Amount(d) => {
            out.push(b'"');
            write_decimal(out, &d);
            out.push(b'"');
        }
        Formatted::Written(text) => write_json_string(out, &text),
        Formatted::Text(text) => write_json_string(out, text),
        // `decimal_text` writes a JSON number, which serde_json (with
        // `arbitrary_precision`) keeps and writes as written.
        Formatted::Number(d) => write_decimal(out, &d),
        Formatted::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        Formatted::Clauses => {
            out.push(b'[');
            for (i, c) in clauses.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_string(out, c);
            }
            out.push(b']');
        }
    }
}

/// `"key":`.
fn write_key(out: &mut Vec<u8>, key: &str) {
    write_json_string(out, key);
    out.push(b':');
}
