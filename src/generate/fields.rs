//! Checking the fields a profile draws against the rulebook's inputs: the
//! path of each (inputs, record fields, table rows and columns), and whether
//! the way it is drawn fits what is there (type, places, bounds).

use super::load::{span_of, Checker, Slot};
use super::model::*;
use super::raw::*;
use crate::case::toml::json_from_toml;
use crate::case::validate_value;
use crate::model::{Input, InputKind, NumberSpec, Type};
use crate::span::Span;
use rust_decimal::Decimal;
use toml::Spanned;

/// Most items a generator may draw into one list or object whose input sets
/// no bound: a generator file is untrusted input too.
const MAX_DRAWN_ITEMS: usize = 10_000;

impl<'a> Checker<'a> {
    /// A `value` of a profile that wants an answer, validated as the case
    /// would validate it (a plain input's type, range, length or values):
    /// one it refuses would send every draw to a redraw, and the run would
    /// fail only after all of them as "decision rejected".
    fn refused_value(
        &mut self,
        path: &str,
        input: Option<&Input>,
        j: &serde_json::Value,
        span: Span,
    ) {
        let plain = |k: &InputKind| {
            !matches!(
                k,
                InputKind::Record { .. } | InputKind::List { .. } | InputKind::Map { .. }
            )
        };
        let Some(input) = input.filter(|i| plain(&i.kind)) else {
            return;
        };
        if let Err(e) = validate_value(input, Some(j), path, None) {
            let message = format!(
                "`{path}` is drawn as {j}, which {} refuses ({}): this profile wants an answer, and no case of it could have one",
                self.side(),
                e.message
            );
            self.problem("generate::value", span, message);
        }
    }

    /// A list or object drawn with at most as many items as its input holds.
    fn at_most(&mut self, path: &str, drawn: u32, cap: usize, span: Span) -> Option<()> {
        let cap = cap.min(MAX_DRAWN_ITEMS);
        if usize::try_from(drawn).map_or(true, |n| n > cap) {
            let message = format!(
                "`{path}` is drawn with up to {drawn} items, but in {} it holds at most {cap}",
                self.side()
            );
            self.problem("generate::items", span, message);
            return None;
        }
        Some(())
    }

    /// The slot a path leads to from `from` (the case when `None`).
    fn slot(&self, path: &[&str], from: Option<Slot<'a>>) -> Result<Slot<'a>, String> {
        let mut at = from;
        for seg in path {
            at = Some(match at {
                None => Slot::Input(
                    self.rb
                        .inputs
                        .iter()
                        .find(|i| &*i.name == *seg)
                        .ok_or_else(|| format!("{} has no input `{seg}`", self.side()))?,
                ),
                Some(Slot::Input(input)) => match &input.kind {
                    InputKind::Record {
                        pattern: Some(_), ..
                    } => {
                        return Err(format!(
                        "input `{}` of {} is a text read through its pattern: draw the text whole",
                        input.name,
                        self.side()
                    ))
                    }
                    InputKind::Record { fields, .. } => {
                        Slot::Input(fields.iter().find(|f| &*f.name == *seg).ok_or_else(|| {
                            format!(
                                "input `{}` of {} has no field `{seg}`",
                                input.name,
                                self.side()
                            )
                        })?)
                    }
                    InputKind::Map { item, .. } => Slot::Input(item),
                    InputKind::Table { table } => Slot::Row(*table),
                    InputKind::List { .. } => {
                        return Err(format!(
                        "`{}` is a list in {}: draw it whole with `list` and its items with `item`",
                        input.name,
                        self.side()
                    ))
                    }
                    _ => {
                        return Err(format!(
                            "input `{}` of {} has no fields",
                            input.name,
                            self.side()
                        ))
                    }
                },
                Some(Slot::Row(t)) => {
                    let table = &self.rb.tables[t.index()];
                    Slot::Input(table.columns.iter().find(|c| &*c.name == *seg).ok_or_else(
                        || {
                            format!(
                                "table `{}` of {} has no column `{seg}`",
                                table.name,
                                self.side()
                            )
                        },
                    )?)
                }
            });
        }
        at.ok_or_else(|| "an empty path".to_string())
    }

    /// `answered`: the profile is drawn and wants an answer, so a `value`
    /// its input refuses would be in none of its tasks, and is refused
    /// where it is written.
    pub(super) fn field(
        &mut self,
        path: &Spanned<String>,
        raw: &RawField,
        from: Option<Slot<'a>>,
        answered: bool,
    ) -> Option<FieldDraw> {
        let span = Span::from(raw.span().unwrap_or_else(|| path.span()));
        let path = path.get_ref().as_str();
        let segments: Vec<&str> = path.split('.').collect();
        let slot = match self.slot(&segments, from) {
            Ok(s) => s,
            Err(message) => {
                self.problem(
                    "generate::unknown_field",
                    span,
                    format!("`{path}`: {message}"),
                );
                return None;
            }
        };
        let draw = self.draw(path, raw, slot, span, answered)?;
        // Only a drawn or computed number can be written as a JSON number;
        // anywhere else the switch would be ignored.
        if raw.number == Some(true)
            && !matches!(draw, Draw::Decimal { .. } | Draw::Expr(_) | Draw::Target(_))
        {
            let message = format!(
                "`{path}`: `number` writes a drawn number as a JSON number: it applies to `decimal`, `expr` and `target` draws only (write a `value` as the JSON it is)"
            );
            self.problem("generate::number", span, message);
            return None;
        }
        let chance = raw.chance.as_ref().and_then(|c| self.chance(c));
        let placeholder = match &raw.placeholder {
            None => None,
            Some(_) if from.is_some() => {
                let message = format!(
                    "`{path}`: only a field of the case itself (not of an item or record) holds a placeholder"
                );
                self.problem("generate::placeholder", span, message);
                None
            }
            Some(v) => match json_from_toml(v) {
                Ok(j) => Some(j),
                Err(e) => {
                    self.problem("generate::placeholder", span, e);
                    None
                }
            },
        };
        Some(FieldDraw {
            path: segments.iter().map(|s| s.to_string()).collect(),
            draw,
            chance,
            number: raw.number.unwrap_or(false),
            placeholder,
        })
    }

    fn draw(
        &mut self,
        path: &str,
        raw: &RawField,
        slot: Slot<'a>,
        span: Span,
        answered: bool,
    ) -> Option<Draw> {
        let ways = [
            ("value", raw.value.is_some()),
            ("null", raw.null.is_some()),
            ("absent", raw.absent.is_some()),
            ("decimal", raw.decimal.is_some()),
            ("integer", raw.integer.is_some()),
            ("choice", raw.choice.is_some()),
            ("month", raw.month.is_some()),
            ("date", raw.date.is_some()),
            ("expr", raw.expr.is_some()),
            ("target", raw.target.is_some()),
            ("list", raw.list.is_some()),
            ("parts", raw.parts.is_some()),
            ("object", raw.object.is_some()),
            ("text", raw.text.is_some()),
            ("key_of", raw.key_of.is_some()),
            ("fields", raw.fields.is_some()),
        ];
        let mut given = ways.iter().filter(|(_, w)| *w).map(|(name, _)| *name);
        let (Some(way), None) = (given.next(), given.next()) else {
            let message = format!("`{path}`: give exactly one way to draw it (value, null, absent, decimal, integer, choice, month, date, expr, target, list, parts, object, fields, text, key_of)");
            self.problem("generate::draw", span, message);
            return None;
        };
        // A key that serves other ways of drawing would be read by none:
        // `step` beside an `integer` left the integers on a grid of one.
        let companions = [
            ("step", raw.step.is_some(), &["decimal", "target"][..]),
            ("weights", raw.weights.is_some(), &["choice"]),
            ("on", raw.on.is_some(), &["target"]),
            ("below", raw.below.is_some(), &["target"]),
            ("above", raw.above.is_some(), &["target"]),
            ("within", raw.within.is_some(), &["target"]),
            ("item", raw.item.is_some(), &["list", "object"]),
            ("key", raw.key.is_some(), &["object"]),
        ];
        if let Some((key, _, serves)) = companions
            .iter()
            .find(|(_, given, serves)| *given && !serves.contains(&way))
        {
            let message = format!(
                "`{path}`: `{key}` does not apply to `{way}`, only to {}",
                serves
                    .iter()
                    .map(|w| format!("`{w}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            );
            self.problem("generate::draw", span, message);
            return None;
        }
        let input = match slot {
            Slot::Input(i) => Some(i),
            Slot::Row(_) => None,
        };
        let kind = input.map(|i| &i.kind);
        let mismatch = |cx: &mut Self, what: &str| {
            let theirs = input.map_or("a table row".to_string(), |i| describe_kind(&i.kind));
            let message = format!(
                "`{path}` is drawn as {what}, but in {} it is {theirs}",
                cx.side()
            );
            cx.problem("generate::type", span, message);
        };
        let step = || raw.step.as_ref();
        // A text read through a pattern: each text drawn as written must match it.
        let pattern = match kind {
            Some(InputKind::Record {
                pattern: Some(p), ..
            }) => Some(p),
            _ => None,
        };
        let unmatched = |cx: &mut Self, value: &serde_json::Value| {
            let (Some(p), Some(text)) = (pattern, value.as_str()) else {
                return;
            };
            if !p.regex.is_match(text) {
                let message = format!(
                    "`{path}` is drawn as `{text}`, which does not match its pattern `{}` in {}",
                    p.text,
                    cx.side()
                );
                cx.problem("generate::pattern", span, message);
            }
        };
        if let Some(v) = &raw.value {
            return match json_from_toml(v) {
                Ok(j) => {
                    unmatched(self, &j);
                    if answered {
                        self.refused_value(path, input, &j, span);
                    }
                    Some(Draw::Value(j))
                }
                Err(e) => {
                    self.problem("generate::value", span, e);
                    None
                }
            };
        }
        if raw.null.is_some() {
            return Some(Draw::Value(serde_json::Value::Null));
        }
        if raw.absent.is_some() {
            return Some(Draw::Absent);
        }
        if let Some([lo, hi]) = &raw.decimal {
            let grid = match step() {
                Some(s) => self.grid(s)?,
                None => Decimal::new(1, 2),
            };
            self.numeric(path, kind, grid, span, &mismatch)?;
            let (lo, hi) = match (self.bound(lo)?, self.bound(hi)?) {
                // Two literals in either order are one range, as integers are.
                (Bound::Const(a), Bound::Const(b)) if b < a => (Bound::Const(b), Bound::Const(a)),
                bounds => bounds,
            };
            self.within_bounds(path, kind, &lo, &hi, span);
            return Some(Draw::Decimal { lo, hi, step: grid });
        }
        if let Some([lo, hi]) = raw.integer {
            if !matches!(
                kind,
                Some(
                    InputKind::Integer { .. }
                        | InputKind::Decimal(_)
                        | InputKind::Money(_)
                        | InputKind::Fraction { .. }
                )
            ) {
                mismatch(self, "an integer");
                return None;
            }
            return Some(Draw::Integer(lo.min(hi), lo.max(hi)));
        }
        if let Some(values) = &raw.choice {
            let values: Vec<serde_json::Value> = values
                .iter()
                .filter_map(|v| json_from_toml(v).ok())
                .collect();
            for v in &values {
                unmatched(self, v);
            }
            if let Some(InputKind::Enum { values: allowed }) = kind {
                for v in &values {
                    if let Some(s) = v.as_str() {
                        if !allowed.iter().any(|a| &**a == s) {
                            mismatch(self, &format!("a choice including `{s}`"));
                        }
                    }
                }
            }
            let weights = raw.weights.clone().unwrap_or_else(|| vec![1; values.len()]);
            if weights.len() != values.len() || values.is_empty() || weights.iter().all(|w| *w == 0)
            {
                let message =
                    format!("`{path}`: a choice needs values and as many weights, not all zero");
                self.problem("generate::choice", span, message);
                return None;
            }
            return Some(Draw::Choice { values, weights });
        }
        if let Some([a, b]) = &raw.month {
            if !matches!(kind, Some(InputKind::Month { .. })) {
                mismatch(self, "a month");
                return None;
            }
            let (x, y) = (self.moment(a, false)?, self.moment(b, false)?);
            return Some(match (x, y) {
                (Moment::Month(x), Moment::Month(y)) => {
                    Draw::Month(Moment::Month(x.min(y)), Moment::Month(x.max(y)))
                }
                (x, y) => Draw::Month(x, y),
            });
        }
        if let Some([a, b]) = &raw.date {
            if !matches!(kind, Some(InputKind::Date { .. })) {
                mismatch(self, "a date");
                return None;
            }
            let (x, y) = (self.moment(a, true)?, self.moment(b, true)?);
            return Some(match (x, y) {
                (Moment::Date(x), Moment::Date(y)) => {
                    Draw::Date(Moment::Date(x.min(y)), Moment::Date(x.max(y)))
                }
                (x, y) => Draw::Date(x, y),
            });
        }
        if let Some(e) = &raw.expr {
            // A text read through a pattern is checked against it at load,
            // which an expression's text, known only when drawn, cannot be.
            if let Some(p) = pattern {
                let message = format!(
                    "`{path}` is a text read through its pattern `{}` in {}: draw it with `value`, `choice` or `text`, whose texts are checked against the pattern when the generator loads, not with `expr`",
                    p.text,
                    self.side()
                );
                self.problem("generate::pattern", span_of(e), message);
                return None;
            }
            let want = input.map(|i| i.kind.value_type());
            let f = self.formula(e, want)?;
            return Some(Draw::Expr(f));
        }
        if let Some(target) = &raw.target {
            let grid = match step() {
                Some(s) => self.grid(s)?,
                None => Decimal::new(1, 2),
            };
            self.numeric(path, kind, grid, span, &mismatch)?;
            let is_step = self.rb.steps.iter().any(|s| &*s.name == target.get_ref());
            if !is_step {
                let message = format!(
                    "{} has no step `{}` to aim at",
                    self.side(),
                    target.get_ref()
                );
                self.problem("generate::unknown_step", span_of(target), message);
                return None;
            }
            let step_f = self.formula(target, Some(Type::Number))?;
            let (side, goal) = match (&raw.on, &raw.below, &raw.above) {
                (Some(g), None, None) => (Side::On, g),
                (None, Some(g), None) => (Side::Below, g),
                (None, None, Some(g)) => (Side::Above, g),
                _ => {
                    let message =
                        format!("`{path}`: a target lands `on`, `below` or `above` one value");
                    self.problem("generate::target", span, message);
                    return None;
                }
            };
            let goal = self.formula(goal, Some(Type::Number))?;
            let Some([lo, hi]) = &raw.within else {
                self.problem(
                    "generate::target",
                    span,
                    format!("`{path}`: a target needs `within = [lo, hi]`"),
                );
                return None;
            };
            let (lo, hi) = (self.bound(lo)?, self.bound(hi)?);
            return Some(Draw::Target(Box::new(Target {
                step: step_f,
                side,
                goal,
                lo,
                hi,
                step_size: grid,
            })));
        }
        if let Some([min, max]) = raw.list {
            let Some(crate::model::InputKind::List {
                item, max_items, ..
            }) = kind
            else {
                mismatch(self, "a list");
                return None;
            };
            self.at_most(path, min.max(max), *max_items, span)?;
            let fields = self.items(path, raw, Slot::Input(item), span, answered)?;
            return Some(Draw::List {
                min: min.min(max),
                max: min.max(max),
                item: fields,
            });
        }
        if let Some(parts) = &raw.parts {
            if !matches!(kind, Some(InputKind::List { .. })) {
                mismatch(self, "a list of parts");
                return None;
            }
            // The parts together are one list: what they draw at most, in
            // all, is bounded as a single `list` is. Without it, a part
            // repeated thousands of times drew a case of tens of thousands
            // of items at every redraw of every task (issue 24).
            let most = parts
                .iter()
                .filter_map(|p| p.list.map(|[min, max]| min.max(max)))
                .fold(0u32, u32::saturating_add);
            if let Some(InputKind::List { max_items, .. }) = kind {
                let cap = (*max_items).min(MAX_DRAWN_ITEMS);
                if usize::try_from(most).map_or(true, |n| n > cap) {
                    let message = format!(
                        "`{path}` is drawn in {} parts of up to {most} items in all, but in {} it holds at most {cap}",
                        parts.len(),
                        self.side()
                    );
                    self.problem("generate::items", span, message);
                    return None;
                }
            }
            let mut drawn = Vec::new();
            for part in parts {
                if part.list.is_none() || part.number.is_some() || part.placeholder.is_some() {
                    let message = format!(
                        "`{path}`: each part is a `list = [min, max]` with its `item` (and a `chance`)"
                    );
                    self.problem("generate::parts", span, message);
                    return None;
                }
                let draw = self.draw(path, part, slot, span, answered)?;
                let chance = part.chance.as_ref().and_then(|c| self.chance(c));
                drawn.push(FieldDraw {
                    path: Vec::new(),
                    draw,
                    chance,
                    number: false,
                    placeholder: None,
                });
            }
            return Some(Draw::Parts(drawn));
        }
        if let Some([min, max]) = raw.object {
            let inner = match kind {
                Some(InputKind::Map {
                    item, max_items, ..
                }) => {
                    self.at_most(path, min.max(max), *max_items, span)?;
                    Slot::Input(item)
                }
                Some(InputKind::Table { table }) => {
                    self.at_most(path, min.max(max), MAX_DRAWN_ITEMS, span)?;
                    Slot::Row(*table)
                }
                _ => {
                    mismatch(self, "an object");
                    return None;
                }
            };
            let Some(key) = raw.key.clone() else {
                self.problem(
                    "generate::object",
                    span,
                    format!("`{path}`: an object needs `key = \"P{{n}}\"`"),
                );
                return None;
            };
            // Without `{n}` every entry has one key, and the last drawn
            // is the only one kept.
            if min.max(max) > 1 && !key.contains("{n}") {
                self.problem(
                    "generate::object",
                    span,
                    format!(
                        "`{path}`: the key `{key}` has no `{{n}}`, so its {} entries would share one key",
                        min.max(max)
                    ),
                );
                return None;
            }
            let fields = self.items(path, raw, inner, span, answered)?;
            return Some(Draw::Object {
                min: min.min(max),
                max: min.max(max),
                key,
                item: fields,
            });
        }
        if let Some(fields) = &raw.fields {
            if pattern.is_some() {
                mismatch(self, "a record of fields");
                return None;
            }
            let drawn = fields
                .iter()
                .filter_map(|(p, f)| self.field(p, f, Some(slot), answered))
                .collect();
            return Some(Draw::Record(drawn));
        }
        if let Some(t) = &raw.text {
            if pattern.is_none()
                && !matches!(kind, Some(InputKind::Text { .. } | InputKind::Enum { .. }))
            {
                mismatch(self, "a text");
                return None;
            }
            unmatched(self, &serde_json::Value::String(t.replace("{n}", "1")));
            return Some(Draw::Text(t.clone()));
        }
        if let Some(of) = &raw.key_of {
            let segments: Vec<&str> = of.get_ref().split('.').collect();
            match self.slot(&segments, None) {
                Ok(Slot::Input(i))
                    if matches!(i.kind, InputKind::Map { .. } | InputKind::Table { .. }) => {}
                Ok(_) => {
                    let message = format!(
                        "`{}` is not an object of ids in {}",
                        of.get_ref(),
                        self.side()
                    );
                    self.problem("generate::key_of", span_of(of), message);
                }
                Err(message) => self.problem("generate::key_of", span_of(of), message),
            }
            return Some(Draw::KeyOf(
                segments.iter().map(|s| s.to_string()).collect(),
            ));
        }
        None
    }

    fn items(
        &mut self,
        path: &str,
        raw: &RawField,
        inner: Slot<'a>,
        span: Span,
        answered: bool,
    ) -> Option<Vec<FieldDraw>> {
        let Some(item) = &raw.item else {
            self.problem(
                "generate::item",
                span,
                format!("`{path}`: say how each item is drawn with `item = {{ … }}`"),
            );
            return None;
        };
        Some(
            item.iter()
                .filter_map(|(p, f)| self.field(p, f, Some(inner), answered))
                .collect(),
        )
    }

    /// A decimal draw fits a numeric input with at least the grid's places.
    fn numeric(
        &mut self,
        path: &str,
        kind: Option<&InputKind>,
        grid: Decimal,
        span: Span,
        mismatch: &dyn Fn(&mut Self, &str),
    ) -> Option<()> {
        let places = grid.normalize().scale();
        let spec: Option<&NumberSpec> = match kind {
            Some(InputKind::Money(s) | InputKind::Decimal(s)) => Some(s),
            Some(InputKind::Integer { .. }) if places == 0 => None,
            Some(InputKind::Fraction { .. } | InputKind::Text { .. }) => None,
            _ => {
                mismatch(self, &format!("a decimal on a grid of {grid}"));
                return None;
            }
        };
        if let Some(max) = spec.and_then(|s| s.places) {
            if places > max {
                let message = format!(
                    "`{path}` is drawn on a grid of {grid} ({places} places), but in {} it takes at most {max} places",
                    self.side()
                );
                self.problem("generate::places", span, message);
                return None;
            }
        }
        Some(())
    }

    fn within_bounds(
        &mut self,
        path: &str,
        kind: Option<&InputKind>,
        lo: &Bound,
        hi: &Bound,
        span: Span,
    ) {
        let Some(InputKind::Money(s) | InputKind::Decimal(s)) = kind else {
            return;
        };
        if let (Bound::Const(lo), Some(min)) = (lo, s.min) {
            if *lo < min {
                let message = format!(
                    "`{path}` is drawn from {lo}, below its minimum {min} in {}",
                    self.side()
                );
                self.problem("generate::bounds", span, message);
            }
        }
        if let (Bound::Const(hi), Some(max)) = (hi, s.max) {
            if *hi > max {
                let message = format!(
                    "`{path}` is drawn up to {hi}, above its maximum {max} in {}",
                    self.side()
                );
                self.problem("generate::bounds", span, message);
            }
        }
    }
}

/// What an input is, as a message names it.
fn describe_kind(kind: &InputKind) -> String {
    match kind {
        InputKind::Money(s) => format!("money with at most {} places", s.places.unwrap_or(2)),
        InputKind::Decimal(_) => "a decimal".into(),
        InputKind::Integer { .. } => "an integer".into(),
        InputKind::Bool => "a boolean".into(),
        InputKind::Text { .. } => "a text".into(),
        InputKind::Enum { values } => format!("one of {}", values.join(", ")),
        InputKind::Date { .. } => "a date".into(),
        InputKind::Month { .. } => "a month".into(),
        InputKind::Record {
            pattern: Some(p), ..
        } => format!("a text matching `{}`", p.text),
        InputKind::Record { .. } => "a record".into(),
        InputKind::List { .. } => "a list".into(),
        InputKind::Map { .. } => "an object keyed by id".into(),
        InputKind::Fraction { .. } => "a fraction".into(),
        InputKind::Table { .. } => "a table's rows".into(),
    }
}
