//! Regressions of the rulebook front end's hardening (issue 24): a moved
//! band limit in an extending version, rows removed, inherited cases run
//! without a `cases/` folder, the parse of a failing expression bounded,
//! diagnostics rendered in linear time and capped, and `extends` kept to
//! regular files inside the rulebook set's folder.

use bareme::diag::{Diagnostics, Problem, SourceFile, MAX_RENDERED};
use bareme::span::Span;
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
