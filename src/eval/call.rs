//! Built-in function calls as the walker evaluates them: arguments checked
//! and evaluated in order, the operation from `ops`, the fault located at
//! the call.
//!
//! A function with an operation in its table entry (`model::func`) runs
//! through `run_op`; only the functions that need the machine are cases
//! here: `min`/`max` (compared as they are read), `coalesce` (stops at the
//! first present value), `round`/`floor`/`ceil` (rounding points, traced),
//! the table functions (rows in force, lookups traced) and the literals.

use crate::model::func::{Op, Read, MAX_OP_ARGS};
use crate::model::*;
use crate::num::{rounding, RoundingMode};
use crate::span::Span;
use crate::trace::{Lookup, RoundingTrace};
use crate::value::{compare, plain, Value};

use super::{Fault, Machine, Res};
use crate::model::ops;

impl<'a> Machine<'a> {
    pub(super) fn call(&mut self, func: Func, args: &[Node], span: Span) -> Res<Value> {
        if let Some(op) = &func.spec().op {
            return self.run_op(op, args, span);
        }
        let fault = |m: String| Fault::at(span, m);
        match func {
            Func::Min | Func::Max if args.len() == 1 => {
                ops::extremum_of(&self.list(&args[0])?, func == Func::Max).map_err(fault)
            }
            Func::Rows => {
                let t = self.table_arg(&args[0])?;
                Ok(Value::List(
                    self.rows(t)
                        .iter()
                        .map(|r| Value::Record(r.record.clone()))
                        .collect(),
                ))
            }
            Func::RangeRow => {
                let t = self.table_arg(&args[0])?;
                let x = self.numeric(&args[1])?;
                let found = ops::range_row(self.rows(t), x).map_err(&fault)?.map(|r| {
                    match r.record.fields.first() {
                        Some(Value::Number(upto)) => (r, format!("{x} ≤ {upto}")),
                        _ => (r, format!("{x} is above every bound")),
                    }
                });
                if self.tracer.is_some() {
                    let lookup = Lookup {
                        kind: "range",
                        table: self.rb.tables[t].name.clone(),
                        source: self.source(t),
                        key: x.to_string(),
                        row: found
                            .as_ref()
                            .map(|(r, _)| Value::Record(r.record.clone()).to_string()),
                        why: found
                            .as_ref()
                            .map_or_else(|| "no row".to_string(), |(_, why)| why.clone()),
                    };
                    if let Some(frame) = self.tracer.as_mut().and_then(|tr| tr.frames.last_mut()) {
                        frame.lookups.push(lookup);
                    }
                }
                Ok(found.map_or(Value::Absent, |(r, _)| Value::Record(r.record.clone())))
            }
            Func::Min | Func::Max => {
                let mut best = self.present(&args[0])?;
                for a in &args[1..] {
                    let v = self.present(a)?;
                    let ord = compare(&v, &best)
                        .ok_or_else(|| fault("cannot compare these values".into()))?;
                    if ops::prefers(ord, func == Func::Max) {
                        best = v;
                    }
                }
                Ok(best)
            }
            Func::Round | Func::Floor | Func::Ceil => {
                let x = self.numeric(&args[0])?;
                let places = match &args[1].kind {
                    NodeKind::Const(Value::Number(p)) => {
                        u32::try_from(ops::whole(*p, "places").map_err(&fault)?)
                            .map_err(|_| fault("bad places".into()))?
                    }
                    _ => return Err(fault("places must be a literal".into())),
                };
                let mode = match &args[2].kind {
                    NodeKind::Mode(m) => *m,
                    _ => RoundingMode::HalfUp,
                };
                if self.tracer.is_none() {
                    return rounding::round_value(x, places, mode)
                        .map(Value::Number)
                        .map_err(&fault);
                }
                let r = rounding::round_num(x, places, mode).map_err(&fault)?;
                let after = r.after;
                if let Some(frame) = self.tracer.as_mut().and_then(|t| t.frames.last_mut()) {
                    let at = self
                        .formula_text
                        .get(span.start as usize..span.end as usize)
                        .unwrap_or("round")
                        .to_string();
                    frame.roundings.push(RoundingTrace { at, rounded: r });
                }
                Ok(Value::Number(after))
            }
            Func::Coalesce => {
                for a in args {
                    let v = self.eval(a)?;
                    if !v.is_missing() {
                        return Ok(v);
                    }
                }
                Ok(Value::Absent)
            }
            Func::Date | Func::Month => self.eval(&args[0]),
            Func::Scale => {
                let t = self.table_arg(&args[0])?;
                let x = self.numeric(&args[1])?;
                let table = &self.rb.tables[t];
                let bands = ops::scale_bands(self.rows(t));
                let round_each = match args.get(2).map(|a| &a.kind) {
                    Some(NodeKind::Const(Value::Number(p))) => {
                        u32::try_from(ops::whole(*p, "places").map_err(&fault)?).ok()
                    }
                    _ => None,
                };
                let (total, lines) = ops::scale(&bands, x, round_each).map_err(&fault)?;
                let source = self.source(t);
                if let Some(frame) = self.tracer.as_mut().and_then(|tr| tr.frames.last_mut()) {
                    frame.lookups.push(Lookup {
                        kind: "scale",
                        table: table.name.clone(),
                        source,
                        key: x.to_string(),
                        row: None,
                        why: if lines.is_empty() {
                            "nothing above zero".into()
                        } else {
                            lines.join(" + ")
                        },
                    });
                }
                Ok(Value::from_num(total))
            }
            Func::PeriodRow => {
                let t = self.table_arg(&args[0])?;
                let key = self.eval(&args[1])?;
                if key.is_missing() {
                    return Ok(Value::Absent);
                }
                let rows = self.rows(t);
                let found = ops::period_row(rows, &key);
                let value = found.map_or(Value::Absent, |r| Value::Record(r.record.clone()));
                if self.tracer.is_some() {
                    let why = match found {
                        Some(r) => format!(
                            "{key} is within {}",
                            r.period.map(period_text).unwrap_or_default()
                        ),
                        None => {
                            let covered: Vec<String> = rows
                                .iter()
                                .map(|r| {
                                    format!(
                                        "{} {}",
                                        r.name.as_deref().unwrap_or("?"),
                                        r.period.map(period_text).unwrap_or_default()
                                    )
                                })
                                .collect();
                            format!("no row covers {key} (rows: {})", covered.join(", "))
                        }
                    };
                    let lookup = Lookup {
                        kind: "period",
                        table: self.rb.tables[t].name.clone(),
                        source: self.source(t),
                        key: key.to_string(),
                        row: found.and_then(|r| r.name.as_ref().map(|n| n.to_string())),
                        why,
                    };
                    if let Some(frame) = self.tracer.as_mut().and_then(|tr| tr.frames.last_mut()) {
                        frame.lookups.push(lookup);
                    }
                }
                Ok(value)
            }
            Func::Lookup => {
                let t = self.table_arg(&args[0])?;
                let mut keys = Vec::with_capacity(args.len() - 1);
                for a in &args[1..] {
                    let k = self.eval(a)?;
                    if k.is_missing() {
                        return Ok(Value::Absent);
                    }
                    keys.push(k);
                }
                let TableKind::Keyed { keys: key_cols } = &self.rb.tables[t].kind else {
                    return Err(fault("not a keyed table".into()));
                };
                let found = ops::key_row(self.rows(t), key_cols, &keys);
                let value = found.map_or(Value::Absent, |r| Value::Record(r.record.clone()));
                if self.tracer.is_some() {
                    let key: Vec<String> = keys.iter().map(plain).collect();
                    let lookup = Lookup {
                        kind: "key",
                        table: self.rb.tables[t].name.clone(),
                        source: self.source(t),
                        key: key.join(", "),
                        row: found.map(|_| key.join(", ")),
                        why: if found.is_some() {
                            "the row with this key".into()
                        } else {
                            "no row has this key".into()
                        },
                    };
                    if let Some(frame) = self.tracer.as_mut().and_then(|tr| tr.frames.last_mut()) {
                        frame.lookups.push(lookup);
                    }
                }
                Ok(value)
            }
            // Every function with an `Op` ran through the table above.
            _ => Err(fault(format!(
                "`{}` is not a hand-run function",
                func.name()
            ))),
        }
    }
}

impl Machine<'_> {
    /// A function of the table: each argument read as its entry says (a
    /// read that fails is the fault of that argument), then the operation,
    /// its fault located at the call.
    fn run_op(&mut self, op: &Op, args: &[Node], span: Span) -> Res<Value> {
        let mut values: [Value; MAX_OP_ARGS] = Default::default();
        for ((slot, read), node) in values.iter_mut().zip(op.reads).zip(args) {
            *slot = match read {
                Read::Value => self.eval(node)?,
                Read::Unnoted => self.eval_read(node, false)?,
                Read::Present => self.present(node)?,
                Read::Number => Value::from_num(self.numeric(node)?),
                Read::Decimal => Value::Number(self.number(node)?),
                Read::Approx => Value::Number(
                    self.numeric(node)?
                        .approx()
                        .ok_or_else(|| Fault::at(span, "the fraction is too large".into()))?,
                ),
                Read::Date => Value::Date(self.date(node)?),
                Read::List => Value::List(self.list(node)?),
            };
        }
        let n = args.len().min(op.reads.len()).min(MAX_OP_ARGS);
        (op.run)(&values[..n]).map_err(|m| Fault::at(span, m))
    }
}

/// A period as a lookup names the row it chose.
fn period_text(p: Period) -> String {
    match p {
        Period::Months(f, Some(t)) => format!("{f}…{t}"),
        Period::Months(f, None) => format!("{f}…"),
        Period::Dates(f, Some(t)) => format!("{f}…{t}"),
        Period::Dates(f, None) => format!("{f}…"),
    }
}
