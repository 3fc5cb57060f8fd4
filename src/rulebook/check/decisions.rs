//! Decisions and the checks that choose them.
//!
//! A decision names what a case gets: its clauses, the clauses it cites
//! under a condition, and its answer fields. The checks run in order at
//! evaluation; each either rejects the case or chooses a decision, and the
//! last one, without `when`, decides every case the others left, so every
//! case gets an answer or a rejection. Answer fields are outputs, built as
//! reports' columns are (`Checker::output`).
//!
//! Invariant: only answer fields may read `decision`, `reason` and `clauses`.

use indexmap::IndexMap;
use std::collections::HashMap;
use std::sync::Arc;
use toml::Spanned;

use super::{index_of, sp, Checker, Declared};
use crate::diag::Problem;
use crate::model::*;
use crate::rulebook::raw::*;
use crate::rulebook::resolve::suggest_within;

impl Checker<'_> {
    /// Builds each decision: its clauses, its conditional citations, and its
    /// answer fields (which alone may read `decision`, `reason` and `clauses`).
    pub(super) fn decisions(
        &mut self,
        raw: &IndexMap<String, RawDecision>,
        clause_ids: &[Arc<str>],
        group_index: &HashMap<&str, usize>,
        declared: &Declared<'_>,
    ) -> Vec<Decision> {
        let mut built = Vec::new();
        for (name, d) in raw {
            let clauses = self.clause_refs(&d.clauses, clause_ids);
            let mut cite = Vec::new();
            for c in &d.cite {
                let p = self.parse(&c.when);
                self.unrecorded_rounding(&p, "a decision's citation");
                if let Some((f, ty)) = self.resolve(&p, &declared.scope(false, None)) {
                    self.expect_type(&p, &ty, &Type::Bool, "a citation's `when`");
                    cite.push((f, self.clause_refs(&c.clauses, clause_ids).into()));
                }
            }
            if d.answer.is_empty() {
                // With no answer field and no clause, the decision's header.
                let at = if d.clauses.is_empty() {
                    self.header("decisions", name)
                } else {
                    sp(d)
                };
                self.problem(
                    "check::empty_answer",
                    at,
                    format!("decision `{name}` has no answer fields"),
                    "here",
                );
            }
            let mut answer = Vec::new();
            for (key, out) in &d.answer {
                let scope = declared.scope(true, None);
                if let Some(o) =
                    self.output(key, out, &scope, group_index, declared.group_scopes, 0)
                {
                    answer.push(o);
                }
            }
            built.push(Decision {
                name: Arc::from(name.as_str()),
                label: d.label.clone(),
                clauses,
                cite,
                answer,
            });
        }
        built
    }

    /// Builds the checks in order: each either rejects the case or chooses a
    /// decision, and the last, without `when`, decides every case left.
    pub(super) fn checks(
        &mut self,
        raw: &[Spanned<RawCheck>],
        decisions: &IndexMap<String, RawDecision>,
        clause_ids: &[Arc<str>],
        declared: &Declared<'_>,
    ) -> Vec<Check> {
        let decision_index = index_of(decisions);
        let mut built = Vec::new();
        let n_checks = raw.len();
        for (i, check) in raw.iter().enumerate() {
            let c = check.get_ref();
            let when = match &c.when {
                Some(w) => {
                    let p = self.parse(w);
                    self.unrecorded_rounding(&p, "a check's `when`");
                    self.resolve(&p, &declared.scope(false, None))
                        .map(|(f, ty)| {
                            self.expect_type(&p, &ty, &Type::Bool, "a check's `when`");
                            f
                        })
                }
                None => {
                    if i + 1 != n_checks {
                        self.problem(
                            "check::unconditional_check",
                            sp(check),
                            "only the last check may omit `when`",
                            "this check always holds, so the checks after it never run",
                        );
                    }
                    None
                }
            };
            let Some(outcome) =
                self.check_outcome(check, decisions, &decision_index, clause_ids, declared)
            else {
                continue;
            };
            let gives = match &outcome {
                CheckOutcome::Decide {
                    decision, reason, ..
                } => {
                    let name = decisions
                        .get_index(*decision)
                        .map_or("", |(n, _)| n.as_str());
                    match reason {
                        Some(r) => format!("decision {name} {r}"),
                        None => format!("decision {name}"),
                    }
                }
                CheckOutcome::Reject { path, .. } => format!("reject {}", template_text(path)),
            };
            built.push(Check {
                label: c.label.as_deref().map(Arc::from),
                when,
                outcome,
                gives: Arc::from(gives),
            });
        }
        self.last_check(raw);
        built
    }

    /// What a check does when it holds: choose a decision (with a reason and
    /// clauses) or reject the case (at a path, with a message).
    fn check_outcome(
        &mut self,
        check: &Spanned<RawCheck>,
        decisions: &IndexMap<String, RawDecision>,
        decision_index: &HashMap<&str, usize>,
        clause_ids: &[Arc<str>],
        declared: &Declared<'_>,
    ) -> Option<CheckOutcome> {
        let c = check.get_ref();
        Some(match (&c.decision, &c.reject) {
            (Some(d), None) => {
                let decision = match decision_index.get(d.get_ref().as_str()) {
                    Some(i) => *i,
                    None => {
                        let help = suggest_within(
                            &mut self.suggest_work,
                            d.get_ref(),
                            decisions.keys().map(String::as_str),
                        )
                        .map(|s| format!("did you mean `{s}`?"));
                        let mut p = Problem::new(
                            "check::unknown_decision",
                            format!("unknown decision `{}`", d.get_ref()),
                        )
                        .at(sp(d), "not declared under [decisions]");
                        if let Some(h) = help {
                            p = p.help(h);
                        }
                        self.diags.push(p);
                        0
                    }
                };
                if c.message.is_some() {
                    self.problem(
                        "check::check_shape",
                        sp(check),
                        "`message` goes with `reject`, not with `decision`",
                        "here",
                    );
                }
                CheckOutcome::Decide {
                    decision,
                    reason: c.reason.as_deref().map(Arc::from),
                    clauses: self.clause_refs(&c.clauses, clause_ids),
                }
            }
            (None, Some(path)) => {
                if c.reason.is_some() {
                    self.problem(
                        "check::check_shape",
                        sp(check),
                        "`reason` goes with `decision`, not with `reject`",
                        "here",
                    );
                }
                let message = match &c.message {
                    Some(m) => self.message(m, &declared.scope(false, None)),
                    None => vec![MessagePart::Text("is invalid".into())],
                };
                let _ = self.clause_refs(&c.clauses, clause_ids);
                self.require_reject_path(path);
                CheckOutcome::Reject {
                    path: self.message(path, &declared.scope(false, None)),
                    message,
                }
            }
            _ => {
                self.problem(
                    "check::check_shape",
                    sp(check),
                    "a check needs exactly one of `decision` and `reject`",
                    "this check",
                );
                return None;
            }
        })
    }

    /// The checks end with a decision without `when`, so every case gets one.
    fn last_check(&mut self, raw: &[Spanned<RawCheck>]) {
        match raw.last() {
            None => self.diags.push(
                Problem::new(
                    "check::no_checks",
                    "the rulebook has no [[checks]]: nothing decides the answer",
                )
                .help("end with a check without `when`, e.g. `decision = \"calculate\"`"),
            ),
            Some(last) if last.get_ref().when.is_some() || last.get_ref().decision.is_none() => {
                self.problem(
                    "check::no_fallback",
                    sp(last),
                    "the last check must be a decision without `when`, so every case gets one",
                    "last check",
                )
            }
            _ => {}
        }
    }
}
