//! The rulebook sales-tax@1#4c8850d8f5da, compiled by `bareme compile`. Generated: do not edit.
//!
//! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,
//! or after a change of bareme that would generate other code.
#![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

use bareme::compiled::rt::*;
use bareme::compiled::Compiled;

pub static COMPILED: Compiled = Compiled {
    reference: "sales-tax@1#4c8850d8f5da",
    fingerprint: "0cc154295edec40f61c43925cbce6654fa9c9a66dfe4bedb78ea97e115d9e709",
    run,
};

static K0: LazyLock<Value> = LazyLock::new(|| text("taxable"));
const K1: Decimal = Decimal::from_parts(0, 0, 0, false, 0);

/// The steps of one item of group `lines`.
struct G0 {
    s0: Value,
    s1: Value,
    s2: bool,
    s3: Num,
    s4: Decimal,
    s5: Num,
}

fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {
    if !fits(rb, facts) {
        return None;
    }
    let x = &facts.values;
    // Budget units the walker could spend on what this code computes.
    let mut spent: u64 = 0;
    let mut s0: Option<Decimal> = None; // subtotal
    let mut s1: Option<Decimal> = None; // total_tax
    let mut s2: Option<Decimal> = None; // invoice_total
    // check 1
    spent += 4;
    // group lines
    let go0: Value = field(&x[3], 2)?;
    let gl0 = items(&go0)?;
    let mut g0: Vec<G0> = Vec::with_capacity(gl0.len());
    for it in gl0.iter() {
        spent += 60;
        let i0: Value = get(&x[1], &(field(&(*it), 1)?))?;
        let i1: Value = lookup(rb, facts, 0, &[field(&(*it), 3)?])?;
        let i2: bool = BinOp::Eq.holds(cmp_value(&(get(&(field(&i1, 2)?), &(field(&i0, 0)?))?), &(*K0))?);
        let i3: Num = mul(num(&(field(&i0, 1)?))?, Num::Dec(number(&(field(&(*it), 2)?))?))?;
        let i4: Decimal = round(if i2 { mul(num(&(field(&i1, 1)?))?, i3)? } else { Num::Dec(K1) }, 2, RoundingMode::HalfUp)?;
        let i5: Num = add(i3, Num::Dec(i4))?;
        g0.push(G0 { s0: i0, s1: i1, s2: i2, s3: i3, s4: i4, s5: i5 });
    }
    if s0.is_none() { // subtotal
        spent += 6;
        s0 = Some({ let mut t = Decimal::ZERO; for r in g0.iter() { t = add_dec(t, dec_of(r.s3)?)?; } t });
    }
    if s1.is_none() { // total_tax
        spent += 6;
        s1 = Some({ let mut t = Decimal::ZERO; for r in g0.iter() { t = add_dec(t, r.s4)?; } t });
    }
    if s2.is_none() { // invoice_total
        spent += 6;
        s2 = Some(add_dec(s0?, s1?)?);
    }
        let mut clauses = clauses(rb, 0)?;
        let mut object = serde_json::Map::with_capacity(5);
        object.insert("cart_id".to_string(), { spent += 4; answer(&(field(&x[3], 0)?), Format::Text, &clauses)? });
        object.insert("lines".to_string(), { let mut listed = Vec::new(); for (it, r) in gl0.iter().zip(g0.iter()) { { let mut o = serde_json::Map::with_capacity(5); o.insert("id".to_string(), { spent += 4; answer(&(field(&(*it), 0)?), Format::Text, &clauses)? }); o.insert("jurisdiction".to_string(), { spent += 4; answer(&(field(&(*it), 3)?), Format::Text, &clauses)? }); o.insert("net".to_string(), { spent += 2; answer_num(r.s3, Format::Fixed(2), &clauses)? }); o.insert("tax".to_string(), { spent += 2; answer_dec(r.s4, Format::Fixed(2), &clauses)? }); o.insert("total".to_string(), { spent += 2; answer_num(r.s5, Format::Fixed(2), &clauses)? }); listed.push((None, serde_json::Value::Object(o))); } } each_json(listed, false)? });
        object.insert("subtotal".to_string(), { spent += 2; answer_dec(s0?, Format::Fixed(2), &clauses)? });
        object.insert("tax".to_string(), { spent += 2; answer_dec(s1?, Format::Fixed(2), &clauses)? });
        object.insert("total".to_string(), { spent += 2; answer_dec(s2?, Format::Fixed(2), &clauses)? });
        if spent > budget(rb, facts) {
            return None;
        }
        return Some(Outcome::Answer(serde_json::Value::Object(object)));
    None
}
