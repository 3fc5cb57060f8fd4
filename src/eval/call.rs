//! Built-in function calls: arguments checked and evaluated in order, the
//! operation from `ops`, the fault located at the call.
//!
//! A function with an operation in its table entry (`model::func`) runs
//! through `run_op`; only the functions that need the machine are cases
//! here: `min`/`max` (compared as they are read), `coalesce` (stops at the
//! first present value), `round`/`floor`/`ceil` (rounding points, traced),
//! the table functions (rows in force, lookups traced) and the literals.

use std::borrow::Cow;

use crate::model::code::{Code, CodeKind};
use crate::model::func::{ArgRead, Op, MAX_OP_ARGS};
use crate::model::*;
use crate::num::RoundingMode;
use crate::span::Span;
use crate::trace::{Lookup, RoundingTrace};
use crate::value::{plain, text_units, Value};

use super::machine::{Fault, Machine, Res};
use super::tracer::Tracer;
use crate::model::ops;

impl<'a, T: Tracer> Machine<'a, T> {
    pub(super) fn call(&mut self, func: Func, args: &'a [Code], span: Span) -> Res<Value> {
        if let Some(op) = &func.spec().op {
            let work = func.work_units();
            if work > 0 {
                self.spend_many(work, span)?;
            }
            return self.run_op(op, args, span);
        }
        let fault = |m: String| Fault::at(span, m);
        match func {
            Func::Min | Func::Max if args.len() == 1 => {
                ops::extremum_of(&self.list(&args[0])?, func == Func::Max).map_err(fault)
            }
            Func::Rows => {
                let t = self.table_arg(&args[0])?;
                let rows = self.rows(t);
                self.spend_many(rows.len() as u64, span)?;
                Ok(Value::List(
                    rows.iter()
                        .map(|r| Value::Record(r.record.clone()))
                        .collect(),
                ))
            }
            Func::RangeRow => {
                let t = self.table_arg(&args[0])?;
                let x = self.numeric(&args[1])?;
                self.spend_rows(t, span)?;
                let found = ops::range_row(self.rows(t), x).map_err(&fault)?;
                if T::ON {
                    let why = match found.map(|r| r.record.fields.first()) {
                        Some(Some(Value::Number(upto))) => format!("{x} ≤ {upto}").into(),
                        Some(_) => format!("{x} is above every bound").into(),
                        None => "no row".into(),
                    };
                    let lookup = Lookup {
                        kind: "range",
                        table: self.rb.tables[t.index()].name.clone(),
                        source: self.source(t),
                        key: x.to_string(),
                        row: found.map(|r| Value::Record(r.record.clone()).to_string()),
                        why,
                    };
                    self.tracer.lookup(lookup);
                }
                Ok(found.map_or(Value::Absent, |r| Value::Record(r.record.clone())))
            }
            Func::Min | Func::Max => self.extremum(func == Func::Max, args, span),
            Func::Round | Func::Floor | Func::Ceil => {
                let x = self.numeric(&args[0])?;
                let places = match &args[1].kind {
                    CodeKind::Const(Value::Number(p)) => {
                        u32::try_from(ops::whole(*p, "places").map_err(&fault)?)
                            .map_err(|_| fault("bad places".into()))?
                    }
                    _ => return Err(fault("places must be a literal".into())),
                };
                let mode = match args.get(2).map(|a| &a.kind) {
                    Some(CodeKind::Mode(m)) => *m,
                    _ => RoundingMode::HalfUp,
                };
                self.round(x, places, mode, span).map(Value::Number)
            }
            Func::Coalesce => {
                for a in args {
                    let v = self.value(a)?;
                    if !v.is_missing() {
                        return Ok(v);
                    }
                }
                Ok(Value::Absent)
            }
            Func::Date | Func::Month => self.value(&args[0]),
            Func::Scale => {
                let t = self.table_arg(&args[0])?;
                let x = self.numeric(&args[1])?;
                self.spend_rows(t, span)?;
                let bands = ops::scale_bands(self.rows(t));
                let round_each = match args.get(2).map(|a| &a.kind) {
                    Some(CodeKind::Const(Value::Number(p))) => {
                        u32::try_from(ops::whole(*p, "places").map_err(&fault)?).ok()
                    }
                    _ => None,
                };
                self.apply_scale(t, &bands, x, round_each).map_err(&fault)
            }
            Func::ScaleBy => self.scale_by(args, span),
            Func::PeriodRow => {
                let t = self.table_arg(&args[0])?;
                let key = self.value(&args[1])?;
                self.spend_rows(t, span)?;
                if key.is_missing() {
                    return Ok(Value::Absent);
                }
                let rows = self.rows(t);
                let found = ops::period_row(rows, &key);
                let value = found.map_or(Value::Absent, |r| Value::Record(r.record.clone()));
                if T::ON {
                    let why = match found {
                        Some(r) => match r.period {
                            Some(p) => format!("{key} is within {}", p),
                            None => format!("{key} is within "),
                        },
                        None => {
                            let covered: Vec<String> = rows
                                .iter()
                                .map(|r| match r.period {
                                    Some(p) => {
                                        format!("{} {}", r.name.as_deref().unwrap_or("?"), p)
                                    }
                                    None => format!("{} ", r.name.as_deref().unwrap_or("?")),
                                })
                                .collect();
                            format!("no row covers {key} (rows: {})", covered.join(", "))
                        }
                    };
                    let lookup = Lookup {
                        kind: "period",
                        table: self.rb.tables[t.index()].name.clone(),
                        source: self.source(t),
                        key: key.to_string(),
                        row: found.and_then(|r| r.name.as_ref().map(|n| n.to_string())),
                        why: why.into(),
                    };
                    self.tracer.lookup(lookup);
                }
                Ok(value)
            }
            Func::Lookup => {
                let t = self.table_arg(&args[0])?;
                let mut keys = Vec::with_capacity(args.len() - 1);
                for a in &args[1..] {
                    let k = self.value(a)?;
                    if k.is_missing() {
                        return Ok(Value::Absent);
                    }
                    keys.push(k);
                }
                let TableKind::Keyed { keys: key_cols } = &self.rb.tables[t.index()].kind else {
                    return Err(fault("not a keyed table".into()));
                };
                self.spend_rows(t, span)?;
                let found = ops::key_row(self.rows(t), key_cols, &keys);
                let value = found.map_or(Value::Absent, |r| Value::Record(r.record.clone()));
                if T::ON {
                    let key = match keys.as_slice() {
                        [one] => plain(one),
                        more => more.iter().map(plain).collect::<Vec<_>>().join(", "),
                    };
                    let lookup = Lookup {
                        kind: "key",
                        table: self.rb.tables[t.index()].name.clone(),
                        source: self.source(t),
                        row: found.map(|_| key.clone()),
                        key,
                        why: if found.is_some() {
                            "the row with this key".into()
                        } else {
                            "no row has this key".into()
                        },
                    };
                    self.tracer.lookup(lookup);
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

    /// `scale_by(table, x, factor, places, mode)`: each band limit times
    /// `factor`, rounded (each rounding recorded, at the limit it makes),
    /// then the scale applied to `x` as `scale` does.
    fn scale_by(&mut self, args: &'a [Code], span: Span) -> Res<Value> {
        let fault = |m: String| Fault::at(span, m);
        let t = self.table_arg(&args[0])?;
        let x = self.numeric(&args[1])?;
        let factor = self.numeric(&args[2])?;
        self.spend_rows(t, span)?;
        let places = match &args[3].kind {
            CodeKind::Const(Value::Number(p)) => {
                u32::try_from(ops::whole(*p, "places").map_err(&fault)?)
                    .map_err(|_| fault("bad places".into()))?
            }
            _ => return Err(fault("places must be a literal".into())),
        };
        let mode = match args.get(4).map(|a| &a.kind) {
            Some(CodeKind::Mode(m)) => *m,
            _ => RoundingMode::HalfUp,
        };
        let table = &self.rb.tables[t.index()];
        let mut bands = ops::scale_bands(self.rows(t));
        let roundings = ops::scale_limits(&mut bands, factor, places, mode).map_err(&fault)?;
        if T::ON {
            for (n, limit, rounded) in roundings {
                let at = format!(
                    "limit of band {} of {}: {limit} × {factor}",
                    n + 1,
                    table.name
                );
                self.tracer.rounding(RoundingTrace { at, rounded });
            }
        }
        self.apply_scale(t, &bands, x, None).map_err(&fault)
    }

    /// A scale's bands applied to `x`, the band-by-band sum traced as a lookup.
    fn apply_scale(
        &mut self,
        t: TableId,
        bands: &[(Option<rust_decimal::Decimal>, rust_decimal::Decimal)],
        x: crate::num::Num,
        round_each: Option<u32>,
    ) -> Result<Value, String> {
        let (total, lines) = ops::scale(bands, x, round_each)?;
        if T::ON {
            let source = self.source(t);
            self.tracer.lookup(Lookup {
                kind: "scale",
                table: self.rb.tables[t.index()].name.clone(),
                source,
                key: x.to_string(),
                row: None,
                why: if lines.is_empty() {
                    "nothing above zero".into()
                } else {
                    lines.join(" + ").into()
                },
            });
        }
        Ok(Value::from_num(total))
    }

    /// One unit of the budget per row of the table a lookup or a scale
    /// goes through: a call's own unit let a 12 KB rulebook scan 250 bands
    /// thousands of times a case within its budget (a repair candidate
    /// took 49 s where its reference took 0.14 s), as `rows` already
    /// spends its rows.
    fn spend_rows(&mut self, t: TableId, span: Span) -> Res<()> {
        let rows = self.rows(t).len();
        self.spend_many(u64::try_from(rows).unwrap_or(u64::MAX), span)
    }

    fn table_arg(&mut self, c: &Code) -> Res<TableId> {
        match &c.kind {
            CodeKind::Table(t) => Ok(*t),
            _ => Err(Fault::at(c.span, "expected a table name".into())),
        }
    }

    fn rows(&self, t: TableId) -> &'a [Row] {
        super::rows_in_force(self.rb, self.facts, t)
    }

    /// Where a table's rows come from, as a lookup names it.
    fn source(&self, t: TableId) -> Cow<'static, str> {
        if self
            .facts
            .tables
            .get(t.index())
            .is_some_and(Option::is_some)
        {
            let input = self
                .rb
                .inputs
                .iter()
                .find(|i| matches!(i.kind, InputKind::Table { table } if table == t));
            format!("case:{}", input.map_or("?", |i| &*i.name)).into()
        } else {
            Cow::Borrowed("rulebook")
        }
    }

    /// A function of the table: each argument read as its entry says (a
    /// read that fails is the fault of that argument), then the operation,
    /// its fault located at the call.
    fn run_op(&mut self, op: &Op, args: &'a [Code], span: Span) -> Res<Value> {
        let mut values: [Value; MAX_OP_ARGS] = Default::default();
        for ((slot, read), node) in values.iter_mut().zip(op.reads).zip(args) {
            *slot = match read {
                ArgRead::Value => self.value(node)?,
                ArgRead::Unnoted => self.eval(node, false)?,
                ArgRead::Present => self.present(node)?,
                ArgRead::Number => Value::from_num(self.numeric(node)?),
                ArgRead::Decimal => Value::Number(self.number(node)?),
                ArgRead::Approx => Value::Number(
                    self.numeric(node)?
                        .approx()
                        .ok_or_else(|| Fault::at(span, "the fraction is too large".into()))?,
                ),
                ArgRead::Date => Value::Date(self.date(node)?),
                ArgRead::List => Value::List(self.list(node)?),
            };
        }
        let n = args.len().min(op.reads.len()).min(MAX_OP_ARGS);
        // A text the operation reads whole (`slice`, `len`, `contains`, …).
        let texts: u64 = values[..n].iter().map(text_units).sum();
        if texts > 0 {
            self.spend_many(texts, span)?;
        }
        let v = (op.run)(&values[..n]).map_err(|m| Fault::at(span, m))?;
        self.spend_made(&v, span)?;
        Ok(v)
    }

    /// A list or map a built-in made (`keys`, `values`, `rows`, …): one
    /// unit per item, as reading one spends; `[keys(m) for x in xs]`
    /// otherwise built gigabytes within any budget. A text made, one per
    /// `TEXT_UNIT` bytes.
    fn spend_made(&mut self, v: &Value, span: Span) -> Res<()> {
        match v {
            Value::List(items) => self.spend_many(items.len() as u64, span),
            Value::Map(entries) => self.spend_many(entries.len() as u64, span),
            Value::Text(_) => self.spend_many(text_units(v), span),
            _ => Ok(()),
        }
    }
}
