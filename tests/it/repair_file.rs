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
    let line = 1 + text[..text.find(once).expect("bonus")]
        .matches('\n')
        .count();
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

/// The line (from 1) of the first `needle` in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle}"));
    1 + text[..at].matches('\n').count()
}

/// Every problem of a repair file points at the key or table that holds
/// it, as `count`, `reward` and `rulebook_hash` do: an unknown reading at
/// its name, `exclusive` or `min_items` alone at its value, a visible case
/// at its `id` (no answer, named twice) or its second case (`case` and
/// `json`), an empty `[groups]` at its header. They were all at 1:1, one
/// of them nowhere, so an author with several visible cases could not
/// tell which one was refused.
#[test]
fn each_repair_file_problem_points_at_its_key() {
    let (text, rb) = repair_file("sales-tax", "v1", 1);
    let tags = "tags = [\"ablation:billing_jurisdiction\"]\n";
    let exemption = "tags = [\"ablation:exemption_ignored\"]\n";
    let path = "path = \"cart.lines\"\n";
    let changed =
        text.replacen(
            tags,
            &format!("{tags}readings = [\"billing_jurisdiction\", \"nope\"]\n"),
            1,
        )
        .replacen(exemption, &format!("{exemption}exclusive = true\n"), 1)
        .replacen(path, "", 1)
        .replacen(
            "magnitude = \"1000000000000000\"",
            "magnitude = \"lots\"",
            1,
        ) + "\n[[visible]]\nid = \"EMPTY\"\njson = '{}'\n\
           \n[[visible]]\nid = \"CART-1\"\njson = '{}'\n\
           \n[[visible]]\nid = \"BOTH\"\ncase = {}\njson = '{}'\n";
    let found = problems(&changed, &rb);
    let at = |needle: &str| line_of(&changed, needle);
    let empty = at("id = \"EMPTY\"");
    let expected = [
        format!("repair::caps {}:13: `caps.magnitude` is a decimal", at("magnitude =")),
        format!("repair::visible {}:6: visible case `EMPTY` has no answer under the reference", empty),
        format!("repair::visible {}:6: visible case `CART-1` is named twice", empty + 4),
        format!("repair::visible {}:6: visible case `CART-1` has no answer under the reference", empty + 4),
        format!(
            "repair::visible {}:8: visible case `BOTH`: give `case` (TOML) or `json` (JSON text), one of them",
            empty + 10
        ),
    ];
    assert_eq!(found[..5], expected, "{found:#?}");
    let groups = &found[5..];
    assert_eq!(groups.len(), 3, "{groups:#?}");
    let readings = at("readings = [\"billing_jurisdiction\", \"nope\"]");
    assert!(
        groups[0].starts_with(&format!(
            "repair::group {readings}:37: group `destination`: reading `nope`: "
        )),
        "{groups:#?}"
    );
    assert_eq!(
        groups[1..],
        [
            format!(
                "repair::group {}:13: group `exemption`: `exclusive` goes with `readings`",
                at("exclusive = true")
            ),
            format!(
                "repair::group {}:13: group `ordering`: `path` and `min_items` go together",
                at("min_items = 2")
            ),
        ]
    );
    // No group at all: at the `[groups]` table, written or inline.
    let start = text.find("[groups.destination]").expect("the groups");
    let inline = format!("groups = {{}}\n{}", &text[..start]);
    for (none, groups, column) in [
        (format!("{}[groups]\n", &text[..start]), "[groups]\n", 1),
        (inline, "groups = {}", 10),
    ] {
        assert_eq!(
            problems(&none, &rb),
            [format!(
                "repair::size {}:{column}: a repair task has 1 to 64 groups and at most 64 visible cases",
                line_of(&none, groups)
            )]
        );
    }
    // A visible case past the 64th (the file has three): at its entry.
    let many: String = (0..65)
        .map(|i| {
            format!(
                "\n[[visible]]\nid = \"V{i}\"\njson = '''{}'''\n",
                sales_tax_cart()
            )
        })
        .collect();
    let over = format!("{text}{many}");
    assert_eq!(
        problems(&over, &rb),
        [format!(
            "repair::size {}:1: a repair task has 1 to 64 groups and at most 64 visible cases",
            line_of(&over, "id = \"V61\"") - 1
        )]
    );
}

/// A sales-tax case the reference answers, as JSON text.
fn sales_tax_cart() -> &'static str {
    r#"{"cart": {"cart_id": "C", "customer_id": "K-1", "lines": [{"id": "L1", "product_id": "P-1", "quantity": 1, "jurisdiction": "STATE_A"}]}, "customers": {"K-1": {"billing_jurisdiction": "STATE_A"}}, "products": {"P-1": {"category": "STANDARD", "name": "Lamp", "unit_price": "1.00"}}}"#
}

/// A hidden-case generator that does not load is shown as `bareme
/// generate` shows it (each problem's code, message and place), then
/// what it means for the repair file: `verify` printed only "1 problem(s)
/// in generator-1.toml", and its author had to run `generate` to learn
/// which.
#[test]
fn verify_shows_the_generators_own_problems() {
    use super::cli::{bareme, tempdir};
    let dir = tempdir("repair-generator");
    let from = root().join("rulebooks/sales-tax");
    std::fs::create_dir_all(dir.join("v1")).expect("a folder");
    let copy = |name: &str| std::fs::copy(from.join(name), dir.join(name)).expect("copied");
    copy("v1/rulebook.toml");
    copy("repair-1.toml");
    let generator = std::fs::read_to_string(from.join("generator-1.toml")).expect("generator");
    let keep = "keep_profile = true\n";
    assert_eq!(generator.matches(keep).count(), 1);
    let bogus = generator.replacen(keep, &format!("{keep}bogus = 1\n"), 1);
    let gen_path = dir.join("generator-1.toml");
    std::fs::write(&gen_path, &bogus).expect("generator");
    let path = |p: &std::path::Path| p.to_str().expect("utf-8").to_string();
    let generate = bareme(&["generate", &path(&gen_path), "-n", "1"], None);
    let shown = String::from_utf8_lossy(&generate.stderr).to_string();
    assert_eq!(generate.status.code(), Some(3), "{shown}");
    let line = line_of(&bogus, "bogus = 1");
    assert!(shown.contains("generate::toml"), "{shown}");
    assert!(
        shown.contains(&format!("generator-1.toml:{line}:1]")),
        "{shown}"
    );
    let repair = path(&dir.join("repair-1.toml"));
    let verify = bareme(
        &["verify", &path(&dir.join("v1")), "--repair", &repair],
        None,
    );
    let err = String::from_utf8_lossy(&verify.stderr).to_string();
    assert_eq!(verify.status.code(), Some(3), "{err}");
    assert!(verify.stdout.is_empty());
    // The same page, then the repair file's closing line for it.
    let (page, closing) = shown.trim_end().rsplit_once('\n').expect("a closing line");
    assert_eq!(
        closing,
        format!("error: 1 problem(s) in {}", path(&gen_path))
    );
    assert_eq!(
        err,
        format!(
            "{page}\nerror: the hidden cases of {repair}: 1 problem(s) in {} [repair::hidden]\n",
            path(&gen_path)
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}
