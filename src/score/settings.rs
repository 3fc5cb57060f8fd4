//! A checked rubric as flat settings (`score.wrong = -0.5`,
//! `decisions.calculate.fields.net_pay.format = money`), so two versions are
//! compared by meaning: layout, comments and key order of the files are no
//! change, and every difference names the setting that moved.

use rust_decimal::Decimal;
use std::sync::Arc;

use super::model::{FieldKind, FieldPath, Rubric};
use crate::reply::Closing;

/// One setting: its dotted key and its value as text.
pub type Setting = (String, String);

/// One setting that differs between two rubrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingChange {
    /// Its dotted key.
    pub key: String,
    /// The old value; `None` when the setting is new.
    pub old: Option<String>,
    /// The new value; `None` when the setting is gone.
    pub new: Option<String>,
}

/// Every setting of a rubric that bears on a score, in a fixed order.
pub fn settings(r: &Rubric) -> Vec<Setting> {
    let mut s = Settings(Vec::new());
    s.put("rubric.rulebook", r.rulebook());
    if let Some(max) = r.envelope.max_chars {
        s.put("reply.max_chars", max);
    }
    if let Some(tag) = &r.envelope.tag {
        s.put("reply.tag.name", &tag.name);
        s.put("reply.tag.case_insensitive", tag.case_insensitive);
        let closing = match tag.closing {
            Closing::ExactlyOne => "exactly_one",
            Closing::FirstAfter => "first_after",
        };
        s.put("reply.tag.closing", closing);
    }
    s.put("reply.fences", r.envelope.fences);
    if let Some(key) = &r.decision_key {
        s.put("reply.decision_key", key);
    }
    for (key, kind) in &r.optional {
        s.put(
            &format!("reply.optional.{key}"),
            format!("{kind:?}").to_lowercase(),
        );
    }
    let a = &r.amounts;
    s.put("amounts.places", a.places);
    if let Some(max) = &a.max_abs {
        s.put("amounts.max_abs", max);
    }
    if let Some(d) = a.max_integer_digits {
        s.put("amounts.max_integer_digits", d);
    }
    s.put("amounts.max_exponent_digits", a.max_exponent_digits);
    s.put("amounts.strings", a.strings);
    s.put("amounts.padding", a.padding);
    let sc = &r.score;
    s.dec("score.malformed", sc.malformed);
    s.dec("score.wrong_decision", sc.wrong_decision);
    s.dec("score.wrong", sc.wrong);
    s.dec("score.exact", sc.exact);
    if let Some(c) = sc.citations {
        s.dec("score.citations", c);
    }
    s.put("score.all_or_nothing", sc.all_or_nothing);
    if let Some(e) = &sc.explanation {
        s.dec("score.explanation.weight", e.weight);
        s.put("score.explanation.decisions", e.decisions.join(", "));
        s.put("score.explanation.clauses", list(&e.clauses));
    }
    for d in &r.decisions {
        let at = format!("decisions.{}", d.name);
        s.put(&format!("{at}.format_clauses"), list(&d.format_clauses));
        for f in &d.fields {
            field(
                &mut s,
                &format!("{at}.fields.{}", f.key),
                &f.kind,
                &f.clauses,
            );
        }
        if let Some(p) = &d.partial {
            let at = format!("{at}.partial");
            let paths = |ps: &[FieldPath]| {
                ps.iter()
                    .map(|p| p.text.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if !p.gates.is_empty() {
                s.put(&format!("{at}.gates"), paths(&p.gates));
            }
            s.dec(&format!("{at}.otherwise"), p.otherwise);
            s.put(
                &format!("{at}.zero_if_expected_zero"),
                p.zero_if_expected_zero,
            );
            s.put(
                &format!("{at}.nonzero_expected_only"),
                p.nonzero_expected_only,
            );
            s.dec(&format!("{at}.base"), p.base);
            s.dec(&format!("{at}.scale"), p.scale);
            if let Some(cap) = p.cap {
                s.dec(&format!("{at}.cap"), cap);
            }
            for (path, w) in &p.weights {
                s.dec(&format!("{at}.weights.{}", path.text), *w);
            }
            for (path, needs) in &p.requires {
                s.put(&format!("{at}.requires.{}", path.text), paths(needs));
            }
        }
    }
    s.0
}

/// The settings that differ: changed ones where the old rubric has them,
/// then new ones, each group in its rubric's order.
pub fn setting_changes(old: &[Setting], new: &[Setting]) -> Vec<SettingChange> {
    let find =
        |list: &[Setting], key: &str| list.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let mut out = Vec::new();
    for (key, value) in old {
        let now = find(new, key);
        if now.as_ref() != Some(value) {
            out.push(SettingChange {
                key: key.clone(),
                old: Some(value.clone()),
                new: now,
            });
        }
    }
    for (key, value) in new {
        if find(old, key).is_none() {
            out.push(SettingChange {
                key: key.clone(),
                old: None,
                new: Some(value.clone()),
            });
        }
    }
    out
}

fn field(s: &mut Settings, at: &str, kind: &FieldKind, clauses: &[Arc<str>]) {
    match kind {
        FieldKind::Value(format) => s.put(&format!("{at}.format"), format.name()),
        FieldKind::List(items) | FieldKind::Keyed(items) => {
            let shape = if matches!(kind, FieldKind::List(_)) {
                "list"
            } else {
                "keyed"
            };
            s.put(&format!("{at}.kind"), shape);
            for f in items {
                field(s, &format!("{at}.each.{}", f.key), &f.kind, &f.clauses);
            }
        }
    }
    if !clauses.is_empty() {
        s.put(&format!("{at}.clauses"), list(clauses));
    }
}

fn list(items: &[Arc<str>]) -> String {
    items.iter().map(|c| &**c).collect::<Vec<_>>().join(", ")
}

struct Settings(Vec<Setting>);

impl Settings {
    fn put(&mut self, key: &str, value: impl ToString) {
        self.0.push((key.to_string(), value.to_string()));
    }

    fn dec(&mut self, key: &str, d: Decimal) {
        self.put(key, d.normalize());
    }
}
