//! Tests of parsing and printing expressions.

use super::*;
use crate::expr::print::print;

fn round_trip(text: &str) -> String {
    match parse_expr(text) {
        Ok(e) => print(&e),
        Err(e) => format!("error {}..{}: {}", e.span.start, e.span.end, e.message),
    }
}

#[test]
fn precedence_and_printing() {
    assert_eq!(round_trip("a + b * c"), "a + b * c");
    assert_eq!(round_trip("(a + b) * c"), "(a + b) * c");
    assert_eq!(round_trip("a - (b - c)"), "a - (b - c)");
    assert_eq!(round_trip("a - b - c"), "a - b - c");
    assert_eq!(round_trip("not a == b and c or d"), "not a == b and c or d");
    assert_eq!(round_trip("not (a and b)"), "not (a and b)");
    assert_eq!(round_trip("-row.rate * 2"), "-row.rate * 2");
    assert_eq!(
        round_trip("if x then 1 else 2 + 3"),
        "if x then 1 else 2 + 3"
    );
    assert_eq!(
        round_trip("min(a, round(b, 2, half_up)).c"),
        "min(a, round(b, 2, half_up)).c"
    );
    assert_eq!(round_trip("'retrieval' == task"), "\"retrieval\" == task");
    assert_eq!(round_trip("0.040"), "0.040");
    assert_eq!(round_trip("notable and iffy"), "notable and iffy");
    assert_eq!(
        round_trip("sum([g.v * 2 for g in gifts if g.b == h.id])"),
        "sum([g.v * 2 for g in gifts if g.b == h.id])"
    );
    assert_eq!(round_trip("[x for x in xs]"), "[x for x in xs]");
    assert_eq!(
        round_trip("[i for i ,x in xs if x]"),
        "[i for i, x in xs if x]"
    );
    assert_eq!(
        round_trip("[i for i, x, y in xs]"),
        "error 11..12: expected `in`"
    );
    assert_eq!(round_trip("income + index"), "income + index");
    assert_eq!(
        round_trip("match b { 'brut' => x + 1, 't1' => y, else => 0 } * 2"),
        "(match b { \"brut\" => x + 1, \"t1\" => y, else => 0 }) * 2"
    );
    assert!(round_trip("match b { 'a' => 1 }").contains("needs an `else` arm"));
}

#[test]
fn let_reaches_as_far_right_as_if() {
    assert_eq!(
        round_trip("let base = min(a, b);base * 2 + base"),
        "let base = min(a, b); base * 2 + base"
    );
    assert_eq!(round_trip("(let a = 1; a) * 2"), "(let a = 1; a) * 2");
    assert_eq!(
        round_trip("let a = 1; let b = a == 1; if b then a else 0"),
        "let a = 1; let b = a == 1; if b then a else 0"
    );
    assert_eq!(round_trip("letter + let_rate"), "letter + let_rate");
    assert_eq!(
        round_trip("let a = 1 a"),
        "error 10..11: expected `.field`, `;`, an operator"
    );
    assert_eq!(round_trip("let a == 1; a"), "error 6..7: expected `=`");
    assert!(round_trip("let = 1; 2").starts_with("error 4..5"));
}

#[test]
fn arms_of_several_literals_and_membership() {
    assert_eq!(
        round_trip("match b { 'a' | 'b' => 1, 2 | true => 2, else => 0 }"),
        "match b { \"a\" | \"b\" => 1, 2 | true => 2, else => 0 }"
    );
    assert_eq!(round_trip("x in ['A', 'B',]"), "x in [\"A\", \"B\"]");
    assert_eq!(round_trip("x  not   in [1]"), "x not in [1]");
    // Membership binds tighter than comparisons, looser than arithmetic.
    assert_eq!(round_trip("a + 1 in [2, 3]"), "a + 1 in [2, 3]");
    assert_eq!(round_trip("a == (b in [true])"), "a == (b in [true])");
    assert_eq!(round_trip("a == b in [true]"), "a == (b in [true])");
    assert_eq!(round_trip("(a == b) in [true]"), "(a == b) in [true]");
    assert_eq!(round_trip("not x in [1] and y"), "not x in [1] and y");
    assert_eq!(round_trip("index in [1]"), "index in [1]");
    assert_eq!(round_trip("notin in [1]"), "notin in [1]");
    // A syntax error names what may come next, where it is missing.
    assert_eq!(
        round_trip("match k { 'a', 'b' => 1, else => 0 }"),
        "error 13..14: expected `=>`, `|`"
    );
    // After a literal in brackets, a comprehension may go on too.
    assert_eq!(
        round_trip("k in ['a' 'b']"),
        "error 10..11: expected `,`, `.field`, `]`, `for`, an operator"
    );
    // Any list value: a name, its fields, a call, a comprehension.
    assert_eq!(round_trip("k  in  codes"), "k in codes");
    assert_eq!(round_trip("k not in row.codes"), "k not in row.codes");
    assert_eq!(round_trip("k in keys(m) and x"), "k in keys(m) and x");
    assert_eq!(
        round_trip("k + 1 in [a.n for a in rows if a.n > 1]"),
        "k + 1 in [a.n for a in rows if a.n > 1]"
    );
    assert_eq!(
        round_trip("k in [x]"),
        "error 7..8: expected `.field`, `for`, an operator"
    );
}

#[test]
fn spans_point_at_the_text() {
    let e = parse_expr("min(gross_pay, row.cap)").expect("parses");
    let ExprKind::Call(f, args) = &e.kind else {
        panic!("call expected")
    };
    assert_eq!((f.span.start, f.span.end), (0, 3));
    assert_eq!((args[0].span.start, args[0].span.end), (4, 13));
    let ExprKind::Field(_, field) = &args[1].kind else {
        panic!("field expected")
    };
    assert_eq!((field.span.start, field.span.end), (19, 22));
}

#[test]
fn syntax_errors_are_located() {
    assert_eq!(round_trip("a +"), "error 3..4: expected an expression");
    assert!(round_trip("a b").starts_with("error 2..3"));
    assert!(round_trip("if a then b").starts_with("error 11..12"));
}

#[test]
fn hostile_input_is_refused_without_recursion() {
    let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(round_trip(&deep).contains("more than the limit"));
    let deep = format!("{}1{}", "(".repeat(1000), ")".repeat(1000));
    assert!(round_trip(&deep).contains("nests more than 64"));
    let negs = format!("{}1", "-".repeat(1000));
    assert!(round_trip(&negs).contains("nests more than"));
    let ok = format!("{}1{}", "(".repeat(30), ")".repeat(30));
    assert_eq!(round_trip(&ok), "1");
    assert!(round_trip("99999999999999999999999999999999").contains("too many digits"));
}

/// The deepest nesting accepted parses whatever stack the caller has left:
/// the parser grows its own (the fuzzer found a load that overflowed after
/// the lowering's frames grew).
#[test]
fn deep_nesting_parses_on_a_small_stack() {
    let depth = 60;
    let text = format!(
        "{}1{}",
        "if true then (".repeat(depth),
        ") else 0".repeat(depth)
    );
    let parsed = std::thread::Builder::new()
        .stack_size(128 * 1024)
        .spawn(move || parse_expr(&text).map(|e| e.depth()))
        .expect("a thread")
        .join()
        .expect("no overflow");
    assert_eq!(parsed, Ok(depth + 1));
}
