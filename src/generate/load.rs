//! Loading a generator and checking it against the rulebook version it
//! names: every field it draws against the input it fills (name, type,
//! places, bounds), every step, decision, reason, ablation and answer field
//! it names, every expression it evaluates. A disagreement is a located
//! diagnostic in the generator file that names the rulebook's side too, so
//! schema drift is caught when the generator loads, not in a scorer later.

use rust_decimal::Decimal;
use std::path::Path;
use std::sync::Arc;
use toml::Spanned;

use super::model::*;
use super::prompt;
use super::raw::*;
use super::spans::content_offset;
use crate::case::toml::json_from_toml;
use crate::diag::{Diagnostics, Problem};
use crate::model::{Formula, Rulebook, Type};
use crate::rulebook::check::parse_plain_decimal;
use crate::rulebook::load::content_hash;
use crate::span::Span;
use crate::tasks::{check_pin, load_companion, parse_toml, CompanionError, Pin, PinWords};
use crate::value::{parse_date, Month};

/// Most draws of one task a generator may ask for: one task never runs unbounded.
const MAX_REDRAWS: u32 = 100_000;
/// Most draws of one task, unless the generator says otherwise.
const DEFAULT_MAX_REDRAWS: u32 = 1000;
/// Most evaluations of the rulebook one task's draws make, unless the file
/// sets fewer or more (`budget`): 1,000 redraws of 50 evaluations each;
/// the hungriest task of the bundled generators' first 2,000 makes 306.
const DEFAULT_MAX_EVALUATIONS: u64 = 50_000;
/// What a file may set it to.
const MAX_EVALUATIONS: u64 = 1_000_000;
/// Most worked examples a prompt holds (the bundled prompts hold up to 6):
/// each is evaluated at load and shown in every task's prompt, and 8,000 of
/// them took 1.5 GB to load.
const MAX_EXAMPLES: usize = 100;
/// Most units of evaluation budget one task's draws spend, all their
/// evaluations and prompt renderings together, unless the file sets fewer
/// or more (`budget`): each evaluation is bounded by the rulebook's
/// `max_eval_steps` and each rendering by its fuel, but 50,000 of them at a
/// million each would take hours. The hungriest task of the bundled
/// generators' first 2,000 spends 64,654 (succession-fr).
const DEFAULT_MAX_STEPS: u64 = 100_000_000;
/// What a file may set it to.
const MAX_STEPS: u64 = 10_000_000_000;
/// The longest run of a stratified pick (the sum of a level's weights): a
/// task deals its run's profiles, so this bounds the work of one pick.
const MAX_STRATUM: u64 = 100_000;
/// Why a generator could not be loaded: the error of every companion file.
///
/// ```
/// let err = bareme::load_generator("rulebooks/no-such/generator-1.toml".as_ref(), None).unwrap_err();
/// assert!(err.to_string().contains("no-such"));
/// ```
pub type GeneratorError = CompanionError;

/// How a generator names its rulebook, in its diagnostics.
const PIN: PinWords = PinWords {
    malformed: "generate::rulebook",
    other_version: "generate::rulebook_version",
    says: "this generator is written against",
};

/// Loads a generator file and the rulebook it names: `rulebook` when given,
/// else `v<version>` beside the generator file.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/sales-tax/generator-1.toml".as_ref(), None)?;
/// assert_eq!(rb.id(), "sales-tax");
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// assert_eq!(drawer.task(7, 3, None)?.task.rulebook_id, "sales-tax");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_generator(
    path: &Path,
    rulebook: Option<&Path>,
) -> Result<(Generator, Rulebook), CompanionError> {
    load_companion(path, "generator", rulebook, parse_generator)
}

/// Parses and checks generator text against a rulebook.
pub fn parse_generator(name: &str, text: &str, rb: &Rulebook) -> Result<Generator, Diagnostics> {
    let (raw, mut diags) = parse_toml::<RawGenerator>(name, text, "generate::toml")?;
    let mut cx = Checker {
        rb,
        free: rb.free_names(),
        text,
        diags: &mut diags,
        reported: std::collections::HashSet::new(),
    };
    let generator = cx.generator(raw, content_hash(text));
    if diags.problems.is_empty() {
        if let Some(g) = generator {
            return Ok(g);
        }
    }
    Err(diags)
}

/// The checker's state while a generator file is read against its
/// rulebook: where its problems go and what it resolves names in.
pub(super) struct Checker<'a> {
    pub(super) rb: &'a Rulebook,
    /// The rulebook's namespace, built once for every formula of the file.
    pub(super) free: crate::rulebook::FreeNames,
    pub(super) text: &'a str,
    pub(super) diags: &'a mut Diagnostics,
    /// The problems reported, each once.
    pub(super) reported: std::collections::HashSet<(&'static str, Span, String)>,
}

pub(super) fn span_of<T>(s: &Spanned<T>) -> Span {
    Span::from(s.span())
}

/// Where a path of the case leads in the rulebook's input schema.
#[derive(Clone, Copy)]
pub(super) enum Slot<'r> {
    /// An input, a record field or a table column.
    Input(&'r crate::model::Input),
    /// A row of a table input (by any name).
    Row(crate::model::TableId),
}

impl<'a> Checker<'a> {
    /// Where a field's key is first written, when its value has no span of its own.
    /// Reports a problem once: a field's part is read for each profile and
    /// level that draws it, and its problem was reported each time.
    pub(super) fn problem(&mut self, code: &'static str, span: Span, message: String) {
        if self.reported.insert((code, span, message.clone())) {
            self.diags
                .push(Problem::new(code, message).at(span, "here"));
        }
    }

    pub(super) fn side(&self) -> String {
        format!("{}@{}", self.rb.id(), self.rb.version())
    }

    fn generator(&mut self, raw: RawGenerator, hash: String) -> Option<Generator> {
        let h = &raw.generator;
        if check_pin(&h.rulebook, self.rb, &PIN, self.diags) == Pin::Malformed {
            return None;
        }
        // The names a generator derives are the rulebook's (the one it
        // names, unless that is a problem already reported).
        let id = self.rb.id().to_string();
        let language = match h.language.as_ref().map(|l| l.get_ref().as_str()) {
            None | Some("en") => Language::English,
            Some("fr") => Language::French,
            Some(other) => {
                let message = format!("unknown language `{other}`: `en` or `fr`");
                let span = h.language.as_ref().map(span_of).unwrap_or_default();
                self.problem("generate::language", span, message);
                Language::English
            }
        };

        let checks = self.checks(&raw.checks);
        let profiles = self.profiles(&raw.profiles);
        let levels = self.levels(&raw.levels, &profiles);
        // A level is drawn when a profile of it has a weight; one of bases
        // (weight 0) alone is not, and the default mix leaves it out.
        let drawn = |lv: &Level| lv.profiles.iter().any(|(_, w)| *w > 0);
        let mix = match &h.mix {
            Some(mix) => {
                for l in mix.get_ref() {
                    match levels.iter().find(|lv| lv.number == *l) {
                        None => {
                            let message = format!("the mix names level {l}, which no profile has");
                            self.problem("generate::mix", span_of(mix), message);
                        }
                        Some(lv) if !drawn(lv) => {
                            let message = format!(
                                "the mix names level {l}, whose profiles all weigh 0 (bases, never drawn)"
                            );
                            self.problem("generate::mix", span_of(mix), message);
                        }
                        Some(_) => {}
                    }
                }
                mix.get_ref().clone()
            }
            None => levels
                .iter()
                .filter(|lv| drawn(lv))
                .map(|l| l.number)
                .collect(),
        };
        if mix.is_empty() {
            self.problem(
                "generate::mix",
                span_of(&h.number),
                "no level to draw".into(),
            );
        }
        let stratified = match h.pick.as_ref().map(|p| p.get_ref().as_str()) {
            None | Some("weighted") => false,
            Some("stratified") => true,
            Some(other) => {
                let message = format!("unknown pick `{other}`: `weighted` or `stratified`");
                let span = h.pick.as_ref().map(span_of).unwrap_or_default();
                self.problem("generate::pick", span, message);
                false
            }
        };
        if stratified {
            for level in &levels {
                let period: u64 = level.profiles.iter().map(|(_, w)| u64::from(*w)).sum();
                if period > MAX_STRATUM {
                    let message = format!(
                        "a stratified pick deals a level's profiles in runs as long as their \
                         weights' sum, at most {MAX_STRATUM}; level {} sums to {period}",
                        level.number
                    );
                    let span = h.pick.as_ref().map(span_of).unwrap_or_default();
                    self.problem("generate::pick", span, message);
                }
            }
        }
        let mut opening = Vec::new();
        for name in h
            .opening
            .as_ref()
            .map(|o| o.get_ref().as_slice())
            .unwrap_or_default()
        {
            let found = profiles.iter().position(|p| *p.name == **name);
            match found.filter(|i| {
                let p = &profiles[*i];
                p.weight > 0 && mix.contains(&p.level)
            }) {
                Some(i) => opening.push(i),
                None => {
                    let message = format!(
                        "the opening names `{name}`, which is not a drawn profile of a level in the mix"
                    );
                    let span = h.opening.as_ref().map(span_of).unwrap_or_default();
                    self.problem("generate::opening", span, message);
                }
            }
        }
        let family = match &h.name {
            Some(name) => {
                let text = name.get_ref();
                let ok = !text.is_empty()
                    && text.len() <= 40
                    && text
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
                if !ok {
                    let message = format!(
                        "generator name `{text}`: 1 to 40 lower-case letters, digits and `-`"
                    );
                    self.problem("generate::name", span_of(name), message);
                }
                Some(text.as_str())
            }
            None => None,
        };
        let mut options = Vec::new();
        for (name, on) in &raw.prompt.options {
            let ok = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !ok {
                let message =
                    format!("prompt option `{name}`: a lower-case name of letters, digits and `_`");
                self.problem("generate::option", span_of(&raw.prompt.task), message);
            }
            options.push((name.clone(), *on));
        }
        let mut examples = Vec::new();
        if let Some(extra) = raw.prompt.examples.get(MAX_EXAMPLES) {
            let message = format!(
                "the prompt has {} worked examples, more than the {MAX_EXAMPLES} a prompt may hold",
                raw.prompt.examples.len()
            );
            self.problem("generate::example", span_of(&extra.case), message);
        }
        for (i, example) in raw.prompt.examples.iter().take(MAX_EXAMPLES).enumerate() {
            let case = match json_from_toml(example.case.get_ref()) {
                Ok(case) => case,
                Err(e) => {
                    let message = format!("example {}: {e}", i + 1);
                    self.problem("generate::example", span_of(&example.case), message);
                    continue;
                }
            };
            // The reference answers it now, so an example the rulebook
            // refuses fails the load where it is written.
            if let Err(e) = crate::evaluation::evaluate_value(self.rb, &case, false) {
                let message = format!("example {}: the reference gives no answer: {e}", i + 1);
                self.problem("generate::example", span_of(&example.case), message);
            }
            examples.push(Example {
                name: example.name.clone(),
                case,
                explanation: example.explanation.clone(),
            });
        }
        let prompt = Prompt {
            format: raw.prompt.format.clone().unwrap_or_default(),
            rules: raw.prompt.rules.clone().unwrap_or_default(),
            task: raw.prompt.task.get_ref().clone(),
            defaults: options.iter().map(|(_, on)| *on).collect(),
            options,
            examples,
        };
        if let Err(e) = prompt::compile(&prompt) {
            self.problem("generate::template", span_of(&raw.prompt.task), e);
        }
        if let Some(template) = &h.id {
            self.id_template(template);
        }
        Some(Generator {
            name: generator_name(family, *h.number.get_ref(), &id),
            number: *h.number.get_ref(),
            title: h.title.clone(),
            rulebook: format!("{}@{}", self.rb.id(), self.rb.version()),
            rulebook_hash: self.rb.hash().to_string(),
            hash,
            rubric: *h.rubric.get_ref(),
            language,
            id: h
                .id
                .as_ref()
                .map_or_else(|| format!("{id}-{{index}}"), |s| s.get_ref().clone()),
            mix,
            levels,
            opening,
            profiles,
            checks,
            prompt,
            max_redraws: self.limit(
                &h.max_redraws,
                "max_redraws",
                DEFAULT_MAX_REDRAWS,
                MAX_REDRAWS,
            ),
            max_evaluations: self.limit(
                &h.max_evaluations,
                "max_evaluations",
                DEFAULT_MAX_EVALUATIONS,
                MAX_EVALUATIONS,
            ),
            max_steps: self.limit(&h.max_steps, "max_steps", DEFAULT_MAX_STEPS, MAX_STEPS),
            keep_profile: h.keep_profile.unwrap_or(false),
            stratified,
        })
    }

    fn checks(&mut self, raw: &RawChecks) -> Checks {
        for field in &raw.no_leak {
            self.answer_field(field);
        }
        for field in &raw.may_copy {
            self.answer_field(field);
        }
        let margin = raw.margin.as_ref().and_then(|m| self.decimal(m));
        let mut margins = Vec::new();
        for (step, m) in &raw.margins {
            if !self.is_step(step) {
                let message = format!(
                    "{} has no step `{step}` whose roundings a margin could bound (a per-item step is `group.step`)",
                    self.side()
                );
                self.problem("generate::unknown_step", span_of(m), message);
            }
            if let Some(d) = self.decimal(m) {
                margins.push((Arc::from(step.as_str()), d));
            }
        }
        let signature = raw
            .signature
            .iter()
            .filter_map(|s| self.formula(s, None))
            .collect();
        Checks {
            no_leak: raw
                .no_leak
                .iter()
                .map(|f| Arc::from(f.get_ref().as_str()))
                .collect(),
            hide_reason: raw.hide_reason,
            margin,
            margins,
            may_copy: raw
                .may_copy
                .iter()
                .map(|f| Arc::from(f.get_ref().as_str()))
                .collect(),
            signature,
        }
    }

    /// Whether the rulebook has this step: `name`, or `group.name` for a per-item step.
    pub(super) fn is_step(&self, name: &str) -> bool {
        match name.split_once('.') {
            None => self.rb.steps.iter().any(|s| &*s.name == name),
            Some((group, step)) => self
                .rb
                .groups
                .iter()
                .any(|g| &*g.name == group && g.steps.iter().any(|s| &*s.name == step)),
        }
    }

    /// Whether some decision of the rulebook has this answer field (at any
    /// depth: a field of each item's object counts).
    pub(super) fn answer_field(&mut self, field: &Spanned<String>) {
        fn has(outputs: &[crate::model::Output], key: &str) -> bool {
            outputs.iter().any(|o| {
                &*o.key == key
                    || matches!(&o.value, crate::model::OutputValue::Each { fields, .. } if has(fields, key))
            })
        }
        let known = self
            .rb
            .decisions
            .iter()
            .any(|d| has(&d.answer, field.get_ref()));
        if !known {
            let message = format!(
                "`{}` is not an answer field of any decision of {}",
                field.get_ref(),
                self.side()
            );
            self.problem("generate::unknown_answer_field", span_of(field), message);
        }
    }

    fn levels(
        &mut self,
        raw: &indexmap::IndexMap<String, RawLevel>,
        profiles: &[Profile],
    ) -> Vec<Level> {
        let mut levels: Vec<Level> = Vec::new();
        for (i, p) in profiles.iter().enumerate() {
            let weight = p.weight;
            match levels.iter_mut().find(|l| l.number == p.level) {
                Some(l) => l.profiles.push((i, weight)),
                None => levels.push(Level {
                    number: p.level,
                    label: None,
                    ablations: Vec::new(),
                    watch: Vec::new(),
                    profiles: vec![(i, weight)],
                }),
            }
        }
        for (key, level) in raw {
            let Ok(number) = key.parse::<i64>() else {
                let span = level.ablations.first().map(span_of).unwrap_or_default();
                self.problem(
                    "generate::level",
                    span,
                    format!("level `{key}` is not a number"),
                );
                continue;
            };
            for a in level.ablations.iter().chain(&level.watch) {
                self.ablation(a);
            }
            let names = |list: &[Spanned<String>]| -> Vec<Arc<str>> {
                list.iter()
                    .map(|a| Arc::from(a.get_ref().as_str()))
                    .collect()
            };
            match levels.iter_mut().find(|l| l.number == number) {
                Some(l) => {
                    l.label = level.label.clone();
                    l.ablations = names(&level.ablations);
                    l.watch = names(&level.watch);
                }
                None => {
                    let span = level.ablations.first().map(span_of).unwrap_or_default();
                    self.problem(
                        "generate::level",
                        span,
                        format!("level {number} has no profile"),
                    );
                }
            }
        }
        levels.sort_by_key(|l| l.number);
        levels
    }

    pub(super) fn ablation(&mut self, a: &Spanned<String>) {
        if !self.rb.ablation_names().any(|n| n == a.get_ref()) {
            let known: Vec<&str> = self.rb.ablation_names().collect();
            let message = format!(
                "{} declares no ablation `{}` (it declares: {})",
                self.side(),
                a.get_ref(),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            );
            self.problem("generate::unknown_ablation", span_of(a), message);
        }
    }

    /// A free expression over the rulebook's names, located in the generator on a problem.
    pub(super) fn formula(&mut self, s: &Spanned<String>, want: Option<Type>) -> Option<Formula> {
        self.formula_with(s, want, Vec::new())
    }

    pub(super) fn formula_with(
        &mut self,
        s: &Spanned<String>,
        want: Option<Type>,
        locals: Vec<(Arc<str>, Type)>,
    ) -> Option<Formula> {
        let (f, ty) = self.formula_typed(s, locals)?;
        if let Some(want) = want {
            if !want.accepts(&ty) {
                let message = format!("expected a {want:?} expression, found a {ty:?} one");
                self.problem("generate::type", span_of(s), message);
            }
        }
        Some(f)
    }

    /// A free expression and its type.
    pub(super) fn formula_typed(
        &mut self,
        s: &Spanned<String>,
        locals: Vec<(Arc<str>, Type)>,
    ) -> Option<(Formula, Type)> {
        let whole = span_of(s);
        let offset = content_offset(self.text, whole, s.get_ref());
        match self.rb.free_formula_in(&self.free, s.get_ref(), locals) {
            Ok(found) => Some(found),
            Err(problems) => {
                for p in problems {
                    let at = match offset {
                        Some(o) => p.span.shifted(o),
                        None => whole,
                    };
                    let message = format!("{} (names are those of {})", p.message, self.side());
                    let mut problem = Problem::new(p.code, message).at(at, "here");
                    if let Some(h) = p.help {
                        problem = problem.help(h);
                    }
                    self.diags.push(problem);
                }
                None
            }
        }
    }

    pub(super) fn decimal(&mut self, s: &Spanned<String>) -> Option<Decimal> {
        let d = parse_plain_decimal(s.get_ref());
        if d.is_none() {
            let message = format!("`{}` is not a plain decimal", s.get_ref());
            self.problem("generate::decimal", span_of(s), message);
        }
        d
    }

    /// A grid's `step`: a plain decimal above zero. A step of 0 or below
    /// loaded, and every draw then failed on an "empty range".
    pub(super) fn grid(&mut self, s: &Spanned<String>) -> Option<Decimal> {
        let d = self.decimal(s)?;
        if d <= Decimal::ZERO {
            let message = format!("`step = \"{}\"`: a grid's step is above 0", s.get_ref());
            self.problem("generate::decimal", span_of(s), message);
            return None;
        }
        Some(d)
    }

    /// A task id template: `{index}` in it, so that each task's id is its
    /// own (`id = "p"` gave every task the same id, and `score` then
    /// refused the set), and no placeholder but `{level}`, `{index}`,
    /// `{tier}` and `{branch}` (`{nope}` was written as it is).
    fn id_template(&mut self, t: &Spanned<String>) {
        let text = t.get_ref();
        let mut rest = text.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                self.problem(
                    "generate::id",
                    span_of(t),
                    "an unclosed `{` in the task id".into(),
                );
                return;
            };
            let name = &rest[open + 1..open + close];
            if !matches!(name, "level" | "index" | "tier" | "branch") {
                let message = format!("the task id names `{{{name}}}`: its placeholders are {{level}}, {{index}}, {{tier}} and {{branch}}");
                self.problem("generate::id", span_of(t), message);
            }
            rest = &rest[open + close + 1..];
        }
        if !text.contains("{index}") {
            let message = "the task id holds no `{index}`: every task would have the same id";
            self.problem("generate::id", span_of(t), message.into());
        }
        // The index's digits must be told apart from what is around them:
        // with `{tier}{index}`, tier `a` task 11 and tier `a1` task 1 were
        // both `a11`, and `score` refused the set `generate` wrote.
        for (at, _) in text.match_indices("{index}") {
            let before = text[..at].chars().next_back();
            let after = text[at + "{index}".len()..].chars().next();
            let apart =
                |c: Option<char>| c.is_none_or(|c| !c.is_ascii_digit() && c != '{' && c != '}');
            if !apart(before) || !apart(after) {
                let message = "the task id's `{index}` must stand apart: a character that is not a digit, or the id's start or end, on each side (`{tier}-{index}`), else two tasks can share an id";
                self.problem("generate::id", span_of(t), message.into());
                break;
            }
        }
    }

    /// A field's `chance`: a probability, from 0 to 1 (`2` drew the field
    /// always and `-1` never, silently).
    pub(super) fn chance(&mut self, s: &Spanned<String>) -> Option<Decimal> {
        let d = self.decimal(s)?;
        if d < Decimal::ZERO || d > Decimal::ONE {
            let message = format!("`chance` is a probability from 0 to 1, found {d}");
            self.problem("generate::decimal", span_of(s), message);
            return None;
        }
        Some(d)
    }

    /// A limit of the run (`max_redraws`, …): `default` when not given, and
    /// a value outside 1 to `most` refused where it is written rather than
    /// quietly taken as the nearest.
    fn limit<T>(&mut self, given: &Option<Spanned<T>>, key: &str, default: T, most: T) -> T
    where
        T: Copy + PartialOrd + From<u8> + std::fmt::Display,
    {
        let Some(given) = given else {
            return default;
        };
        let v = *given.get_ref();
        if v < T::from(1) || v > most {
            let message = format!("`{key}` is {v}: it is 1 to {most}");
            self.problem("generate::limit", span_of(given), message);
            return default;
        }
        v
    }

    pub(super) fn bound(&mut self, s: &Spanned<String>) -> Option<Bound> {
        match parse_plain_decimal(s.get_ref()) {
            Some(d) => Some(Bound::Const(d)),
            None => self.formula(s, Some(Type::Number)).map(Bound::Expr),
        }
    }

    /// A bound of a date (`date`) or month draw: a literal, or an expression
    /// giving a date or a month.
    pub(super) fn moment(&mut self, s: &Spanned<String>, date: bool) -> Option<Moment> {
        let text = s.get_ref();
        if date {
            if let Some(d) = parse_date(text) {
                return Some(Moment::Date(d));
            }
        }
        if let Some(m) = Month::parse(text) {
            return Some(Moment::Month(m));
        }
        let (f, ty) = self.formula_typed(s, Vec::new())?;
        if !matches!(ty, Type::Date | Type::Month | Type::Any) {
            let message = format!(
                "`{text}` is neither a {} nor an expression giving a date or a month (it gives a {ty:?})",
                if date { "date `YYYY-MM-DD`" } else { "month `YYYY-MM`" }
            );
            self.problem("generate::type", span_of(s), message);
            return None;
        }
        Some(Moment::Expr(f))
    }
}

/// `luma-payroll/generator-4`.
/// `luma-payroll/generator-transfer-1` with a name.
fn generator_name(family: Option<&str>, number: i64, id: &str) -> String {
    match family {
        Some(name) => format!("{id}/generator-{name}-{number}"),
        None => format!("{id}/generator-{number}"),
    }
}
