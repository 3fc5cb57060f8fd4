//! Unit tests of the word diff and of the canonical forms the diff compares.

use super::flatten::{canonical, toml_text};
use super::words::word_diff;

#[test]
fn words_kept_removed_and_added_come_in_runs() {
    let runs = word_diff("a b c d", "a x c d e");
    let ops: Vec<(&str, &str)> = runs.iter().map(|r| (r.op, r.text.as_str())).collect();
    assert_eq!(
        ops,
        [
            ("same", "a"),
            ("removed", "b"),
            ("added", "x"),
            ("same", "c d"),
            ("added", "e")
        ]
    );
    assert!(word_diff("", "").is_empty());
    let whole: Vec<&str> = word_diff("", "new words").iter().map(|r| r.op).collect();
    assert_eq!(whole, ["added"]);
}

#[test]
fn layout_and_brackets_that_change_nothing_print_the_same() {
    assert_eq!(canonical("a+b *c"), canonical("a + (b * c)"));
    assert_ne!(canonical("(a + b) * c"), canonical("a + b * c"));
    // Text that is no expression is compared with its whitespace collapsed.
    assert_eq!(canonical("a +\n  "), "a +");
}

#[test]
fn toml_tables_print_with_sorted_keys() {
    let a: toml::Value =
        toml::from_str::<toml::Table>("v = { b = 1, a = [\"x\", true] }").unwrap()["v"].clone();
    assert_eq!(toml_text(&a), "{a = [x, true], b = 1}");
}

#[test]
fn text_that_is_no_rulebook_names_its_file() {
    let old = super::Version {
        file: "old.toml",
        text: "[rulebook]\nid = \"x\"\n",
    };
    let new = super::Version {
        file: "new.toml",
        text: "not toml at all",
    };
    let e = super::diff_rulebooks(&old, &new).expect_err("refused");
    assert_eq!(e.code(), "diff::not_a_rulebook");
    assert_eq!(e.file, "old.toml");
    assert!(e.to_string().starts_with("old.toml: "), "{e}");
}

/// `round(x, p)` is `round(x, p, half_up)`: the default mode written out
/// is no change.
#[test]
fn a_rounding_s_default_mode_written_out_is_the_same() {
    assert_eq!(
        canonical("round(a * b, 2)"),
        canonical("round(a * b, 2, half_up)")
    );
    assert_ne!(
        canonical("round(a * b, 2)"),
        canonical("round(a * b, 2, half_even)")
    );
    assert_eq!(canonical("1 + round(x, 0, half_up)"), "1 + round(x, 0)");
}

/// A TOML date and the same date as a string are one value; serde's
/// private wrapper of a date is never shown.
#[test]
fn a_toml_date_prints_as_its_text() {
    let rows = r#"
[rulebook]
id = "d"
version = 1
schema = 1
[tables.t]
kind = "periods"
rows = [{ name = "a", from = 2026-01-01, rate = "1" }]
"#;
    let raw: crate::rulebook::raw::RawRulebook = toml::from_str(rows).expect("a rulebook");
    let row = raw.tables["t"].rows[0].get_ref();
    let text = toml_text(&row["from"]);
    assert_eq!(text, "2026-01-01", "{:?}", row["from"]);
}
