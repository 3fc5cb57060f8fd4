//! Regressions of the rulebook front end's hardening (issue 24): a moved
//! band limit in an extending version, rows removed, inherited cases run
//! without a `cases/` folder, the parse of a failing expression bounded,
//! diagnostics rendered in linear time and capped, and `extends` kept to
//! regular files inside the rulebook set's folder.

use super::cli::{bareme, stderr, tempdir};
use bareme::unstable::diag::{Diagnostics, Problem, SourceFile, MAX_RENDERED};
use bareme::unstable::rulebook::{load_rulebook_with, LoadOptions};
use bareme::unstable::span::Span;
use bareme::LoadError;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file of `lines` lines and one problem located on each of its first
/// `problems` lines.
fn many_problems(lines: usize, problems: usize) -> Diagnostics {
    let line = "[steps.s]\n";
    let text: String = line.repeat(lines);
    let mut d = Diagnostics::new(SourceFile {
        name: "many.toml".into(),
        text: Arc::from(text.as_str()),
    });
    for i in 0..problems {
        let at = i * line.len() + 1;
        d.push(
            Problem::new("check::unknown_name", format!("problem {i}"))
                .at(Span::new(at, at + 5), "here"),
        );
    }
    d
}

/// Rendering draws the first `MAX_RENDERED` problems, in order, and counts
/// the others on one line; each is located in its own line of the file
/// (drawn through the line index, not a scan from the file's start).
#[test]
fn rendering_draws_the_first_problems_and_counts_the_rest() {
    let d = many_problems(16_000, 16_000);
    let text = d.render(100, false);
    assert_eq!(text.matches("check::unknown_name").count(), MAX_RENDERED);
    assert!(
        text.contains("problem 199\n"),
        "{}",
        &text[text.len() - 400..]
    );
    assert!(!text.contains("problem 200\n"));
    // The 200th problem is on line 200, column 2.
    assert!(
        text.contains("[many.toml:200:2]"),
        "{}",
        &text[text.len() - 400..]
    );
    assert!(
        text.ends_with("… and 15800 more problems\n"),
        "{}",
        &text[text.len() - 200..]
    );
    // At most the cap: no count line.
    let d = many_problems(300, MAX_RENDERED);
    let text = d.render(100, false);
    assert_eq!(text.matches("check::unknown_name").count(), MAX_RENDERED);
    assert!(!text.contains("more problem"));
    let d = many_problems(300, MAX_RENDERED + 1);
    assert!(d.render(100, false).ends_with("… and 1 more problem\n"));
}

const BASE: &str = "[rulebook]\nid = \"toy\"\nversion = 1\nschema = 1\n\n[inputs.pay]\ntype = \"money\"\nrequired = true\n\n\
[steps.tax]\nexpr = \"pay / 10\"\n\n[[checks]]\ndecision = \"ok\"\n\n[decisions.ok.answer]\ntax = { expr = \"tax\", format = \"money\" }\n";

/// `dir/name/rulebook.toml` holding `text`; the folder.
fn version(dir: &Path, name: &str, text: &str) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("rulebook.toml"), text).expect("write");
    folder
}

/// A version 2 extending `target`, with `body` after its `[rulebook]`.
fn child(target: &str, body: &str) -> String {
    format!("[rulebook]\nid = \"toy\"\nversion = 2\nschema = 1\nextends = \"{target}\"\n{body}")
}

/// The problems of loading `path` as `code line:col-line:col`, and the rendered text.
fn refused(path: &Path, options: LoadOptions) -> (Vec<String>, String) {
    match load_rulebook_with(path, options) {
        Err(LoadError::Invalid(d)) => (d.locations(), d.render(100, false)),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("loads"),
    }
}

/// A FIFO (which blocks when opened) and `/dev/stdin` are refused before
/// they are opened: the load ends, with the problem at `extends`.
#[test]
fn extends_naming_a_fifo_or_standard_input_is_refused_unread() {
    let dir = tempdir("front-fifo");
    let fifo = dir.join("pipe");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let v2 = version(&dir, "v2", &child("../pipe", ""));
    let (found, text) = refused(&v2, LoadOptions::default());
    assert_eq!(found, ["load::extends 5:11-5:20"]);
    assert!(text.contains("is not a regular file"), "{text}");
    // `/dev/stdin` is outside the set's folder; allowed outside, it is still no regular file.
    let v3 = version(&dir, "v3", &child("/dev/stdin", ""));
    let (found, _) = refused(&v3, LoadOptions::default());
    assert_eq!(found.len(), 1);
    assert!(found[0].ends_with(" 5:11-5:23"), "{found:?}");
    let (found, _) = refused(
        &v3,
        LoadOptions {
            allow_outside: true,
        },
    );
    assert_eq!(found, ["load::extends 5:11-5:23"]);
    // A folder without `rulebook.toml` is a missing file, as before.
    std::fs::create_dir_all(dir.join("empty")).expect("folder");
    let v4 = version(&dir, "v4", &child("../empty", ""));
    assert_eq!(
        refused(&v4, LoadOptions::default()).0,
        ["load::extends 5:11-5:21"]
    );
}

/// `extends` stays inside the rulebook set's folder unless allowed: the
/// file outside is never read, so no line of it is quoted.
#[test]
fn extends_stays_inside_the_rulebook_sets_folder() {
    let dir = tempdir("front-outside");
    version(
        &dir.join("other-set"),
        "v1",
        &format!("{BASE}# SECRET LINE\n[steps.bad]\nexpr = \"nothing\"\n"),
    );
    let v2 = version(&dir.join("set"), "v2", &child("../../other-set/v1", ""));
    let (found, text) = refused(&v2, LoadOptions::default());
    assert_eq!(found, ["load::extends_outside 5:11-5:31"]);
    assert!(
        !text.contains("SECRET") && !text.contains("nothing"),
        "{text}"
    );
    // Allowed outside, the base is read, and its own problem shown in it.
    let (found, text) = refused(
        &v2,
        LoadOptions {
            allow_outside: true,
        },
    );
    assert_eq!(found, ["check::unknown_name 20:9-20:16"], "{text}");
    // Inside the set, a version extends its sibling.
    version(&dir.join("set"), "v1", BASE);
    let v3 = version(&dir.join("set"), "v3", &child("../v1", ""));
    assert!(load_rulebook_with(&v3, LoadOptions::default()).is_ok());
    // The binary's flag.
    let fixed = version(&dir.join("other-set"), "v1", BASE);
    assert!(fixed.exists());
    let path = v2.display().to_string();
    let o = bareme(&["check", &path], None);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("load::extends_outside"),
        "{}",
        stderr(&o)
    );
    let o = bareme(&["--allow-outside", "check", &path], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = bareme(&["check", "--allow-outside", "--effective", &path], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Bands taxed 0 up to 1000, 10 % up to 2000, 20 % above; a keyed table
/// and a period table beside them.
const BANDS: &str = r#"[rulebook]
id = "toy"
version = 1
schema = 1

[inputs.income]
type = "money"
required = true

[tables.bands]
kind = "scale"
rows = [{ upto = "1000", rate = "0" }, { upto = "2000", rate = "0.10" }, { rate = "0.20" }]

[tables.codes]
kind = "keyed"
keys = ["code"]
columns = { code = { type = "text" }, amount = { type = "money" } }
rows = [{ code = "a", amount = "1.00" }, { code = "b", amount = "2.00" }]

[tables.years]
kind = "periods"
columns = { rate = { type = "decimal" } }
rows = [{ name = "y1", from = "2026-01", to = "2026-12", rate = "1" }, { name = "y2", from = "2027-01", rate = "2" }]

[steps.tax]
expr = "scale(bands, income)"
round = { places = 2, mode = "half_up" }

[[checks]]
decision = "ok"

[decisions.ok.answer]
tax = { expr = "tax", format = "money" }
b = { expr = "lookup(codes, 'b').amount", format = "money" }
"#;

/// The tax on `income` under the rulebook at `path`, and the amount of code `b`.
fn tax(path: &Path, income: &str) -> (String, String) {
    let rb = super::rulebook(&path.display().to_string());
    let case = serde_json::json!({ "income": income });
    match bareme::evaluate_value(&rb, &case, false)
        .expect("evaluates")
        .0
    {
        bareme::Outcome::Answer(a) => {
            let a = a.to_json();
            (a["tax"].to_string(), a["b"].to_string())
        }
        other => panic!("{other:?}"),
    }
}

/// A band written with a limit the extended table does not have was added
/// silently (moving 2000 to 2500 this way taxed 2000–2500 at 10 % in a new
/// band and kept the old one); it is now refused at the row, and `was`
/// says what moves.
#[test]
fn a_band_of_a_new_limit_must_say_whether_it_moves_a_limit_or_adds_a_band() {
    let dir = tempdir("front-bands");
    let v1 = version(&dir, "v1", BANDS);
    // 3000: 10 % of 1000 + 20 % of 1000 = 300.00.
    assert_eq!(tax(&v1, "3000.00").0, "\"300.00\"");
    let v2 = version(
        &dir,
        "v2",
        &child(
            "../v1",
            "\n[[tables.bands.rows]]\nupto = \"2500\"\nrate = \"0.10\"\n",
        ),
    );
    let (found, text) = refused(&v2, LoadOptions::default());
    assert_eq!(found, ["load::band_new 7:1-9:14"]);
    assert!(
        text.contains("no band of limit `2500`") && text.contains("was = "),
        "{text}"
    );
    // Moved: 10 % of 1500 + 20 % of 500 = 250.00, and 1000–2000 is no longer a band of its own.
    let v2 = version(
        &dir,
        "v2",
        &child(
            "../v1",
            "\n[[tables.bands.rows]]\nupto = \"2500\"\nwas = \"2000\"\nrate = \"0.10\"\n",
        ),
    );
    assert_eq!(tax(&v2, "3000.00").0, "\"250.00\"");
    assert_eq!(tax(&v2, "2500.00").0, "\"150.00\"");
    // Added: 1000–1500 at 5 %, 1500–2000 at 10 %, above at 20 %: 25 + 50 + 200 = 275.00.
    let v2 = version(
        &dir,
        "v2",
        &child(
            "../v1",
            "\n[[tables.bands.rows]]\nupto = \"1500\"\ninsert = true\nrate = \"0.05\"\n",
        ),
    );
    assert_eq!(tax(&v2, "3000.00").0, "\"275.00\"");
    // A limit is found by its value: `2000.00` is the band of `2000`. 12 % of 1000 + 200 = 320.00.
    let v2 = version(
        &dir,
        "v2",
        &child(
            "../v1",
            "\n[[tables.bands.rows]]\nupto = \"2000.00\"\nrate = \"0.12\"\n",
        ),
    );
    assert_eq!(tax(&v2, "3000.00").0, "\"320.00\"");
}

/// `remove = true` leaves out the row of its identity, by band limit, key or period name.
#[test]
fn a_version_removes_rows_by_band_limit_key_or_period_name() {
    let dir = tempdir("front-remove");
    version(&dir, "v1", BANDS);
    let v2 = version(
        &dir,
        "v2",
        &child(
            "../v1",
            "\n[tables.bands]\nrows = [{ upto = \"1000\", remove = true }]\n\n\
             [tables.codes]\nrows = [{ code = \"a\", remove = true }]\n\n\
             [tables.years]\nrows = [{ name = \"y2\", remove = true }]\n",
        ),
    );
    // Bands 10 % up to 2000 and 20 % above: 200 + 200 = 400.00; `b` kept.
    assert_eq!(
        tax(&v2, "3000.00"),
        ("\"400.00\"".into(), "\"2.00\"".into())
    );
    let effective = bareme::unstable::rulebook::effective_toml(&v2).expect("checks");
    for gone in ["y2", "remove", "code = \"a\"", "upto = \"1000\""] {
        assert!(!effective.contains(gone), "{gone}: {effective}");
    }
    assert!(effective.contains("code = \"b\"") && effective.contains("upto = \"2000\""));
    // Removing, replacing or moving what is not there, inserting what is,
    // `was` outside a band table, and two changes to one row are refused at the row.
    let cases = [
        ("[tables.codes]\nrows = [{ code = \"z\", remove = true }]\n", "load::row_unknown 8:9-8:38"),
        ("[tables.bands]\nrows = [{ upto = \"3000\", was = \"2500\", rate = \"0\" }]\n", "load::row_unknown 8:9-8:52"),
        ("[tables.codes]\nrows = [{ code = \"b\", insert = true, amount = \"3.00\" }]\n", "load::row_directive 8:9-8:55"),
        ("[tables.codes]\nrows = [{ code = \"c\", was = \"b\", amount = \"3.00\" }]\n", "load::row_directive 8:9-8:51"),
        ("[tables.codes]\nrows = [{ code = \"b\", remove = false }]\n", "load::row_directive 8:9-8:39"),
        ("[tables.bands]\nrows = [{ upto = \"1000\", rate = \"0\" }, { upto = \"1000\", remove = true }]\n", "load::row_directive 8:40-8:72"),
    ];
    for (body, expected) in cases {
        let v3 = version(&dir, "v3", &child("../v1", &format!("\n{body}")));
        assert_eq!(refused(&v3, LoadOptions::default()).0, [expected], "{body}");
    }
}

/// A number key is found by its value, as `check` holds keys unique: a
/// version removing `"2.0"` did not find the row written `"2"`
/// (`load::row_unknown`), and one replacing `"1.0"` by `"1.00"` added a
/// second row of that key, then refused as a duplicate.
#[test]
fn a_number_key_is_found_by_its_value() {
    let dir = tempdir("front-number-keys");
    let base = "[rulebook]\nid = \"toy\"\nversion = 1\nschema = 1\n\n\
        [inputs.band]\ntype = \"decimal\"\nrequired = true\n\n\
        [tables.rates]\nkind = \"keyed\"\nkeys = [\"band\"]\n\
        columns = { band = { type = \"decimal\" }, rate = { type = \"decimal\" } }\n\
        rows = [{ band = \"1.0\", rate = \"0.10\" }, { band = \"2\", rate = \"0.20\" }]\n\n\
        [[checks]]\ndecision = \"ok\"\n\n\
        [decisions.ok.answer]\nrate = { expr = \"coalesce(lookup(rates, band).rate, 0)\", format = \"decimal\" }\n";
    version(&dir, "v1", base);
    let v2 = version(
        &dir,
        "v2",
        &child(
            "../v1",
            "\n[tables.rates]\nrows = [{ band = \"2.0\", remove = true }, { band = \"1.00\", rate = \"0.30\" }]\n",
        ),
    );
    let rate = |band: &str| {
        let rb = super::rulebook(&v2.display().to_string());
        let case = serde_json::json!({ "band": band });
        match bareme::evaluate_value(&rb, &case, false)
            .expect("evaluates")
            .0
        {
            bareme::Outcome::Answer(a) => a.to_json()["rate"].to_string(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(rate("1"), "\"0.30\"");
    assert_eq!(rate("2"), "\"0\"");
}

/// An extending version without a `cases/` folder runs the cases it
/// inherits (`bareme test` failed with exit 2 on the missing folder).
#[test]
fn test_runs_the_inherited_cases_of_a_version_without_its_own() {
    let dir = tempdir("front-inherited");
    let v1 = version(&dir, "v1", BASE);
    std::fs::create_dir_all(v1.join("cases")).expect("cases");
    std::fs::write(
        v1.join("cases/both.toml"),
        "case = '{\"pay\": \"100.00\"}'\n[expect.answer]\ntax = \"10.00\"\n[versions.2.answer]\ntax = \"10.00\"\n",
    )
    .expect("write");
    let v2 = version(&dir, "v2", &child("../v1", ""));
    let o = bareme(&["test", &v2.display().to_string(), "--list"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        super::cli::stdout(&o).contains("ok   v1/both\n"),
        "{}",
        super::cli::stdout(&o)
    );
    assert!(super::cli::stdout(&o).ends_with("1 passed, 0 failed\n"));
    // A version that extends nothing still needs its folder.
    std::fs::remove_dir_all(v1.join("cases")).expect("remove");
    let o = bareme(&["test", &v1.display().to_string()], None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // With nothing inherited either, there is no case to run: exit 1.
    let o = bareme(&["test", &v2.display().to_string()], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// A failing expression took time exponential in its nesting (`if exempt
/// then 0 else 1 + (` 22 times: 22 s): each level's `else` read the group
/// after `+`, failed, and the expression around read it again. The grammar
/// now ends an expression after an `if` or `let`, so each group is read
/// once; and pest stops any parse past `MAX_PARSE_CALLS` calls with its own
/// message. Each text here, 60 levels deep, failing with a *syntax* error
/// rather than that message, shows its parse took fewer calls than the
/// bound (the old grammar needed about 2^60): the test finishes quickly by
/// construction, whatever the machine.
#[test]
fn a_failing_expression_is_read_in_bounded_work() {
    use bareme::unstable::expr::{parse_expr, MAX_EXPR_BYTES, MAX_PARSE_CALLS};
    let nested = [
        ("if exempt then 0 else 1 + (", "", "expected an expression"),
        (
            "if exempt then 0 else 1 + (",
            "x)",
            "expected `.field`, an operator",
        ),
        ("(", "x y", "expected `.field`, an operator"),
        ("f(", "x y", "expected `.field`, an operator"),
        ("[a + ", "x y", "expected `.field`, `for`, an operator"),
        (
            "[if a then b else c + ",
            "x y",
            "expected `.field`, `for`, an operator",
        ),
        ("let a = 1; a + (", "x y", "expected `.field`, an operator"),
        (
            "if a then b else c + f(",
            "x y",
            "expected `.field`, an operator",
        ),
        (
            "match a { 1 => if b then 1 else 2 + (",
            "x y",
            "expected `.field`, an operator",
        ),
        (
            "if (a) then 1 else 2 + (",
            "x y",
            "expected `.field`, an operator",
        ),
    ];
    let calls = format!("{MAX_PARSE_CALLS} parser steps");
    for (level, tail, message) in nested {
        assert!(60 * level.len() + tail.len() <= MAX_EXPR_BYTES);
        let levels = 60;
        let text = format!("{}{tail}", level.repeat(levels));
        let err = parse_expr(&text).expect_err("invalid");
        assert!(!err.message.contains(&calls), "{level}: {}", err.message);
        assert_eq!(err.message, message, "{level}");
    }
    // The valid forms still read as before, an `if` last in a sum included.
    for text in [
        "1 + if a then 2 else 3 + 4",
        "-if a then 1 else 2",
        "x in l and not y",
        "if (a) then f(b) else [c for c in d]",
    ] {
        assert!(parse_expr(text).is_ok(), "{text}");
    }
    assert_eq!(
        bareme::unstable::expr::print::print(
            &parse_expr("1 + if a then 2 else 3 + 4").expect("valid")
        ),
        "1 + (if a then 2 else 3 + 4)"
    );
}

/// A problem on a line longer than miette can pad to (a 16-bit width: the
/// fuzz run's rubric with a 75,976-byte line panicked in its formatter) is
/// given by file, line and column, its line not quoted; a short line is
/// still quoted.
#[test]
fn a_problem_on_a_very_long_line_is_located_not_quoted() {
    let long = format!(
        "[rulebook]\nid = \"long\"\nversion = 1\ntitle = \"t\"\nunknown_key = \"{}\"\n",
        "x".repeat(70_000)
    );
    let diags = match bareme::parse_rulebook("long.toml", &long) {
        Err(d) => d,
        Ok(_) => panic!("an unknown key loads"),
    };
    let text = diags.render(100, false);
    assert!(
        text.contains("at long.toml:5:1 (a line of over 4096 bytes, not quoted)"),
        "{}",
        &text[..text.len().min(2000)]
    );
    assert!(
        !text.contains(&"x".repeat(5_000)),
        "the long line is quoted"
    );
    let short = "[rulebook]\nid = \"short\"\nversion = 1\ntitle = \"t\"\nunknown_key = 1\n";
    let Err(diags) = bareme::parse_rulebook("short.toml", short) else {
        panic!("an unknown key loads")
    };
    let text = diags.render(100, false);
    assert!(text.contains("unknown_key = 1"), "{text}");
    assert!(!text.contains("not quoted"), "{text}");
}
