//! Command-line arguments (clap derive).

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// bareme — exact, explained answers from declarative rulebooks.
#[derive(Debug, Parser)]
#[command(name = "bareme", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a rulebook: exit 0 when clean, 3 with diagnostics, 2 when unreadable.
    Check {
        /// A rulebook folder (holding rulebook.toml) or its TOML file.
        rulebook: PathBuf,
    },
    /// Evaluate one case (or a JSON Lines batch) and print the answer.
    Eval(EvalArgs),
    /// Run the rulebook's conformance cases (cases/*.toml).
    Test {
        /// A rulebook folder (holding rulebook.toml and cases/).
        rulebook: PathBuf,
    },
    /// Ablation coverage of a task set: which declared ablations, and which combinations of
    /// them, its tasks detect. Exit 0 when every combination is detected, 1 when one is not.
    Ablations(AblationsArgs),
    /// Compile a rulebook to a Rust module (see `bareme::compiled`).
    Compile {
        /// A rulebook folder or its TOML file.
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
}

/// Arguments of `bareme score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// A rubric file (`rulebooks/<id>/rubric-<n>.toml`).
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
    #[arg(long)]
    pub rulebook: Option<PathBuf>,
    /// Worker threads; all cores by default.
    #[arg(long)]
    pub jobs: Option<usize>,
}

/// Arguments of `bareme generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// A generator file (`rulebooks/<id>/generator-<n>.toml`).
    pub generator: PathBuf,
    /// How many task indices to draw.
    #[arg(short = 'n', long, default_value_t = 100)]
    pub count: u64,
    /// The seed: the same seed, generator and index give the same task.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The first index (a shard of a larger run).
    #[arg(long, default_value_t = 0)]
    pub start: u64,
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
    #[arg(long)]
    pub rulebook: Option<PathBuf>,
    /// Worker threads; all cores by default.
    #[arg(long)]
    pub jobs: Option<usize>,
}

/// Arguments of `bareme eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// A rulebook folder or its TOML file.
    pub rulebook: PathBuf,
    /// The case as a JSON file, or `-` for standard input.
    #[arg(conflicts_with = "batch")]
    pub case: Option<PathBuf>,
    /// Also print the explanation trace (with --batch, `json` only: one
    /// `{"answer", "trace"}` line per case).
    #[arg(long, value_enum)]
    pub trace: Option<TraceFormat>,
    /// Evaluate JSON Lines (a case per line, or {"case": …}); `-` or no file reads standard input.
    #[arg(long, num_args = 0..=1, default_missing_value = "-")]
    pub batch: Option<PathBuf>,
    /// Worker threads of a batch; all cores by default. The output is the same for any number.
    #[arg(long)]
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
    /// The rulebook [default: rulebooks/ID/vVERSION, from the first task, relative to the current directory].
    #[arg(long, value_name = "DIR")]
    pub rulebook: Option<PathBuf>,
    /// A summary line and the undetected combinations, or the full table as JSON.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ReportFormat,
}

/// How to print a coverage report.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ReportFormat {
    /// A summary line, then one line per undetected combination.
    Text,
    /// Every combination with the number of tasks that detect it, on one line.
    Json,
}

/// How to print a trace.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TraceFormat {
    /// An indented explanation, after the answer line.
    Text,
    /// `{"answer": …, "trace": …}` on one line.
    Json,
}
