//! The rulebook lang@1#4092fc0357d2, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::compiled::rt::*;
use bareme::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "lang@1#4092fc0357d2",
    fingerprint: "009b8f02503274bea3a623898b737ea4a9310dff7ac251a41c4fef52b1d453bb",
    run,
};

const K0: Decimal = Decimal::from_parts(3, 0, 0, false, 0);

fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    // Budget units the walker could spend on what this code computes.
    let mut spent: u64 = 0;
    let mut s0: Option<Value> = None; // ties_to_zero
    let mut s1: Option<Decimal> = None; // ties_up
    let mut s2: Option<Decimal> = None; // ties_down
    let mut s3: Option<Decimal> = None; // third_half_down
    // check 1
    if s0.is_none() { // ties_to_zero
        spent += 2;
        s0 = Some(round_value(x[0].clone(), 2, RoundingMode::HalfDown)?);
    }
    if s1.is_none() { // ties_up
        spent += 8;
        s1 = Some(round(Num::Dec(number(&x[0])?), 2, RoundingMode::HalfCeiling)?);
    }
    if s2.is_none() { // ties_down
        spent += 8;
        s2 = Some(round(Num::Dec(number(&x[0])?), 2, RoundingMode::HalfFloor)?);
    }
    if s3.is_none() { // third_half_down
        spent += 12;
        s3 = Some(round(div_dec(number(&x[0])?, K0)?, 2, RoundingMode::HalfDown)?);
    }
        let mut clauses = clauses(rb, 0)?;
        let mut object = serde_json::Map::with_capacity(4);
        object.insert("half_down".to_string(), { spent += 2; answer(&(*s0.as_ref()?), Format::Decimal, &clauses)? });
        object.insert("half_ceiling".to_string(), { spent += 2; answer_dec(s1?, Format::Decimal, &clauses)? });
        object.insert("half_floor".to_string(), { spent += 2; answer_dec(s2?, Format::Decimal, &clauses)? });
        object.insert("third_half_down".to_string(), { spent += 2; answer_dec(s3?, Format::Decimal, &clauses)? });
        if spent > budget(rb, facts) {
            return None;
        }
        return Some(Outcome::Answer(serde_json::Value::Object(object)));
    None
}
