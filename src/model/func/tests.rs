//! Tests of the table of built-in functions.

use super::*;

/// Every function, written out; the exhaustive `match` below stops the
/// build until a new variant is listed here too.
const ALL: [Func; 43] = [
    Func::Min,
    Func::Max,
    Func::Abs,
    Func::Clamp,
    Func::Round,
    Func::Floor,
    Func::Ceil,
    Func::Pow,
    Func::Scale,
    Func::ScaleBy,
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
    Func::Len,
    Func::StartsWith,
    Func::EndsWith,
    Func::Contains,
    Func::Upper,
    Func::Lower,
    Func::Slice,
    Func::ToDecimal,
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
        | Func::ScaleBy
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
        | Func::RangeRow
        | Func::Len
        | Func::StartsWith
        | Func::EndsWith
        | Func::Contains
        | Func::Upper
        | Func::Lower
        | Func::Slice
        | Func::ToDecimal => ALL.contains(&f),
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
    // An age on a day before the birth is no age (it was -1, floored).
    assert_eq!(
        run(Func::Age, &[date("2024-03-01"), date("2024-02-29")]),
        Err("the date 2024-02-29 is before the birth date 2024-03-01: it has no age".into())
    );
    assert_eq!(
        run(Func::Age, &[date("2024-02-29"), date("2024-02-29")]),
        Ok(Value::Number(0.into()))
    );
    // A kind the walker would have refused is a fault, never a panic.
    assert!(run(Func::Day, &[Value::Null]).is_err());
    assert!(run(Func::Day, &[]).is_err());
}

#[test]
fn admit_refuses_what_the_walker_faults_on() {
    assert_eq!(ArgRead::Present.admit(Value::Null), None);
    assert_eq!(ArgRead::Date.admit(Value::Number(1.into())), None);
    assert_eq!(
        ArgRead::List.admit(Value::Absent),
        Some(Value::List(std::sync::Arc::from([])))
    );
    assert_eq!(
        ArgRead::Decimal.admit(Value::Number(2.into())),
        Some(Value::Number(2.into()))
    );
}

#[test]
fn text_functions_count_characters_not_bytes() {
    let run = |f: Func, args: &[Value]| (f.spec().op.as_ref().expect("an op").run)(args);
    let t = |s: &str| Value::Text(s.into());
    let n = |s: &str| Value::Number(rust_decimal::Decimal::from_str_exact(s).expect("test number"));
    assert_eq!(run(Func::Len, &[t("Zoë")]), Ok(n("3")));
    assert_eq!(run(Func::Len, &[t("")]), Ok(n("0")));
    assert_eq!(run(Func::Slice, &[t("Zoë!"), n("1"), n("3")]), Ok(t("oë")));
    // A `to` past the end stops there; an empty range is an empty text.
    assert_eq!(run(Func::Slice, &[t("ab"), n("1"), n("99")]), Ok(t("b")));
    assert_eq!(run(Func::Slice, &[t("ab"), n("2.0"), n("2")]), Ok(t("")));
    assert_eq!(
        run(Func::Slice, &[t("ab"), n("2"), n("1")]),
        Err("`slice` from 2 to 1: the start is after the end".into())
    );
    assert_eq!(
        run(Func::Slice, &[t("ab"), n("0.5"), n("1")]),
        Err("`slice` takes positions that are whole numbers from 0, found 0.5".into())
    );
    assert_eq!(
        run(Func::StartsWith, &[t("S1250L"), t("S")]),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        run(Func::EndsWith, &[t("S1250L"), t("0L")]),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        run(Func::Contains, &[t("S1250L"), t("25")]),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        run(Func::Contains, &[t("S1250L"), t("52")]),
        Ok(Value::Bool(false))
    );
    assert_eq!(run(Func::Upper, &[t("straße")]), Ok(t("STRASSE")));
    assert_eq!(run(Func::Lower, &[t("ÉTÉ")]), Ok(t("été")));
}

#[test]
fn to_decimal_reads_the_plain_notation_exactly() {
    let run = |args: &[Value]| (Func::ToDecimal.spec().op.as_ref().expect("an op").run)(args);
    let t = |s: &str| Value::Text(s.into());
    let shown = |v: Result<Value, String>| match v {
        Ok(Value::Number(d)) => d.to_string(),
        other => format!("{other:?}"),
    };
    assert_eq!(shown(run(&[t("0012.50")])), "12.50");
    assert_eq!(shown(run(&[t("-3")])), "-3");
    for bad in ["", "-", "1.", ".5", "+1", "1e3", " 1", "1,5", "١٢"] {
        assert_eq!(
            run(&[t(bad)]),
            Err(format!("`to_decimal`: {bad:?} is not a decimal number")),
            "{bad}"
        );
    }
    // As many digits as a decimal holds (docs/rulebook-format.md): 29 up to
    // 2^96 − 1 units, and one more unit is past it.
    assert_eq!(
        shown(run(&[t("79228162514264337593543950335")])),
        "79228162514264337593543950335"
    );
    assert!(run(&[t("79228162514264337593543950336")]).is_err());
    assert_eq!(
        run(&[t("123456789012345678901234567890")]),
        Err(
            "`to_decimal`: \"123456789012345678901234567890\" has more digits than a decimal holds"
                .into()
        )
    );
}
