//! Case validation: a JSON case checked against a rulebook's input schema.
//!
//! Inputs are validated in declaration order and the first fault is
//! reported, as a [`CaseError`] naming the field path and the governing
//! clause. What passes becomes [`Facts`]: one [`Value`] per input, plus the
//! table rows a case supplies.
//!
//! Here: [`validate_case`] (inputs in order, `when`, `required_when`,
//! `after`) and [`validate_value`] (a value's shape, `ref` and field
//! `reject` rules), with the message helpers every part shares. The shape of
//! each kind is in `shape`, numbers in `number`, `ref` and `key_ref` in
//! `refs`, case-supplied table rows in `rows`; `toml` converts TOML data
//! to the JSON a case holds. Every part reads the case through `json`'s
//! `JsonView`, so one validator serves a `serde_json::Value`
//! ([`validate_case`]) and a case read from its text in one pass
//! ([`validate_case_text`]).
//!
//! Invariant: nothing from the case is trusted — every JSON shape, number
//! form and size is checked here, and nothing here panics.

pub(crate) mod json;
mod keys;
mod messages;
mod number;
mod refs;
mod rows;
mod schema;
mod shape;
pub(crate) mod toml;

use std::cell::Cell;

use crate::facts::{CaseError, Facts, Given};
use crate::model::{Formula, Input, InputKind, Rulebook};
use crate::value::Value;
pub use json::CaseText;
use json::JsonView;
pub use keys::check_declared_path;
use messages::{clause_note, json_kind};
use refs::Refs;
use rows::validate_rows;
use shape::validate_lenient;
pub(crate) use shape::validate_value;

/// An input's `when` or `required_when` over the inputs so far; a fault of
/// the formula is reported at the input.
fn condition(
    rb: &Rulebook,
    facts: &Facts,
    spent: &Cell<u64>,
    input: &Input,
    cond: &Formula,
) -> Result<bool, CaseError> {
    crate::eval::evaluate_condition(rb, facts, spent, cond).map_err(|e| CaseError {
        path: input.name.to_string(),
        message: e.to_string(),
    })
}

/// Validates a case, reporting the first fault in declaration order.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let case = serde_json::json!({"task": "payslip", "gros_pay": "2500.00", "payroll_month": "2026-03"});
/// let refused = bareme::validate_case(&rb, &case).unwrap_err();
/// assert_eq!(refused.to_string(), "gros_pay: unknown input; did you mean gross_pay?");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn validate_case(rb: &Rulebook, case: &serde_json::Value) -> Result<Facts, CaseError> {
    validate_case_in(rb, case)
}

/// Validates a case read from its text ([`CaseText`]), as [`validate_case`]
/// validates the same case read into a `serde_json::Value`.
///
/// ```
/// # let rb = bareme::load_rulebook("rulebooks/luma-payroll/v3".as_ref())?;
/// let text = bareme::unstable::case::CaseText::from_bytes(br#"{"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"}"#)?;
/// let facts = bareme::unstable::case::validate_case_text(&rb, &text)?;
/// let (outcome, _) = bareme::evaluate(&rb, &facts, false)?;
/// assert!(matches!(outcome, bareme::Outcome::Answer(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn validate_case_text(rb: &Rulebook, case: &CaseText<'_>) -> Result<Facts, CaseError> {
    validate_case_in(rb, case.root())
}

/// The one validator, over either reading of a case.
fn validate_case_in<'j, J: JsonView<'j>>(rb: &Rulebook, case: J) -> Result<Facts, CaseError> {
    if !case.is_object() {
        return Err(CaseError {
            path: "$".into(),
            message: format!("the case must be a JSON object, found {}", json_kind(case)),
        });
    }
    let declared = || rb.inputs.iter().map(|i| &*i.name);
    let extra = &rb.extra_keys;
    let (facts, present) = validate_inputs(rb, case)
        .map_err(|fault| keys::unknown_first(fault, extra, case, declared(), "$", "input"))?;
    keys::refuse_unknown(case, present, declared(), extra, "$", "input")?;
    Ok(facts)
}

/// The case's inputs in order, and how many of them the case holds (`null`
/// included), so that a key no input declares shows.
fn validate_inputs<'j, J: JsonView<'j>>(
    rb: &Rulebook,
    object: J,
) -> Result<(Facts, usize), CaseError> {
    let mut facts = Facts {
        values: Vec::with_capacity(rb.inputs.len()),
        given: Vec::with_capacity(rb.inputs.len()),
        tables: vec![None; rb.tables.len()],
        spent: 0,
    };
    // One budget for the whole case: what validation's formulas spend is
    // taken from what evaluation will have.
    let spent = Cell::new(0);
    // Declared keys present, counted as they are read: fewer than the
    // case's keys means one is unknown (`keys`).
    let mut present = 0;
    for input in &rb.inputs {
        if let Some(cond) = &input.when {
            let applies = condition(rb, &facts, &spent, input, cond)?;
            if !applies {
                present += usize::from(object.get(&input.name).is_some());
                facts.values.push(Value::Absent);
                facts.given.push(Given::Ignored);
                continue;
            }
        }
        let raw = object.get(&input.name);
        present += usize::from(raw.is_some());
        // A `null` is not the value `required_when` asks for, even where a
        // `nullable` input would keep it (`required` lets a kept null by).
        let missing = raw.is_none_or(J::is_null);
        if let (true, Some(cond)) = (missing, &input.required_when) {
            let required = condition(rb, &facts, &spent, input, cond)?;
            if required {
                let message = format!("is required when {}{}", cond.text, clause_note(input));
                return Err(CaseError {
                    path: input.name.to_string(),
                    message,
                });
            }
        }
        let (value, given) = match &input.kind {
            InputKind::Table { table } => {
                let rows = match raw {
                    Some(v) if !v.is_null() => Some(validate_rows(
                        input,
                        &rb.tables[table.index()],
                        v,
                        &input.name,
                        rb.limits.max_list_items,
                    )?),
                    _ => None,
                };
                let given = if rows.is_some() {
                    Given::Value
                } else {
                    Given::Absent
                };
                facts.tables[table.index()] = rows;
                (Value::Absent, given)
            }
            _ => {
                let refs = Refs {
                    rb,
                    facts: &facts,
                    spent: &spent,
                    index: Default::default(),
                };
                let (value, valid) = validate_lenient(input, raw, &input.name, Some(&refs), None)?;
                let null = raw.is_some_and(J::is_null);
                let given = match (raw, &value) {
                    _ if !valid => Given::Invalid,
                    (_, Value::Null) if null => Given::Null,
                    (_, v) if input.default.is_some() && missing && !v.is_missing() => {
                        Given::Default
                    }
                    _ if null => Given::Null,
                    (None, _) => Given::Absent,
                    _ => Given::Value,
                };
                (value, given)
            }
        };
        facts.values.push(value);
        facts.given.push(given);
        for (when, path, message) in &input.after {
            let fired =
                crate::eval::after_check(rb, &facts, &spent, when, path, message).map_err(|e| {
                    CaseError {
                        path: input.name.to_string(),
                        message: e.to_string(),
                    }
                })?;
            if let Some((path, message)) = fired {
                return Err(CaseError::at_rendered(
                    path,
                    format!("{message}{}", clause_note(input)),
                ));
            }
        }
    }
    facts.spent = spent.get();
    Ok((facts, present))
}
