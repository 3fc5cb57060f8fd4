//! One task: drawn from its own random stream, evaluated by the reference,
//! and kept only when it passes every self-check its generator declares;
//! otherwise drawn again, and the reason counted. What is drawn is a
//! `tasks::Task`, the very line a task file holds. Its signature and
//! identity (what makes two tasks one case) are computed here alike for a
//! draw and for a case read back from a task file.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use super::budget::{Evaluations, Spent};
use super::draw::{decimal_json, Drawer, Redraw};
use super::leak::{json_decimal, leaks};
use super::model::*;
use super::prompt::Renderer;
use crate::case::validate_case;
use crate::eval::{evaluate, evaluate_ended, evaluate_formula, FormulaReader, Outcome};
use crate::facts::Facts;
use crate::model::{CheckOutcome, Rulebook};
use crate::outcome::{outcome_json, EvalError};
use crate::rulebook::AblationError;
use crate::tasks::Task;
use crate::trace::Event;
use crate::value::Value;

/// A task and the draws it took.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let drawn = drawer.task(2026, 0, None)?;
/// let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
/// let scorer = bareme::Scorer::new(rubric, false);
/// // The same seed and index draw the same task, on any machine.
/// assert_eq!(drawer.task(2026, 0, None)?.task.case, drawn.task.case);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DrawnTask {
    /// The task, as its line of a task file.
    pub task: Task,
    /// What identifies it among the tasks of a set (empty without a
    /// signature): a later task with the same one is a duplicate.
    pub signature: String,
    /// Draws abandoned before it, by reason.
    pub redraws: BTreeMap<String, u64>,
    /// Evaluations of the rulebook its draws made, the abandoned ones
    /// included (at most the generator's `max_evaluations`).
    pub evaluations: u64,
}

/// The draws of one task index: its stream where it stands, and what it
/// has cost so far. Made by [`TaskDrawer::draws`], drawn from by
/// [`TaskDrawer::next`].
pub(crate) struct Draws<'g> {
    rng: ChaCha8Rng,
    index: u64,
    level: &'g Level,
    /// The profile every draw keeps to (`keep_profile`).
    kept: Option<usize>,
    /// Draws taken, the passing ones included.
    attempts: u32,
    /// Draws abandoned since the last task given, by reason.
    fresh: BTreeMap<String, u64>,
    /// Every draw abandoned, by reason.
    tally: BTreeMap<String, u64>,
    /// Tasks given and then refused by the run.
    refused: u32,
    /// What every draw of the index has cost, and may.
    evaluations: Evaluations,
}

impl Draws<'_> {
    /// The task last given is refused (`reason`: why, after its branch):
    /// the next one is drawn where the stream stands.
    pub(crate) fn refuse(&mut self, branch: &str, reason: &str) {
        self.refused += 1;
        self.count(format!("{branch}: {reason}"));
    }

    /// The most frequent reason a draw was abandoned, with its count.
    fn worst(&self) -> String {
        self.tally
            .iter()
            .max_by_key(|(_, n)| **n)
            .map_or_else(|| "none".into(), |(r, n)| format!("{r} ({n} times)"))
    }

    fn count(&mut self, reason: String) {
        *self.tally.entry(reason.clone()).or_default() += 1;
        *self.fresh.entry(reason).or_default() += 1;
    }
}

/// A generator ready to draw: its rulebook, prompts and ablated copies.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
/// let drawn = drawer.task(2026, 0, None)?;
/// let (rubric, _) = bareme::load_rubric("rulebooks/luma-payroll/rubric-8.toml".as_ref(), None)?;
/// let scorer = bareme::Scorer::new(rubric, false);
/// let graded = scorer.score(&drawn.task, &scorer.reference_reply(&drawn.task.expected), None)?;
/// assert_eq!(graded.score, graded.max);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TaskDrawer<'g> {
    pub(crate) generator: &'g Generator,
    pub(crate) rb: &'g Rulebook,
    renderer: Renderer,
    ablated: HashMap<Arc<str>, Rulebook>,
    /// The stratified runs dealt most recently (`pick = "stratified"`).
    decks: Decks,
}

/// A run of a level's stratified deal: (seed, level, run number).
type Run = (u64, i64, u64);

/// The stratified runs a drawer dealt most recently: tasks in index order
/// draw from the same run, which is shuffled once rather than once a task.
#[derive(Default)]
struct Decks(Mutex<VecDeque<(Run, Arc<[usize]>)>>);

/// How many runs a drawer keeps dealt (a level each, with room for the
/// runs that workers in parallel are in).
const KEPT_RUNS: usize = 16;

/// Why a task could not be generated at all.
///
/// ```
/// let error = bareme::GenerateError { index: 7, message: "every draw was refused".into() };
/// assert_eq!(error.to_string(), "task 7: every draw was refused");
/// ```
#[derive(Debug, thiserror::Error)]
#[error("task {index}: {message}")]
pub struct GenerateError {
    /// The task's index.
    pub index: u64,
    /// Why.
    pub message: String,
}

/// Why a checked generator cannot draw from its rulebook. Its `Display` is
/// the line `bareme generate` prints after `error: `.
///
/// ```
/// let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
/// assert!(bareme::TaskDrawer::new(&generator, &rb).is_ok());
/// let err = bareme::DrawerError::Template("template `rules`: unknown".into());
/// assert_eq!(err.code(), "generate::template");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DrawerError {
    /// A prompt template fails to compile, or to render its fixed parts
    /// (`template `rules` at level 2: …`).
    #[error("{0}")]
    Template(String),
    /// An ablation the generator names does not apply to the rulebook.
    #[error(transparent)]
    Ablation(#[from] AblationError),
}

impl DrawerError {
    /// A stable code: `generate::template`, or the ablation's own
    /// (`ablation::unknown`, …).
    pub fn code(&self) -> &'static str {
        match self {
            DrawerError::Template(_) => "generate::template",
            DrawerError::Ablation(e) => e.code(),
        }
    }
}

impl Decks {
    /// The profile of the task at `position` among its level's tasks,
    /// picked by strata: the positions are cut into runs as long as the
    /// weights' sum, each run deals every profile exactly its weight's
    /// times, in an order shuffled by a stream of its own (seed, generator,
    /// level, run). So any run of tasks holds each profile in its share,
    /// within one run's remainder, and a task still depends on (seed,
    /// generator, index) only: a run dealt again is the same deck. Runs are
    /// kept by seed, level and number: a drawer weighs each level one way.
    fn pick(
        &self,
        seed: u64,
        generator: &str,
        level: i64,
        position: u64,
        weighted: &[(usize, u32)],
    ) -> usize {
        let period: u64 = weighted.iter().map(|(_, w)| u64::from(*w)).sum();
        if period == 0 {
            return weighted.first().map_or(0, |(i, _)| *i);
        }
        let run = (seed, level, position / period);
        let at = usize::try_from(position % period).unwrap_or(0);
        let kept = {
            let decks = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            decks
                .iter()
                .find(|(r, _)| *r == run)
                .map(|(_, d)| d.clone())
        };
        let deck = kept.unwrap_or_else(|| {
            let deck: Arc<[usize]> = deal(seed, generator, level, run.2, weighted).into();
            let mut decks = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            if decks.len() == KEPT_RUNS {
                decks.pop_front();
            }
            decks.push_back((run, deck.clone()));
            deck
        });
        deck.get(at).copied().unwrap_or(0)
    }
}

impl<'g> TaskDrawer<'g> {
    /// Prepares a checked generator and its rulebook.
    ///
    /// ```
    /// let (generator, rb) = bareme::load_generator("rulebooks/succession-fr/generator-1.toml".as_ref(), None)?;
    /// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
    /// assert_eq!(drawer.task(1, 0, None)?.task.rulebook_id, "succession-fr");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(generator: &'g Generator, rb: &'g Rulebook) -> Result<TaskDrawer<'g>, DrawerError> {
        let renderer = Renderer::new(generator, rb).map_err(DrawerError::Template)?;
        let mut ablated = HashMap::new();
        let names = generator
            .levels
            .iter()
            .flat_map(|l| l.ablations.iter().chain(&l.watch))
            .chain(
                generator
                    .profiles
                    .iter()
                    .flat_map(|p| p.detect.iter().chain(&p.detect_each)),
            );
        for name in names {
            if !ablated.contains_key(name) {
                ablated.insert(name.clone(), rb.ablated(name)?);
            }
        }
        Ok(TaskDrawer {
            generator,
            rb,
            renderer,
            ablated,
            decks: Decks::default(),
        })
    }

    /// The answer format every task states alike.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
    /// assert!(!drawer.format().is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn format(&self) -> &str {
        self.renderer.format()
    }

    /// Task `index` of the run with this seed; `level` fixes the level:
    /// the first draw of its stream that passes every self-check.
    ///
    /// ```
    /// # let (generator, rb) = bareme::load_generator("rulebooks/luma-payroll/generator-4.toml".as_ref(), None)?;
    /// let drawer = bareme::TaskDrawer::new(&generator, &rb)?;
    /// let drawn = drawer.task(7, 41, None)?;
    /// assert_eq!(drawn.task.id, drawer.task(7, 41, None)?.task.id);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn task(
        &self,
        seed: u64,
        index: u64,
        level: Option<i64>,
    ) -> Result<DrawnTask, GenerateError> {
        let mut draws = self.draws(seed, index, level)?;
        self.next(&mut draws)
    }

    /// The draws of task `index`: its own stream, not yet drawn from.
    pub(crate) fn draws(
        &self,
        seed: u64,
        index: u64,
        level: Option<i64>,
    ) -> Result<Draws<'g>, GenerateError> {
        let g = self.generator;
        // The opening fixes the first tasks of a mixed run, level and profile.
        let opening = match level {
            Some(_) => None,
            None => usize::try_from(index)
                .ok()
                .and_then(|i| g.opening.get(i))
                .copied(),
        };
        let level_number = match (level, opening) {
            (Some(l), _) => l,
            (None, Some(p)) => g.profiles.get(p).map_or(1, |p| p.level),
            (None, None) => {
                let at = usize::try_from(index % g.mix.len().max(1) as u64).unwrap_or(0);
                g.mix.get(at).copied().unwrap_or(1)
            }
        };
        let fixed = level.is_some();
        let Some(level) = g.levels.iter().find(|l| l.number == level_number) else {
            return Err(GenerateError {
                index,
                message: format!("no level {level_number}"),
            });
        };
        // A profile of weight 0 is a base, never drawn: a level of bases
        // alone has nothing to draw (its last profile was drawn).
        if opening.is_none() && level.profiles.iter().all(|(_, w)| *w == 0) {
            return Err(GenerateError {
                index,
                message: format!("level {level_number} has no drawn profile: every weight is 0"),
            });
        }
        let mut rng = stream(seed, &g.name, index);
        let kept = if opening.is_some() {
            opening
        } else if g.stratified {
            let position = level_position(&g.mix, level_number, index, fixed);
            Some(self.decks.pick(
                seed,
                &self.generator.name,
                level_number,
                position,
                &level.profiles,
            ))
        } else {
            g.keep_profile.then(|| pick(&mut rng, &level.profiles))
        };
        Ok(Draws {
            rng,
            index,
            level,
            kept,
            attempts: 0,
            fresh: BTreeMap::new(),
            tally: BTreeMap::new(),
            refused: 0,
            evaluations: Evaluations::new(g.max_evaluations, g.max_steps),
        })
    }

    /// The next draw of `draws` that passes every self-check, where its
    /// stream stands: called again after [`Draws::refuse`], it gives the
    /// task that index holds when the one before was a duplicate. All
    /// draws of one index, refused ones included, count towards
    /// `max_redraws`.
    pub(crate) fn next(&self, draws: &mut Draws<'g>) -> Result<DrawnTask, GenerateError> {
        let g = self.generator;
        let index = draws.index;
        let fail = |message: String| GenerateError { index, message };
        while draws.attempts < g.max_redraws {
            draws.attempts += 1;
            let at = draws
                .kept
                .unwrap_or_else(|| pick(&mut draws.rng, &draws.level.profiles));
            let profile = &g.profiles[at];
            let mut broken = None;
            draws.evaluations.begin();
            let attempt = self.attempt(
                &mut draws.rng,
                &mut draws.evaluations,
                index,
                draws.level,
                profile,
                &mut broken,
            );
            draws.evaluations.end();
            match attempt {
                Ok((task, signature)) => {
                    return Ok(DrawnTask {
                        task,
                        signature,
                        redraws: std::mem::take(&mut draws.fresh),
                        evaluations: draws.evaluations.spent(),
                    })
                }
                // A template that fails fails every draw: no redraw mends it.
                Err(_) if broken.is_some() => return Err(fail(broken.unwrap_or_default())),
                Err(_) if draws.evaluations.exhausted().is_some() => {
                    let (made, key) = match draws.evaluations.exhausted() {
                        Some(Spent::Steps(n)) => (
                            format!("spent the {n} steps of evaluation and rendering"),
                            "max_steps",
                        ),
                        Some(Spent::Evaluations(_)) | None => (
                            format!(
                                "made the {n} evaluations of the rulebook",
                                n = g.max_evaluations
                            ),
                            "max_evaluations",
                        ),
                    };
                    return Err(fail(format!(
                        "its draws {made} a task may (`{key}`) in {} attempts; most frequent \
                         reason: {}",
                        draws.attempts,
                        draws.worst()
                    )));
                }
                Err(Redraw(reason)) => draws.count(format!("{}: {reason}", profile.name)),
            }
        }
        let worst = draws.worst();
        if draws.refused > 0 {
            return Err(fail(format!(
                "no draw gave a new task in {} attempts ({} drew a task already in the set \
                 or in an excluded file); most frequent reason: {worst}",
                g.max_redraws, draws.refused
            )));
        }
        Err(fail(format!(
            "no draw passed in {} attempts; most frequent reason: {worst}",
            g.max_redraws
        )))
    }

    /// The signature of a case read from a task file, as [`TaskDrawer::task`]
    /// computes it for a task it draws: the reference's decision and reason,
    /// then each of the generator's `signature` expressions over the case
    /// (empty when the generator declares none). An error when the
    /// reference fails on the case, which no drawn task does.
    pub(crate) fn signature_of(&self, case: &Json) -> Result<String, EvalError> {
        let rb = self.rb;
        let facts = validate_case(rb, case);
        let (decision, reason) = match &facts {
            Ok(facts) => {
                let (_, at) = evaluate_ended(rb, facts)?;
                decided(rb, at)
            }
            Err(_) => (Arc::from("rejected"), None),
        };
        let mut reader = facts.as_ref().ok().map(|f| FormulaReader::new(rb, f));
        Ok(self.signature(&decision, reason.as_deref(), reader.as_mut()))
    }

    /// A task's signature: its decision and reason, then the values of the
    /// generator's `signature` expressions read over its case (none when
    /// the case was rejected at validation); empty when it declares none.
    fn signature<'r>(
        &'r self,
        decision: &str,
        reason: Option<&str>,
        reader: Option<&mut FormulaReader<'r>>,
    ) -> String {
        let checks = &self.generator.checks;
        if checks.signature.is_empty() {
            return String::new();
        }
        let mut signature = format!("{decision}|{}", reason.unwrap_or(""));
        if let Some(reader) = reader {
            for f in &checks.signature {
                // A value the case does not determine (a payslip step of a
                // trap) identifies nothing: it is written `-`.
                let v = reader
                    .read(f)
                    .map_or_else(|_| "-".to_string(), |v| v.to_string());
                signature.push('|');
                signature.push_str(&v);
            }
        }
        signature
    }

    fn attempt(
        &self,
        rng: &mut ChaCha8Rng,
        evaluations: &mut Evaluations,
        index: u64,
        level: &Level,
        profile: &Profile,
        broken: &mut Option<String>,
    ) -> Result<(Task, String), Redraw> {
        let rb = self.rb;
        let mut drawer = Drawer::new(rb, rng, evaluations);
        drawer.draw(&profile.fields)?;
        let case = Json::Object(std::mem::take(&mut drawer.case));

        evaluations.spend(1)?;
        let facts = validate_case(rb, &case);
        let (outcome, decided) = match &facts {
            Ok(facts) => {
                evaluations.spend(1)?;
                let (outcome, at) = evaluate_ended(rb, facts)
                    .map_err(|e| Redraw(format!("the rulebook failed: {e}")))?;
                (outcome, decided(rb, at))
            }
            Err(e) => (Outcome::Rejected(e.clone()), (Arc::from("rejected"), None)),
        };
        let (decision, reason) = decided;
        let wanted = profile.decision.as_deref().unwrap_or("");
        if (wanted.is_empty() && &*decision == "rejected")
            || (!wanted.is_empty() && wanted != &*decision)
        {
            return Err(Redraw(format!("decision {decision}")));
        }
        if profile.reason.is_some() && profile.reason != reason {
            let got = reason.as_deref().unwrap_or("none");
            return Err(Redraw(format!("reason {got}")));
        }
        let facts = facts.ok();
        // Conditions, tags and the signature read one memo of the case's
        // steps: one evaluation, however many formulas it reads.
        if facts.is_some() {
            evaluations.spend(1)?;
        }
        let mut reader = facts.as_ref().map(|f| FormulaReader::new(rb, f));
        if let Some(reader) = &mut reader {
            for f in &profile.accept {
                if !matches!(reader.read(f), Ok(Value::Bool(true))) {
                    return Err(Redraw(format!("accept `{}`", f.text)));
                }
            }
        }
        self.ablations(evaluations, facts.as_ref(), &outcome, level, profile)?;
        if let Some(facts) = &facts {
            self.perturbed(evaluations, &case, facts, profile)?;
            self.margin(evaluations, facts, profile)?;
        }

        let expected = outcome_json(Ok(&outcome));
        let (prompt, units) = self
            .renderer
            .render(&case, level.number, &profile.tier, &profile.name)
            .map_err(|e| {
                *broken = Some(e.clone());
                Redraw(e)
            })?;
        // Every rendering counts towards the task's units: a costly prompt
        // that the checks below refuse is rendered again at each redraw.
        evaluations.add_units(units);
        let format = self.renderer.format();
        let checks = &self.generator.checks;
        leaks(
            checks,
            format,
            &prompt,
            &case,
            &expected,
            reason.as_deref(),
            &profile.shown,
        )?;

        let mut tags = vec![format!("decision:{decision}")];
        if let Some(r) = &reason {
            tags.push(format!("reason:{r}"));
        }
        evaluations.spend(level.watch.len())?;
        for name in &level.watch {
            if self.changes(name, facts.as_ref(), &outcome) {
                tags.push(format!("ablation:{name}"));
            }
        }
        if let Some(reader) = &mut reader {
            for (tag, when) in &profile.tags {
                let holds = match when {
                    None => true,
                    Some(f) => matches!(reader.read(f), Ok(Value::Bool(true))),
                };
                if holds {
                    tags.push(tag.clone());
                }
            }
        }
        let signature = self.signature(&decision, reason.as_deref(), reader.as_mut());
        let id = self
            .generator
            .id
            .replace("{level}", &level.number.to_string())
            .replace("{index}", &index.to_string())
            .replace("{tier}", &profile.tier)
            .replace("{branch}", &profile.name);
        let g = self.generator;
        let task = Task {
            id,
            index: Some(index),
            level: Some(level.number),
            tier: Some(profile.tier.to_string()),
            branch: Some(profile.name.to_string()),
            rulebook_id: rb.id().to_string(),
            version: rb.version(),
            hash: g.rulebook_hash.clone(),
            generator: Some(g.name.clone()),
            generator_hash: Some(g.hash.clone()),
            options: g.options_set().map(<[_]>::to_vec),
            rubric: Some(g.rubric),
            case,
            prompt: Some(prompt),
            expected,
            tags: Some(tags),
        };
        Ok((task, signature))
    }

    /// The level's rules matter: one of its ablations (or the profile's) changes the answer.
    fn ablations(
        &self,
        evaluations: &mut Evaluations,
        facts: Option<&Facts>,
        outcome: &Outcome,
        level: &Level,
        profile: &Profile,
    ) -> Result<(), Redraw> {
        for (names, what) in [(&level.ablations, "level"), (&profile.detect, "profile")] {
            if names.is_empty() {
                continue;
            }
            let readings: Vec<&Rulebook> =
                names.iter().filter_map(|n| self.ablated.get(n)).collect();
            evaluations.spend(readings.len())?;
            if !changed(facts, &readings, outcome) {
                return Err(Redraw(format!("no {what} ablation changes the answer")));
            }
        }
        evaluations.spend(profile.detect_each.len())?;
        for name in &profile.detect_each {
            if !self.changes(name, facts, outcome) {
                return Err(Redraw(format!(
                    "ablation {name} does not change the answer"
                )));
            }
        }
        Ok(())
    }

    /// Whether evaluating the case under the ablation `name` changes the outcome.
    fn changes(&self, name: &str, facts: Option<&Facts>, outcome: &Outcome) -> bool {
        self.ablated
            .get(name)
            .is_some_and(|rb| changed(facts, &[rb], outcome))
    }

    /// Conditions on perturbed copies of the case.
    fn perturbed(
        &self,
        evaluations: &mut Evaluations,
        case: &Json,
        facts: &Facts,
        profile: &Profile,
    ) -> Result<(), Redraw> {
        let rb = self.rb;
        for p in &profile.perturb {
            let mut copy = case.clone();
            for (path, f) in &p.set {
                let mut failure = None;
                rewrite(&mut copy, path, &mut |v| {
                    let Some(d) = json_decimal(v) else {
                        return;
                    };
                    if let Err(spent) = evaluations.spend(1) {
                        failure = Some(spent.to_string());
                        return;
                    }
                    match evaluate_formula(rb, facts, f, &[Value::Number(d)]) {
                        Ok(Value::Number(n)) => *v = decimal_json(n, v.is_number()),
                        Ok(other) => {
                            failure = Some(format!("`{}` gave {}", f.text, other.kind_name()))
                        }
                        Err(e) => failure = Some(e.message),
                    }
                });
                if let Some(message) = failure {
                    return Err(Redraw(format!("perturbation {}: {message}", p.name)));
                }
            }
            // The copy validated, then each move read before and after.
            evaluations.spend(1 + 2 * p.moves.len())?;
            let other = validate_case(rb, &copy)
                .map_err(|e| Redraw(format!("perturbation {}: rejected at {}", p.name, e.path)))?;
            for m in &p.moves {
                let before = evaluate_formula(rb, facts, m, &[]).map_err(|e| Redraw(e.message))?;
                let after = evaluate_formula(rb, &other, m, &[]).map_err(|e| Redraw(e.message))?;
                if before == after {
                    return Err(Redraw(format!(
                        "perturbation {}: `{}` does not move",
                        p.name, m.text
                    )));
                }
            }
        }
        Ok(())
    }

    /// No rounding point of the reference within the declared margin of its boundary.
    fn margin(
        &self,
        evaluations: &mut Evaluations,
        facts: &Facts,
        profile: &Profile,
    ) -> Result<(), Redraw> {
        let checks = &self.generator.checks;
        if !profile.margin_check || (checks.margin.is_none() && checks.margins.is_empty()) {
            return Ok(());
        }
        evaluations.spend(1)?;
        let Ok((_, Some(trace))) = evaluate(self.rb, facts, true) else {
            return Ok(());
        };
        for event in &trace.events {
            if let Event::Step(step) = event {
                // A per-item step is named `group.step` in `margins`.
                let group = step
                    .item
                    .as_deref()
                    .and_then(|i| i.split_once('['))
                    .map(|(g, _)| g);
                let named = checks.margins.iter().find(|(name, _)| match group {
                    None => **name == *step.step,
                    Some(g) => name
                        .split_once('.')
                        .is_some_and(|(ng, ns)| ng == g && ns == &*step.step),
                });
                let bound = match (checks.margin, named) {
                    (Some(a), Some((_, b))) => Some(a.max(*b)),
                    (a, b) => a.or(b.map(|(_, m)| *m)),
                };
                let Some(margin) = bound else {
                    continue;
                };
                for r in &step.roundings {
                    if r.rounded.margin < margin {
                        return Err(Redraw(format!(
                            "rounding in `{}` within the margin",
                            step.step
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// What identifies a task within a set and across the sets of a split:
/// SHA-256 of its signature, or of its case's JSON when the generator
/// declares no signature. Two tasks of one identity are one case.
pub(crate) type Identity = [u8; 32];

/// The identity of a task of this signature (empty: none declared) and case.
pub(crate) fn identity(signature: &str, case: &Json) -> Identity {
    let mut h = Sha256::new();
    if signature.is_empty() {
        h.update(b"case\0");
        h.update(case.to_string().as_bytes());
    } else {
        h.update(b"signature\0");
        h.update(signature.as_bytes());
    }
    h.finalize().into()
}

/// The decision and reason of the check at which an evaluation ended.
fn decided(rb: &Rulebook, at: usize) -> (Arc<str>, Option<Arc<str>>) {
    // INVARIANT: `at` is the index of the check an evaluation of `rb` ended at.
    match &rb.checks[at].outcome {
        CheckOutcome::Decide {
            decision, reason, ..
        } => (rb.decisions[*decision].name.clone(), reason.clone()),
        CheckOutcome::Reject { .. } => (Arc::from("rejected"), None),
    }
}

/// Task `index`'s own stream: ChaCha8 keyed by SHA-256 of (seed, generator, index),
/// so its draws never depend on the tasks before it (only which of its
/// draws the run keeps does).
pub(crate) fn stream(seed: u64, generator: &str, index: u64) -> ChaCha8Rng {
    let mut h = Sha256::new();
    h.update(b"bareme generate 1\0");
    h.update(generator.as_bytes());
    h.update(b"\0");
    h.update(seed.to_le_bytes());
    h.update(index.to_le_bytes());
    ChaCha8Rng::from_seed(h.finalize().into())
}

/// Where task `index` stands among the tasks of its level: the index itself
/// when every task is at that level (`fixed`), else its rank among the
/// indices the mix gives the level (mix `[1, 2, 1]`: level 1's tasks are
/// 0, 2, 3, 5, 6, …, at positions 0, 1, 2, 3, 4, …).
fn level_position(mix: &[i64], level: i64, index: u64, fixed: bool) -> u64 {
    let m = mix.len() as u64;
    if fixed || m == 0 {
        return index;
    }
    let slots = mix.iter().filter(|l| **l == level).count() as u64;
    let at = usize::try_from(index % m).unwrap_or(0);
    let rank = mix.iter().take(at).filter(|l| **l == level).count() as u64;
    (index / m).saturating_mul(slots).saturating_add(rank)
}

/// Run `run` of a level's stratified deal: every profile its weight's
/// times, shuffled by the run's own stream. The loader bounds the weights'
/// sum (`MAX_STRATUM`), so a run is small.
fn deal(seed: u64, generator: &str, level: i64, run: u64, weighted: &[(usize, u32)]) -> Vec<usize> {
    use rand::seq::SliceRandom;
    let mut deck: Vec<usize> = weighted
        .iter()
        .flat_map(|(i, w)| std::iter::repeat_n(*i, *w as usize))
        .collect();
    let mut h = Sha256::new();
    h.update(b"bareme generate stratum 1\0");
    h.update(generator.as_bytes());
    h.update(b"\0");
    h.update(seed.to_le_bytes());
    h.update(level.to_le_bytes());
    h.update(run.to_le_bytes());
    deck.shuffle(&mut ChaCha8Rng::from_seed(h.finalize().into()));
    deck
}

fn pick(rng: &mut ChaCha8Rng, weighted: &[(usize, u32)]) -> usize {
    use rand::Rng;
    let total: u64 = weighted.iter().map(|(_, w)| u64::from(*w)).sum();
    let mut roll = rng.random_range(0..total.max(1));
    for (i, w) in weighted {
        let w = u64::from(*w);
        if roll < w {
            return *i;
        }
        roll -= w;
    }
    weighted.last().map_or(0, |(i, _)| *i)
}

/// Applies `f` to every value at a path (`Each` goes through list items).
fn rewrite(json: &mut Json, path: &[Segment], f: &mut dyn FnMut(&mut Json)) {
    let Some((first, rest)) = path.split_first() else {
        f(json);
        return;
    };
    match (first, json) {
        (Segment::Key(k), Json::Object(map)) => {
            if let Some(v) = map.get_mut(k) {
                rewrite(v, rest, f);
            }
        }
        (Segment::Each, Json::Array(items)) => items.iter_mut().for_each(|v| rewrite(v, rest, f)),
        (Segment::Each, Json::Object(map)) => map.values_mut().for_each(|v| rewrite(v, rest, f)),
        _ => {}
    }
}

/// Whether the case's outcome under one of `readings` (ablated copies of
/// the reference) differs from the reference's `outcome`. The case is
/// validated once (`facts`, none when the reference rejected it there): an
/// ablation changes step formulas only, never validation, so a rejected
/// case is rejected alike, and a fault under an ablation changes nothing.
fn changed(facts: Option<&Facts>, readings: &[&Rulebook], outcome: &Outcome) -> bool {
    let Some(facts) = facts else {
        return false;
    };
    // One reading after another, on this thread: the task's budget counts
    // the units each spends, and stops at the first that changes the answer
    // whatever the number of threads.
    readings
        .iter()
        .any(|rb| evaluate(rb, facts, false).is_ok_and(|(other, _)| other != *outcome))
}

#[cfg(test)]
mod tests {
    use super::{level_position, Decks, KEPT_RUNS};

    #[test]
    fn a_level_position_counts_only_that_levels_slots() {
        // Mix [1, 2, 1]: level 1 has indices 0, 2, 3, 5, 6, 8, level 2 1, 4, 7.
        let mix = [1, 2, 1];
        let ones: Vec<u64> = [0, 2, 3, 5, 6, 8]
            .iter()
            .map(|i| level_position(&mix, 1, *i, false))
            .collect();
        assert_eq!(ones, [0, 1, 2, 3, 4, 5]);
        let twos: Vec<u64> = [1, 4, 7]
            .iter()
            .map(|i| level_position(&mix, 2, *i, false))
            .collect();
        assert_eq!(twos, [0, 1, 2]);
        // A level fixed for the run: the index itself.
        assert_eq!(level_position(&mix, 2, 5, true), 5);
    }

    #[test]
    fn each_run_deals_every_profile_its_weight() {
        let decks = Decks::default();
        let pick = |p: u64, weighted: &[(usize, u32)]| decks.pick(1, "g", 1, p, weighted);
        // Profiles 3, 7 and 9 with weights 1, 2, 3: runs of 6.
        let weighted = [(3, 1), (7, 2), (9, 3)];
        for run in 0..4u64 {
            let mut dealt: Vec<usize> =
                (run * 6..run * 6 + 6).map(|p| pick(p, &weighted)).collect();
            dealt.sort_unstable();
            assert_eq!(dealt, [3, 7, 7, 9, 9, 9], "run {run}");
        }
        // Runs are shuffled apart: some run of the first 20 differs from the first.
        let run =
            |r: u64| -> Vec<usize> { (r * 6..r * 6 + 6).map(|p| pick(p, &weighted)).collect() };
        assert!((1..20).any(|r| run(r) != run(0)));
        // A profile of weight 0 is never dealt (another level's weights:
        // a drawer's decks are kept by level, each level weighted one way).
        let with_base = [(0, 0), (1, 2)];
        let decks = Decks::default();
        assert!((0..10).all(|p| decks.pick(1, "g", 1, p, &with_base) == 1));
    }

    #[test]
    fn a_task_is_the_same_whichever_runs_its_drawer_kept() {
        let weighted = [(3, 1), (7, 2), (9, 3)];
        let positions = 6 * (3 * KEPT_RUNS as u64);
        // In order, as one worker draws.
        let in_order = Decks::default();
        let first: Vec<usize> = (0..positions)
            .map(|p| in_order.pick(5, "g", 2, p, &weighted))
            .collect();
        // Backwards and strided, every run dealt again after it was let go,
        // by a drawer of its own each time and by one that keeps its runs.
        let kept = Decks::default();
        for p in (0..positions)
            .rev()
            .step_by(7)
            .chain((0..positions).step_by(5))
        {
            let fresh = Decks::default().pick(5, "g", 2, p, &weighted);
            let again = kept.pick(5, "g", 2, p, &weighted);
            let at = usize::try_from(p).unwrap_or(usize::MAX);
            assert_eq!((fresh, again), (first[at], first[at]), "position {p}");
        }
        // Another seed or level is another deal of the same run.
        let other: Vec<usize> = (0..positions)
            .map(|p| in_order.pick(6, "g", 2, p, &weighted))
            .collect();
        assert_ne!(first, other);
    }
}
