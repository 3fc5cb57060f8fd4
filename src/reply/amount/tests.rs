//! Amount readings, each case as the specs' precise readings write it.

use super::*;

fn paie() -> AmountRules {
    AmountRules {
        max_abs: Amount::plain("1000000000"),
        strings: true,
        padding: true,
        ..AmountRules::default()
    }
}

fn succession() -> AmountRules {
    AmountRules {
        max_abs: Amount::plain("1000000000"),
        max_integer_digits: Some(12),
        strings: true,
        ..AmountRules::default()
    }
}

fn number(rules: &AmountRules, text: &str) -> Result<String, String> {
    rules
        .json_number(text)
        .map(|a| a.to_string())
        .map_err(|e| e.to_string())
}

fn string(rules: &AmountRules, text: &str) -> Result<String, String> {
    rules
        .text(text)
        .map(|a| a.to_string())
        .map_err(|e| e.to_string())
}

#[test]
fn canonical_amounts_compare_by_value() {
    assert_eq!(Amount::plain("5000"), Amount::plain("5000.00"));
    assert_eq!(Amount::plain("0.040"), Amount::plain("0.04"));
    assert_eq!(Amount::plain("-0.00"), Amount::plain("0"));
    assert_eq!(
        Amount::plain("007.10").map(|a| a.to_string()),
        Some("7.1".into())
    );
    assert_eq!(Amount::plain(".5"), None);
    assert_eq!(Amount::plain("5."), None);
    assert_eq!(Amount::plain("1e3"), None);
}

#[test]
fn money_is_exactly_two_decimals() {
    assert!(Amount::money("1205.12", false).is_some());
    assert!(Amount::money("0.00", false).is_some());
    assert!(Amount::money("1205.1", false).is_none());
    assert!(Amount::money("1205", false).is_none());
    assert!(Amount::money("-1.00", false).is_none());
    assert!(Amount::money("-1.00", true).is_some());
    assert!(Amount::money("+1.00", true).is_none());
    assert!(Amount::money(" 1.00", true).is_none());
    assert!(Amount::money("1,00", true).is_none());
}

#[test]
fn plain_json_numbers_are_judged_as_written() {
    let r = paie();
    assert_eq!(number(&r, "3582.69"), Ok("3582.69".into()));
    assert_eq!(number(&r, "5000"), Ok("5000".into()));
    assert!(number(&r, "3582.690").unwrap_err().contains("3 decimals"));
    assert_eq!(number(&r, "1000000000"), Ok("1000000000".into()));
    assert!(number(&r, "1000000000.01").unwrap_err().contains("above"));
    assert!(number(&r, "-1000000001").unwrap_err().contains("above"));
}

#[test]
fn exponent_forms_are_judged_by_value() {
    let r = paie();
    assert_eq!(number(&r, "5e3"), Ok("5000".into()));
    assert_eq!(number(&r, "358269e-2"), Ok("3582.69".into()));
    assert_eq!(number(&r, "3582.6900e0"), Ok("3582.69".into()));
    assert!(number(&r, "1.2345e1").unwrap_err().contains("3 decimals"));
    assert!(number(&r, "1e10").unwrap_err().contains("above"));
    assert_eq!(number(&r, "0e999999"), Ok("0".into()));
    assert!(number(&r, "1e1000000").unwrap_err().contains("7 digits"));
    assert!(number(&r, "1e-1000000").unwrap_err().contains("7 digits"));
    assert!(number(&r, "1e999999").unwrap_err().contains("out of range"));
    assert!(number(&r, "1e-999999").unwrap_err().contains("decimals"));
}

#[test]
fn succession_integers_are_at_most_twelve_digits() {
    let r = succession();
    assert_eq!(number(&r, "41169"), Ok("41169".into()));
    assert_eq!(number(&r, "41169.00"), Ok("41169".into()));
    assert!(number(&r, "41169.000").is_err());
    assert!(number(&r, "1234567890123")
        .unwrap_err()
        .contains("13 digits"));
    assert_eq!(number(&r, "4.1169e4"), Ok("41169".into()));
    assert!(number(&r, "1e13").is_err());
}

#[test]
fn french_amount_strings() {
    let r = paie();
    for (text, value) in [
        ("5 000,00 €", "5000"),
        ("373,1", "373.1"),
        ("7 215,09€", "7215.09"),
        ("1\u{a0}234,56\u{a0}€", "1234.56"),
        ("1\u{202f}234\u{202f}567.5", "1234567.5"),
        ("  3582.69 ", "3582.69"),
        ("-12", "-12"),
        ("41 169 €", "41169"),
    ] {
        assert_eq!(string(&r, text), Ok(value.into()), "{text:?}");
    }
    for text in [
        "3,582.69",
        "EUR 3582.69",
        "+5.00",
        "3582.690",
        "1e3",
        "3582.69 + 0",
        "41,169",
        "€41169",
        "41169 EUR",
        "1000 000",
        "1 00",
        "",
        "-",
        "5.",
        ",5",
    ] {
        assert!(string(&r, text).is_err(), "{text:?} should be refused");
    }
    assert!(string(&r, "2 000 000 000").unwrap_err().contains("above"));
}

#[test]
fn padding_is_the_rubrics_choice() {
    assert!(string(&succession(), " 41169").is_err());
    assert!(string(&paie(), " 41169").is_ok());
}

#[test]
fn each_refusal_has_its_code_and_the_message_a_grade_shows() {
    let refused = |r: Result<Amount, AmountError>| {
        let e = r.expect_err("refused");
        (e.code(), e.to_string())
    };
    assert_eq!(
        refused(paie().json_number("1.234")),
        ("amount::decimals", "it has 3 decimals, more than 2".into())
    );
    assert_eq!(
        refused(paie().json_number("2000000000")),
        (
            "amount::above_max",
            "its absolute value is above 1000000000".into()
        )
    );
    assert_eq!(
        refused(paie().json_number("1e-3")),
        (
            "amount::value_decimals",
            "its value has 3 decimals, more than 2".into()
        )
    );
    assert_eq!(
        refused(succession().text("12 34")),
        (
            "amount::not_one_amount",
            "\"12 34\" is not one amount".into()
        )
    );
    assert_eq!(
        refused(succession().text("1,234")),
        (
            "amount::text_decimals",
            "\"1,234\" has 3 decimals, more than 2".into()
        )
    );
}
