//! The generator target: the bundled `rulebooks/*/generator-*.toml`, mutated
//! (`mutate_toml.rs`) and loaded against their rulebook; a generator that
//! loads draws a few tasks (one thread, small indices, now and then at one
//! level).
//!
//! The oracle: no panic, no abort, within the time limit, and the same text
//! loaded and drawn twice gives the same diagnostics or the same tasks.

use rand::Rng as _;
use std::sync::OnceLock;

use super::mutate_toml::{book_of, mutated, pool, seeds, Pool, Seed};
use super::{tally, Config, Finding, Rng, Target};

/// The generator target.
pub struct GeneratorToml;

/// One input: a mutated generator (of seed `seed`), and the tasks it draws if it loads.
pub struct Input {
    seed: usize,
    text: String,
    task_seed: u64,
    indices: Vec<u64>,
    level: Option<i64>,
}

struct Loaded {
    seed: Seed,
    rb: bareme::Rulebook,
}

fn corpus() -> &'static (Vec<Loaded>, Pool) {
    static CORPUS: OnceLock<(Vec<Loaded>, Pool)> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let loaded: Vec<Loaded> = seeds("generator")
            .into_iter()
            .map(|(path, text)| {
                let (_, rb) = bareme::unstable::generate::load_generator(&path, None)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let rel = path
                    .strip_prefix(super::super::root())
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                let book = book_of(&rb);
                Loaded {
                    seed: Seed { rel, text, book },
                    rb,
                }
            })
            .collect();
        let pool = pool(loaded.iter().map(|l| l.seed.text.as_str()));
        (loaded, pool)
    })
}

/// What a generator text comes to: its diagnostics, or the tasks it draws.
/// The one place this target calls the generator's API.
fn outcome(input: &Input, rb: &bareme::Rulebook, count: bool) -> String {
    let g =
        match bareme::unstable::generate::parse_generator("fuzz-generator.toml", &input.text, rb) {
            Ok(g) => g,
            Err(d) => {
                if count {
                    tally("refused");
                }
                return format!("refused\n{}", d.render(100, false));
            }
        };
    let engine = match bareme::unstable::generate::TaskDrawer::new(&g, rb) {
        Ok(e) => e,
        Err(e) => {
            if count {
                tally("refused by the engine");
            }
            return format!("engine: {e}");
        }
    };
    let mut out = String::new();
    for &i in &input.indices {
        let drawn = engine.task(input.task_seed, i, input.level);
        if count {
            tally(if drawn.is_ok() {
                "tasks"
            } else {
                "task errors"
            });
        }
        out.push_str(&format!("{drawn:?}\n"));
    }
    out
}

impl Target for GeneratorToml {
    type Input = Input;
    const NAME: &'static str = "generator_toml";
    const SHORT_COUNT: u64 = 24;

    fn draw(&self, rng: &mut Rng, _i: u64) -> Input {
        let (loaded, pool) = corpus();
        let seed = rng.random_range(0..loaded.len());
        let text = mutated(rng, &loaded[seed].seed, pool);
        let n = rng.random_range(1..=2);
        Input {
            seed,
            text,
            task_seed: rng.random_range(0..1_000),
            indices: (0..n).map(|_| rng.random_range(0..50)).collect(),
            level: rng.random_bool(0.2).then(|| rng.random_range(0..6)),
        }
    }

    fn bytes(&self, input: &Input) -> Vec<u8> {
        input.text.as_bytes().to_vec()
    }

    fn extra_files(&self, input: &Input) -> Vec<(String, Vec<u8>)> {
        let about = format!(
            "mutated from {}; tasks {:?} of seed {}, level {:?}\n",
            corpus().0[input.seed].seed.rel,
            input.indices,
            input.task_seed,
            input.level
        );
        vec![("draws.txt".into(), about.into_bytes())]
    }

    fn check(&self, input: &Input) -> Result<(), Finding> {
        let rb = &corpus().0[input.seed].rb;
        let first = outcome(input, rb, true);
        let second = outcome(input, rb, false);
        if first != second {
            return Err(Finding::new(
                "nondeterministic: generator",
                format!("the same generator twice gives:\n{first}\n---\n{second}"),
            ));
        }
        Ok(())
    }
}

impl GeneratorToml {
    /// The target for a run.
    pub fn new(_cfg: Config) -> GeneratorToml {
        GeneratorToml
    }
}
