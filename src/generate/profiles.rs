//! Checking a generator's profiles: each one's fields with those of the
//! profiles it is built on (`base`), bounded in what they inherit; the
//! decisions, reasons, ablations and answer fields they name; their
//! acceptance and tag conditions and their perturbations.

use std::collections::HashMap;
use std::sync::Arc;
use toml::Spanned;

use super::load::{span_of, Checker};
use super::model::*;
use super::raw::*;
use crate::model::{CheckOutcome, Type};
use crate::span::Span;

/// Most that profiles may inherit in all, each profile counting again what
/// its bases hold ([`profile_size`], one per link of a chain of bases too):
/// a profile is checked with its bases' fields, so a short file of
/// thousands of profiles on one large base would cost the product of the
/// two to load. The bundled generators inherit 600 to 3,200.
const MAX_INHERITED: usize = 20_000;

impl Checker<'_> {
    pub(super) fn profiles(
        &mut self,
        raw: &indexmap::IndexMap<String, RawProfile>,
    ) -> Vec<Profile> {
        let mut out = Vec::new();
        // What profiles inherit, counted over every profile: a base's part
        // is checked and copied again for each profile that inherits it.
        let mut inherited = 0usize;
        let mut sizes: HashMap<&str, usize> = HashMap::new();
        for (name, p) in raw {
            // A base's fields come first; this profile's replace them in place or follow.
            let mut chain = vec![p];
            let mut at = p;
            while let Some(base) = &at.base {
                match raw.get(base.get_ref()) {
                    Some(b) if chain.len() <= raw.len() => {
                        let size = *sizes
                            .entry(base.get_ref())
                            .or_insert_with(|| profile_size(b));
                        inherited = inherited.saturating_add(size.saturating_add(1));
                        if inherited > MAX_INHERITED {
                            let message = format!(
                                "profiles inherit more than {MAX_INHERITED} fields, \
                                 conditions and values in all (each profile counting \
                                 again what it inherits); profile `{name}` goes past it"
                            );
                            self.problem("generate::base", span_of(base), message);
                            return out;
                        }
                        chain.push(b);
                        at = b;
                    }
                    Some(_) => {
                        self.problem(
                            "generate::base",
                            span_of(base),
                            "profiles inherit in a circle".into(),
                        );
                        break;
                    }
                    None => {
                        let message = format!("no profile `{}` to start from", base.get_ref());
                        self.problem("generate::base", span_of(base), message);
                        break;
                    }
                }
            }
            chain.reverse();
            // By key: a base's field replaced in place in one look-up, not a
            // scan of the fields so far (quadratic in a profile's fields).
            // Keyed by text, the key written last kept with its field.
            let mut fields: indexmap::IndexMap<&str, (&Spanned<String>, &RawField)> =
                indexmap::IndexMap::new();
            let mut accept = Vec::new();
            let mut detect = Vec::new();
            let mut detect_each = Vec::new();
            let mut shown = Vec::new();
            let mut tags = Vec::new();
            let mut perturb = Vec::new();
            for link in &chain {
                for (path, f) in &link.case {
                    fields.insert(path.get_ref(), (path, f));
                }
                accept.extend(link.accept.iter());
                detect.extend(link.detect.iter());
                detect_each.extend(link.detect_each.iter());
                shown.extend(link.shown.iter());
                tags.extend(link.tags.iter());
                perturb.extend(link.perturb.iter());
            }
            let last = |get: fn(&RawProfile) -> Option<&Spanned<String>>| {
                chain.iter().rev().find_map(|l| get(l)).cloned()
            };
            let decision = last(|l| l.decision.as_ref());
            let reason = last(|l| l.reason.as_ref());
            let tier = last(|l| l.tier.as_ref());
            let level = chain.iter().rev().find_map(|l| l.level.clone());
            let weight = p.weight.as_ref().map_or(1, |w| *w.get_ref());
            if let Some(d) = &decision {
                if !self.rb.decisions.iter().any(|x| &*x.name == d.get_ref()) {
                    let message = format!("{} has no decision `{}`", self.side(), d.get_ref());
                    self.problem("generate::unknown_decision", span_of(d), message);
                }
            }
            if let Some(r) = &reason {
                let known = self.rb.checks.iter().any(|c| {
                    matches!(&c.outcome, CheckOutcome::Decide { reason: Some(x), .. } if **x == **r.get_ref())
                });
                if !known {
                    let message = format!(
                        "no check of {} gives the reason `{}`",
                        self.side(),
                        r.get_ref()
                    );
                    self.problem("generate::unknown_reason", span_of(r), message);
                }
            }
            for a in detect.iter().chain(&detect_each) {
                self.ablation(a);
            }
            for f in &shown {
                self.answer_field(f);
            }
            // A base (weight 0) is never drawn, and a profile of rejections
            // may draw what its inputs refuse.
            let answered =
                weight > 0 && decision.as_ref().is_none_or(|d| d.get_ref() != "rejected");
            let drawn = fields
                .values()
                .filter_map(|(path, f)| self.field(path, f, None, answered))
                .collect();
            let accept = accept
                .iter()
                .filter_map(|a| self.formula(a, Some(Type::Bool)))
                .collect();
            let tags = tags
                .iter()
                .map(|t| {
                    let when = t
                        .when
                        .as_ref()
                        .and_then(|w| self.formula(w, Some(Type::Bool)));
                    (t.tag.clone(), when)
                })
                .collect();
            let perturb = perturb.iter().map(|p| self.perturb(p)).collect();
            out.push(Profile {
                name: Arc::from(name.as_str()),
                level: level.map_or(1, |l| *l.get_ref()),
                tier: Arc::from(tier.as_ref().map_or("task", |t| t.get_ref().as_str())),
                fields: drawn,
                accept,
                decision: decision.map(|d| Arc::from(d.get_ref().as_str())),
                reason: reason.map(|r| Arc::from(r.get_ref().as_str())),
                detect: detect
                    .iter()
                    .map(|a| Arc::from(a.get_ref().as_str()))
                    .collect(),
                detect_each: detect_each
                    .iter()
                    .map(|a| Arc::from(a.get_ref().as_str()))
                    .collect(),
                shown: shown
                    .iter()
                    .map(|a| Arc::from(a.get_ref().as_str()))
                    .collect(),
                tags,
                perturb,
                margin_check: chain
                    .iter()
                    .rev()
                    .find_map(|l| l.margin_check)
                    .unwrap_or(true),
                weight,
            });
        }
        if out.is_empty() {
            self.problem(
                "generate::profiles",
                Span::default(),
                "a generator needs a profile".into(),
            );
        }
        out
    }

    fn perturb(&mut self, raw: &RawPerturb) -> Perturb {
        let set = raw
            .set
            .iter()
            .filter_map(|(path, expr)| {
                let segments = path
                    .split('.')
                    .map(|s| {
                        if s == "*" {
                            Segment::Each
                        } else {
                            Segment::Key(s.to_string())
                        }
                    })
                    .collect();
                let f = self.formula_with(expr, None, vec![(Arc::from("value"), Type::Number)])?;
                Some((segments, f))
            })
            .collect();
        let moves = raw
            .moves
            .iter()
            .filter_map(|m| self.formula(m, None))
            .collect();
        Perturb {
            name: raw.name.clone(),
            set,
            moves,
        }
    }
}

/// What a profile passes on to a profile built on it, counted: each field
/// (with its items, parts, record fields, choices and values), condition,
/// tag, perturbation and ablation named.
fn profile_size(p: &RawProfile) -> usize {
    fn value(v: &toml::Value) -> usize {
        match v {
            toml::Value::Array(a) => a.iter().map(value).fold(1, usize::saturating_add),
            toml::Value::Table(t) => t.values().map(value).fold(1, usize::saturating_add),
            _ => 1,
        }
    }
    fn field(f: &RawField) -> usize {
        let nested = f.item.iter().chain(&f.fields).flat_map(|m| m.values());
        let parts = f.parts.iter().flatten();
        let values = f.value.iter().chain(f.choice.iter().flatten());
        let values = values.chain(&f.placeholder).map(value);
        nested
            .chain(parts)
            .map(field)
            .chain(values)
            .fold(1, usize::saturating_add)
            .saturating_add(f.weights.as_ref().map_or(0, Vec::len))
    }
    p.case
        .values()
        .map(field)
        .chain([
            p.accept.len(),
            p.shown.len(),
            p.detect.len(),
            p.detect_each.len(),
            p.tags.len(),
        ])
        .chain(p.perturb.iter().map(|x| 1 + x.set.len() + x.moves.len()))
        .fold(0, usize::saturating_add)
}
