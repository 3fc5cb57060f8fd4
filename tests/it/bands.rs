//! Bands whose limits depend on the case (`tests/bands`, `scale_by`): the
//! conformance cases, computed by hand, pass on both interpreter roads; the
//! compiled module (`tests/compiled/bands.rs`) is current and answers every
//! case as the interpreter does; every limit's rounding is in the trace; a
//! negative factor is a located fault and a mode that is not one is refused
//! at load.


#[rustfmt::skip]
#[path = "../compiled/bands.rs"]
mod bands_compiled;

const DIR: &str = "tests/bands";

#[test]
fn the_bands_rulebook_passes_its_cases() {
    let rb = super::rulebook(DIR);
    let (cases, failures) = super::conformance::failures_of(&rb, &super::root().join(DIR));
    assert_eq!(cases, 4);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn its_compiled_module_is_current_and_agrees_with_the_interpreter() {
    super::compiled::agrees_on_its_cases(&bands_compiled::COMPILED, DIR, "bands");
}

#[test]
fn each_limit_rounding_is_recorded_with_its_band() {
    let rb = super::rulebook(DIR);
    let case = serde_json::json!({"pay_to_date": "5000.00", "month": 1});
    let (_, trace) = bareme::evaluate_value(&rb, &case, true).expect("evaluates");
    let text = bareme::render_text(&trace.expect("a trace"));
    assert!(
        text.contains("inside, limit of band 1 of annual_bands: 12570 × 1/12 up to 0 places: 1047.5 → 1048 (margin 0.5)"),
        "{text}"
    );
    assert!(
        text.contains(
            "inside, limit of band 2 of annual_bands: 50270 × 1/12 up to 0 places: 25135/6 → 4190"
        ),
        "{text}"
    );
    assert!(text.contains("0.20 × (4190 − 1048) = 628.40"), "{text}");
}

#[test]
fn a_negative_factor_is_a_fault_and_a_bad_mode_is_refused_at_load() {
    let text = std::fs::read_to_string(super::root().join(DIR).join("rulebook.toml")).unwrap();
    let negative = text.replace(
        "scale_by(annual_bands, pay_to_date, 1, 0)",
        "scale_by(annual_bands, pay_to_date, 0 - 1, 0)",
    );
    let rb2 = bareme::parse_rulebook("bands.toml", &negative).expect("checks");
    let case = serde_json::json!({"pay_to_date": "5000.00", "month": 1});
    match bareme::evaluate_value(&rb2, &case, false) {
        Err(e) => assert!(
            e.to_string()
                .contains("cannot be scaled by a negative number"),
            "{e}"
        ),
        Ok(other) => panic!("expected a fault, got {:?}", other.0),
    }
    let bad_mode = text.replace(
        "scale_by(annual_bands, pay_to_date, 1, 0)",
        "scale_by(annual_bands, pay_to_date, 1, 0, sideways)",
    );
    let diags = match bareme::parse_rulebook("bands.toml", &bad_mode) {
        Err(d) => d.render(100, false),
        Ok(_) => panic!("a bad mode was accepted"),
    };
    assert!(
        diags.contains("the mode of `scale_by` must be one of"),
        "{diags}"
    );
}
