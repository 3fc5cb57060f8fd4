//! The rulebook paie-fr@2026#9d579852e12e, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_parens, clippy::all)]

use bareme::compiled::rt::*;
use bareme::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "paie-fr@2026#9d579852e12e",
    fingerprint: "1ccdec177c93ef11c998cd1ead4a680d1a6f63f3ea09a6904a605c5068246f86",
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
const K49: Decimal = Decimal::from_parts(182303, 0, 0, false, 2);
const K50: Decimal = Decimal::from_parts(3781, 0, 0, false, 4);
const K51: Decimal = Decimal::from_parts(3821, 0, 0, false, 4);
const K52: Decimal = Decimal::from_parts(2, 0, 0, false, 0);
const K53: Decimal = Decimal::from_parts(2, 0, 0, false, 2);
const K54: Decimal = Decimal::from_parts(5, 0, 0, false, 1);
const K55: Decimal = Decimal::from_parts(175, 0, 0, false, 2);

fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    let mut items: u64 = 1;
    items += 27;
    if (369u64 + 127u64).saturating_mul(items).saturating_mul(2) > budget(rb) {
        return None;
    }
    // check 1
    let s1: bool = ((number(&x[0])? == K0) && !(x[18]).is_missing()); // enters
    let s2: bool = ((number(&x[0])? == K0) && !(x[19]).is_missing()); // leaves
    let s0: Decimal = days_in_month(&x[1])?; // days_of_month
    let s3: Decimal = if s1 { add_dec(sub_dec(s0, day(&x[18])?)?, K1)? } else { if s2 { day(&x[19])? } else { s0 } }; // days_present
    let s4: Value = if (s1 || s2) { Value::Number(round(div(Num::Dec(mul_dec(number(&x[4])?, s3)?), Num::Dec(s0))?, 2, RoundingMode::HalfUp)?) } else { x[4].clone() }; // base_of_month
    let s5: Value = { let c = x[7].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}; // hours_25
    let s8: Decimal = round(mul(mul(num(&s5)?, num(&x[6])?)?, Num::Dec(K3))?, 2, RoundingMode::HalfUp)?; // overtime_25
    let s6: Value = { let c = x[8].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}; // hours_50
    let s9: Decimal = round(mul(mul(num(&s6)?, num(&x[6])?)?, Num::Dec(K4))?, 2, RoundingMode::HalfUp)?; // overtime_50
    let s10: Decimal = add_dec(s8, s9)?; // overtime_pay
    let s11: Value = if (number(&x[0])? <= K5) { { let c = x[10].clone(); if !c.is_missing() { c } else { Value::Number(K2) }} } else { Value::Number(K2) }; // absence_hours
    let s12: Decimal = round(mul(num(&s11)?, num(&x[6])?)?, 2, RoundingMode::HalfUp)?; // absence
    let s13: Decimal = sub_dec(add_dec(add_dec(add_dec(number(&s4)?, s10)?, number(&({ let c = x[9].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}))?)?, number(&({ let c = x[11].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}))?)?, s12)?; // brut
    if (s13 < K2) {
        return None;
    }
    // check 2
    let s14: Decimal = if (number(&x[0])? == K0) { round(div(mul(div(Num::Dec(mul_dec(K6, number(&x[5])?)?), Num::Dec(K7))?, Num::Dec(s3))?, Num::Dec(s0))?, 2, RoundingMode::HalfUp)? } else { K6 }; // ceiling
    let s15: Decimal = better_dec(s13, s14, false); // t1
    let s17: Decimal = better_dec(s13, mul_dec(K0, s14)?, false); // capped4
    let s16: Decimal = better_dec(better_dec(sub_dec(s13, s14)?, K2, true), mul_dec(K8, s14)?, false); // t2
    let s18: Decimal = better_dec(s13, mul_dec(K9, s14)?, false); // cet_base
    let s20: Decimal = if (x[12]).is_missing() { K2 } else { round(mul(num(&(field(&x[12], 0)?))?, num(&(field(&x[12], 1)?))?)?, 2, RoundingMode::HalfUp)? }; // employer_health
    let s22: Decimal = if BinOp::Eq.holds(cmp_value(&x[2], &(*K10))?) { round(div(Num::Dec(mul_dec(s15, number(&(field(&(lookup(rb, facts, 0, &[(*K11).clone()])?), 4)?))?)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? } else { K2 }; // death_cover
    let s25: Decimal = add_dec(s20, s22)?; // forfait_base
    let s23: Decimal = add_dec(add_dec(round_dec(mul_dec(K13, sub_dec(s13, s10)?)?, 2, RoundingMode::HalfUp), s20)?, s22)?; // csg_base
    let s7: bool = ((number(&s5)? > K2) || (number(&s6)? > K2)); // has_overtime
    let s24: Decimal = round_dec(mul_dec(K13, s10)?, 2, RoundingMode::HalfUp); // overtime_csg_base
    let s19: Value = if (x[12]).is_missing() { Value::Number(K2) } else { field(&x[12], 0)? }; // premium
    let s21: Decimal = sub_dec(number(&s19)?, s20)?; // employee_health
    // group lines, unrolled
    let gi0 = constant_items(rb, 0)?;
    if gi0.len() != 27 {
        return None;
    }
    let g0r0s0: bool = true;
    let g0r0s1: Decimal = s13;
    let g0r0s2: Value = Value::Absent;
    let g0r0s3: Decimal = K14;
    let g0r0s4: Decimal = K2;
    let g0r0s5: Decimal = round(div(Num::Dec(mul_dec(g0r0s1, K14)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r0s6: Value = Value::Absent;
    let g0r0s7: Decimal = g0r0s5;
    let g0r0s8: bool = false;
    let g0r1s0: bool = true;
    let g0r1s1: Decimal = s15;
    let g0r1s2: Decimal = K15;
    let g0r1s3: Decimal = K16;
    let g0r1s4: Decimal = round(div(Num::Dec(mul_dec(g0r1s1, K15)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r1s5: Decimal = round(div(Num::Dec(mul_dec(g0r1s1, K16)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r1s6: Decimal = g0r1s4;
    let g0r1s7: Decimal = g0r1s5;
    let g0r1s8: bool = false;
    let g0r2s0: bool = true;
    let g0r2s1: Decimal = s13;
    let g0r2s2: Decimal = K17;
    let g0r2s3: Decimal = K18;
    let g0r2s4: Decimal = round(div(Num::Dec(mul_dec(g0r2s1, K17)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r2s5: Decimal = round(div(Num::Dec(mul_dec(g0r2s1, K18)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r2s6: Decimal = g0r2s4;
    let g0r2s7: Decimal = g0r2s5;
    let g0r2s8: bool = false;
    let g0r3s0: bool = true;
    let g0r3s1: Decimal = s13;
    let g0r3s2: Value = Value::Absent;
    let g0r3s3: Decimal = K19;
    let g0r3s4: Decimal = K2;
    let g0r3s5: Decimal = round(div(Num::Dec(mul_dec(g0r3s1, K19)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r3s6: Value = Value::Absent;
    let g0r3s7: Decimal = g0r3s5;
    let g0r3s8: bool = false;
    let g0r4s0: bool = true;
    let g0r4s1: Decimal = s13;
    let g0r4s2: Value = Value::Absent;
    let g0r4s3: Value = x[14].clone();
    let g0r4s4: Decimal = K2;
    let g0r4s5: Decimal = if (g0r4s3).is_missing() { K2 } else { round(div(Num::Dec(mul_dec(g0r4s1, number(&g0r4s3)?)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r4s6: Value = Value::Absent;
    let g0r4s7: Value = if (!(g0r4s3).is_missing() || false) { Value::Number(g0r4s5) } else { Value::Absent };
    let g0r4s8: bool = false;
    let g0r5s0: bool = true;
    let g0r5s1: Decimal = s13;
    let g0r5s2: Value = Value::Absent;
    let g0r5s3: Decimal = K20;
    let g0r5s4: Decimal = K2;
    let g0r5s5: Decimal = round(div(Num::Dec(mul_dec(g0r5s1, K20)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r5s6: Value = Value::Absent;
    let g0r5s7: Decimal = g0r5s5;
    let g0r5s8: bool = false;
    let g0r6s0: bool = (number(&x[3])? < K21);
    let g0r6s1: Decimal = s15;
    let g0r6s2: Value = Value::Absent;
    let g0r6s3: Decimal = K22;
    let g0r6s4: Decimal = if !g0r6s0 { K2 } else { K2 };
    let g0r6s5: Decimal = if !g0r6s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r6s1, K22)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r6s6: Value = Value::Absent;
    let g0r6s7: Decimal = g0r6s5;
    let g0r6s8: bool = false;
    let g0r7s0: bool = (number(&x[3])? >= K21);
    let g0r7s1: Decimal = s13;
    let g0r7s2: Value = Value::Absent;
    let g0r7s3: Decimal = K23;
    let g0r7s4: Decimal = if !g0r7s0 { K2 } else { K2 };
    let g0r7s5: Decimal = if !g0r7s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r7s1, K23)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r7s6: Value = Value::Absent;
    let g0r7s7: Decimal = g0r7s5;
    let g0r7s8: bool = false;
    let g0r8s0: bool = (number(&x[3])? >= K24);
    let g0r8s1: Decimal = s13;
    let g0r8s2: Value = Value::Absent;
    let g0r8s3: Value = x[15].clone();
    let g0r8s4: Decimal = if !g0r8s0 { K2 } else { K2 };
    let g0r8s5: Decimal = if !g0r8s0 { K2 } else { if (g0r8s3).is_missing() { K2 } else { round(div(Num::Dec(mul_dec(g0r8s1, number(&g0r8s3)?)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? } };
    let g0r8s6: Value = Value::Absent;
    let g0r8s7: Value = if (!(g0r8s3).is_missing() || false) { Value::Number(g0r8s5) } else { Value::Absent };
    let g0r8s8: bool = false;
    let g0r9s0: bool = true;
    let g0r9s1: Decimal = s17;
    let g0r9s2: Value = Value::Absent;
    let g0r9s3: Decimal = K25;
    let g0r9s4: Decimal = K2;
    let g0r9s5: Decimal = round(div(Num::Dec(mul_dec(g0r9s1, K25)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r9s6: Value = Value::Absent;
    let g0r9s7: Decimal = g0r9s5;
    let g0r9s8: bool = false;
    let g0r10s0: bool = true;
    let g0r10s1: Decimal = s17;
    let g0r10s2: Value = Value::Absent;
    let g0r10s3: Decimal = K26;
    let g0r10s4: Decimal = K2;
    let g0r10s5: Decimal = round(div(Num::Dec(mul_dec(g0r10s1, K26)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r10s6: Value = Value::Absent;
    let g0r10s7: Decimal = g0r10s5;
    let g0r10s8: bool = false;
    let g0r11s0: bool = true;
    let g0r11s1: Decimal = s15;
    let g0r11s2: Decimal = K27;
    let g0r11s3: Decimal = K28;
    let g0r11s4: Decimal = round(div(Num::Dec(mul_dec(g0r11s1, K27)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r11s5: Decimal = round(div(Num::Dec(mul_dec(g0r11s1, K28)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r11s6: Decimal = g0r11s4;
    let g0r11s7: Decimal = g0r11s5;
    let g0r11s8: bool = false;
    let g0r12s0: bool = true;
    let g0r12s1: Decimal = s16;
    let g0r12s2: Decimal = K29;
    let g0r12s3: Decimal = K30;
    let g0r12s4: Decimal = round(div(Num::Dec(mul_dec(g0r12s1, K29)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r12s5: Decimal = round(div(Num::Dec(mul_dec(g0r12s1, K30)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r12s6: Decimal = g0r12s4;
    let g0r12s7: Decimal = g0r12s5;
    let g0r12s8: bool = false;
    let g0r13s0: bool = true;
    let g0r13s1: Decimal = s15;
    let g0r13s2: Decimal = K31;
    let g0r13s3: Decimal = K32;
    let g0r13s4: Decimal = round(div(Num::Dec(mul_dec(g0r13s1, K31)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r13s5: Decimal = round(div(Num::Dec(mul_dec(g0r13s1, K32)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r13s6: Decimal = g0r13s4;
    let g0r13s7: Decimal = g0r13s5;
    let g0r13s8: bool = false;
    let g0r14s0: bool = true;
    let g0r14s1: Decimal = s16;
    let g0r14s2: Decimal = K33;
    let g0r14s3: Decimal = K34;
    let g0r14s4: Decimal = round(div(Num::Dec(mul_dec(g0r14s1, K33)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r14s5: Decimal = round(div(Num::Dec(mul_dec(g0r14s1, K34)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r14s6: Decimal = g0r14s4;
    let g0r14s7: Decimal = g0r14s5;
    let g0r14s8: bool = false;
    let g0r15s0: bool = (s13 > s14);
    let g0r15s1: Decimal = s18;
    let g0r15s2: Decimal = K35;
    let g0r15s3: Decimal = K36;
    let g0r15s4: Decimal = if !g0r15s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r15s1, K35)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r15s5: Decimal = if !g0r15s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r15s1, K36)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r15s6: Decimal = g0r15s4;
    let g0r15s7: Decimal = g0r15s5;
    let g0r15s8: bool = false;
    let g0r16s0: bool = BinOp::Eq.holds(cmp_value(&x[2], &(*K10))?);
    let g0r16s1: Decimal = s17;
    let g0r16s2: Decimal = K37;
    let g0r16s3: Decimal = K38;
    let g0r16s4: Decimal = if !g0r16s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r16s1, K37)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r16s5: Decimal = if !g0r16s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r16s1, K38)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r16s6: Decimal = g0r16s4;
    let g0r16s7: Decimal = g0r16s5;
    let g0r16s8: bool = false;
    let g0r17s0: bool = BinOp::Eq.holds(cmp_value(&x[2], &(*K10))?);
    let g0r17s1: Decimal = s15;
    let g0r17s2: Value = Value::Absent;
    let g0r17s3: Decimal = K39;
    let g0r17s4: Decimal = if !g0r17s0 { K2 } else { K2 };
    let g0r17s5: Decimal = if !g0r17s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r17s1, K39)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r17s6: Value = Value::Absent;
    let g0r17s7: Decimal = g0r17s5;
    let g0r17s8: bool = false;
    let g0r18s0: bool = (number(&x[3])? < K24);
    let g0r18s1: Decimal = s13;
    let g0r18s2: Value = Value::Absent;
    let g0r18s3: Decimal = K40;
    let g0r18s4: Decimal = if !g0r18s0 { K2 } else { K2 };
    let g0r18s5: Decimal = if !g0r18s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r18s1, K40)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r18s6: Value = Value::Absent;
    let g0r18s7: Decimal = g0r18s5;
    let g0r18s8: bool = false;
    let g0r19s0: bool = (number(&x[3])? >= K24);
    let g0r19s1: Decimal = s13;
    let g0r19s2: Value = Value::Absent;
    let g0r19s3: Decimal = K41;
    let g0r19s4: Decimal = if !g0r19s0 { K2 } else { K2 };
    let g0r19s5: Decimal = if !g0r19s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r19s1, K41)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r19s6: Value = Value::Absent;
    let g0r19s7: Decimal = g0r19s5;
    let g0r19s8: bool = false;
    let g0r20s0: bool = true;
    let g0r20s1: Decimal = s13;
    let g0r20s2: Value = Value::Absent;
    let g0r20s3: Decimal = K42;
    let g0r20s4: Decimal = K2;
    let g0r20s5: Decimal = round(div(Num::Dec(mul_dec(g0r20s1, K42)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r20s6: Value = Value::Absent;
    let g0r20s7: Decimal = g0r20s5;
    let g0r20s8: bool = false;
    let g0r21s0: bool = (number(&x[3])? >= K24);
    let g0r21s1: Decimal = s25;
    let g0r21s2: Value = Value::Absent;
    let g0r21s3: Decimal = K43;
    let g0r21s4: Decimal = if !g0r21s0 { K2 } else { K2 };
    let g0r21s5: Decimal = if !g0r21s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r21s1, K43)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r21s6: Value = Value::Absent;
    let g0r21s7: Decimal = g0r21s5;
    let g0r21s8: bool = false;
    let g0r22s0: bool = true;
    let g0r22s1: Decimal = s23;
    let g0r22s2: Decimal = K44;
    let g0r22s3: Value = Value::Absent;
    let g0r22s4: Decimal = round(div(Num::Dec(mul_dec(g0r22s1, K44)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r22s5: Decimal = K2;
    let g0r22s6: Decimal = g0r22s4;
    let g0r22s7: Value = Value::Absent;
    let g0r22s8: bool = false;
    let g0r23s0: bool = true;
    let g0r23s1: Decimal = s23;
    let g0r23s2: Decimal = K45;
    let g0r23s3: Value = Value::Absent;
    let g0r23s4: Decimal = round(div(Num::Dec(mul_dec(g0r23s1, K45)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r23s5: Decimal = K2;
    let g0r23s6: Decimal = g0r23s4;
    let g0r23s7: Value = Value::Absent;
    let g0r23s8: bool = true;
    let g0r24s0: bool = true;
    let g0r24s1: Decimal = s23;
    let g0r24s2: Decimal = K23;
    let g0r24s3: Value = Value::Absent;
    let g0r24s4: Decimal = round(div(Num::Dec(mul_dec(g0r24s1, K23)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?;
    let g0r24s5: Decimal = K2;
    let g0r24s6: Decimal = g0r24s4;
    let g0r24s7: Value = Value::Absent;
    let g0r24s8: bool = true;
    let g0r25s0: bool = s7;
    let g0r25s1: Decimal = s24;
    let g0r25s2: Decimal = K46;
    let g0r25s3: Value = Value::Absent;
    let g0r25s4: Decimal = if !g0r25s0 { K2 } else { round(div(Num::Dec(mul_dec(g0r25s1, K46)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)? };
    let g0r25s5: Decimal = if !g0r25s0 { K2 } else { K2 };
    let g0r25s6: Decimal = g0r25s4;
    let g0r25s7: Value = Value::Absent;
    let g0r25s8: bool = true;
    let g0r26s0: bool = !(x[12]).is_missing();
    let g0r26s1: Value = s19.clone();
    let g0r26s2: Value = Value::Absent;
    let g0r26s3: Value = Value::Absent;
    let g0r26s4: Decimal = if !g0r26s0 { K2 } else { s21 };
    let g0r26s5: Decimal = if !g0r26s0 { K2 } else { s20 };
    let g0r26s6: Decimal = g0r26s4;
    let g0r26s7: Decimal = g0r26s5;
    let g0r26s8: bool = false;
    let s26: Decimal = { let mut t = Decimal::ZERO; t = add_dec(t, g0r0s4)?; t = add_dec(t, g0r1s4)?; t = add_dec(t, g0r2s4)?; t = add_dec(t, g0r3s4)?; t = add_dec(t, g0r4s4)?; t = add_dec(t, g0r5s4)?; t = add_dec(t, g0r6s4)?; t = add_dec(t, g0r7s4)?; t = add_dec(t, g0r8s4)?; t = add_dec(t, g0r9s4)?; t = add_dec(t, g0r10s4)?; t = add_dec(t, g0r11s4)?; t = add_dec(t, g0r12s4)?; t = add_dec(t, g0r13s4)?; t = add_dec(t, g0r14s4)?; t = add_dec(t, g0r15s4)?; t = add_dec(t, g0r16s4)?; t = add_dec(t, g0r17s4)?; t = add_dec(t, g0r18s4)?; t = add_dec(t, g0r19s4)?; t = add_dec(t, g0r20s4)?; t = add_dec(t, g0r21s4)?; t = add_dec(t, g0r22s4)?; t = add_dec(t, g0r23s4)?; t = add_dec(t, g0r24s4)?; t = add_dec(t, g0r25s4)?; t = add_dec(t, g0r26s4)?; t }; // employee_lines
    let s27: Decimal = round_dec(mul_dec(K47, s10)?, 2, RoundingMode::HalfUp); // overtime_reduction
    let s28: Decimal = sub_dec(s26, s27)?; // total_cotisations_salariales
    let s29: Decimal = sub_dec(s13, s28)?; // net_before_tax
    let s30: Decimal = if (number(&x[0])? == K0) { better_dec(s10, better_dec(K2, sub_dec(K48, number(&({ let c = x[20].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}))?)?, true), false) } else { s10 }; // exempt_overtime
    let s31: Decimal = sub_dec(add_dec(add_dec(s29, { let mut t = Decimal::ZERO; if g0r0s8 { t = add_dec(t, g0r0s4)?; } if g0r1s8 { t = add_dec(t, g0r1s4)?; } if g0r2s8 { t = add_dec(t, g0r2s4)?; } if g0r3s8 { t = add_dec(t, g0r3s4)?; } if g0r4s8 { t = add_dec(t, g0r4s4)?; } if g0r5s8 { t = add_dec(t, g0r5s4)?; } if g0r6s8 { t = add_dec(t, g0r6s4)?; } if g0r7s8 { t = add_dec(t, g0r7s4)?; } if g0r8s8 { t = add_dec(t, g0r8s4)?; } if g0r9s8 { t = add_dec(t, g0r9s4)?; } if g0r10s8 { t = add_dec(t, g0r10s4)?; } if g0r11s8 { t = add_dec(t, g0r11s4)?; } if g0r12s8 { t = add_dec(t, g0r12s4)?; } if g0r13s8 { t = add_dec(t, g0r13s4)?; } if g0r14s8 { t = add_dec(t, g0r14s4)?; } if g0r15s8 { t = add_dec(t, g0r15s4)?; } if g0r16s8 { t = add_dec(t, g0r16s4)?; } if g0r17s8 { t = add_dec(t, g0r17s4)?; } if g0r18s8 { t = add_dec(t, g0r18s4)?; } if g0r19s8 { t = add_dec(t, g0r19s4)?; } if g0r20s8 { t = add_dec(t, g0r20s4)?; } if g0r21s8 { t = add_dec(t, g0r21s4)?; } if g0r22s8 { t = add_dec(t, g0r22s4)?; } if g0r23s8 { t = add_dec(t, g0r23s4)?; } if g0r24s8 { t = add_dec(t, g0r24s4)?; } if g0r25s8 { t = add_dec(t, g0r25s4)?; } if g0r26s8 { t = add_dec(t, g0r26s4)?; } t })?, s20)?, s30)?; // net_imposable
    let s32: Decimal = round(div(Num::Dec(mul_dec(s31, number(&x[16])?)?), Num::Dec(K12))?, 2, RoundingMode::HalfUp)?; // prelevement_source
    let s33: Decimal = if (x[13]).is_missing() { K2 } else { round(mul(mul(num(&(field(&x[13], 0)?))?, num(&(field(&x[13], 1)?))?)?, num(&(field(&x[13], 2)?))?)?, 2, RoundingMode::HalfUp)? }; // employer_meal_vouchers
    let s34: Num = if (x[13]).is_missing() { Num::Dec(K2) } else { sub(mul(num(&(field(&x[13], 0)?))?, num(&(field(&x[13], 1)?))?)?, Num::Dec(s33))? }; // employee_meal_vouchers
    let s35: Num = sub(Num::Dec(sub_dec(sub_dec(s29, s32)?, number(&({ let c = x[11].clone(); if !c.is_missing() { c } else { Value::Number(K2) }}))?)?), s34)?; // net_a_payer
    let s40: Decimal = { let mut t = Decimal::ZERO; t = add_dec(t, g0r0s5)?; t = add_dec(t, g0r1s5)?; t = add_dec(t, g0r2s5)?; t = add_dec(t, g0r3s5)?; t = add_dec(t, g0r4s5)?; t = add_dec(t, g0r5s5)?; t = add_dec(t, g0r6s5)?; t = add_dec(t, g0r7s5)?; t = add_dec(t, g0r8s5)?; t = add_dec(t, g0r9s5)?; t = add_dec(t, g0r10s5)?; t = add_dec(t, g0r11s5)?; t = add_dec(t, g0r12s5)?; t = add_dec(t, g0r13s5)?; t = add_dec(t, g0r14s5)?; t = add_dec(t, g0r15s5)?; t = add_dec(t, g0r16s5)?; t = add_dec(t, g0r17s5)?; t = add_dec(t, g0r18s5)?; t = add_dec(t, g0r19s5)?; t = add_dec(t, g0r20s5)?; t = add_dec(t, g0r21s5)?; t = add_dec(t, g0r22s5)?; t = add_dec(t, g0r23s5)?; t = add_dec(t, g0r24s5)?; t = add_dec(t, g0r25s5)?; t = add_dec(t, g0r26s5)?; t }; // employer_lines
    let s36: Decimal = if (number(&x[0])? == K0) { round(div(mul(div(Num::Dec(mul_dec(K49, number(&x[5])?)?), Num::Dec(K7))?, Num::Dec(s3))?, Num::Dec(s0))?, 2, RoundingMode::HalfUp)? } else { round(div(mul(Num::Dec(K49), sub(num(&x[5])?, num(&s11)?)?)?, num(&x[5])?)?, 2, RoundingMode::HalfUp)? }; // smic_ref
    let s37: Decimal = if (number(&x[3])? < K21) { K50 } else { K51 }; // rgdu_tdelta
    let s38: Value = if (number(&x[0])? <= K52) { x[17].clone() } else { Value::Number(if (s13 >= mul_dec(K5, s36)?) { K2 } else { if (s13 == K2) { add_dec(K53, s37)? } else { round_dec(better_dec(add_dec(K53, mul_dec(s37, pow(mul(Num::Dec(K54), sub(div(Num::Dec(mul_dec(K5, s36)?), Num::Dec(s13))?, Num::Dec(K1))?)?, Num::Dec(K55))?)?)?, add_dec(K53, s37)?, false), 4, RoundingMode::HalfUp) } }) }; // rgdu_rate
    let s39: Decimal = round_dec(mul_dec(s13, number(&s38)?)?, 2, RoundingMode::HalfUp); // rgdu
    let s41: Decimal = sub_dec(add_dec(add_dec(s13, s40)?, s33)?, s39)?; // cout_employeur
        let mut clauses = clauses(rb, 1)?;
        let mut answer = serde_json::Map::with_capacity(6);
        answer.insert("brut".to_string(), answer_dec(s13, Format::Fixed(2), &clauses)?);
        answer.insert("total_cotisations_salariales".to_string(), answer_dec(s28, Format::Fixed(2), &clauses)?);
        answer.insert("net_imposable".to_string(), answer_dec(s31, Format::Fixed(2), &clauses)?);
        answer.insert("prelevement_source".to_string(), answer_dec(s32, Format::Fixed(2), &clauses)?);
        answer.insert("net_a_payer".to_string(), answer_num(s35, Format::Fixed(2), &clauses)?);
        answer.insert("cout_employeur".to_string(), answer_dec(s41, Format::Fixed(2), &clauses)?);
        return Some(Outcome::Answer(serde_json::Value::Object(answer)));
    None
}
