//! The built-in functions, one table entry each: the name as written, the
//! arity, the type rule and, for a pure operation on values, how the
//! interpreter reads its arguments, the operation itself and what the code generator
//! writes for it.
//!
//! The front end (`rulebook::resolve`) looks names up, checks arity and
//! types here; the interpreter (`eval::call`) runs every function that has an
//! [`Op`] through it, and compiled code (`compiled::rt::call`) runs the very
//! same entry. Functions that need the machine (short-circuiting, tables,
//! rounding points with their trace, variadic comparisons, literals checked
//! at load) have no `Op` and keep hand-written cases in those three places.
//!
//! Adding a pure function: a variant of [`Func`], its entry in [`FUNCS`]
//! (with its operation below the table, or in its family's file, `text.rs`
//! or `calendar.rs`, calling `ops` if it is more than a line), and a test.
//!
//! Invariant: `FUNCS` lists every function once, at the index of its
//! variant (checked at compile time and by a unit test); names are unique.

use super::ops::{self, bad_arguments};
use crate::value::Value;

mod calendar;
mod text;

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// Smallest of two or more values.
    Min,
    /// Largest of two or more values.
    Max,
    /// Absolute value.
    Abs,
    /// `clamp(x, lo, hi)` = `min(max(x, lo), hi)`.
    Clamp,
    /// `round(x, places[, mode])`, a rounding point.
    Round,
    /// `floor(x, places)`, toward −∞.
    Floor,
    /// `ceil(x, places)`, toward +∞.
    Ceil,
    /// `pow(x, y)`, fractional exponents included.
    Pow,
    /// `scale(table, x)`: a progressive scale applied band by band.
    Scale,
    /// `scale_by(table, x, factor, places[, mode])`: a scale whose band
    /// limits are multiplied by `factor` and rounded (pro-rated bands).
    ScaleBy,
    /// `lookup(table, key, …)`: the row of a keyed table.
    Lookup,
    /// `period_row(table, month_or_date)`: the row whose period covers it.
    PeriodRow,
    /// Absent or null.
    IsMissing,
    /// Explicit null.
    IsNull,
    /// First argument that is not missing.
    Coalesce,
    /// `date("2026-03-14")`.
    Date,
    /// `month("2026-07")`.
    Month,
    /// Days in the month of a month or date.
    DaysInMonth,
    /// `days_between(a, b)`: days from a to b.
    DaysBetween,
    /// `age(birth, on)`: completed years.
    Age,
    /// `add_months(m, n)`.
    AddMonths,
    /// `add_years(date, n)`; 29 February becomes 28 February.
    AddYears,
    /// The month of a date.
    MonthOf,
    /// The day of the month of a date.
    Day,
    /// The year of a date or month.
    Year,
    /// Number of items of a list.
    Count,
    /// Sum of a list of numbers.
    Sum,
    /// Whether any of a list of booleans holds.
    Any,
    /// Whether all of a list of booleans hold.
    All,
    /// `get(map, key)`: the value under a key of a map input, missing if none.
    Get,
    /// The keys of a map, in order.
    Keys,
    /// The values of a map, in order.
    Values,
    /// Index of the first `true` of a list of booleans, missing if none.
    FindIndex,
    /// `rows(table)`: the rows of a table as in force for the case, as a list of records.
    Rows,
    /// `range_row(table, x)`: the row of a ranges table whose range holds x.
    RangeRow,
    /// `len(text)`: its number of characters (code points).
    Len,
    /// `starts_with(text, prefix)`.
    StartsWith,
    /// `ends_with(text, suffix)`.
    EndsWith,
    /// `contains(text, part)`.
    Contains,
    /// `upper(text)`.
    Upper,
    /// `lower(text)`.
    Lower,
    /// `slice(text, from, to)`: characters `from` (counted from 0) up to `to`, excluded.
    Slice,
    /// `to_decimal(text)`: the decimal number a text writes, a fault if none.
    ToDecimal,
}

/// One built-in function, whole.
#[derive(Debug)]
pub struct FuncSpec {
    /// The function.
    pub func: Func,
    /// Its name as a formula writes it.
    pub name: &'static str,
    /// Fewest and most arguments (`usize::MAX`: no limit).
    pub arity: (usize, usize),
    /// How the front end types a call.
    pub signature: Signature,
    /// The operation, for a function that is a pure operation on its
    /// arguments' values; `None` for one the interpreter runs by hand.
    pub op: Option<Op>,
}

/// How the front end types a call.
#[derive(Debug)]
pub enum Signature {
    /// Each argument checked against its parameter, in order; the result's
    /// type follows.
    Fixed(&'static [Param], Returns),
    /// Typed by hand in `rulebook::resolve` (variadic functions, tables,
    /// rounding points, literals, and `get`, which checks its key first).
    ByHand,
}

/// What an argument must be. A problem reads "the argument of `f` must be
/// a number" (one parameter) or "argument 2 of `f` must be a number", or for
/// a list "`f` takes a list of numbers".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// Anything.
    Any,
    /// A number.
    Number,
    /// A date.
    Date,
    /// A month or a date.
    MonthOrDate,
    /// A list or a map.
    ListOrMap,
    /// A map.
    Map,
    /// A list of numbers.
    Numbers,
    /// A list of booleans.
    Booleans,
    /// A text.
    Text,
}

/// The type of a call's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// A number.
    Number,
    /// A boolean.
    Bool,
    /// A date.
    Date,
    /// A month.
    Month,
    /// A text.
    Text,
    /// The type of the first argument.
    First,
    /// The list of the keys (texts) of the map that is the first argument.
    Keys,
    /// The list of the values of the map that is the first argument.
    Values,
}

/// A pure operation: how the interpreter reads each argument, what it computes,
/// and what the code generator writes.
#[derive(Debug)]
pub struct Op {
    /// How each argument is read, in order (one per argument).
    pub reads: &'static [ArgRead],
    /// The operation on the arguments as read; the message of an `Err` is
    /// located at the call.
    pub run: fn(&[Value]) -> Result<Value, String>,
    /// What the code generator writes for a call.
    pub emit: Emit,
}

/// How the interpreter reads an argument before the operation sees it. A read
/// that fails is a fault at the argument (or, for `Approx`, at the call).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgRead {
    /// The value as it is, missing or not.
    Value,
    /// The value as it is, not noted in the trace as read (a map whose
    /// entry, not the whole, is what the formula uses).
    Unnoted,
    /// A value that is not missing.
    Present,
    /// A number, decimal or fraction.
    Number,
    /// A decimal number: a fraction is refused (a count of months, years).
    Decimal,
    /// A number as a decimal, a fraction approximated (`pow`).
    Approx,
    /// A date.
    Date,
    /// A list; a missing one has no items.
    List,
}

impl ArgRead {
    /// The argument as the operation receives it, or `None` where the
    /// interpreter's read faults: compiled code gives the case up there.
    pub fn admit(self, v: Value) -> Option<Value> {
        match self {
            ArgRead::Value | ArgRead::Unnoted => Some(v),
            ArgRead::Present => (!v.is_missing()).then_some(v),
            ArgRead::Number => v.as_num().map(Value::from_num),
            ArgRead::Decimal => matches!(v, Value::Number(_)).then_some(v),
            ArgRead::Approx => v.as_num()?.approx().map(Value::Number),
            ArgRead::Date => matches!(v, Value::Date(_)).then_some(v),
            ArgRead::List => match v {
                Value::List(_) => Some(v),
                v if v.is_missing() => Some(Value::List(std::sync::Arc::from([]))),
                _ => None,
            },
        }
    }
}

/// What the code generator writes for a call of a pure function.
#[derive(Debug)]
pub enum Emit {
    /// `call(Func::X, [a, b])?`: the table's operation through
    /// `compiled::rt::call`, giving a `Value`. A new function needs nothing else.
    Call,
    /// A typed runtime function of `compiled::rt`: `text` with `{0}`, `{1}`…
    /// for the arguments, each generated as its carrier, the result as `ty`.
    Rt {
        /// The call, e.g. `"age({0}, {1})?"`.
        text: &'static str,
        /// How each argument is carried.
        args: &'static [Carrier],
        /// How the result is carried.
        ty: Carrier,
    },
}

/// The Rust type generated code holds a value in (`codegen::ty::Ty`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrier {
    /// `&Value` as an argument, `Value` as a result.
    Value,
    /// `Num`.
    Num,
    /// `Decimal`.
    Dec,
    /// `bool`.
    Bool,
}

impl Func {
    /// This function's entry of the table.
    pub fn spec(self) -> &'static FuncSpec {
        // INVARIANT: `FUNCS[i].func as usize == i` for every variant (see below).
        &FUNCS[self as usize]
    }

    /// Its name as written.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Units of the evaluation budget a call spends beyond its node and
    /// what it reads: work its arguments' sizes do not bound. `pow` takes
    /// powers and roots in big integers (up to ~20 µs a call, some hundred
    /// times a node), so a hostile formula calling it in a loop spent
    /// minutes within a budget meant for seconds.
    pub fn work_units(self) -> u64 {
        match self {
            Func::Pow => POW_UNITS,
            _ => 0,
        }
    }

    /// Looks a function up by name.
    pub fn parse(name: &str) -> Option<Func> {
        FUNCS.iter().find(|s| s.name == name).map(|s| s.func)
    }

    /// Every function name, in the table's order, for "did you mean" hints.
    pub fn names() -> impl Iterator<Item = &'static str> {
        FUNCS.iter().map(|s| s.name)
    }
}

/// The most arguments of a function with an [`Op`] (the interpreter reads them
/// into an array of this size).
pub const MAX_OP_ARGS: usize = 3;

/// What one `pow` spends ([`Func::work_units`]).
pub const POW_UNITS: u64 = 256;

const ONE_VALUE: &[Carrier] = &[Carrier::Value];

/// Every built-in function, in the order of [`Func`].
pub const FUNCS: [FuncSpec; 43] = [
    FuncSpec {
        func: Func::Min,
        name: "min",
        arity: (1, usize::MAX),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::Max,
        name: "max",
        arity: (1, usize::MAX),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::Abs,
        name: "abs",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Number], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::Number],
            run: abs,
            emit: Emit::Rt {
                text: "abs({0})",
                args: &[Carrier::Num],
                ty: Carrier::Num,
            },
        }),
    },
    FuncSpec {
        func: Func::Clamp,
        name: "clamp",
        arity: (3, 3),
        signature: Signature::Fixed(
            &[Param::Number, Param::Number, Param::Number],
            Returns::Number,
        ),
        op: Some(Op {
            reads: &[ArgRead::Number, ArgRead::Number, ArgRead::Number],
            run: clamp,
            emit: Emit::Rt {
                text: "clamp({0}, {1}, {2})?",
                args: &[Carrier::Num, Carrier::Num, Carrier::Num],
                ty: Carrier::Num,
            },
        }),
    },
    FuncSpec {
        func: Func::Round,
        name: "round",
        arity: (2, 3),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::Floor,
        name: "floor",
        arity: (2, 2),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::Ceil,
        name: "ceil",
        arity: (2, 2),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::Pow,
        name: "pow",
        arity: (2, 2),
        signature: Signature::Fixed(&[Param::Number, Param::Number], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::Approx, ArgRead::Approx],
            run: pow,
            // Carried as a number: its 28 places times a rate are more than
            // a decimal holds, an exact fraction (`num::mul`).
            emit: Emit::Rt {
                text: "Num::Dec(pow({0}, {1})?)",
                args: &[Carrier::Num, Carrier::Num],
                ty: Carrier::Num,
            },
        }),
    },
    FuncSpec {
        func: Func::Scale,
        name: "scale",
        arity: (2, 3),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::ScaleBy,
        name: "scale_by",
        arity: (4, 5),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::Lookup,
        name: "lookup",
        arity: (2, usize::MAX),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::PeriodRow,
        name: "period_row",
        arity: (2, 2),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::IsMissing,
        name: "is_missing",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Any], Returns::Bool),
        // Lowering makes every call `CodeKind::IsMissing`: the generic call is never written.
        op: Some(Op {
            reads: &[ArgRead::Value],
            run: is_missing,
            emit: Emit::Call,
        }),
    },
    FuncSpec {
        func: Func::IsNull,
        name: "is_null",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Any], Returns::Bool),
        op: Some(Op {
            reads: &[ArgRead::Value],
            run: is_null,
            emit: Emit::Rt {
                text: "({0} == &Value::Null)",
                args: ONE_VALUE,
                ty: Carrier::Bool,
            },
        }),
    },
    FuncSpec {
        func: Func::Coalesce,
        name: "coalesce",
        arity: (2, usize::MAX),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::Date,
        name: "date",
        arity: (1, 1),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::Month,
        name: "month",
        arity: (1, 1),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::DaysInMonth,
        name: "days_in_month",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::MonthOrDate], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::Present],
            run: calendar::days_in_month,
            emit: Emit::Rt {
                text: "days_in_month({0})?",
                args: ONE_VALUE,
                ty: Carrier::Dec,
            },
        }),
    },
    FuncSpec {
        func: Func::DaysBetween,
        name: "days_between",
        arity: (2, 2),
        signature: Signature::Fixed(&[Param::Date, Param::Date], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::Date, ArgRead::Date],
            run: calendar::days_between,
            emit: Emit::Call,
        }),
    },
    FuncSpec {
        func: Func::Age,
        name: "age",
        arity: (2, 2),
        signature: Signature::Fixed(&[Param::Date, Param::Date], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::Date, ArgRead::Date],
            run: calendar::age,
            emit: Emit::Rt {
                text: "age({0}, {1})?",
                args: &[Carrier::Value, Carrier::Value],
                ty: Carrier::Dec,
            },
        }),
    },
    FuncSpec {
        func: Func::AddMonths,
        name: "add_months",
        arity: (2, 2),
        signature: Signature::Fixed(&[Param::MonthOrDate, Param::Number], Returns::First),
        op: Some(Op {
            reads: &[ArgRead::Present, ArgRead::Decimal],
            run: calendar::add_months,
            emit: Emit::Rt {
                text: "add_months({0}, {1})?",
                args: &[Carrier::Value, Carrier::Num],
                ty: Carrier::Value,
            },
        }),
    },
    FuncSpec {
        func: Func::AddYears,
        name: "add_years",
        arity: (2, 2),
        signature: Signature::Fixed(&[Param::Date, Param::Number], Returns::Date),
        op: Some(Op {
            reads: &[ArgRead::Date, ArgRead::Decimal],
            run: calendar::add_years,
            emit: Emit::Rt {
                text: "add_years({0}, {1})?",
                args: &[Carrier::Value, Carrier::Num],
                ty: Carrier::Value,
            },
        }),
    },
    FuncSpec {
        func: Func::MonthOf,
        name: "month_of",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Date], Returns::Month),
        op: Some(Op {
            reads: &[ArgRead::Date],
            run: calendar::month_of,
            emit: Emit::Rt {
                text: "month_of({0})?",
                args: ONE_VALUE,
                ty: Carrier::Value,
            },
        }),
    },
    FuncSpec {
        func: Func::Day,
        name: "day",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Date], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::Date],
            run: calendar::day,
            emit: Emit::Rt {
                text: "day({0})?",
                args: ONE_VALUE,
                ty: Carrier::Dec,
            },
        }),
    },
    FuncSpec {
        func: Func::Year,
        name: "year",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::MonthOrDate], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::Present],
            run: calendar::year,
            emit: Emit::Rt {
                text: "year({0})?",
                args: ONE_VALUE,
                ty: Carrier::Dec,
            },
        }),
    },
    FuncSpec {
        func: Func::Count,
        name: "count",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::ListOrMap], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::Value],
            run: count,
            emit: Emit::Rt {
                text: "count({0})?",
                args: ONE_VALUE,
                ty: Carrier::Dec,
            },
        }),
    },
    FuncSpec {
        func: Func::Sum,
        name: "sum",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Numbers], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::List],
            run: sum,
            emit: Emit::Rt {
                text: "sum({0})?",
                args: ONE_VALUE,
                ty: Carrier::Num,
            },
        }),
    },
    FuncSpec {
        func: Func::Any,
        name: "any",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Booleans], Returns::Bool),
        op: Some(Op {
            reads: &[ArgRead::List],
            run: any,
            emit: Emit::Rt {
                text: "any_all({0}, true)?",
                args: ONE_VALUE,
                ty: Carrier::Bool,
            },
        }),
    },
    FuncSpec {
        func: Func::All,
        name: "all",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Booleans], Returns::Bool),
        op: Some(Op {
            reads: &[ArgRead::List],
            run: all,
            emit: Emit::Rt {
                text: "any_all({0}, false)?",
                args: ONE_VALUE,
                ty: Carrier::Bool,
            },
        }),
    },
    FuncSpec {
        func: Func::Get,
        name: "get",
        arity: (2, 2),
        signature: Signature::ByHand,
        op: Some(Op {
            reads: &[ArgRead::Unnoted, ArgRead::Present],
            run: get,
            emit: Emit::Rt {
                text: "get({0}, {1})?",
                args: &[Carrier::Value, Carrier::Value],
                ty: Carrier::Value,
            },
        }),
    },
    FuncSpec {
        func: Func::Keys,
        name: "keys",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Map], Returns::Keys),
        op: Some(Op {
            reads: &[ArgRead::Unnoted],
            run: keys,
            emit: Emit::Rt {
                text: "keys_values({0}, true)?",
                args: ONE_VALUE,
                ty: Carrier::Value,
            },
        }),
    },
    FuncSpec {
        func: Func::Values,
        name: "values",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Map], Returns::Values),
        op: Some(Op {
            reads: &[ArgRead::Unnoted],
            run: values,
            emit: Emit::Rt {
                text: "keys_values({0}, false)?",
                args: ONE_VALUE,
                ty: Carrier::Value,
            },
        }),
    },
    FuncSpec {
        func: Func::FindIndex,
        name: "find_index",
        arity: (1, 1),
        signature: Signature::Fixed(&[Param::Booleans], Returns::Number),
        op: Some(Op {
            reads: &[ArgRead::List],
            run: find_index,
            emit: Emit::Rt {
                text: "find_index({0})?",
                args: ONE_VALUE,
                ty: Carrier::Value,
            },
        }),
    },
    FuncSpec {
        func: Func::Rows,
        name: "rows",
        arity: (1, 1),
        signature: Signature::ByHand,
        op: None,
    },
    FuncSpec {
        func: Func::RangeRow,
        name: "range_row",
        arity: (2, 2),
        signature: Signature::ByHand,
        op: None,
    },
    text_fn(Func::Len, "len", &[Param::Text], Returns::Number, text::len),
    text_fn(
        Func::StartsWith,
        "starts_with",
        TWO_TEXTS,
        Returns::Bool,
        text::starts_with,
    ),
    text_fn(
        Func::EndsWith,
        "ends_with",
        TWO_TEXTS,
        Returns::Bool,
        text::ends_with,
    ),
    text_fn(
        Func::Contains,
        "contains",
        TWO_TEXTS,
        Returns::Bool,
        text::contains,
    ),
    text_fn(
        Func::Upper,
        "upper",
        &[Param::Text],
        Returns::Text,
        text::upper,
    ),
    text_fn(
        Func::Lower,
        "lower",
        &[Param::Text],
        Returns::Text,
        text::lower,
    ),
    text_fn(
        Func::Slice,
        "slice",
        &[Param::Text, Param::Number, Param::Number],
        Returns::Text,
        text::slice,
    ),
    text_fn(
        Func::ToDecimal,
        "to_decimal",
        &[Param::Text],
        Returns::Number,
        text::to_decimal,
    ),
];

const TWO_TEXTS: &[Param] = &[Param::Text, Param::Text];

/// A function on texts (and whole numbers): every argument read present,
/// run through `compiled::rt::call` in generated code.
const fn text_fn(
    func: Func,
    name: &'static str,
    params: &'static [Param],
    returns: Returns,
    run: fn(&[Value]) -> Result<Value, String>,
) -> FuncSpec {
    const PRESENT: [ArgRead; MAX_OP_ARGS] = [ArgRead::Present; MAX_OP_ARGS];
    let reads: &'static [ArgRead] = match params.len() {
        1 => &[ArgRead::Present],
        2 => &[ArgRead::Present, ArgRead::Present],
        _ => &PRESENT,
    };
    FuncSpec {
        func,
        name,
        arity: (params.len(), params.len()),
        signature: Signature::Fixed(params, returns),
        op: Some(Op {
            reads,
            run,
            emit: Emit::Call,
        }),
    }
}

// INVARIANT: each entry sits at the index of its variant, so `Func::spec`
// is an index; a misplaced entry does not compile.
const _: () = {
    let mut i = 0;
    while i < FUNCS.len() {
        assert!(
            FUNCS[i].func as usize == i,
            "FUNCS is not in the order of Func"
        );
        i += 1;
    }
};

// The operations, on arguments as their `reads` give them. The interpreter has
// checked each argument's kind, so the catch-all arms are never taken; they
// fault rather than panic.

fn abs(a: &[Value]) -> Result<Value, String> {
    match a {
        [x] => x.as_num().map(|n| Value::from_num(n.abs())),
        _ => None,
    }
    .ok_or_else(|| bad_arguments("abs"))
}

fn clamp(a: &[Value]) -> Result<Value, String> {
    let num = |v: &Value| v.as_num().ok_or_else(|| bad_arguments("clamp"));
    match a {
        [x, lo, hi] => ops::clamp(num(x)?, num(lo)?, num(hi)?).map(Value::from_num),
        _ => Err(bad_arguments("clamp")),
    }
}

fn pow(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::Number(x), Value::Number(y)] => ops::pow(*x, *y).map(Value::Number),
        _ => Err(bad_arguments("pow")),
    }
}

fn is_missing(a: &[Value]) -> Result<Value, String> {
    match a {
        [v] => Ok(Value::Bool(v.is_missing())),
        _ => Err(bad_arguments("is_missing")),
    }
}

fn is_null(a: &[Value]) -> Result<Value, String> {
    match a {
        [v] => Ok(Value::Bool(*v == Value::Null)),
        _ => Err(bad_arguments("is_null")),
    }
}

fn count(a: &[Value]) -> Result<Value, String> {
    match a {
        [v] => ops::count(v).map(Value::Number),
        _ => Err(bad_arguments("count")),
    }
}

fn sum(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::List(items)] => ops::sum(items).map(Value::from_num),
        _ => Err(bad_arguments("sum")),
    }
}

fn any(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::List(items)] => ops::any_all(items, true).map(Value::Bool),
        _ => Err(bad_arguments("any")),
    }
}

fn all(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::List(items)] => ops::any_all(items, false).map(Value::Bool),
        _ => Err(bad_arguments("all")),
    }
}

fn get(a: &[Value]) -> Result<Value, String> {
    match a {
        [map, key] => ops::get(map, key),
        _ => Err(bad_arguments("get")),
    }
}

fn keys(a: &[Value]) -> Result<Value, String> {
    match a {
        [map] => ops::keys_values(map, true),
        _ => Err(bad_arguments("keys")),
    }
}

fn values(a: &[Value]) -> Result<Value, String> {
    match a {
        [map] => ops::keys_values(map, false),
        _ => Err(bad_arguments("values")),
    }
}

fn find_index(a: &[Value]) -> Result<Value, String> {
    match a {
        [Value::List(items)] => ops::find_index(items),
        _ => Err(bad_arguments("find_index")),
    }
}

#[cfg(test)]
mod tests;
