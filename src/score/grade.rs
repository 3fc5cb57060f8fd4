//! Grading one reply against one reference answer under a rubric: the
//! answer contract first (a malformed reply scores the floor, with the
//! reason), then the decision, each field, exactness, citations, gates,
//! partial credit and its cap, and the external explanation grade. Every
//! part is a [`Component`] with the clauses that govern it, so a mark can
//! be traced to its rule.
//!
//! Invariant: no IO; arithmetic is exact decimal (a weighted share and a
//! Jaccard similarity are the only divisions, to 28 digits); nothing in a
//! component repeats an expected value, only whether the reply's is right.

use rust_decimal::Decimal;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

use super::judge::{Judge, JudgeError, JudgeRequest};
use super::model::*;
use super::read::{read_answer, reply_decision, Got};
use crate::reply::{read_reply, Amount, Json, Malformed};

/// Why a reference answer cannot be graded against: the task's fault, not the reply's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExpectedError(pub String);

/// One part of a score.
#[derive(Clone, Debug, PartialEq)]
pub struct Component {
    /// `format`, `decision`, `field`, `exact`, `citations`, `gate`,
    /// `zero_rule`, `partial`, `cap`, `explanation`.
    pub part: &'static str,
    /// The field, for a field or gate: `net_pay`, `lines[0].tax`, `beneficiaires.B2.droits`.
    pub path: Option<String>,
    /// Whether it is right (or passed, or applied; for the explanation, graded).
    pub right: Option<bool>,
    /// What it adds or sets, when it is a term of the score.
    pub points: Option<Decimal>,
    /// A measure: a share, a Jaccard similarity, a grade.
    pub measure: Option<Decimal>,
    /// Why, for a malformed reply: the code and message.
    pub reason: Option<Malformed>,
    /// The clauses that govern it.
    pub clauses: Vec<Arc<str>>,
}

impl Component {
    fn new(part: &'static str, clauses: &[Arc<str>]) -> Component {
        Component {
            part,
            path: None,
            right: None,
            points: None,
            measure: None,
            reason: None,
            clauses: clauses.to_vec(),
        }
    }

    /// As one JSON object, keys in a fixed order.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("part".into(), json!(self.part));
        if let Some(p) = &self.path {
            m.insert("path".into(), json!(p));
        }
        if let Some(r) = self.right {
            let key = match self.part {
                "explanation" => "graded",
                "cap" => "applied",
                "gate" => "passed",
                _ => "right",
            };
            m.insert(key.into(), json!(r));
        }
        if let Some(p) = self.points {
            m.insert("points".into(), number(p));
        }
        if let Some(x) = self.measure {
            m.insert("measure".into(), number(x));
        }
        if let Some(r) = &self.reason {
            m.insert("reason".into(), json!(r.code));
            m.insert("message".into(), json!(r.message));
        }
        let clauses: Vec<&str> = self.clauses.iter().map(|c| &**c).collect();
        m.insert("clauses".into(), json!(clauses));
        Value::Object(m)
    }
}

/// A decimal as a JSON number, exactly as held (trailing zeros removed).
pub fn number(d: Decimal) -> Value {
    let text = d.normalize().to_string();
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// A reply's score and its parts.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let drawn = drawer.task(2026, 0, None)?;
/// let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
/// let scorer = bareme::Scorer::new(rubric, false);
/// let graded = scorer.score(&drawn.task, "I cannot say.", None)?;
/// assert!(graded.score < graded.max);
/// assert!(graded.to_json()["components"].is_array());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Graded {
    /// The score.
    pub score: Decimal,
    /// The most any reply scores under the rubric.
    pub max: Decimal,
    /// Why the reply is malformed, if it is.
    pub malformed: Option<Malformed>,
    /// Whether an explanation grade was applied; `None` when none applies.
    pub explanation_graded: Option<bool>,
    /// Its parts, in the order they were judged.
    pub components: Vec<Component>,
}

impl Graded {
    /// `{"score", "max", "malformed"?, "explanation"?, "components"}`.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// # let task = bareme::TaskDrawer::new(&generator, &rb)?.task(2026, 0, None)?.task;
    /// # let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
    /// let graded = bareme::Scorer::new(rubric, false).score(&task, "no answer", None)?;
    /// assert!(graded.malformed.is_some());
    /// assert!(graded.to_json()["components"].is_array());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("score".into(), number(self.score));
        m.insert("max".into(), number(self.max));
        if let Some(r) = &self.malformed {
            m.insert("malformed".into(), json!(r.code));
        }
        if let Some(g) = self.explanation_graded {
            m.insert(
                "explanation".into(),
                json!(if g { "graded" } else { "ungraded" }),
            );
        }
        let parts: Vec<Value> = self.components.iter().map(Component::to_json).collect();
        m.insert("components".into(), Value::Array(parts));
        Value::Object(m)
    }
}

/// Grades `reply` against `expected` (the reference answer as the rulebook
/// writes it), with an external explanation grade in [0, 1] if one was given.
/// An empty or missing explanation scores 0 whatever grade is given; a
/// non-empty one without a grade is reported ungraded.
pub fn grade(
    rubric: &Rubric,
    expected: &Value,
    reply: &str,
    explanation_grade: Option<Decimal>,
) -> Result<Graded, ExpectedError> {
    grade_judged(rubric, expected, reply, explanation_grade, None).map_err(|e| match e {
        GradeError::Expected(e) => e,
        // No judge is given, so none fails.
        GradeError::Judge(j) => ExpectedError(j.to_string()),
    })
}

/// Why a reply could not be graded: the reference's fault, or the judge's.
#[derive(Debug)]
pub(super) enum GradeError {
    Expected(ExpectedError),
    Judge(JudgeError),
}

impl From<ExpectedError> for GradeError {
    fn from(e: ExpectedError) -> GradeError {
        GradeError::Expected(e)
    }
}

/// The key of the optional explanation a rubric's explanation rule reads.
pub const EXPLANATION_KEY: &str = "explanation";

/// [`grade`], asking `judge` for a non-empty explanation's grade when none is given.
pub(super) fn grade_judged(
    rubric: &Rubric,
    expected: &Value,
    reply: &str,
    explanation_grade: Option<Decimal>,
    judge: Option<&dyn Judge>,
) -> Result<Graded, GradeError> {
    let want = expected_decision(rubric, expected)?;
    let max = rubric.max();
    let expected_clauses = clauses_of(want, expected);
    let read = read_reply(reply, &rubric.envelope).and_then(|json| {
        let decision = reply_decision(rubric, &json)?;
        let same = decision.name == want.name;
        let got = read_answer(rubric, decision, &json, same.then_some(expected))?;
        let explanation = match json.get(EXPLANATION_KEY) {
            Some(Json::String(text)) => text.to_string(),
            _ => String::new(),
        };
        Ok((decision, got, explanation))
    });
    let (decision, got, explanation) = match read {
        Ok(x) => x,
        Err(m) => return Ok(floor(rubric, want, m)),
    };
    let mut parts = Vec::new();
    let mut format = Component::new("format", &decision.format_clauses);
    format.right = Some(true);
    parts.push(format);
    let mut dc = Component::new("decision", &expected_clauses);
    dc.path = rubric.decision_key.clone();
    dc.right = Some(decision.name == want.name);
    if decision.name != want.name {
        dc.points = Some(rubric.score.wrong_decision);
        parts.push(dc);
        return Ok(Graded {
            score: rubric.score.wrong_decision,
            max,
            malformed: None,
            explanation_graded: None,
            components: parts,
        });
    }
    parts.push(dc);
    let mut units = units(want, &got, expected)?;
    for u in &mut units {
        if u.format == Format::Clauses && u.clauses.is_empty() {
            u.clauses = expected_clauses.clone();
        }
    }
    for u in &units {
        let mut c = Component::new("field", &u.clauses);
        c.path = Some(u.path.clone());
        c.right = Some(u.right);
        if u.format == Format::Clauses {
            c.measure = Some(u.credit);
        }
        parts.push(c);
    }
    let lengths_ok = lists_match(want, &got, expected);
    let exact = lengths_ok
        && units
            .iter()
            .filter(|u| u.format.is_substantive())
            .all(|u| u.right);
    let mut ec = Component::new("exact", &expected_clauses);
    ec.right = Some(exact);
    let s = &rubric.score;
    let mut score;
    if exact {
        ec.points = Some(s.exact);
        parts.push(ec);
        score = s.exact;
        if let Some(weight) = s.citations {
            let j = units
                .iter()
                .filter(|u| u.format == Format::Clauses)
                .map(|u| u.credit)
                .min()
                .unwrap_or(Decimal::ONE);
            let mut cc = Component::new("citations", &expected_clauses);
            cc.measure = Some(j);
            cc.points = Some(weight * j);
            parts.push(cc);
            score += weight * j;
        }
    } else {
        parts.push(ec);
        score = match (&want.partial, s.all_or_nothing) {
            (Some(p), false) => partial(p, want, &units, &got, expected, &mut parts),
            _ => {
                let mut w = Component::new("partial", &[]);
                w.points = Some(s.wrong);
                parts.push(w);
                s.wrong
            }
        };
    }
    let mut explanation_graded = None;
    if let Some(e) = &s.explanation {
        if exact && e.decisions.contains(&want.name) {
            let mut xc = Component::new("explanation", &e.clauses);
            let g = if explanation.trim().is_empty() {
                xc.reason = Some(Malformed::new(
                    "explanation::empty",
                    "an empty or missing explanation scores 0, no judge asked",
                ));
                Some(Decimal::ZERO)
            } else {
                match (explanation_grade, judge) {
                    (Some(g), _) => Some(g),
                    (None, Some(judge)) => {
                        let request = JudgeRequest {
                            blocker: blocker(rubric, want, expected),
                            clauses: union(&e.clauses, &expected_clauses),
                            explanation: explanation.clone(),
                        };
                        let verdict = judge.judge(&request).map_err(GradeError::Judge)?;
                        Some(verdict.grade())
                    }
                    (None, None) => None,
                }
            };
            xc.right = Some(g.is_some());
            if let Some(g) = g {
                xc.measure = Some(g);
                score = (Decimal::ONE - e.weight) * score + e.weight * g;
                xc.points = Some(e.weight * g);
            }
            explanation_graded = Some(g.is_some());
            parts.push(xc);
        }
    }
    Ok(Graded {
        score,
        max,
        malformed: None,
        explanation_graded,
        components: parts,
    })
}

/// The verified blocker a judge is told of: the reference's fields but its
/// decision and clause lists.
fn blocker(rubric: &Rubric, want: &DecisionRubric, expected: &Value) -> Value {
    let mut m = Map::new();
    if let Value::Object(fields) = expected {
        for (k, v) in fields {
            let is_decision = rubric.decision_key.as_deref() == Some(k.as_str());
            let is_clauses = want
                .fields
                .iter()
                .any(|f| f.key == *k && matches!(f.kind, FieldKind::Value(Format::Clauses)));
            if !is_decision && !is_clauses {
                m.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(m)
}

/// `a`, then what `b` adds, as strings.
fn union(a: &[Arc<str>], b: &[Arc<str>]) -> Vec<String> {
    let mut out: Vec<String> = a.iter().map(|c| c.to_string()).collect();
    for c in b {
        if !out.iter().any(|o| **o == **c) {
            out.push(c.to_string());
        }
    }
    out
}

/// The score of a malformed reply: the rubric's floor, with the reason.
fn floor(rubric: &Rubric, want: &DecisionRubric, m: Malformed) -> Graded {
    let mut format = Component::new("format", &want.format_clauses);
    format.right = Some(false);
    format.points = Some(rubric.score.malformed);
    format.reason = Some(m.clone());
    Graded {
        score: rubric.score.malformed,
        max: rubric.max(),
        malformed: Some(m),
        explanation_graded: None,
        components: vec![format],
    }
}

/// Grades a reply that is no text at all (absent, or not a string): the floor.
pub fn grade_malformed(
    rubric: &Rubric,
    expected: &Value,
    m: Malformed,
) -> Result<Graded, ExpectedError> {
    let want = expected_decision(rubric, expected)?;
    Ok(floor(rubric, want, m))
}

/// The reference's decision.
pub(super) fn expected_decision<'r>(
    rubric: &'r Rubric,
    expected: &Value,
) -> Result<&'r DecisionRubric, ExpectedError> {
    if expected.get("error").is_some() {
        return Err(ExpectedError(
            "the reference is a rejection of the case, which no reply is graded against".into(),
        ));
    }
    let found = match &rubric.decision_key {
        Some(key) => expected
            .get(key)
            .and_then(Value::as_str)
            .and_then(|d| rubric.decision(d)),
        None => rubric.decisions.first(),
    };
    found.ok_or_else(|| {
        ExpectedError(format!(
            "the reference answer names no decision of {}",
            rubric.rulebook()
        ))
    })
}

/// The clauses the reference cites: its clause list, else the decision's own.
fn clauses_of(decision: &DecisionRubric, expected: &Value) -> Vec<Arc<str>> {
    for f in &decision.fields {
        if let FieldKind::Value(Format::Clauses) = f.kind {
            if let Some(Value::Array(list)) = expected.get(&f.key) {
                return list
                    .iter()
                    .filter_map(Value::as_str)
                    .map(Arc::from)
                    .collect();
            }
        }
    }
    decision.clauses.clone()
}

/// One graded value: a root field, or a field of one item.
#[derive(Clone, Debug)]
struct Unit {
    path: String,
    root: usize,
    item: Option<usize>,
    /// Position of the item in the reference (list index or key order).
    index: Option<usize>,
    format: Format,
    right: bool,
    /// 1 or 0; the Jaccard similarity for clauses.
    credit: Decimal,
    expected_zero: bool,
    clauses: Vec<Arc<str>>,
}

fn bad_expected(path: &str) -> ExpectedError {
    ExpectedError(format!("the reference answer's {path} cannot be read"))
}

/// Every graded value of the reference, judged against the reply's.
fn units(
    decision: &DecisionRubric,
    got: &[Got],
    expected: &Value,
) -> Result<Vec<Unit>, ExpectedError> {
    let mut out = Vec::new();
    for (r, (f, g)) in decision.fields.iter().zip(got).enumerate() {
        let exp = expected.get(&f.key);
        match (&f.kind, g) {
            (FieldKind::Value(Format::Decision), _) => {}
            (FieldKind::Value(fmt), g) => {
                let exp = exp.ok_or_else(|| bad_expected(&f.key))?;
                out.push(judge(
                    &f.key,
                    r,
                    None,
                    None,
                    *fmt,
                    Some(g),
                    exp,
                    &f.clauses,
                )?);
            }
            (FieldKind::List(items), Got::List(list)) => {
                let exp = exp
                    .and_then(Value::as_array)
                    .ok_or_else(|| bad_expected(&f.key))?;
                for (i, e) in exp.iter().enumerate() {
                    let at = format!("{}[{i}]", f.key);
                    item_units(&mut out, &at, r, i, items, e, list.get(i))?;
                }
            }
            (FieldKind::Keyed(items), Got::Keyed(entries)) => {
                let exp = exp
                    .and_then(Value::as_object)
                    .ok_or_else(|| bad_expected(&f.key))?;
                for (i, (key, e)) in exp.iter().enumerate() {
                    let reply_item = entries.iter().find(|(k, _)| k == key).map(|(_, v)| v);
                    let at = format!("{}.{key}", f.key);
                    item_units(&mut out, &at, r, i, items, e, reply_item)?;
                }
            }
            _ => return Err(bad_expected(&f.key)),
        }
    }
    Ok(out)
}

/// The graded values of one item of a list or keyed field (`at` is its
/// path, `i` its place in the reference), judged against the reply's item.
fn item_units(
    out: &mut Vec<Unit>,
    at: &str,
    root: usize,
    i: usize,
    items: &[Field],
    expected: &Value,
    reply_item: Option<&Vec<Got>>,
) -> Result<(), ExpectedError> {
    for (k, item) in items.iter().enumerate() {
        let FieldKind::Value(fmt) = item.kind else {
            continue;
        };
        if fmt == Format::Decision {
            continue;
        }
        let path = format!("{at}.{}", item.key);
        let ev = expected.get(&item.key).ok_or_else(|| bad_expected(&path))?;
        let g = reply_item.and_then(|g| g.get(k));
        out.push(judge(
            &path,
            root,
            Some(k),
            Some(i),
            fmt,
            g,
            ev,
            &item.clauses,
        )?);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn judge(
    path: &str,
    root: usize,
    item: Option<usize>,
    index: Option<usize>,
    format: Format,
    got: Option<&Got>,
    expected: &Value,
    clauses: &[Arc<str>],
) -> Result<Unit, ExpectedError> {
    let mut expected_zero = false;
    let credit = match format {
        Format::Money | Format::SignedMoney | Format::Amount | Format::Decimal => {
            let want = match expected {
                Value::String(s) => Amount::plain(s),
                Value::Number(n) => Amount::plain(&n.to_string()),
                _ => None,
            }
            .ok_or_else(|| bad_expected(path))?;
            expected_zero = want.is_zero();
            let have = match got {
                Some(Got::Amount(a)) => Some(a.clone()),
                Some(Got::Raw(Json::String(s))) if format == Format::Decimal => Amount::plain(s),
                _ => None,
            };
            bit(have.as_ref() == Some(&want))
        }
        Format::String | Format::Any => match got {
            Some(Got::Raw(j)) => bit(same(j, expected)),
            _ => Decimal::ZERO,
        },
        Format::Clauses => {
            let want: BTreeSet<&str> = expected
                .as_array()
                .ok_or_else(|| bad_expected(path))?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            match got {
                Some(Got::Clauses(list)) => {
                    let have: BTreeSet<&str> = list.iter().map(String::as_str).collect();
                    jaccard(&have, &want)
                }
                _ => Decimal::ZERO,
            }
        }
        Format::Decision => Decimal::ONE,
    };
    Ok(Unit {
        path: path.to_string(),
        root,
        item,
        index,
        format,
        right: credit == Decimal::ONE,
        credit,
        expected_zero,
        clauses: clauses.to_vec(),
    })
}

fn bit(b: bool) -> Decimal {
    if b {
        Decimal::ONE
    } else {
        Decimal::ZERO
    }
}

/// |A ∩ B| / |A ∪ B|; 1 when both are empty.
fn jaccard(a: &BTreeSet<&str>, b: &BTreeSet<&str>) -> Decimal {
    let union = a.union(b).count();
    if union == 0 {
        return Decimal::ONE;
    }
    let inter = a.intersection(b).count();
    Decimal::from(inter as u64) / Decimal::from(union as u64)
}

/// JSON equality of a reply value and a reference value; numbers as written.
fn same(j: &Json, v: &Value) -> bool {
    match (j, v) {
        (Json::Null, Value::Null) => true,
        (Json::Bool(a), Value::Bool(b)) => a == b,
        (Json::Number(a), Value::Number(b)) => **a == *b.to_string(),
        (Json::String(a), Value::String(b)) => a == b,
        (Json::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Json::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| same(x, y)))
        }
        _ => false,
    }
}

/// Whether every list of the reply has as many items as the reference's.
fn lists_match(decision: &DecisionRubric, got: &[Got], expected: &Value) -> bool {
    decision.fields.iter().zip(got).all(|(f, g)| match g {
        Got::List(list) => expected
            .get(&f.key)
            .and_then(Value::as_array)
            .is_some_and(|e| e.len() == list.len()),
        _ => true,
    })
}

/// Partial credit for a right decision that is not exact.
fn partial(
    p: &Partial,
    decision: &DecisionRubric,
    units: &[Unit],
    got: &[Got],
    expected: &Value,
    parts: &mut Vec<Component>,
) -> Decimal {
    fn of<'u>(units: &'u [Unit], path: &FieldPath) -> impl Iterator<Item = &'u Unit> + 'u {
        let (root, item) = (path.root, path.item);
        units
            .iter()
            .filter(move |u| u.root == root && u.item == item)
    }
    for gate in &p.gates {
        let list_ok = match (&decision.fields[gate.root].kind, &got[gate.root]) {
            (FieldKind::List(_), Got::List(list)) => expected
                .get(&decision.fields[gate.root].key)
                .and_then(Value::as_array)
                .is_some_and(|e| e.len() == list.len()),
            _ => true,
        };
        let passed = list_ok && of(units, gate).all(|u| u.right);
        let clauses = of(units, gate)
            .next()
            .map(|u| u.clauses.clone())
            .unwrap_or_default();
        let mut g = Component::new("gate", &clauses);
        g.path = Some(gate.text.clone());
        g.right = Some(passed);
        if !passed {
            g.points = Some(p.otherwise);
            parts.push(g);
            return p.otherwise;
        }
        parts.push(g);
    }
    if p.zero_if_expected_zero {
        if let Some(u) = units
            .iter()
            .find(|u| u.format.is_amount() && u.expected_zero && !u.right)
        {
            let mut z = Component::new("zero_rule", &u.clauses);
            z.path = Some(u.path.clone());
            z.right = Some(false);
            z.points = Some(p.otherwise);
            parts.push(z);
            return p.otherwise;
        }
    }
    let (mut num, mut den) = (Decimal::ZERO, Decimal::ZERO);
    let mut clauses: Vec<Arc<str>> = Vec::new();
    for (path, w) in &p.weights {
        for u in of(units, path) {
            if p.nonzero_expected_only && u.expected_zero {
                continue;
            }
            for c in &u.clauses {
                if !clauses.contains(c) {
                    clauses.push(c.clone());
                }
            }
            den += *w;
            let needs_ok = p
                .requires
                .iter()
                .filter(|(q, _)| q == path)
                .flat_map(|(_, needs)| needs)
                .all(|need| {
                    units
                        .iter()
                        .filter(|v| v.root == need.root && v.item == need.item)
                        .filter(|v| need.item.is_none() || v.index == u.index)
                        .all(|v| v.right)
                });
            if needs_ok {
                num += *w * u.credit;
            }
        }
    }
    let share = if den.is_zero() {
        Decimal::ZERO
    } else {
        num / den
    };
    let mut score = p.base + p.scale * share;
    let mut pc = Component::new("partial", &clauses);
    pc.measure = Some(share);
    pc.points = Some(score);
    parts.push(pc);
    if let Some(cap) = p.cap {
        let mut cc = Component::new("cap", &clauses);
        cc.right = Some(score > cap);
        cc.measure = Some(cap);
        if score > cap {
            score = cap;
            cc.points = Some(cap);
        }
        parts.push(cc);
    }
    score
}
