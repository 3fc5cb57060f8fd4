//! The rulebook paie-fr@2026#09d1f77b680d, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "paie-fr@2026#09d1f77b680d",
    fingerprint: "7cb9351c66b9f4bb84cf7436f3ed279a2c984a9b57971eab484915701d96326b",
    run,
};

const K0: Decimal = Decimal::from_parts(4, 0, 0, false, 0);
const K1: Decimal = Decimal::from_parts(1, 0, 0, false, 0);
const K2: Decimal = Decimal::from_parts(0, 0, 0, false, 0);
const K3: Decimal = Decimal::from_parts(125, 0, 0, false, 2);
const K4: Decimal = Decimal::from_parts(15, 0, 0, false, 1);
const K5: Decimal = Decimal::from_parts(3, 0, 0, false, 0);
const K6: Decimal = Decimal::from_parts(400500, 0, 0, false, 2);
const K7: Decimal = Decimal::from_parts(15167, 0, 0, false, 2);
const K8: Decimal = Decimal::from_parts(7, 0, 0, false, 0);
const K9: Decimal = Decimal::from_parts(8, 0, 0, false, 0);
static K10: LazyLock<Value> = LazyLock::new(|| text("cadre"));
static K11: LazyLock<Value> = LazyLock::new(|| text("prevoyance_deces"));
const K12: Decimal = Decimal::from_parts(100, 0, 0, false, 0);
const K13: Decimal = Decimal::from_parts(9825, 0, 0, false, 4);
const K14: Decimal = Decimal::from_parts(1300, 0, 0, false, 2);
const K15: Decimal = Decimal::from_parts(690, 0, 0, false, 2);
const K16: Decimal = Decimal::from_parts(855, 0, 0, false, 2);
const K17: Decimal = Decimal::from_parts(40, 0, 0, false, 2);
const K18: Decimal = Decimal::from_parts(211, 0, 0, false, 2);
const K19: Decimal = Decimal::from_parts(525, 0, 0, false, 2);
const K20: Decimal = Decimal::from_parts(30, 0, 0, false, 2);
const K21: Decimal = Decimal::from_parts(50, 0, 0, false, 0);
const K22: Decimal = Decimal::from_parts(10, 0, 0, false, 2);
const K23: Decimal = Decimal::from_parts(50, 0, 0, false, 2);
const K24: Decimal = Decimal::from_parts(11, 0, 0, false, 0);
const K25: Decimal = Decimal::from_parts(400, 0, 0, false, 2);
const K26: Decimal = Decimal::from_parts(25, 0, 0, false, 2);
const K27: Decimal = Decimal::from_parts(315, 0, 0, false, 2);
const K28: Decimal = Decimal::from_parts(472, 0, 0, false, 2);
const K29: Decimal = Decimal::from_parts(864, 0, 0, false, 2);
const K30: Decimal = Decimal::from_parts(1295, 0, 0, false, 2);
const K31: Decimal = Decimal::from_parts(86, 0, 0, false, 2);
const K32: Decimal = Decimal::from_parts(129, 0, 0, false, 2);
const K33: Decimal = Decimal::from_parts(108, 0, 0, false, 2);
const K34: Decimal = Decimal::from_parts(162, 0, 0, false, 2);
const K35: Decimal = Decimal::from_parts(14, 0, 0, false, 2);
const K36: Decimal = Decimal::from_parts(21, 0, 0, false, 2);
const K37: Decimal = Decimal::from_parts(24, 0, 0, false, 3);
const K38: Decimal = Decimal::from_parts(36, 0, 0, false, 3);
const K39: Decimal = Decimal::from_parts(150, 0, 0, false, 2);
const K40: Decimal = Decimal::from_parts(55, 0, 0, false, 2);
const K41: Decimal = Decimal::from_parts(100, 0, 0, false, 2);
const K42: Decimal = Decimal::from_parts(16, 0, 0, false, 3);
const K43: Decimal = Decimal::from_parts(800, 0, 0, false, 2);
const K44: Decimal = Decimal::from_parts(680, 0, 0, false, 2);
const K45: Decimal = Decimal::from_parts(240, 0, 0, false, 2);
const K46: Decimal = Decimal::from_parts(970, 0, 0, false, 2);
const K47: Decimal = Decimal::from_parts(1131, 0, 0, false, 4);
const K48: Decimal = Decimal::from_parts(750000, 0, 0, false, 2);
const K49: Decimal = Decimal::from_parts(2, 0, 0, false, 0);
const K50: Decimal = Decimal::from_parts(182303, 0, 0, false, 2);
const K51: Decimal = Decimal::from_parts(3781, 0, 0, false, 4);
const K52: Decimal = Decimal::from_parts(3821, 0, 0, false, 4);
const K53: Decimal = Decimal::from_parts(2, 0, 0, false, 2);
const K54: Decimal = Decimal::from_parts(5, 0, 0, false, 1);
const K55: Decimal = Decimal::from_parts(175, 0, 0, false, 2);

fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    // Budget units the walker could spend on what this code computes.
    let mut spent: u64 = 0;
    let mut s0: Option<Decimal> = None; // days_of_month
    let mut s1: Option<bool> = None; // enters
    let mut s2: Option<bool> = None; // leaves
    let mut s3: Option<Decimal> = None; // days_present
    let mut s4: Option<Value> = None; // base_of_month
    let mut s5: Option<Value> = None; // hours_25
    let mut s6: Option<Value> = None; // hours_50
    let mut s7: Option<bool> = None; // has_overtime
    let mut s8: Option<Decimal> = None; // overtime_25
    let mut s9: Option<Decimal> = None; // overtime_50
    let mut s10: Option<Decimal> = None; // overtime_pay
    let mut s11: Option<Value> = None; // absence_hours
    let mut s12: Option<Decimal> = None; // absence
    let mut s13: Option<Decimal> = None; // brut
    let mut s14: Option<Decimal> = None; // ceiling
    let mut s15: Option<Decimal> = None; // t1
    let mut s16: Option<Decimal> = None; // t2
    let mut s17: Option<Decimal> = None; // capped4
    let mut s18: Option<Decimal> = None; // cet_base
    let mut s19: Option<Value> = None; // premium
    let mut s20: Option<Decimal> = None; // employer_health
    let mut s21: Option<Decimal> = None; // employee_health
    let mut s22: Option<Decimal> = None; // death_cover
    let mut s23: Option<Decimal> = None; // csg_base
    let mut s24: Option<Decimal> = None; // overtime_csg_base
    let mut s25: Option<Decimal> = None; // forfait_base
    let mut s26: Option<Decimal> = None; // employee_lines
    let mut s27: Option<Decimal> = None; // overtime_reduction
    let mut s28: Option<Decimal> = None; // total_cotisations_salariales
    let mut s29: Option<Decimal> = None; // net_before_tax
    let mut s30: Option<Decimal> = None; // exempt_overtime
    let mut s31: Option<Decimal> = None; // net_imposable
    let mut s32: Option<Decimal> = None; // prelevement_source
    let mut s33: Option<Decimal> = None; // employer_meal_vouchers
    let mut s34: Option<Decimal> = None; // employee_meal_vouchers
    let mut s35: Option<Decimal> = None; // net_a_payer
    let mut s36: Option<Decimal> = None; // smic_ref
    let mut s37: Option<Decimal> = None; // rgdu_tdelta
    let mut s38: Option<Value> = None; // rgdu_rate
    let mut s39: Option<Decimal> = None; // rgdu
    let mut s40: Option<Decimal> = None; // employer_lines
    let mut s41: Option<Decimal> = None; // cout_employeur
    // check 1
    spent += 6;
    if s1.is_none() { // enters
        spent += 14;
        s1 = Some(((number(&x[0])? == K0) && !(x[18]).is_missing()));
    }
    if s4.is_none() { // base_of_month
        spent += 26;
        s4 = Some(if (s1? || {
    if s2.is_none() { // leaves
        spent += 14;
        s2 = Some(((number(&x[0])? == K0) && !(x[19]).is_missing()));
    }
    s2? }) { Value::Number({
    if s3.is_none() { // days_present
        spent += 26;
        s3 = Some(if s1? { {
    if s0.is_none() { // days_of_month
        spent += 4;
        s0 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); days_in_month(arg0)? });
    }
    add_dec(sub_dec(s0?, { let arg0 = &x[18]; spent += text_units(&arg0); day(arg0)? })?, K1)? } } else { {
    if s2.is_none() { // leaves
        spent += 14;
        s2 = Some(((number(&x[0])? == K0) && !(x[19]).is_missing()));
    }
    if s2? { { let arg0 = &x[19]; spent += text_units(&arg0); day(arg0)? } } else { {
    if s0.is_none() { // days_of_month
        spent += 4;
        s0 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); days_in_month(arg0)? });
    }
    s0? } } } });
    }
    if s0.is_none() { // days_of_month
        spent += 4;
        s0 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); days_in_month(arg0)? });
    }
    mul_div_round(number(&x[4])?, s3?, s0?, 2, RoundingMode::HalfUp)? }) } else { x[4].clone() });
    }
    if s5.is_none() { // hours_25
        spent += 6;
        s5 = Some({ let c = x[7].clone(); if !c.is_missing() { c } else { Value::Number(K2) }});
    }
    if s8.is_none() { // overtime_25
        spent += 10;
        s8 = Some(round_dec(mul_dec(mul_dec(number(&(*s5.as_ref()?))?, number(&x[6])?)?, K3)?, 2, RoundingMode::HalfUp));
    }
    if s6.is_none() { // hours_50
        spent += 6;
        s6 = Some({ let c = x[8].clone(); if !c.is_missing() { c } else { Value::Number(K2) }});
    }
    if s9.is_none() { // overtime_50
        spent += 10;
        s9 = Some(round_dec(mul_dec(mul_dec(number(&(*s6.as_ref()?))?, number(&x[6])?)?, K4)?, 2, RoundingMode::HalfUp));
    }
    if s10.is_none() { // overtime_pay
        spent += 6;
        s10 = Some(add_dec(s8?, s9?)?);
    }
    if s11.is_none() { // absence_hours
        spent += 16;
        s11 = Some(if (number(&x[0])? <= K5) { { let c = x[10].clone(); if !c.is_missing() { c } else { Value::Number(K2) }} } else { Value::Number(K2) });
    }
    if s12.is_none() { // absence
        spent += 6;
        s12 = Some(round_dec(mul_dec(number(&(*s11.as_ref()?))?, number(&x[6])?)?, 2, RoundingMode::HalfUp));
    }
    if s13.is_none() { // brut
        spent += 26;
        s13 = Some(sub_dec(add_dec(add_dec(add_dec(number(&(*s4.as_ref()?))?, s10?)?, number(&({ let c = x[9].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}))?)?, number(&({ let c = x[11].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}))?)?, s12?)?);
    }
    if (s13? < K2) {
        return None;
    }
    // check 2
    if s14.is_none() { // ceiling
        spent += 34;
        s14 = Some(if (number(&x[0])? == K0) { {
    if s3.is_none() { // days_present
        spent += 26;
        s3 = Some(if s1? { {
    if s0.is_none() { // days_of_month
        spent += 4;
        s0 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); days_in_month(arg0)? });
    }
    add_dec(sub_dec(s0?, { let arg0 = &x[18]; spent += text_units(&arg0); day(arg0)? })?, K1)? } } else { {
    if s2.is_none() { // leaves
        spent += 14;
        s2 = Some(((number(&x[0])? == K0) && !(x[19]).is_missing()));
    }
    if s2? { { let arg0 = &x[19]; spent += text_units(&arg0); day(arg0)? } } else { {
    if s0.is_none() { // days_of_month
        spent += 4;
        s0 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); days_in_month(arg0)? });
    }
    s0? } } } });
    }
    if s0.is_none() { // days_of_month
        spent += 4;
        s0 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); days_in_month(arg0)? });
    }
    round(div(mul(div_dec(mul_dec(K6, number(&x[5])?)?, K7)?, Num::Dec(s3?))?, Num::Dec(s0?))?, 2, RoundingMode::HalfUp)? } } else { K6 });
    }
    if s15.is_none() { // t1
        spent += 6;
        s15 = Some(better_dec(s13?, s14?, false));
    }
    if s17.is_none() { // capped4
        spent += 10;
        s17 = Some(better_dec(s13?, mul_dec(K0, s14?)?, false));
    }
    if s16.is_none() { // t2
        spent += 18;
        s16 = Some(better_dec(better_dec(sub_dec(s13?, s14?)?, K2, true), mul_dec(K8, s14?)?, false));
    }
    if s18.is_none() { // cet_base
        spent += 10;
        s18 = Some(better_dec(s13?, mul_dec(K9, s14?)?, false));
    }
    if s20.is_none() { // employer_health
        spent += 24;
        s20 = Some(if (x[12]).is_missing() { K2 } else { round_dec(mul_dec(number(&(field(&x[12], 0)?))?, number(&(field(&x[12], 1)?))?)?, 2, RoundingMode::HalfUp) });
    }
    if s22.is_none() { // death_cover
        spent += 32;
        s22 = Some(if { let l = &x[2]; let r = &(*K10); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { round(div(mul(Num::Dec(s15?), num(&(field(&(lookup(rb, facts, 0, &[(*K11).clone()])?), 4)?))?)?, Num::Dec(K12))?, 2, RoundingMode::HalfUp)? } else { K2 });
    }
    if s25.is_none() { // forfait_base
        spent += 6;
        s25 = Some(add_dec(s20?, s22?)?);
    }
    if s23.is_none() { // csg_base
        spent += 28;
        s23 = Some(add_dec(add_dec(round_dec(mul_dec(K13, sub_dec(s13?, s10?)?)?, 2, RoundingMode::HalfUp), s20?)?, s22?)?);
    }
    if s7.is_none() { // has_overtime
        spent += 14;
        s7 = Some(((number(&(*s5.as_ref()?))? > K2) || (number(&(*s6.as_ref()?))? > K2)));
    }
    if s24.is_none() { // overtime_csg_base
        spent += 16;
        s24 = Some(round_dec(mul_dec(K13, s10?)?, 2, RoundingMode::HalfUp));
    }
    if s19.is_none() { // premium
        spent += 12;
        s19 = Some(if (x[12]).is_missing() { Value::Number(K2) } else { field(&x[12], 0)? });
    }
    spent += 4;
    spent += 7290;
    // group lines, unrolled
    let gi0 = constant_items(rb, 0)?;
    if gi0.len() != 27 {
        return None;
    }
    let g0r0s0: bool = true;
    let g0r0s1: Decimal = s13?;
    let g0r0s2: Value = Value::Absent;
    let g0r0s3: Decimal = K14;
    let g0r0s4: Decimal = K2;
    let g0r0s5: Decimal = mul_div_round(g0r0s1, K14, K12, 2, RoundingMode::HalfUp)?;
    let g0r0s6: Value = Value::Absent;
    let g0r0s7: Decimal = g0r0s5;
    let g0r0s8: bool = false;
    let g0r1s0: bool = true;
    let g0r1s1: Decimal = s15?;
    let g0r1s2: Decimal = K15;
    let g0r1s3: Decimal = K16;
    let g0r1s4: Decimal = mul_div_round(g0r1s1, K15, K12, 2, RoundingMode::HalfUp)?;
    let g0r1s5: Decimal = mul_div_round(g0r1s1, K16, K12, 2, RoundingMode::HalfUp)?;
    let g0r1s6: Decimal = g0r1s4;
    let g0r1s7: Decimal = g0r1s5;
    let g0r1s8: bool = false;
    let g0r2s0: bool = true;
    let g0r2s1: Decimal = s13?;
    let g0r2s2: Decimal = K17;
    let g0r2s3: Decimal = K18;
    let g0r2s4: Decimal = mul_div_round(g0r2s1, K17, K12, 2, RoundingMode::HalfUp)?;
    let g0r2s5: Decimal = mul_div_round(g0r2s1, K18, K12, 2, RoundingMode::HalfUp)?;
    let g0r2s6: Decimal = g0r2s4;
    let g0r2s7: Decimal = g0r2s5;
    let g0r2s8: bool = false;
    let g0r3s0: bool = true;
    let g0r3s1: Decimal = s13?;
    let g0r3s2: Value = Value::Absent;
    let g0r3s3: Decimal = K19;
    let g0r3s4: Decimal = K2;
    let g0r3s5: Decimal = mul_div_round(g0r3s1, K19, K12, 2, RoundingMode::HalfUp)?;
    let g0r3s6: Value = Value::Absent;
    let g0r3s7: Decimal = g0r3s5;
    let g0r3s8: bool = false;
    let g0r4s0: bool = true;
    let g0r4s1: Decimal = s13?;
    let g0r4s2: Value = Value::Absent;
    let g0r4s3: Value = x[14].clone();
    let g0r4s4: Decimal = K2;
    let g0r4s5: Decimal = if (g0r4s3).is_missing() { K2 } else { mul_div_round(g0r4s1, number(&g0r4s3)?, K12, 2, RoundingMode::HalfUp)? };
    let g0r4s6: Value = Value::Absent;
    let g0r4s7: Value = if (!(g0r4s3).is_missing() || false) { Value::Number(g0r4s5) } else { Value::Absent };
    let g0r4s8: bool = false;
    let g0r5s0: bool = true;
    let g0r5s1: Decimal = s13?;
    let g0r5s2: Value = Value::Absent;
    let g0r5s3: Decimal = K20;
    let g0r5s4: Decimal = K2;
    let g0r5s5: Decimal = mul_div_round(g0r5s1, K20, K12, 2, RoundingMode::HalfUp)?;
    let g0r5s6: Value = Value::Absent;
    let g0r5s7: Decimal = g0r5s5;
    let g0r5s8: bool = false;
    let g0r6s0: bool = (number(&x[3])? < K21);
    let g0r6s1: Decimal = s15?;
    let g0r6s2: Value = Value::Absent;
    let g0r6s3: Decimal = K22;
    let g0r6s4: Decimal = if !g0r6s0 { K2 } else { K2 };
    let g0r6s5: Decimal = if !g0r6s0 { K2 } else { mul_div_round(g0r6s1, K22, K12, 2, RoundingMode::HalfUp)? };
    let g0r6s6: Value = Value::Absent;
    let g0r6s7: Decimal = g0r6s5;
    let g0r6s8: bool = false;
    let g0r7s0: bool = (number(&x[3])? >= K21);
    let g0r7s1: Decimal = s13?;
    let g0r7s2: Value = Value::Absent;
    let g0r7s3: Decimal = K23;
    let g0r7s4: Decimal = if !g0r7s0 { K2 } else { K2 };
    let g0r7s5: Decimal = if !g0r7s0 { K2 } else { mul_div_round(g0r7s1, K23, K12, 2, RoundingMode::HalfUp)? };
    let g0r7s6: Value = Value::Absent;
    let g0r7s7: Decimal = g0r7s5;
    let g0r7s8: bool = false;
    let g0r8s0: bool = (number(&x[3])? >= K24);
    let g0r8s1: Decimal = s13?;
    let g0r8s2: Value = Value::Absent;
    let g0r8s3: Value = x[15].clone();
    let g0r8s4: Decimal = if !g0r8s0 { K2 } else { K2 };
    let g0r8s5: Decimal = if !g0r8s0 { K2 } else { if (g0r8s3).is_missing() { K2 } else { mul_div_round(g0r8s1, number(&g0r8s3)?, K12, 2, RoundingMode::HalfUp)? } };
    let g0r8s6: Value = Value::Absent;
    let g0r8s7: Value = if (!(g0r8s3).is_missing() || false) { Value::Number(g0r8s5) } else { Value::Absent };
    let g0r8s8: bool = false;
    let g0r9s0: bool = true;
    let g0r9s1: Decimal = s17?;
    let g0r9s2: Value = Value::Absent;
    let g0r9s3: Decimal = K25;
    let g0r9s4: Decimal = K2;
    let g0r9s5: Decimal = mul_div_round(g0r9s1, K25, K12, 2, RoundingMode::HalfUp)?;
    let g0r9s6: Value = Value::Absent;
    let g0r9s7: Decimal = g0r9s5;
    let g0r9s8: bool = false;
    let g0r10s0: bool = true;
    let g0r10s1: Decimal = s17?;
    let g0r10s2: Value = Value::Absent;
    let g0r10s3: Decimal = K26;
    let g0r10s4: Decimal = K2;
    let g0r10s5: Decimal = mul_div_round(g0r10s1, K26, K12, 2, RoundingMode::HalfUp)?;
    let g0r10s6: Value = Value::Absent;
    let g0r10s7: Decimal = g0r10s5;
    let g0r10s8: bool = false;
    let g0r11s0: bool = true;
    let g0r11s1: Decimal = s15?;
    let g0r11s2: Decimal = K27;
    let g0r11s3: Decimal = K28;
    let g0r11s4: Decimal = mul_div_round(g0r11s1, K27, K12, 2, RoundingMode::HalfUp)?;
    let g0r11s5: Decimal = mul_div_round(g0r11s1, K28, K12, 2, RoundingMode::HalfUp)?;
    let g0r11s6: Decimal = g0r11s4;
    let g0r11s7: Decimal = g0r11s5;
    let g0r11s8: bool = false;
    let g0r12s0: bool = true;
    let g0r12s1: Decimal = s16?;
    let g0r12s2: Decimal = K29;
    let g0r12s3: Decimal = K30;
    let g0r12s4: Decimal = mul_div_round(g0r12s1, K29, K12, 2, RoundingMode::HalfUp)?;
    let g0r12s5: Decimal = mul_div_round(g0r12s1, K30, K12, 2, RoundingMode::HalfUp)?;
    let g0r12s6: Decimal = g0r12s4;
    let g0r12s7: Decimal = g0r12s5;
    let g0r12s8: bool = false;
    let g0r13s0: bool = true;
    let g0r13s1: Decimal = s15?;
    let g0r13s2: Decimal = K31;
    let g0r13s3: Decimal = K32;
    let g0r13s4: Decimal = mul_div_round(g0r13s1, K31, K12, 2, RoundingMode::HalfUp)?;
    let g0r13s5: Decimal = mul_div_round(g0r13s1, K32, K12, 2, RoundingMode::HalfUp)?;
    let g0r13s6: Decimal = g0r13s4;
    let g0r13s7: Decimal = g0r13s5;
    let g0r13s8: bool = false;
    let g0r14s0: bool = true;
    let g0r14s1: Decimal = s16?;
    let g0r14s2: Decimal = K33;
    let g0r14s3: Decimal = K34;
    let g0r14s4: Decimal = mul_div_round(g0r14s1, K33, K12, 2, RoundingMode::HalfUp)?;
    let g0r14s5: Decimal = mul_div_round(g0r14s1, K34, K12, 2, RoundingMode::HalfUp)?;
    let g0r14s6: Decimal = g0r14s4;
    let g0r14s7: Decimal = g0r14s5;
    let g0r14s8: bool = false;
    let g0r15s0: bool = (s13? > s14?);
    let g0r15s1: Decimal = s18?;
    let g0r15s2: Decimal = K35;
    let g0r15s3: Decimal = K36;
    let g0r15s4: Decimal = if !g0r15s0 { K2 } else { mul_div_round(g0r15s1, K35, K12, 2, RoundingMode::HalfUp)? };
    let g0r15s5: Decimal = if !g0r15s0 { K2 } else { mul_div_round(g0r15s1, K36, K12, 2, RoundingMode::HalfUp)? };
    let g0r15s6: Decimal = g0r15s4;
    let g0r15s7: Decimal = g0r15s5;
    let g0r15s8: bool = false;
    let g0r16s0: bool = { let l = &x[2]; let r = &(*K10); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) };
    let g0r16s1: Decimal = s17?;
    let g0r16s2: Decimal = K37;
    let g0r16s3: Decimal = K38;
    let g0r16s4: Decimal = if !g0r16s0 { K2 } else { mul_div_round(g0r16s1, K37, K12, 2, RoundingMode::HalfUp)? };
    let g0r16s5: Decimal = if !g0r16s0 { K2 } else { mul_div_round(g0r16s1, K38, K12, 2, RoundingMode::HalfUp)? };
    let g0r16s6: Decimal = g0r16s4;
    let g0r16s7: Decimal = g0r16s5;
    let g0r16s8: bool = false;
    let g0r17s0: bool = { let l = &x[2]; let r = &(*K10); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) };
    let g0r17s1: Decimal = s15?;
    let g0r17s2: Value = Value::Absent;
    let g0r17s3: Decimal = K39;
    let g0r17s4: Decimal = if !g0r17s0 { K2 } else { K2 };
    let g0r17s5: Decimal = if !g0r17s0 { K2 } else { mul_div_round(g0r17s1, K39, K12, 2, RoundingMode::HalfUp)? };
    let g0r17s6: Value = Value::Absent;
    let g0r17s7: Decimal = g0r17s5;
    let g0r17s8: bool = false;
    let g0r18s0: bool = (number(&x[3])? < K24);
    let g0r18s1: Decimal = s13?;
    let g0r18s2: Value = Value::Absent;
    let g0r18s3: Decimal = K40;
    let g0r18s4: Decimal = if !g0r18s0 { K2 } else { K2 };
    let g0r18s5: Decimal = if !g0r18s0 { K2 } else { mul_div_round(g0r18s1, K40, K12, 2, RoundingMode::HalfUp)? };
    let g0r18s6: Value = Value::Absent;
    let g0r18s7: Decimal = g0r18s5;
    let g0r18s8: bool = false;
    let g0r19s0: bool = (number(&x[3])? >= K24);
    let g0r19s1: Decimal = s13?;
    let g0r19s2: Value = Value::Absent;
    let g0r19s3: Decimal = K41;
    let g0r19s4: Decimal = if !g0r19s0 { K2 } else { K2 };
    let g0r19s5: Decimal = if !g0r19s0 { K2 } else { mul_div_round(g0r19s1, K41, K12, 2, RoundingMode::HalfUp)? };
    let g0r19s6: Value = Value::Absent;
    let g0r19s7: Decimal = g0r19s5;
    let g0r19s8: bool = false;
    let g0r20s0: bool = true;
    let g0r20s1: Decimal = s13?;
    let g0r20s2: Value = Value::Absent;
    let g0r20s3: Decimal = K42;
    let g0r20s4: Decimal = K2;
    let g0r20s5: Decimal = mul_div_round(g0r20s1, K42, K12, 2, RoundingMode::HalfUp)?;
    let g0r20s6: Value = Value::Absent;
    let g0r20s7: Decimal = g0r20s5;
    let g0r20s8: bool = false;
    let g0r21s0: bool = (number(&x[3])? >= K24);
    let g0r21s1: Decimal = s25?;
    let g0r21s2: Value = Value::Absent;
    let g0r21s3: Decimal = K43;
    let g0r21s4: Decimal = if !g0r21s0 { K2 } else { K2 };
    let g0r21s5: Decimal = if !g0r21s0 { K2 } else { mul_div_round(g0r21s1, K43, K12, 2, RoundingMode::HalfUp)? };
    let g0r21s6: Value = Value::Absent;
    let g0r21s7: Decimal = g0r21s5;
    let g0r21s8: bool = false;
    let g0r22s0: bool = true;
    let g0r22s1: Decimal = s23?;
    let g0r22s2: Decimal = K44;
    let g0r22s3: Value = Value::Absent;
    let g0r22s4: Decimal = mul_div_round(g0r22s1, K44, K12, 2, RoundingMode::HalfUp)?;
    let g0r22s5: Decimal = K2;
    let g0r22s6: Decimal = g0r22s4;
    let g0r22s7: Value = Value::Absent;
    let g0r22s8: bool = false;
    let g0r23s0: bool = true;
    let g0r23s1: Decimal = s23?;
    let g0r23s2: Decimal = K45;
    let g0r23s3: Value = Value::Absent;
    let g0r23s4: Decimal = mul_div_round(g0r23s1, K45, K12, 2, RoundingMode::HalfUp)?;
    let g0r23s5: Decimal = K2;
    let g0r23s6: Decimal = g0r23s4;
    let g0r23s7: Value = Value::Absent;
    let g0r23s8: bool = true;
    let g0r24s0: bool = true;
    let g0r24s1: Decimal = s23?;
    let g0r24s2: Decimal = K23;
    let g0r24s3: Value = Value::Absent;
    let g0r24s4: Decimal = mul_div_round(g0r24s1, K23, K12, 2, RoundingMode::HalfUp)?;
    let g0r24s5: Decimal = K2;
    let g0r24s6: Decimal = g0r24s4;
    let g0r24s7: Value = Value::Absent;
    let g0r24s8: bool = true;
    let g0r25s0: bool = s7?;
    let g0r25s1: Decimal = s24?;
    let g0r25s2: Decimal = K46;
    let g0r25s3: Value = Value::Absent;
    let g0r25s4: Decimal = if !g0r25s0 { K2 } else { mul_div_round(g0r25s1, K46, K12, 2, RoundingMode::HalfUp)? };
    let g0r25s5: Decimal = if !g0r25s0 { K2 } else { K2 };
    let g0r25s6: Decimal = g0r25s4;
    let g0r25s7: Value = Value::Absent;
    let g0r25s8: bool = true;
    let g0r26s0: bool = !(x[12]).is_missing();
    let g0r26s1: Value = (*s19.as_ref()?).clone();
    let g0r26s2: Value = Value::Absent;
    let g0r26s3: Value = Value::Absent;
    let g0r26s4: Decimal = if !g0r26s0 { K2 } else { {
    if s21.is_none() { // employee_health
        spent += 6;
        s21 = Some(sub_dec(number(&(*s19.as_ref()?))?, s20?)?);
    }
    s21? } };
    let g0r26s5: Decimal = if !g0r26s0 { K2 } else { s20? };
    let g0r26s6: Decimal = g0r26s4;
    let g0r26s7: Decimal = g0r26s5;
    let g0r26s8: bool = false;
    if s26.is_none() { // employee_lines
        spent += 6;
        s26 = Some({ spent += 54; let mut t = Decimal::ZERO; t = add_dec(t, g0r0s4)?; t = add_dec(t, g0r1s4)?; t = add_dec(t, g0r2s4)?; t = add_dec(t, g0r3s4)?; t = add_dec(t, g0r4s4)?; t = add_dec(t, g0r5s4)?; t = add_dec(t, g0r6s4)?; t = add_dec(t, g0r7s4)?; t = add_dec(t, g0r8s4)?; t = add_dec(t, g0r9s4)?; t = add_dec(t, g0r10s4)?; t = add_dec(t, g0r11s4)?; t = add_dec(t, g0r12s4)?; t = add_dec(t, g0r13s4)?; t = add_dec(t, g0r14s4)?; t = add_dec(t, g0r15s4)?; t = add_dec(t, g0r16s4)?; t = add_dec(t, g0r17s4)?; t = add_dec(t, g0r18s4)?; t = add_dec(t, g0r19s4)?; t = add_dec(t, g0r20s4)?; t = add_dec(t, g0r21s4)?; t = add_dec(t, g0r22s4)?; t = add_dec(t, g0r23s4)?; t = add_dec(t, g0r24s4)?; t = add_dec(t, g0r25s4)?; t = add_dec(t, g0r26s4)?; t });
    }
    if s27.is_none() { // overtime_reduction
        spent += 10;
        s27 = Some(round_dec(mul_dec(K47, s10?)?, 2, RoundingMode::HalfUp));
    }
    if s28.is_none() { // total_cotisations_salariales
        spent += 6;
        s28 = Some(sub_dec(s26?, s27?)?);
    }
    if s29.is_none() { // net_before_tax
        spent += 6;
        s29 = Some(sub_dec(s13?, s28?)?);
    }
    if s30.is_none() { // exempt_overtime
        spent += 28;
        s30 = Some(if (number(&x[0])? == K0) { better_dec(s10?, better_dec(K2, sub_dec(K48, number(&({ let c = x[20].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}))?)?, true), false) } else { s10? });
    }
    if s31.is_none() { // net_imposable
        spent += 26;
        s31 = Some(sub_dec(add_dec(add_dec(s29?, { let mut t = Decimal::ZERO; spent += 8; if g0r0s8 { t = add_dec(t, g0r0s4)?; } spent += 8; if g0r1s8 { t = add_dec(t, g0r1s4)?; } spent += 8; if g0r2s8 { t = add_dec(t, g0r2s4)?; } spent += 8; if g0r3s8 { t = add_dec(t, g0r3s4)?; } spent += 8; if g0r4s8 { t = add_dec(t, g0r4s4)?; } spent += 8; if g0r5s8 { t = add_dec(t, g0r5s4)?; } spent += 8; if g0r6s8 { t = add_dec(t, g0r6s4)?; } spent += 8; if g0r7s8 { t = add_dec(t, g0r7s4)?; } spent += 8; if g0r8s8 { t = add_dec(t, g0r8s4)?; } spent += 8; if g0r9s8 { t = add_dec(t, g0r9s4)?; } spent += 8; if g0r10s8 { t = add_dec(t, g0r10s4)?; } spent += 8; if g0r11s8 { t = add_dec(t, g0r11s4)?; } spent += 8; if g0r12s8 { t = add_dec(t, g0r12s4)?; } spent += 8; if g0r13s8 { t = add_dec(t, g0r13s4)?; } spent += 8; if g0r14s8 { t = add_dec(t, g0r14s4)?; } spent += 8; if g0r15s8 { t = add_dec(t, g0r15s4)?; } spent += 8; if g0r16s8 { t = add_dec(t, g0r16s4)?; } spent += 8; if g0r17s8 { t = add_dec(t, g0r17s4)?; } spent += 8; if g0r18s8 { t = add_dec(t, g0r18s4)?; } spent += 8; if g0r19s8 { t = add_dec(t, g0r19s4)?; } spent += 8; if g0r20s8 { t = add_dec(t, g0r20s4)?; } spent += 8; if g0r21s8 { t = add_dec(t, g0r21s4)?; } spent += 8; if g0r22s8 { t = add_dec(t, g0r22s4)?; } spent += 8; if g0r23s8 { t = add_dec(t, g0r23s4)?; } spent += 8; if g0r24s8 { t = add_dec(t, g0r24s4)?; } spent += 8; if g0r25s8 { t = add_dec(t, g0r25s4)?; } spent += 8; if g0r26s8 { t = add_dec(t, g0r26s4)?; } t })?, s20?)?, s30?)?);
    }
    if s32.is_none() { // prelevement_source
        spent += 10;
        s32 = Some(mul_div_round(s31?, number(&x[16])?, K12, 2, RoundingMode::HalfUp)?);
    }
    if s34.is_none() { // employee_meal_vouchers
        spent += 22;
        s34 = Some(if (x[13]).is_missing() { K2 } else { {
    if s33.is_none() { // employer_meal_vouchers
        spent += 30;
        s33 = Some(if (x[13]).is_missing() { K2 } else { round_dec(mul_dec(mul_dec(number(&(field(&x[13], 0)?))?, number(&(field(&x[13], 1)?))?)?, number(&(field(&x[13], 2)?))?)?, 2, RoundingMode::HalfUp) });
    }
    sub_dec(mul_dec(number(&(field(&x[13], 0)?))?, number(&(field(&x[13], 1)?))?)?, s33?)? } });
    }
    if s35.is_none() { // net_a_payer
        spent += 18;
        s35 = Some(sub_dec(sub_dec(sub_dec(s29?, s32?)?, number(&({ let c = x[11].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}))?)?, s34?)?);
    }
    if s40.is_none() { // employer_lines
        spent += 6;
        s40 = Some({ spent += 54; let mut t = Decimal::ZERO; t = add_dec(t, g0r0s5)?; t = add_dec(t, g0r1s5)?; t = add_dec(t, g0r2s5)?; t = add_dec(t, g0r3s5)?; t = add_dec(t, g0r4s5)?; t = add_dec(t, g0r5s5)?; t = add_dec(t, g0r6s5)?; t = add_dec(t, g0r7s5)?; t = add_dec(t, g0r8s5)?; t = add_dec(t, g0r9s5)?; t = add_dec(t, g0r10s5)?; t = add_dec(t, g0r11s5)?; t = add_dec(t, g0r12s5)?; t = add_dec(t, g0r13s5)?; t = add_dec(t, g0r14s5)?; t = add_dec(t, g0r15s5)?; t = add_dec(t, g0r16s5)?; t = add_dec(t, g0r17s5)?; t = add_dec(t, g0r18s5)?; t = add_dec(t, g0r19s5)?; t = add_dec(t, g0r20s5)?; t = add_dec(t, g0r21s5)?; t = add_dec(t, g0r22s5)?; t = add_dec(t, g0r23s5)?; t = add_dec(t, g0r24s5)?; t = add_dec(t, g0r25s5)?; t = add_dec(t, g0r26s5)?; t });
    }
    if s33.is_none() { // employer_meal_vouchers
        spent += 30;
        s33 = Some(if (x[13]).is_missing() { K2 } else { round_dec(mul_dec(mul_dec(number(&(field(&x[13], 0)?))?, number(&(field(&x[13], 1)?))?)?, number(&(field(&x[13], 2)?))?)?, 2, RoundingMode::HalfUp) });
    }
    if s38.is_none() { // rgdu_rate
        spent += 82;
        s38 = Some(if (number(&x[0])? <= K49) { x[17].clone() } else { Value::Number({
    if s36.is_none() { // smic_ref
        spent += 52;
        s36 = Some(if (number(&x[0])? == K0) { {
    if s3.is_none() { // days_present
        spent += 26;
        s3 = Some(if s1? { {
    if s0.is_none() { // days_of_month
        spent += 4;
        s0 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); days_in_month(arg0)? });
    }
    add_dec(sub_dec(s0?, { let arg0 = &x[18]; spent += text_units(&arg0); day(arg0)? })?, K1)? } } else { {
    if s2.is_none() { // leaves
        spent += 14;
        s2 = Some(((number(&x[0])? == K0) && !(x[19]).is_missing()));
    }
    if s2? { { let arg0 = &x[19]; spent += text_units(&arg0); day(arg0)? } } else { {
    if s0.is_none() { // days_of_month
        spent += 4;
        s0 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); days_in_month(arg0)? });
    }
    s0? } } } });
    }
    if s0.is_none() { // days_of_month
        spent += 4;
        s0 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); days_in_month(arg0)? });
    }
    round(div(mul(div_dec(mul_dec(K50, number(&x[5])?)?, K7)?, Num::Dec(s3?))?, Num::Dec(s0?))?, 2, RoundingMode::HalfUp)? } } else { mul_div_round(K50, sub_dec(number(&x[5])?, number(&(*s11.as_ref()?))?)?, number(&x[5])?, 2, RoundingMode::HalfUp)? });
    }
    if (s13? >= mul_dec(K5, s36?)?) { K2 } else { {
    if s37.is_none() { // rgdu_tdelta
        spent += 12;
        s37 = Some(if (number(&x[3])? < K21) { K51 } else { K52 });
    }
    if (s13? == K2) { add_dec(K53, s37?)? } else { round(better_num(add(Num::Dec(K53), mul(Num::Dec(s37?), { spent += 256; Num::Dec(pow(mul(Num::Dec(K54), sub(div_dec(mul_dec(K5, s36?)?, s13?)?, Num::Dec(K1))?)?, Num::Dec(K55))?) })?)?, Num::Dec(add_dec(K53, s37?)?), false)?, 4, RoundingMode::HalfUp)? } } } }) });
    }
    if s39.is_none() { // rgdu
        spent += 6;
        s39 = Some(round_dec(mul_dec(s13?, number(&(*s38.as_ref()?))?)?, 2, RoundingMode::HalfUp));
    }
    if s41.is_none() { // cout_employeur
        spent += 14;
        s41 = Some(sub_dec(add_dec(add_dec(s13?, s40?)?, s33?)?, s39?)?);
    }
        let mut clauses = clauses(rb, 1)?;
        let mut object = Vec::with_capacity(6);
        object.push((Arc::from("brut"), { spent += 2; answer_dec(s13?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("total_cotisations_salariales"), { spent += 2; answer_dec(s28?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("net_imposable"), { spent += 2; answer_dec(s31?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("prelevement_source"), { spent += 2; answer_dec(s32?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("net_a_payer"), { spent += 2; answer_dec(s35?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("cout_employeur"), { spent += 2; answer_dec(s41?, Format::Fixed(2), &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 0, object);
    None
}
