//! The rulebook roads@1#31548a888c48, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "roads@1#31548a888c48",
    fingerprint: "ab9ef202b3383a809a0f747fa113d4a2ae93c1c055d10325015ae2d50a22746d",
    run,
};

const K0: Decimal = Decimal::from_parts(99, 0, 0, false, 0);
const K1: Decimal = Decimal::from_parts(3, 0, 0, false, 0);
const K2: Decimal = Decimal::from_parts(125, 0, 0, false, 1);
const K3: Decimal = Decimal::from_parts(100, 0, 0, false, 0);
const K4: Decimal = Decimal::from_parts(20, 0, 0, false, 1);
const K5: Decimal = Decimal::from_parts(200, 0, 0, false, 2);
const K6: Decimal = Decimal::from_parts(0, 0, 0, false, 0);
const K7: Decimal = Decimal::from_parts(2, 0, 0, false, 0);
static K8: LazyLock<Value> = LazyLock::new(|| text("a"));
static K9: LazyLock<Value> = LazyLock::new(|| text("b"));
const K10: Decimal = Decimal::from_parts(7, 0, 0, false, 0);

/// The steps of one item of group `each`.
struct G0 {
    s0: Num,
    s1: Decimal,
}

fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    // Budget units the walker could spend on what this code computes.
    let mut spent: u64 = 0;
    let mut s0: Option<Num> = None; // third
    let mut s1: Option<Decimal> = None; // third_rounded
    let mut s2: Option<Num> = None; // percent
    let mut s3: Option<Decimal> = None; // tie
    let mut s4: Option<Decimal> = None; // bigger
    let mut s5: Option<Value> = None; // fallback
    let mut s6: Option<Decimal> = None; // guarded
    let mut s9: Option<Value> = None; // by_kind
    let mut s10: Option<Decimal> = None; // when_positive
    let mut s12: Option<Num> = None; // doubled
    let mut s13: Option<Decimal> = None; // total
    let mut s14: Option<Decimal> = None; // positive_cents
    let mut s15: Option<Decimal> = None; // rated
    let mut s16: Option<Decimal> = None; // abs_cents
    // check 1
    spent += 6;
    if (number(&x[0])? == K0) {
        return None;
    }
    // check 2
    if s0.is_none() { // third
        spent += 6;
        s0 = Some(div_dec(number(&x[0])?, K1)?);
    }
    if s1.is_none() { // third_rounded
        spent += 6;
        s1 = Some(round(mul(s0?, Num::Dec(K1))?, 2, RoundingMode::HalfEven)?);
    }
    if s2.is_none() { // percent
        spent += 10;
        s2 = Some(div_dec(mul_dec(number(&x[0])?, K2)?, K3)?);
    }
    if s3.is_none() { // tie
        spent += 8;
        s3 = Some(better_dec(better_dec(K4, K5, false), number(&x[0])?, false));
    }
    if s4.is_none() { // bigger
        spent += 10;
        s4 = Some(sub_dec(better_dec(number(&x[0])?, K5, true), K6)?);
    }
    if s5.is_none() { // fallback
        spent += 10;
        s5 = Some({ let c = x[1].clone(); if !c.is_missing() { c } else { Value::Number(mul_dec(number(&x[0])?, K7)?) }});
    }
    if s6.is_none() { // guarded
        spent += 14;
        s6 = Some(if (x[1]).is_missing() { K6 } else { mul_dec(number(&x[1])?, K7)? });
    }
    if s9.is_none() { // by_kind
        spent += 12;
        s9 = Some({ let m = &x[2]; spent += text_units(m); if matches(m, &(*K8))? { x[0].clone() } else if matches(m, &(*K9))? { value(neg(Num::Dec(number(&x[0])?))) } else { Value::Number(K6) } });
    }
    if s10.is_none() { // when_positive
        spent += 18;
        s10 = Some(if (number(&x[0])? > K6) { round(div_dec(number(&x[0])?, K10)?, 3, RoundingMode::Down)? } else { sub_dec(K6, number(&x[0])?)? });
    }
    if s12.is_none() { // doubled
        spent += 18;
        s12 = Some({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[3])?.iter() { spent += 12; if BinOp::Gt.holds(cmp_num(num(&(*l0))?, Num::Dec(K6))?) { out.push(value(mul(num(&(*l0))?, Num::Dec(K7))?)); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? });
    }
    spent += 2;
    // group each
    let go0: Value = x[3].clone();
    let gl0 = items(&go0)?;
    let mut g0: Vec<G0> = Vec::with_capacity(gl0.len());
    for it in gl0.iter() {
        spent += 14;
        let i0: Num = div(num(&(*it))?, Num::Dec(number(&x[0])?))?;
        let i1: Decimal = round(i0, 2, RoundingMode::HalfUp)?;
        g0.push(G0 { s0: i0, s1: i1 });
    }
    if s13.is_none() { // total
        spent += 6;
        s13 = Some({ spent += 2 * g0.len() as u64; let mut t = Decimal::ZERO; for r in g0.iter() { t = add_dec(t, r.s1)?; } t });
    }
    if s14.is_none() { // positive_cents
        spent += 22;
        s14 = Some({ let mut t = Decimal::ZERO; for r in g0.iter() { spent += 16; if BinOp::Gt.holds(cmp_num(r.s0, Num::Dec(K6))?) { t = add_dec(t, mul_dec(r.s1, K7)?)?; } } t });
    }
    if s16.is_none() { // abs_cents
        spent += 20;
        s16 = Some({ let mut t = Decimal::ZERO; for r in g0.iter() { spent += 14; if BinOp::Gt.holds(cmp_num(r.s0, Num::Dec(K6))?) { t = add_dec(t, dec_of(abs(Num::Dec(r.s1)))?)?; } } t });
    }
    if s15.is_none() { // rated
        spent += 10;
        s15 = Some(mul_div_round(number(&x[0])?, K2, K3, 1, RoundingMode::HalfEven)?);
    }
        let mut clauses = clauses(rb, 1)?;
        let mut object = Vec::with_capacity(13);
        object.push((Arc::from("third_rounded"), { spent += 2; answer_dec(s1?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("percent"), { spent += 2; answer_num(s2?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("tie"), { spent += 2; answer_dec(s3?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("bigger"), { spent += 2; answer_dec(s4?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("fallback"), { spent += 2; answer(&(*s5.as_ref()?), Format::Decimal, &clauses)? }));
        object.push((Arc::from("guarded"), { spent += 2; answer_dec(s6?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("by_kind"), { spent += 2; answer(&(*s9.as_ref()?), Format::Decimal, &clauses)? }));
        object.push((Arc::from("when_positive"), { spent += 2; answer_dec(s10?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("doubled"), { spent += 2; answer_num(s12?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("total"), { spent += 2; answer_dec(s13?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("positive_cents"), { spent += 2; answer_dec(s14?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("abs_cents"), { spent += 2; answer_dec(s16?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("rated"), { spent += 2; answer_dec(s15?, Format::Decimal, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 0, object);
    None
}
