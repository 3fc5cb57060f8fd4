//! The Luma payroll rules v3 (specs/luma-payroll.md) written by hand in
//! plain Rust: serde into borrowed structs, rust_decimal, the answer
//! written straight into a `String`. It is the limit an interpreted
//! rulebook is measured against (`benches/limit.rs`) and one more
//! differential reading of the spec (`tests/it/handwritten.rs`); it never
//! enters the library.
//!
//! A rejection names the path bareme names; its message is only
//! `rejected` (bareme's prose is bareme's).

use rust_decimal::{Decimal, RoundingStrategy};
use serde::Deserialize;
use std::fmt::Write;

use super::cell::{evaluate_case_line, given, reject, write_money, Cell, Rejected};

/// A case's top-level fields, borrowed from its line.
#[derive(Deserialize)]
pub struct RawCase<'a> {
    #[serde(borrow, default)]
    task: Option<Cell<'a>>,
    #[serde(borrow, default)]
    gross_pay: Option<Cell<'a>>,
    #[serde(borrow, default)]
    payroll_month: Option<Cell<'a>>,
    #[serde(borrow, default)]
    allowed_deduction: Option<Cell<'a>>,
    #[serde(borrow, default)]
    contract_gross_pay: Option<Cell<'a>>,
    #[serde(borrow, default)]
    amendment: Option<Cell<'a>>,
    #[serde(borrow, default)]
    reference_tables: Option<Cell<'a>>,
    #[serde(borrow, default)]
    field: Option<Cell<'a>>,
}

/// R2: a string or a number as written, digits with at most two decimals.
fn money(cell: &Cell, path: &str) -> Result<Decimal, Rejected> {
    let text = match cell {
        Cell::Str(s) => s.as_ref(),
        Cell::Num(n) => n.as_str(),
        _ => return reject(path),
    };
    let (whole, places) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let ok = !whole.is_empty()
        && digits(whole)
        && (!text.contains('.') || (1..=2).contains(&places.len()) && digits(places));
    match Decimal::from_str_exact(text) {
        Ok(d) if ok => Ok(d),
        _ => reject(path),
    }
}

/// Reading 4: a non-negative plain decimal string of any precision.
fn rate<'c>(cell: &'c Cell, path: &str) -> Result<(&'c str, Decimal), Rejected> {
    let Cell::Str(text) = cell else {
        return reject(path);
    };
    let (whole, places) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let ok = !whole.is_empty()
        && digits(whole)
        && (!text.contains('.') || !places.is_empty() && digits(places));
    match Decimal::from_str_exact(text) {
        Ok(d) if ok => Ok((text.as_ref(), d)),
        _ => reject(path),
    }
}

/// R1: `YYYY-MM`, a year 2000–2099, as (year, month).
fn month(cell: &Cell, path: &str) -> Result<(u32, u32), Rejected> {
    let Cell::Str(text) = cell else {
        return reject(path);
    };
    let b = text.as_bytes();
    if b.len() != 7
        || b[4] != b'-'
        || &b[..2] != b"20"
        || !b
            .iter()
            .enumerate()
            .all(|(i, c)| i == 4 || c.is_ascii_digit())
    {
        return reject(path);
    }
    let num = |s: &[u8]| s.iter().fold(0u32, |n, c| n * 10 + u32::from(c - b'0'));
    let m = num(&b[5..]);
    if !(1..=12).contains(&m) {
        return reject(path);
    }
    Ok((num(&b[..4]), m))
}

/// One reference row.
pub struct Row<'c> {
    rate_written: &'c str,
    rate: Decimal,
    cap: Decimal,
    deduction: Decimal,
    free: Decimal,
    upper: Decimal,
    middle_rate: Decimal,
    upper_rate: Decimal,
}

fn row<'c>(tables: &'c Cell, name: &str) -> Result<Row<'c>, Rejected> {
    let path = format!("reference_tables.{name}");
    let Some(row) = tables.get(name) else {
        return reject(&path);
    };
    if !matches!(row, Cell::Obj(_)) {
        return reject(&path);
    }
    let cell = |column: &str| -> Result<(&'c Cell, String), Rejected> {
        let p = format!("{path}.{column}");
        match row.get(column) {
            Some(c) => Ok((c, p)),
            None => Err(Rejected(p)),
        }
    };
    let money_of = |column: &str| cell(column).and_then(|(c, p)| money(c, &p));
    let rate_of = |column: &str| cell(column).and_then(|(c, p)| rate(c, &p));
    let (rate_written, rate) = rate_of("rate")?;
    Ok(Row {
        rate_written,
        rate,
        cap: money_of("cap")?,
        deduction: money_of("deduction")?,
        free: money_of("free")?,
        upper: money_of("upper")?,
        middle_rate: rate_of("middle_rate")?.1,
        upper_rate: rate_of("upper_rate")?.1,
    })
}

fn default_row(first_half: bool) -> Row<'static> {
    let d = |n: i64, scale: u32| Decimal::new(n, scale);
    if first_half {
        Row {
            rate_written: "0.05",
            rate: d(5, 2),
            cap: d(480000, 2),
            deduction: d(30000, 2),
            free: d(100000, 2),
            upper: d(330000, 2),
            middle_rate: d(10, 2),
            upper_rate: d(22, 2),
        }
    } else {
        Row {
            rate_written: "0.04",
            rate: d(4, 2),
            cap: d(500000, 2),
            deduction: d(35000, 2),
            free: d(110000, 2),
            upper: d(300000, 2),
            middle_rate: d(8, 2),
            upper_rate: d(20, 2),
        }
    }
}

fn cents(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

fn contribution(gross: Decimal, row: &Row) -> Decimal {
    cents(row.rate * gross.min(row.cap))
}

/// Evaluates one case line, appending its answer (or error) JSON to `out`.
pub fn evaluate_line(line: &str, out: &mut String) {
    evaluate_case_line(line, out, evaluate);
}

/// The answer of a case read, written to `out`, or where it is rejected.
pub fn evaluate(case: &RawCase, out: &mut String) -> Result<(), Rejected> {
    let payslip = match &case.task {
        Some(Cell::Str(t)) if t == "payslip" => true,
        Some(Cell::Str(t)) if t == "retrieval" => false,
        _ => return reject("task"),
    };
    let gross = given(&case.gross_pay)
        .map(|c| money(c, "gross_pay"))
        .transpose()?;
    let pay_month = given(&case.payroll_month)
        .map(|c| month(c, "payroll_month"))
        .transpose()?;
    let deduction = match given(&case.allowed_deduction) {
        Some(c) => money(c, "allowed_deduction")?,
        None => Decimal::new(0, 2),
    };
    let contract = given(&case.contract_gross_pay)
        .map(|c| money(c, "contract_gross_pay"))
        .transpose()?;
    let amendment = match given(&case.amendment) {
        None => None,
        Some(a @ Cell::Obj(_)) => {
            let required = |key: &str| {
                a.get(key)
                    .ok_or_else(|| Rejected(format!("amendment.{key}")))
            };
            let gross = money(required("gross_pay")?, "amendment.gross_pay")?;
            let effective = month(required("effective_month")?, "amendment.effective_month")?;
            let Cell::Bool(approved) = required("approved")? else {
                return reject("amendment.approved");
            };
            Some((gross, effective, *approved))
        }
        Some(_) => return reject("amendment"),
    };
    let rows = match given(&case.reference_tables) {
        None => None,
        Some(t @ Cell::Obj(_)) => Some((row(t, "first-half")?, row(t, "second-half")?)),
        Some(_) => return reject("reference_tables"),
    };
    let field = if payslip {
        None
    } else {
        match &case.field {
            Some(Cell::Str(f))
                if f == "contribution_rate" || f == "contribution_cap" || f == "deduction_cap" =>
            {
                Some(f.as_ref())
            }
            _ => return reject("field"),
        }
    };
    let row = match pay_month {
        Some((2026, m)) => Some(match rows {
            Some((first, second)) => {
                if m <= 6 {
                    first
                } else {
                    second
                }
            }
            None => default_row(m <= 6),
        }),
        _ => None,
    };
    let cap = row.as_ref().map_or(Decimal::new(35000, 2), |r| r.deduction);
    if deduction > cap {
        return reject("allowed_deduction");
    }
    if let (Some(row), Some(gross)) = (&row, gross) {
        if deduction > gross - contribution(gross, row) {
            return reject("allowed_deduction");
        }
    }
    if let Some(field) = field {
        let Some(row) = row else {
            return reject("payroll_month");
        };
        let _ = write!(
            out,
            "{{\"decision\":\"retrieve\",\"field\":\"{field}\",\"value\":"
        );
        let clauses = match field {
            "contribution_rate" => {
                let _ = write!(out, "\"{}\"", row.rate_written);
                "R3"
            }
            "contribution_cap" => {
                write_money(out, row.cap);
                "R3"
            }
            _ => {
                write_money(out, row.deduction);
                "R4"
            }
        };
        let _ = write!(out, ",\"clauses\":[\"R1\",\"{clauses}\"]}}");
        return Ok(());
    }
    let clarify = |out: &mut String, reason: &str, clauses: &str| {
        let _ = write!(
            out,
            "{{\"decision\":\"clarify\",\"reason_code\":\"{reason}\",\"clauses\":[{clauses}]}}"
        );
    };
    let (Some(gross), Some(pay_month), Some(row)) = (gross, pay_month, row) else {
        let reason = match (gross, pay_month) {
            (None, _) => "MISSING_GROSS_PAY",
            (_, None) => "MISSING_PAYROLL_MONTH",
            _ => "NO_APPLICABLE_REFERENCE",
        };
        clarify(out, reason, "\"R1\",\"R7\"");
        return Ok(());
    };
    let amendment_needed = contract.is_some_and(|c| c != gross);
    if amendment_needed {
        let resolves = amendment.is_some_and(|(a_gross, effective, approved)| {
            approved && effective <= pay_month && a_gross == gross
        });
        if !resolves {
            clarify(out, "CONFLICTING_GROSS_PAY", "\"R7\",\"R9\"");
            return Ok(());
        }
    }
    let contribution = contribution(gross, &row);
    let taxable = gross - contribution - deduction;
    let zero = Decimal::ZERO;
    let middle = (taxable - row.free).max(zero).min(row.upper - row.free);
    let upper = (taxable - row.upper).max(zero);
    let tax = cents(row.middle_rate * middle + row.upper_rate * upper);
    let net = taxable - tax;
    out.push_str("{\"decision\":\"calculate\",\"currency\":\"LCR\",\"gross_pay\":");
    write_money(out, gross);
    out.push_str(",\"employee_contribution\":");
    write_money(out, contribution);
    out.push_str(",\"allowed_deduction\":");
    write_money(out, deduction);
    out.push_str(",\"taxable_pay\":");
    write_money(out, taxable);
    out.push_str(",\"income_tax\":");
    write_money(out, tax);
    out.push_str(",\"net_pay\":");
    write_money(out, net);
    out.push_str(",\"clauses\":[\"R1\",\"R2\",\"R3\",\"R4\",\"R5\",\"R6\"");
    if amendment_needed {
        out.push_str(",\"R9\"");
    }
    out.push_str("]}");
    Ok(())
}
