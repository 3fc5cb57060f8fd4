//! Tests of the table of built-in functions.

use super::*;

/// Every function, written out; the exhaustive `match` below stops the
/// build until a new variant is listed here too.
const ALL: [Func; 34] = [
    Func::Min,
    Func::Max,
    Func::Abs,
    Func::Clamp,
    Func::Round,
    Func::Floor,
    Func::Ceil,
    Func::Pow,
    Func::Scale,
    Func::Lookup,
    Func::PeriodRow,
    Func::IsMissing,
    Func::IsNull,
    Func::Coalesce,
    Func::Date,
    Func::Month,
    Func::DaysInMonth,
    Func::DaysBetween,
    Func::Age,
    Func::AddMonths,
    Func::AddYears,
    Func::MonthOf,
    Func::Day,
    Func::Year,
    Func::Count,
    Func::Sum,
    Func::Any,
    Func::All,
    Func::Get,
    Func::Keys,
    Func::Values,
    Func::FindIndex,
    Func::Rows,
    Func::RangeRow,
];

fn listed(f: Func) -> bool {
    match f {
        Func::Min
        | Func::Max
        | Func::Abs
        | Func::Clamp
        | Func::Round
        | Func::Floor
        | Func::Ceil
        | Func::Pow
        | Func::Scale
        | Func::Lookup
        | Func::PeriodRow
        | Func::IsMissing
        | Func::IsNull
        | Func::Coalesce
        | Func::Date
        | Func::Month
        | Func::DaysInMonth
        | Func::DaysBetween
        | Func::Age
        | Func::AddMonths
        | Func::AddYears
        | Func::MonthOf
        | Func::Day
        | Func::Year
        | Func::Count
        | Func::Sum
        | Func::Any
        | Func::All
        | Func::Get
        | Func::Keys
        | Func::Values
        | Func::FindIndex
        | Func::Rows
        | Func::RangeRow => ALL.contains(&f),
    }
}

#[test]
fn every_func_has_exactly_one_entry_and_names_are_unique() {
    assert_eq!(FUNCS.len(), ALL.len());
    for f in ALL {
        assert!(listed(f));
        assert_eq!(FUNCS.iter().filter(|s| s.func == f).count(), 1, "{f:?}");
        assert_eq!(f.spec().func, f);
        assert_eq!(Func::parse(f.name()), Some(f));
    }
    for (i, s) in FUNCS.iter().enumerate() {
        let same = FUNCS.iter().filter(|t| t.name == s.name).count();
        assert_eq!(same, 1, "`{}` is named twice", s.name);
        assert_eq!(s.func as usize, i);
    }
}

#[test]
fn a_table_driven_entry_is_consistent() {
    for s in &FUNCS {
        let Some(op) = &s.op else { continue };
        // The walker and `rt::call` read each argument: the arity is fixed.
        assert_eq!(s.arity, (op.reads.len(), op.reads.len()), "{}", s.name);
        assert!(op.reads.len() <= MAX_OP_ARGS, "{}", s.name);
        if let Signature::Fixed(params, _) = s.signature {
            assert_eq!(params.len(), op.reads.len(), "{}", s.name);
        }
        if let Emit::Rt { text, args, .. } = op.emit {
            assert_eq!(args.len(), op.reads.len(), "{}", s.name);
            for i in 0..args.len() {
                assert!(text.contains(&format!("{{{i}}}")), "{}", s.name);
            }
        }
    }
}

#[test]
fn operations_as_the_walker_runs_them() {
    let date = |s: &str| Value::Date(crate::value::parse_date(s).expect("test date"));
    let run = |f: Func, args: &[Value]| (f.spec().op.as_ref().expect("an op").run)(args);
    assert_eq!(
        run(Func::DaysBetween, &[date("2026-02-27"), date("2026-03-02")]),
        Ok(Value::Number(3.into()))
    );
    assert_eq!(
        run(Func::DaysBetween, &[date("2026-03-02"), date("2026-02-27")]),
        Ok(Value::Number((-3).into()))
    );
    assert_eq!(
        run(
            Func::AddYears,
            &[date("2024-02-29"), Value::Number(1.into())]
        ),
        Ok(date("2025-02-28"))
    );
    assert_eq!(
        run(
            Func::AddMonths,
            &[Value::Text("x".into()), Value::Number(1.into())]
        ),
        Err("expected a month or a date, found text \"x\"".into())
    );
    // A kind the walker would have refused is a fault, never a panic.
    assert!(run(Func::Day, &[Value::Null]).is_err());
    assert!(run(Func::Day, &[]).is_err());
}

#[test]
fn admit_refuses_what_the_walker_faults_on() {
    assert_eq!(Read::Present.admit(Value::Null), None);
    assert_eq!(Read::Date.admit(Value::Number(1.into())), None);
    assert_eq!(
        Read::List.admit(Value::Absent),
        Some(Value::List(std::sync::Arc::from([])))
    );
    assert_eq!(
        Read::Decimal.admit(Value::Number(2.into())),
        Some(Value::Number(2.into()))
    );
}
