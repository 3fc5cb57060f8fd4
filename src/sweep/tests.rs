//! A sweep over a rulebook with a cap and a rejection, computed by hand.

use super::*;
use serde_json::json;

/// 20 % of the pay above 1,000, capped at 100; pay over 2,000 is refused.
const CAPPED: &str = r#"
[rulebook]
id = "capped"
version = 1
schema = 1

[inputs.pay]
type = "money"
required = true
max = "2000"

[steps.levy]
expr = "min(max(pay - 1000, 0) * 20 / 100, 100)"
round = { places = 2, mode = "half_up" }

[[checks]]
decision = "ok"

[decisions.ok.answer]
levy = { expr = "levy", format = "money" }
note = { expr = "'fixed'", format = "text" }
"#;

/// The range read, or its refusal's code and message.
fn vary(text: &str) -> Result<Vary, String> {
    text.parse::<Vary>()
        .map_err(|e| format!("{}: {e}", e.code()))
}

#[test]
fn a_range_is_read_exactly_and_refused_when_it_cannot_be_swept() {
    let v = vary("pay=0.10..0.35:0.10").expect("reads");
    assert_eq!(
        v.values()
            .iter()
            .map(Decimal::to_string)
            .collect::<Vec<_>>(),
        ["0.10", "0.20", "0.30"]
    );
    assert_eq!(vary("a.b=1..1:1").expect("reads").values().len(), 1);
    assert!(vary("pay=1..5")
        .unwrap_err()
        .starts_with("sweep::usage: `pay=1..5` is not FIELD=FROM..TO:STEP"));
    assert_eq!(
        vary("pay=1..5:0").unwrap_err(),
        "sweep::step_not_positive: the step must be positive, found 0"
    );
    assert_eq!(
        vary("pay=5..1:1").unwrap_err(),
        "sweep::empty_range: the range 5..1 is empty"
    );
    assert_eq!(
        vary("pay=1.5e3..2:1").unwrap_err(),
        "sweep::not_decimal: `1.5e3` is not a decimal"
    );
    assert!(vary("pay=0..100000:1")
        .unwrap_err()
        .starts_with("sweep::too_many_values: 100001 values: a sweep evaluates at most 100000"));
    assert_eq!(
        vary("pay=0..99999:1").expect("the cap").values().len(),
        100_000
    );
    // Written as a case writes a decimal, or refused.
    for end in ["1_000", "+5", ".5", "- 5", "0x10"] {
        assert_eq!(
            vary(&format!("pay={end}..6000:1")).unwrap_err(),
            format!("sweep::not_decimal: `{end}` is not a decimal")
        );
    }
}

#[test]
fn every_value_has_the_places_of_the_start_or_the_step() {
    let values = |text: &str| -> Vec<String> {
        let v = vary(text).expect("reads");
        v.values().iter().map(Decimal::to_string).collect()
    };
    // The first value is not the only one without the step's place.
    assert_eq!(values("n=1..3:1.0"), ["1.0", "2.0", "3.0"]);
    assert_eq!(
        values("pay=1..2:0.25"),
        ["1.00", "1.25", "1.50", "1.75", "2.00"]
    );
    assert_eq!(values("pay=1.000..3:1"), ["1.000", "2.000", "3.000"]);
    assert_eq!(values("n=-2..2:2"), ["-2", "0", "2"]);
}

#[test]
fn answers_across_a_cap_with_a_rejection_as_csv() {
    let rb = crate::rulebook::parse_rulebook("capped.toml", CAPPED).expect("checks");
    let swept = sweep(
        &rb,
        &json!({"pay": "0"}),
        &vary("pay=1000.00..2500.00:500.00").expect("reads"),
    )
    .expect("sweeps");
    // 0.2 × (1500 − 1000) = 100; the cap holds from there; 2500 is over `max`.
    assert_eq!(
        swept.csv(),
        "pay,decision,levy,error\n\
         1000.00,ok,0.00,\n\
         1500.00,ok,100.00,\n\
         2000.00,ok,100.00,\n\
         2500.00,,,pay: 2500.00 is above the maximum 2000\n"
    );
}

/// An input named `error` gave the CSV two `error` columns, so a reader
/// by name kept one of them (hostile probe); answer fields named as the
/// columns beside them are renamed too.
#[test]
fn no_two_columns_share_a_name() {
    let text = "[rulebook]\nid = \"names\"\nversion = 1\nschema = 1\n\
        [inputs.error]\ntype = \"decimal\"\nrequired = true\n\
        [[checks]]\ndecision = \"ok\"\n\
        [decisions.ok.answer]\n\
        decision = { expr = \"error * 2\" }\n\
        error = { expr = \"error * 3\" }\n\
        \"input.error\" = { expr = \"error * 4\" }\n";
    let rb = crate::rulebook::parse_rulebook("names.toml", text).expect("checks");
    let swept = sweep(
        &rb,
        &json!({"error": "0"}),
        &vary("error=1..2:1").expect("reads"),
    )
    .expect("sweeps");
    assert_eq!(
        swept.csv(),
        "input.error,decision,answer.decision,answer.error,answer.input.error,error\n\
         1,ok,2,3,4,\n\
         2,ok,4,6,8,\n"
    );
}

#[test]
fn a_number_stays_a_number_and_a_path_reaches_into_records() {
    let mut case = json!({"pay": 1});
    set(&mut case, "pay", json!(2)).expect("sets");
    set(&mut case, "a.b", json!("3")).expect("sets");
    assert_eq!(case, json!({"pay": 2, "a": {"b": "3"}}));
    let refused = set(&mut json!({"a": 1}), "a.b", json!(1)).unwrap_err();
    assert_eq!(refused.code(), "sweep::no_object");
    assert_eq!(
        refused.to_string(),
        "`a.b`: the case holds no object at `b`"
    );
    assert_eq!(quote("a,\"b\""), "\"a,\"\"b\"\"\"");
}

#[cfg(feature = "plot")]
#[test]
fn the_plot_draws_each_field_and_its_rate() {
    let rb = crate::rulebook::parse_rulebook("capped.toml", CAPPED).expect("checks");
    let swept = sweep(
        &rb,
        &json!({"pay": "0"}),
        &vary("pay=0..2000:250").expect("reads"),
    )
    .expect("sweeps");
    let svg = plot::svg(&swept, "capped").expect("draws");
    assert!(svg.contains("\nlevy\n") && svg.contains("marginal rate"));
    // In the first colour: the answer, the rate, and their legend samples.
    let lines: Vec<&str> = svg
        .lines()
        .filter(|l| l.contains("stroke=\"#1F77B4\""))
        .collect();
    assert_eq!(lines.len(), 4, "{svg}");
    // The levy is flat to pay 1,000 (x = 534 px), rises to 100 at 1,500
    // (x = 760 px) and stays capped; its rate steps from 0 to 0.2 and back
    // at exactly those two x.
    assert!(
        lines[0].contains("421,448 534,448 647,253 760,58 873,58"),
        "{}",
        lines[0]
    );
    assert!(
        lines[2].contains("534,834 534,572 647,572 647,572 760,572 760,834"),
        "{}",
        lines[2]
    );
}

/// A range whose width leaves the decimal range but holds few values is
/// counted value by value: `-MAX..MAX:MAX` is three values (it was refused
/// as more than 100,000); past the bound it is still refused.
#[test]
fn a_range_wider_than_a_decimal_is_counted_value_by_value() {
    let max = Decimal::MAX;
    let three = vary(&format!("pay=-{max}..{max}:{max}")).expect("three values");
    assert_eq!(three.values(), [-max, Decimal::ZERO, max]);
    let err = vary(&format!("pay=-{max}..{max}:2")).expect_err("too many");
    assert!(err.starts_with("sweep::too_wide: "), "{err}");
}

/// Values with more digits than a decimal holds are refused: the sum of a
/// step was rounded back to the value it started from, and the sweep wrote
/// 99,999 rows of one value (hostile probe) where 5 were asked for.
#[test]
fn a_range_finer_than_a_decimal_holds_is_refused() {
    let err = vary("a=7922816251426433759354395033.3..7922816251426433759354395033.5:0.05")
        .expect_err("too fine");
    assert_eq!(
        err,
        "sweep::too_fine: the range 7922816251426433759354395033.3..7922816251426433759354395033.5 by 0.05 needs values of 2 places up to 7922816251426433759354395033.3, more digits than a decimal holds (28 to 29 in all): the values would not be exact"
    );
    // The same places a little lower are exact, every value a step apart.
    let ok = vary("a=792281625142643375935439500.30..792281625142643375935439500.50:0.05")
        .expect("fits");
    let values = ok.values();
    assert_eq!(values.len(), 5);
    assert!(values.windows(2).all(|w| w[1] - w[0] == Decimal::new(5, 2)));
}

/// Rows of different decisions share the columns of their fields: the
/// decision column tells a refusal's `bonus` of 0.50 from a payment's
/// (it read as a bonus paid), and a fault is counted.
#[test]
fn each_row_names_its_decision_and_faults_are_counted() {
    let text = CAPPED
        .replace(
            "[[checks]]\ndecision = \"ok\"",
            "[[checks]]\nwhen = \"pay < 1000\"\ndecision = \"low\"\n\n[[checks]]\nwhen = \"pay == 1500\"\ndecision = \"odd\"\n\n[[checks]]\ndecision = \"ok\"",
        )
        .replace(
            "[decisions.ok.answer]",
            "[decisions.low.answer]\nlevy = { expr = \"pay\", format = \"money\" }\n\n\
             [decisions.odd.answer]\nlevy = { expr = \"pay / (pay - 1500)\", format = \"money\" }\n\n\
             [decisions.ok.answer]",
        );
    let rb = crate::rulebook::parse_rulebook("capped.toml", &text).expect("checks");
    let swept = sweep(
        &rb,
        &json!({"pay": "0"}),
        &vary("pay=500..1500:500").expect("reads"),
    )
    .expect("sweeps");
    let csv = swept.csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "pay,decision,levy,error",
            "500,low,500.00,",
            "1000,ok,0.00,"
        ]
    );
    assert!(
        lines[3].starts_with("1500,,,fault: division by zero"),
        "{csv}"
    );
    assert_eq!(swept.faults(), 1);
}
