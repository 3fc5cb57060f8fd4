//! Command-line arguments (clap derive).

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

use bareme::unstable::chunks::MAX_JOBS;

/// `--jobs N`: a usage error outside 1..=[`MAX_JOBS`].
fn jobs(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX_JOBS).contains(&n) => Ok(n),
        _ => Err(format!("a number of worker threads from 1 to {MAX_JOBS}")),
    }
}

/// bareme — exact, explained answers from declarative rulebooks.
#[derive(Debug, Parser)]
#[command(name = "bareme", version, about)]
pub struct Cli {
    /// Let a rulebook's `extends` name a file outside its rulebook set's folder.
    #[arg(long, global = true)]
    pub allow_outside: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a rulebook: exit 0 when clean (warnings printed), 3 with diagnostics (or
    /// warnings under `--deny warnings`), 2 when unreadable.
    Check {
        /// A rulebook folder (holding rulebook.toml) or its TOML file.
        #[arg(value_parser = super::locate::rulebook)]
        rulebook: PathBuf,
        /// Fail (exit 3) on warnings too.
        #[arg(long, value_enum, value_name = "WHAT")]
        deny: Option<Deny>,
        /// Print the effective rulebook as TOML (the versions it extends merged in).
        #[arg(long)]
        effective: bool,
    },
    /// Evaluate one case (or a JSON Lines batch) and print the answer.
    Eval(EvalArgs),
    /// Run the rulebook's conformance cases (cases/*.toml).
    Test {
        /// A rulebook folder (holding rulebook.toml and cases/).
        #[arg(value_parser = super::locate::rulebook)]
        rulebook: PathBuf,
        /// List every case run, passed ones too, with its description.
        #[arg(long)]
        list: bool,
    },
    /// Ablation coverage of a task set: which declared ablations, and which combinations of
    /// them, its tasks detect. Exit 0 when every combination is detected, 1 when one is not.
    Ablations(AblationsArgs),
    /// Compile a rulebook to a Rust module (see `bareme::compiled`).
    Compile {
        /// A rulebook folder or its TOML file.
        #[arg(value_parser = super::locate::rulebook)]
        rulebook: PathBuf,
        /// Compile the rulebook under named alternative readings (`a,b` for several).
        #[arg(long, value_name = "NAME[,NAME…]")]
        ablate: Option<String>,
        /// Where to write the module; standard output by default.
        #[arg(short, long, value_name = "FILE.rs")]
        out: Option<PathBuf>,
    },
    /// Generate seeded, graded tasks (JSON Lines) from a generator file.
    Generate(GenerateArgs),
    /// Score replies to a task file under a rubric: one JSON line per reply, a summary on stderr.
    Score(ScoreArgs),
    /// Write a rulebook folder whose declared readings (`--ablate a,b`) are its main formulas.
    Bake(super::bake::BakeArgs),
    /// Score a candidate rulebook against a repair task: its reward on hidden and visible cases.
    Verify(super::verify::VerifyArgs),
    /// Serve tasks and grade replies over HTTP (the sandbox), runs kept in SQLite.
    Serve(super::serve::ServeArgs),
    /// Grade the same replies under several rubric versions side by side.
    Rescore(RescoreArgs),
    /// Scripted strategies' mean scores under a rubric: what cheap policies earn.
    Baselines(BaselinesArgs),
    /// What a new rulebook version changes: its structural diff, whether the generators and
    /// rubrics of the old version load against it (exit 1 when one breaks), and with
    /// `--impact` or `--sample` which answers of a task set move and why.
    Diff(DiffArgs),
    /// A case's answers across a range of one field: CSV on stdout, optionally an SVG plot.
    Sweep(SweepArgs),
    /// Check traced evaluations (`eval --trace json` lines) against the rulebook without
    /// trusting the engine: exit 0 when every step follows, 1 with every one that does not.
    VerifyTrace(VerifyTraceArgs),
    /// Print the JSON Schema of the rulebook format (docs/rulebook.schema.json), for editors;
    /// with `--case RULEBOOK`, the JSON Schema (draft 2020-12) of that rulebook's cases.
    Schema {
        /// A rulebook folder or file: print the schema of its cases instead.
        #[arg(long, value_name = "RULEBOOK", value_parser = super::locate::rulebook)]
        case: Option<PathBuf>,
    },
    /// Scaffold a rulebook folder, DIR/ID/v1, whose `check` and `test` pass; never overwrites.
    New {
        /// The rulebook id: lowercase letters, digits, `-` and `_`.
        id: String,
        /// The folder to create it in.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
    },
}

/// Arguments of `bareme rescore`.
#[derive(Debug, clap::Args)]
pub struct RescoreArgs {
    /// A rubric file; repeat for each version to compare (all must grade the tasks' rulebook).
    #[arg(long, value_name = "RUBRIC.toml", required = true, value_parser = super::locate::companion)]
    pub rubric: Vec<PathBuf>,
    /// The tasks (JSON Lines, as `bareme generate` writes them); `-` reads standard input.
    #[arg(long, value_name = "TASKS.jsonl")]
    pub tasks: PathBuf,
    /// The replies (JSON Lines: `id`, `reply`, optional `explanation_grade`, optional `strategy`).
    #[arg(long, value_name = "REPLIES.jsonl")]
    pub replies: PathBuf,
    /// The rulebook folder; `v<version>` beside each rubric by default.
    #[arg(long, value_parser = super::locate::rulebook)]
    pub rulebook: Option<PathBuf>,
    /// Tables for people, or one JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReportFormat,
    /// Worker threads, 1 to 256; all cores by default.
    #[arg(long, value_parser = jobs)]
    pub jobs: Option<usize>,
}

/// Arguments of `bareme baselines`.
#[derive(Debug, clap::Args)]
pub struct BaselinesArgs {
    /// A rubric file (`rulebooks/<id>/rubric-<n>.toml`).
    #[arg(value_parser = super::locate::companion)]
    pub rubric: PathBuf,
    /// The tasks (JSON Lines, as `bareme generate` writes them); `-` reads standard input.
    #[arg(long, value_name = "TASKS.jsonl")]
    pub tasks: PathBuf,
    /// Also write every strategy's replies (JSON Lines with `strategy`), for `bareme rescore`.
    #[arg(long, value_name = "FILE.jsonl")]
    pub replies_out: Option<PathBuf>,
    /// The rulebook folder; `v<version>` beside the rubric by default.
    #[arg(long, value_parser = super::locate::rulebook)]
    pub rulebook: Option<PathBuf>,
    /// A table for people, or one JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReportFormat,
    /// Worker threads, 1 to 256; all cores by default.
    #[arg(long, value_parser = jobs)]
    pub jobs: Option<usize>,
}

/// Arguments of `bareme diff`. An option that shapes what is not asked for
/// (`--seed` without `--sample`, `--examples` or `--old-years` without
/// cases to evaluate) is a usage error, never silently ignored.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("evaluated").args(["impact", "sample"])))]
pub struct DiffArgs {
    /// The old version: a rulebook folder or its TOML file.
    #[arg(value_parser = super::locate::rulebook)]
    pub old: PathBuf,
    /// The new version.
    #[arg(value_parser = super::locate::rulebook)]
    pub new: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: DiffFormat,
    /// Generators to load against NEW; default: every `generator-*.toml` beside OLD's
    /// version folder that names OLD's `id@version`.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub generators: Option<Vec<PathBuf>>,
    /// Rubrics to load against NEW; default: every `rubric-*.toml` beside OLD's version
    /// folder that names OLD's `id@version`.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub rubrics: Option<Vec<PathBuf>>,
    /// Evaluate the cases of this task file (as `bareme generate` writes it) under both versions.
    #[arg(long, value_name = "TASKS.jsonl", conflicts_with = "sample")]
    pub impact: Option<PathBuf>,
    /// Instead of a task file: draw this many tasks from `--generator` with
    /// `--seed`, 1 to 100,000 (held in memory; for more, write a task file
    /// with `bareme generate` and give it to `--impact`).
    #[arg(long, value_name = "N", requires = "generator",
          value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub sample: Option<u64>,
    /// The seed of `--sample`.
    #[arg(long, default_value_t = 0, requires = "sample")]
    pub seed: u64,
    /// The generator of `--sample`.
    #[arg(long, value_name = "FILE", requires = "sample", value_parser = super::locate::companion)]
    pub generator: Option<PathBuf>,
    /// Examples shown per changed answer field (with `--impact` or `--sample`).
    #[arg(long, value_name = "N", default_value_t = 3, requires = "evaluated")]
    pub examples: usize,
    /// With `--impact` or `--sample`: move every month and date input the old version
    /// declares by this many whole years before it reads a case (`-1`: last year's rules
    /// on this year's cases, where only the dates differ).
    #[arg(long, value_name = "YEARS", default_value_t = 0, allow_hyphen_values = true,
          requires = "evaluated", value_parser = clap::value_parser!(i32).range(-200..=200))]
    pub old_years: i32,
    /// Two rubrics: grade these tasks' replies under both (the scripted strategies' replies
    /// without `--replies`).
    #[arg(long, value_name = "TASKS.jsonl")]
    pub tasks: Option<PathBuf>,
    /// Two rubrics: the replies (JSON Lines: `id`, `reply`, optional `explanation_grade`,
    /// `strategy`).
    #[arg(long, value_name = "REPLIES.jsonl", requires = "tasks")]
    pub replies: Option<PathBuf>,
    /// Two rubrics: the rulebook folder; `v<version>` beside each rubric by default.
    #[arg(long, value_name = "DIR", value_parser = super::locate::rulebook)]
    pub rulebook: Option<PathBuf>,
}

/// How to print a diff.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DiffFormat {
    /// Readable text, coloured on a terminal.
    Text,
    /// Markdown tables.
    Markdown,
    /// One JSON object (schema in docs/diffing.md).
    Json,
}

/// Arguments of `bareme sweep`.
#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    /// A rulebook folder or its TOML file.
    #[arg(value_parser = super::locate::rulebook)]
    pub rulebook: PathBuf,
    /// The case (JSON file) whose one field varies.
    #[arg(value_parser = super::locate::case)]
    pub case: PathBuf,
    /// FIELD=FROM..TO:STEP: the field (a dotted path in the case) and its values, exact
    /// decimals: FROM, then each STEP up to TO, TO included when a whole number of
    /// steps away (0..10:3 is 0, 3, 6, 9); at most 100,000 values.
    #[arg(long, value_name = "FIELD=FROM..TO:STEP")]
    pub vary: bareme::unstable::sweep::Vary,
    /// Also draw each numeric answer field and its marginal rate to this SVG file.
    #[arg(long, value_name = "OUT.svg")]
    pub plot: Option<PathBuf>,
}

/// Arguments of `bareme verify-trace` (`docs/audit.md`).
#[derive(Debug, clap::Args)]
pub struct VerifyTraceArgs {
    /// The traces: one `eval --trace json` line, or a traced batch's lines; `-` reads
    /// standard input.
    pub trace: PathBuf,
    /// The rulebook the traces name (folder or TOML file).
    #[arg(long, value_parser = super::locate::rulebook)]
    pub rulebook: PathBuf,
    /// The case of a single trace (JSON): its inputs and supplied rows are checked too.
    #[arg(long, value_name = "CASE.json", conflicts_with = "cases")]
    pub case: Option<PathBuf>,
    /// The cases of a traced batch (JSON Lines, as given to `eval --batch`), line for line.
    #[arg(long, value_name = "CASES.jsonl")]
    pub cases: Option<PathBuf>,
}

/// Arguments of `bareme score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// A rubric file (`rulebooks/<id>/rubric-<n>.toml`).
    #[arg(value_parser = super::locate::companion)]
    pub rubric: PathBuf,
    /// The tasks (JSON Lines, as `bareme generate` writes them); `-` reads standard input.
    #[arg(long, value_name = "TASKS.jsonl")]
    pub tasks: PathBuf,
    /// The replies (JSON Lines: `id`, `reply`, optional `explanation_grade` in [0, 1]).
    #[arg(long, value_name = "REPLIES.jsonl")]
    pub replies: PathBuf,
    /// Only exact answers score above the rubric's `wrong`.
    #[arg(long)]
    pub all_or_nothing: bool,
    /// Re-derive every task's expected answer under the rulebook loaded (its id and version
    /// must still match), and report on stderr which tasks changed.
    #[arg(long)]
    pub recompute_expected: bool,
    /// Also write the summary as JSON to this file.
    #[arg(long, value_name = "FILE.json")]
    pub summary: Option<PathBuf>,
    /// The rulebook folder; `v<version>` beside the rubric by default.
    #[arg(long, value_parser = super::locate::rulebook)]
    pub rulebook: Option<PathBuf>,
    /// Worker threads, 1 to 256; all cores by default.
    #[arg(long, value_parser = jobs)]
    pub jobs: Option<usize>,
    /// The judge of explanations.
    #[command(flatten)]
    pub judge: super::judge::JudgeArgs,
}

/// Arguments of `bareme generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// A generator file (`rulebooks/<id>/generator-<n>.toml`).
    #[arg(value_parser = super::locate::companion)]
    pub generator: PathBuf,
    /// How many tasks to draw: one per index, each distinct from every other
    /// (a duplicate is drawn again).
    #[arg(short = 'n', long, default_value_t = 100)]
    pub count: u64,
    /// The seed: the same seed, generator and index give the same task.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The first index (a shard of a larger run); start + n is at most 100000000.
    #[arg(long, default_value_t = 0)]
    pub start: u64,
    /// A task file of this generator and rulebook version whose cases this run must not
    /// draw (a dev set that shares no case with a training set); repeatable.
    #[arg(long, value_name = "TASKS.jsonl")]
    pub exclude: Vec<PathBuf>,
    /// Draw every task at this level instead of the generator's mix.
    #[arg(long)]
    pub level: Option<i64>,
    /// Where to write the tasks; standard output by default.
    #[arg(short, long, value_name = "FILE.jsonl")]
    pub out: Option<PathBuf>,
    /// Where to write the run's counts and hash (JSON).
    #[arg(long, value_name = "FILE.json")]
    pub manifest: Option<PathBuf>,
    /// The rulebook folder; `v<version>` beside the generator by default.
    #[arg(long, value_parser = super::locate::rulebook)]
    pub rulebook: Option<PathBuf>,
    /// Worker threads, 1 to 256; all cores by default.
    #[arg(long, value_parser = jobs)]
    pub jobs: Option<usize>,
    /// A prompt switch the generator declares (`[prompt.options]`): `NAME`
    /// turns it on, `NAME=false` off; repeatable.
    #[arg(long = "option", value_name = "NAME[=true|false]")]
    pub options: Vec<String>,
}

/// Arguments of `bareme eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// A rulebook folder or its TOML file.
    #[arg(value_parser = super::locate::rulebook)]
    pub rulebook: PathBuf,
    /// The case as a JSON file, or `-` for standard input.
    #[arg(conflicts_with = "batch", value_parser = super::locate::case)]
    pub case: Option<PathBuf>,
    /// Also print the explanation trace (with --batch, `json`: one
    /// `{"answer", "trace"}` line per case; `html` or `markdown`: a page per
    /// case in the folder --out names, and an index).
    #[arg(long, value_enum)]
    pub trace: Option<TraceFormat>,
    /// Where to write the audit page (`--trace html` or `markdown`); with
    /// --batch, a new or empty folder for the pages and their index.
    #[arg(long, value_name = "FILE|DIR")]
    pub out: Option<PathBuf>,
    /// Evaluate JSON Lines (a case per line, or {"case": …}); `-` or no file reads standard input.
    #[arg(long, num_args = 0..=1, default_missing_value = "-")]
    pub batch: Option<PathBuf>,
    /// Worker threads of a batch, 1 to 256; all cores by default. The output is the same for any number.
    #[arg(long, value_parser = jobs)]
    pub jobs: Option<usize>,
    /// Evaluate under alternative readings declared by the rulebook (`a,b` for several, applied together).
    #[arg(long, value_name = "NAME[,NAME…]")]
    pub ablate: Option<String>,
}

/// Arguments of `bareme ablations`.
#[derive(Debug, clap::Args)]
pub struct AblationsArgs {
    /// JSON Lines, a task per line: `id`, `rulebook` ("ID@VERSION"), `rulebook_hash`, `case`,
    /// `expected` (as `eval --batch` prints it); `-` reads standard input.
    pub tasks: PathBuf,
    /// Measure combinations of up to K ablations [default: all of them when the rulebook
    /// declares at most 10, else 2].
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub subsets: Option<u32>,
    /// Most units of evaluation budget one task's evaluations under all the
    /// combinations spend together (1 to 10000000000; past it the run stops
    /// with exit 2).
    #[arg(long, value_name = "N", default_value_t = bareme::unstable::coverage::DEFAULT_MAX_TASK_STEPS,
        value_parser = clap::value_parser!(u64).range(1..=bareme::unstable::coverage::MAX_TASK_STEPS))]
    pub max_steps: u64,
    /// The rulebook [default: rulebooks/ID/vVERSION, from the first task, relative to the current directory].
    #[arg(long, value_name = "DIR", value_parser = super::locate::rulebook)]
    pub rulebook: Option<PathBuf>,
    /// A summary line and the undetected combinations, or the full table as JSON.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReportFormat,
}

/// How to print a report.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ReportFormat {
    /// For people: a summary and tables.
    Text,
    /// One JSON object on one line.
    Json,
}

/// How to print a trace.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TraceFormat {
    /// An indented explanation, after the answer line.
    Text,
    /// `{"answer": …, "trace": …}` on one line.
    Json,
    /// A self-contained HTML audit page (the answer, then every step).
    Html,
    /// The audit page as GitHub-flavoured Markdown.
    Markdown,
    /// The same with the trace in the compact format 2: each step's formula and clauses
    /// written once, reads of values already in the trace by name alone.
    JsonCompact,
}

/// What `check --deny` turns into failures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Deny {
    /// Every warning (unused inputs, parameters, tables, steps).
    Warnings,
}
