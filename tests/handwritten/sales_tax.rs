//! The per-line sales-tax rules v1 (specs/sales-tax.md, its precise
//! readings included) written by hand in plain Rust: serde into borrowed
//! structs, rust_decimal, the invoice written straight into a `String`. It
//! is the limit the sales-tax rulebook is measured against
//! (`benches/limit.rs`) and one more differential reading of the spec
//! (`tests/it/handwritten.rs`); it never enters the library.
//!
//! A rejection names the path bareme names; its message is only
//! `rejected` (bareme's prose is bareme's).

use rust_decimal::{Decimal, RoundingStrategy};
use serde::Deserialize;

use super::cell::{evaluate_case_line, given, reject, write_money, write_text, Cell, Rejected};

/// A case's top-level fields, borrowed from its line.
#[derive(Deserialize)]
pub struct RawCase<'a> {
    #[serde(borrow, default)]
    rules: Option<Cell<'a>>,
    #[serde(borrow, default)]
    products: Option<Cell<'a>>,
    #[serde(borrow, default)]
    customers: Option<Cell<'a>>,
    #[serde(borrow, default)]
    cart: Option<Cell<'a>>,
}

/// The four categories, in the order supplied rules are checked.
const CATEGORIES: [&str; 4] = ["STANDARD", "DIGITAL", "GROCERY", "MEDICAL"];

/// Reading 6 (and 5 for rates): `-?[0-9]+(\.[0-9]+)?` as written, at most
/// `places` written decimals, not negative, at most `max`.
fn plain(text: &str, places: usize, max: Decimal) -> Option<Decimal> {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (whole, decimals) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let ok = !whole.is_empty()
        && digits(whole)
        && (!unsigned.contains('.') || !decimals.is_empty() && digits(decimals))
        && decimals.len() <= places
        && !text.starts_with('-');
    Decimal::from_str_exact(text)
        .ok()
        .filter(|d| ok && *d <= max)
}

/// One jurisdiction's rule: its rate and which categories are taxable.
struct Rule<'c> {
    name: &'c str,
    rate: Decimal,
    taxable: [bool; 4],
}

/// Readings 1, 2, 5: a supplied table, each jurisdiction's rate, then its
/// four categories.
fn supplied_rules<'c>(rules: &'c Cell) -> Result<Vec<Rule<'c>>, Rejected> {
    let Cell::Obj(entries) = rules else {
        return reject("rules");
    };
    if entries.len() > 10_000 {
        return reject("rules");
    }
    let mut table = Vec::with_capacity(entries.len());
    for (name, entry) in entries {
        let path = || format!("rules.{name}");
        if !matches!(entry, Cell::Obj(_)) || name.chars().count() > 1000 {
            return reject(path());
        }
        let rate = match entry.get("rate") {
            Some(Cell::Str(t)) => plain(t, 6, Decimal::ONE),
            Some(Cell::Num(t)) => plain(t, 6, Decimal::ONE),
            _ => None,
        };
        let Some(rate) = rate else {
            return reject(format!("{}.rate", path()));
        };
        let Some(categories @ Cell::Obj(_)) = entry.get("categories") else {
            return reject(format!("{}.categories", path()));
        };
        let mut taxable = [false; 4];
        for (flag, category) in taxable.iter_mut().zip(CATEGORIES) {
            *flag = match categories.get(category) {
                Some(Cell::Str(s)) if s == "taxable" => true,
                Some(Cell::Str(s)) if s == "exempt" => false,
                _ => return reject(format!("{}.categories.{category}", path())),
            };
        }
        table.push(Rule {
            name,
            rate,
            taxable,
        });
    }
    Ok(table)
}

/// The default table (rates as the rulebook writes them).
fn default_rules() -> Vec<Rule<'static>> {
    vec![
        Rule {
            name: "STATE_A",
            rate: Decimal::new(75, 3),
            taxable: [true, true, false, false],
        },
        Rule {
            name: "STATE_B",
            rate: Decimal::new(525, 4),
            taxable: [true, false, false, false],
        },
        Rule {
            name: "STATE_C",
            rate: Decimal::new(9, 2),
            taxable: [true, true, true, false],
        },
    ]
}

/// One product: its category (an index into `CATEGORIES`) and unit price.
struct Product<'c> {
    id: &'c str,
    category: usize,
    price: Decimal,
}

/// Reading 4: every product, used or not; category before unit price.
fn products<'c>(cell: Option<&'c Cell>) -> Result<Vec<Product<'c>>, Rejected> {
    let Some(Cell::Obj(entries)) = cell else {
        return reject("products");
    };
    if entries.len() > 10_000 {
        return reject("products");
    }
    let mut products = Vec::with_capacity(entries.len());
    for (id, product) in entries {
        if !matches!(product, Cell::Obj(_)) {
            return reject(format!("products.{id}"));
        }
        let category = match product.get("category") {
            Some(Cell::Str(c)) => CATEGORIES.iter().position(|k| k == c),
            _ => None,
        };
        let Some(category) = category else {
            return reject(format!("products.{id}.category"));
        };
        let price = match product.get("unit_price") {
            Some(Cell::Str(t)) => plain(t, 2, Decimal::new(1_000_000, 0)),
            _ => None,
        };
        let Some(mut price) = price else {
            return reject(format!("products.{id}.unit_price"));
        };
        if price.scale() < 2 {
            price.rescale(2);
        }
        products.push(Product {
            id,
            category,
            price,
        });
    }
    Ok(products)
}

fn cents(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// Evaluates one case line, appending its answer (or error) JSON to `out`.
pub fn evaluate_line(line: &str, out: &mut String) {
    evaluate_case_line::<RawCase>(line, out, evaluate);
}

/// One valid line of the cart.
struct Line<'c> {
    id: &'c str,
    product: usize,
    quantity: Decimal,
    rule: usize,
}

/// The invoice of a case read, written to `out`, or where it is rejected.
pub fn evaluate(case: &RawCase, out: &mut String) -> Result<(), Rejected> {
    let table = match given(&case.rules) {
        Some(rules) => supplied_rules(rules)?,
        None => default_rules(),
    };
    let products = products(given(&case.products))?;
    let Some(Cell::Obj(customers)) = given(&case.customers) else {
        return reject("customers");
    };
    if customers.len() > 10_000 {
        return reject("customers");
    }
    for (id, customer) in customers {
        if !matches!(customer, Cell::Obj(_)) {
            return reject(format!("customers.{id}"));
        }
    }
    let Some(cart @ Cell::Obj(_)) = given(&case.cart) else {
        return reject("cart");
    };
    let Some(cart_id) = cart.get("cart_id").and_then(Cell::text) else {
        return reject("cart.cart_id");
    };
    let customer = cart.get("customer_id").and_then(Cell::text);
    if !customer.is_some_and(|c| customers.iter().any(|(k, _)| k == c)) {
        return reject("cart.customer_id");
    }
    let Some(Cell::List(items)) = cart.get("lines") else {
        return reject("cart.lines");
    };
    if !(1..=24).contains(&items.len()) {
        return reject("cart.lines");
    }
    let mut lines: Vec<Line> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = |field: &str| format!("cart.lines[{i}].{field}");
        if !matches!(item, Cell::Obj(_)) {
            return reject(format!("cart.lines[{i}]"));
        }
        let id = match item.get("id").and_then(Cell::text) {
            Some(id) if !lines.iter().any(|l| l.id == id) => id,
            _ => return reject(path("id")),
        };
        let product = item
            .get("product_id")
            .and_then(Cell::text)
            .and_then(|p| products.iter().position(|q| q.id == p));
        let Some(product) = product else {
            return reject(path("product_id"));
        };
        let quantity = match item.get("quantity") {
            Some(Cell::Num(t)) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
                Decimal::from_str_exact(t)
                    .ok()
                    .filter(|q| (Decimal::ONE..=Decimal::new(1000, 0)).contains(q))
            }
            _ => None,
        };
        let Some(quantity) = quantity else {
            return reject(path("quantity"));
        };
        let rule = item
            .get("jurisdiction")
            .and_then(Cell::text)
            .and_then(|j| table.iter().position(|r| r.name == j));
        let Some(rule) = rule else {
            return reject(path("jurisdiction"));
        };
        lines.push(Line {
            id,
            product,
            quantity,
            rule,
        });
    }

    out.push_str("{\"cart_id\":");
    write_text(out, cart_id);
    out.push_str(",\"lines\":[");
    let (mut subtotal, mut tax_total) = (Decimal::ZERO, Decimal::ZERO);
    for (i, line) in lines.iter().enumerate() {
        let product = &products[line.product];
        let rule = &table[line.rule];
        let net = product.price * line.quantity;
        let tax = if rule.taxable[product.category] {
            cents(rule.rate * net)
        } else {
            Decimal::ZERO
        };
        subtotal += net;
        tax_total += tax;
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"id\":");
        write_text(out, line.id);
        out.push_str(",\"jurisdiction\":");
        write_text(out, rule.name);
        out.push_str(",\"net\":");
        write_money(out, net);
        out.push_str(",\"tax\":");
        write_money(out, tax);
        out.push_str(",\"total\":");
        write_money(out, net + tax);
        out.push('}');
    }
    out.push_str("],\"subtotal\":");
    write_money(out, subtotal);
    out.push_str(",\"tax\":");
    write_money(out, tax_total);
    out.push_str(",\"total\":");
    write_money(out, subtotal + tax_total);
    out.push('}');
    Ok(())
}
