//! Drawing one case from a profile: each field in declaration order, from
//! the task's own random stream, with expressions read over the case drawn
//! so far (its inputs and the rulebook's steps), and targets found by
//! search on the field's grid.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rust_decimal::Decimal;
use serde_json::{Map, Value as Json};

use super::budget::{Evaluations, Spent};
use super::model::*;
use crate::case::validate_case;
use crate::eval::evaluate_formula;
use crate::facts::Facts;
use crate::model::{Formula, Rulebook};
use crate::value::{decimal_text, Month, Value};

/// Why a draw was abandoned: the task is drawn again, and the reason counted.
#[derive(Debug)]
pub(crate) struct Redraw(pub(crate) String);

/// A draw past its task's budget is abandoned like any other.
impl From<Spent> for Redraw {
    fn from(spent: Spent) -> Redraw {
        Redraw(spent.to_string())
    }
}

type Drawing<T> = Result<T, Redraw>;

/// A case being drawn, and what validating it last gave.
pub(crate) struct Drawer<'a> {
    pub(crate) rb: &'a Rulebook,
    pub(crate) rng: &'a mut ChaCha8Rng,
    pub(crate) case: Map<String, Json>,
    facts: Option<Facts>,
    /// The task's budget, spent by each validation and expression.
    evaluations: &'a mut Evaluations,
}

impl<'a> Drawer<'a> {
    pub(crate) fn new(
        rb: &'a Rulebook,
        rng: &'a mut ChaCha8Rng,
        evaluations: &'a mut Evaluations,
    ) -> Self {
        Drawer {
            rb,
            rng,
            case: Map::new(),
            facts: None,
            evaluations,
        }
    }

    /// Draws every field of a profile into the case.
    pub(crate) fn draw(&mut self, fields: &[FieldDraw]) -> Drawing<()> {
        // Placeholders hold their fields' places until their turn.
        for field in fields {
            if let Some(p) = &field.placeholder {
                put(&mut self.case, &field.path, Some(p.clone()));
            }
        }
        for field in fields {
            if !self.lucky(field.chance) {
                if field.placeholder.is_some() {
                    self.set_or_remove(&field.path, None);
                }
                continue;
            }
            let value = self.value(field, None)?;
            self.facts = None;
            let mut case = std::mem::take(&mut self.case);
            put(&mut case, &field.path, value);
            self.case = case;
        }
        // The case's keys in the order the profile declares its fields
        // (a placeholder does not move its field to the front).
        let mut order: Vec<&str> = Vec::new();
        for field in fields {
            if let Some(first) = field.path.first() {
                if !order.contains(&first.as_str()) {
                    order.push(first);
                }
            }
        }
        let mut rest = std::mem::take(&mut self.case);
        for key in order {
            if let Some(v) = rest.shift_remove(key) {
                self.case.insert(key.to_string(), v);
            }
        }
        self.case.extend(rest);
        self.facts = None;
        Ok(())
    }

    /// Whether a field with this chance is drawn.
    fn lucky(&mut self, chance: Option<Decimal>) -> bool {
        match chance {
            None => true,
            Some(p) => {
                let roll = Decimal::from(self.rng.random_range(0..1_000_000u32))
                    / Decimal::from(1_000_000u32);
                roll < p
            }
        }
    }

    /// The case so far, validated (kept until the case changes).
    pub(crate) fn facts(&mut self) -> Drawing<&Facts> {
        if self.facts.is_none() {
            self.evaluations.spend(1)?;
            // Validated in place: the map is lent to a JSON value and taken back.
            let case = Json::Object(std::mem::take(&mut self.case));
            let validated = validate_case(self.rb, &case);
            if let Json::Object(map) = case {
                self.case = map;
            }
            let facts = validated.map_err(|e| {
                Redraw(format!(
                    "the case so far is rejected at {}: {}",
                    e.path, e.message
                ))
            })?;
            self.facts = Some(facts);
        }
        self.facts.as_ref().ok_or_else(|| Redraw("no facts".into()))
    }

    /// An expression over the case so far.
    pub(crate) fn eval(&mut self, f: &Formula) -> Drawing<Value> {
        let rb = self.rb;
        self.evaluations.spend(1)?;
        let facts = self.facts()?;
        evaluate_formula(rb, facts, f, &[])
            .map_err(|e| Redraw(format!("`{}`: {}", f.text, e.message)))
    }

    fn number(&mut self, f: &Formula) -> Drawing<Decimal> {
        match self.eval(f)? {
            Value::Number(d) => Ok(d),
            // A fraction no decimal holds (`x / 151.67`) is never on a grid
            // of decimals, so its nearest 28-digit decimal bounds the same
            // grid values.
            Value::Fraction(x) => x
                .approx()
                .ok_or_else(|| Redraw(format!("`{}` is out of the decimal range", f.text))),
            other => Err(Redraw(format!(
                "`{}` is {}, not a number",
                f.text,
                other.kind_name()
            ))),
        }
    }

    fn bound(&mut self, b: &Bound) -> Drawing<Decimal> {
        match b {
            Bound::Const(d) => Ok(*d),
            Bound::Expr(f) => self.number(f),
        }
    }

    /// One field's value; `n` is the number of the item at hand (from 1).
    fn value(&mut self, field: &FieldDraw, n: Option<usize>) -> Drawing<Option<Json>> {
        Ok(Some(match &field.draw {
            Draw::Absent => return Ok(None),
            Draw::Value(v) => v.clone(),
            Draw::Decimal { lo, hi, step } => {
                let (lo, hi) = (self.bound(lo)?, self.bound(hi)?);
                let grid = Grid::new(lo, hi, *step)?;
                let k = self.rng.random_range(0..=grid.last);
                decimal_json(grid.at(k)?, field.number)
            }
            Draw::Integer(lo, hi) => Json::from(self.rng.random_range(*lo..=*hi)),
            Draw::Choice { values, weights } => values[self.weighted(weights)].clone(),
            Draw::Month(a, b) => {
                let (a, b) = (self.month_bound(a)?, self.month_bound(b)?);
                if b < a {
                    return Err(Redraw(format!("empty range of months {a}..{b}")));
                }
                let span = months_between(a, b);
                let k = self.rng.random_range(0..=span);
                let m = a.plus_months(k).unwrap_or(a);
                Json::String(m.to_string())
            }
            Draw::Date(a, b) => {
                let (a, b) = (self.date_bound(a, false)?, self.date_bound(b, true)?);
                let days = (b - a).num_days();
                if days < 0 {
                    return Err(Redraw(format!("empty range of dates {a}..{b}")));
                }
                let k = self.rng.random_range(0..=days);
                let d = a + chrono::Duration::days(k);
                Json::String(d.format("%Y-%m-%d").to_string())
            }
            Draw::Expr(f) => {
                let v = self.eval(f)?;
                value_json(&v, field.number)
            }
            Draw::Target(target) => {
                let Target {
                    step,
                    side,
                    goal,
                    lo,
                    hi,
                    step_size,
                } = &**target;
                let (lo, hi) = (self.bound(lo)?, self.bound(hi)?);
                let grid = Grid::new(lo, hi, *step_size)?;
                let x = self.target(&field.path, field.number, &grid, step, *side, goal)?;
                decimal_json(x, field.number)
            }
            Draw::List { min, max, item } => {
                let count = self.rng.random_range(*min..=*max) as usize;
                let mut items = Vec::with_capacity(count);
                for i in 1..=count {
                    items.push(Json::Object(self.item(item, i)?));
                }
                Json::Array(items)
            }
            Draw::Parts(parts) => {
                let mut items = Vec::new();
                for part in parts {
                    if !self.lucky(part.chance) {
                        continue;
                    }
                    let Draw::List { min, max, item } = &part.draw else {
                        continue;
                    };
                    let count = self.rng.random_range(*min..=*max) as usize;
                    for _ in 0..count {
                        let n = items.len() + 1;
                        items.push(Json::Object(self.item(item, n)?));
                    }
                }
                Json::Array(items)
            }
            Draw::Object {
                min,
                max,
                key,
                item,
            } => {
                let count = self.rng.random_range(*min..=*max) as usize;
                let mut entries = Map::new();
                for i in 1..=count {
                    entries.insert(numbered(key, i), Json::Object(self.item(item, i)?));
                }
                Json::Object(entries)
            }
            Draw::Record(fields) => Json::Object(self.item(fields, n.unwrap_or(1))?),
            Draw::Text(t) => Json::String(numbered(t, n.unwrap_or(1))),
            Draw::KeyOf(path) => {
                let keys: Vec<String> = match get(&self.case, path) {
                    Some(Json::Object(m)) => m.keys().cloned().collect(),
                    _ => Vec::new(),
                };
                if keys.is_empty() {
                    return Err(Redraw(format!(
                        "no key at `{}` to choose from",
                        path.join(".")
                    )));
                }
                let k = self.rng.random_range(0..keys.len());
                Json::String(keys[k].clone())
            }
        }))
    }

    /// An item of a list or an entry of an object.
    fn item(&mut self, fields: &[FieldDraw], n: usize) -> Drawing<Map<String, Json>> {
        let mut out = Map::new();
        for field in fields {
            if !self.lucky(field.chance) {
                continue;
            }
            let value = self.value(field, Some(n))?;
            put(&mut out, &field.path, value);
        }
        Ok(out)
    }

    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|w| u64::from(*w)).sum();
        let mut roll = self.rng.random_range(0..total.max(1));
        for (i, w) in weights.iter().enumerate() {
            let w = u64::from(*w);
            if roll < w {
                return i;
            }
            roll -= w;
        }
        weights.len().saturating_sub(1)
    }

    /// The grid value of the field at `path` for which `step` lands on,
    /// just below or just above `goal`, found by bisection (the step is
    /// taken to grow with the field; a miss is a redraw).
    fn target(
        &mut self,
        path: &[String],
        number: bool,
        grid: &Grid,
        step: &Formula,
        side: Side,
        goal: &Formula,
    ) -> Drawing<Decimal> {
        let goal = {
            self.set(path, decimal_json(grid.at(0)?, number));
            self.number(goal)?
        };
        // Smallest k whose step value is >= goal (On, Below) or > goal (Above).
        let reached = |d: Decimal| {
            if side == Side::Above {
                d > goal
            } else {
                d >= goal
            }
        };
        let Some(end) = grid.last.checked_add(1) else {
            return Err(Redraw(format!(
                "target `{}`: its grid is too fine",
                step.text
            )));
        };
        let (mut lo, mut hi) = (0u64, end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            self.set(path, decimal_json(grid.at(mid)?, number));
            if reached(self.number(step)?) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let k = match side {
            Side::Below => lo.checked_sub(1),
            Side::On | Side::Above => (lo <= grid.last).then_some(lo),
        };
        let Some(k) = k else {
            return Err(Redraw(format!("target `{}` out of reach", step.text)));
        };
        let x = grid.at(k)?;
        self.set(path, decimal_json(x, number));
        if side == Side::On && self.number(step)? != goal {
            return Err(Redraw(format!(
                "target `{}` not reached exactly",
                step.text
            )));
        }
        Ok(x)
    }

    fn set(&mut self, path: &[String], value: Json) {
        self.set_or_remove(path, Some(value));
    }

    fn set_or_remove(&mut self, path: &[String], value: Option<Json>) {
        self.facts = None;
        let mut case = std::mem::take(&mut self.case);
        put(&mut case, path, value);
        self.case = case;
    }

    /// A bound of a month draw: a month, or the month of a date.
    fn month_bound(&mut self, m: &Moment) -> Drawing<Month> {
        match m {
            Moment::Month(m) => Ok(*m),
            Moment::Date(d) => Ok(month_of_date(*d)),
            Moment::Expr(f) => match self.eval(f)? {
                Value::Month(m) => Ok(m),
                Value::Date(d) => Ok(month_of_date(d)),
                other => Err(Redraw(format!(
                    "`{}` is {}, not a month",
                    f.text,
                    other.kind_name()
                ))),
            },
        }
    }

    /// A bound of a date draw; a month stands for its first day (`high`:
    /// its last day).
    fn date_bound(&mut self, m: &Moment, high: bool) -> Drawing<chrono::NaiveDate> {
        let of_month = |m: Month| -> Drawing<chrono::NaiveDate> {
            let first = chrono::NaiveDate::from_ymd_opt(m.year, m.month, 1)
                .ok_or_else(|| Redraw(format!("no first day of {m}")))?;
            if !high {
                return Ok(first);
            }
            let next = m
                .plus_months(1)
                .and_then(|n| chrono::NaiveDate::from_ymd_opt(n.year, n.month, 1))
                .ok_or_else(|| Redraw(format!("no last day of {m}")))?;
            Ok(next - chrono::Duration::days(1))
        };
        match m {
            Moment::Date(d) => Ok(*d),
            Moment::Month(m) => of_month(*m),
            Moment::Expr(f) => match self.eval(f)? {
                Value::Date(d) => Ok(d),
                Value::Month(m) => of_month(m),
                other => Err(Redraw(format!(
                    "`{}` is {}, not a date",
                    f.text,
                    other.kind_name()
                ))),
            },
        }
    }
}

/// Decimals `lo + k × step` for `k` in `0..=last`, on the step's own grid.
struct Grid {
    first: Decimal,
    step: Decimal,
    last: u64,
}

impl Grid {
    /// The grid of `step` from `lo` to `hi`; bounds may come from a
    /// generator's expressions, so every operation is checked and a grid
    /// the decimal range cannot hold is a redraw, never an overflow.
    fn new(lo: Decimal, hi: Decimal, step: Decimal) -> Drawing<Grid> {
        let empty = || Redraw(format!("empty range {lo}..{hi}"));
        let wide = || {
            Redraw(format!(
                "the range {lo}..{hi} by {step} leaves the decimal range"
            ))
        };
        if step <= Decimal::ZERO {
            return Err(empty());
        }
        let on_grid = |d: Decimal, up: bool| {
            d.checked_div(step)
                .map(|q| if up { q.ceil() } else { q.floor() })
                .and_then(|q| q.checked_mul(step))
        };
        let first = on_grid(lo, true).ok_or_else(wide)?;
        let top = on_grid(hi, false).ok_or_else(wide)?;
        if top < first {
            return Err(empty());
        }
        let last = top
            .checked_sub(first)
            .and_then(|w| w.checked_div(step))
            .ok_or_else(wide)?
            .trunc();
        let last = u64::try_from(last.mantissa())
            .ok()
            .filter(|_| last.scale() == 0)
            .ok_or_else(empty)?;
        Ok(Grid { first, step, last })
    }

    fn at(&self, k: u64) -> Drawing<Decimal> {
        let mut d = Decimal::from(k)
            .checked_mul(self.step)
            .and_then(|offset| self.first.checked_add(offset))
            .ok_or_else(|| {
                Redraw(format!(
                    "{} + {k} × {} leaves the decimal range",
                    self.first, self.step
                ))
            })?;
        d.rescale(self.step.scale());
        Ok(d)
    }
}

fn month_of_date(d: chrono::NaiveDate) -> Month {
    use chrono::Datelike;
    Month {
        year: d.year(),
        month: d.month(),
    }
}

fn months_between(a: Month, b: Month) -> i64 {
    let (ay, am) = (i64::from(a.year), i64::from(a.month));
    let (by, bm) = (i64::from(b.year), i64::from(b.month));
    (by * 12 + bm - ay * 12 - am).max(0)
}

/// `P{n}` with the number in place.
fn numbered(template: &str, n: usize) -> String {
    template.replace("{n}", &n.to_string())
}

/// A decimal as the case writes it: a string, or a JSON number.
pub(crate) fn decimal_json(d: Decimal, number: bool) -> Json {
    let text = decimal_text(&d);
    if number {
        if let Ok(n) = serde_json::from_str::<serde_json::Number>(&text) {
            return Json::Number(n);
        }
    }
    Json::String(text)
}

/// A computed value as the case writes it.
pub(crate) fn value_json(v: &Value, number: bool) -> Json {
    match v {
        Value::Number(d) => decimal_json(*d, number),
        Value::Absent | Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Text(t) => Json::String(t.to_string()),
        other => serde_json::to_value(other).unwrap_or(Json::Null),
    }
}

/// Sets (or with `None` removes) the value at a dotted path, making objects on the way.
pub(crate) fn put(map: &mut Map<String, Json>, path: &[String], value: Option<Json>) {
    let Some((last, init)) = path.split_last() else {
        return;
    };
    let mut at = map;
    for seg in init {
        let entry = at
            .entry(seg.clone())
            .or_insert_with(|| Json::Object(Map::new()));
        if !entry.is_object() {
            *entry = Json::Object(Map::new());
        }
        let Json::Object(next) = entry else {
            return;
        };
        at = next;
    }
    match value {
        Some(v) => {
            at.insert(last.clone(), v);
        }
        None => {
            at.shift_remove(last);
        }
    }
}

/// The value at a dotted path.
pub(crate) fn get<'j>(map: &'j Map<String, Json>, path: &[String]) -> Option<&'j Json> {
    let (first, rest) = path.split_first()?;
    let mut at = map.get(first)?;
    for seg in rest {
        at = at.as_object()?.get(seg)?;
    }
    Some(at)
}
