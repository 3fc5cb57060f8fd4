//! Exact counts and disjoint splits (issue 25, items 1 and 2): every index
//! of a run gives one task, a duplicate of an earlier one drawn again in its
//! own stream; a set drawn with `--exclude` shares no case with the files it
//! excludes; shards write the full run's bytes either way; and a range of
//! indices past `MAX_INDEX_END` is refused before any draw.

use std::path::PathBuf;

use bareme::unstable::generate::{
    first_draws, load_generator, parse_generator, redraw_duplicates, run, run_excluding,
    ExcludeFault, Exclusion, Generator, Manifest, RunError, RunOptions, TaskDrawer, MAX_INDEX_END,
};
use bareme::Rulebook;
use sha2::{Digest, Sha256};

use super::cli::{bareme, stderr, tempdir};

const LUMA_GEN: &str = "rulebooks/luma-payroll/generator-4.toml";

/// A generator file and its rulebook, loaded as `bareme generate` loads them.
fn load(path: &std::path::Path) -> (Generator, Rulebook) {
    match load_generator(path, None) {
        Ok(pair) => pair,
        Err(bareme::unstable::generate::GeneratorError::Invalid(d)) => {
            panic!("{}", d.render(100, false))
        }
        Err(e) => panic!("{e}"),
    }
}

/// Every bundled generator file, `rulebooks/*/generator*.toml`.
fn bundled() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for set in std::fs::read_dir(super::root().join("rulebooks")).expect("rulebooks/") {
        let set = set.expect("an entry").path();
        let Ok(entries) = std::fs::read_dir(&set) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("an entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("generator") && name.ends_with(".toml") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn options(seed: u64, start: u64, count: u64, jobs: usize) -> RunOptions {
    RunOptions {
        seed,
        start,
        count,
        level: None,
        jobs,
    }
}

/// The lines a run writes, excluding `excluded`, and its manifest.
fn lines(engine: &TaskDrawer<'_>, options: RunOptions, excluded: &Exclusion) -> (String, Manifest) {
    let mut out = Vec::new();
    let manifest = run_excluding(engine, options, excluded, &mut out, &|_| {}).expect("a run");
    (String::from_utf8(out).expect("UTF-8"), manifest)
}

/// The files `sets` (name, lines) read as one exclusion.
fn exclusion(engine: &TaskDrawer<'_>, sets: &[(&str, &str)]) -> Exclusion {
    let mut excluded = Exclusion::new();
    for (name, text) in sets {
        excluded
            .add(engine, name, text.as_bytes(), 2)
            .expect("a task file of this generator");
    }
    excluded
}

/// The cases of a set, as written.
fn cases(lines: &str) -> Vec<serde_json::Value> {
    lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a task line")["case"].clone())
        .collect()
}

fn shared_cases(a: &str, b: &str) -> usize {
    let a = cases(a);
    cases(b).iter().filter(|c| a.contains(c)).count()
}

/// Item 1: `-n 400` writes 400 lines for every bundled generator at two
/// seeds, no two of one signature; every line is the index's first passing
/// draw except where a duplicate was drawn again.
#[test]
fn every_bundled_generator_gives_as_many_distinct_tasks_as_asked() {
    let files = bundled();
    assert!(files.len() >= 4, "the bundled generators: {files:?}");
    let mut redrawn = 0;
    for file in &files {
        let (g, rb) = load(file);
        let engine = TaskDrawer::new(&g, &rb).expect("an engine");
        for seed in [2026, 7] {
            let (out, manifest) = lines(&engine, options(seed, 0, 400, 2), &Exclusion::new());
            let at = format!("{} at seed {seed}", file.display());
            assert_eq!(out.lines().count(), 400, "{at}");
            assert_eq!(manifest.tasks, 400, "{at}");
            // The set read back as a file to exclude: as many signatures as lines.
            let own = exclusion(&engine, &[("set", &out)]);
            assert_eq!(own.files()[0].tasks, 400, "{at}");
            assert_eq!(own.files()[0].signatures, 400, "{at}: a task repeats");
            let mut changed = 0;
            for (index, line) in (0..).zip(out.lines()) {
                let first = engine.task(seed, index, None).expect("a draw").task;
                if serde_json::to_string(&first).expect("a line") != line {
                    changed += 1;
                }
            }
            assert!(
                changed <= manifest.duplicates && (changed == 0) == (manifest.duplicates == 0),
                "{at}: {changed} lines differ from the first draw, {} duplicates",
                manifest.duplicates
            );
            let counted: u64 = manifest
                .redraws
                .iter()
                .filter(|(reason, _)| reason.ends_with(": duplicate of an earlier task"))
                .map(|(_, n)| n)
                .sum();
            assert_eq!(counted, manifest.duplicates, "{at}: {:?}", manifest.redraws);
            redrawn += manifest.duplicates;
        }
    }
    // Luma's signature repeats a few times in 400 draws (7 at seed 2026 when
    // written): the redraw path is taken, not only the first draw's.
    assert!(redrawn > 0, "no duplicate was drawn again");
}

/// Item 1: the index whose draws all repeat earlier tasks is named, within
/// the generator's `max_redraws`; the run never loops and never writes a
/// short file.
#[test]
fn an_index_with_no_new_task_fails_naming_it() {
    let text = std::fs::read_to_string(super::root().join(LUMA_GEN)).expect("bundled");
    // Every task of one decision and reason is then one case.
    let start = text.find("signature = [").expect("a signature");
    let end = start + text[start..].find(']').expect("its end");
    let text = format!("{}signature = [\"1\"]{}", &text[..start], &text[end + 1..]);
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let g = parse_generator(LUMA_GEN, &text, &rb).expect("loads");
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let mut out = Vec::new();
    let err = match run(&engine, options(1, 0, 40, 2), &mut out, &|_| {}) {
        Err(RunError::Task(e)) => e,
        other => panic!("{other:?}"),
    };
    // Luma's trap reasons and decisions make a handful of signatures.
    assert!(err.index < 40, "{err}");
    assert!(
        err.message
            .starts_with("no draw gave a new task in 400 attempts ("),
        "{err}"
    );
    assert!(
        err.message.contains("duplicate of an earlier task"),
        "{err}"
    );
}

/// The run split in two phases (`bareme.dist`): shards' first draws, each
/// shard drawing its own indices only, then the duplicates drawn again in
/// index order, give the run's bytes where duplicates occur (Luma at seed
/// 2026: 6 in 400), and the run's error where an index has no new task.
#[test]
fn first_draws_and_their_redraws_are_the_run() {
    let (g, rb) = load(&super::root().join(LUMA_GEN));
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let (full, manifest) = lines(&engine, options(2026, 0, 400, 2), &Exclusion::new());
    assert!(manifest.duplicates > 0, "no duplicate at seed 2026");
    let mut first = Vec::new();
    for (start, count) in [(0, 150), (150, 150), (300, 100)] {
        first.extend(first_draws(&engine, options(2026, start, count, 2)).expect("a shard"));
    }
    assert_eq!(first.len(), 400);
    let ids: Vec<[u8; 32]> = first.iter().map(|f| f.identity).collect();
    let redrawn = redraw_duplicates(&engine, 2026, None, &ids).expect("settled");
    assert!(
        !redrawn.is_empty() && redrawn.len() as u64 <= manifest.duplicates,
        "{} indices redrawn, {} duplicates",
        redrawn.len(),
        manifest.duplicates
    );
    let mut text = Vec::new();
    let mut at = redrawn.iter().peekable();
    for (index, f) in (0..).zip(first) {
        let line = match at.next_if(|(i, _)| *i == index) {
            Some((_, line)) => {
                assert_ne!(*line, f.line, "index {index} redrawn to its first draw");
                line.clone()
            }
            None => f.line,
        };
        text.extend(line);
        text.push(b'\n');
    }
    assert!(at.next().is_none(), "a redrawn index out of order");
    assert_eq!(String::from_utf8(text).expect("UTF-8"), full);

    // An index with no new task: the run's error, word for word.
    let text = std::fs::read_to_string(super::root().join(LUMA_GEN)).expect("bundled");
    let start = text.find("signature = [").expect("a signature");
    let end = start + text[start..].find(']').expect("its end");
    let text = format!("{}signature = [\"1\"]{}", &text[..start], &text[end + 1..]);
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let g = parse_generator(LUMA_GEN, &text, &rb).expect("loads");
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let ran = run(&engine, options(1, 0, 40, 2), &mut Vec::new(), &|_| {}).map(|_| ());
    let ids: Vec<[u8; 32]> = first_draws(&engine, options(1, 0, 40, 2))
        .expect("first draws pass")
        .iter()
        .map(|f| f.identity)
        .collect();
    let split = redraw_duplicates(&engine, 1, None, &ids).map(|_| ());
    match (ran, split) {
        (Err(RunError::Task(a)), Err(RunError::Task(b))) => {
            assert_eq!((a.index, &a.message), (b.index, &b.message));
            assert!(a.message.starts_with("no draw gave a new task"), "{a}");
        }
        other => panic!("{other:?}"),
    }
}

/// Item 2: seeds 1001 and 3003 of Luma generator 4 drawn as a split share
/// no case and no signature once the second excludes the first, and the
/// manifest names the file, its hash and its signatures.
#[test]
fn a_set_drawn_excluding_another_shares_no_case_with_it() {
    let (g, rb) = load(&super::root().join(LUMA_GEN));
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let none = Exclusion::new();
    let (train, _) = lines(&engine, options(1001, 0, 196, 2), &none);
    let (plain, _) = lines(&engine, options(3003, 0, 196, 2), &none);
    let overlap = 392 - exclusion(&engine, &[("a", &train), ("b", &plain)]).signatures();
    let excluded = exclusion(&engine, &[("train.jsonl", &train)]);
    let (dev, manifest) = lines(&engine, options(3003, 0, 196, 2), &excluded);
    assert_eq!(dev.lines().count(), 196);
    let both = exclusion(&engine, &[("train", &train), ("dev", &dev)]);
    assert_eq!(both.signatures(), 392, "the split shares a signature");
    assert_eq!(shared_cases(&train, &dev), 0);
    let file = &manifest.exclude[0];
    assert_eq!(manifest.exclude.len(), 1);
    assert_eq!(file.path, "train.jsonl");
    let sha: String = Sha256::digest(train.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(file.sha256, sha);
    assert_eq!((file.tasks, file.signatures), (196, 196));
    // Each draw of the plain set that train holds was drawn again, and
    // drawn again before any other index's task could take its place.
    assert!(file.redraws >= overlap as u64, "{overlap} shared, {file:?}");
    let counted: u64 = manifest
        .redraws
        .iter()
        .filter(|(reason, _)| reason.ends_with(": in an excluded task file"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(counted, file.redraws);
}

/// Item 2, as a property: at a few seeds, a dev set excluding train and a
/// test set excluding both share no signature with either, even a dev set
/// drawn at train's own seed (where every first draw is train's task).
#[test]
fn sets_drawn_as_a_split_are_disjoint_at_any_seeds() {
    let (g, rb) = load(&super::root().join(LUMA_GEN));
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    for (a, b, c) in [(1, 2, 3), (42, 42, 43), (2026, 9, 2026)] {
        let (train, _) = lines(&engine, options(a, 0, 60, 2), &Exclusion::new());
        let (dev, dev_manifest) = lines(
            &engine,
            options(b, 0, 60, 2),
            &exclusion(&engine, &[("train", &train)]),
        );
        let (test, _) = lines(
            &engine,
            options(c, 0, 60, 2),
            &exclusion(&engine, &[("train", &train), ("dev", &dev)]),
        );
        let all = exclusion(
            &engine,
            &[("train", &train), ("dev", &dev), ("test", &test)],
        );
        assert_eq!(all.signatures(), 180, "seeds {a}, {b}, {c}");
        assert_eq!(shared_cases(&train, &dev) + shared_cases(&train, &test), 0);
        assert_eq!(shared_cases(&dev, &test), 0);
        if a == b {
            assert!(dev_manifest.exclude[0].redraws >= 60, "{dev_manifest:?}");
        }
    }
}

/// Item 2: a generator without a signature identifies a task by its case,
/// read back from the file exactly as drawn: a set drawn at another set's
/// own seed, excluding it, draws every index again and shares no case.
#[test]
fn a_case_is_its_own_signature_when_the_generator_declares_none() {
    let (g, rb) = load(&super::root().join("rulebooks/sales-tax/generator-1.toml"));
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let (train, _) = lines(&engine, options(11, 0, 20, 2), &Exclusion::new());
    let excluded = exclusion(&engine, &[("train", &train)]);
    assert_eq!(excluded.files()[0].signatures, 20);
    let (dev, manifest) = lines(&engine, options(11, 0, 20, 2), &excluded);
    assert_eq!(dev.lines().count(), 20);
    assert!(manifest.exclude[0].redraws >= 20, "{manifest:?}");
    assert_eq!(shared_cases(&train, &dev), 0);
    assert_eq!(
        exclusion(&engine, &[("train", &train), ("dev", &dev)]).signatures(),
        40
    );
}

/// Item 2: a shard of a run with `--exclude` writes exactly the full run's
/// lines, whatever the threads.
#[test]
fn shards_of_an_excluding_run_write_the_full_runs_bytes() {
    let (g, rb) = load(&super::root().join(LUMA_GEN));
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let (train, _) = lines(&engine, options(5, 0, 150, 2), &Exclusion::new());
    let excluded = exclusion(&engine, &[("train", &train)]);
    let (full, manifest) = lines(&engine, options(5, 0, 150, 2), &excluded);
    assert!(manifest.exclude[0].redraws >= 150, "{manifest:?}");
    let (a, _) = lines(&engine, options(5, 0, 61, 1), &excluded);
    let (b, _) = lines(&engine, options(5, 61, 89, 2), &excluded);
    assert_eq!(full, format!("{a}{b}"));
}

/// Item 2: a file of another rulebook, another rulebook hash or another
/// generator is refused, naming the file and the line.
#[test]
fn a_task_file_of_another_generator_or_rulebook_is_refused() {
    let (g, rb) = load(&super::root().join(LUMA_GEN));
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let (set, _) = lines(&engine, options(1, 0, 3, 1), &Exclusion::new());
    let second = set.lines().nth(1).expect("a second line").to_string();
    let first = set.lines().next().expect("a line").to_string();
    let refused = |text: String| match Exclusion::new().add(&engine, "x.jsonl", text.as_bytes(), 1)
    {
        Err(e) => e,
        Ok(()) => panic!("{text} is excluded"),
    };
    let id = |line: &str| {
        let task: serde_json::Value = serde_json::from_str(line).expect("a task line");
        task["id"].as_str().expect("an id").to_string()
    };
    let hash = rb.hash().to_string();
    let other_hash = second.replace(&hash, &"0".repeat(64));
    let e = refused(format!("{first}\n{other_hash}\n"));
    assert!(
        matches!(*e.fault, ExcludeFault::Foreign { line: 2, .. }),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "--exclude x.jsonl: line 2: task {} is written for luma-payroll@3#{}; only a task \
             file of luma-payroll/generator-4 against luma-payroll@3#{hash} can be excluded",
            id(&second),
            "0".repeat(64)
        )
    );
    let other_generator = first.replace("luma-payroll/generator-4", "luma-payroll/generator-9");
    let e = refused(other_generator);
    let expected = format!(
        "line 1: task {} was drawn by luma-payroll/generator-9;",
        id(&first)
    );
    assert!(e.to_string().contains(&expected), "{e}");
    let e = refused(format!("{first}\n\n{{\"id\": 1}}\n"));
    assert_eq!(
        e.to_string(),
        "--exclude x.jsonl: line 3: the task's `id` must be a string"
    );
}

/// Item 2 through the command: `--exclude` twice, the manifest's record of
/// each file, a foreign file refused with exit 2.
#[test]
fn generate_excludes_files_named_on_the_command_line() {
    let dir = tempdir("splits-cli");
    let path = |name: &str| dir.join(name).to_str().expect("UTF-8").to_string();
    let gen = super::root().join(LUMA_GEN);
    let gen = gen.to_str().expect("UTF-8");
    for (seed, name) in [("1001", "train.jsonl"), ("2002", "tune.jsonl")] {
        let o = bareme(
            &[
                "generate",
                gen,
                "-n",
                "50",
                "--seed",
                seed,
                "--out",
                &path(name),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let o = bareme(
        &[
            "generate",
            gen,
            "-n",
            "50",
            "--seed",
            "3003",
            "--exclude",
            &path("train.jsonl"),
            "--exclude",
            &path("tune.jsonl"),
            "--out",
            &path("test.jsonl"),
            "--manifest",
            &path("test.json"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("in excluded files), sha256"),
        "{}",
        stderr(&o)
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path("test.json")).expect("a manifest"))
            .expect("JSON");
    let files = manifest["exclude"].as_array().expect("the excluded files");
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["path"], path("train.jsonl").as_str());
    assert_eq!(files[1]["path"], path("tune.jsonl").as_str());
    let bytes = std::fs::read(path("tune.jsonl")).expect("tune");
    let sha: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(files[1]["sha256"], sha.as_str());
    assert_eq!(files[1]["signatures"], 50);
    let read = |name: &str| std::fs::read_to_string(path(name)).expect("a set");
    assert_eq!(shared_cases(&read("train.jsonl"), &read("test.jsonl")), 0);
    assert_eq!(shared_cases(&read("tune.jsonl"), &read("test.jsonl")), 0);

    let sales = super::root().join("rulebooks/sales-tax/generator-1.toml");
    let o = bareme(
        &[
            "generate",
            sales.to_str().expect("UTF-8"),
            "-n",
            "2",
            "--out",
            &path("sales.jsonl"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = bareme(
        &[
            "generate",
            gen,
            "-n",
            "5",
            "--exclude",
            &path("sales.jsonl"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let expected = format!(
        "error: --exclude {}: line 1: task sales-0 is written for sales-tax@1#",
        path("sales.jsonl")
    );
    assert!(stderr(&o).starts_with(&expected), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
}

/// Item 3: a range of indices past `MAX_INDEX_END` is refused before any
/// draw; near `u64::MAX` it used to draw every earlier index (a hang).
#[test]
fn a_range_past_the_index_bound_is_refused_at_once() {
    assert_eq!(MAX_INDEX_END, 100_000_000);
    let (g, rb) = load(&super::root().join(LUMA_GEN));
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    for (start, count) in [
        (u64::MAX - 10, 3),
        (MAX_INDEX_END, 1),
        (0, MAX_INDEX_END + 1),
    ] {
        let mut out = Vec::new();
        match run(&engine, options(1, start, count, 1), &mut out, &|_| {}) {
            Err(RunError::Range { start: s, count: n }) => assert_eq!((s, n), (start, count)),
            other => panic!("{other:?}"),
        }
        assert!(out.is_empty());
    }
    assert!(options(1, MAX_INDEX_END - 2, 2, 1).end().is_ok());
    let gen = super::root().join(LUMA_GEN);
    let o = bareme(
        &[
            "generate",
            gen.to_str().expect("UTF-8"),
            "--start",
            "18446744073709551605",
            "-n",
            "3",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "error: --start 18446744073709551605 and -n 3 go past the last index a run may draw, \
         99999999: start + n is at most 100000000 (a shard draws every task before its start \
         first)\n"
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn prompt_options_are_recorded_and_do_not_change_what_a_split_excludes() {
    let path = super::root().join(LUMA_GEN);
    let (plain, rb) = load(&path);
    let (mut shown, _) = load(&path);
    shown.set_option("demonstrations", true).expect("declared");
    let (mut off, _) = load(&path);
    // Set to its declared value: a default run.
    off.set_option("demonstrations", false).expect("declared");
    let (plain_e, shown_e, off_e) = (
        TaskDrawer::new(&plain, &rb).expect("drawer"),
        TaskDrawer::new(&shown, &rb).expect("drawer"),
        TaskDrawer::new(&off, &rb).expect("drawer"),
    );
    let none = Exclusion::new();
    let (a, ma) = lines(&plain_e, options(5, 0, 30, 2), &none);
    let (b, mb) = lines(&shown_e, options(5, 0, 30, 2), &none);
    let (c, mc) = lines(&off_e, options(5, 0, 30, 2), &none);
    // The manifest records every declared switch with its value.
    let recorded = |m: &Manifest| serde_json::to_value(m).expect("JSON")["options"].clone();
    assert_eq!(
        recorded(&ma),
        serde_json::json!({"demonstrations": false, "documents": false})
    );
    assert_eq!(
        recorded(&mb),
        serde_json::json!({"demonstrations": true, "documents": false})
    );
    assert_eq!(recorded(&mc), recorded(&ma));
    assert_eq!((&c, &mc.sha256), (&a, &ma.sha256));
    // A task line records them only when they differ from the declared ones,
    // right after `generator_hash`.
    assert!(!a.contains(r#""options""#));
    for line in b.lines() {
        assert!(
            line.contains(r#"","options":{"demonstrations":true,"documents":false},"rubric":8,"#),
            "{line}"
        );
    }
    // Same cases, other prompts: the lines differ, the signatures do not.
    assert_eq!(cases(&a), cases(&b));
    assert_ne!(ma.sha256, mb.sha256);
    // So a file drawn with the demonstrations excludes its cases from a
    // default run: exclusion reads cases, never prompts.
    let excluded = exclusion(&plain_e, &[("shown.jsonl", &b)]);
    assert_eq!(excluded.files()[0].signatures, 30);
    let (d, md) = lines(&plain_e, options(5, 0, 30, 2), &excluded);
    assert_eq!(shared_cases(&d, &b), 0);
    assert!(md.exclude[0].redraws >= 30, "{:?}", md.exclude[0]);
    let options_of = |text: &str| {
        text.lines()
            .map(|l| bareme::Task::from_json(l).expect("a task").options)
            .collect::<Vec<_>>()
    };
    assert!(options_of(&d).iter().all(Option::is_none));
    let shown = [
        ("demonstrations".to_string(), true),
        ("documents".to_string(), false),
    ];
    assert!(options_of(&b)
        .iter()
        .all(|o| o.as_deref() == Some(&shown[..])));
}

/// A shard of no tasks draws nothing: the tasks before `start` settle only
/// the shard's own duplicates (`--start 100000000 -n 0` drew for hours to
/// write nothing). Its manifest is an empty run's.
#[test]
fn a_shard_of_no_tasks_draws_none_before_its_start() {
    let (g, rb) = load(&super::root().join(LUMA_GEN));
    let engine = TaskDrawer::new(&g, &rb).expect("an engine");
    let drawn = std::cell::Cell::new(0u64);
    let mut out = Vec::new();
    let manifest = run(&engine, options(3, 500, 0, 2), &mut out, &|n| {
        drawn.set(drawn.get() + n)
    })
    .expect("a run");
    assert_eq!(drawn.get(), 0);
    assert!(out.is_empty());
    assert_eq!(
        (manifest.tasks, manifest.start, manifest.count),
        (0, 500, 0)
    );
    assert_eq!(manifest.sha256, format!("{:x}", Sha256::digest(b"")));
    // One task after the same start still settles against all 500.
    let drawn = std::cell::Cell::new(0u64);
    run(&engine, options(3, 500, 1, 2), &mut out, &|n| {
        drawn.set(drawn.get() + n)
    })
    .expect("a run");
    assert_eq!(drawn.get(), 501);
}
