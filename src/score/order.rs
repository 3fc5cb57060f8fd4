//! The order of a rubric's scores: every score a reply can get lies between
//! the floor (`malformed`) and the most (`exact` + `citations`). A rubric
//! whose numbers say otherwise grades a malformed reply above an exact one,
//! or partial credit below the floor, and every mean and baseline with it.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use toml::Spanned;

use super::model::{DecisionRubric, ScoreRules};
use super::raw::{RawDecision, RawPartial, RawScore};
use crate::span::Span;

/// Each score out of order, as the span of the key that puts it there and
/// the message saying why (`score::order`).
pub(super) fn out_of_order(
    raw: &RawScore,
    raw_decisions: &IndexMap<Spanned<String>, RawDecision>,
    rules: &ScoreRules,
    decisions: &[DecisionRubric],
) -> Vec<(Span, String)> {
    let mut out = Vec::new();
    let floor = rules.malformed;
    let most = rules.exact + rules.citations.unwrap_or_default();
    for (name, value, at) in [
        ("wrong_decision", rules.wrong_decision, &raw.wrong_decision),
        ("wrong", rules.wrong, &raw.wrong),
        ("exact", rules.exact, &raw.exact),
    ] {
        if value < floor {
            let message = format!("`{name}` = {value} is below the floor, `malformed` = {floor}: a malformed reply scores the least");
            out.push((span_of(at), message));
        }
        if name != "exact" && value > rules.exact {
            let message = format!(
                "`{name}` = {value} is above `exact` = {}: an exact answer scores the most",
                rules.exact
            );
            out.push((span_of(at), message));
        }
    }
    if let (Some(c), Some(at)) = (rules.citations, &raw.citations) {
        if c < Decimal::ZERO {
            let message = format!("`citations` = {c} is negative: it adds to `exact`");
            out.push((span_of(at), message));
        }
    }
    for d in decisions {
        let Some(p) = &d.partial else {
            continue;
        };
        // Where a problem points when the key it names is not written: the
        // decision's name (`exact` for one the rubric does not list).
        let (key, raw_partial) = match raw_decisions.get_key_value(d.name.as_str()) {
            Some((key, rd)) => (span_of(key), rd.partial.as_ref()),
            None => (span_of(&raw.exact), None),
        };
        // Of the written keys that pass the bound, the one furthest past it
        // (the least below the floor, the most above the top); ties go to
        // the first listed.
        let at = |keys: &[(Key, Decimal)], below: bool| {
            let mut best: Option<(Decimal, &Spanned<String>)> = None;
            for (which, value) in keys {
                let Some(written) = raw_partial.and_then(|r| which.of(r)) else {
                    continue;
                };
                let further = best.is_none_or(|(b, _)| if below { *value < b } else { *value > b });
                if further {
                    best = Some((*value, written));
                }
            }
            best.map_or(key, |(_, written)| span_of(written))
        };
        // Partial credit is `base + scale × share`, share from 0 to 1,
        // at most `cap`; `otherwise` when a gate fails.
        let low = p.base.min(p.base + p.scale);
        let high = p.base.max(p.base + p.scale);
        let top = p.cap.map_or(high, |c| c.min(high));
        let bottom = p.cap.map_or(low, |c| c.min(low));
        if bottom.min(p.otherwise) < floor {
            let keys: Vec<(Key, Decimal)> = [
                Some((Key::Otherwise, p.otherwise)),
                Some((Key::Scale, p.base + p.scale)),
                Some((Key::Base, p.base)),
                p.cap.map(|c| (Key::Cap, c)),
            ]
            .into_iter()
            .flatten()
            .filter(|(_, value)| *value < floor)
            .collect();
            let message = format!(
                "the partial credit of `{}` can score {}, below the floor, `malformed` = {floor}",
                d.name,
                bottom.min(p.otherwise)
            );
            out.push((at(&keys, true), message));
        }
        // A failed gate (or an amount expected zero and answered) pays
        // `otherwise`: no more than the least a reply whose gates hold
        // can be paid, or failing one would be worth it.
        if (!p.gates.is_empty() || p.zero_if_expected_zero) && p.otherwise > bottom {
            let message = format!(
                "the partial credit of `{}` pays {} (`otherwise`) when a gate fails, more than the {bottom} it can pay when they hold",
                d.name, p.otherwise
            );
            out.push((at(&[(Key::Otherwise, p.otherwise)], false), message));
        }
        if top > most || p.otherwise > most {
            // A cap above what `base` and `scale` reach does not bound.
            let keys: Vec<(Key, Decimal)> = [
                Some((Key::Otherwise, p.otherwise)),
                Some((Key::Scale, p.base + p.scale)),
                Some((Key::Base, p.base)),
                p.cap.filter(|c| *c <= high).map(|c| (Key::Cap, c)),
            ]
            .into_iter()
            .flatten()
            .filter(|(_, value)| *value > most)
            .collect();
            let message = format!(
                "the partial credit of `{}` can score {}, above the most a reply scores, {most}",
                d.name,
                top.max(p.otherwise)
            );
            out.push((at(&keys, false), message));
        }
    }
    out
}

/// A key of `[decisions.NAME.partial]` that bounds what it pays.
#[derive(Clone, Copy)]
enum Key {
    Base,
    Scale,
    Cap,
    Otherwise,
}

impl Key {
    fn of(self, raw: &RawPartial) -> Option<&Spanned<String>> {
        match self {
            Key::Base => raw.base.as_ref(),
            Key::Scale => raw.scale.as_ref(),
            Key::Cap => raw.cap.as_ref(),
            Key::Otherwise => raw.otherwise.as_ref(),
        }
    }
}

fn span_of<T>(s: &Spanned<T>) -> Span {
    Span::from(s.span())
}
