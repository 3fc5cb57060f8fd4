//! The rulebook lists@1#d71723eacc22, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "lists@1#d71723eacc22",
    fingerprint: "b16a4c27b20a180047b69007ca03740b287cb297aea347f2c3e1fe5952cf227b",
    run,
};

const K0: Decimal = Decimal::from_parts(0, 0, 0, false, 0);
const K1: Decimal = Decimal::from_parts(100000, 0, 0, false, 0);
static K2: LazyLock<Value> = LazyLock::new(|| text("memo"));
const K3: Decimal = Decimal::from_parts(1, 0, 0, false, 0);
const K4: Decimal = Decimal::from_parts(2, 0, 0, false, 0);

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
    let mut s3: Option<Value> = None; // note_length
    let mut s4: Option<bool> = None; // whole
    let mut s5: Option<Decimal> = None; // kind
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
        s2 = Some({ let arg0 = &({ let arg0 = &x[1]; spent += text_units(&arg0); let made = keys_values(arg0, true)?; spent += units(&made); made }); spent += text_units(&arg0); count(arg0)? });
    }
    if s3.is_none() { // note_length
        spent += 6;
        s3 = Some({ let arg0 = { let arg0 = x[2].clone(); spent += text_units(&arg0); let made = call(Func::Upper, [arg0])?; spent += units(&made); made }; spent += text_units(&arg0); let made = call(Func::Len, [arg0])?; spent += units(&made); made });
    }
    if s4.is_none() { // whole
        spent += 12;
        s4 = Some({ let l = &({ let arg0 = x[2].clone(); spent += text_units(&arg0); let arg1 = Value::Number(K0); spent += text_units(&arg1); let arg2 = Value::Number(K1); spent += text_units(&arg2); let made = call(Func::Slice, [arg0, arg1, arg2])?; spent += units(&made); made }); let r = &x[2]; spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) });
    }
    if s5.is_none() { // kind
        spent += 8;
        s5 = Some({ let m = &x[2]; spent += text_units(m); if matches(m, &(*K2))? { K3 } else { K4 } });
    }
        let mut clauses = clauses(rb, 0)?;
        let mut object = Vec::with_capacity(6);
        object.push((Arc::from("total"), { spent += 2; answer_num(s0?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("largest"), { spent += 2; answer(&(*s1.as_ref()?), Format::Decimal, &clauses)? }));
        object.push((Arc::from("keys"), { spent += 2; answer_dec(s2?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("note_length"), { spent += 2; answer(&(*s3.as_ref()?), Format::Decimal, &clauses)? }));
        object.push((Arc::from("whole"), { spent += 2; answer(&(Value::Bool(s4?)), Format::Bool, &clauses)? }));
        object.push((Arc::from("kind"), { spent += 2; answer_dec(s5?, Format::Decimal, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 0, object);
    None
}
