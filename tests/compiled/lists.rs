//! The rulebook lists@1#ebfcd59e8eaf, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "lists@1#ebfcd59e8eaf",
    fingerprint: "0090f81fa22ffc785c67f9a50ca58025935b2c7a7a09d196c96a25246fcc161e",
    run,
};


fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    // Budget units the walker could spend on what this code computes.
    let mut spent: u64 = 0;
    let mut s0: Option<Num> = None; // total
    let mut s1: Option<Value> = None; // largest
    let mut s2: Option<Decimal> = None; // keys
    // check 1
    if s0.is_none() { // total
        spent += 4;
        s0 = Some({ let listed0 = &x[0]; spent += units(&listed0); sum(listed0)? });
    }
    if s1.is_none() { // largest
        spent += 4;
        s1 = Some({ let listed = &x[0]; spent += units(listed); extremum_of(listed, true)? });
    }
    if s2.is_none() { // keys
        spent += 6;
        s2 = Some(count(&({ let made = keys_values(&x[1], true)?; spent += units(&made); made }))?);
    }
        let mut clauses = clauses(rb, 0)?;
        let mut object = Vec::with_capacity(3);
        object.push((Arc::from("total"), { spent += 2; answer_num(s0?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("largest"), { spent += 2; answer(&(*s1.as_ref()?), Format::Decimal, &clauses)? }));
        object.push((Arc::from("keys"), { spent += 2; answer_dec(s2?, Format::Decimal, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 0, object);
    None
}
