//! The rulebook lang@1#9b90b0a487e9, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "lang@1#9b90b0a487e9",
    fingerprint: "38dff4dc5b6cd4c72e23926956137c8dd2e810db108af9110f7da6ac45dfeb6f",
    run,
};

const K0: Decimal = Decimal::from_parts(100, 0, 0, false, 0);
const K1: Decimal = Decimal::from_parts(10, 0, 0, false, 0);
const K2: Decimal = Decimal::from_parts(0, 0, 0, false, 0);
const K3: Decimal = Decimal::from_parts(20, 0, 0, false, 0);
const K4: Decimal = Decimal::from_parts(2, 0, 0, false, 0);
const K5: Decimal = Decimal::from_parts(1, 0, 0, false, 1);
const K6: Decimal = Decimal::from_parts(1, 0, 0, false, 0);
static K7: LazyLock<Value> = LazyLock::new(|| text("B"));
static K8: LazyLock<Value> = LazyLock::new(|| text("C"));
const K9: Decimal = Decimal::from_parts(3, 0, 0, false, 0);
static K10: LazyLock<Value> = LazyLock::new(|| text("A"));
const K11: Decimal = Decimal::from_parts(12, 0, 0, false, 2);
const K12: Decimal = Decimal::from_parts(5, 0, 0, false, 2);
static K13: LazyLock<Value> = LazyLock::new(|| text("D"));
static K14: LazyLock<Value> = LazyLock::new(|| text("E"));
static K15: LazyLock<Value> = LazyLock::new(|| text("F"));
const K16: Decimal = Decimal::from_parts(2, 0, 0, false, 1);
const K17: Decimal = Decimal::from_parts(1000, 0, 0, false, 0);
static K18: LazyLock<Value> = LazyLock::new(|| text("S"));
static K19: LazyLock<Value> = LazyLock::new(|| text("none"));
static K20: LazyLock<Value> = LazyLock::new(|| text("K"));
static K21: LazyLock<Value> = LazyLock::new(|| text("T"));
const K22: Decimal = Decimal::from_parts(9, 0, 0, false, 0);

/// The steps of one item of group `parts`.
struct G0 {
    s0: Value,
}

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
    let mut s4: Option<Decimal> = None; // category_rate
    let mut s5: Option<bool> = None; // reduced
    let mut s6: Option<bool> = None; // standard
    let mut s7: Option<bool> = None; // small_x
    let mut s8: Option<Num> = None; // capped
    let mut s9: Option<Num> = None; // weighted
    let mut s10: Option<Value> = None; // first_big
    let mut s11: Option<Num> = None; // doubled_excess
    let mut s12: Option<Value> = None; // code_region
    let mut s13: Option<Value> = None; // code_amount
    let mut s14: Option<Value> = None; // code_suffix
    let mut s15: Option<bool> = None; // code_flag
    let mut s16: Option<Decimal> = None; // tax_allowance
    let mut s17: Option<Value> = None; // tax_region
    let mut s18: Option<Decimal> = None; // relief
    let mut s19: Option<bool> = None; // x_listed
    let mut s20: Option<bool> = None; // x_not_big
    let mut s21: Option<bool> = None; // letter_used
    // check 1
    spent += 2;
    if truth(&x[6])? {
    if s18.is_none() { // relief
        spent += 44;
        s18 = Some(round(if (number(&x[0])? <= K0) { div_dec(number(&x[0])?, K1)? } else { better_num(Num::Dec(K2), sub(Num::Dec(K3), div_dec(number(&x[0])?, K1)?)?, true)? }, 2, RoundingMode::HalfUp)?);
        let _ = (number(&x[0])? <= K0);
        let _ = BinOp::Gt.holds(cmp_num(div_dec(number(&x[0])?, number(&x[5])?)?, Num::Dec(K0))?);
    }
    spent += 2;
    // group parts
    let go0: Value = x[2].clone();
    let gl0 = items(&go0)?;
    let mut g0: Vec<G0> = Vec::with_capacity(gl0.len());
    for it in gl0.iter() {
        spent += 18;
        let i0: Value = if BinOp::Gt.holds(cmp_num(num(&(*it))?, Num::Dec(K4))?) { (*it).clone() } else { Value::Number(K2) };
        let _ = BinOp::Gt.holds(cmp_num(num(&(*it))?, Num::Dec(K4))?);
        g0.push(G0 { s0: i0 });
    }
    spent += 4;
    spent += 88;
    // group band_lines, unrolled
    let gi1 = constant_items(rb, 1)?;
    if gi1.len() != 2 {
        return None;
    }
    let g1r0s0: bool = true;
    let g1r0s1: Decimal = mul_dec(number(&x[0])?, K5)?;
    let _ = (true && BinOp::Gt.holds(cmp_num(div_dec(number(&x[0])?, number(&x[5])?)?, Num::Dec(K2))?));
    let g1r1s0: bool = false;
    let g1r1s1: Decimal = K2;
        let mut clauses = clauses(rb, 0)?;
        let mut object = Vec::with_capacity(3);
        object.push((Arc::from("relief"), { spent += 2; answer_dec(s18?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("kept"), { spent += 6; answer_dec({ spent += 2 * g0.len() as u64; let mut t = Decimal::ZERO; for r in g0.iter() { t = add_dec(t, number(&r.s0)?)?; } t }, Format::Decimal, &clauses)? }));
        object.push((Arc::from("band_tax"), { spent += 6; answer_dec({ spent += 4; let mut t = Decimal::ZERO; t = add_dec(t, g1r0s1)?; t = add_dec(t, g1r1s1)?; t }, Format::Decimal, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 0, object);
    }
    // check 2
    spent += 2;
    if truth(&x[7])? {
    if s19.is_none() { // x_listed
        spent += 16;
        s19 = Some({ let l0: &Value = &x[0]; { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l1 in items(&x[2])?.iter() { spent += 6; { out.push(Value::Bool({ let l = &(*l0); let r = &(*l1); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) })); } } Value::List(out.into()) }); spent += units(&listed0); any_all(listed0, true)? } });
    }
    if s20.is_none() { // x_not_big
        spent += 28;
        s20 = Some({ let l0: &Value = &x[0]; !{ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l1 in items(&({ let mut out: Vec<Value> = Vec::new(); for l1 in items(&x[2])?.iter() { spent += 8; if BinOp::Gt.holds(cmp_num(num(&(*l1))?, Num::Dec(K4))?) { out.push((*l1).clone()); } } Value::List(out.into()) }))?.iter() { spent += 6; { out.push(Value::Bool({ let l = &(*l0); let r = &(*l1); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) })); } } Value::List(out.into()) }); spent += units(&listed0); any_all(listed0, true)? } });
    }
    if s21.is_none() { // letter_used
        spent += 30;
        s21 = Some({ let l0: &Value = &x[1]; { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l1 in items(&({ let mut out: Vec<Value> = Vec::new(); for l1 in items(&x[2])?.iter() { spent += 12; { out.push(if BinOp::Gt.holds(cmp_num(num(&(*l1))?, Num::Dec(K6))?) { (*K7).clone() } else { (*K8).clone() }); } } Value::List(out.into()) }))?.iter() { spent += 6; { out.push(Value::Bool({ let l = &(*l0); let r = &(*l1); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) })); } } Value::List(out.into()) }); spent += units(&listed0); any_all(listed0, true)? } });
    }
        let mut clauses = clauses(rb, 1)?;
        let mut object = Vec::with_capacity(3);
        object.push((Arc::from("x_listed"), { spent += 2; answer(&(Value::Bool(s19?)), Format::Bool, &clauses)? }));
        object.push((Arc::from("x_not_big"), { spent += 2; answer(&(Value::Bool(s20?)), Format::Bool, &clauses)? }));
        object.push((Arc::from("letter_used"), { spent += 2; answer(&(Value::Bool(s21?)), Format::Bool, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 1, object);
    }
    // check 3
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
        s3 = Some(round(div_dec(number(&x[0])?, K9)?, 2, RoundingMode::HalfDown)?);
    }
    if s4.is_none() { // category_rate
        spent += 12;
        s4 = Some({ let m = &x[1]; spent += text_units(m); if matches(m, &(*K10))? || matches(m, &(*K7))? { K11 } else if matches(m, &(*K8))? { K12 } else if matches(m, &(*K13))? || matches(m, &(*K14))? || matches(m, &(*K15))? { K2 } else { K16 } });
    }
    if s5.is_none() { // reduced
        spent += 8;
        s5 = Some({ let m = &x[1]; spent += text_units(m); if matches(m, &(*K8))? || matches(m, &(*K13))? { true } else { false } });
    }
    if s6.is_none() { // standard
        spent += 8;
        s6 = Some({ let m = &x[1]; spent += text_units(m); if matches(m, &(*K8))? || matches(m, &(*K13))? || matches(m, &(*K14))? || matches(m, &(*K15))? { false } else { true } });
    }
    if s7.is_none() { // small_x
        spent += 12;
        s7 = Some({ let m = &(Value::Number(mul_dec(number(&x[0])?, K17)?)); spent += text_units(m); if matches(m, &(Value::Number(K6)))? || matches(m, &(Value::Number(K4)))? || matches(m, &(Value::Number(K9)))? { true } else { false } });
    }
    if s8.is_none() { // capped
        spent += 26;
        s8 = Some({ let l0: &Value = &(Value::Number(better_dec(number(&x[0])?, K0, false))); { let l1: &Value = &(Value::Number(s4?)); sub(mul(num(&(*l0))?, num(&(*l1))?)?, div(num(&(*l0))?, Num::Dec(K0))?)? } });
    }
    if s11.is_none() { // doubled_excess
        spent += 30;
        s11 = Some({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[2])?.iter() { spent += 24; { out.push(value({ let l1: &Value = &(value(sub(num(&(*l0))?, Num::Dec(K6))?)); if BinOp::Gt.holds(cmp_num(num(&(*l1))?, Num::Dec(K2))?) { mul(num(&(*l1))?, Num::Dec(K4))? } else { Num::Dec(K2) } })); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? });
    }
    if s12.is_none() { // code_region
        spent += 26;
        s12 = Some(if (truth(&({ let arg0 = x[3].clone(); spent += text_units(&arg0); let arg1 = (*K18).clone(); spent += text_units(&arg1); let made = call(Func::StartsWith, [arg0, arg1])?; spent += units(&made); made }))? || truth(&({ let arg0 = x[3].clone(); spent += text_units(&arg0); let arg1 = (*K8).clone(); spent += text_units(&arg1); let made = call(Func::StartsWith, [arg0, arg1])?; spent += units(&made); made }))?) { { let arg0 = x[3].clone(); spent += text_units(&arg0); let arg1 = Value::Number(K2); spent += text_units(&arg1); let arg2 = Value::Number(K6); spent += text_units(&arg2); let made = call(Func::Slice, [arg0, arg1, arg2])?; spent += units(&made); made } } else { (*K19).clone() });
    }
    if s13.is_none() { // code_amount
        spent += 30;
        s13 = Some({ let l0: &Value = &({ let arg0 = x[3].clone(); spent += text_units(&arg0); let made = call(Func::Len, [arg0])?; spent += units(&made); made }); { let arg0 = { let arg0 = x[3].clone(); spent += text_units(&arg0); let arg1 = Value::Number(if { let l = &(*s12.as_ref()?); let r = &(*K19); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { K2 } else { K6 }); spent += text_units(&arg1); let arg2 = value(sub(num(&(*l0))?, Num::Dec(K6))?); spent += text_units(&arg2); let made = call(Func::Slice, [arg0, arg1, arg2])?; spent += units(&made); made }; spent += text_units(&arg0); let made = call(Func::ToDecimal, [arg0])?; spent += units(&made); made } });
    }
    if s14.is_none() { // code_suffix
        spent += 18;
        s14 = Some({ let arg0 = { let arg0 = x[3].clone(); spent += text_units(&arg0); let arg1 = value(sub(num(&({ let arg0 = x[3].clone(); spent += text_units(&arg0); let made = call(Func::Len, [arg0])?; spent += units(&made); made }))?, Num::Dec(K6))?); spent += text_units(&arg1); let arg2 = { let arg0 = x[3].clone(); spent += text_units(&arg0); let made = call(Func::Len, [arg0])?; spent += units(&made); made }; spent += text_units(&arg2); let made = call(Func::Slice, [arg0, arg1, arg2])?; spent += units(&made); made }; spent += text_units(&arg0); let made = call(Func::Lower, [arg0])?; spent += units(&made); made });
    }
    if s15.is_none() { // code_flag
        spent += 16;
        s15 = Some((truth(&({ let arg0 = { let arg0 = x[3].clone(); spent += text_units(&arg0); let made = call(Func::Upper, [arg0])?; spent += units(&made); made }; spent += text_units(&arg0); let arg1 = (*K20).clone(); spent += text_units(&arg1); let made = call(Func::Contains, [arg0, arg1])?; spent += units(&made); made }))? || truth(&({ let arg0 = x[3].clone(); spent += text_units(&arg0); let arg1 = (*K21).clone(); spent += text_units(&arg1); let made = call(Func::EndsWith, [arg0, arg1])?; spent += units(&made); made }))?));
    }
    if s16.is_none() { // tax_allowance
        spent += 24;
        s16 = Some(add_dec(mul_dec(number(&(field(&x[4], 1)?))?, K1)?, if { let l = &(field(&x[4], 2)?); let r = &(*K21); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { K2 } else { K22 })?);
    }
    if s17.is_none() { // tax_region
        spent += 8;
        s17 = Some({ let c = field(&x[4], 0)?; if !c.is_missing() { c } else { let c = (*K19).clone(); if !c.is_missing() { c } else { Value::Absent }}});
    }
    if s9.is_none() { // weighted
        spent += 12;
        s9 = Some({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for (i0, l1) in items(&x[2])?.iter().enumerate() { spent += 6; let l0: &Value = &Value::Number(Decimal::from(i0)); { out.push(value(mul(num(&(*l0))?, num(&(*l1))?)?)); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? });
    }
    if s10.is_none() { // first_big
        spent += 20;
        s10 = Some({ let c = { let listed = &({ let mut out: Vec<Value> = Vec::new(); for (i0, l1) in items(&x[2])?.iter().enumerate() { spent += 8; let l0: &Value = &Value::Number(Decimal::from(i0)); if BinOp::Gt.holds(cmp_num(num(&(*l1))?, Num::Dec(K4))?) { out.push((*l0).clone()); } } Value::List(out.into()) }); spent += units(listed); extremum_of(listed, false)? }; if !c.is_missing() { c } else { Value::Number(neg_dec(K6)) }});
    }
        let mut clauses = clauses(rb, 2)?;
        let mut object = Vec::with_capacity(18);
        object.push((Arc::from("half_down"), { spent += 2; answer(&(*s0.as_ref()?), Format::Decimal, &clauses)? }));
        object.push((Arc::from("half_ceiling"), { spent += 2; answer_dec(s1?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("half_floor"), { spent += 2; answer_dec(s2?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("third_half_down"), { spent += 2; answer_dec(s3?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("category_rate"), { spent += 2; answer_dec(s4?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("reduced"), { spent += 2; answer(&(Value::Bool(s5?)), Format::Bool, &clauses)? }));
        object.push((Arc::from("standard"), { spent += 2; answer(&(Value::Bool(s6?)), Format::Bool, &clauses)? }));
        object.push((Arc::from("small_x"), { spent += 2; answer(&(Value::Bool(s7?)), Format::Bool, &clauses)? }));
        object.push((Arc::from("capped"), { spent += 2; answer_num(s8?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("doubled_excess"), { spent += 2; answer_num(s11?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("code_region"), { spent += 2; answer(&(*s12.as_ref()?), Format::Text, &clauses)? }));
        object.push((Arc::from("code_amount"), { spent += 2; answer(&(*s13.as_ref()?), Format::Decimal, &clauses)? }));
        object.push((Arc::from("code_suffix"), { spent += 2; answer(&(*s14.as_ref()?), Format::Text, &clauses)? }));
        object.push((Arc::from("code_flag"), { spent += 2; answer(&(Value::Bool(s15?)), Format::Bool, &clauses)? }));
        object.push((Arc::from("tax_allowance"), { spent += 2; answer_dec(s16?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("tax_region"), { spent += 2; answer(&(*s17.as_ref()?), Format::Text, &clauses)? }));
        object.push((Arc::from("weighted"), { spent += 2; answer_num(s9?, Format::Decimal, &clauses)? }));
        object.push((Arc::from("first_big"), { spent += 2; answer(&(*s10.as_ref()?), Format::Decimal, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 2, object);
    None
}
