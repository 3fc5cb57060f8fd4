//! The rulebook bands@1#d9905948d6ee, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "bands@1#d9905948d6ee",
    fingerprint: "c89b63bc397cc28e75775e1a788dd1d732df62246d4baa01a8abbe627e7a34f0",
    run,
};

static K0: LazyLock<Value> = LazyLock::new(|| text("up"));
const K1: Decimal = Decimal::from_parts(12, 0, 0, false, 0);
const K2: Decimal = Decimal::from_parts(1, 0, 0, false, 0);

fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    // Budget units the walker could spend on what this code computes.
    let mut spent: u64 = 0;
    let mut s0: Option<Decimal> = None; // tax_to_date
    let mut s1: Option<Num> = None; // whole_year
    // check 1
    if s0.is_none() { // tax_to_date
        spent += 40;
        s0 = Some(round(if { let l = &x[2]; let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { scale_by(rb, facts, 0, Num::Dec(number(&x[0])?), div_dec(number(&x[1])?, K1)?, 0, RoundingMode::Up)? } else { scale_by(rb, facts, 0, Num::Dec(number(&x[0])?), div_dec(number(&x[1])?, K1)?, 0, RoundingMode::HalfEven)? }, 2, RoundingMode::Down)?);
    }
    if s1.is_none() { // whole_year
        spent += 12;
        s1 = Some(scale_by(rb, facts, 0, Num::Dec(number(&x[0])?), Num::Dec(K2), 0, RoundingMode::HalfUp)?);
    }
        let mut clauses = clauses(rb, 0)?;
        let mut object = Vec::with_capacity(2);
        object.push((Arc::from("tax_to_date"), { spent += 2; answer_dec(s0?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("whole_year"), { spent += 2; answer_num(s1?, Format::Decimal, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 0, object);
    None
}
