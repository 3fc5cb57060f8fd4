//! Loading a rubric and checking it against the rulebook version it names:
//! every decision and answer field it grades must be the rulebook's, every
//! answer field of the rulebook must be graded, formats must suit the
//! rulebook's, and every clause cited must exist. A disagreement is a
//! located diagnostic in the rubric file that names the rulebook's side too,
//! so schema drift fails when the rubric loads, not in a score later.

use indexmap::IndexMap;
use rust_decimal::Decimal;
use std::path::Path;
use std::sync::Arc;
use toml::Spanned;

use super::model::*;
use super::order::out_of_order;
use super::raw::*;
use crate::diag::{Diagnostics, Problem};
use crate::model::{self as rbm, NodeKind, OutputValue, Rulebook};
use crate::reply::{Amount, AmountRules, Closing, Envelope, Tag};
use crate::rulebook::check::parse_plain_decimal;
use crate::rulebook::load::content_hash;
use crate::span::Span;
use crate::tasks::{check_pin, load_companion, parse_toml, CompanionError, PinWords};

/// Why a rubric could not be loaded: the error of every companion file.
///
/// ```
/// let err = bareme::load_rubric("rulebooks/no-such/rubric-1.toml".as_ref(), None).unwrap_err();
/// assert!(err.to_string().contains("no-such"));
/// ```
pub type RubricError = CompanionError;

/// How a rubric names its rulebook, in its diagnostics.
const PIN: PinWords = PinWords {
    malformed: "score::rulebook",
    other_version: "score::rulebook_version",
    says: "this rubric grades",
};

/// Loads a rubric file and the rulebook it names: `rulebook` when given,
/// else `v<version>` beside the rubric file.
///
/// ```
/// let (rubric, rb) = bareme::load_rubric("rulebooks/sales-tax/rubric-1.toml".as_ref(), None)?;
/// assert_eq!(rb.id(), "sales-tax");
/// let scorer = bareme::Scorer::new(rubric, false);
/// assert_eq!(scorer.rubric().rulebook_id, "sales-tax");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_rubric(
    path: &Path,
    rulebook: Option<&Path>,
) -> Result<(Rubric, Rulebook), CompanionError> {
    load_companion(path, "rubric", rulebook, parse_rubric)
}

/// The rubric a generator names (`rubric = N`): `rubric-N.toml` beside the
/// generator file, read against the generator's rulebook. A generator's
/// prompts state that rubric's answer format, so tasks naming a rubric that
/// is not there, or that grades another rulebook, are refused before any
/// is drawn.
///
/// ```
/// let path = std::path::Path::new("rulebooks/luma-payroll/generator-4.toml");
/// let (generator, rb) = bareme::load_generator(path, None)?;
/// let rubric = bareme::unstable::score::load_named_rubric(path, generator.rubric(), &rb)?;
/// assert_eq!(rubric.number, 8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_named_rubric(
    generator: &Path,
    number: i64,
    rb: &Rulebook,
) -> Result<Rubric, CompanionError> {
    let path = generator
        .parent()
        .unwrap_or(Path::new("."))
        .join(format!("rubric-{number}.toml"));
    let name = path.display().to_string();
    let text = crate::tasks::read_text(&path).map_err(|source| CompanionError::Io {
        path: name.clone(),
        source,
    })?;
    parse_rubric(&name, &text, rb).map_err(CompanionError::Invalid)
}

/// The largest size of a number in a rubric (scores, weights, scales).
pub(crate) const MAX_SCORE_NUMBER: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

/// Parses and checks rubric text against a rulebook.
pub fn parse_rubric(name: &str, text: &str, rb: &Rulebook) -> Result<Rubric, Diagnostics> {
    let (raw, mut diags) = parse_toml::<RawRubric>(name, text, "score::toml")?;
    let mut cx = Checker {
        rb,
        diags: &mut diags,
        amount_strings: false,
        amount_places: 2,
    };
    let rubric = cx.rubric(raw, name, content_hash(text));
    match rubric {
        Some(r) if diags.problems.is_empty() => Ok(r),
        _ => Err(diags),
    }
}

fn span_of<T>(s: &Spanned<T>) -> Span {
    Span::from(s.span())
}

/// The checker's state while a rubric is read against its rulebook.
struct Checker<'a> {
    rb: &'a Rulebook,
    diags: &'a mut Diagnostics,
    /// Whether `[amounts] strings` lets an `amount` be a string: the
    /// rulebook writes a fixed or decimal field as one.
    amount_strings: bool,
    /// `[amounts] places`: the most decimals an `amount` reads.
    amount_places: usize,
}

impl Checker<'_> {
    fn problem(&mut self, code: &'static str, span: Span, message: String) {
        self.diags
            .push(Problem::new(code, message).at(span, "here"));
    }

    fn side(&self) -> String {
        format!("{}@{}", self.rb.id(), self.rb.version())
    }

    /// A rubric number: a plain decimal of at most [`MAX_SCORE_NUMBER`] in
    /// size, so that the sums and products of grading (weights added up,
    /// scales times shares) stay inside a decimal's range: a rubric is
    /// untrusted input, and rust_decimal's operators panic past it.
    fn decimal(&mut self, s: &Spanned<String>) -> Decimal {
        match parse_plain_decimal(s.get_ref()) {
            Some(d) if d.abs() <= MAX_SCORE_NUMBER => d,
            Some(_) => {
                let message = format!(
                    "`{}` is larger than a rubric number may be ({MAX_SCORE_NUMBER})",
                    s.get_ref()
                );
                self.problem("score::decimal", span_of(s), message);
                Decimal::ZERO
            }
            None => {
                let message = format!("`{}` is not a plain decimal", s.get_ref());
                self.problem("score::decimal", span_of(s), message);
                Decimal::ZERO
            }
        }
    }

    fn count(&mut self, s: &Spanned<i64>, what: &str) -> usize {
        match usize::try_from(*s.get_ref()) {
            Ok(n) if n > 0 => n,
            _ => {
                let message = format!("{what} must be a whole number of at least 1");
                self.problem("score::number", span_of(s), message);
                1
            }
        }
    }

    /// Refuses a list that names one thing twice (a clause, a gate, a
    /// decision): read once, copied into every graded line: a clause
    /// repeated 100,000 times made 500 KB of output per reply.
    fn once(&mut self, list: &[Spanned<String>], what: &str) {
        let mut seen = std::collections::HashSet::new();
        if let Some(again) = list.iter().find(|x| !seen.insert(x.get_ref().as_str())) {
            let message = format!("{what} names `{}` twice", again.get_ref());
            self.problem("score::repeated", span_of(again), message);
        }
    }

    fn clauses(&mut self, list: &[Spanned<String>]) -> Vec<Arc<str>> {
        self.once(list, "a clause list");
        let mut out = Vec::new();
        for c in list {
            match self.rb.clauses().get_key_value(c.get_ref().as_str()) {
                Some((k, _)) => out.push(k.clone()),
                None => {
                    let message = format!("{} has no clause `{}`", self.side(), c.get_ref());
                    self.problem("score::unknown_clause", span_of(c), message);
                }
            }
        }
        out
    }

    fn rubric(&mut self, raw: RawRubric, file: &str, hash: String) -> Option<Rubric> {
        let h = &raw.rubric;
        // A rubric of another version is checked all the same: every
        // problem is reported, its version one of them.
        check_pin(&h.rulebook, self.rb, &PIN, self.diags);
        let envelope = self.envelope(&raw.reply);
        let amounts = self.amounts(&raw.amounts);
        self.amount_strings = amounts.strings;
        self.amount_places = amounts.places;
        let decisions = self.decisions(&raw.decisions);
        let decision_key = self.decision_key(&raw.reply, &raw.decisions, &decisions);
        let mut optional = Vec::new();
        for (key, kind) in &raw.reply.optional {
            // A key the answer has (the decision key too) is graded as the
            // answer's, never optional: named here it loaded and was
            // silently ignored.
            let answers = decisions
                .iter()
                .find(|d| d.fields.iter().any(|f| f.key == *key));
            if let Some(d) = answers {
                let message = format!(
                    "`{key}` is a field of the answer of `{}`: optional keys are those beside the answer's",
                    d.name
                );
                self.problem("score::optional", span_of(kind), message);
                continue;
            }
            match kind.get_ref().as_str() {
                "string" => optional.push((key.clone(), JsonKind::String)),
                other => {
                    let message = format!("an optional key is a `string`, not `{other}`");
                    self.problem("score::optional", span_of(kind), message);
                }
            }
        }
        let score = self.score(&raw.score, &raw.decisions, &decisions);
        let number = *h.number.get_ref();
        let stem = Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("rubric")
            .to_string();
        // A rubric is named by its number (`rubric-8`): one whose file says
        // another was shown and compared under the file's.
        let named = stem
            .strip_prefix("rubric-")
            .and_then(|n| n.parse::<i64>().ok());
        if number < 1 || named.is_some_and(|n| n != number) {
            let message = match named {
                Some(n) if number >= 1 => format!("`number = {number}` in a file named rubric-{n}: the file is named by its number"),
                _ => format!("`number = {number}`: a rubric's number is a whole number from 1"),
            };
            self.problem("score::number", span_of(&h.number), message);
        }
        Some(Rubric {
            name: format!("{}/{stem}", self.rb.id()),
            number,
            title: h.title.clone(),
            hash,
            rulebook_id: self.rb.id().to_string(),
            rulebook_version: self.rb.version(),
            rulebook_hash: self.rb.hash().to_string(),
            clause_ids: self.rb.clauses().keys().cloned().collect(),
            envelope,
            decision_key,
            optional,
            amounts,
            score,
            decisions,
        })
    }

    fn envelope(&mut self, raw: &RawReply) -> Envelope {
        let max_chars = raw.max_chars.as_ref().map(|m| self.count(m, "`max_chars`"));
        let tag = raw.tag.as_ref().map(|t| {
            let name = t.name.get_ref();
            if name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                let message =
                    format!("a tag name is ASCII letters, digits, `_` and `-`, not {name:?}");
                self.problem("score::tag", span_of(&t.name), message);
            }
            let closing = match t.closing.as_ref().map(|c| c.get_ref().as_str()) {
                None | Some("exactly_one") => Closing::ExactlyOne,
                Some("first_after") => Closing::FirstAfter,
                Some(other) => {
                    let message =
                        format!("`closing` is `exactly_one` or `first_after`, not `{other}`");
                    let span = t.closing.as_ref().map(span_of).unwrap_or_default();
                    self.problem("score::tag", span, message);
                    Closing::ExactlyOne
                }
            };
            Tag {
                name: name.clone(),
                case_insensitive: t.case_insensitive,
                closing,
            }
        });
        Envelope {
            max_chars,
            tag,
            fences: raw.fences,
        }
    }

    fn amounts(&mut self, raw: &RawAmounts) -> AmountRules {
        let mut rules = AmountRules {
            strings: raw.strings,
            padding: raw.padding,
            ..AmountRules::default()
        };
        if let Some(p) = &raw.places {
            rules.places = match usize::try_from(*p.get_ref()) {
                Ok(n) if n <= 28 => n,
                _ => {
                    self.problem("score::number", span_of(p), "`places` is 0 to 28".into());
                    2
                }
            };
        }
        if let Some(m) = &raw.max_abs {
            rules.max_abs = Amount::plain(m.get_ref());
            if rules.max_abs.is_none() {
                let message = format!("`{}` is not a plain decimal", m.get_ref());
                self.problem("score::decimal", span_of(m), message);
            } else if !rules.max_abs.as_ref().is_some_and(Amount::is_positive) {
                // No amount is within a bound of 0 or below.
                let message = format!("`max_abs = \"{}\"`: the bound is above 0", m.get_ref());
                self.problem("score::decimal", span_of(m), message);
            }
        }
        if let Some(m) = &raw.max_integer_digits {
            rules.max_integer_digits = Some(self.count(m, "`max_integer_digits`"));
        }
        if let Some(m) = &raw.max_exponent_digits {
            let digits = self.count(m, "`max_exponent_digits`");
            if digits > 18 {
                // A number's exponent is read into 64 bits: 18 digits at most.
                let message = format!("`max_exponent_digits` is at most 18, not {digits}");
                self.problem("score::number", span_of(m), message);
            }
            rules.max_exponent_digits = digits.min(18);
        }
        rules
    }

    fn decisions(&mut self, raw: &IndexMap<Spanned<String>, RawDecision>) -> Vec<DecisionRubric> {
        for name in raw.keys() {
            if !self.rb.decisions.iter().any(|x| &*x.name == name.get_ref()) {
                let known: Vec<&str> = self.rb.decisions.iter().map(|x| &*x.name).collect();
                let message = format!(
                    "{} has no decision `{}` (its decisions: {})",
                    self.side(),
                    name.get_ref(),
                    known.join(", ")
                );
                self.problem("score::unknown_decision", span_of(name), message);
            }
        }
        let mut out = Vec::new();
        for decision in &self.rb.decisions {
            let Some((key, d)) = raw.get_key_value(&*decision.name) else {
                let message = format!(
                    "{} has the decision `{}`, which this rubric does not grade",
                    self.side(),
                    decision.name
                );
                let span = raw.keys().next().map(span_of).unwrap_or_default();
                self.problem("score::ungraded_decision", span, message);
                continue;
            };
            let fields = self.fields(
                &d.fields,
                &decision.answer,
                None,
                &decision.clauses,
                &decision.name,
                span_of(key),
            );
            let partial = d
                .partial
                .as_ref()
                .map(|p| self.partial(p, &fields, &decision.name));
            out.push(DecisionRubric {
                name: decision.name.to_string(),
                clauses: decision.clauses.clone(),
                format_clauses: self.clauses(&d.format_clauses),
                fields,
                partial,
            });
        }
        out
    }

    /// The graded fields of one answer (or of each item of a list), checked
    /// both ways against the rulebook's.
    fn fields(
        &mut self,
        raw: &IndexMap<String, Spanned<RawField>>,
        answer: &[rbm::Output],
        group: Option<usize>,
        default: &[Arc<str>],
        decision: &str,
        at: Span,
    ) -> Vec<Field> {
        for (key, f) in raw {
            if !answer.iter().any(|o| &*o.key == key) {
                let known: Vec<&str> = answer.iter().map(|o| &*o.key).collect();
                let message = format!(
                    "the answer of `{decision}` in {} has no field `{key}` (its fields: {})",
                    self.side(),
                    known.join(", ")
                );
                self.problem("score::unknown_field", span_of(f), message);
            }
        }
        let mut out = Vec::new();
        for output in answer {
            let Some(f) = raw.get(&*output.key) else {
                let message = format!(
                    "the answer of `{decision}` in {} has the field `{}`, which this rubric does not grade",
                    self.side(),
                    output.key
                );
                self.problem("score::ungraded_field", at, message);
                continue;
            };
            let span = span_of(f);
            let f = f.get_ref();
            let clauses = match &f.clauses {
                Some(list) => self.clauses(list),
                None => self.governing(output, group, default),
            };
            let kind = match (&output.value, &f.each, &f.format) {
                (OutputValue::Each { group, key, fields }, Some(each), None) => {
                    let items = self.fields(each, fields, Some(*group), default, decision, span);
                    if key.is_some() {
                        FieldKind::Keyed(items)
                    } else {
                        FieldKind::List(items)
                    }
                }
                (OutputValue::Value { expr, format }, None, Some(name)) => {
                    let fmt = self.format(name);
                    if let Some(fmt) = fmt {
                        self.suits(fmt, expr, *format, &output.key, decision, span_of(name));
                    }
                    FieldKind::Value(fmt.unwrap_or(Format::Any))
                }
                (OutputValue::Each { .. }, _, _) => {
                    let message = format!(
                        "`{}` of `{decision}` in {} is a list of items: grade it with `each = {{ … }}` alone",
                        output.key,
                        self.side()
                    );
                    self.problem("score::field_kind", span, message);
                    FieldKind::Value(Format::Any)
                }
                (OutputValue::Value { .. }, _, _) => {
                    let message = format!(
                        "`{}` of `{decision}` in {} is one value: grade it with `format = …` alone",
                        output.key,
                        self.side()
                    );
                    self.problem("score::field_kind", span, message);
                    FieldKind::Value(Format::Any)
                }
            };
            // A clause list's component is governed by what the task's
            // reference cites (filled in at grading): the decision's own
            // clauses miss those it cites on a condition (Luma's retrieval
            // cites R1 always, then R3 or R4 by the field asked).
            let clauses = match (&kind, &f.clauses) {
                (FieldKind::Value(Format::Clauses), None) => Vec::new(),
                _ => clauses,
            };
            out.push(Field {
                key: output.key.to_string(),
                kind,
                clauses,
            });
        }
        out
    }

    /// The clauses of the step an answer field reads (those it applies on
    /// every branch, then those it may cite on one), else the decision's.
    fn governing(
        &self,
        output: &rbm::Output,
        group: Option<usize>,
        default: &[Arc<str>],
    ) -> Vec<Arc<str>> {
        let OutputValue::Value { expr, .. } = &output.value else {
            return default.to_vec();
        };
        let step = match (&expr.node.kind, group) {
            (NodeKind::Step(i), _) => self.rb.steps.get(i.index()),
            (NodeKind::ItemStep(i), Some(g)) => self.rb.groups.get(g).and_then(|g| g.steps.get(*i)),
            _ => None,
        };
        let Some(step) = step else {
            return default.to_vec();
        };
        let mut clauses = step.clauses.to_vec();
        for clause in step.cite.iter().flat_map(|(_, cs)| cs.iter()) {
            if !clauses.contains(clause) {
                clauses.push(clause.clone());
            }
        }
        if clauses.is_empty() {
            return default.to_vec();
        }
        clauses
    }

    fn format(&mut self, name: &Spanned<String>) -> Option<Format> {
        let found = Format::ALL.into_iter().find(|f| f.name() == name.get_ref());
        if found.is_none() {
            let all: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            let message = format!(
                "unknown format `{}`: one of {}",
                name.get_ref(),
                all.join(", ")
            );
            self.problem("score::format", span_of(name), message);
        }
        found
    }

    /// Whether a rubric format can read what the rulebook writes.
    fn suits(
        &mut self,
        fmt: Format,
        expr: &rbm::Formula,
        written: rbm::Format,
        key: &str,
        decision: &str,
        span: Span,
    ) {
        let numeric = matches!(
            written,
            rbm::Format::Fixed(_)
                | rbm::Format::Decimal
                | rbm::Format::Integer
                | rbm::Format::Number
        );
        let ok = match fmt {
            Format::Decision => matches!(expr.node.kind, NodeKind::Decision),
            Format::Money | Format::SignedMoney => matches!(written, rbm::Format::Fixed(2)),
            // A fixed or decimal field is written as a string, which an
            // `amount` reads only with `[amounts] strings`: else every
            // reply, the reference's included, was a bad value.
            Format::Amount => {
                matches!(written, rbm::Format::Integer | rbm::Format::Number)
                    || (numeric && self.amount_strings)
            }
            Format::Decimal => numeric,
            Format::Clauses => written == rbm::Format::Clauses,
            Format::String => matches!(written, rbm::Format::Text | rbm::Format::Calendar),
            Format::Any => true,
        };
        if !ok {
            let message = format!(
                "`{key}` of `{decision}` in {} is written as {}, which the format `{}` cannot read{}",
                self.side(),
                written_word(written),
                fmt.name(),
                if fmt == Format::Amount && numeric {
                    " without `[amounts] strings = true`"
                } else {
                    ""
                }
            );
            self.problem("score::format", span, message);
            return;
        }
        // An amount of more places than `[amounts] places` reads is no
        // amount: the reference's own reply was malformed, every answer
        // scored its floor.
        if let (Format::Amount, rbm::Format::Fixed(p)) = (fmt, written) {
            if p as usize > self.amount_places {
                let message = format!(
                    "`{key}` of `{decision}` in {} is written with {p} places, more than the {} `[amounts] places` lets an amount have",
                    self.side(),
                    self.amount_places
                );
                self.problem("score::format", span, message);
            }
        }
    }

    fn decision_key(
        &mut self,
        raw: &RawReply,
        raw_decisions: &IndexMap<Spanned<String>, RawDecision>,
        decisions: &[DecisionRubric],
    ) -> Option<String> {
        let Some(key) = &raw.decision_key else {
            if self.rb.decisions.len() > 1 {
                let span = raw_decisions.keys().next().map(span_of).unwrap_or_default();
                let message = format!(
                    "{} has {} decisions: name the reply's decision key with `[reply] decision_key`",
                    self.side(),
                    self.rb.decisions.len()
                );
                self.problem("score::decision_key", span, message);
            }
            return None;
        };
        for d in decisions {
            let ok = d.fields.iter().any(|f| {
                &f.key == key.get_ref() && matches!(f.kind, FieldKind::Value(Format::Decision))
            });
            if !ok {
                let message = format!(
                    "`{}` is not a field of format `decision` in the answer of `{}`",
                    key.get_ref(),
                    d.name
                );
                self.problem("score::decision_key", span_of(key), message);
            }
        }
        Some(key.get_ref().clone())
    }

    fn path(
        &mut self,
        text: &Spanned<String>,
        fields: &[Field],
        decision: &str,
    ) -> Option<FieldPath> {
        self.path_str(text.get_ref(), span_of(text), fields, decision)
    }

    fn path_str(
        &mut self,
        text: &str,
        span: Span,
        fields: &[Field],
        decision: &str,
    ) -> Option<FieldPath> {
        let (root, item) = match text.split_once('.') {
            Some((r, i)) => (r, Some(i)),
            None => (text, None),
        };
        let found =
            fields
                .iter()
                .position(|f| f.key == root)
                .and_then(|r| match (&fields[r].kind, item) {
                    (FieldKind::Value(fmt), None) if *fmt != Format::Decision => Some(FieldPath {
                        text: text.to_string(),
                        root: r,
                        item: None,
                    }),
                    (FieldKind::List(items) | FieldKind::Keyed(items), Some(i)) => items
                        .iter()
                        .position(|f| f.key == i && matches!(f.kind, FieldKind::Value(_)))
                        .map(|i| FieldPath {
                            text: text.to_string(),
                            root: r,
                            item: Some(i),
                        }),
                    _ => None,
                });
        if found.is_none() {
            let message = format!(
                "the answer of `{decision}` in {} has no graded value `{text}` (a field, or `list.field` for each item)",
                self.side()
            );
            self.problem("score::unknown_field", span, message);
        }
        found
    }

    fn partial(&mut self, raw: &RawPartial, fields: &[Field], decision: &str) -> Partial {
        self.once(&raw.gates, "`gates`");
        let gates = raw
            .gates
            .iter()
            .filter_map(|g| self.path(g, fields, decision))
            .collect();
        let mut weights = Vec::new();
        let mut weighed = false;
        for (path, w) in &raw.weights {
            let weight = self.decimal(w);
            weighed |= !weight.is_zero();
            if weight < Decimal::ZERO {
                self.problem(
                    "score::decimal",
                    span_of(w),
                    "a weight cannot be negative".into(),
                );
            }
            if let Some(p) = self.path_str(path, span_of(w), fields, decision) {
                weights.push((p, weight));
            }
        }
        // Weights all zero make every share zero: `scale` never counts, and
        // partial credit grades no field, whatever the reply.
        if let Some((_, first)) = raw.weights.first() {
            if !weighed {
                self.problem(
                    "score::weights",
                    span_of(first),
                    "every weight is 0, so partial credit would grade no field: weigh at least one field above 0, or leave `weights` out".into(),
                );
            }
        }
        let mut requires = Vec::new();
        for (path, list) in &raw.requires {
            let span = span_of(list);
            let Some(p) = self.path_str(path, span, fields, decision) else {
                continue;
            };
            let mut needs = Vec::new();
            for q in list.get_ref() {
                if let Some(q) = self.path_str(q, span, fields, decision) {
                    if q.item.is_some() && q.root != p.root {
                        let message = format!(
                            "`{}` and `{}` are fields of different lists",
                            p.text, q.text
                        );
                        self.problem("score::requires", span, message);
                    }
                    needs.push(q);
                }
            }
            requires.push((p, needs));
        }
        let or_zero = |cx: &mut Self, s: &Option<Spanned<String>>| {
            s.as_ref().map_or(Decimal::ZERO, |s| cx.decimal(s))
        };
        Partial {
            gates,
            otherwise: or_zero(self, &raw.otherwise),
            zero_if_expected_zero: raw.zero_if_expected_zero,
            nonzero_expected_only: raw.nonzero_expected_only,
            base: or_zero(self, &raw.base),
            scale: or_zero(self, &raw.scale),
            cap: raw.cap.as_ref().map(|c| self.decimal(c)),
            weights,
            requires,
        }
    }

    fn score(
        &mut self,
        raw: &RawScore,
        raw_decisions: &IndexMap<Spanned<String>, RawDecision>,
        decisions: &[DecisionRubric],
    ) -> ScoreRules {
        let explanation = raw.explanation.as_ref().map(|e| {
            let weight = self.decimal(&e.weight);
            if weight < Decimal::ZERO || weight > Decimal::ONE {
                self.problem(
                    "score::decimal",
                    span_of(&e.weight),
                    "the weight is between 0 and 1".into(),
                );
            }
            self.once(&e.decisions, "the explanation's `decisions`");
            for d in &e.decisions {
                if !decisions.iter().any(|x| &x.name == d.get_ref()) {
                    let message = format!("{} has no decision `{}`", self.side(), d.get_ref());
                    self.problem("score::unknown_decision", span_of(d), message);
                }
            }
            Explanation {
                weight,
                decisions: e.decisions.iter().map(|d| d.get_ref().clone()).collect(),
                clauses: self.clauses(&e.clauses),
            }
        });
        let citations = raw.citations.as_ref().map(|c| self.decimal(c));
        if let Some(c) = &raw.citations {
            for d in decisions {
                if !d
                    .fields
                    .iter()
                    .any(|f| matches!(f.kind, FieldKind::Value(Format::Clauses)))
                {
                    let message = format!(
                        "citations are scored, but the answer of `{}` in {} has no field of format `clauses`",
                        d.name,
                        self.side()
                    );
                    self.problem("score::citations", span_of(c), message);
                }
            }
        }
        let rules = ScoreRules {
            malformed: self.decimal(&raw.malformed),
            wrong_decision: self.decimal(&raw.wrong_decision),
            wrong: self.decimal(&raw.wrong),
            exact: self.decimal(&raw.exact),
            citations,
            all_or_nothing: raw.all_or_nothing,
            explanation,
        };
        for (at, message) in out_of_order(raw, raw_decisions, &rules, decisions) {
            self.problem("score::order", at, message);
        }
        rules
    }
}

fn written_word(f: rbm::Format) -> &'static str {
    match f {
        rbm::Format::Fixed(2) => "money (`money`)",
        rbm::Format::Fixed(_) => "a fixed-point decimal string",
        rbm::Format::Decimal => "a decimal string",
        rbm::Format::Integer => "a JSON integer",
        rbm::Format::Number => "a JSON number",
        rbm::Format::Text => "text",
        rbm::Format::Bool => "a boolean",
        rbm::Format::Calendar => "a date or month",
        rbm::Format::Clauses => "a clause list",
    }
}
