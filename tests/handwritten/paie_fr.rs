//! The French monthly payslip of 2026 (specs/paie-fr.md, its precise
//! readings included), every level, the level-4 payslip with its proration,
//! overtime cap and RGDU among them, written by hand in plain Rust: serde
//! into borrowed structs, rust_decimal, the answer written straight into a
//! `String`. It is the limit the paie-fr rulebook is measured against
//! (`benches/limit.rs`) and one more differential reading of the spec
//! (`tests/it/handwritten.rs`); it never enters the library.
//!
//! A rejection names the path bareme names; its message is only
//! `rejected` (bareme's prose is bareme's). Amounts are exact decimals: a
//! quotient is taken once, from an exact numerator and denominator, just
//! before the rounding that follows it.

use chrono::{Datelike, NaiveDate};
use rust_decimal::{Decimal, MathematicalOps, RoundingStrategy};
use serde::Deserialize;

use super::cell::{evaluate_case_line, given, reject, write_money, Cell, Rejected};

/// A case's fields, borrowed from its line.
#[derive(Deserialize)]
pub struct RawCase<'a> {
    #[serde(borrow, default)]
    level: Option<Cell<'a>>,
    #[serde(borrow, default)]
    month: Option<Cell<'a>>,
    #[serde(borrow, default)]
    status: Option<Cell<'a>>,
    #[serde(borrow, default)]
    headcount: Option<Cell<'a>>,
    #[serde(borrow, default)]
    base_salary: Option<Cell<'a>>,
    #[serde(borrow, default)]
    contract_hours: Option<Cell<'a>>,
    #[serde(borrow, default)]
    hourly_rate: Option<Cell<'a>>,
    #[serde(borrow, default)]
    overtime_25_hours: Option<Cell<'a>>,
    #[serde(borrow, default)]
    overtime_50_hours: Option<Cell<'a>>,
    #[serde(borrow, default)]
    bonus: Option<Cell<'a>>,
    #[serde(borrow, default)]
    unpaid_absence_hours: Option<Cell<'a>>,
    #[serde(borrow, default)]
    benefit_in_kind: Option<Cell<'a>>,
    #[serde(borrow, default)]
    health_insurance: Option<Cell<'a>>,
    #[serde(borrow, default)]
    meal_vouchers: Option<Cell<'a>>,
    #[serde(borrow, default)]
    at_rate: Option<Cell<'a>>,
    #[serde(borrow, default)]
    mobility_rate: Option<Cell<'a>>,
    #[serde(borrow, default)]
    withholding_rate: Option<Cell<'a>>,
    #[serde(borrow, default)]
    rgdu_coefficient: Option<Cell<'a>>,
    #[serde(borrow, default)]
    entry_date: Option<Cell<'a>>,
    #[serde(borrow, default)]
    exit_date: Option<Cell<'a>>,
    #[serde(borrow, default)]
    overtime_exempt_ytd: Option<Cell<'a>>,
}

fn dec(n: i64, scale: u32) -> Decimal {
    Decimal::new(n, scale)
}

/// Readings 3-5: a decimal string `[0-9]+(\.[0-9]+)?`, at most `places`
/// written decimals, not negative, at most `max`.
fn decimal(
    cell: &Cell,
    path: &str,
    places: Option<usize>,
    max: Option<Decimal>,
) -> Result<Decimal, Rejected> {
    let Cell::Str(text) = cell else {
        return reject(path);
    };
    let (whole, decimals) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let ok = !whole.is_empty()
        && digits(whole)
        && (!text.contains('.') || !decimals.is_empty() && digits(decimals))
        && places.is_none_or(|p| decimals.len() <= p);
    match Decimal::from_str_exact(text) {
        Ok(d) if ok && max.is_none_or(|m| d <= m) => Ok(d),
        _ => reject(path),
    }
}

/// Reading 3: an amount, brought to two places.
fn money(cell: &Cell, path: &str) -> Result<Decimal, Rejected> {
    let mut d = decimal(cell, path, Some(2), None)?;
    if d.scale() < 2 {
        d.rescale(2);
    }
    Ok(d)
}

/// Reading 6: a JSON integer within `min..=max`.
fn integer(cell: &Cell, path: &str, min: i64, max: i64) -> Result<i64, Rejected> {
    match cell {
        Cell::Num(t) if !t.is_empty() && t.len() < 19 && t.bytes().all(|b| b.is_ascii_digit()) => {
            match t.parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(n),
                _ => reject(path),
            }
        }
        // Past 18 digits: too large for any bound here, or not a number.
        _ => reject(path),
    }
}

/// A date `YYYY-MM-DD` in the payroll month (reading 10).
fn date(cell: &Cell, path: &str, month: (i32, u32)) -> Result<NaiveDate, Rejected> {
    let Cell::Str(text) = cell else {
        return reject(path);
    };
    let b = text.as_bytes();
    let form = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    match NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        Ok(d) if form && (d.year(), d.month()) == month => Ok(d),
        _ => reject(path),
    }
}

/// What a line of the schedule is computed on.
#[derive(Clone, Copy)]
enum Base {
    Brut,
    T1,
    T2,
    Capped4,
    Cet,
    Csg,
    OvertimeCsg,
    Forfait,
}

/// When a line of the schedule applies.
#[derive(Clone, Copy)]
enum When {
    Always,
    Cadre,
    Below11,
    From11,
    Below50,
    From50,
    AboveCeiling,
    Overtime,
}

/// An employer rate: written in the schedule, or one of the case's.
#[derive(Clone, Copy)]
enum Rate {
    None,
    Fixed(i64, u32),
    At,
    Mobility,
}

/// One line of the 2026 schedule: base, employee rate (percent), employer
/// rate, condition, whether it is added back to the taxable net.
struct Line(Base, Option<(i64, u32)>, Rate, When, bool);

use Base::*;
use When::*;

/// The contribution schedule, in the rulebook's order. The health line
/// (its amounts the health shares) is apart: `health` below.
const SCHEDULE: [Line; 25] = [
    Line(Brut, None, Rate::Fixed(1300, 2), Always, false),
    Line(T1, Some((690, 2)), Rate::Fixed(855, 2), Always, false),
    Line(Brut, Some((40, 2)), Rate::Fixed(211, 2), Always, false),
    Line(Brut, None, Rate::Fixed(525, 2), Always, false),
    Line(Brut, None, Rate::At, Always, false),
    Line(Brut, None, Rate::Fixed(30, 2), Always, false),
    Line(T1, None, Rate::Fixed(10, 2), Below50, false),
    Line(Brut, None, Rate::Fixed(50, 2), From50, false),
    Line(Brut, None, Rate::Mobility, From11, false),
    Line(Capped4, None, Rate::Fixed(400, 2), Always, false),
    Line(Capped4, None, Rate::Fixed(25, 2), Always, false),
    Line(T1, Some((315, 2)), Rate::Fixed(472, 2), Always, false),
    Line(T2, Some((864, 2)), Rate::Fixed(1295, 2), Always, false),
    Line(T1, Some((86, 2)), Rate::Fixed(129, 2), Always, false),
    Line(T2, Some((108, 2)), Rate::Fixed(162, 2), Always, false),
    Line(Cet, Some((14, 2)), Rate::Fixed(21, 2), AboveCeiling, false),
    Line(Capped4, Some((24, 3)), Rate::Fixed(36, 3), Cadre, false),
    Line(T1, None, Rate::Fixed(150, 2), Cadre, false),
    Line(Brut, None, Rate::Fixed(55, 2), Below11, false),
    Line(Brut, None, Rate::Fixed(100, 2), From11, false),
    Line(Brut, None, Rate::Fixed(16, 3), Always, false),
    Line(Forfait, None, Rate::Fixed(800, 2), From11, false),
    Line(Csg, Some((680, 2)), Rate::None, Always, false),
    Line(Csg, Some((240, 2)), Rate::None, Always, true),
    Line(Csg, Some((50, 2)), Rate::None, Always, true),
];

/// The one line on overtime (CSG/CRDS at 9.70 %, added back to the taxable net).
const OVERTIME_CSG: Line = Line(OvertimeCsg, Some((970, 2)), Rate::None, Overtime, true);

fn cents(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// `numerator / denominator` rounded half-up to `places`, from one quotient.
fn ratio(numerator: Decimal, denominator: Decimal, places: u32) -> Decimal {
    (numerator / denominator).round_dp_with_strategy(places, RoundingStrategy::MidpointAwayFromZero)
}

/// Evaluates one case line, appending its answer (or error) JSON to `out`.
pub fn evaluate_line(line: &str, out: &mut String) {
    evaluate_case_line::<RawCase>(line, out, evaluate);
}

/// The payslip of a case read, written to `out`, or where it is rejected.
pub fn evaluate(case: &RawCase, out: &mut String) -> Result<(), Rejected> {
    // Reading 14: the validation order.
    let required = |cell: &Option<Cell<'_>>, path: &str| -> Result<(), Rejected> {
        if given(cell).is_none() {
            return reject(path);
        }
        Ok(())
    };
    let optional = |cell: &Option<Cell<'_>>, path: &str, places, max| {
        given(cell)
            .map(|c| decimal(c, path, places, max))
            .transpose()
    };
    let optional_money =
        |cell: &Option<Cell<'_>>, path: &str| given(cell).map(|c| money(c, path)).transpose();

    required(&case.level, "level")?;
    let level = integer(given(&case.level).unwrap_or(&Cell::Null), "level", 1, 4)?;
    let month = match given(&case.month) {
        Some(Cell::Str(t))
            if t.len() == 7
                && t.starts_with("2026-")
                && t.bytes().skip(5).all(|b| b.is_ascii_digit()) =>
        {
            match t[5..].parse::<u32>() {
                Ok(m) if (1..=12).contains(&m) => m,
                _ => return reject("month"),
            }
        }
        _ => return reject("month"),
    };
    let cadre = match given(&case.status) {
        Some(Cell::Str(s)) if s == "cadre" => true,
        Some(Cell::Str(s)) if s == "non_cadre" => false,
        _ => return reject("status"),
    };
    required(&case.headcount, "headcount")?;
    let headcount = integer(
        given(&case.headcount).unwrap_or(&Cell::Null),
        "headcount",
        0,
        i64::MAX,
    )?;
    required(&case.base_salary, "base_salary")?;
    let base_salary = money(
        given(&case.base_salary).unwrap_or(&Cell::Null),
        "base_salary",
    )?;
    required(&case.contract_hours, "contract_hours")?;
    let hours = decimal(
        given(&case.contract_hours).unwrap_or(&Cell::Null),
        "contract_hours",
        Some(2),
        None,
    )?;
    let legal_hours = dec(15167, 2);
    let schedule_hours = [
        legal_hours,
        dec(8667, 2),
        dec(104, 0),
        dec(12133, 2),
        dec(130, 0),
        dec(13867, 2),
    ];
    if !schedule_hours.contains(&hours) {
        return reject("contract_hours");
    }
    required(&case.hourly_rate, "hourly_rate")?;
    let hourly_rate = money(
        given(&case.hourly_rate).unwrap_or(&Cell::Null),
        "hourly_rate",
    )?;
    let hours_25 =
        optional(&case.overtime_25_hours, "overtime_25_hours", Some(2), None)?.unwrap_or_default();
    let hours_50 =
        optional(&case.overtime_50_hours, "overtime_50_hours", Some(2), None)?.unwrap_or_default();
    // Reading 8: part time has no overtime.
    if hours != legal_hours && hours_25 > Decimal::ZERO {
        return reject("overtime_25_hours");
    }
    if hours != legal_hours && hours_50 > Decimal::ZERO {
        return reject("overtime_50_hours");
    }
    let bonus = optional_money(&case.bonus, "bonus")?.unwrap_or_default();
    let absence_given = optional(
        &case.unpaid_absence_hours,
        "unpaid_absence_hours",
        Some(2),
        None,
    )?;
    if absence_given.is_some_and(|a| a > hours) {
        return reject("unpaid_absence_hours");
    }
    let benefit = optional_money(&case.benefit_in_kind, "benefit_in_kind")?.unwrap_or_default();
    let health = match given(&case.health_insurance) {
        None => None,
        Some(h @ Cell::Obj(_)) => {
            let premium = h
                .get("premium")
                .ok_or_else(|| Rejected("health_insurance.premium".into()))?;
            let premium = money(premium, "health_insurance.premium")?;
            let path = "health_insurance.employer_share";
            let share = h
                .get("employer_share")
                .ok_or_else(|| Rejected(path.into()))?;
            Some((premium, decimal(share, path, None, Some(Decimal::ONE))?))
        }
        Some(_) => return reject("health_insurance"),
    };
    let meals = match given(&case.meal_vouchers) {
        None => None,
        Some(m @ Cell::Obj(_)) => {
            let path = "meal_vouchers.count";
            let count = integer(
                m.get("count").ok_or_else(|| Rejected(path.into()))?,
                path,
                0,
                i64::MAX,
            )?;
            let path = "meal_vouchers.face_value";
            let face = money(
                m.get("face_value").ok_or_else(|| Rejected(path.into()))?,
                path,
            )?;
            let path = "meal_vouchers.employer_share";
            let share = m
                .get("employer_share")
                .ok_or_else(|| Rejected(path.into()))?;
            Some((
                Decimal::from(count),
                face,
                decimal(share, path, None, Some(Decimal::ONE))?,
            ))
        }
        Some(_) => return reject("meal_vouchers"),
    };
    let rate = |cell: &Option<Cell<'_>>, path: &str| -> Result<Decimal, Rejected> {
        required(cell, path)?;
        decimal(given(cell).unwrap_or(&Cell::Null), path, None, None)
    };
    let at_rate = rate(&case.at_rate, "at_rate")?;
    let mobility_rate = rate(&case.mobility_rate, "mobility_rate")?;
    let withholding_rate = rate(&case.withholding_rate, "withholding_rate")?;
    let coefficient = match given(&case.rgdu_coefficient) {
        None if level <= 2 => return reject("rgdu_coefficient"),
        None => None,
        Some(c) => Some(decimal(c, "rgdu_coefficient", None, Some(Decimal::ONE))?),
    };
    let in_month = (2026, month);
    let entry = given(&case.entry_date)
        .map(|c| date(c, "entry_date", in_month))
        .transpose()?;
    let exit = given(&case.exit_date)
        .map(|c| date(c, "exit_date", in_month))
        .transpose()?;
    if exit.is_some() && entry.is_some() {
        return reject("exit_date");
    }
    let has_overtime = hours_25 > Decimal::ZERO || hours_50 > Decimal::ZERO;
    let ytd = optional_money(&case.overtime_exempt_ytd, "overtime_exempt_ytd")?;
    if ytd.is_none() && level == 4 && has_overtime {
        return reject("overtime_exempt_ytd");
    }

    // Pay items.
    let days_of_month = NaiveDate::from_ymd_opt(2026 + i32::from(month == 12), month % 12 + 1, 1)
        .and_then(|next| next.pred_opt())
        .map_or(30, |last| last.day());
    let dom = Decimal::from(days_of_month);
    let (enters, leaves) = (level == 4 && entry.is_some(), level == 4 && exit.is_some());
    let days_present = Decimal::from(match (entry, exit) {
        (Some(d), _) if enters => days_of_month - d.day() + 1,
        (_, Some(d)) if leaves => d.day(),
        _ => days_of_month,
    });
    let base = if enters || leaves {
        ratio(base_salary * days_present, dom, 2)
    } else {
        base_salary
    };
    let overtime_25 = cents(hours_25 * hourly_rate * dec(125, 2));
    let overtime_50 = cents(hours_50 * hourly_rate * dec(15, 1));
    let overtime_pay = overtime_25 + overtime_50;
    let absence_hours = if level <= 3 {
        absence_given.unwrap_or_default()
    } else {
        Decimal::ZERO
    };
    let absence = cents(absence_hours * hourly_rate);
    let brut = base + overtime_pay + bonus + benefit - absence;
    if brut < Decimal::ZERO {
        return reject("unpaid_absence_hours");
    }

    // Ceiling and bases.
    let pmss = dec(400500, 2);
    let ceiling = if level == 4 {
        ratio(pmss * hours * days_present, legal_hours * dom, 2)
    } else {
        pmss
    };
    let zero = Decimal::ZERO;
    let t1 = brut.min(ceiling);
    let t2 = (brut - ceiling).max(zero).min(dec(7, 0) * ceiling);
    let capped4 = brut.min(dec(4, 0) * ceiling);
    let cet_base = brut.min(dec(8, 0) * ceiling);
    let (premium, employer_health) = health.map_or((zero, zero), |(p, s)| (p, cents(p * s)));
    let employee_health = premium - employer_health;
    let death_cover = if cadre { cents(t1 * dec(150, 4)) } else { zero };
    let csg_base = cents(dec(9825, 4) * (brut - overtime_pay)) + employer_health + death_cover;
    let overtime_csg_base = cents(dec(9825, 4) * overtime_pay);

    // The schedule, line by line.
    let (mut employee_lines, mut employer_lines, mut taxable_back) = (zero, zero, zero);
    for Line(on, employee, employer, when, back) in SCHEDULE.iter().chain([&OVERTIME_CSG]) {
        let applies = match when {
            Always => true,
            Cadre => cadre,
            Below11 => headcount < 11,
            From11 => headcount >= 11,
            Below50 => headcount < 50,
            From50 => headcount >= 50,
            AboveCeiling => brut > ceiling,
            Overtime => has_overtime,
        };
        if !applies {
            continue;
        }
        let base = match on {
            Brut => brut,
            T1 => t1,
            T2 => t2,
            Capped4 => capped4,
            Cet => cet_base,
            Csg => csg_base,
            OvertimeCsg => overtime_csg_base,
            Forfait => employer_health + death_cover,
        };
        let amount = |rate: Decimal| cents(base * rate / dec(100, 0));
        if let Some((n, scale)) = employee {
            let a = amount(dec(*n, *scale));
            employee_lines += a;
            if *back {
                taxable_back += a;
            }
        }
        employer_lines += match employer {
            Rate::None => zero,
            Rate::Fixed(n, scale) => amount(dec(*n, *scale)),
            Rate::At => amount(at_rate),
            Rate::Mobility => amount(mobility_rate),
        };
    }
    // The health line: its amounts are the shares.
    if health.is_some() {
        employee_lines += employee_health;
        employer_lines += employer_health;
    }

    // Reductions and results.
    let overtime_reduction = cents(dec(1131, 4) * overtime_pay);
    let total_cotisations = employee_lines - overtime_reduction;
    let net_before_tax = brut - total_cotisations;
    let exempt_overtime = if level == 4 {
        overtime_pay.min((dec(750000, 2) - ytd.unwrap_or_default()).max(zero))
    } else {
        overtime_pay
    };
    let net_imposable = net_before_tax + taxable_back + employer_health - exempt_overtime;
    let withholding = cents(net_imposable * withholding_rate / dec(100, 0));
    let (employer_meals, employee_meals) = meals.map_or((zero, zero), |(count, face, share)| {
        let employer = cents(count * face * share);
        (employer, count * face - employer)
    });
    let net_a_payer = net_before_tax - withholding - benefit - employee_meals;

    let smic = dec(182303, 2);
    let smic_ref = if level == 4 {
        ratio(smic * hours * days_present, legal_hours * dom, 2)
    } else {
        ratio(smic * (hours - absence_hours), hours, 2)
    };
    let tmin = dec(2, 2);
    let tdelta = if headcount < 50 {
        dec(3781, 4)
    } else {
        dec(3821, 4)
    };
    let c = if level <= 2 {
        coefficient.unwrap_or_default()
    } else if brut >= dec(3, 0) * smic_ref {
        zero
    } else if brut.is_zero() {
        tmin + tdelta
    } else {
        // x^1.75 = (x^(1/4))^7.
        let x = dec(5, 1) * (dec(3, 0) * smic_ref / brut - Decimal::ONE);
        let root = x.sqrt().and_then(|r| r.sqrt()).unwrap_or_default();
        let formula = tmin + tdelta * root.powu(7);
        formula
            .min(tmin + tdelta)
            .round_dp_with_strategy(4, RoundingStrategy::MidpointAwayFromZero)
    };
    let rgdu = cents(brut * c);
    let cout_employeur = brut + employer_lines + employer_meals - rgdu;

    out.push_str("{\"brut\":");
    write_money(out, brut);
    out.push_str(",\"total_cotisations_salariales\":");
    write_money(out, total_cotisations);
    out.push_str(",\"net_imposable\":");
    write_money(out, net_imposable);
    out.push_str(",\"prelevement_source\":");
    write_money(out, withholding);
    out.push_str(",\"net_a_payer\":");
    write_money(out, net_a_payer);
    out.push_str(",\"cout_employeur\":");
    write_money(out, cout_employeur);
    out.push('}');
    Ok(())
}
