//! The rulebook succession-fr@2026#45a8e38b6435, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "succession-fr@2026#45a8e38b6435",
    fingerprint: "af90a150bea5bf73b2eccd070ea5047effadc318d4936c84a733aafe10ff6261",
    run,
};

static K0: LazyLock<Value> = LazyLock::new(|| text("gift"));
const K1: Decimal = Decimal::from_parts(0, 0, 0, false, 0);
static K2: LazyLock<Value> = LazyLock::new(|| text("estate"));
const K3: Decimal = Decimal::from_parts(1, 0, 0, false, 0);
static K4: LazyLock<Value> = LazyLock::new(|| text(""));
static K5: LazyLock<Value> = LazyLock::new(|| text("spouse"));
const K6: Decimal = Decimal::from_parts(15, 0, 0, false, 0);
const K7: Decimal = Decimal::from_parts(1500, 0, 0, false, 0);
static K8: LazyLock<Value> = LazyLock::new(|| text("pacs_partner"));
static K9: LazyLock<Value> = LazyLock::new(|| text("child"));
static K10: LazyLock<Value> = LazyLock::new(|| text("grandchild"));
const K11: Decimal = Decimal::from_parts(80, 0, 0, false, 0);
const K12: Decimal = Decimal::from_parts(18, 0, 0, false, 0);
const K13: Decimal = Decimal::from_parts(31865, 0, 0, false, 0);
const K14: Decimal = Decimal::from_parts(100000, 0, 0, false, 0);
static K15: LazyLock<Value> = LazyLock::new(|| text("sibling"));
static K16: LazyLock<Value> = LazyLock::new(|| text("nephew_niece"));
static K17: LazyLock<Value> = LazyLock::new(|| text("great_grandchild"));
static K18: LazyLock<Value> = LazyLock::new(|| text("unrelated"));
const K19: Decimal = Decimal::from_parts(159325, 0, 0, false, 0);

/// The steps of one item of group `heirs`.
struct G0 {
    s0: Value,
    s1: Num,
    s2: bool,
    s3: Decimal,
    s4: bool,
    s5: Num,
    s6: Num,
    s7: Num,
    s8: Value,
    s9: Num,
    s10: Num,
    s11: Num,
    s12: Num,
    s13: Decimal,
    s14: Num,
    s15: Num,
    s16: Decimal,
}

fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    // Budget units the walker could spend on what this code computes.
    let mut spent: u64 = 0;
    let mut s0: Option<Decimal> = None; // funeral_deduction
    let mut s1: Option<Num> = None; // net_estate
    let mut s2: Option<Num> = None; // residue
    let mut s3: Option<Value> = None; // recall_start
    let mut s4: Option<Decimal> = None; // donor_age
    let mut s5: Option<Num> = None; // donor_bare_share
    let mut s6: Option<Num> = None; // spouse_bare_share
    let mut s7: Option<Decimal> = None; // total_tax
    // check 1
    spent += 16;
    if (BinOp::Eq.holds(cmp_value(&x[0], &(*K0))?) && (count(&x[5])? > K1)) {
        return None;
    }
    // check 2
    spent += 14;
    if (BinOp::Eq.holds(cmp_value(&x[0], &(*K0))?) && (number(&x[6])? != K1)) {
        return None;
    }
    // check 3
    spent += 16;
    if (BinOp::Eq.holds(cmp_value(&x[0], &(*K0))?) && (count(&x[7])? > K1)) {
        return None;
    }
    // check 4
    spent += 16;
    if (BinOp::Eq.holds(cmp_value(&x[0], &(*K0))?) && (count(&x[8])? > K1)) {
        return None;
    }
    // check 5
    spent += 10;
    if (BinOp::Eq.holds(cmp_value(&x[0], &(*K0))?) && truth(&x[9])?) {
        return None;
    }
    // check 6
    spent += 16;
    if (BinOp::Eq.holds(cmp_value(&x[0], &(*K2))?) && (count(&x[10])? > K1)) {
        return None;
    }
    // check 7
    spent += 18;
    if (BinOp::Eq.holds(cmp_value(&x[0], &(*K2))?) && BinOp::Ne.holds(cmp_num({ let listed0 = &({ let made = keys_values(&x[8], false)?; spent += units(&made); made }); spent += units(&listed0); sum(listed0)? }, Num::Dec(K3))?)) {
        return None;
    }
    // check 8
    spent += 56;
    if !({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[3])?.iter() { spent += 46; { out.push(Value::Bool((!(field(&(*l0), 5)?).is_missing() && BinOp::Eq.holds(cmp_num({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l1 in items(&x[3])?.iter() { spent += 26; if BinOp::Eq.holds(cmp_value(&({ let c = field(&(*l1), 5)?; if !c.is_missing() { c } else { let c = (*K4).clone(); if !c.is_missing() { c } else { Value::Absent }}}), &(field(&(*l0), 5)?))?) { out.push({ let c = { let made = get(&x[8], &(field(&(*l1), 0)?))?; spent += units(&made); made }; if !c.is_missing() { c } else { Value::Number(K1) }}); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? }, Num::Dec(K1))?)))); } } Value::List(out.into()) }); spent += units(&listed0); let made = find_index(listed0)?; spent += units(&made); made }).is_missing() {
        return None;
    }
    // check 9
    spent += 24;
    if (truth(&x[9])? && (count(&({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[3])?.iter() { spent += 10; if BinOp::Eq.holds(cmp_value(&(field(&(*l0), 2)?), &(*K5))?) { out.push((*l0).clone()); } } Value::List(out.into()) }))? != K3)) {
        return None;
    }
    // check 10
    if s3.is_none() { // recall_start
        spent += 8;
        s3 = Some({ let made = add_years(&x[1], Num::Dec(neg_dec(K6)))?; spent += units(&made); made });
    }
    spent += 2;
    // group heirs
    let go0: Value = x[3].clone();
    let gl0 = items(&go0)?;
    let mut g0: Vec<G0> = Vec::with_capacity(gl0.len());
    for it in gl0.iter() {
        spent += 640;
        let i0: Value = { let c = { let made = get(&x[8], &(field(&(*it), 0)?))?; spent += units(&made); made }; if !c.is_missing() { c } else { Value::Number(K1) }};
        let i1: Num = if BinOp::Eq.holds(cmp_value(&x[0], &(*K2))?) { {
    if s0.is_none() { // funeral_deduction
        spent += 6;
        s0 = Some(better_dec(number(&x[6])?, K7, false));
    }
    if s1.is_none() { // net_estate
        spent += 18;
        s1 = Some(sub(sub({ let listed0 = &(field(&x[4], 1)?); spent += units(&listed0); sum(listed0)? }, { let listed0 = &(field(&x[5], 1)?); spent += units(&listed0); sum(listed0)? })?, Num::Dec(s0?))?);
    }
    if s2.is_none() { // residue
        spent += 10;
        s2 = Some(sub(s1?, { let listed0 = &(field(&x[7], 1)?); spent += units(&listed0); sum(listed0)? })?);
    }
    if s6.is_none() { // spouse_bare_share
        spent += 38;
        s6 = Some(if truth(&x[9])? { sub(Num::Dec(K3), num(&(field(&(range_row(rb, facts, 1, num(&({ let listed = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[3])?.iter() { spent += 16; if BinOp::Eq.holds(cmp_value(&(field(&(*l0), 2)?), &(*K5))?) { out.push(Value::Number(age(&(field(&(*l0), 3)?), &x[1])?)); } } Value::List(out.into()) }); spent += units(listed); extremum_of(listed, true)? }))?)?), 1)?))?)? } else { Num::Dec(K3) });
    }
    add({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[7])?.iter() { spent += 14; if BinOp::Eq.holds(cmp_value(&(field(&(*l0), 0)?), &(field(&(*it), 0)?))?) { out.push(field(&(*l0), 1)?); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? }, mul(mul(s2?, num(&i0)?)?, s6?)?)? } } else { {
    if s4.is_none() { // donor_age
        spent += 8;
        s4 = Some(age(&(field(&x[2], 1)?), &x[1])?);
    }
    if s5.is_none() { // donor_bare_share
        spent += 12;
        s5 = Some(sub(Num::Dec(K3), num(&(field(&(range_row(rb, facts, 1, Num::Dec(s4?))?), 1)?))?)?);
    }
    { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[10])?.iter() { spent += 32; if BinOp::Eq.holds(cmp_value(&(field(&(*l0), 0)?), &(field(&(*it), 0)?))?) { out.push(value(mul(mul(num(&(field(&(*l0), 2)?))?, num(&(field(&(*l0), 3)?))?)?, if truth(&(field(&(*l0), 5)?))? { s5? } else { Num::Dec(K3) })?)); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? } } };
        let i2: bool = (BinOp::Eq.holds(cmp_value(&x[0], &(*K2))?) && (BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K5))?) || BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K8))?)));
        let i3: Decimal = age(&(field(&(*it), 3)?), &x[1])?;
        let i4: bool = (((BinOp::Eq.holds(cmp_value(&x[0], &(*K0))?) && (BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K9))?) || BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K10))?))) && {
    if s4.is_none() { // donor_age
        spent += 8;
        s4 = Some(age(&(field(&x[2], 1)?), &x[1])?);
    }
    (s4? < K11) }) && (i3 >= K12));
        let i5: Num = better_num(Num::Dec(K1), sub(Num::Dec(K13), { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[11])?.iter() { spent += 30; if ((BinOp::Eq.holds(cmp_value(&(field(&(*l0), 0)?), &(field(&(*it), 0)?))?) && truth(&(field(&(*l0), 3)?))?) && BinOp::Gt.holds(cmp_value(&(field(&(*l0), 1)?), &(*s3.as_ref()?))?)) { out.push(field(&(*l0), 2)?); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? })?, true)?;
        let i6: Num = if i4 { {
    if s4.is_none() { // donor_age
        spent += 8;
        s4 = Some(age(&(field(&x[2], 1)?), &x[1])?);
    }
    if s5.is_none() { // donor_bare_share
        spent += 12;
        s5 = Some(sub(Num::Dec(K3), num(&(field(&(range_row(rb, facts, 1, Num::Dec(s4?))?), 1)?))?)?);
    }
    better_num({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[10])?.iter() { spent += 38; if (BinOp::Eq.holds(cmp_value(&(field(&(*l0), 0)?), &(field(&(*it), 0)?))?) && truth(&(field(&(*l0), 4)?))?) { out.push(value(mul(mul(num(&(field(&(*l0), 2)?))?, num(&(field(&(*l0), 3)?))?)?, if truth(&(field(&(*l0), 5)?))? { s5? } else { Num::Dec(K3) })?)); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? }, i5, false)? } } else { Num::Dec(K1) };
        let i7: Num = if (field(&(*it), 5)?).is_missing() { Num::Dec(K1) } else { { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[3])?.iter() { spent += 26; if BinOp::Eq.holds(cmp_value(&({ let c = field(&(*l0), 5)?; if !c.is_missing() { c } else { let c = (*K4).clone(); if !c.is_missing() { c } else { Value::Absent }}}), &(field(&(*it), 5)?))?) { out.push({ let c = { let made = get(&x[8], &(field(&(*l0), 0)?))?; spent += units(&made); made }; if !c.is_missing() { c } else { Value::Number(K1) }}); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? } };
        let i8: Value = if !(field(&(*it), 5)?).is_missing() { value(div(mul(Num::Dec(K14), num(&i0)?)?, i7)?) } else { field(&(lookup(rb, facts, 0, &[field(&(*it), 2)?, x[0].clone()])?), 2)? };
        let _ = (!(field(&(*it), 5)?).is_missing() || { let m = &(field(&(*it), 2)?); if matches(m, &(*K9))? || matches(m, &(*K15))? || matches(m, &(*K16))? { true } else { false } });
        let _ = (((field(&(*it), 5)?).is_missing() && BinOp::Eq.holds(cmp_value(&x[0], &(*K2))?)) && { let m = &(field(&(*it), 2)?); if matches(m, &(*K10))? || matches(m, &(*K17))? || matches(m, &(*K18))? { true } else { false } });
        let _ = (BinOp::Eq.holds(cmp_value(&x[0], &(*K0))?) && BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K10))?));
        let _ = (BinOp::Eq.holds(cmp_value(&x[0], &(*K0))?) && BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K17))?));
        let i9: Num = add(num(&i8)?, Num::Dec(if truth(&(field(&(*it), 4)?))? { K19 } else { K1 }))?;
        let i10: Num = { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[11])?.iter() { spent += 32; if ((BinOp::Eq.holds(cmp_value(&(field(&(*l0), 0)?), &(field(&(*it), 0)?))?) && !truth(&(field(&(*l0), 3)?))?) && BinOp::Gt.holds(cmp_value(&(field(&(*l0), 1)?), &(*s3.as_ref()?))?)) { out.push(field(&(*l0), 2)?); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? };
        let i11: Num = better_num(i9, i10, false)?;
        let i12: Num = sub(i10, i11)?;
        let i13: Decimal = round(if i2 { Num::Dec(K1) } else { better_num(Num::Dec(K1), sub(sub(i1, i6)?, sub(i9, i11)?)?, true)? }, 0, RoundingMode::HalfUp)?;
        let i14: Num = if BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K15))?) { scale(rb, facts, 3, i12, None)? } else { if BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K16))?) { scale(rb, facts, 4, i12, None)? } else { if BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K18))?) { scale(rb, facts, 5, i12, None)? } else { scale(rb, facts, 2, i12, None)? } } };
        let i15: Num = if BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K15))?) { scale(rb, facts, 3, add(i12, Num::Dec(i13))?, None)? } else { if BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K16))?) { scale(rb, facts, 4, add(i12, Num::Dec(i13))?, None)? } else { if BinOp::Eq.holds(cmp_value(&(field(&(*it), 2)?), &(*K18))?) { scale(rb, facts, 5, add(i12, Num::Dec(i13))?, None)? } else { scale(rb, facts, 2, add(i12, Num::Dec(i13))?, None)? } } };
        let i16: Decimal = round(if i2 { Num::Dec(K1) } else { sub(i15, i14)? }, 0, RoundingMode::HalfUp)?;
        g0.push(G0 { s0: i0, s1: i1, s2: i2, s3: i3, s4: i4, s5: i5, s6: i6, s7: i7, s8: i8, s9: i9, s10: i10, s11: i11, s12: i12, s13: i13, s14: i14, s15: i15, s16: i16 });
    }
    if s7.is_none() { // total_tax
        spent += 6;
        s7 = Some({ spent += 2 * g0.len() as u64; let mut t = Decimal::ZERO; for r in g0.iter() { t = add_dec(t, r.s16)?; } t });
    }
        let mut clauses = clauses(rb, 9)?;
        let mut object = Vec::with_capacity(2);
        object.push((Arc::from("beneficiaires"), { let mut listed = Vec::new(); for (it, r) in gl0.iter().zip(g0.iter()) { { let mut o = Vec::with_capacity(2); o.push((Arc::from("part_taxable"), { spent += 2; answer_dec(r.s13, Format::Integer, &clauses)? })); o.push((Arc::from("droits"), { spent += 2; answer_dec(r.s16, Format::Integer, &clauses)? })); listed.push(({ spent += 4; Some(item_key(&(field(&(*it), 0)?))?) }, Fields(o))); } } each(listed, true)? }));
        object.push((Arc::from("total_droits"), { spent += 2; answer_dec(s7?, Format::Integer, &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 0, object);
    None
}
