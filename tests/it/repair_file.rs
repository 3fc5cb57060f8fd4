//! The repair file's own checks at load: visible cases read as `eval`
//! reads a case, and each problem placed at the key that holds it.

use bareme::unstable::repair::parse_repair;

use super::{root, rulebook};

/// A bundled repair file's text and its reference rulebook.
fn repair_file(set: &str, version: &str, number: u32) -> (String, bareme::Rulebook) {
    let path = root().join(format!("rulebooks/{set}/repair-{number}.toml"));
    let text = std::fs::read_to_string(path).expect("the repair file");
    (text, rulebook(&format!("rulebooks/{set}/{version}")))
}

/// The problems of repair-file text, as `code line:col: message`.
fn problems(text: &str, rb: &bareme::Rulebook) -> Vec<String> {
    match parse_repair("repair.toml", text, rb) {
        Ok(_) => Vec::new(),
        Err(d) => d
            .problems
            .iter()
            .map(|p| match p.line_column() {
                Some((l, c)) => format!("{} {l}:{c}: {}", p.code, p.message),
                None => format!("{} nowhere: {}", p.code, p.message),
            })
            .collect(),
    }
}

/// A visible case given as JSON text is read as `bareme eval` reads a case
/// file: a key written twice is refused (it was read as its last value, so
/// `verify` scored a case nobody wrote and `eval` refuses), at the `json`
/// key; a case in its envelope `{"case": …}` is the case inside.
#[test]
fn visible_json_is_read_as_eval_reads_a_case() {
    let (text, rb) = repair_file("paie-fr", "v2026", 1);
    let once = r#""bonus": "150.00""#;
    assert_eq!(text.matches(once).count(), 1);
    let twice = text.replacen(once, r#""bonus": "700.00", "bonus": "1.00""#, 1);
    let line = 1 + text[..text.find(once).expect("bonus")].matches('\n').count();
    assert_eq!(
        problems(&twice, &rb),
        [format!(
            "repair::visible {line}:8: visible case `PAYSLIP-1`: `json` is not a case as `eval` reads one: bonus: duplicate key \"bonus\": an object of a case gives each key once"
        )]
    );
    let nested = text.replacen(
        r#""premium": "80.00""#,
        r#""premium": "80.00", "premium": "8.00""#,
        1,
    );
    let found = problems(&nested, &rb);
    assert!(
        found.len() == 1 && found[0].contains("health_insurance.premium: duplicate key"),
        "{found:?}"
    );
    // An envelope, as `eval` takes one: the same case.
    let plain = parse_repair("repair.toml", &text, &rb).expect("loads");
    let start = text.find("{\"level\": 3").expect("the first case");
    let end = start + text[start..].find("'''").expect("its end");
    let wrapped = format!(
        "{}{{\"case\": {}}}{}",
        &text[..start],
        &text[start..end],
        &text[end..]
    );
    let enveloped = parse_repair("repair.toml", &wrapped, &rb).expect("loads");
    assert_eq!(enveloped.visible[0].case, plain.visible[0].case);
}
