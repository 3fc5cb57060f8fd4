//! The operations of the calendar functions (`days_in_month`,
//! `days_between`, `age`, `add_months`, `add_years`, `month_of`, `day`,
//! `year`) on dates and months. Whole months and years are added as the
//! calendar adds them (`ops::add_months_date` clamps to the month's last
//! day); a result outside the calendar is a fault, never a wrap.

use chrono::Datelike;

use crate::model::ops::{self, bad_arguments};
use crate::value::{Month, Value};

pub(super) fn days_in_month(a: &[Value]) -> Result<Value, String> {
    match a {
        [v] => ops::days_in_month(v).map(Value::Number),
        _ => Err(bad_arguments("days_in_month")),
    }
}

pub(super) fn days_between(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::Date(from), Value::Date(to)] => Ok(Value::Number((*to - *from).num_days().into())),
        _ => Err(bad_arguments("days_between")),
    }
}

pub(super) fn age(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::Date(b), Value::Date(on)] => ops::age(*b, *on).map(|n| Value::Number(n.into())),
        _ => Err(bad_arguments("age")),
    }
}

pub(super) fn add_months(a: &[Value]) -> Result<Value, String> {
    let [base, Value::Number(n)] = a else {
        return Err(bad_arguments("add_months"));
    };
    let n = ops::whole(*n, "a number of months")?;
    let res = match base {
        Value::Month(m) => m.plus_months(n).map(Value::Month),
        Value::Date(d) => ops::add_months_date(*d, n).map(Value::Date),
        other => {
            return Err(format!(
                "expected a month or a date, found {}",
                crate::value::describe_value(other)
            ))
        }
    };
    res.ok_or_else(|| "the result is outside the calendar".into())
}

pub(super) fn add_years(a: &[Value]) -> Result<Value, String> {
    let [Value::Date(d), Value::Number(n)] = a else {
        return Err(bad_arguments("add_years"));
    };
    let n = ops::whole(*n, "a number of years")?;
    ops::add_years(*d, n)
        .map(Value::Date)
        .ok_or_else(|| "the result is outside the calendar".into())
}

pub(super) fn month_of(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::Date(d)] => Ok(Value::Month(Month::of(*d))),
        _ => Err(bad_arguments("month_of")),
    }
}

pub(super) fn day(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::Date(d)] => Ok(Value::Number(d.day().into())),
        _ => Err(bad_arguments("day")),
    }
}

pub(super) fn year(a: &[Value]) -> Result<Value, String> {
    match a {
        [v] => ops::month_of_value(v).map(|m| Value::Number(m.year.into())),
        _ => Err(bad_arguments("year")),
    }
}
