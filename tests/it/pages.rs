//! Audit pages (`eval --trace html|markdown`, `docs/audit-page.md`): the
//! Markdown pages of a Luma and a paie-fr conformance case pinned; every
//! conformance case's HTML page holds every step its JSON trace names and
//! every answer field, and names nothing outside itself; hostile case text
//! is escaped; a batch writes a page per line and an index, whole or not
//! at all; output that cannot be written is exit 2.

use std::path::{Path, PathBuf};

use bareme::unstable::conformance::cases;
use bareme::unstable::trace::{render_html, render_markdown, write_trace_json, PageSource};
use bareme::{evaluate_value, Outcome, Rulebook, Trace};

use sha2::Digest;

use super::cli::bareme;

/// The outcome, trace and answer JSON of a case.
fn run(rb: &Rulebook, case: &serde_json::Value) -> (Outcome, Trace, Option<String>) {
    let (outcome, trace) = evaluate_value(rb, case, true).expect("evaluates");
    let answer = match &outcome {
        Outcome::Answer(a) => {
            let mut json = Vec::new();
            a.write_json(&mut json);
            Some(String::from_utf8(json).expect("UTF-8"))
        }
        _ => None,
    };
    (outcome, trace.expect("asked for"), answer)
}

fn source<'a>(
    rb: &'a Rulebook,
    trace: &'a Trace,
    answer: Option<&'a str>,
    case: &'a [u8],
) -> PageSource<'a> {
    PageSource {
        rulebook: rb,
        trace,
        answer,
        case,
    }
}

/// The conformance case `name` of a rulebook, and its bytes.
fn case_of(dir: &str, name: &str) -> (serde_json::Value, Vec<u8>) {
    let all = cases(&super::root().join(dir)).expect("cases");
    let (_, case) = all
        .into_iter()
        .find(|(n, _)| n == name)
        .expect("the case exists");
    let bytes = serde_json::to_vec(&case).expect("JSON");
    (case, bytes)
}

/// A page with the rulebook's hash (which changes with any edit of its
/// file) and the engine's version redacted.
fn pinned(page: &str, rb: &Rulebook) -> String {
    page.replace(rb.hash(), "[rulebook sha256]")
        .replace(&rb.reference(), "[reference]")
        .replace(env!("CARGO_PKG_VERSION"), "[version]")
}

fn markdown_of(dir: &str, name: &str) -> String {
    let rb = super::rulebook(dir);
    let (case, bytes) = case_of(dir, name);
    let (_, trace, answer) = run(&rb, &case);
    pinned(
        &render_markdown(&source(&rb, &trace, answer.as_deref(), &bytes)),
        &rb,
    )
}

#[test]
fn luma_markdown_page() {
    insta::assert_snapshot!(markdown_of(
        "rulebooks/luma-payroll/v3",
        "03-middle-bracket-first-half"
    ));
}

#[test]
fn paie_fr_markdown_page() {
    insta::assert_snapshot!(markdown_of(
        "rulebooks/paie-fr/v2026",
        "15-level-4-entry-mid-month-cadre"
    ));
}

/// Every step the JSON trace names (with its item), as an anchor of the
/// page and as text.
fn steps_named(trace: &Trace) -> Vec<(Option<String>, String)> {
    let mut written = Vec::new();
    write_trace_json(&mut written, trace).expect("a trace within its bound");
    let json: serde_json::Value = serde_json::from_slice(&written).expect("JSON");
    json["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "step")
        .map(|e| {
            (
                e["item"].as_str().map(str::to_string),
                e["step"].as_str().expect("step").to_string(),
            )
        })
        .collect()
}

/// A name as the page's anchors write it.
fn anchor_part(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// What no page may hold: a URL, a script, a resource loaded.
fn assert_self_contained(page: &str, what: &str) {
    for bad in [
        "http", "//", "src=", "<script", "url(", "@import", "<link", "<img",
    ] {
        assert!(!page.contains(bad), "{what}: the page holds {bad:?}");
    }
    for (at, _) in page.match_indices("href=\"") {
        let target = &page[at + 6..];
        assert!(
            target.starts_with('#'),
            "{what}: a link leaves the page: {}",
            &target[..target.len().min(40)]
        );
    }
    assert_eq!(
        page.matches("<details").count(),
        page.matches("</details>").count(),
        "{what}: details balanced"
    );
}

/// Every answer field's key and each of its values (as written in the
/// JSON, strings without quotes) is in the page.
fn assert_answer_shown(page: &str, answer: &str, what: &str) {
    let json: serde_json::Value = serde_json::from_str(answer).expect("answer JSON");
    fn leaves(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    out.push(k.clone());
                    leaves(v, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|i| leaves(i, out)),
            serde_json::Value::String(s) => out.push(s.clone()),
            other => out.push(other.to_string()),
        }
    }
    let mut all = Vec::new();
    leaves(&json, &mut all);
    for text in all {
        let escaped = bareme::unstable::trace::escape_html(&text);
        assert!(
            page.contains(&escaped),
            "{what}: answer text {text:?} missing"
        );
    }
}

#[test]
fn every_conformance_page_shows_every_step_and_field_and_nothing_outside() {
    let mut pages = 0;
    for dir in super::rulebook_dirs() {
        let rb = match bareme::load_rulebook(&dir) {
            Ok(rb) => rb,
            Err(e) => panic!("{}: {e}", dir.display()),
        };
        for (name, case) in cases(&dir).expect("cases") {
            let what = format!("{} {name}", dir.display());
            let Ok((outcome, Some(trace))) = evaluate_value(&rb, &case, true) else {
                continue;
            };
            let answer = match &outcome {
                Outcome::Answer(a) => {
                    let mut json = Vec::new();
                    a.write_json(&mut json);
                    Some(String::from_utf8(json).expect("UTF-8"))
                }
                _ => None,
            };
            let bytes = serde_json::to_vec(&case).expect("JSON");
            let page = render_html(&source(&rb, &trace, answer.as_deref(), &bytes));
            assert_self_contained(&page, &what);
            for (item, step) in steps_named(&trace) {
                let id = match &item {
                    Some(item) => format!("step-{}-{}", anchor_part(item), anchor_part(&step)),
                    None => format!("step-{}", anchor_part(&step)),
                };
                assert!(
                    page.contains(&format!("id=\"{id}\"")),
                    "{what}: {id} missing"
                );
                assert!(
                    page.contains(&format!(">{step}<")),
                    "{what}: {step} missing"
                );
                if let Some(item) = item {
                    assert!(page.contains(&item), "{what}: {item} missing");
                }
            }
            if let Some(answer) = &answer {
                assert_answer_shown(&page, answer, &what);
            }
            // Every in-page link lands on an anchor of the page.
            for (at, _) in page.match_indices("href=\"#") {
                let rest = &page[at + 7..];
                let target = &rest[..rest.find('"').expect("closing quote")];
                assert!(
                    page.contains(&format!("id=\"{target}\"")),
                    "{what}: link to #{target} lands nowhere"
                );
            }
            pages += 1;
        }
    }
    assert!(pages > 100, "pages checked: {pages}");
}

#[test]
fn a_value_links_to_the_step_that_made_it() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let (case, bytes) = case_of("rulebooks/luma-payroll/v3", "03-middle-bracket-first-half");
    let (_, trace, answer) = run(&rb, &case);
    let page = render_html(&source(&rb, &trace, answer.as_deref(), &bytes));
    // 0.10 × 1175.30 = 117.530 → 117.53, the answer's income tax, from its step.
    assert!(page.contains("<a href=\"#step-income_tax\">117.53</a>"));
    assert!(page.contains("<article class=\"step\" id=\"step-income_tax\">"));
    // employee_contribution read by taxable_pay links back to its step.
    assert!(page.contains("<a href=\"#step-employee_contribution\">125.67</a>"));
    // The rounding and its margin: 0.05 × 2513.37 = 125.6685 → 125.67, 0.0035
    // above the tie 125.665 where half-up would have given 125.66.
    assert!(page.contains("125.6685 → 125.67 <span class=\"margin\">margin 0.0035</span>"));
    // The same inputs give the same bytes.
    assert_eq!(
        page,
        render_html(&source(&rb, &trace, answer.as_deref(), &bytes))
    );
}

#[test]
fn hostile_case_text_is_escaped() {
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let hostile = "</details><script>alert(1)</script>|`x`*[a](http://e.x)\u{202e}\n# h";
    let case = serde_json::json!({
        "cart": {"cart_id": hostile, "customer_id": "K1", "lines": [
            {"id": hostile, "product_id": "P1", "quantity": 2, "jurisdiction": "STATE_A"}
        ]},
        "customers": {"K1": {"billing_jurisdiction": "STATE_A"}},
        "products": {"P1": {"category": "STANDARD", "unit_price": "1.00"}}
    });
    let (_, trace, answer) = run(&rb, &case);
    let answer = answer.expect("an answer");
    assert!(
        answer.contains("script"),
        "the hostile text is in the answer"
    );
    let bytes = serde_json::to_vec(&case).expect("JSON");
    let src = source(&rb, &trace, Some(&answer), &bytes);
    let html = render_html(&src);
    assert!(!html.contains("<script"));
    assert!(!html.contains("</details><"));
    assert!(!html.contains('\u{202e}'));
    assert!(html.contains("&lt;/details&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("\\u{202e}\\n# h"));
    assert_eq!(
        html.matches("<details").count(),
        html.matches("</details>").count()
    );
    let md = render_markdown(&src);
    assert!(!md.contains("<script") && !md.contains("</details>"));
    assert!(!md.contains("[a](http"), "no link made of case text");
    // In a table cell the pipe and the backticks are escaped, so the row keeps its cells.
    assert!(md
        .contains(r"&lt;/details&gt;&lt;script&gt;alert(1)&lt;/script&gt;\|\`x\`\*\[a\](http\://"));
    assert!(!md.contains("\n# h"), "case text starts no line");
}

/// GitHub makes links of bare addresses in text (`https://…`, `www.…`,
/// `name@host.tld`), escaped or not: a case put live links in the
/// Markdown page's cells. Each is broken where GitHub's renderer looks:
/// `\:`, `www\.` and an empty comment after `@` (mail links are found
/// once escapes are undone). Checked against cmark-gfm by hand.
#[test]
fn bare_addresses_in_case_text_make_no_link_in_markdown() {
    use bareme::unstable::trace::escape_markdown;
    for (text, shown) in [
        (
            "see https://evil.example/x and WWW.evil.example",
            r"see https\://evil.example/x and WWW\.evil.example",
        ),
        ("mailto:me@evil.example", r"mailto:me@<!-- -->evil.example"),
        ("P[x](http://e.x)", r"P\[x\](http\://e.x)"),
        // A dot or a colon elsewhere stays as written.
        ("146.00 and w.ww.x: 12:30", "146.00 and w.ww.x: 12:30"),
    ] {
        assert_eq!(escape_markdown(text), shown, "{text}");
    }
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let id = "see https://evil.example/x, www.evil.example and me@evil.example";
    let case = serde_json::json!({
        "cart": {"cart_id": id, "customer_id": "K1", "lines": [
            {"id": "L1", "product_id": "P1", "quantity": 1, "jurisdiction": "STATE_A"}
        ]},
        "customers": {"K1": {}},
        "products": {"P1": {"category": "STANDARD", "unit_price": "1.00"}}
    });
    let (_, trace, answer) = run(&rb, &case);
    let bytes = serde_json::to_vec(&case).expect("JSON");
    let md = render_markdown(&source(&rb, &trace, answer.as_deref(), &bytes));
    assert!(
        md.contains(r"see https\://evil.example/x, www\.evil.example and me@<!-- -->evil.example")
    );
    for live in ["https://", "www.evil", "me@evil"] {
        assert!(!md.contains(live), "{live}");
    }
}

/// A `|` in code on a line of its own is written as it is; in a table
/// cell it is escaped, as a cell needs (GitHub showed `\|` on a line).
#[test]
fn a_pipe_in_code_is_escaped_only_in_a_table_cell() {
    let text = "[rulebook]\nid = \"p\"\nversion = 1\nschema = 1\n\n\
        [inputs.name]\ntype = \"text\"\nrequired = true\n\n\
        [steps.bar]\nexpr = \"name == 'a|b'\"\n\n\
        [[checks]]\nwhen = \"name == 'a|b'\"\ndecision = \"d\"\n\n\
        [[checks]]\ndecision = \"d\"\n\n\
        [decisions.d.answer]\nv = { expr = \"bar\", format = \"bool\" }\n";
    let rb = bareme::parse_rulebook("p.toml", text).expect("valid");
    let case = serde_json::json!({"name": "a|b"});
    let (_, trace, answer) = run(&rb, &case);
    let bytes = serde_json::to_vec(&case).expect("JSON");
    let md = render_markdown(&source(&rb, &trace, answer.as_deref(), &bytes));
    let check = md
        .lines()
        .find(|l| l.contains("**check 1**"))
        .expect("the check's line");
    assert!(check.contains("`name == 'a|b'`"), "{check}");
    assert!(!check.contains("\\|"), "{check}");
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bareme-pages-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_batch_writes_a_page_per_case_and_an_index() {
    let dir = temp("batch");
    let batch =
        "{\"task\": \"payslip\", \"gross_pay\": \"2500.00\", \"payroll_month\": \"2026-03\"}\n\
                 not json\n\
                 {\"task\": \"payslip\", \"gross_pay\": \"-1\", \"payroll_month\": \"2026-03\"}\n";
    let out = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            "--batch",
            "-",
            "--trace",
            "html",
            "--out",
            dir.to_str().expect("UTF-8"),
        ],
        Some(batch),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        files(&dir),
        ["index.html", "line-000001.html", "line-000003.html"]
    );
    let index = std::fs::read_to_string(dir.join("index.html")).expect("index");
    assert_self_contained(&index.replace("href=\"line-", "href=\"#line-"), "index");
    assert!(index.contains("<a href=\"line-000001.html\">1</a>"));
    assert!(index.contains("decision calculate"));
    assert!(index.contains("net_pay 2237.50"));
    assert!(index.contains("<th>2</th><td>rejected</td><td>not a case"));
    assert!(index.contains("rejected at gross_pay"));
    let page = std::fs::read_to_string(dir.join("line-000001.html")).expect("page");
    assert!(page.contains("<a href=\"#step-net_pay\">2237.50</a>"));

    // A folder that is not empty is refused, and left as it was.
    let again = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            "--batch",
            "-",
            "--trace",
            "markdown",
            "--out",
            dir.to_str().expect("UTF-8"),
        ],
        Some(batch),
    );
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
    assert_eq!(
        files(&dir),
        ["index.html", "line-000001.html", "line-000003.html"]
    );
    std::fs::remove_dir_all(&dir).expect("cleaned");

    // Markdown into an empty folder: the same pages, `.md`.
    std::fs::create_dir(&dir).expect("empty folder");
    let md = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            "--batch",
            "-",
            "--trace",
            "markdown",
            "--out",
            dir.to_str().expect("UTF-8"),
        ],
        Some(batch),
    );
    assert_eq!(md.status.code(), Some(0));
    assert_eq!(
        files(&dir),
        ["index.md", "line-000001.md", "line-000003.md"]
    );
    std::fs::remove_dir_all(&dir).expect("cleaned");
}

#[test]
fn pages_that_cannot_be_written_are_exit_2() {
    let case = "examples/luma-payroll/payslip.json";
    // A folder whose parent does not exist: nothing is written.
    let out = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            "--batch",
            "examples/luma-payroll/batch.jsonl",
            "--trace",
            "html",
            "--out",
            "/nonexistent-bareme/pages",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let single = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            case,
            "--trace",
            "html",
            "--out",
            "/nonexistent-bareme/page.html",
        ],
        None,
    );
    assert_eq!(single.status.code(), Some(2));
    #[cfg(target_os = "linux")]
    {
        let full = super::cli::bareme_into_a_full_disk(&[
            "eval",
            "rulebooks/luma-payroll/v3",
            case,
            "--trace",
            "markdown",
        ]);
        assert_eq!(full.status.code(), Some(2));
        let file = bareme(
            &[
                "eval",
                "rulebooks/luma-payroll/v3",
                case,
                "--trace",
                "html",
                "--out",
                "/dev/full",
            ],
            None,
        );
        assert_eq!(file.status.code(), Some(2));
    }
    // Usage: a batch of pages needs a folder; --out needs a page format.
    let no_dir = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            "--batch",
            "-",
            "--trace",
            "html",
        ],
        Some(""),
    );
    assert_eq!(no_dir.status.code(), Some(2));
    let no_page = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            case,
            "--out",
            "/tmp/x.html",
        ],
        None,
    );
    assert_eq!(no_page.status.code(), Some(2));
    // An --out naming the case itself is refused.
    let clobber = bareme(
        &[
            "eval",
            "rulebooks/luma-payroll/v3",
            case,
            "--trace",
            "html",
            "--out",
            case,
        ],
        None,
    );
    assert_eq!(clobber.status.code(), Some(2));
}

#[test]
fn an_ablation_and_a_rejection_are_said_on_the_page() {
    let rb = super::rulebook("rulebooks/sales-tax/v1")
        .ablated("half_even")
        .expect("a declared reading");
    let bytes = std::fs::read(super::root().join("examples/sales-tax/cart.json")).expect("case");
    let case: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
    let (_, trace, answer) = run(&rb, &case);
    let html = render_html(&source(&rb, &trace, answer.as_deref(), &bytes));
    assert!(html.contains(
        "<tr class=\"warn\"><th>ablation</th><td><code>half_even</code> — an alternative reading, not the rules</td></tr>"
    ));
    // The case's digest is SHA-256 of its bytes as read, as `sha256sum` gives it.
    let digest: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(html.contains(&format!(
        "<tr><th>case sha256</th><td><code>{digest}</code></td></tr>"
    )));
    let md = render_markdown(&source(&rb, &trace, answer.as_deref(), &bytes));
    assert!(md.contains("| **ablation** | `half_even` — an alternative reading, not the rules |"));

    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let bytes = br#"{"task": "payslip", "gross_pay": "-1.00", "payroll_month": "2026-03"}"#;
    let case: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
    let (outcome, trace, answer) = run(&rb, &case);
    let Outcome::Rejected(error) = outcome else {
        panic!("a negative gross pay is rejected");
    };
    assert!(answer.is_none());
    let html = render_html(&source(&rb, &trace, None, bytes));
    assert!(html.contains(&format!(
        "<p class=\"decision rejected\">Rejected at <code>{}</code>: {}</p>",
        error.path,
        bareme::unstable::trace::escape_html(&error.message)
    )));
    assert!(!html.contains("<table class=\"answer\">"));
    assert!(html.contains("No check held: the case was rejected as it was read."));
    // The digest is of the bytes given: one more space, another digest.
    let spaced = br#"{"task": "payslip",  "gross_pay": "-1.00", "payroll_month": "2026-03"}"#;
    assert_ne!(html, render_html(&source(&rb, &trace, None, spaced)));
}
