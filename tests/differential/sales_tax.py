#!/usr/bin/env python3
"""Independent reference for the per-line sales tax rules v1, for differential testing.

Why this exists: the `bareme` engine evaluates `rulebooks/sales-tax/v1` from a
declarative rulebook. This file is a second, independent reading of the same
spec (specs/sales-tax.md, "Precise readings" included), written directly in
Python with no code shared with the engine (the harness it runs in is
harness.py). Random cases are generated, evaluated here and by
the engine, and every disagreement is printed: either the rulebook or this
reading is wrong, and the spec decides which.

Stdlib only. Usage:

    python3 tests/differential/sales_tax.py --bareme target/debug/bareme \\
        --rulebook rulebooks/sales-tax/v1 --n 5000 --seed 1
    python3 tests/differential/sales_tax.py --dump /tmp/cases.jsonl --n 2000 --stats
    python3 tests/differential/sales_tax.py --self-test
    python3 tests/differential/sales_tax.py --bareme target/debug/bareme \\
        --ablate tax_per_unit,half_even --n 500     # wrong readings, alone or together

The wrong readings (`--ablate`, the rulebook's ablations) are read here from
their descriptions in the rulebook, apart from its formulas: see `invoice`.

Cases are JSON parsed with numbers kept as written (`RawNumber`), so that a
quantity `3.0` can be told apart from `3`, and a rate `1e-2` from `0.01`.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import sys
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, getcontext
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402  (the shared harness, in this folder)
    ABSENT, DatasetError, RawNumber, dump_json, parse_case, put, shuffled,
)
import harness  # noqa: E402

getcontext().prec = 60

CENT = Decimal("0.01")
ZERO = Decimal("0")

# Readings 5 and 6: "plain" decimals, as written; the sign is checked apart.
PLAIN_DECIMAL = re.compile(r"-?[0-9]+(?:\.([0-9]+))?")
# Reading 7: a JSON integer has neither a fraction nor an exponent.
JSON_INTEGER = re.compile(r"-?[0-9]+")
# JSON's own number grammar (for the generator: which texts may be RawNumbers).
JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")

MAX_RATE_DECIMALS = 6
MAX_RATE = Decimal("1")
MAX_PRICE_DECIMALS = 2
MAX_PRICE = Decimal("1000000")
MIN_QUANTITY, MAX_QUANTITY = 1, 1000
MAX_LINES = 24

# Reading 2: the fixed four, checked in this order.
CATEGORIES = ("STANDARD", "DIGITAL", "GROCERY", "MEDICAL")
TAXABILITY = {"taxable": True, "exempt": False}

DEFAULT_RULES = {
    "STATE_A": {"rate": "0.075", "categories": {
        "STANDARD": "taxable", "DIGITAL": "taxable", "GROCERY": "exempt", "MEDICAL": "exempt"}},
    "STATE_B": {"rate": "0.0525", "categories": {
        "STANDARD": "taxable", "DIGITAL": "exempt", "GROCERY": "exempt", "MEDICAL": "exempt"}},
    "STATE_C": {"rate": "0.09", "categories": {
        "STANDARD": "taxable", "DIGITAL": "taxable", "GROCERY": "taxable", "MEDICAL": "exempt"}},
}


# ---------------------------------------------------------------------------
# Validation (the "Case" paragraph; readings 1-10)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Jurisdiction:
    rate: Decimal
    taxable: dict  # category -> bool


@dataclass(frozen=True)
class Product:
    category: str
    unit_price: Decimal


@dataclass(frozen=True)
class Line:
    id: str
    product_id: str
    quantity: int
    jurisdiction: str


@dataclass(frozen=True)
class Case:
    cart_id: str
    lines: list
    products: dict   # id -> Product
    table: dict      # jurisdiction -> Jurisdiction
    billing: str | None = None  # the cart customer's billing jurisdiction, when a text


def read_plain_decimal(value, path: str, what: str, *, numbers_allowed: bool,
                       max_decimals: int, maximum: Decimal) -> Decimal:
    """A non-negative plain decimal `-?[0-9]+(\\.[0-9]+)?` as written, with at
    most `max_decimals` written decimals and a value of at most `maximum`."""
    if isinstance(value, str):
        text = value
    elif numbers_allowed and isinstance(value, RawNumber):
        text = value.text
    elif value is None:
        raise DatasetError(path, f"missing {what}")
    else:
        kind = "a decimal string or a plain JSON number" if numbers_allowed else "a decimal string"
        raise DatasetError(path, f"{what} must be {kind}")
    match = PLAIN_DECIMAL.fullmatch(text)
    if not match:
        raise DatasetError(path, f"{what} {text!r} is not a plain decimal")
    if len(match.group(1) or "") > max_decimals:
        raise DatasetError(path, f"{what} {text!r} has more than {max_decimals} decimals")
    if text.startswith("-"):
        raise DatasetError(path, f"{what} {text!r} is negative")
    amount = Decimal(text)
    if amount > maximum:
        raise DatasetError(path, f"{what} {text!r} is above {maximum}")
    return amount


def read_rate(value, path: str) -> Decimal:
    """Reading 5: string or plain JSON number, <= 6 decimals, 0 <= rate <= 1."""
    return read_plain_decimal(value, path, "rate", numbers_allowed=True,
                              max_decimals=MAX_RATE_DECIMALS, maximum=MAX_RATE)


def read_unit_price(value, path: str) -> Decimal:
    """Reading 6: a string only, <= 2 decimals, 0 <= price <= 1,000,000."""
    return read_plain_decimal(value, path, "unit price", numbers_allowed=False,
                              max_decimals=MAX_PRICE_DECIMALS, maximum=MAX_PRICE)


def read_rules(value) -> dict:
    """Readings 1-2: the whole table, each jurisdiction's rate then its four categories."""
    if not isinstance(value, dict):
        raise DatasetError("rules", "rules must be an object")
    table = {}
    for name, entry in value.items():
        path = f"rules.{name}"
        if not isinstance(entry, dict):
            raise DatasetError(path, "a jurisdiction must be an object")
        harness.refuse_unknown(entry, ("jurisdiction", "rate", "categories"), path)
        rate = read_rate(entry.get("rate"), f"{path}.rate")
        categories = entry.get("categories")
        if not isinstance(categories, dict):
            raise DatasetError(f"{path}.categories", "categories must be an object")
        taxable = {}
        for category in CATEGORIES:
            flag = categories.get(category)
            if not isinstance(flag, str) or flag not in TAXABILITY:
                raise DatasetError(f"{path}.categories.{category}", "must be 'taxable' or 'exempt'")
            taxable[category] = TAXABILITY[flag]
        table[name] = Jurisdiction(rate, taxable)
    return table


DEFAULT_TABLE = read_rules(DEFAULT_RULES)


def read_products(value) -> dict:
    """Reading 4: every product, used or not; category before unit price."""
    if not isinstance(value, dict):
        raise DatasetError("products", "products must be an object")
    products = {}
    for product_id, product in value.items():
        path = f"products.{product_id}"
        if not isinstance(product, dict):
            raise DatasetError(path, "a product must be an object")
        # A product's other keys (its name, …) are allowed: `extra_keys = "allow"`.
        category = product.get("category")
        if not isinstance(category, str) or category not in CATEGORIES:
            raise DatasetError(f"{path}.category", "category must be one of " + ", ".join(CATEGORIES))
        products[product_id] = Product(category, read_unit_price(product.get("unit_price"),
                                                                 f"{path}.unit_price"))
    return products


def read_customers(value) -> dict:
    """Reading 3: customers must be objects; no field of theirs is validated."""
    if not isinstance(value, dict):
        raise DatasetError("customers", "customers must be an object")
    for customer_id, customer in value.items():
        if not isinstance(customer, dict):
            raise DatasetError(f"customers.{customer_id}", "a customer must be an object")
        harness.refuse_unknown(customer, ("billing_jurisdiction",), f"customers.{customer_id}")
    return value


def read_quantity(value, path: str) -> int:
    """Reading 7: a JSON integer (no fraction, no exponent) in 1..1000."""
    if isinstance(value, RawNumber) and JSON_INTEGER.fullmatch(value.text):
        quantity = int(value.text)
    elif isinstance(value, int) and not isinstance(value, bool):
        quantity = value  # Only for callers that parsed without RawNumber.
    else:
        raise DatasetError(path, "quantity must be a JSON integer")
    if not MIN_QUANTITY <= quantity <= MAX_QUANTITY:
        raise DatasetError(path, f"quantity {quantity} is outside {MIN_QUANTITY}-{MAX_QUANTITY}")
    return quantity


def read_cart(value, customers: dict, products: dict, table: dict) -> tuple[str, list]:
    """Reading 10 from `cart.cart_id` on; lines one by one, each id, product,
    quantity, jurisdiction; a repeated id is reported at its second occurrence."""
    if not isinstance(value, dict):
        raise DatasetError("cart", "cart must be an object")
    harness.refuse_unknown(value, ("cart_id", "customer_id", "lines"), "cart")
    cart_id = value.get("cart_id")
    if not isinstance(cart_id, str):
        raise DatasetError("cart.cart_id", "cart_id must be a string")
    customer_id = value.get("customer_id")
    if not isinstance(customer_id, str) or customer_id not in customers:
        raise DatasetError("cart.customer_id", "customer_id must name a customer")
    raw_lines = value.get("lines")
    if not isinstance(raw_lines, list) or not 1 <= len(raw_lines) <= MAX_LINES:
        raise DatasetError("cart.lines", f"lines must be a list of 1 to {MAX_LINES} lines")
    lines, seen = [], set()
    for index, raw in enumerate(raw_lines):
        path = f"cart.lines[{index}]"
        if not isinstance(raw, dict):
            raise DatasetError(path, "a line must be an object")
        harness.refuse_unknown(raw, ("id", "product_id", "quantity", "jurisdiction"), path)
        line_id = raw.get("id")
        if not isinstance(line_id, str):
            raise DatasetError(f"{path}.id", "id must be a string")
        if line_id in seen:
            raise DatasetError(f"{path}.id", f"duplicate line id {line_id!r}")
        seen.add(line_id)
        product_id = raw.get("product_id")
        if not isinstance(product_id, str) or product_id not in products:
            raise DatasetError(f"{path}.product_id", "product_id must name a product")
        quantity = read_quantity(raw.get("quantity"), f"{path}.quantity")
        jurisdiction = raw.get("jurisdiction")
        if not isinstance(jurisdiction, str) or jurisdiction not in table:
            raise DatasetError(f"{path}.jurisdiction", "jurisdiction must be one of the rule table")
        lines.append(Line(line_id, product_id, quantity, jurisdiction))
    return cart_id, lines


def read_case(raw) -> Case:
    """Reading 10: rules, products, customers, then the cart."""
    if not isinstance(raw, dict):
        raise DatasetError("$", "a case must be a JSON object")
    harness.refuse_unknown(raw, ("rules", "products", "customers", "cart"))
    rules = raw.get("rules")
    table = read_rules(rules) if rules is not None else DEFAULT_TABLE  # Reading 8.
    products = read_products(raw.get("products"))
    customers = read_customers(raw.get("customers"))
    cart_id, lines = read_cart(raw.get("cart"), customers, products, table)
    billing = customers[raw["cart"]["customer_id"]].get("billing_jurisdiction")
    # Read only by the wrong reading billing_jurisdiction: a text the rulebook
    # accepts (at most 1000 characters), else none.
    billing = billing if isinstance(billing, str) and len(billing) <= 1000 else None
    return Case(cart_id, lines, products, table, billing)


# ---------------------------------------------------------------------------
# Arithmetic (rules 1-7)
# ---------------------------------------------------------------------------

def round_half_up(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def money_text(amount: Decimal) -> str:
    """Two decimals; a zero never carries a sign."""
    amount = amount.quantize(CENT)
    if amount == 0:
        amount = amount.copy_abs()
    return format(amount, "f")


def line_tax(net: Decimal, jurisdiction: Jurisdiction, category: str) -> Decimal:
    """Rules 2, 4, 5, 7: full-precision rate, one half-up rounding per line."""
    if not jurisdiction.taxable[category]:
        return ZERO
    return round_half_up(jurisdiction.rate * net)


# The rulebook's ablations: the eight defects of the seed's calculator.
ABLATIONS = ("billing_jurisdiction", "exemption_ignored", "tax_per_unit", "half_even",
             "rounded_per_invoice", "exempt_lines_out_of_subtotal",
             "repeated_products_merged", "rate_rounded_to_cents")


def merged(lines: list) -> list:
    """Wrong reading: lines of one product become one, at the first one's place,
    with its id and jurisdiction and the quantities summed."""
    first: dict = {}
    for line in lines:
        if line.product_id in first:
            kept = first[line.product_id]
            first[line.product_id] = Line(kept.id, kept.product_id, kept.quantity + line.quantity,
                                          kept.jurisdiction)
        else:
            first[line.product_id] = line
    return list(first.values())


def invoice(case: Case, ablate: frozenset = frozenset()) -> dict:
    """The invoice, or under the wrong readings named in `ablate`, all together."""
    wrong = ablate.__contains__
    rounding = ROUND_HALF_EVEN if wrong("half_even") else ROUND_HALF_UP
    lines, subtotal, tax_total, exact_total = [], ZERO, ZERO, ZERO
    for line in merged(case.lines) if wrong("repeated_products_merged") else case.lines:
        product = case.products[line.product_id]
        net = product.unit_price * line.quantity  # Rule 3.
        jurisdiction = case.table[line.jurisdiction]  # Rule 1.
        if wrong("billing_jurisdiction") and case.billing in case.table:
            jurisdiction = case.table[case.billing]
        taxable = wrong("exemption_ignored") or jurisdiction.taxable[product.category]
        rate = round_half_up(jurisdiction.rate) if wrong("rate_rounded_to_cents") else jurisdiction.rate
        if not taxable:
            tax, exact = ZERO, ZERO
        elif wrong("tax_per_unit"):
            tax = (rate * product.unit_price).quantize(CENT, rounding=rounding) * line.quantity
            exact = rate * net
        else:  # Rules 4, 5, 7.
            tax = (rate * net).quantize(CENT, rounding=rounding)
            exact = rate * net
        lines.append({"id": line.id, "jurisdiction": line.jurisdiction,
                      "net": money_text(net), "tax": money_text(tax), "total": money_text(net + tax)})
        if taxable or not wrong("exempt_lines_out_of_subtotal"):
            subtotal += net
        tax_total += tax
        exact_total += exact
    if wrong("rounded_per_invoice"):
        tax_total = round_half_up(exact_total)
    return {"cart_id": case.cart_id, "lines": lines, "subtotal": money_text(subtotal),
            "tax": money_text(tax_total), "total": money_text(subtotal + tax_total)}


def evaluate(raw, ablate: frozenset = frozenset()) -> dict:
    """The expected answer for one parsed case, or `{"error": {path, message}}`."""
    try:
        return invoice(read_case(raw), ablate)
    except DatasetError as error:
        return {"error": {"path": error.path, "message": error.message}}


def ablation_list(text: str) -> frozenset:
    """`--ablate a,b`: the wrong readings named, each one known."""
    names = [n.strip() for n in text.split(",")]
    for name in names:
        if name not in ABLATIONS:
            raise argparse.ArgumentTypeError(f"unknown ablation {name!r}; known: {', '.join(ABLATIONS)}")
    return frozenset(names)


# ---------------------------------------------------------------------------
# Case generator
# ---------------------------------------------------------------------------
#
# A valid case is built first (table, products, customers, cart), then ~35% of
# cases get one to three faults. The outcome is always measured by `evaluate`,
# never assumed from the intent.

@dataclass
class Plan:
    """What the generator knows about the case it is building."""
    table: dict = field(default_factory=dict)      # jurisdiction -> Jurisdiction
    products: dict = field(default_factory=dict)   # id -> Product
    focus: int = 0                                 # the line most faults hit
    tag: str = ""


def insert_at(rng: random.Random, mapping: dict, key: str, value) -> dict:
    """A copy of `mapping` with `key` inserted at a random position."""
    items = [(k, v) for k, v in mapping.items() if k != key]
    items.insert(rng.randint(0, len(items)), (key, value))
    return dict(items)


def money(cents: int) -> Decimal:
    return (Decimal(cents) / 100).quantize(CENT)


# --- Rule tables -------------------------------------------------------------

VALID_RATES = ["0.075", "0.0525", "0.09", "0.05", "0.5", "0.02", "0.06", "0.0625", "0.0725",
               "0.104375", "0.123456", "0.000001", "0.999999", "0.062500", "0.1", "0.25",
               "1", "1.0", "1.000000", "0.333333", "0.0875", "0.04"]
ZERO_RATES = ["0", "0.0", "0.00", "0.000000"]
EXTRA_JURISDICTIONS = ["STATE_D", "ZONE_9", "north-east", "PROVINCE_Q", "state_a", "DC", "Île-7"]
EXTRA_CATEGORY_KEYS = [
    {"LUXURY": "taxable"}, {"standard": "maybe"}, {"SERVICES": None}, {"note": RawNumber("1")},
    {"Digital": "exempt", "FOOD": "taxable"}, {"MEDICAL_DEVICE": ["taxable"]},
]


def write_rate(rng: random.Random, text: str):
    """A rate as a string, or (when JSON allows it) as a JSON number."""
    if JSON_NUMBER.fullmatch(text) and rng.random() < 0.3:
        return RawNumber(text)
    return text


def draw_rate_text(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.35:
        return f"0.{rng.randint(0, 999999):06d}"  # Six written decimals.
    if roll < 0.45:
        return rng.choice(ZERO_RATES)
    if roll < 0.50:
        return "0" + rng.choice(["0.05", "0.075", "1"])  # Leading zero: still plain.
    if roll < 0.60:
        return f"0.{rng.randint(0, 999):03d}"
    return rng.choice(VALID_RATES)


def draw_categories(rng: random.Random, name: str) -> dict:
    """Taxability: the default one (sometimes with a flip), random, all or none."""
    roll = rng.random()
    if name in DEFAULT_TABLE and roll < 0.5:
        taxable = dict(DEFAULT_TABLE[name].taxable)
        if rng.random() < 0.6:
            flipped = rng.choice(CATEGORIES)
            taxable[flipped] = not taxable[flipped]
        return taxable
    if roll < 0.65:
        return {c: True for c in CATEGORIES}
    if roll < 0.72:
        return {c: False for c in CATEGORIES}
    return {c: rng.random() < 0.6 for c in CATEGORIES}


def write_entry(rng: random.Random, rate_text: str, taxable: dict) -> dict:
    categories = {c: ("taxable" if taxable[c] else "exempt") for c in CATEGORIES}
    if rng.random() < 0.2:
        categories = shuffled(rng, categories)
    if rng.random() < 0.2:
        for key, value in rng.choice(EXTRA_CATEGORY_KEYS).items():
            categories = insert_at(rng, categories, key, value)
    entry = {"rate": write_rate(rng, rate_text), "categories": categories}
    if rng.random() < 0.05:
        entry["name"] = "Fictional jurisdiction"
    if rng.random() < 0.15:
        entry = shuffled(rng, entry)
    return entry


def draw_rules(rng: random.Random, case: dict, plan: Plan) -> str:
    """About 40% default table (absent), 7% `rules: null`, 53% supplied."""
    roll = rng.random()
    if roll < 0.40:
        plan.table = dict(DEFAULT_TABLE)
        return "default"
    if roll < 0.47:
        case["rules"] = None
        plan.table = dict(DEFAULT_TABLE)
        return "null_rules"
    count = rng.choices([1, 2, 3, 4, 5], weights=[15, 25, 30, 20, 10])[0]
    pool = list(DEFAULT_TABLE) + EXTRA_JURISDICTIONS
    names = rng.sample(pool, count)
    if rng.random() < 0.6 and not any(n in DEFAULT_TABLE for n in names):
        names[0] = rng.choice(list(DEFAULT_TABLE))
    rules = {}
    for name in names:
        if name in DEFAULT_RULES and rng.random() < 0.25:
            rate_text = DEFAULT_RULES[name]["rate"]
        else:
            rate_text = draw_rate_text(rng)
        taxable = draw_categories(rng, name)
        rules[name] = write_entry(rng, rate_text, taxable)
        plan.table[name] = Jurisdiction(Decimal(rate_text), taxable)
    case["rules"] = rules
    return "supplied"


# --- Products and customers --------------------------------------------------

PRODUCT_NAMES = ["Desk lamp", "Apples", "Bandages", "E-book", "Chair", "Bread", "Antivirus",
                 "Thermometer", "Kettle", "Music album", "Rice", "Crutches"]


def write_price(rng: random.Random, amount: Decimal) -> str:
    """A valid way to write a price: "19.90", sometimes "19.9", "20", "0019.90"."""
    two = format(amount, "f")
    roll = rng.random()
    if roll < 0.85:
        return two
    if roll < 0.96:
        return two.rstrip("0").rstrip(".") if "." in two else two
    return "00" + two


def draw_price(rng: random.Random) -> Decimal:
    roll = rng.random()
    if roll < 0.45:
        return money(rng.randint(1, 5000))            # Small, odd cents.
    if roll < 0.68:
        return money(rng.randint(1, 100000))
    if roll < 0.83:
        return money(rng.randint(1, 100_000_000))     # Up to 1,000,000.00.
    if roll < 0.88:
        return money(rng.choice([100_000_000, 99_999_999]))
    if roll < 0.92:
        return money(0)
    return money(rng.randint(1, 999) * 100)


def product_ids(rng: random.Random, count: int) -> list[str]:
    style = rng.random()
    if style < 0.5:
        return [f"P{n}" for n in range(1, count + 1)]
    if style < 0.9:
        return [f"SKU-{n:04d}" for n in rng.sample(range(1, 10000), count)]
    return [f"prod_{chr(97 + n)}" if n != 2 else "prod_ü" for n in range(count)]


def add_product(rng: random.Random, products: dict, plan: Plan, product_id: str,
                category: str, price: Decimal) -> None:
    product = {"category": category, "unit_price": write_price(rng, price)}
    if rng.random() < 0.8:
        product["name"] = rng.choice(PRODUCT_NAMES)
    if rng.random() < 0.05:
        product["weight_kg"] = RawNumber("1.5")
    if rng.random() < 0.2:
        product = shuffled(rng, product)
    products[product_id] = product
    plan.products[product_id] = Product(category, price)


def draw_products(rng: random.Random, case: dict, plan: Plan) -> None:
    products = {}
    for product_id in product_ids(rng, rng.randint(1, 8)):
        add_product(rng, products, plan, product_id, rng.choice(CATEGORIES), draw_price(rng))
    case["products"] = products


def draw_customers(rng: random.Random, case: dict, plan: Plan) -> str:
    """Reading 3: billing jurisdictions are never validated nor used."""
    count = rng.randint(1, 4)
    ids = ([f"K{n}" for n in range(1, count + 1)] if rng.random() < 0.6
           else [f"CUST-{n:05d}" for n in rng.sample(range(100000), count)])
    customers = {}
    for customer_id in ids:
        customer = {}
        roll = rng.random()
        if roll < 0.55:
            customer["billing_jurisdiction"] = rng.choice(list(plan.table))
        elif roll < 0.75:
            customer["billing_jurisdiction"] = rng.choice(list(DEFAULT_TABLE))
        elif roll < 0.87:
            customer["billing_jurisdiction"] = rng.choice(["STATE_Z", "ZZ", "state_b", "", "Atlantis"])
        elif roll < 0.92:
            customer["billing_jurisdiction"] = rng.choice([None, RawNumber("7"), ["STATE_A"]])
        # Otherwise no billing jurisdiction at all.
        if rng.random() < 0.3:
            customer["name"] = "Fictional customer"
        customers[customer_id] = customer
    case["customers"] = customers
    return rng.choice(ids)


# --- Cart ----------------------------------------------------------------------

def draw_line_count(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.12:
        return 1
    if roll < 0.47:
        return rng.randint(2, 5)
    if roll < 0.77:
        return rng.randint(6, 15)
    if roll < 0.90:
        return rng.randint(16, 23)
    return MAX_LINES


def draw_quantity(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.12:
        return 1
    if roll < 0.17:
        return MAX_QUANTITY
    if roll < 0.60:
        return rng.randint(1, 10)
    return rng.randint(1, MAX_QUANTITY)


def line_ids(rng: random.Random, count: int) -> list[str]:
    style = rng.random()
    if style < 0.6:
        return [f"L{n}" for n in range(1, count + 1)]
    if style < 0.9:
        return [f"line-{n:03x}" for n in rng.sample(range(4096), count)]
    return [str(n) for n in rng.sample(range(1, 100), count)]


def make_line(rng: random.Random, line_id: str, product_id: str, quantity: int,
              jurisdiction: str) -> dict:
    line = {"id": line_id, "product_id": product_id, "quantity": RawNumber(str(quantity)),
            "jurisdiction": jurisdiction}
    if rng.random() < 0.04:
        line["note"] = "gift wrap"
    if rng.random() < 0.15:
        line = shuffled(rng, line)
    return line


def half_cent_net(rng: random.Random, rate: Decimal) -> int | None:
    """Net cents c with rate x c/100 exactly on a half cent (x.xx5), or None.

    rate x c/100 has thousandths v = rate x 10 x c = num x 10c / den; v must be
    an integer ending in 5. With base = den / gcd(den, 10) and c = base x t,
    v = num x f x t where f = 10 base / den."""
    frac = Fraction(rate)
    if frac == 0:
        return None
    num, den = frac.numerator, frac.denominator
    base = den // _gcd(den, 10)
    f = 10 * base // den
    if (num * f) % 2 == 0:
        return None
    step = 1 if (num * f) % 5 == 0 else 5
    for _ in range(20):
        t = step * (2 * rng.randint(0, rng.choice([2, 20, 2000])) + 1)
        cents = base * t
        if cents <= 100_000_000 * MAX_QUANTITY:
            return cents
    return None


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def split_net(rng: random.Random, cents: int) -> tuple[int, int] | None:
    """price cents x quantity = cents, with a valid price and quantity."""
    divisors = [q for q in range(1, MAX_QUANTITY + 1)
                if cents % q == 0 and cents // q <= 100_000_000]
    if not divisors:
        return None
    quantity = rng.choice(divisors)
    return cents // quantity, quantity


def plant_half_cent_ties(rng: random.Random, case: dict, plan: Plan, lines: list) -> int:
    """Rule 5: lines whose tax lands exactly on a half cent."""
    combos = [(name, category) for name, j in plan.table.items() for category in CATEGORIES
              if j.taxable[category] and half_cent_net(random.Random(0), j.rate) is not None]
    if not combos:
        return 0
    planted = 0
    for index in rng.sample(range(len(lines)), min(len(lines), rng.randint(1, 3))):
        name, category = rng.choice(combos)
        cents = half_cent_net(rng, plan.table[name].rate)
        split = split_net(rng, cents) if cents else None
        if split is None:
            continue
        price_cents, quantity = split
        product_id = f"TIE-{index}"
        add_product(rng, case["products"], plan, product_id, category, money(price_cents))
        lines[index] = make_line(rng, lines[index]["id"], product_id, quantity, name)
        planted += 1
    return planted


def draw_cart(rng: random.Random, case: dict, plan: Plan, customer_id: str) -> None:
    count = draw_line_count(rng)
    ids = line_ids(rng, count)
    product_pool = list(plan.products)
    if len(product_pool) > 1 and rng.random() < 0.5:
        product_pool = rng.sample(product_pool, rng.randint(1, len(product_pool) - 1))  # Unused ones.
    jurisdictions = list(plan.table)
    if len(jurisdictions) > 1 and rng.random() < 0.2:
        jurisdictions = [rng.choice(jurisdictions)]
    lines, used = [], []
    for line_id in ids:
        if used and rng.random() < 0.3:
            product_id = rng.choice(used)  # A repeated product id.
        else:
            product_id = rng.choice(product_pool)
        used.append(product_id)
        lines.append(make_line(rng, line_id, product_id, draw_quantity(rng), rng.choice(jurisdictions)))
    if rng.random() < 0.3:
        plant_half_cent_ties(rng, case, plan, lines)
    if rng.random() < 0.3:
        unused = f"UNUSED-{rng.randint(1, 99)}"
        add_product(rng, case["products"], plan, unused, rng.choice(CATEGORIES), draw_price(rng))
        case["products"] = insert_at(rng, case["products"], unused, case["products"][unused])
    cart = {"cart_id": rng.choice([f"C{rng.randint(1, 999)}", f"CART-2026-{rng.randint(1, 9999):04d}",
                                   "cart/é"]),
            "customer_id": customer_id, "lines": lines}
    if rng.random() < 0.05:
        cart["currency"] = "credits"
    if rng.random() < 0.15:
        cart = shuffled(rng, cart)
    case["cart"] = cart
    plan.focus = rng.randrange(count)


def draw_valid(rng: random.Random, case: dict, plan: Plan) -> str:
    table_kind = draw_rules(rng, case, plan)
    draw_products(rng, case, plan)
    customer_id = draw_customers(rng, case, plan)
    draw_cart(rng, case, plan, customer_id)
    if rng.random() < 0.05:
        case["currency"] = "credits"
    return table_kind


# --- Faults --------------------------------------------------------------------

BAD_RATES = [RawNumber("1e-2"), "1e-2", ".5", "5.", "0.0000001", "1.000001", "1.0000000",
             "0.1234567", "-0", "-0.05", "-0.000000", RawNumber("-0"), RawNumber("-0.0"),
             RawNumber("-0.05"), "1.5", RawNumber("2"), "2", "1.01", "", " 0.05", "0.05 ", "+0.05",
             "5%", "NaN", "Infinity", True, False, [], {}, ["0.05"], "0,05", "\u0660.05",
             RawNumber("1E0"), RawNumber("0.0000001"), RawNumber("5E-2"), RawNumber("1.0000001"),
             "0x1", "1/2", RawNumber("100")]
BAD_TAXABILITY = ["Taxable", "TAXABLE", "exempt ", " taxable", True, False, RawNumber("1"),
                  RawNumber("0"), "", "tax-free", "nontaxable", "yes", ["taxable"], {}]
BAD_CATEGORIES = ["standard", "Standard", "FOOD", "", " STANDARD", "STANDARD ", "LUXURY",
                  RawNumber("1"), True, ["STANDARD"], {}]
BAD_PRICES = [RawNumber("19.99"), RawNumber("20"), RawNumber("0"), "-0.00", "-1.00", "-0",
              "-0.01", "1000000.01", "1000001", "1000000.001", "10000000.00", "19.999", "19.990",
              "0.001", ".99", "19.", "+19.99", "1e3", "1E2", " 19.99", "19.99 ", "19,99",
              "$19.99", "", "NaN", "Infinity", True, False, [], {}, "0x10", "\u0661\u0669.99",
              "1_000.00", "19.99.1", "1 000.00"]
BAD_QUANTITIES = [RawNumber("0"), RawNumber("-1"), RawNumber("1001"), RawNumber("3.0"), "3",
                  True, None, ABSENT, RawNumber("1e2"), RawNumber("2.5"), RawNumber("-0"),
                  RawNumber("1000.0"), RawNumber("10000"), RawNumber("1E0"), [RawNumber("3")],
                  "1000", RawNumber("1.0"), RawNumber("99999999999999999999"), {}]
NON_OBJECT_CASES = [[], "x", RawNumber("42"), None, True, [{"cart": {}}], "{}"]
NOT_OBJECTS = [None, [], "x", RawNumber("1"), True, [{}]]


def ensure_supplied_rules(case: dict, plan: Plan) -> dict:
    """A writable supplied table: the default one written out when none is supplied."""
    rules = case.get("rules")
    if not isinstance(rules, dict):
        rules = {name: {"rate": entry["rate"], "categories": dict(entry["categories"])}
                 for name, entry in DEFAULT_RULES.items()}
    rules = {name: (dict(entry) if isinstance(entry, dict) else entry) for name, entry in rules.items()}
    case["rules"] = rules
    return rules


def some_jurisdiction_entry(rng: random.Random, rules: dict) -> dict:
    """A jurisdiction entry that is an object, made so if needed."""
    if not rules:
        rules["STATE_A"] = {"rate": "0.075", "categories": dict(DEFAULT_RULES["STATE_A"]["categories"])}
    name = rng.choice(list(rules))
    if not isinstance(rules[name], dict):
        rules[name] = {"rate": "0.05", "categories": {c: "taxable" for c in CATEGORIES}}
    return rules[name]


def fault_rules_not_object(rng, case, plan):
    case["rules"] = rng.choice([[], "default", RawNumber("1"), True, "", [DEFAULT_RULES]])


def fault_rules_entry(rng, case, plan):
    rules = ensure_supplied_rules(case, plan)
    if rules:
        rules[rng.choice(list(rules))] = rng.choice(NOT_OBJECTS + ["0.075", RawNumber("0.075")])


def fault_rules_rate(rng, case, plan):
    entry = some_jurisdiction_entry(rng, ensure_supplied_rules(case, plan))
    put(entry, "rate", rng.choice([ABSENT, None] + BAD_RATES * 3))


def fault_rules_categories(rng, case, plan):
    entry = some_jurisdiction_entry(rng, ensure_supplied_rules(case, plan))
    put(entry, "categories", rng.choice([ABSENT, None, [], ["STANDARD"], "taxable", RawNumber("1"), True]))


def fault_rules_category(rng, case, plan):
    entry = some_jurisdiction_entry(rng, ensure_supplied_rules(case, plan))
    categories = entry.get("categories")
    categories = dict(categories) if isinstance(categories, dict) else {c: "taxable" for c in CATEGORIES}
    put(categories, rng.choice(CATEGORIES), rng.choice([ABSENT, None] + BAD_TAXABILITY))
    entry["categories"] = categories


def fault_rules_drop_jurisdiction(rng, case, plan):
    """Reading 1: a line's jurisdiction that the default table has, missing from the supplied one."""
    rules = ensure_supplied_rules(case, plan)
    lines = case_lines(case)
    used = [line.get("jurisdiction") for line in lines if isinstance(line, dict)]
    droppable = [name for name in rules if name in used]
    if rng.random() < 0.15 or not droppable:
        case["rules"] = {}
        return
    name = rng.choice([n for n in droppable if n in DEFAULT_TABLE] or droppable)
    del rules[name]


def fault_products_container(rng, case, plan):
    put(case, "products", rng.choice([ABSENT, None, [], "P1", RawNumber("1"), [case.get("products")]]))


def some_product_id(rng, case, plan) -> str | None:
    products = case.get("products")
    if not isinstance(products, dict) or not products:
        return None
    return rng.choice(list(products))


def writable_product(rng, case, plan) -> dict | None:
    product_id = some_product_id(rng, case, plan)
    if product_id is None:
        return None
    product = case["products"][product_id]
    product = dict(product) if isinstance(product, dict) else {"category": "STANDARD", "unit_price": "1.00"}
    case["products"][product_id] = product
    return product


def fault_product_not_object(rng, case, plan):
    product_id = some_product_id(rng, case, plan)
    if product_id is not None:
        case["products"][product_id] = rng.choice(NOT_OBJECTS + ["STANDARD", RawNumber("19.99")])


def fault_product_category(rng, case, plan):
    product = writable_product(rng, case, plan)
    if product is not None:
        put(product, "category", rng.choice([ABSENT, None] + BAD_CATEGORIES))


def fault_product_price(rng, case, plan):
    product = writable_product(rng, case, plan)
    if product is not None:
        put(product, "unit_price", rng.choice([ABSENT, None] + BAD_PRICES * 2))


def fault_unused_bad_product(rng, case, plan):
    """Reading 4: a product no line uses still rejects the case."""
    products = case.get("products")
    if not isinstance(products, dict):
        return
    product = {"category": rng.choice(CATEGORIES), "unit_price": "5.00", "name": "Discontinued"}
    if rng.random() < 0.5:
        put(product, "unit_price", rng.choice([ABSENT] + BAD_PRICES))
    else:
        put(product, "category", rng.choice([ABSENT] + BAD_CATEGORIES))
    case["products"] = insert_at(rng, products, f"OLD-{rng.randint(1, 99)}", product)


def fault_customers_container(rng, case, plan):
    put(case, "customers", rng.choice([ABSENT, None, [], "K1", RawNumber("1"), [case.get("customers")]]))


def fault_customer_not_object(rng, case, plan):
    customers = case.get("customers")
    if isinstance(customers, dict) and customers:
        customers[rng.choice(list(customers))] = rng.choice(NOT_OBJECTS + ["STATE_A"])


def writable_cart(case) -> dict | None:
    cart = case.get("cart")
    if not isinstance(cart, dict):
        return None
    cart = dict(cart)
    case["cart"] = cart
    return cart


def fault_cart_container(rng, case, plan):
    put(case, "cart", rng.choice([ABSENT, None, [], "C1", RawNumber("1"), [case.get("cart")]]))


def fault_cart_id(rng, case, plan):
    cart = writable_cart(case)
    if cart is not None:
        put(cart, "cart_id", rng.choice([ABSENT, None, RawNumber("17"), ["C1"], True, {}]))


def fault_customer_id(rng, case, plan):
    cart = writable_cart(case)
    if cart is None:
        return
    current = cart.get("customer_id")
    variants = [ABSENT, None, RawNumber("1"), "K999", "", ["K1"], "billing"]
    if isinstance(current, str):
        variants += [current.lower(), current + " ", " " + current]
    customers = case.get("customers")
    if isinstance(customers, dict) and customers:
        # Customer ids are keys, not values: a billing jurisdiction is not a customer.
        for customer in customers.values():
            if isinstance(customer, dict) and isinstance(customer.get("billing_jurisdiction"), str):
                variants.append(customer["billing_jurisdiction"])
    choice = rng.choice(variants)
    if isinstance(customers, dict) and isinstance(choice, str) and choice in customers:
        choice = "K999"
    put(cart, "customer_id", choice)


def case_lines(case) -> list:
    cart = case.get("cart")
    if isinstance(cart, dict) and isinstance(cart.get("lines"), list):
        return cart["lines"]
    return []


def fault_lines_container(rng, case, plan):
    cart = writable_cart(case)
    if cart is None:
        return
    kind = rng.choice(["absent", "null", "not_list", "empty", "empty", "too_many", "too_many", "too_many"])
    if kind == "too_many":
        lines = [line for line in cart.get("lines", []) if isinstance(line, dict)] if isinstance(
            cart.get("lines"), list) else []
        target = rng.choice([MAX_LINES + 1, MAX_LINES + 1, MAX_LINES + 2, 30, 100])
        products = list(plan.products) or ["P1"]
        while len(lines) < target:
            lines.append(make_line(rng, f"X{len(lines)}", rng.choice(products), draw_quantity(rng),
                                   rng.choice(list(plan.table) or ["STATE_A"])))
        cart["lines"] = lines
    else:
        put(cart, "lines", {"absent": ABSENT, "null": None, "empty": [],
                            "not_list": rng.choice([{}, "L1", RawNumber("3"), True])}[kind])


def line_index(rng, plan, lines: list) -> int:
    if 0 <= plan.focus < len(lines) and rng.random() < 0.6:
        return plan.focus
    return rng.randrange(len(lines))


def writable_line(rng, case, plan) -> tuple[int, dict] | None:
    lines = case_lines(case)
    if not lines:
        return None
    index = line_index(rng, plan, lines)
    line = lines[index]
    line = dict(line) if isinstance(line, dict) else {}
    lines[index] = line
    return index, line


def fault_line_not_object(rng, case, plan):
    lines = case_lines(case)
    if lines:
        lines[line_index(rng, plan, lines)] = rng.choice(NOT_OBJECTS + ["L1"])


def fault_line_id(rng, case, plan):
    found = writable_line(rng, case, plan)
    if found:
        put(found[1], "id", rng.choice([ABSENT, None, RawNumber("1"), True, ["L1"], {}]))


def fault_duplicate_id(rng, case, plan):
    """Reading 9: reported at the second occurrence."""
    lines = case_lines(case)
    if not lines:
        return
    if len(lines) == 1 or (len(lines) < MAX_LINES and rng.random() < 0.25):
        # The very same line twice (a double click), or a twin further on.
        source = lines[rng.randrange(len(lines))]
        lines.insert(rng.randint(1, len(lines)), dict(source) if isinstance(source, dict) else source)
        return
    first, second = sorted(rng.sample(range(len(lines)), 2))
    if isinstance(lines[first], dict) and isinstance(lines[second], dict):
        lines[second] = dict(lines[second], id=lines[first].get("id"))


def fault_line_product(rng, case, plan):
    found = writable_line(rng, case, plan)
    if not found:
        return
    line = found[1]
    current = line.get("product_id")
    variants = [ABSENT, None, RawNumber("1"), "P-404", "", ["P1"], True]
    if isinstance(current, str):
        variants += [current.lower(), current + " ", current + "x"]
    customers = case.get("customers")
    if isinstance(customers, dict) and customers:
        variants.append(next(iter(customers)))  # A customer id is no product id.
    choice = rng.choice(variants)
    products = case.get("products")
    if isinstance(products, dict) and isinstance(choice, str) and choice in products:
        choice = "P-404"
    put(line, "product_id", choice)


def fault_line_quantity(rng, case, plan):
    found = writable_line(rng, case, plan)
    if found:
        put(found[1], "quantity", rng.choice(BAD_QUANTITIES))


def fault_line_jurisdiction(rng, case, plan):
    found = writable_line(rng, case, plan)
    if not found:
        return
    line = found[1]
    table = list(plan.table)
    variants = [ABSENT, None, RawNumber("1"), "STATE_Z", "", ["STATE_A"], "STATE_A ", "state_c", "State_B"]
    # Reading 1: a default jurisdiction that the supplied table lacks.
    variants += [name for name in DEFAULT_TABLE if name not in table] * 3
    choice = rng.choice(variants)
    if isinstance(choice, str) and choice in table:
        choice = "STATE_Z"
    put(line, "jurisdiction", choice)


FAULTS = [
    (fault_rules_not_object, 4), (fault_rules_entry, 5), (fault_rules_rate, 9),
    (fault_rules_categories, 5), (fault_rules_category, 7), (fault_rules_drop_jurisdiction, 6),
    (fault_products_container, 4), (fault_product_not_object, 4), (fault_product_category, 6),
    (fault_product_price, 9), (fault_unused_bad_product, 4),
    (fault_customers_container, 4), (fault_customer_not_object, 4),
    (fault_cart_container, 3), (fault_cart_id, 4), (fault_customer_id, 5),
    (fault_lines_container, 6), (fault_line_not_object, 5), (fault_line_id, 5),
    (fault_duplicate_id, 8), (fault_line_product, 8), (fault_line_quantity, 11),
    (fault_line_jurisdiction, 8),
]


def generate_tagged(rng: random.Random, i: int) -> tuple[str, str]:
    """One case as JSON text, with the generator's intent as a tag."""
    if rng.random() < 0.02:
        return dump_json(rng.choice(NON_OBJECT_CASES)), "invalid:non_object"
    case: dict = {}
    plan = Plan()
    plan.tag = "valid:" + draw_valid(rng, case, plan)
    if rng.random() < 0.34:
        n_faults = 1 if rng.random() < 0.65 else rng.randint(2, 3)
        functions, weights = zip(*FAULTS)
        names = []
        for fault in rng.choices(functions, weights=weights, k=n_faults):
            fault(rng, case, plan)
            names.append(fault.__name__.removeprefix("fault_"))
        plan.tag = "invalid:" + "+".join(names)
    if rng.random() < 0.3:
        case = shuffled(rng, case)
    return dump_json(case), plan.tag


def generate(rng: random.Random, i: int) -> str:
    """One random case as JSON text (deterministic for a given rng state)."""
    return generate_tagged(rng, i)[0]


# ---------------------------------------------------------------------------
# Comparison with the engine, and the distribution report
# ---------------------------------------------------------------------------

def outcome_key(expected: dict) -> str:
    """A coarse label of an answer, for the distribution report."""
    if "error" not in expected:
        return "valid"
    path = expected["error"]["path"]
    path = re.sub(r"\[\d+\]", "[i]", path)
    path = re.sub(r"^rules\.[^.]+", "rules.<J>", path)
    path = re.sub(r"^products\.[^.]+", "products.<id>", path)
    path = re.sub(r"^customers\.[^.]+", "customers.<id>", path)
    return f"error {path}"


def written_decimals(value) -> int | None:
    text = value.text if isinstance(value, RawNumber) else value
    if isinstance(text, str) and PLAIN_DECIMAL.fullmatch(text):
        return len(text.partition(".")[2])
    return None


def features(raw) -> list[str]:
    """What a valid case exercises, measured on the case itself."""
    case = read_case(raw)
    found = set()
    count = len(case.lines)
    found.add("lines=1" if count == 1 else "lines=24" if count == MAX_LINES else
              "lines=2-5" if count <= 5 else "lines=6-15" if count <= 15 else "lines=16-23")
    billing = raw["customers"][raw["cart"]["customer_id"]].get("billing_jurisdiction")
    if not (isinstance(billing, str) and billing in case.table):
        found.add("billing not in table")
    products_used = [line.product_id for line in case.lines]
    if len(set(products_used)) < len(products_used):
        found.add("repeated product")
    if set(case.products) - set(products_used):
        found.add("unused product")
    for line in case.lines:
        product = case.products[line.product_id]
        net = product.unit_price * line.quantity
        jurisdiction = case.table[line.jurisdiction]
        tax = line_tax(net, jurisdiction, product.category)
        if not jurisdiction.taxable[product.category]:
            found.add("exempt line")
        elif jurisdiction.rate == 0:
            found.add("taxable zero-rate line")
        elif net != 0 and (jurisdiction.rate * net * 1000) % 10 == 5:
            found.add("half-cent tie")
        if isinstance(billing, str) and billing in case.table and billing != line.jurisdiction:
            if line_tax(net, case.table[billing], product.category) != tax:
                found.add("billing would change tax")
        if product.unit_price == MAX_PRICE:
            found.add("price 1000000.00")
        if line.quantity == MAX_QUANTITY:
            found.add("quantity 1000")
    if len({line.jurisdiction for line in case.lines}) > 1:
        found.add("mixed jurisdictions")
    if raw.get("rules") is not None:
        found.add("supplied rules")
        for entry in raw["rules"].values():
            if written_decimals(entry["rate"]) == MAX_RATE_DECIMALS:
                found.add("six-decimal rate")
            if isinstance(entry["rate"], RawNumber):
                found.add("rate as JSON number")
            if set(entry["categories"]) - set(CATEGORIES):
                found.add("extra category keys")
    elif "rules" in raw:
        found.add("rules: null")
    if found & {"billing would change tax", "half-cent tie", "exempt line", "repeated product"}:
        found.add("GENERATOR-1 REQUIREMENT MET")
    return sorted(found)


def print_distribution(cases, out) -> None:
    harness.print_distribution(cases, out, outcome_key, intents,
                               features=lambda text: features(parse_case(text)))


def intents(cases) -> collections.Counter:
    """Tags `kind:fault+fault...`: each fault counted, and the multi-fault cases."""
    tags = collections.Counter()
    for _, tag, _ in cases:
        kind, _, names = tag.partition(":")
        if kind == "invalid" and "+" in names:
            tags["invalid: multi-fault"] += 1
        for name in names.split("+"):
            tags[f"{kind}:{name}"] += 1
    return tags


# ---------------------------------------------------------------------------
# Self-test on hand-computed examples
# ---------------------------------------------------------------------------

def self_test() -> None:
    def check(case, expected) -> None:
        text = case if isinstance(case, str) else dump_json(case)
        actual = evaluate(parse_case(text))
        if isinstance(expected, str):
            assert actual.get("error", {}).get("path") == expected, (text, actual, expected)
        else:
            assert actual == expected and list(actual) == list(expected), (text, actual, expected)

    def line(line_id, jurisdiction, net, tax, total):
        return {"id": line_id, "jurisdiction": jurisdiction, "net": net, "tax": tax, "total": total}

    def answer(lines, subtotal, tax, total, cart_id="C1"):
        return {"cart_id": cart_id, "lines": lines, "subtotal": subtotal, "tax": tax, "total": total}

    # The spec's example: 3 x 19.99 = 59.97; 0.0525 x 59.97 = 3.148425 -> 3.15; 63.12.
    # Billing in STATE_A (0.075 would give 4.50) never matters.
    example = ('{"cart": {"cart_id": "C1", "customer_id": "K1", "lines": [{"id": "L1", "product_id": "P1",'
               ' "quantity": 3, "jurisdiction": "STATE_B"}]},'
               ' "customers": {"K1": {"billing_jurisdiction": "STATE_A"}},'
               ' "products": {"P1": {"category": "STANDARD", "name": "Desk lamp", "unit_price": "19.99"}},'
               ' "rules": {"STATE_B": {"rate": "0.0525", "categories": {"STANDARD": "taxable",'
               ' "DIGITAL": "exempt", "GROCERY": "exempt", "MEDICAL": "exempt"}}}}')
    check(example, answer([line("L1", "STATE_B", "59.97", "3.15", "63.12")], "59.97", "3.15", "63.12"))
    # The same without rules, and with `rules: null`: the default table gives the same.
    base = parse_case(example)
    del base["rules"]
    check(base, answer([line("L1", "STATE_B", "59.97", "3.15", "63.12")], "59.97", "3.15", "63.12"))
    check(dict(base, rules=None), answer([line("L1", "STATE_B", "59.97", "3.15", "63.12")],
                                         "59.97", "3.15", "63.12"))

    def cart_case(products, lines, rules=ABSENT, customers=None):
        case = {"cart": {"cart_id": "C1", "customer_id": "K1", "lines": [
                    {"id": i, "product_id": p, "quantity": RawNumber(str(q)), "jurisdiction": j}
                    for i, p, q, j in lines]},
                "customers": customers or {"K1": {"billing_jurisdiction": "STATE_C"}},
                "products": {pid: {"category": c, "unit_price": u} for pid, (c, u) in products.items()}}
        put(case, "rules", rules)
        return case

    products = {"P1": ("STANDARD", "19.99"), "P2": ("GROCERY", "4.50"), "P3": ("MEDICAL", "12"),
                "P4": ("DIGITAL", "9.99"), "P5": ("GROCERY", "7.77")}
    # Mixed default-table cart, a repeated product, an unused product (P5), billing in STATE_C:
    # L1 59.97 B -> 3.15; L2 45.00 C grocery 0.09 -> 4.05; L3 19.99 A 0.075 -> 1.49925 -> 1.50;
    # L4 24.00 C medical exempt; L5 9.99 B digital exempt.
    # Subtotal 158.95, tax 8.70, total 167.65.
    check(cart_case(products, [("L1", "P1", 3, "STATE_B"), ("L2", "P2", 10, "STATE_C"),
                               ("L3", "P1", 1, "STATE_A"), ("L4", "P3", 2, "STATE_C"),
                               ("L5", "P4", 1, "STATE_B")]),
          answer([line("L1", "STATE_B", "59.97", "3.15", "63.12"),
                  line("L2", "STATE_C", "45.00", "4.05", "49.05"),
                  line("L3", "STATE_A", "19.99", "1.50", "21.49"),
                  line("L4", "STATE_C", "24.00", "0.00", "24.00"),
                  line("L5", "STATE_B", "9.99", "0.00", "9.99")], "158.95", "8.70", "167.65"))

    # Half-cent ties, each rounded up: 0.075 x 0.20 = 0.015 -> 0.02; 0.0525 x 2.00 = 0.105 -> 0.11;
    # 0.09 x 0.50 = 0.045 -> 0.05. Just below a tie: 0.075 x 0.30 = 0.0225 -> 0.02.
    check(cart_case({"T": ("STANDARD", "0.10"), "U": ("STANDARD", "0.30")},
                    [("a", "T", 2, "STATE_A"), ("b", "T", 20, "STATE_B"), ("c", "T", 5, "STATE_C"),
                     ("d", "U", 1, "STATE_A")]),
          answer([line("a", "STATE_A", "0.20", "0.02", "0.22"), line("b", "STATE_B", "2.00", "0.11", "2.11"),
                  line("c", "STATE_C", "0.50", "0.05", "0.55"), line("d", "STATE_A", "0.30", "0.02", "0.32")],
                 "3.00", "0.20", "3.20"))

    all_taxable = {c: "taxable" for c in CATEGORIES}
    # Supplied rate 0.05 x 0.10 = 0.005 -> 0.01 (the brief's tie); a zero rate written as a
    # JSON number on a taxable category gives 0.00; extra category keys are ignored.
    rules = {"X": {"rate": "0.05", "categories": dict(all_taxable, LUXURY="nope")},
             "Z": {"rate": RawNumber("0"), "categories": dict(all_taxable, standard=None)}}
    check(cart_case({"T": ("DIGITAL", "0.10")}, [("1", "T", 1, "X"), ("2", "T", 7, "Z")], rules),
          answer([line("1", "X", "0.10", "0.01", "0.11"), line("2", "Z", "0.70", "0.00", "0.70")],
                 "0.80", "0.01", "0.81"))

    # Six-decimal rate as a JSON number, kept unrounded: 0.123456 x 100.00 = 12.3456 -> 12.35;
    # 0.000001 x 4999.99 = 0.00499999 -> 0.00 (not a tie); 0.000001 x 5000.00 = 0.005 -> 0.01.
    rules = {"R": {"rate": RawNumber("0.123456"), "categories": all_taxable},
             "S": {"rate": "0.000001", "categories": all_taxable}}
    check(cart_case({"A": ("MEDICAL", "100.00"), "B": ("GROCERY", "4999.99"), "C": ("GROCERY", "5000")},
                    [("1", "A", 1, "R"), ("2", "B", 1, "S"), ("3", "C", 1, "S")], rules),
          answer([line("1", "R", "100.00", "12.35", "112.35"), line("2", "S", "4999.99", "0.00", "4999.99"),
                  line("3", "S", "5000.00", "0.01", "5000.01")], "10099.99", "12.36", "10112.35"))

    # Rate 1 in its accepted spellings; supplied rules flip STATE_A's GROCERY to taxable and
    # make STATE_A's STANDARD exempt (the supplied table replaces the default).
    for rate in ("1", "1.0", "1.000000", RawNumber("1"), RawNumber("1.000000"), "001"):
        rules = {"STATE_A": {"rate": rate, "categories": {"STANDARD": "exempt", "DIGITAL": "exempt",
                                                            "GROCERY": "taxable", "MEDICAL": "exempt"}}}
        check(cart_case({"G": ("GROCERY", "3.33"), "S": ("STANDARD", "3.33")},
                        [("g", "G", 3, "STATE_A"), ("s", "S", 1, "STATE_A")], rules),
              answer([line("g", "STATE_A", "9.99", "9.99", "19.98"), line("s", "STATE_A", "3.33", "0.00", "3.33")],
                     "13.32", "9.99", "23.31"))

    # Largest amounts: 1,000,000.00 x 1000 = 1,000,000,000.00; 0.09 x that = 90,000,000.00.
    lines = [(f"L{n}", "M", 1000, "STATE_C") for n in range(24)]
    check(cart_case({"M": ("STANDARD", "1000000.00")}, lines),
          answer([line(f"L{n}", "STATE_C", "1000000000.00", "90000000.00", "1090000000.00") for n in range(24)],
                 "24000000000.00", "2160000000.00", "26160000000.00"))

    # A zero price, short price spellings, unknown/absent billing jurisdictions, a customer
    # with no field at all, the same line twice with distinct ids.
    check(cart_case({"F": ("STANDARD", "0.00"), "H": ("STANDARD", "19.9"), "I": ("DIGITAL", "20")},
                    [("1", "F", 5, "STATE_A"), ("2", "H", 2, "STATE_A"), ("3", "H", 2, "STATE_A"),
                     ("4", "I", 1, "STATE_C")],
                    customers={"K1": {"billing_jurisdiction": "ATLANTIS"}, "K2": {}}),
          answer([line("1", "STATE_A", "0.00", "0.00", "0.00"), line("2", "STATE_A", "39.80", "2.99", "42.79"),
                  line("3", "STATE_A", "39.80", "2.99", "42.79"), line("4", "STATE_C", "20.00", "1.80", "21.80")],
                 "99.60", "7.78", "107.38"))

    # --- Rejections --------------------------------------------------------------
    ok = cart_case(products, [("L1", "P1", 3, "STATE_B"), ("L2", "P2", 10, "STATE_C")])

    def variant(edit):
        case = json.loads(json.dumps(ok, default=lambda v: {"__raw__": v.text}),
                          object_hook=lambda d: RawNumber(d["__raw__"]) if "__raw__" in d else d)
        edit(case)
        return case

    def lines_of(case):
        return case["cart"]["lines"]

    for text in ('[]', '"x"', '42', 'null', 'true', '[{"cart": {}}]'):
        check(text, "$")
    for bad in ([], "default", RawNumber("1"), True, ""):
        check(variant(lambda c: c.update(rules=bad)), "rules")
    check(variant(lambda c: c.update(rules={})), "cart.lines[0].jurisdiction")
    check(variant(lambda c: c.update(rules={"STATE_A": None})), "rules.STATE_A")

    def with_rate(rate):
        return variant(lambda c: c.update(rules={"STATE_B": {"rate": rate, "categories": all_taxable},
                                                  "STATE_C": {"rate": "0.09", "categories": all_taxable}}))
    for rate in ("0.0000001", "1.000001", "1e-2", ".5", "5.", "-0", "-0.0", RawNumber("-0"), "1.0000000",
                 RawNumber("1e-2"), RawNumber("1E0"), None, True, "+0.05", " 0.05", "2", "\u0660.05", "NaN"):
        check(with_rate(rate), "rules.STATE_B.rate")
    for rate in ("0", "1", "1.0", "1.000000", "0.999999", "0.000001", RawNumber("0.0525"), "00.5"):
        assert "error" not in evaluate(parse_case(dump_json(with_rate(rate)))), rate
    check(variant(lambda c: c.update(rules={"STATE_B": {"categories": all_taxable}})), "rules.STATE_B.rate")
    # Rate first, then categories; jurisdictions in JSON order.
    check(variant(lambda c: c.update(rules={"STATE_C": {"rate": "0.09", "categories": None},
                                            "STATE_B": {"rate": "7"}})), "rules.STATE_C.categories")
    check(variant(lambda c: c.update(rules={"STATE_C": {"rate": "9", "categories": None}})), "rules.STATE_C.rate")
    check(variant(lambda c: c.update(rules={"STATE_B": {"rate": "0.1"}})), "rules.STATE_B.categories")
    check(variant(lambda c: c.update(rules={"STATE_B": {"rate": "0.1", "categories": {
        "MEDICAL": "maybe", "STANDARD": "taxable", "GROCERY": "exempt"}}})), "rules.STATE_B.categories.DIGITAL")
    check(variant(lambda c: c.update(rules={"STATE_B": {"rate": "0.1", "categories": dict(
        all_taxable, GROCERY="Taxable")}})), "rules.STATE_B.categories.GROCERY")
    check(variant(lambda c: c.update(rules={"STATE_B": {"rate": "0.1", "categories": dict(
        all_taxable, STANDARD=None)}})), "rules.STATE_B.categories.STANDARD")
    # Reading 1: STATE_C is a default jurisdiction, but not in the supplied table.
    check(variant(lambda c: c.update(rules={"STATE_B": {"rate": "0.1", "categories": all_taxable}})),
          "cart.lines[1].jurisdiction")

    for bad in (ABSENT, None, [], "P1"):
        check(variant(lambda c: put(c, "products", bad)), "products")
    check(variant(lambda c: c["products"].update(P3=None)), "products.P3")
    check(variant(lambda c: c["products"]["P2"].pop("category")), "products.P2.category")
    check(variant(lambda c: c["products"]["P2"].update(category="grocery")), "products.P2.category")
    for price in (RawNumber("19.99"), "-0.00", "-0", "1000000.01", "19.999", "19.990", ".99", "19.",
                  "+19.99", "1e3", " 19.99", "19,99", "$19.99", None, ""):
        check(variant(lambda c: c["products"]["P4"].update(unit_price=price)), "products.P4.unit_price")
    check(variant(lambda c: c["products"]["P4"].pop("unit_price")), "products.P4.unit_price")
    # Category before unit price; products in JSON order; unused P5 still validated; but all after rules.
    check(variant(lambda c: c["products"]["P4"].update(unit_price="x", category="x")), "products.P4.category")
    check(variant(lambda c: (c["products"]["P5"].update(unit_price="-1"),
                             c["products"]["P4"].update(category=None))), "products.P4.category")
    check(variant(lambda c: (c["products"]["P5"].update(unit_price="-1"), c.update(rules=[]))), "rules")
    check(variant(lambda c: c["products"]["P5"].update(unit_price="1000000.001")), "products.P5.unit_price")

    for bad in (ABSENT, None, [], "K1"):
        check(variant(lambda c: put(c, "customers", bad)), "customers")
    check(variant(lambda c: c["customers"].update(K2="STATE_A")), "customers.K2")
    check(variant(lambda c: (c["customers"].update(K2=None), c["products"].update(P1=None))), "products.P1")

    for bad in (ABSENT, None, [], "C1"):
        check(variant(lambda c: put(c, "cart", bad)), "cart")
    for bad in (ABSENT, None, RawNumber("1"), ["C1"]):
        check(variant(lambda c: put(c["cart"], "cart_id", bad)), "cart.cart_id")
    for bad in (ABSENT, None, RawNumber("1"), "K2", "k1", "STATE_C"):
        check(variant(lambda c: put(c["cart"], "customer_id", bad)), "cart.customer_id")
    check(variant(lambda c: (put(c["cart"], "customer_id", "K9"), put(c["cart"], "cart_id", 1))), "cart.cart_id")
    for bad in (ABSENT, None, {}, "L1", []):
        check(variant(lambda c: put(c["cart"], "lines", bad)), "cart.lines")
    check(variant(lambda c: c["cart"].update(lines=c["cart"]["lines"] * 12)), "cart.lines[2].id")
    check(variant(lambda c: c["cart"].update(lines=[dict(c["cart"]["lines"][0], id=str(n)) for n in range(25)])),
          "cart.lines")
    check(variant(lambda c: c["cart"].update(lines=[None] * 25)), "cart.lines")
    check(variant(lambda c: c["cart"].update(lines=[dict(c["cart"]["lines"][0], id=str(n)) for n in range(24)])),
          answer([line(str(n), "STATE_B", "59.97", "3.15", "63.12") for n in range(24)],
                 "1439.28", "75.60", "1514.88"))
    check(variant(lambda c: lines_of(c).__setitem__(1, None)), "cart.lines[1]")
    check(variant(lambda c: lines_of(c)[0].pop("id")), "cart.lines[0].id")
    check(variant(lambda c: lines_of(c)[0].update(id=RawNumber("1"))), "cart.lines[0].id")
    check(variant(lambda c: lines_of(c)[1].update(id="L1")), "cart.lines[1].id")
    # Line by line: line 0's bad product comes before line 1's not being an object.
    check(variant(lambda c: (lines_of(c)[0].update(product_id="P9"), lines_of(c).__setitem__(1, []))),
          "cart.lines[0].product_id")
    # Within a line: id, product, quantity, jurisdiction.
    check(variant(lambda c: lines_of(c)[1].update(id="L1", product_id="P9", quantity=RawNumber("0"))),
          "cart.lines[1].id")
    check(variant(lambda c: lines_of(c)[1].update(product_id="p1", quantity=RawNumber("0"), jurisdiction=None)),
          "cart.lines[1].product_id")
    check(variant(lambda c: lines_of(c)[1].update(quantity=RawNumber("0"), jurisdiction=None)),
          "cart.lines[1].quantity")
    for bad in (ABSENT, None, RawNumber("1"), "K1", ""):
        check(variant(lambda c: put(lines_of(c)[0], "product_id", bad)), "cart.lines[0].product_id")
    for bad in (ABSENT, None, RawNumber("0"), RawNumber("1001"), RawNumber("3.0"), "3", True,
                RawNumber("1e2"), RawNumber("-1"), RawNumber("-0"), RawNumber("1000.0")):
        check(variant(lambda c: put(lines_of(c)[0], "quantity", bad)), "cart.lines[0].quantity")
    check(variant(lambda c: put(lines_of(c)[0], "quantity", RawNumber("1000"))),
          answer([line("L1", "STATE_B", "19990.00", "1049.48", "21039.48"),
                  line("L2", "STATE_C", "45.00", "4.05", "49.05")], "20035.00", "1053.53", "21088.53"))
    for bad in (ABSENT, None, RawNumber("1"), "STATE_D", "state_b", "STATE_B ", ""):
        check(variant(lambda c: put(lines_of(c)[0], "jurisdiction", bad)), "cart.lines[0].jurisdiction")

    # The generator is deterministic, its output always parses, and valid cases show their features.
    def sample(seed: int) -> list[str]:
        rng = random.Random(seed)
        return [generate(rng, i) for i in range(300)]

    assert sample(7) == sample(7) and sample(7) != sample(8)
    for text in sample(3):
        raw = parse_case(text)
        if "error" not in evaluate(raw):
            features(raw)
    # Planted ties really are ties.
    for rate in ("0.075", "0.0525", "0.09", "0.05", "0.123457", "0.5", "0.02"):
        cents = half_cent_net(random.Random(1), Decimal(rate))
        assert cents is not None and (Decimal(rate) * cents * 10) % 10 == 5, rate
    for rate in ("0.04", "1", "0"):  # 0.04 x cents/100 and 1 x cents/100 never end in a half cent.
        assert half_cent_net(random.Random(1), Decimal(rate)) is None, rate
    print("self-test: ok")


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = harness.cli_parser(__doc__, "rulebooks/sales-tax/v1")
    parser.add_argument("--ablate", metavar="NAME[,NAME…]", type=ablation_list, default=frozenset(),
                        help="expect the invoice under these wrong readings together, and run bareme with --ablate")
    args = parser.parse_args(argv)

    if args.self_test:
        self_test()
        return 0
    if args.tasks:
        if args.ablate:
            parser.error("--tasks compares with the tasks' reference answers: without --ablate")
        return harness.run_tasks(args.tasks, "sales-tax", evaluate, ensure_ascii=False,
                                 bareme=args.bareme, rulebook=args.rulebook)
    cases = harness.generate_cases(args.n, args.seed, generate_tagged, lambda raw: evaluate(raw, args.ablate))
    ablation = ",".join(sorted(args.ablate)) or None
    return harness.dump_or_run(parser, args, cases, print_distribution, ablation=ablation, ensure_ascii=False)


if __name__ == "__main__":
    sys.exit(main())
