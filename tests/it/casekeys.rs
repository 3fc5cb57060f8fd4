//! A key a case writes that its rulebook does not declare is refused, at
//! every object level, with the declared key it most likely misspells; the
//! rulebook may allow extra keys where its records carry them
//! (`extra_keys = "allow"`), or name the ones they carry (`extra_keys =
//! ["id", "label"]`: any other still refused); `sweep --vary` refuses a
//! field no input declares.

use serde_json::json;

use super::cli::bareme;

/// The outcome line `eval --batch` would print.
fn outcome(rb: &bareme::Rulebook, case: &serde_json::Value) -> serde_json::Value {
    bareme::unstable::outcome::outcome_json(
        bareme::evaluate_value(rb, case, false)
            .as_ref()
            .map(|(o, _)| o),
    )
}

fn rejection(rb: &bareme::Rulebook, case: &serde_json::Value) -> (String, String) {
    let out = outcome(rb, case);
    let error = &out["error"];
    assert!(error.is_object(), "expected a rejection, got {out}");
    (
        error["path"].as_str().unwrap_or_default().to_string(),
        error["message"].as_str().unwrap_or_default().to_string(),
    )
}

/// Gross 3000.00 in March 2026 (row first-half: rate 0.05, free 1000.00,
/// upper 3300.00, middle rate 0.10), deduction 180.00: contribution
/// 0.05 × 3000.00 = 150.00; taxable 3000.00 − 150.00 − 180.00 = 2670.00;
/// tax 0.10 × (2670.00 − 1000.00) = 167.00; net 3000.00 − 150.00 − 180.00 −
/// 167.00 = 2503.00. With the deduction misspelt and read as absent, the
/// net would be 3000.00 − 150.00 − 0.10 × 1850.00 = 2665.00.
fn luma_case(deduction_key: &str) -> serde_json::Value {
    let mut case = json!({"task": "payslip", "gross_pay": "3000.00", "payroll_month": "2026-03"});
    case[deduction_key] = json!("180.00");
    case
}

#[test]
fn a_luma_case_with_its_deduction_spelt_right_answers() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let out = outcome(&rb, &luma_case("allowed_deduction"));
    assert_eq!(out["net_pay"], "2503.00", "{out}");
    assert_eq!(out["income_tax"], "167.00", "{out}");
}

#[test]
fn a_misspelt_luma_deduction_is_refused_with_a_suggestion() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let (path, message) = rejection(&rb, &luma_case("allowed_deductions"));
    assert_eq!(path, "allowed_deductions");
    assert_eq!(message, "unknown input; did you mean allowed_deduction?");
}

#[test]
fn eval_refuses_the_misspelt_key_with_exit_2() {
    let case = luma_case("allowed_deductions").to_string();
    let out = bareme(&["eval", "rulebooks/luma-payroll/v3", "-"], Some(&case));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("allowed_deductions: unknown input; did you mean allowed_deduction?"),
        "{text}"
    );
}

#[test]
fn a_batch_line_with_an_unknown_key_is_refused_and_the_next_answers() {
    let lines = format!(
        "{}\n{}\n",
        luma_case("allowed_deductions"),
        luma_case("allowed_deduction")
    );
    let out = bareme(
        &["eval", "rulebooks/luma-payroll/v3", "--batch", "-"],
        Some(&lines),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let got: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(got.len(), 2, "{stdout}");
    assert_eq!(got[0]["error"]["path"], "allowed_deductions");
    assert_eq!(
        got[0]["error"]["message"],
        "unknown input; did you mean allowed_deduction?"
    );
    assert_eq!(got[1]["net_pay"], "2503.00");
}

/// paie-fr case 25 (its answer computed by hand there), `bonus` misspelt.
#[test]
fn a_misspelt_paie_fr_bonus_is_refused() {
    let rb = super::rulebook("rulebooks/paie-fr/v2026");
    let cases =
        bareme::unstable::conformance::cases(&super::root().join("rulebooks/paie-fr/v2026"))
            .expect("cases");
    let (_, case25) = cases
        .iter()
        .find(|(name, _)| name.starts_with("25-"))
        .expect("case 25");
    let mut case = case25.clone();
    let bonus = case["bonus"].clone();
    assert_eq!(bonus, "75");
    assert_eq!(outcome(&rb, &case)["brut"], "2485.50");
    let object = case.as_object_mut().expect("an object");
    object.shift_remove("bonus");
    object.insert("bonuss".into(), bonus);
    let (path, message) = rejection(&rb, &case);
    assert_eq!(path, "bonuss");
    assert_eq!(message, "unknown input; did you mean bonus?");
}

#[test]
fn an_unknown_key_far_from_every_input_gets_no_suggestion() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let mut case = luma_case("allowed_deduction");
    case["employee_id"] = json!("E-0042");
    assert_eq!(
        rejection(&rb, &case),
        ("employee_id".into(), "unknown input".into())
    );
}

#[test]
fn an_unknown_key_comes_before_the_faults_of_its_object() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    // `task` is refused too, but the unknown key is the object's first fault.
    let case = json!({"task": "holiday", "gros_pay": "3000.00"});
    assert_eq!(
        rejection(&rb, &case),
        (
            "gros_pay".into(),
            "unknown input; did you mean gross_pay?".into()
        )
    );
}

#[test]
fn a_nested_record_key_is_refused() {
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let mut case = luma_case("allowed_deduction");
    case["contract_gross_pay"] = json!("2900.00");
    case["amendment"] =
        json!({"gross_pay": "3000.00", "effective_month": "2026-03", "aproved": true});
    assert_eq!(
        rejection(&rb, &case),
        (
            "amendment.aproved".into(),
            "unknown field; did you mean approved?".into()
        )
    );
}

#[test]
fn a_key_of_a_list_item_is_refused_at_its_item() {
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let case = json!({
        "products": {"P1": {"category": "STANDARD", "name": "Lamp", "unit_price": "10.00"}},
        "customers": {"K1": {}},
        "cart": {"cart_id": "C1", "customer_id": "K1", "lines": [
            {"id": "L1", "product_id": "P1", "quantity": 1, "jurisdiction": "STATE_A"},
            {"id": "L2", "product_id": "P1", "quantty": 2, "jurisdiction": "STATE_A"}
        ]}
    });
    assert_eq!(
        rejection(&rb, &case),
        (
            "cart.lines[1].quantty".into(),
            "unknown field; did you mean quantity?".into()
        )
    );
}

#[test]
fn keys_allowed_on_a_record_pass() {
    // Products carry a name (the seed's records), which the rules never
    // read: sales-tax allows extra keys on its products.
    let rb = super::rulebook("rulebooks/sales-tax/v1");
    let case = json!({
        "products": {"P1": {"category": "STANDARD", "name": "Lamp", "unit_price": "10.00", "kg": 1}},
        "customers": {"K1": {}},
        "cart": {"cart_id": "C1", "customer_id": "K1", "lines": [
            {"id": "L1", "product_id": "P1", "quantity": 2, "jurisdiction": "STATE_A"}
        ]}
    });
    // STATE_A: STANDARD taxable at 0.075; 2 × 10.00 = 20.00; tax 1.50.
    let out = outcome(&rb, &case);
    assert_eq!(out["total"], "21.50", "{out}");
}

#[test]
fn extra_keys_allowed_on_a_supplied_table_pass_and_others_do_not() {
    // Luma's reference_tables allows extra rows and columns (reading 1).
    let rb = super::rulebook("rulebooks/luma-payroll/v3");
    let row = |rate: &str| {
        json!({"rate": rate, "cap": "4800.00", "deduction": "300.00", "free": "1000.00",
               "upper": "3300.00", "middle_rate": "0.10", "upper_rate": "0.22", "note": "x"})
    };
    let mut case = luma_case("allowed_deduction");
    case["reference_tables"] = json!({
        "first-half": row("0.05"), "second-half": row("0.04"), "2025-second-half": row("0.09")
    });
    assert_eq!(outcome(&rb, &case)["net_pay"], "2503.00");
}

const STRICT_TABLE: &str = r#"
[rulebook]
id = "keys"
version = 1
schema = 1

[inputs.month]
type = "month"
required = true

[inputs.supplied]
type = "table"
table = "rates"
EXTRA

[inputs.person]
type = "record"
PERSON_EXTRA

[inputs.person.fields.name]
type = "text"

[tables.rates]
kind = "periods"

[tables.rates.columns]
rate = { type = "decimal" }

[[tables.rates.rows]]
name = "all"
from = "2026-01"
rate = "0.5"

[steps.rate]
expr = "period_row(rates, month).rate"

[[checks]]
decision = "ok"

[decisions.ok.answer]
rate = { expr = "rate", format = "decimal" }
"#;

fn strict_table(extra: &str, person_extra: &str) -> bareme::Rulebook {
    let text = STRICT_TABLE
        .replace("PERSON_EXTRA", person_extra)
        .replace("EXTRA", extra);
    match bareme::parse_rulebook("keys.toml", &text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

#[test]
fn a_supplied_table_row_and_column_are_refused_unless_allowed() {
    let strict = strict_table("", "");
    let case = |rows: serde_json::Value| json!({"month": "2026-02", "supplied": rows});
    assert_eq!(
        rejection(&strict, &case(json!({"all": {"rate": "0.25", "rte": "1"}}))),
        (
            "supplied.all.rte".into(),
            "unknown column; did you mean rate?".into()
        )
    );
    assert_eq!(
        rejection(
            &strict,
            &case(json!({"all": {"rate": "0.25"}, "al": {"rate": "1"}}))
        ),
        (
            "supplied.al".into(),
            "unknown row; did you mean all?".into()
        )
    );
    let open = strict_table("extra_keys = \"allow\"", "extra_keys = \"allow\"");
    let out = outcome(
        &open,
        &json!({"month": "2026-02", "supplied": {"all": {"rate": "0.25", "rte": "1"}, "al": {}},
                "person": {"name": "A", "age": 3}}),
    );
    assert_eq!(out["rate"], "0.25", "{out}");
    // The record's own option: its extra key passes there only.
    assert_eq!(
        rejection(
            &strict,
            &json!({"month": "2026-02", "person": {"nme": "A"}})
        ),
        (
            "person.nme".into(),
            "unknown field; did you mean name?".into()
        )
    );
}

#[test]
fn the_top_level_option_allows_extra_keys_of_the_case() {
    let text = STRICT_TABLE
        .replace("PERSON_EXTRA", "")
        .replace("EXTRA", "")
        .replace(
            "[inputs.month]",
            "[case]\nextra_keys = \"allow\"\n\n[inputs.month]",
        );
    let rb = match bareme::parse_rulebook("keys.toml", &text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    };
    let out = outcome(&rb, &json!({"month": "2026-02", "id": "x"}));
    assert_eq!(out["rate"], "0.5", "{out}");
}

#[test]
fn a_misplaced_or_misspelt_option_is_a_located_diagnostic() {
    let text = STRICT_TABLE
        .replace("PERSON_EXTRA", "")
        .replace("EXTRA", "")
        .replace(
            "type = \"month\"",
            "type = \"month\"\nextra_keys = \"allow\"",
        );
    let Err(d) = bareme::parse_rulebook("keys.toml", &text) else {
        panic!("a month cannot take extra_keys");
    };
    let shown = d.render(100, false);
    assert!(
        shown.contains("`extra_keys` does not apply to type `month`"),
        "{shown}"
    );
    assert!(shown.contains("keys.toml:"), "{shown}");
    let text = STRICT_TABLE
        .replace("PERSON_EXTRA", "extra_keys = \"yes\"")
        .replace("EXTRA", "");
    let Err(d) = bareme::parse_rulebook("keys.toml", &text) else {
        panic!("extra_keys is refuse or allow");
    };
    assert!(d
        .render(100, false)
        .contains("`extra_keys` is `refuse`, `allow` or the keys ignored (`[\"id\"]`), not `yes`"));
}

/// STRICT_TABLE with keys ignored by name: `id` and `label` on the case,
/// `age` on the person, `note` on the supplied table (its rows and columns).
fn named_keys() -> bareme::Rulebook {
    let text = STRICT_TABLE
        .replace("PERSON_EXTRA", "extra_keys = [\"age\"]")
        .replace("EXTRA", "extra_keys = [\"note\"]")
        .replace(
            "[inputs.month]",
            "[case]\nextra_keys = [\"id\", \"label\"]\n\n[inputs.month]",
        );
    match bareme::parse_rulebook("keys.toml", &text) {
        Ok(rb) => rb,
        Err(d) => panic!("{}", d.render(100, false)),
    }
}

#[test]
fn keys_named_in_extra_keys_are_ignored_whatever_their_value() {
    let rb = named_keys();
    // The table's one row (rate 0.5) unless the case supplies it.
    let case = json!({"id": {"any": [1, null]}, "month": "2026-02", "label": null});
    assert_eq!(outcome(&rb, &case)["rate"], "0.5");
    let case = json!({"month": "2026-02", "person": {"name": "A", "age": "three"},
                      "supplied": {"all": {"rate": "0.25", "note": 7}, "note": []}});
    assert_eq!(outcome(&rb, &case)["rate"], "0.25");
}

#[test]
fn a_key_not_named_in_extra_keys_is_still_refused_with_its_suggestion() {
    let rb = named_keys();
    let refused = |case: serde_json::Value| rejection(&rb, &case);
    // A misspelt input beside an ignored key: refused first, with its near name.
    assert_eq!(
        refused(json!({"id": "x", "mnth": "2026-02"})),
        ("mnth".into(), "unknown input; did you mean month?".into())
    );
    // A key ignored elsewhere is not ignored here: `age` is the person's.
    assert_eq!(
        refused(json!({"month": "2026-02", "age": 3})),
        ("age".into(), "unknown input".into())
    );
    assert_eq!(
        refused(json!({"month": "2026-02", "label": "x", "person": {"name": "A", "id": 1}})),
        ("person.id".into(), "unknown field".into())
    );
    assert_eq!(
        refused(json!({"month": "2026-02", "supplied": {"all": {"rate": "0.25", "rte": "1"}}})),
        (
            "supplied.all.rte".into(),
            "unknown column; did you mean rate?".into()
        )
    );
    assert_eq!(
        refused(json!({"month": "2026-02", "supplied": {"all": {"rate": "0.25"}, "al": {}}})),
        (
            "supplied.al".into(),
            "unknown row; did you mean all?".into()
        )
    );
    // The case's own fault comes after its keys are judged.
    assert_eq!(
        refused(json!({"id": "x", "label": "y"})),
        ("month".into(), "is required".into())
    );
}

#[test]
fn the_case_schema_lists_the_keys_ignored_and_stays_closed() {
    let schema = named_keys().case_schema();
    assert_eq!(schema["additionalProperties"], false);
    assert!(schema["properties"]["id"].is_object(), "{schema}");
    assert!(schema["properties"]["label"].is_object(), "{schema}");
    assert_eq!(schema["required"], json!(["month"]));
    let person = &schema["properties"]["person"];
    let person = if person["anyOf"].is_array() {
        &person["anyOf"][0]
    } else {
        person
    };
    assert_eq!(person["additionalProperties"], false, "{person}");
    assert!(person["properties"]["age"].is_object(), "{person}");
    assert!(person["properties"]["name"].is_object(), "{person}");
}

#[test]
fn a_key_named_in_extra_keys_must_not_be_declared_nor_named_twice() {
    let text = STRICT_TABLE
        .replace("PERSON_EXTRA", "extra_keys = [\"age\", \"name\"]")
        .replace("EXTRA", "extra_keys = [\"rate\", \"all\", \"note\"]")
        .replace(
            "[inputs.month]",
            "[case]\nextra_keys = [\"id\", \"month\", \"id\"]\n\n[inputs.month]",
        );
    let Err(d) = bareme::parse_rulebook("keys.toml", &text) else {
        panic!("declared keys cannot be ignored");
    };
    let at = |needle: &str, nth: usize| {
        let start = text
            .match_indices(needle)
            .nth(nth)
            .map(|(i, _)| i)
            .expect("needle present");
        let line = text[..start].matches('\n').count() + 1;
        let col = start - text[..start].rfind('\n').map_or(0, |i| i + 1) + 1;
        format!(
            "check::bad_input {line}:{col}-{line}:{}",
            col + needle.len()
        )
    };
    let messages: Vec<(String, String)> = d
        .problems
        .iter()
        .map(|p| (p.location(), p.message.clone()))
        .collect();
    assert_eq!(
        messages,
        vec![
            (
                at("\"rate\"", 0),
                "`rate` is a declared column or row: `extra_keys` names the keys ignored, which the rulebook does not declare".into()
            ),
            (
                at("\"all\"", 0),
                "`all` is a declared column or row: `extra_keys` names the keys ignored, which the rulebook does not declare".into()
            ),
            (
                at("\"name\"", 0),
                "`name` is a declared field: `extra_keys` names the keys ignored, which the rulebook does not declare".into()
            ),
            (
                at("\"month\"", 0),
                "`month` is a declared input: `extra_keys` names the keys ignored, which the rulebook does not declare".into()
            ),
            (at("\"id\"", 1), "`id` is named twice in `extra_keys`".into()),
        ]
    );
    // Neither a word nor a list of texts.
    let text = STRICT_TABLE
        .replace("PERSON_EXTRA", "extra_keys = 3")
        .replace("EXTRA", "");
    let Err(d) = bareme::parse_rulebook("keys.toml", &text) else {
        panic!("extra_keys = 3 is refused");
    };
    let shown = d.render(100, false);
    assert!(
        shown.contains("`refuse`, `allow` or an array of the keys ignored"),
        "{shown}"
    );
}

/// paie-fr reading 13: a payslip's `id` and `label` are ignored, and a
/// misspelt key beside them is still refused.
#[test]
fn paie_fr_ignores_a_payslips_id_and_label_only() {
    for version in ["v2026", "v2025"] {
        let dir = format!("rulebooks/paie-fr/{version}");
        let rb = super::rulebook(&dir);
        let cases = bareme::unstable::conformance::cases(&super::root().join(&dir)).expect("cases");
        // The first case that answers (v2026's is the spec's example).
        let plain_case = cases
            .iter()
            .map(|(_, case)| case)
            .find(|case| outcome(&rb, case)["brut"].is_string())
            .expect("a case that answers");
        let plain = outcome(&rb, plain_case);
        let mut case = plain_case.clone();
        case["id"] = json!("payslip-2026-03-0042");
        case["label"] = json!({"employee": "Dupont", "team": 3});
        assert_eq!(outcome(&rb, &case), plain, "{version}");
        case["lable"] = json!("x");
        assert_eq!(
            rejection(&rb, &case),
            ("lable".into(), "unknown input".into()),
            "{version}"
        );
    }
}

#[test]
fn sweep_refuses_a_field_no_input_declares() {
    let dir = std::env::temp_dir().join(format!("bareme-casekeys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let case = dir.join("case.json");
    std::fs::write(&case, luma_case("allowed_deduction").to_string()).expect("write");
    let case = case.to_string_lossy().to_string();
    let out = bareme(
        &[
            "sweep",
            "rulebooks/luma-payroll/v3",
            &case,
            "--vary",
            "gros_pay=1000..2000:500",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("gros_pay: unknown input; did you mean gross_pay?"),
        "{stderr}"
    );
    let out = bareme(
        &[
            "sweep",
            "rulebooks/luma-payroll/v3",
            &case,
            "--vary",
            "amendment.gros=1000..2000:500",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("amendment.gros: unknown field"));
    let out = bareme(
        &[
            "sweep",
            "rulebooks/luma-payroll/v3",
            &case,
            "--vary",
            "gross_pay=1000..2000:500",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two keyed tables a case may replace: one keyed by a decimal band, one
/// by an integer size.
const KEYED_BY_NUMBERS: &str = r#"
[rulebook]
id = "keyed-numbers"
version = 1
schema = 1

[clauses]
C1 = "c"

[tables.rates]
kind = "keyed"
keys = ["band"]
columns = { band = { type = "decimal" }, rate = { type = "decimal" } }
rows = [{ band = "1", rate = "0.10" }]

[tables.sizes]
kind = "keyed"
keys = ["n"]
columns = { n = { type = "integer" }, rate = { type = "decimal" } }
rows = [{ n = 1, rate = "0.10" }]

[inputs.band]
type = "decimal"
required = true

[inputs.rates_in]
type = "table"
table = "rates"

[inputs.sizes_in]
type = "table"
table = "sizes"

[steps.r]
expr = "lookup(rates, band).rate"
clauses = ["C1"]

[steps.s]
expr = "coalesce(lookup(sizes, 2).rate, 0)"
clauses = ["C1"]

[[checks]]
decision = "calculate"

[decisions.calculate]
label = "c"
clauses = ["C1"]

[decisions.calculate.answer]
r = { expr = "r", format = "decimal" }
s = { expr = "s", format = "decimal" }
"#;

/// A supplied keyed table's keys are read as their column and compared by
/// value: `"1.0"` and `"1.00"` of a decimal key are one key (a lookup found
/// whichever the case wrote first: 0.20 one way round, 0.30 the other), and
/// an integer key column takes a key written as a whole number (every key
/// was refused as "a string", so the table could never be supplied).
#[test]
fn supplied_keys_are_read_as_their_column_and_unique_by_value() {
    let rb = bareme::parse_rulebook("keyed.toml", KEYED_BY_NUMBERS).expect("valid");
    for (first, second) in [("1.0", "1.00"), ("1.00", "1.0")] {
        let case =
            json!({"band": "1", "rates_in": {first: {"rate": "0.20"}, second: {"rate": "0.30"}}});
        assert_eq!(
            rejection(&rb, &case),
            (
                format!("rates_in.{second}"),
                format!("has the same key as row \"{first}\": keys are compared by value")
            )
        );
    }
    let case = json!({"band": "1", "rates_in": {"1.0": {"rate": "0.20"}, "2": {"rate": "0.30"}}});
    assert_eq!(outcome(&rb, &case), json!({"r": "0.20", "s": "0"}));
    let case = json!({"band": "1", "sizes_in": {"2": {"rate": "0.5"}, "3": {"rate": "0.6"}}});
    assert_eq!(outcome(&rb, &case), json!({"r": "0.10", "s": "0.5"}));
    for (key, message) in [
        ("two", "must be a whole number, found the string \"two\""),
        ("2.5", "must be a whole number, found 2.5"),
        ("1e0", "must be a whole number, found 1e0"),
        // A space around it is the key's, and shown quoted: it read
        // `found  1`, as if the key were a number.
        (" 1", "must be a whole number, found the string \" 1\""),
        ("1\n", "must be a whole number, found the string \"1\\n\""),
    ] {
        let case = json!({"band": "1", "sizes_in": {key: {"rate": "0.5"}}});
        assert_eq!(
            rejection(&rb, &case),
            (format!("sizes_in.{key}"), message.to_string())
        );
    }
}
