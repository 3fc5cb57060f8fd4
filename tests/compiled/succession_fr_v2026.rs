//! The rulebook succession-fr@2026#45a8e38b6435, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "succession-fr@2026#45a8e38b6435",
    fingerprint: "ebe4a97e9e62062deb2208f0999996efebe603846739ecf0870f9d63c089230b",
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
    if ({ let l = &x[0]; let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && ({ let arg0 = &x[5]; spent += text_units(&arg0); count(arg0)? } > K1)) {
        return None;
    }
    // check 2
    spent += 14;
    if ({ let l = &x[0]; let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && (number(&x[6])? != K1)) {
        return None;
    }
    // check 3
    spent += 16;
    if ({ let l = &x[0]; let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && ({ let arg0 = &x[7]; spent += text_units(&arg0); count(arg0)? } > K1)) {
        return None;
    }
    // check 4
    spent += 16;
    if ({ let l = &x[0]; let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && ({ let arg0 = &x[8]; spent += text_units(&arg0); count(arg0)? } > K1)) {
        return None;
    }
    // check 5
    spent += 10;
    if ({ let l = &x[0]; let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && truth(&x[9])?) {
        return None;
    }
    // check 6
    spent += 16;
    if ({ let l = &x[0]; let r = &(*K2); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && ({ let arg0 = &x[10]; spent += text_units(&arg0); count(arg0)? } > K1)) {
        return None;
    }
    // check 7
    spent += 18;
    if ({ let l = &x[0]; let r = &(*K2); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && BinOp::Ne.holds(cmp_num({ let listed0 = &({ let arg0 = &x[8]; spent += text_units(&arg0); let made = keys_values(arg0, false)?; spent += units(&made); made }); spent += units(&listed0); sum(listed0)? }, Num::Dec(K3))?)) {
        return None;
    }
    // check 8
    spent += 56;
    if !({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[3])?.iter() { spent += 46; { out.push(Value::Bool((!(field(&(*l0), 5)?).is_missing() && BinOp::Eq.holds(cmp_num({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l1 in items(&x[3])?.iter() { spent += 26; if { let l = &({ let c = field(&(*l1), 5)?; if !c.is_missing() { c } else { let c = (*K4).clone(); if !c.is_missing() { c } else { Value::Absent }}}); let r = &(field(&(*l0), 5)?); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { out.push({ let c = { let arg0 = &x[8]; spent += text_units(&arg0); let arg1 = &(field(&(*l1), 0)?); spent += text_units(&arg1); let made = get(arg0, arg1)?; spent += units(&made); made }; if !c.is_missing() { c } else { Value::Number(K1) }}); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? }, Num::Dec(K1))?)))); } } Value::List(out.into()) }); spent += units(&listed0); let made = find_index(listed0)?; spent += units(&made); made }).is_missing() {
        return None;
    }
    // check 9
    spent += 24;
    if (truth(&x[9])? && ({ let arg0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[3])?.iter() { spent += 10; if { let l = &(field(&(*l0), 2)?); let r = &(*K5); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { out.push((*l0).clone()); } } Value::List(out.into()) }); spent += text_units(&arg0); count(arg0)? } != K3)) {
        return None;
    }
    // check 10
    if s3.is_none() { // recall_start
        spent += 8;
        s3 = Some({ let arg0 = &x[1]; spent += text_units(&arg0); let made = add_years(arg0, Num::Dec(neg_dec(K6)))?; spent += units(&made); made });
    }
    spent += 2;
    // group heirs
    let go0: Value = x[3].clone();
    let gl0 = items(&go0)?;
    let mut g0: Vec<G0> = Vec::with_capacity(gl0.len());
    for it in gl0.iter() {
        spent += 640;
        let i0: Value = { let c = { let arg0 = &x[8]; spent += text_units(&arg0); let arg1 = &(field(&(*it), 0)?); spent += text_units(&arg1); let made = get(arg0, arg1)?; spent += units(&made); made }; if !c.is_missing() { c } else { Value::Number(K1) }};
        let i1: Num = if { let l = &x[0]; let r = &(*K2); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { {
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
        s6 = Some(if truth(&x[9])? { sub(Num::Dec(K3), num(&(field(&(range_row(rb, facts, 1, num(&({ let listed = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[3])?.iter() { spent += 16; if { let l = &(field(&(*l0), 2)?); let r = &(*K5); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { out.push(Value::Number({ let arg0 = &(field(&(*l0), 3)?); spent += text_units(&arg0); let arg1 = &x[1]; spent += text_units(&arg1); age(arg0, arg1)? })); } } Value::List(out.into()) }); spent += units(listed); extremum_of(listed, true)? }))?)?), 1)?))?)? } else { Num::Dec(K3) });
    }
    add({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[7])?.iter() { spent += 14; if { let l = &(field(&(*l0), 0)?); let r = &(field(&(*it), 0)?); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { out.push(field(&(*l0), 1)?); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? }, mul(mul(s2?, num(&i0)?)?, s6?)?)? } } else { {
    if s4.is_none() { // donor_age
        spent += 8;
        s4 = Some({ let arg0 = &(field(&x[2], 1)?); spent += text_units(&arg0); let arg1 = &x[1]; spent += text_units(&arg1); age(arg0, arg1)? });
    }
    if s5.is_none() { // donor_bare_share
        spent += 12;
        s5 = Some(sub(Num::Dec(K3), num(&(field(&(range_row(rb, facts, 1, Num::Dec(s4?))?), 1)?))?)?);
    }
    { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[10])?.iter() { spent += 32; if { let l = &(field(&(*l0), 0)?); let r = &(field(&(*it), 0)?); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { out.push(value(mul(mul(num(&(field(&(*l0), 2)?))?, num(&(field(&(*l0), 3)?))?)?, if truth(&(field(&(*l0), 5)?))? { s5? } else { Num::Dec(K3) })?)); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? } } };
        let i2: bool = ({ let l = &x[0]; let r = &(*K2); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && ({ let l = &(field(&(*it), 2)?); let r = &(*K5); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } || { let l = &(field(&(*it), 2)?); let r = &(*K8); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) }));
        let i3: Decimal = { let arg0 = &(field(&(*it), 3)?); spent += text_units(&arg0); let arg1 = &x[1]; spent += text_units(&arg1); age(arg0, arg1)? };
        let i4: bool = ((({ let l = &x[0]; let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && ({ let l = &(field(&(*it), 2)?); let r = &(*K9); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } || { let l = &(field(&(*it), 2)?); let r = &(*K10); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) })) && {
    if s4.is_none() { // donor_age
        spent += 8;
        s4 = Some({ let arg0 = &(field(&x[2], 1)?); spent += text_units(&arg0); let arg1 = &x[1]; spent += text_units(&arg1); age(arg0, arg1)? });
    }
    (s4? < K11) }) && (i3 >= K12));
        let i5: Num = better_num(Num::Dec(K1), sub(Num::Dec(K13), { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[11])?.iter() { spent += 30; if (({ let l = &(field(&(*l0), 0)?); let r = &(field(&(*it), 0)?); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && truth(&(field(&(*l0), 3)?))?) && { let l = &(field(&(*l0), 1)?); let r = &(*s3.as_ref()?); spent += text_units(l) + text_units(r); BinOp::Gt.holds(cmp_value(l, r)?) }) { out.push(field(&(*l0), 2)?); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? })?, true)?;
        let i6: Num = if i4 { {
    if s4.is_none() { // donor_age
        spent += 8;
        s4 = Some({ let arg0 = &(field(&x[2], 1)?); spent += text_units(&arg0); let arg1 = &x[1]; spent += text_units(&arg1); age(arg0, arg1)? });
    }
    if s5.is_none() { // donor_bare_share
        spent += 12;
        s5 = Some(sub(Num::Dec(K3), num(&(field(&(range_row(rb, facts, 1, Num::Dec(s4?))?), 1)?))?)?);
    }
    better_num({ let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[10])?.iter() { spent += 38; if ({ let l = &(field(&(*l0), 0)?); let r = &(field(&(*it), 0)?); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && truth(&(field(&(*l0), 4)?))?) { out.push(value(mul(mul(num(&(field(&(*l0), 2)?))?, num(&(field(&(*l0), 3)?))?)?, if truth(&(field(&(*l0), 5)?))? { s5? } else { Num::Dec(K3) })?)); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? }, i5, false)? } } else { Num::Dec(K1) };
        let i7: Num = if (field(&(*it), 5)?).is_missing() { Num::Dec(K1) } else { { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[3])?.iter() { spent += 26; if { let l = &({ let c = field(&(*l0), 5)?; if !c.is_missing() { c } else { let c = (*K4).clone(); if !c.is_missing() { c } else { Value::Absent }}}); let r = &(field(&(*it), 5)?); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { out.push({ let c = { let arg0 = &x[8]; spent += text_units(&arg0); let arg1 = &(field(&(*l0), 0)?); spent += text_units(&arg1); let made = get(arg0, arg1)?; spent += units(&made); made }; if !c.is_missing() { c } else { Value::Number(K1) }}); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? } };
        let i8: Value = if !(field(&(*it), 5)?).is_missing() { value(div(mul(Num::Dec(K14), num(&i0)?)?, i7)?) } else { field(&(lookup(rb, facts, 0, &[field(&(*it), 2)?, x[0].clone()])?), 2)? };
        let _ = (!(field(&(*it), 5)?).is_missing() || { let m = &(field(&(*it), 2)?); spent += text_units(m); if matches(m, &(*K9))? || matches(m, &(*K15))? || matches(m, &(*K16))? { true } else { false } });
        let _ = (((field(&(*it), 5)?).is_missing() && { let l = &x[0]; let r = &(*K2); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) }) && { let m = &(field(&(*it), 2)?); spent += text_units(m); if matches(m, &(*K10))? || matches(m, &(*K17))? || matches(m, &(*K18))? { true } else { false } });
        let _ = ({ let l = &x[0]; let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && { let l = &(field(&(*it), 2)?); let r = &(*K10); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) });
        let _ = ({ let l = &x[0]; let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && { let l = &(field(&(*it), 2)?); let r = &(*K17); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) });
        let i9: Num = add(num(&i8)?, Num::Dec(if truth(&(field(&(*it), 4)?))? { K19 } else { K1 }))?;
        let i10: Num = { let listed0 = &({ let mut out: Vec<Value> = Vec::new(); for l0 in items(&x[11])?.iter() { spent += 32; if (({ let l = &(field(&(*l0), 0)?); let r = &(field(&(*it), 0)?); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } && !truth(&(field(&(*l0), 3)?))?) && { let l = &(field(&(*l0), 1)?); let r = &(*s3.as_ref()?); spent += text_units(l) + text_units(r); BinOp::Gt.holds(cmp_value(l, r)?) }) { out.push(field(&(*l0), 2)?); } } Value::List(out.into()) }); spent += units(&listed0); sum(listed0)? };
        let i11: Num = better_num(i9, i10, false)?;
        let i12: Num = sub(i10, i11)?;
        let i13: Decimal = round(if i2 { Num::Dec(K1) } else { better_num(Num::Dec(K1), sub(sub(i1, i6)?, sub(i9, i11)?)?, true)? }, 0, RoundingMode::HalfUp)?;
        let i14: Num = if { let l = &(field(&(*it), 2)?); let r = &(*K15); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { scale(rb, facts, 3, i12, None)? } else { if { let l = &(field(&(*it), 2)?); let r = &(*K16); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { scale(rb, facts, 4, i12, None)? } else { if { let l = &(field(&(*it), 2)?); let r = &(*K18); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { scale(rb, facts, 5, i12, None)? } else { scale(rb, facts, 2, i12, None)? } } };
        let i15: Num = if { let l = &(field(&(*it), 2)?); let r = &(*K15); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { scale(rb, facts, 3, add(i12, Num::Dec(i13))?, None)? } else { if { let l = &(field(&(*it), 2)?); let r = &(*K16); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { scale(rb, facts, 4, add(i12, Num::Dec(i13))?, None)? } else { if { let l = &(field(&(*it), 2)?); let r = &(*K18); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) } { scale(rb, facts, 5, add(i12, Num::Dec(i13))?, None)? } else { scale(rb, facts, 2, add(i12, Num::Dec(i13))?, None)? } } };
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
