//! The verifier's own reading of a formula: the text parsed again by the
//! engine's parser (`expr`), computed over values the trace and the
//! rulebook give, with the exact numbers (`num`) and the model's pure
//! operations (`model::ops`, the `Op` of `model::func`'s table).
//!
//! It shares nothing with the interpreter (`eval`) nor with the lowered
//! code it runs, so a defect there cannot hide in its own receipt
//! (`tests/it/layers.rs` keeps it so). While it computes, it notes every
//! name it reads and compares the value its source gives with the value the
//! trace recorded for that name, and it collects the roundings and table
//! lookups it makes, for the caller to compare with the recorded ones.

use std::sync::Arc;

use rust_decimal::Decimal;
use serde_json::Value as Json;

use crate::expr::{parse_expr, BinOp, Expr, ExprKind, UnOp};
use crate::model::func::{ArgRead, Func};
use crate::model::{ops, ParamValue, Row, Rulebook, TableKind};
use crate::num::exact::Num;
use crate::num::rounding::{round_num, Rounded};
use crate::num::RoundingMode;
use crate::value::{compare, plain, Month, Record, Value};

use super::decode::same_value;

/// Where a name that a formula does not bind itself comes from.
pub enum Resolved {
    /// A value at hand: an input, a computed step, an item.
    Value(Value),
    /// A parameter (chosen by its `at` when dated).
    Param(usize),
    /// A per-item group: its `over` is read, then its items' results.
    Group(usize),
    /// A table, an argument of a lookup.
    Table(usize),
    /// Nothing of that name is at hand here.
    Unknown(String),
}

/// What the verifier knows besides the formula: the trace read so far.
pub trait World {
    /// A name outside the formula's bindings, in an item's scope or at the top.
    fn resolve(&self, name: &str, item: Option<(usize, usize)>) -> Resolved;
    /// A table's rows in force for this case and where they come from
    /// (`rulebook` or `case:INPUT`).
    fn rows(&self, table: usize) -> Result<(Arc<[Row]>, String), String>;
    /// A group's value: one record of its steps' results per item.
    fn group_value(&self, group: usize) -> Result<Value, String>;
}

/// A table lookup the verifier made.
#[derive(Clone, Debug, PartialEq)]
pub struct LookupMade {
    /// `period`, `key`, `scale` or `range`.
    pub kind: &'static str,
    /// The table's name.
    pub table: Arc<str>,
    /// `rulebook` or `case:INPUT`.
    pub source: String,
    /// The key as the trace writes it.
    pub key: String,
    /// The row chosen, as the trace writes it.
    pub row: Option<String>,
    /// Why that row (the trace's `why`): for a scale, the bands applied.
    pub why: String,
}

/// A name read whose recorded value is not what its source gives.
#[derive(Clone, Debug)]
pub struct ReadMismatch {
    /// The name or path read.
    pub name: String,
    /// What the trace recorded.
    pub recorded: Json,
    /// What the source gives.
    pub source: Value,
}

/// One formula computed, with what it read, rounded and looked up.
pub struct Calc<'a, W: World> {
    rb: &'a Rulebook,
    world: &'a W,
    item: Option<(usize, usize)>,
    reads: &'a [(String, Json)],
    /// Which recorded reads the computation read.
    pub matched: Vec<bool>,
    /// Reads whose recorded value is not the source's.
    pub mismatches: Vec<ReadMismatch>,
    /// Names the computation read that the trace has no read of, each once,
    /// with the value its source gives.
    pub unrecorded: Vec<(String, Value)>,
    /// Roundings, in order: `at` and the rounding.
    pub roundings: Vec<(String, Rounded)>,
    /// Lookups, in order.
    pub lookups: Vec<LookupMade>,
    locals: Vec<(Arc<str>, Value)>,
    /// Above zero while computing what the engine computes once and
    /// records in the frame of whichever formula needs it first, or not at
    /// all: a group's `over`, a dated parameter's `at`, a map given whole
    /// to `get`, `keys` or `values`. A read there is compared when the
    /// trace has it, and not asked for when it has not.
    unasked: u32,
}

type Res = Result<Value, String>;

impl<'a, W: World> Calc<'a, W> {
    /// A computation in an item's scope (or at the top), checking the reads
    /// the trace recorded for the event.
    pub fn new(
        rb: &'a Rulebook,
        world: &'a W,
        item: Option<(usize, usize)>,
        reads: &'a [(String, Json)],
    ) -> Self {
        Calc {
            rb,
            world,
            item,
            reads,
            matched: vec![false; reads.len()],
            mismatches: Vec::new(),
            unrecorded: Vec::new(),
            roundings: Vec::new(),
            lookups: Vec::new(),
            locals: Vec::new(),
            unasked: 0,
        }
    }

    /// A formula's text parsed and computed.
    pub(super) fn formula(&mut self, text: &str) -> Res {
        let expr = parse_expr(text).map_err(|e| format!("the formula does not parse: {e}"))?;
        self.eval(&expr, text)
    }

    /// A condition's text computed as a boolean.
    pub(super) fn condition(&mut self, text: &str) -> Result<bool, String> {
        match self.formula(text)? {
            Value::Bool(b) => Ok(b),
            other => Err(format!("a condition gave {other}, not a boolean")),
        }
    }

    fn note(&mut self, name: &str, v: &Value) {
        let mut found = false;
        for (i, (n, recorded)) in self.reads.iter().enumerate() {
            if n == name {
                found = true;
                if let Some(m) = self.matched.get_mut(i) {
                    *m = true;
                }
                if !same_value(recorded, v) {
                    self.mismatches.push(ReadMismatch {
                        name: name.to_string(),
                        recorded: recorded.clone(),
                        source: v.clone(),
                    });
                }
            }
        }
        if !found && self.unasked == 0 && !self.unrecorded.iter().any(|(n, _)| n == name) {
            self.unrecorded.push((name.to_string(), v.clone()));
        }
    }

    /// `f` computed with its reads not asked of the trace ([`Calc::unasked`]).
    fn unasked<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.unasked += 1;
        let out = f(self);
        self.unasked -= 1;
        out
    }

    fn local(&self, name: &str) -> Option<&Value> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| &**n == name)
            .map(|(_, v)| v)
    }

    fn name(&mut self, name: &str, text: &str) -> Res {
        if let Some(v) = self.local(name) {
            return Ok(v.clone());
        }
        match self.world.resolve(name, self.item) {
            Resolved::Value(v) => Ok(v),
            Resolved::Param(p) => self.param(p, text),
            Resolved::Group(g) => {
                let over = self.rb.groups.get(g).map(|g| g.over.text.clone());
                if let Some(over) = over {
                    // The first reader of a group records what its `over` read.
                    let item = self.item.take();
                    let read = self.unasked(|calc| calc.formula(&over));
                    self.item = item;
                    read?;
                }
                self.world.group_value(g)
            }
            Resolved::Table(_) => Err(format!("the table {name} is read as a value")),
            Resolved::Unknown(why) => Err(why),
        }
    }

    fn param(&mut self, p: usize, _text: &str) -> Res {
        let param = self.rb.params.get(p).ok_or("no such parameter")?;
        match &param.value {
            ParamValue::Fixed(v) => Ok(v.clone()),
            ParamValue::Dated { at, periods } => {
                let item = self.item.take();
                let key = self.unasked(|calc| calc.formula(&at.text));
                self.item = item;
                Ok(ops::in_period(periods, &key?))
            }
        }
    }

    /// A chain of names `a.b.c` whose root the formula does not bind: the
    /// path the trace records its read under.
    fn path(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Name(id) if self.local(&id.name).is_none() => Some(id.name.to_string()),
            ExprKind::Field(base, f) => Some(format!("{}.{}", self.path(base)?, f.name)),
            _ => None,
        }
    }

    fn eval(&mut self, e: &Expr, text: &str) -> Res {
        match &e.kind {
            ExprKind::Number(d) => Ok(Value::Number(*d)),
            ExprKind::Text(t) => Ok(Value::Text(t.clone())),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Name(id) => {
                let v = self.name(&id.name, text)?;
                if self.local(&id.name).is_none() {
                    self.note(&id.name, &v);
                }
                Ok(v)
            }
            ExprKind::Field(..) => {
                let v = self.base(e, text)?;
                if let Some(path) = self.path(e) {
                    self.note(&path, &v);
                }
                Ok(v)
            }
            ExprKind::Unary(UnOp::Neg, x) => {
                let n = self.num(x, text)?;
                arith(BinOp::Sub, Num::Dec(Decimal::ZERO), n)
            }
            ExprKind::Unary(UnOp::Not, x) => Ok(Value::Bool(!self.truth(x, text)?)),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let first = self.truth(a, text)?;
                if first == (*op == BinOp::Or) {
                    return Ok(Value::Bool(first));
                }
                Ok(Value::Bool(self.truth(b, text)?))
            }
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div), a, b) => {
                let x = self.num(a, text)?;
                let y = self.num(b, text)?;
                arith(*op, x, y)
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a, text)?;
                let y = self.eval(b, text)?;
                if x.is_missing() || y.is_missing() {
                    return Err(format!("compares {x} with {y}"));
                }
                let ord = compare(&x, &y).ok_or_else(|| format!("cannot compare {x} with {y}"))?;
                Ok(Value::Bool(op.holds(ord)))
            }
            ExprKind::If(c, a, b) => {
                if self.truth(c, text)? {
                    self.eval(a, text)
                } else {
                    self.eval(b, text)
                }
            }
            ExprKind::Call(f, args) => self.call(&f.name, args, e, text),
            ExprKind::Match {
                scrutinee,
                arms,
                otherwise,
            } => {
                let v = self.eval(scrutinee, text)?;
                for (literals, arm) in arms {
                    for lit in literals {
                        let l = self.eval(lit, text)?;
                        if equal(&v, &l) {
                            return self.eval(arm, text);
                        }
                    }
                }
                self.eval(otherwise, text)
            }
            ExprKind::In {
                value,
                set,
                negated,
            } => {
                let v = self.eval(value, text)?;
                let mut found = false;
                for lit in set {
                    let l = self.eval(lit, text)?;
                    found |= equal(&v, &l);
                }
                Ok(Value::Bool(found != *negated))
            }
            ExprKind::InList {
                value,
                list,
                negated,
            } => {
                let v = self.eval(value, text)?;
                let items = self.list(list, text)?;
                let found = items.iter().any(|i| equal(&v, i));
                Ok(Value::Bool(found != *negated))
            }
            ExprKind::Let { var, value, body } => {
                let v = self.eval(value, text)?;
                self.locals.push((var.name.clone(), v));
                let out = self.eval(body, text);
                self.locals.pop();
                out
            }
            ExprKind::Comprehension {
                body,
                index,
                var,
                list,
                filter,
            } => {
                let items = self.list(list, text)?;
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let pushed = usize::from(index.is_some()) + 1;
                    if let Some(ix) = index {
                        self.locals
                            .push((ix.name.clone(), Value::Number(Decimal::from(i))));
                    }
                    self.locals.push((var.name.clone(), item.clone()));
                    let keep = match filter {
                        Some(f) => self.truth(f, text),
                        None => Ok(true),
                    };
                    let v = match keep {
                        Ok(true) => self.eval(body, text).map(Some),
                        Ok(false) => Ok(None),
                        Err(e) => Err(e),
                    };
                    for _ in 0..pushed {
                        self.locals.pop();
                    }
                    if let Some(v) = v? {
                        out.push(v);
                    }
                }
                Ok(Value::List(Arc::from(out)))
            }
        }
    }

    /// A value reached through a chain of names, without noting the chain's
    /// prefixes as reads (the trace records `row.rate`, not `row`).
    fn base(&mut self, e: &Expr, text: &str) -> Res {
        match &e.kind {
            ExprKind::Name(id) => self.name(&id.name, text),
            ExprKind::Field(base, f) => {
                let b = self.base(base, text)?;
                field(&b, &f.name)
            }
            _ => self.eval(e, text),
        }
    }

    fn truth(&mut self, e: &Expr, text: &str) -> Result<bool, String> {
        match self.eval(e, text)? {
            Value::Bool(b) => Ok(b),
            other => Err(format!("a condition gave {other}, not a boolean")),
        }
    }

    fn num(&mut self, e: &Expr, text: &str) -> Result<Num, String> {
        let v = self.eval(e, text)?;
        v.as_num()
            .ok_or_else(|| format!("a number was expected, found {v}"))
    }

    fn list(&mut self, e: &Expr, text: &str) -> Result<Arc<[Value]>, String> {
        match self.eval(e, text)? {
            Value::List(items) => Ok(items),
            v if v.is_missing() => Ok(Arc::from([])),
            other => Err(format!("a list was expected, found {other}")),
        }
    }

    fn places(&mut self, e: &Expr, text: &str) -> Result<u32, String> {
        let n = self.num(e, text)?;
        let d = n.approx().ok_or("places are not a decimal")?;
        u32::try_from(ops::whole(d, "places")?).map_err(|_| "negative places".to_string())
    }

    fn table_arg(&self, e: &Expr) -> Result<usize, String> {
        if let ExprKind::Name(id) = &e.kind {
            if let Resolved::Table(t) = self.world.resolve(&id.name, self.item) {
                return Ok(t);
            }
        }
        Err("the first argument is not a table".into())
    }

    fn call(&mut self, name: &str, args: &[Expr], whole: &Expr, text: &str) -> Res {
        let func = Func::parse(name).ok_or_else(|| format!("no function {name}"))?;
        match func {
            Func::Min | Func::Max => {
                let items: Vec<Value> = if let [list] = args {
                    self.list(list, text)?.to_vec()
                } else {
                    let mut v = Vec::new();
                    for a in args {
                        v.push(self.eval(a, text)?);
                    }
                    v
                };
                ops::extremum_of(&items, func == Func::Max)
            }
            Func::Round | Func::Floor | Func::Ceil => {
                let [x, p, rest @ ..] = args else {
                    return Err(format!("{name} takes a value and places"));
                };
                let v = self.eval(x, text)?;
                if v.is_missing() {
                    return Ok(v);
                }
                let n = v.as_num().ok_or_else(|| format!("{name} of {v}"))?;
                let places = self.places(p, text)?;
                let mode = match (func, rest.first().map(|m| &m.kind)) {
                    (Func::Floor, _) => RoundingMode::Floor,
                    (Func::Ceil, _) => RoundingMode::Ceiling,
                    (_, Some(ExprKind::Name(m))) => {
                        RoundingMode::parse(&m.name).ok_or("unknown rounding mode")?
                    }
                    _ => RoundingMode::HalfUp,
                };
                let r = round_num(n, places, mode).map_err(|e| e.to_string())?;
                let after = r.after;
                let at = span_text(text, whole);
                self.roundings.push((at, r));
                Ok(Value::Number(after))
            }
            Func::Coalesce => {
                for a in args {
                    let v = self.eval(a, text)?;
                    if !v.is_missing() {
                        return Ok(v);
                    }
                }
                Ok(Value::Absent)
            }
            Func::Date | Func::Month => {
                let v = match args.first().map(|a| &a.kind) {
                    Some(ExprKind::Text(t)) => t.clone(),
                    _ => return Err(format!("{name} takes a literal")),
                };
                if func == Func::Date {
                    crate::value::parse_date(&v)
                        .map(Value::Date)
                        .ok_or_else(|| format!("not a date: {v}"))
                } else {
                    Month::parse(&v)
                        .map(Value::Month)
                        .ok_or_else(|| format!("not a month: {v}"))
                }
            }
            Func::Lookup
            | Func::PeriodRow
            | Func::RangeRow
            | Func::Scale
            | Func::ScaleBy
            | Func::Rows => self.table_call(func, args, text),
            _ => {
                let op = func
                    .spec()
                    .op
                    .as_ref()
                    .ok_or_else(|| format!("the verifier does not recompute {name}"))?;
                let mut values = Vec::with_capacity(args.len());
                for (i, a) in args.iter().enumerate() {
                    let read = op.reads.get(i).copied().unwrap_or(ArgRead::Value);
                    // A map read `Unnoted` (`get`'s) by its name or path has no
                    // read in the trace; what its entry gives is checked through
                    // the result. Any other formula there is read as usual.
                    let v = if read == ArgRead::Unnoted && self.path(a).is_some() {
                        self.unasked(|calc| calc.eval(a, text))?
                    } else {
                        self.eval(a, text)?
                    };
                    let v = read.admit(v).ok_or_else(|| {
                        format!("argument {} of {name} is not of its kind", i + 1)
                    })?;
                    values.push(v);
                }
                (op.run)(&values)
            }
        }
    }

    fn table_call(&mut self, func: Func, args: &[Expr], text: &str) -> Res {
        let first = args.first().ok_or("a table function without a table")?;
        let t = self.table_arg(first)?;
        let table = self.rb.tables.get(t).ok_or("no such table")?;
        let (rows, source) = self.world.rows(t)?;
        let name = table.name.clone();
        let made = |kind, key: String, row: Option<String>, why: String| LookupMade {
            kind,
            table: name.clone(),
            source: source.clone(),
            key,
            row,
            why,
        };
        match func {
            Func::Rows => Ok(Value::List(
                rows.iter()
                    .map(|r| Value::Record(r.record.clone()))
                    .collect(),
            )),
            Func::Lookup => {
                let TableKind::Keyed { keys } = &table.kind else {
                    return Err(format!("lookup in {name}, not a keyed table"));
                };
                let mut values = Vec::new();
                for a in args.iter().skip(1) {
                    let k = self.eval(a, text)?;
                    if k.is_missing() {
                        // No key, no lookup: the trace records none.
                        return Ok(Value::Absent);
                    }
                    values.push(k);
                }
                let key = values.iter().map(plain).collect::<Vec<_>>().join(", ");
                let row = ops::key_row(&rows, keys, &values);
                let why = match row {
                    Some(_) => "the row with this key",
                    None => "no row has this key",
                };
                self.lookups
                    .push(made("key", key.clone(), row.map(|_| key), why.into()));
                Ok(row.map_or(Value::Absent, |r| Value::Record(r.record.clone())))
            }
            Func::PeriodRow => {
                let k = self.eval(args.get(1).ok_or("period_row without a key")?, text)?;
                if k.is_missing() {
                    return Ok(Value::Absent);
                }
                let row = ops::period_row(&rows, &k);
                let key = plain(&k);
                let period = |r: &crate::model::Row| r.period.map(|p| p.to_string());
                let why = match row {
                    Some(r) => format!("{key} is within {}", period(r).unwrap_or_default()),
                    None => {
                        let rows: Vec<String> = (rows.iter())
                            .map(|r| {
                                let name = r.name.as_deref().unwrap_or("?");
                                format!("{name} {}", period(r).unwrap_or_default())
                            })
                            .collect();
                        format!("no row covers {key} (rows: {})", rows.join(", "))
                    }
                };
                self.lookups.push(made(
                    "period",
                    key,
                    row.and_then(|r| r.name.as_deref().map(str::to_string)),
                    why,
                ));
                Ok(row.map_or(Value::Absent, |r| Value::Record(r.record.clone())))
            }
            Func::RangeRow => {
                let x = self.num(args.get(1).ok_or("range_row without a value")?, text)?;
                let row = ops::range_row(&rows, x)?;
                let shown = row.map(|r| Value::Record(r.record.clone()).to_string());
                let key = plain(&Value::from_num(x));
                let why = match row.map(|r| r.record.fields.first()) {
                    Some(Some(Value::Number(upto))) => format!("{key} ≤ {upto}"),
                    Some(_) => format!("{key} is above every bound"),
                    None => "no row".into(),
                };
                self.lookups.push(made("range", key, shown, why));
                Ok(row.map_or(Value::Absent, |r| Value::Record(r.record.clone())))
            }
            _ => {
                let x = self.num(args.get(1).ok_or("scale without an amount")?, text)?;
                let mut bands = ops::scale_bands(&rows);
                let places = if func == Func::ScaleBy {
                    // `scale_by(table, x, factor, places[, mode])`: each band
                    // limit times the factor, rounded where the trace records
                    // it, then the scale as `scale` applies it.
                    let factor = self.num(args.get(2).ok_or("scale_by without a factor")?, text)?;
                    let places =
                        self.places(args.get(3).ok_or("scale_by without places")?, text)?;
                    let mode = match args.get(4).map(|m| &m.kind) {
                        Some(ExprKind::Name(m)) => {
                            RoundingMode::parse(&m.name).ok_or("unknown rounding mode")?
                        }
                        _ => RoundingMode::HalfUp,
                    };
                    for (n, limit, r) in ops::scale_limits(&mut bands, factor, places, mode)? {
                        let at = format!("limit of band {} of {name}: {limit} × {factor}", n + 1);
                        self.roundings.push((at, r));
                    }
                    None
                } else {
                    match args.get(2) {
                        Some(p) => Some(self.places(p, text)?),
                        None => None,
                    }
                };
                let (total, lines) = ops::scale(&bands, x, places)?;
                let why = if lines.is_empty() {
                    "nothing above zero".to_string()
                } else {
                    lines.join(" + ")
                };
                self.lookups
                    .push(made("scale", plain(&Value::from_num(x)), None, why));
                Ok(Value::from_num(total))
            }
        }
    }
}

fn arith(op: BinOp, x: Num, y: Num) -> Res {
    x.arith(op, y)
        .map(Value::from_num)
        .map_err(|e| e.to_string())
}

fn equal(a: &Value, b: &Value) -> bool {
    compare(a, b).is_some_and(|o| o.is_eq())
}

/// A field of a record or a map, or the field of every item of a list (a
/// group's projection, `lines.net`).
fn field(v: &Value, name: &str) -> Res {
    match v {
        Value::Record(r) => r
            .names
            .iter()
            .position(|n| &**n == name)
            .and_then(|i| r.fields.get(i).cloned())
            .ok_or_else(|| format!("no field {name}")),
        Value::Map(entries) => Ok(entries.get(name).cloned().unwrap_or(Value::Absent)),
        Value::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for i in items.iter() {
                out.push(field(i, name)?);
            }
            Ok(Value::List(Arc::from(out)))
        }
        // A field of a missing record is missing the same way: of a null
        // one, null (`is_null(r.f)` holds), as the engine reads it.
        Value::Null => Ok(Value::Null),
        v if v.is_missing() => Ok(Value::Absent),
        other => Err(format!("{other} has no field {name}")),
    }
}

fn span_text(text: &str, e: &Expr) -> String {
    text.get(e.span.start as usize..e.span.end as usize)
        .unwrap_or_default()
        .to_string()
}

/// A record value built from a row's cells (a case's rows).
pub fn record(name: Option<Arc<str>>, names: Arc<[Arc<str>]>, fields: Vec<Value>) -> Value {
    Value::Record(Arc::new(Record {
        name,
        names,
        fields: fields.into_boxed_slice(),
    }))
}
