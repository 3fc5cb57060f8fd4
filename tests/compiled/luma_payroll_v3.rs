//! The rulebook luma-payroll@3#114555701f02, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "luma-payroll@3#114555701f02",
    fingerprint: "2a90ced6be9e552a5e3403e18a66cbc84fa27c8dbf8b745699404aa0d43155b4",
    run,
};

const K0: Decimal = Decimal::from_parts(35000, 0, 0, false, 2);
static K1: LazyLock<Value> = LazyLock::new(|| text("retrieval"));
static K2: LazyLock<Value> = LazyLock::new(|| text("deduction_cap"));
static K3: LazyLock<Value> = LazyLock::new(|| text("retrieve"));
static K4: LazyLock<Value> = LazyLock::new(|| text("contribution_rate"));
static K5: LazyLock<Value> = LazyLock::new(|| text("contribution_cap"));
static K6: LazyLock<Value> = LazyLock::new(|| text("clarify"));
static K7: LazyLock<Value> = LazyLock::new(|| text("MISSING_GROSS_PAY"));
static K8: LazyLock<Value> = LazyLock::new(|| text("MISSING_PAYROLL_MONTH"));
static K9: LazyLock<Value> = LazyLock::new(|| text("NO_APPLICABLE_REFERENCE"));
static K10: LazyLock<Value> = LazyLock::new(|| text("CONFLICTING_GROSS_PAY"));
static K11: LazyLock<Value> = LazyLock::new(|| text("calculate"));
static K12: LazyLock<Value> = LazyLock::new(|| text("LCR"));
const K13: Decimal = Decimal::from_parts(0, 0, 0, false, 0);

fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    // Budget units the walker could spend on what this code computes.
    let mut spent: u64 = 0;
    let mut s0: Option<Value> = None; // row
    let mut s1: Option<Value> = None; // deduction_cap
    let mut s2: Option<Decimal> = None; // employee_contribution
    let mut s3: Option<Decimal> = None; // available_pay
    let mut s4: Option<Decimal> = None; // taxable_pay
    let mut s5: Option<Decimal> = None; // income_tax
    let mut s6: Option<Decimal> = None; // net_pay
    let mut s7: Option<bool> = None; // contract_conflict
    let mut s8: Option<bool> = None; // amendment_resolves
    let mut s9: Option<Value> = None; // retrieved_value
    // check 1
    spent += 6;
    if s0.is_none() { // row
        spent += 6;
        s0 = Some(period_row(rb, facts, 0, &x[2])?);
    }
    if s1.is_none() { // deduction_cap
        spent += 12;
        s1 = Some(if ((*s0.as_ref()?)).is_missing() { Value::Number(K0) } else { field(&(*s0.as_ref()?), 2)? });
    }
    if { let l = &x[3]; let r = &(*s1.as_ref()?); spent += text_units(l) + text_units(r); BinOp::Gt.holds(cmp_value(l, r)?) } {
        return None;
    }
    // check 2
    spent += 22;
    if ((!(x[1]).is_missing() && !((*s0.as_ref()?)).is_missing()) && {
    if s2.is_none() { // employee_contribution
        spent += 14;
        s2 = Some(round(mul(num(&(field(&(*s0.as_ref()?), 0)?))?, num(&(better_value(x[1].clone(), field(&(*s0.as_ref()?), 1)?, false)?))?)?, 2, RoundingMode::HalfUp)?);
    }
    if s3.is_none() { // available_pay
        spent += 6;
        s3 = Some(sub_dec(number(&x[1])?, s2?)?);
    }
    (number(&x[3])? > s3?) }) {
        return None;
    }
    // check 3
    spent += 12;
    if ({ let l = &x[0]; let r = &(*K1); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && (x[2]).is_missing()) {
        return None;
    }
    // check 4
    spent += 12;
    if ({ let l = &x[0]; let r = &(*K1); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && ((*s0.as_ref()?)).is_missing()) {
        return None;
    }
    // check 5
    spent += 6;
    if { let l = &x[0]; let r = &(*K1); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } {
        spent += 6;
        spent += 6;
    if s9.is_none() { // retrieved_value
        spent += 16;
        s9 = Some({ let m = &x[7]; spent += text_units(m); if matches(m, &(*K4))? { field(&(*s0.as_ref()?), 0)? } else if matches(m, &(*K5))? { field(&(*s0.as_ref()?), 1)? } else { field(&(*s0.as_ref()?), 2)? } });
    }
        let mut clauses = clauses(rb, 4)?;
        if { let l = &x[7]; let r = &(*K2); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } {
            cite(rb, 2, 0, &mut clauses)?;
        }
        if { let l = &x[7]; let r = &(*K2); spent += text_units(l) + text_units(r); BinOp::Ne.holds(cmp_value(l, r)?) } {
            cite(rb, 2, 1, &mut clauses)?;
        }
        let mut object = Vec::with_capacity(4);
        object.push((Arc::from("decision"), { spent += 2; answer(&(*K3), Format::Text, &clauses)? }));
        object.push((Arc::from("field"), { spent += 2; answer(&x[7], Format::Text, &clauses)? }));
        object.push((Arc::from("value"), { spent += 2; answer(&(*s9.as_ref()?), Format::Decimal, &clauses)? }));
        object.push((Arc::from("clauses"), { spent += 2; answer(&(Value::Absent), Format::Clauses, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 2, object);
    }
    // check 6
    spent += 4;
    if (x[1]).is_missing() {
        let mut clauses = clauses(rb, 5)?;
        let mut object = Vec::with_capacity(3);
        object.push((Arc::from("decision"), { spent += 2; answer(&(*K6), Format::Text, &clauses)? }));
        object.push((Arc::from("reason_code"), { spent += 2; answer(&(*K7), Format::Text, &clauses)? }));
        object.push((Arc::from("clauses"), { spent += 2; answer(&(Value::Absent), Format::Clauses, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 1, object);
    }
    // check 7
    spent += 4;
    if (x[2]).is_missing() {
        let mut clauses = clauses(rb, 6)?;
        let mut object = Vec::with_capacity(3);
        object.push((Arc::from("decision"), { spent += 2; answer(&(*K6), Format::Text, &clauses)? }));
        object.push((Arc::from("reason_code"), { spent += 2; answer(&(*K8), Format::Text, &clauses)? }));
        object.push((Arc::from("clauses"), { spent += 2; answer(&(Value::Absent), Format::Clauses, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 1, object);
    }
    // check 8
    spent += 4;
    if ((*s0.as_ref()?)).is_missing() {
        let mut clauses = clauses(rb, 7)?;
        let mut object = Vec::with_capacity(3);
        object.push((Arc::from("decision"), { spent += 2; answer(&(*K6), Format::Text, &clauses)? }));
        object.push((Arc::from("reason_code"), { spent += 2; answer(&(*K9), Format::Text, &clauses)? }));
        object.push((Arc::from("clauses"), { spent += 2; answer(&(Value::Absent), Format::Clauses, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 1, object);
    }
    // check 9
    spent += 8;
    if s7.is_none() { // contract_conflict
        spent += 14;
        s7 = Some((!(x[4]).is_missing() && (number(&x[4])? != number(&x[1])?)));
    }
    if (s7? && {
    if s8.is_none() { // amendment_resolves
        spent += 32;
        s8 = Some((((!(x[5]).is_missing() && truth(&(field(&x[5], 2)?))?) && { let l = &(field(&x[5], 1)?); let r = &x[2]; spent += text_units(l) + text_units(r); BinOp::Le.holds(cmp_value(l, r)?) }) && (number(&(field(&x[5], 0)?))? == number(&x[1])?)));
    }
    !s8? }) {
        let mut clauses = clauses(rb, 8)?;
        let mut object = Vec::with_capacity(3);
        object.push((Arc::from("decision"), { spent += 2; answer(&(*K6), Format::Text, &clauses)? }));
        object.push((Arc::from("reason_code"), { spent += 2; answer(&(*K10), Format::Text, &clauses)? }));
        object.push((Arc::from("clauses"), { spent += 2; answer(&(Value::Absent), Format::Clauses, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 1, object);
    }
    // check 10
        spent += 6;
    if s2.is_none() { // employee_contribution
        spent += 14;
        s2 = Some(round(mul(num(&(field(&(*s0.as_ref()?), 0)?))?, num(&(better_value(x[1].clone(), field(&(*s0.as_ref()?), 1)?, false)?))?)?, 2, RoundingMode::HalfUp)?);
    }
    if s4.is_none() { // taxable_pay
        spent += 10;
        s4 = Some(sub_dec(sub_dec(number(&x[1])?, s2?)?, number(&x[3])?)?);
    }
    if s5.is_none() { // income_tax
        spent += 48;
        s5 = Some(round(add(mul(num(&(field(&(*s0.as_ref()?), 5)?))?, clamp(sub(Num::Dec(s4?), num(&(field(&(*s0.as_ref()?), 3)?))?)?, Num::Dec(K13), sub(num(&(field(&(*s0.as_ref()?), 4)?))?, num(&(field(&(*s0.as_ref()?), 3)?))?)?)?)?, mul(num(&(field(&(*s0.as_ref()?), 6)?))?, better_num(sub(Num::Dec(s4?), num(&(field(&(*s0.as_ref()?), 4)?))?)?, Num::Dec(K13), true)?)?)?, 2, RoundingMode::HalfUp)?);
    }
    if s6.is_none() { // net_pay
        spent += 14;
        s6 = Some(sub_dec(sub_dec(sub_dec(number(&x[1])?, s2?)?, number(&x[3])?)?, s5?)?);
    }
        let mut clauses = clauses(rb, 9)?;
        if (s7? && {
    if s8.is_none() { // amendment_resolves
        spent += 32;
        s8 = Some((((!(x[5]).is_missing() && truth(&(field(&x[5], 2)?))?) && { let l = &(field(&x[5], 1)?); let r = &x[2]; spent += text_units(l) + text_units(r); BinOp::Le.holds(cmp_value(l, r)?) }) && (number(&(field(&x[5], 0)?))? == number(&x[1])?)));
    }
    s8? }) {
            cite(rb, 0, 0, &mut clauses)?;
        }
        let mut object = Vec::with_capacity(9);
        object.push((Arc::from("decision"), { spent += 2; answer(&(*K11), Format::Text, &clauses)? }));
        object.push((Arc::from("currency"), { spent += 2; answer(&(*K12), Format::Text, &clauses)? }));
        object.push((Arc::from("gross_pay"), { spent += 2; answer(&x[1], Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("employee_contribution"), { spent += 2; answer_dec(s2?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("allowed_deduction"), { spent += 2; answer(&x[3], Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("taxable_pay"), { spent += 2; answer_dec(s4?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("income_tax"), { spent += 2; answer_dec(s5?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("net_pay"), { spent += 2; answer_dec(s6?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("clauses"), { spent += 2; answer(&(Value::Absent), Format::Clauses, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 0, object);
    None
}
