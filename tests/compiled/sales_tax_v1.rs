//! The rulebook sales-tax@1#847f9da7470a, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::unstable::compiled::rt::*;
use bareme::unstable::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "sales-tax@1#847f9da7470a",
    fingerprint: "b372d8ad0930e3d20b35af4cd87d2ff381f0ce498009397a98169858e27b7b0c",
    run,
};

static K0: LazyLock<Value> = LazyLock::new(|| text("taxable"));
const K1: Decimal = Decimal::from_parts(0, 0, 0, false, 0);

/// The steps of one item of group `lines`.
struct G0 {
    s0: Value,
    s1: Value,
    s2: Value,
    s3: bool,
    s4: Value,
    s5: Num,
    s6: Num,
    s7: Decimal,
    s8: Decimal,
    s9: Num,
}

fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    // Budget units the walker could spend on what this code computes.
    let mut spent: u64 = 0;
    let mut s0: Option<Value> = None; // invoice_lines
    let mut s1: Option<Decimal> = None; // subtotal
    let mut s2: Option<Decimal> = None; // total_tax
    let mut s3: Option<Decimal> = None; // invoice_total
    // check 1
    spent += 2;
    if s0.is_none() { // invoice_lines
        spent += 4;
        s0 = Some(field(&x[3], 2)?);
    }
    // group lines
    let go0: Value = (*s0.as_ref()?).clone();
    let gl0 = items(&go0)?;
    let mut g0: Vec<G0> = Vec::with_capacity(gl0.len());
    for it in gl0.iter() {
        spent += 68;
        let i0: Value = { let arg0 = &x[1]; spent += text_units(&arg0); let arg1 = &(field(&(*it), 1)?); spent += text_units(&arg1); let made = get(arg0, arg1)?; spent += units(&made); made };
        let i1: Value = field(&(*it), 2)?;
        let i2: Value = lookup(rb, facts, 0, &[field(&(*it), 3)?])?;
        let i3: bool = { let l = &({ let arg0 = &(field(&i2, 2)?); spent += text_units(&arg0); let arg1 = &(field(&i0, 0)?); spent += text_units(&arg1); let made = get(arg0, arg1)?; spent += units(&made); made }); let r = &(*K0); spent += text_units(l) + text_units(r); BinOp::Eq.holds(cmp_value(l, r)?) };
        let i4: Value = field(&i2, 1)?;
        let i5: Num = mul(num(&(field(&i0, 1)?))?, num(&i1)?)?;
        let i6: Num = if i3 { mul(num(&i4)?, i5)? } else { Num::Dec(K1) };
        let i7: Decimal = round(i6, 2, RoundingMode::HalfUp)?;
        let i8: Decimal = i7;
        let i9: Num = add(i5, Num::Dec(i8))?;
        g0.push(G0 { s0: i0, s1: i1, s2: i2, s3: i3, s4: i4, s5: i5, s6: i6, s7: i7, s8: i8, s9: i9 });
    }
    if s1.is_none() { // subtotal
        spent += 6;
        s1 = Some({ spent += 2 * g0.len() as u64; let mut t = Decimal::ZERO; for r in g0.iter() { t = add_dec(t, dec_of(r.s5)?)?; } t });
    }
    if s2.is_none() { // total_tax
        spent += 6;
        s2 = Some({ spent += 2 * g0.len() as u64; let mut t = Decimal::ZERO; for r in g0.iter() { t = add_dec(t, r.s8)?; } t });
    }
    if s3.is_none() { // invoice_total
        spent += 6;
        s3 = Some(add_dec(s1?, s2?)?);
    }
        let mut clauses = clauses(rb, 0)?;
        let mut object = Vec::with_capacity(5);
        object.push((Arc::from("cart_id"), { spent += 4; answer(&(field(&x[3], 0)?), Format::Text, &clauses)? }));
        object.push((Arc::from("lines"), { let mut listed = Vec::new(); for (it, r) in gl0.iter().zip(g0.iter()) { { let mut o = Vec::with_capacity(5); o.push((Arc::from("id"), { spent += 4; answer(&(field(&(*it), 0)?), Format::Text, &clauses)? })); o.push((Arc::from("jurisdiction"), { spent += 4; answer(&(field(&(*it), 3)?), Format::Text, &clauses)? })); o.push((Arc::from("net"), { spent += 2; answer_num(r.s5, Format::Fixed(2), &clauses)? })); o.push((Arc::from("tax"), { spent += 2; answer_dec(r.s8, Format::Fixed(2), &clauses)? })); o.push((Arc::from("total"), { spent += 2; answer_num(r.s9, Format::Fixed(2), &clauses)? })); listed.push((None, Fields(o))); } } each(listed, false)? }));
        object.push((Arc::from("subtotal"), { spent += 2; answer_dec(s1?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("tax"), { spent += 2; answer_dec(s2?, Format::Fixed(2), &clauses)? }));
        object.push((Arc::from("total"), { spent += 2; answer_dec(s3?, Format::Fixed(2), &clauses)? }));
        if spent > budget(rb, facts) {
            return None;
        }
        return answered(rb, 0, object);
    None
}
