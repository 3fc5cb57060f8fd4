#!/usr/bin/env python3
"""Independent reference for French inheritance and gift tax (succession-fr v2026), for differential testing.

Why this exists: the `bareme` engine evaluates `rulebooks/succession-fr/v2026`
from a declarative rulebook. This file is a second, independent reading of the
same spec (specs/succession-fr.md, its 22 "Precise readings"
included; the seed 002_6f06592982611d82.md where the spec is silent), written
directly in Python with exact `fractions.Fraction` arithmetic and no code
shared with the engine (the harness it runs in is harness.py). Random cases are
generated, evaluated here and by the engine, and every disagreement is printed:
either the rulebook or this reading is wrong, and the spec decides which.

Stdlib only. Usage:

    python3 tests/differential/succession_fr.py --bareme target/debug/bareme \\
        --rulebook rulebooks/succession-fr/v2026 --n 5000 --seed 1
    python3 tests/differential/succession_fr.py --dump /tmp/cases.jsonl --n 2000 --stats
    python3 tests/differential/succession_fr.py --self-test
    python3 tests/differential/succession_fr.py --worked-examples   # the 5 dossiers as JSON Lines

Cases are JSON parsed with numbers kept as written (`RawNumber`), so that an
amount `1500.5` or `1500.0` can be told apart from `1500`.

Readings this file takes where the spec leaves a choice (the spec's own
readings are cited by number; everything else is a decision of this file):

Validation order (reading 18), first fault wins:
  `$` (the case is not a JSON object), `kind`, `act_date`, `person`
  (`person` itself, then `person.birth_date`), `beneficiaries` (the container,
  then each beneficiary in list order, each one completely: the item itself,
  `id`, `relationship`, `birth_date`, `disabled`, `represents`), `assets`,
  `debts`, `funeral_costs`, `bequests`, `residue_shares`, `spouse_usufruct`,
  `gifts`, `prior_gifts`, then the cross-field checks in this order:
  kind-specific fields, share sum, representation groups, spouse usufruct.

Paths and details:
  * `$` only when the case is not a JSON object. A container of the wrong
    type is reported at its own key (`beneficiaries`, `assets`,
    `residue_shares`...; `person` also when absent or null); a list item that
    is not an object at `assets[i]`; a field fault at the field
    (`assets[0].value`, `gifts[1].fraction`, `prior_gifts[0].date`).
  * `null` is the same as absent for every optional field: optional booleans
    (reading 16), lists (empty), `residue_shares` (empty), `represents`
    (none), `funeral_costs` (0). A required field that is absent or null is
    rejected at its path. Required: `kind`, `act_date`, `person` (an object)
    with `birth_date`, each beneficiary's `id`, `relationship`, `birth_date`;
    each asset's and debt's `value`; each bequest's `beneficiary` and
    `amount`; each gift's `beneficiary`, `value`, `fraction`; each prior
    gift's `beneficiary`, `date`, `value`. Names and labels are never read.
    A key the rulebook does not declare is refused, at the first one of its
    object, before the object's fields (the case, `person` and each item).
  * Beneficiary `id`: any JSON string. A repeated id is reported at
    `beneficiaries[i].id` of its second occurrence, at that beneficiary's id
    step (before its relationship).
  * Reading 9 (spouse or PACS partner in a gift) is checked at the
    beneficiary's relationship step: `beneficiaries[i].relationship`.
  * Reading 6 (`represents`): a non-null value that is not a string, or any
    non-null value on a beneficiary who is not a grandchild or in a gift, is
    rejected at `beneficiaries[i].represents`.
  * A bequest, gift or prior gift whose `beneficiary` is not a string naming
    a beneficiary id: `bequests[i].beneficiary`, `gifts[i].beneficiary`,
    `prior_gifts[i].beneficiary` (the beneficiary is checked before the other
    fields of the item).
  * `residue_shares`: keys in JSON order, each key first checked to be a
    beneficiary id, then its value as a fraction; both faults at
    `residue_shares.<key>`. Shares that do not add up to exactly 1 in an
    estate (reading 3; absent, null or `{}` shares included): `residue_shares`.
  * Kind-specific fields (reading 5), checked in the order debts,
    funeral_costs, bequests, residue_shares, spouse_usufruct: in a gift a
    non-empty `debts` list is reported at `debts` (the spec's "each at its
    own path, except debts" is unreadable as written; `debts` is the field's
    own path and the path the brief lists: see GIFT_DEBTS_PATH), non-zero
    `funeral_costs` at `funeral_costs`, non-empty `bequests` at `bequests`,
    non-empty `residue_shares` at `residue_shares`, `spouse_usufruct: true` at
    `spouse_usufruct`; in an estate a non-empty `gifts` list at `gifts`. The
    items of these lists are validated first, at their own step.
  * A representation group whose residue shares add up to 0 (reading 6):
    `beneficiaries[i].represents` of the group's first member (groups in the
    order of their first member).
  * Spouse usufruct without exactly one `spouse` (reading 8): `spouse_usufruct`.
Syntax:
  * Amount (reading 1): a non-negative JSON integer (no sign, no fraction, no
    exponent; `-0` rejected) or a string `[0-9]+(\\.[0-9]{1,2})?` (leading zeros
    allowed); anything else rejected, booleans included. No upper bound.
  * Fraction (reading 2): a string `p/q` (`[0-9]+/[0-9]+`, q > 0), a string
    `[0-9]+(\\.[0-9]+)?` (any number of decimals), or a non-negative JSON
    integer; a JSON non-integer number, a sign, spaces or a zero denominator
    are rejected. A gift fraction above 1 is rejected; residue shares are only
    checked through their sum.
  * Date: a string `YYYY-MM-DD` that is a real calendar date (years
    0001-9999, the Gregorian leap rule); birth dates (`person` and
    beneficiaries) and prior gift dates may not be after the act date (the act
    date itself is accepted, reading 13). The act date has no range: the 2026
    amounts apply whatever its year.
  * Optional booleans must be JSON booleans when given.
  * An empty beneficiary list is accepted (a gift with no beneficiary and no
    gift answers `{"beneficiaires": {}, "total_droits": 0}`; an estate then
    fails on its shares).
Computation (the spec's "Computation" section, readings 2-17):
  * Ages are completed years on the act date; someone born on 29 February has
    a birthday on 1 March in a common year. (The generator never relies on
    that: it only draws 29 February births where the act year is leap or the
    age is irrelevant.)
  * act - 15 years keeps the month and day; 29 February gives 28 February
    (reading 14). Prior gifts dated strictly after it are "within 15 years"
    (recall, reading 12 ceilings).
  * Estate: residue = net estate - all bequests; every residue share is
    multiplied by the bare-ownership factor of the spouse's age when
    `spouse_usufruct` is true (reading 8), bequests never are.
  * Gift: each entry's value x fraction (x bare ownership by the donor's age
    when `reserved_usufruct`); 790 G needs a child or grandchild, a donor under
    80 and a donee of 18 or more; cash received per reading 11; the ceiling
    31,865 minus the pair's `cash_790g` prior gifts within 15 years, floored
    at 0. Prior `cash_790g` gifts are never recalled, in estates too, whatever
    the relationship (the flag is taken as given).
  * A = allowance of the relationship for the kind (+ 159,325 if disabled); a
    representative's allowance is 100,000 x own share / group share (+ 159,325
    if disabled), own share 0 when it has none. U = min(A, S), T = S - U.
  * Taxable = floor(max(0, value - E - (A - U)) + 1/2); tax = floor(scale(T +
    taxable) - scale(T) + 1/2) with the beneficiary's scale; spouse and PACS
    partner in an estate: 0 and 0 (exempt, whatever they received).
"""

from __future__ import annotations

import collections
import json
import math
import os
import random
import re
import sys
from dataclasses import dataclass, field
from datetime import date, timedelta
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402  (the shared harness, in this folder)
    ABSENT, DatasetError, RawNumber, dump_json, parse_case, put, shuffled,
)
import harness  # noqa: E402

F = Fraction

# ---------------------------------------------------------------------------
# Values (the spec's "Values" section)
# ---------------------------------------------------------------------------

FUNERAL_CAP = F(1500)                      # art. 775
DISABILITY_ALLOWANCE = F(159325)           # art. 779 II
REPRESENTED_CHILD_ALLOWANCE = F(100000)    # art. 779 I, shared by representatives
CASH_790G_CEILING = F(31865)               # art. 790 G
CASH_790G_MAX_DONOR_AGE = 80               # donor strictly under 80
CASH_790G_MIN_DONEE_AGE = 18               # donee 18 or older
RECALL_YEARS = 15                          # art. 784

RELATIONSHIPS = ("spouse", "pacs_partner", "child", "grandchild", "great_grandchild",
                 "sibling", "nephew_niece", "unrelated")
EXEMPT_IN_ESTATE = ("spouse", "pacs_partner")  # art. 796-0 bis
CASH_790G_DONEES = ("child", "grandchild")

ESTATE_ALLOWANCES = {  # art. 779, 788
    "child": F(100000), "grandchild": F(1594), "great_grandchild": F(1594),
    "sibling": F(15932), "nephew_niece": F(7967), "unrelated": F(1594),
}
GIFT_ALLOWANCES = {  # art. 779, 790 B, 790 D
    "child": F(100000), "grandchild": F(31865), "great_grandchild": F(5310),
    "sibling": F(15932), "nephew_niece": F(7967), "unrelated": F(0),
}

# Art. 777: (upper bound of the band or None, rate).
DIRECT_LINE = ((8072, F(5, 100)), (12109, F(10, 100)), (15932, F(15, 100)), (552324, F(20, 100)),
               (902838, F(30, 100)), (1805677, F(40, 100)), (None, F(45, 100)))
SIBLINGS = ((24430, F(35, 100)), (None, F(45, 100)))
NEPHEWS_NIECES = ((None, F(55, 100)),)
OTHERS = ((None, F(60, 100)),)
SCALES = {"child": DIRECT_LINE, "grandchild": DIRECT_LINE, "great_grandchild": DIRECT_LINE,
          "sibling": SIBLINGS, "nephew_niece": NEPHEWS_NIECES, "unrelated": OTHERS}

# Art. 669: (oldest age of the band, usufruct %); 91 and over: 10 %.
USUFRUCT_BANDS = ((20, 90), (30, 80), (40, 70), (50, 60), (60, 50), (70, 40), (80, 30), (90, 20))
USUFRUCT_OLDEST = 10

# The spec's "except debts" is unreadable; this file reports a gift's debts at the field.
GIFT_DEBTS_PATH = "debts"

# Reading 1: a string amount; a JSON integer is checked on its own text.
AMOUNT_STRING = re.compile(r"[0-9]+(?:\.[0-9]{1,2})?")
JSON_INTEGER = re.compile(r"[0-9]+")  # Non-negative: no sign at all (so `-0` is rejected).
# Reading 2: fractions.
FRACTION_RATIO = re.compile(r"([0-9]+)/([0-9]+)")
FRACTION_DECIMAL = re.compile(r"([0-9]+)(?:\.([0-9]+))?")
DATE_SYNTAX = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


# ---------------------------------------------------------------------------
# Validation (the "Case" section; readings 1-3, 5, 6, 8, 9, 13, 16, 18)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Beneficiary:
    id: str
    relationship: str
    birth_date: date
    disabled: bool
    represents: str | None


@dataclass(frozen=True)
class Gift:
    beneficiary: str
    value: Fraction
    fraction: Fraction
    cash: bool
    reserved_usufruct: bool


@dataclass(frozen=True)
class PriorGift:
    beneficiary: str
    date: date
    value: Fraction
    cash_790g: bool


@dataclass(frozen=True)
class Case:
    kind: str
    act_date: date
    person_birth_date: date
    beneficiaries: list
    assets: list
    debts: list
    funeral_costs: Fraction
    bequests: list        # (beneficiary id, amount)
    residue_shares: dict  # beneficiary id -> Fraction, in JSON order
    spouse_usufruct: bool
    gifts: list
    prior_gifts: list


def is_given(value) -> bool:
    """`null` is the same as absent."""
    return value is not None


def read_amount(value, path: str) -> Fraction:
    """Reading 1: a non-negative JSON integer, or a string with at most two decimals."""
    if value is None:
        raise DatasetError(path, "missing amount")
    if isinstance(value, RawNumber):
        if not JSON_INTEGER.fullmatch(value.text):
            raise DatasetError(path, f"JSON number {value.text} is not a non-negative integer")
        return F(int(value.text))
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:  # Only for callers that parsed without RawNumber.
            raise DatasetError(path, "negative amount")
        return F(value)
    if isinstance(value, str):
        if not AMOUNT_STRING.fullmatch(value):
            raise DatasetError(path, f"{value!r} is not a non-negative amount with at most two decimals")
        return decimal_fraction(value)
    raise DatasetError(path, "an amount is a JSON integer or a decimal string")


def decimal_fraction(text: str) -> Fraction:
    """`[0-9]+(.[0-9]+)?` as an exact fraction."""
    whole, _, decimals = text.partition(".")
    return F(int(whole)) + (F(int(decimals), 10 ** len(decimals)) if decimals else 0)


def read_fraction(value, path: str) -> Fraction:
    """Reading 2: "p/q", "1", "0.25" or a non-negative JSON integer; q > 0."""
    if value is None:
        raise DatasetError(path, "missing fraction")
    if isinstance(value, RawNumber):
        if not JSON_INTEGER.fullmatch(value.text):
            raise DatasetError(path, f"JSON number {value.text} is not a non-negative integer")
        return F(int(value.text))
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise DatasetError(path, "negative fraction")
        return F(value)
    if isinstance(value, str):
        ratio = FRACTION_RATIO.fullmatch(value)
        if ratio:
            denominator = int(ratio.group(2))
            if denominator == 0:
                raise DatasetError(path, f"{value!r} has a zero denominator")
            return F(int(ratio.group(1)), denominator)
        if FRACTION_DECIMAL.fullmatch(value):
            return decimal_fraction(value)
        raise DatasetError(path, f"{value!r} is not a fraction p/q or a decimal")
    raise DatasetError(path, "a fraction is a string or a JSON integer")


def read_date(value, path: str, not_after: date | None = None) -> date:
    """A `YYYY-MM-DD` calendar date, not after `not_after` when given."""
    if value is None:
        raise DatasetError(path, "missing date")
    if not isinstance(value, str):
        raise DatasetError(path, "a date is a YYYY-MM-DD string")
    match = DATE_SYNTAX.fullmatch(value)
    if not match:
        raise DatasetError(path, f"{value!r} is not YYYY-MM-DD")
    try:
        day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        raise DatasetError(path, f"{value!r} is not a calendar date") from None
    if not_after is not None and day > not_after:
        raise DatasetError(path, f"{value} is after the act date {not_after.isoformat()}")
    return day


def read_flag(value, path: str) -> bool:
    """Reading 16: an optional boolean, false when absent or null."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise DatasetError(path, "must be a JSON boolean")
    return value


def read_list(raw: dict, key: str) -> list:
    """An optional list: absent or null is empty."""
    value = raw.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise DatasetError(key, f"{key} must be a list")
    return value


# Keys each object may hold: any other is refused, at the first in the
# object, before the object's fields.
CASE_KEYS = ("kind", "act_date", "person", "beneficiaries", "assets", "debts", "funeral_costs",
             "bequests", "residue_shares", "spouse_usufruct", "gifts", "prior_gifts")
ITEM_KEYS = {
    "person": ("name", "birth_date"),
    "beneficiaries": ("id", "name", "relationship", "birth_date", "disabled", "represents"),
    "assets": ("label", "value"),
    "debts": ("label", "value"),
    "bequests": ("beneficiary", "amount"),
    "gifts": ("beneficiary", "label", "value", "fraction", "cash", "reserved_usufruct"),
    "prior_gifts": ("beneficiary", "date", "value", "cash_790g"),
}


def read_item(item, path: str, kind: str) -> dict:
    if not isinstance(item, dict):
        raise DatasetError(path, "must be an object")
    harness.refuse_unknown(item, ITEM_KEYS[kind], path)
    return item


def read_beneficiary_ref(value, path: str, ids: set) -> str:
    if not isinstance(value, str) or value not in ids:
        raise DatasetError(path, "must name a beneficiary id")
    return value


def read_beneficiaries(raw: dict, kind: str, act: date) -> list:
    result, seen = [], set()
    for index, item in enumerate(read_list(raw, "beneficiaries")):
        path = f"beneficiaries[{index}]"
        item = read_item(item, path, "beneficiaries")
        bid = item.get("id")
        if not isinstance(bid, str):
            raise DatasetError(f"{path}.id", "id must be a string")
        if bid in seen:
            raise DatasetError(f"{path}.id", f"duplicate beneficiary id {bid!r}")
        seen.add(bid)
        relationship = item.get("relationship")
        if not isinstance(relationship, str) or relationship not in RELATIONSHIPS:
            raise DatasetError(f"{path}.relationship", "relationship must be one of " + ", ".join(RELATIONSHIPS))
        if kind == "gift" and relationship in EXEMPT_IN_ESTATE:  # Reading 9.
            raise DatasetError(f"{path}.relationship", "a gift to a spouse or PACS partner is outside this rulebook")
        birth = read_date(item.get("birth_date"), f"{path}.birth_date", act)
        disabled = read_flag(item.get("disabled"), f"{path}.disabled")
        represents = item.get("represents")
        if represents is not None:  # Reading 6.
            if not isinstance(represents, str):
                raise DatasetError(f"{path}.represents", "represents must be a string or null")
            if kind != "estate" or relationship != "grandchild":
                raise DatasetError(f"{path}.represents", "only a grandchild in an estate represents")
        result.append(Beneficiary(bid, relationship, birth, disabled, represents))
    return result


def read_values(raw: dict, key: str) -> list:
    """`assets` or `debts`: objects with a required `value`."""
    values = []
    for index, item in enumerate(read_list(raw, key)):
        path = f"{key}[{index}]"
        item = read_item(item, path, key)
        values.append(read_amount(item.get("value"), f"{path}.value"))
    return values


def read_case(raw) -> Case:
    """Reading 18, in order; the first fault raises."""
    if not isinstance(raw, dict):
        raise DatasetError("$", "a case must be a JSON object")
    harness.refuse_unknown(raw, CASE_KEYS)
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in ("estate", "gift"):
        raise DatasetError("kind", "kind must be 'estate' or 'gift'")
    act = read_date(raw.get("act_date"), "act_date")
    person = raw.get("person")
    if not isinstance(person, dict):
        raise DatasetError("person", "person must be an object")
    harness.refuse_unknown(person, ITEM_KEYS["person"], "person")
    person_birth = read_date(person.get("birth_date"), "person.birth_date", act)

    beneficiaries = read_beneficiaries(raw, kind, act)
    ids = {b.id for b in beneficiaries}

    assets = read_values(raw, "assets")
    debts = read_values(raw, "debts")
    funeral = raw.get("funeral_costs")
    funeral = read_amount(funeral, "funeral_costs") if is_given(funeral) else F(0)

    bequests = []
    for index, item in enumerate(read_list(raw, "bequests")):
        path = f"bequests[{index}]"
        item = read_item(item, path, "bequests")
        bid = read_beneficiary_ref(item.get("beneficiary"), f"{path}.beneficiary", ids)
        bequests.append((bid, read_amount(item.get("amount"), f"{path}.amount")))

    shares_raw = raw.get("residue_shares")
    shares = {}
    if is_given(shares_raw):
        if not isinstance(shares_raw, dict):
            raise DatasetError("residue_shares", "residue_shares must be an object")
        for key, value in shares_raw.items():
            path = f"residue_shares.{key}"
            if key not in ids:
                raise DatasetError(path, f"{key!r} is not a beneficiary id")
            shares[key] = read_fraction(value, path)

    spouse_usufruct = read_flag(raw.get("spouse_usufruct"), "spouse_usufruct")

    gifts = []
    for index, item in enumerate(read_list(raw, "gifts")):
        path = f"gifts[{index}]"
        item = read_item(item, path, "gifts")
        bid = read_beneficiary_ref(item.get("beneficiary"), f"{path}.beneficiary", ids)
        value = read_amount(item.get("value"), f"{path}.value")
        fraction = read_fraction(item.get("fraction"), f"{path}.fraction")
        if fraction > 1:
            raise DatasetError(f"{path}.fraction", "a gift fraction is at most 1")
        cash = read_flag(item.get("cash"), f"{path}.cash")
        reserved = read_flag(item.get("reserved_usufruct"), f"{path}.reserved_usufruct")
        gifts.append(Gift(bid, value, fraction, cash, reserved))

    prior = []
    for index, item in enumerate(read_list(raw, "prior_gifts")):
        path = f"prior_gifts[{index}]"
        item = read_item(item, path, "prior_gifts")
        bid = read_beneficiary_ref(item.get("beneficiary"), f"{path}.beneficiary", ids)
        day = read_date(item.get("date"), f"{path}.date", act)
        value = read_amount(item.get("value"), f"{path}.value")
        flag = read_flag(item.get("cash_790g"), f"{path}.cash_790g")
        prior.append(PriorGift(bid, day, value, flag))

    case = Case(kind, act, person_birth, beneficiaries, assets, debts, funeral, bequests, shares,
                spouse_usufruct, gifts, prior)
    check_cross_fields(case)
    return case


def check_cross_fields(case: Case) -> None:
    """Reading 18's last group: kind-specific fields, share sum, groups, spouse usufruct."""
    if case.kind == "gift":  # Reading 5.
        if case.debts:
            raise DatasetError(GIFT_DEBTS_PATH, "a gift has no debts")
        if case.funeral_costs != 0:
            raise DatasetError("funeral_costs", "a gift has no funeral costs")
        if case.bequests:
            raise DatasetError("bequests", "a gift has no bequests")
        if case.residue_shares:
            raise DatasetError("residue_shares", "a gift has no residue shares")
        if case.spouse_usufruct:
            raise DatasetError("spouse_usufruct", "a gift has no spouse usufruct")
        return
    if case.gifts:
        raise DatasetError("gifts", "an estate has no gifts")
    if sum(case.residue_shares.values(), F(0)) != 1:  # Reading 3.
        raise DatasetError("residue_shares", "residue shares must add up to exactly 1")
    for index, name in representation_groups(case).items():  # Reading 6.
        if group_share(case, name) == 0:
            raise DatasetError(f"beneficiaries[{index}].represents",
                               f"the representatives of {name!r} have no residue share")
    if case.spouse_usufruct and sum(b.relationship == "spouse" for b in case.beneficiaries) != 1:
        raise DatasetError("spouse_usufruct", "spouse usufruct needs exactly one spouse")  # Reading 8.


def representation_groups(case: Case) -> dict:
    """First member's index -> represented name, in the order of first members."""
    groups, seen = {}, set()
    for index, b in enumerate(case.beneficiaries):
        if b.represents is not None and b.represents not in seen:
            seen.add(b.represents)
            groups[index] = b.represents
    return groups


def group_share(case: Case, name: str) -> Fraction:
    return sum((case.residue_shares.get(b.id, F(0)) for b in case.beneficiaries if b.represents == name), F(0))


# ---------------------------------------------------------------------------
# Arithmetic (the "Computation" section; readings 4, 7, 8, 10-17)
# ---------------------------------------------------------------------------

def round_euro(amount: Fraction) -> int:
    """Reading 17: floor(x + 1/2) on the exact value."""
    return math.floor(amount + F(1, 2))


def scale(bands, amount: Fraction) -> Fraction:
    """Art. 777 marginal bands, never rounded band by band."""
    total, lower = F(0), F(0)
    for upper, rate in bands:
        top = amount if upper is None else min(amount, F(upper))
        if top > lower:
            total += rate * (top - lower)
        if upper is None or amount <= upper:
            break
        lower = F(upper)
    return total


def age_on(birth: date, day: date) -> int:
    """Reading 15: completed years; a birthday on `day` counts."""
    return day.year - birth.year - ((day.month, day.day) < (birth.month, birth.day))


def usufruct_percent(age: int) -> int:
    for oldest, percent in USUFRUCT_BANDS:
        if age <= oldest:
            return percent
    return USUFRUCT_OLDEST


def bare_ownership(age: int) -> Fraction:
    return F(100 - usufruct_percent(age), 100)


def recall_boundary(act: date) -> tuple:
    """Reading 14: act - 15 years as (year, month, day); 29 February gives 28 February."""
    day = 28 if (act.month, act.day) == (2, 29) else act.day
    return (act.year - RECALL_YEARS, act.month, day)


def within_15_years(day: date, boundary: tuple, inclusive: bool = False) -> bool:
    """Strictly after act - 15 years (readings 4 and 12)."""
    key = (day.year, day.month, day.day)
    return key > boundary or (inclusive and key == boundary)


@dataclass
class Result:
    id: str
    relationship: str
    value: Fraction = F(0)
    cash: Fraction = F(0)
    exemption: Fraction = F(0)     # E
    recalled: Fraction = F(0)      # S
    allowance: Fraction = F(0)     # A
    used: Fraction = F(0)          # U
    taxed_before: Fraction = F(0)  # T
    taxable_exact: Fraction = F(0)
    taxable: int = 0
    tax_exact: Fraction = F(0)
    tax: int = 0
    exempt: bool = False
    cash_790g_eligible: bool = False
    ceiling: Fraction = F(0)


# Named alternative readings, for the generator's "the level's rules matter" test
# and the feature report; `evaluate` never uses them.
ABLATIONS = ("recall", "790g", "representation", "lower_bands", "669", "boundary_inclusive",
             "funeral_cap", "disability")


def compute(case: Case, ablate: frozenset = frozenset()) -> list:
    """Every beneficiary's result, in case order."""
    results = {b.id: Result(b.id, b.relationship) for b in case.beneficiaries}
    boundary = recall_boundary(case.act_date)
    inclusive = "boundary_inclusive" in ablate
    donor_age = age_on(case.person_birth_date, case.act_date)
    if case.kind == "estate":
        funeral = case.funeral_costs if "funeral_cap" in ablate else min(case.funeral_costs, FUNERAL_CAP)
        net = sum(case.assets, F(0)) - sum(case.debts, F(0)) - funeral
        residue = net - sum((amount for _, amount in case.bequests), F(0))
        factor = F(1)
        if case.spouse_usufruct and "669" not in ablate:
            spouse = next(b for b in case.beneficiaries if b.relationship == "spouse")
            factor = bare_ownership(age_on(spouse.birth_date, case.act_date))
        for bid, amount in case.bequests:
            results[bid].value += amount
        for bid, share in case.residue_shares.items():
            results[bid].value += residue * share * factor
    else:
        bare = F(1) if "669" in ablate else bare_ownership(donor_age)
        for gift in case.gifts:
            amount = gift.value * gift.fraction * (bare if gift.reserved_usufruct else 1)
            results[gift.beneficiary].value += amount
            if gift.cash:
                results[gift.beneficiary].cash += amount

    ordered = []
    for b in case.beneficiaries:
        r = results[b.id]
        ordered.append(r)
        if case.kind == "estate" and b.relationship in EXEMPT_IN_ESTATE:
            r.exempt = True
            continue
        ignore_790g = "790g" in ablate
        mine = [p for p in case.prior_gifts
                if p.beneficiary == b.id and within_15_years(p.date, boundary, inclusive)]
        if case.kind == "gift" and not ignore_790g:
            r.cash_790g_eligible = (b.relationship in CASH_790G_DONEES
                                    and donor_age < CASH_790G_MAX_DONOR_AGE
                                    and age_on(b.birth_date, case.act_date) >= CASH_790G_MIN_DONEE_AGE)
            if r.cash_790g_eligible:
                earlier = sum((p.value for p in mine if p.cash_790g), F(0))
                r.ceiling = max(F(0), CASH_790G_CEILING - earlier)
                r.exemption = min(r.cash, r.ceiling)
        if "recall" not in ablate:
            r.recalled = sum((p.value for p in mine if ignore_790g or not p.cash_790g), F(0))
        if case.kind == "estate" and b.represents is not None and "representation" not in ablate:
            own = case.residue_shares.get(b.id, F(0))
            r.allowance = REPRESENTED_CHILD_ALLOWANCE * own / group_share(case, b.represents)
        else:
            table = ESTATE_ALLOWANCES if case.kind == "estate" else GIFT_ALLOWANCES
            r.allowance = table[b.relationship]
        if b.disabled and "disability" not in ablate:
            r.allowance += DISABILITY_ALLOWANCE
        r.used = min(r.allowance, r.recalled)
        r.taxed_before = r.recalled - r.used
        r.taxable_exact = max(F(0), r.value - r.exemption - (r.allowance - r.used))
        r.taxable = round_euro(r.taxable_exact)
        base = F(0) if "lower_bands" in ablate else r.taxed_before
        bands = SCALES[b.relationship]
        r.tax_exact = scale(bands, base + r.taxable) - scale(bands, base)
        r.tax = round_euro(r.tax_exact)
    return ordered


def answer_of(results: list) -> dict:
    return {"beneficiaires": {r.id: {"part_taxable": r.taxable, "droits": r.tax} for r in results},
            "total_droits": sum(r.tax for r in results)}


def evaluate(raw) -> dict:
    """The expected answer for one parsed case, or `{"error": {path, message}}`."""
    try:
        return answer_of(compute(read_case(raw)))
    except DatasetError as error:
        return {"error": {"path": error.path, "message": error.message}}


# ---------------------------------------------------------------------------
# Case generator
# ---------------------------------------------------------------------------
#
# The seed's four levels (mix cycle 1, 4, 2, 3; the first eight tasks 1, 4, 2,
# 3, 3, 4, 2, 1 and the first six with the seed's fixed variants). A valid
# dossier is built from an intent (a variant of a level), re-drawn a few times
# until it is interesting (someone owes tax; at levels 3 and 4 a rule of the
# level changes the answer, measured by recomputing with the rule ablated),
# sometimes nudged onto a half-euro boundary, then ~30 % of cases get one to
# three faults. The outcome is always measured by `evaluate`, never assumed.

FIRST_NAMES = ["Louis", "Claire", "Paul", "Inès", "Léa", "Hugo", "Jeanne", "Marc", "Chloé", "Théo",
               "Manon", "Lucas", "Emma", "Jules", "Camille", "Nathan", "Zoé", "Arthur", "Élodie", "Maël",
               "Sophie", "Yanis", "Rose", "Gabriel", "Alice", "Noé", "Margaux", "Bastien"]
SURNAMES = ["Martin", "Petit", "Roy", "Bernard", "Dubois", "Moreau", "Laurent", "Lefèvre", "Garnier",
            "Faure", "Rousseau", "Blanc", "Girard", "Bonnet", "Mercier", "Nguyen", "Da Silva"]
ASSET_LABELS = ["Appartement", "Maison", "Livret A", "Compte courant", "Portefeuille titres",
                "Terrain", "Véhicule", "Parts de SCI", "Résidence secondaire", "Mobilier"]
DEBT_LABELS = ["Prêt immobilier", "Impôt sur le revenu", "Facture EHPAD", "Crédit auto", "Taxe foncière"]
GIFT_LABELS = ["Maison", "Appartement", "Somme d'argent", "Virement", "Parts sociales", "Terrain",
               "Chèque", "Portefeuille"]
ID_STYLES = ["B{n}", "B{n}", "B{n}", "H{n:02d}", "heir-{n}", "D{n}"]
USUFRUCT_EDGE_AGES = [18, 20, 21, 25, 30, 31, 35, 40, 41, 45, 50, 51, 55, 60, 61, 65, 70, 71, 75, 79,
                      80, 81, 85, 90, 91, 95, 101]


def money_cents(rng: random.Random, low: int, high: int, whole: float = 0.5) -> int:
    """An amount in cents between `low` and `high` euros, whole euros with probability `whole`."""
    euros = rng.randint(low, high)
    if rng.random() < whole:
        return euros * 100
    return euros * 100 + rng.randint(1, 99)


def write_amount(rng: random.Random, cents: int):
    """A valid way to write an amount: JSON integer, "41200", "41200.00", "41200.5"..."""
    euros, rest = divmod(cents, 100)
    if rest == 0:
        roll = rng.random()
        if roll < 0.42:
            return RawNumber(str(euros))
        if roll < 0.72:
            return str(euros)
        if roll < 0.93:
            return f"{euros}.00"
        if roll < 0.97:
            return f"{euros}.0"
        return f"0{euros}"
    two = f"{euros}.{rest:02d}"
    if rest % 10 == 0 and rng.random() < 0.3:
        return two[:-1]
    if rng.random() < 0.02:
        return "0" + two
    return two


def amount_cents(value) -> int:
    """The cents of an amount the generator wrote."""
    text = value.text if isinstance(value, RawNumber) else value
    return int(decimal_fraction(text) * 100)


def decimal_text(f: Fraction) -> str | None:
    """`f` as a finite decimal string, or None."""
    digits = 0
    while (f * 10 ** digits).denominator != 1:
        digits += 1
        if digits > 8:
            return None
    if digits == 0:
        return str(f.numerator)
    scaled = str(int(f * 10 ** digits)).rjust(digits + 1, "0")
    return scaled[:-digits] + "." + scaled[-digits:]


def write_fraction(rng: random.Random, f: Fraction):
    """A valid way to write a fraction: "3/8", "6/16", "0.375", "1", JSON 1."""
    if f == 1:
        return rng.choice(["1", "1", RawNumber("1"), "1/1", "1.0", "4/4"])
    if f == 0:
        return rng.choice(["0", RawNumber("0"), "0/4", "0.0"])
    roll = rng.random()
    as_decimal = decimal_text(f)
    if as_decimal is not None and roll < 0.18:
        return as_decimal
    if roll < 0.30:
        k = rng.randint(2, 4)
        return f"{f.numerator * k}/{f.denominator * k}"
    return f"{f.numerator}/{f.denominator}"


def add_years(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # 29 February in a common year.
        return date(day.year + years, 2, 28)


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def birth_for_age(rng: random.Random, act: date, age: int, mode: str = "random") -> date:
    """A birth date giving `age` completed years on `act`.

    `birthday`: the birthday is the act date; `eve`: the next birthday is the
    day after the act date; otherwise any day of the year of age. Never a 29
    February unless the act year is leap (ages of 29 February births are open)."""
    oldest = add_years(act, -(age + 1)) + timedelta(days=1)
    youngest = add_years(act, -age)
    if mode == "birthday":
        birth = youngest
    elif mode == "eve":
        birth = oldest
    else:
        birth = oldest + timedelta(days=rng.randint(0, (youngest - oldest).days))
    if (birth.month, birth.day) == (2, 29) and not is_leap(act.year):
        birth = birth + timedelta(days=1)
    assert age_on(birth, act) == age, (birth, act, age)
    return birth


def draw_act_date(rng: random.Random) -> date:
    """Mostly 2026; 29 February acts (reading 14) and a few later years."""
    roll = rng.random()
    if roll < 0.84:
        return date(2026, 1, 1) + timedelta(days=rng.randint(0, 364))
    if roll < 0.90:
        return date(2028, 2, 29)
    if roll < 0.94:
        return rng.choice([date(2026, 2, 28), date(2026, 3, 1), date(2028, 2, 28), date(2028, 3, 1),
                           date(2026, 12, 31), date(2026, 1, 1)])
    return date(2027, 1, 1) + timedelta(days=rng.randint(0, 729))


def split(rng: random.Random, total: Fraction, n: int) -> list:
    """`n` positive parts adding up to `total`, with denominators like 3, 8, 12."""
    if n == 1:
        return [total]
    roll = rng.random()
    if roll < 0.3:
        return [total / n] * n
    denominator = rng.choice([d for d in (2, 3, 4, 5, 6, 8, 9, 10, 12, 16, 24, 7, 100) if d >= n]
                             or [n])
    if denominator < n:
        denominator = n
    cuts = sorted(rng.sample(range(1, denominator), n - 1))
    parts = [b - a for a, b in zip([0] + cuts, cuts + [denominator])]
    return [total * F(p, denominator) for p in parts]


@dataclass
class Person:
    id: str
    relationship: str
    birth: date
    disabled: bool = False
    represents: str | None = None
    name: str = ""


@dataclass
class Dossier:
    """What the generator knows about the case it is building, before writing it."""
    rng: random.Random
    kind: str
    act: date
    level: int
    variant: str
    surname: str = ""
    style: str = "B{n}"
    person_birth: date | None = None
    people: list = field(default_factory=list)
    assets: list = field(default_factory=list)      # cents
    debts: list = field(default_factory=list)       # cents
    funeral: object = ABSENT                        # cents, None or ABSENT
    bequests: list = field(default_factory=list)    # (id, cents)
    shares: dict = field(default_factory=dict)      # id -> Fraction
    spouse_usufruct: bool = False
    gifts: list = field(default_factory=list)       # dicts: id, cents, fraction, cash, reserved, label
    prior: list = field(default_factory=list)       # (id, date, cents, cash_790g)

    def __post_init__(self):
        self.surname = self.rng.choice(SURNAMES)
        self.style = self.rng.choice(ID_STYLES)

    def set_person(self, age: int, mode: str = "random") -> None:
        self.person_birth = birth_for_age(self.rng, self.act, age, mode)

    def add(self, relationship: str, age: int | None = None, mode: str = "random",
            disabled: bool = False, represents: str | None = None) -> str:
        rng = self.rng
        if age is None:
            age = {"spouse": rng.randint(45, 95), "pacs_partner": rng.randint(30, 90),
                   "child": rng.randint(18, 70), "grandchild": rng.randint(0, 45),
                   "great_grandchild": rng.randint(0, 25), "sibling": rng.randint(40, 95),
                   "nephew_niece": rng.randint(15, 70), "unrelated": rng.randint(5, 90)}[relationship]
        taken, n = {p.id for p in self.people}, len(self.people) + 1
        while self.style.format(n=n) in taken:
            n += 1
        bid = self.style.format(n=n)
        surname = self.surname if relationship not in ("unrelated", "spouse", "pacs_partner") else rng.choice(SURNAMES)
        self.people.append(Person(bid, relationship, birth_for_age(rng, self.act, age, mode), disabled,
                                  represents, f"{rng.choice(FIRST_NAMES)} {surname}"))
        return bid

    def person_of(self, bid: str) -> Person:
        return next(p for p in self.people if p.id == bid)

    def ids(self, *relationships) -> list:
        return [p.id for p in self.people if p.relationship in relationships]

    def boundary(self) -> date:
        year, month, day = recall_boundary(self.act)
        return date(year, month, day)

    def prior_date(self, when: str) -> date:
        """`window` (recalled), `boundary` (exactly act - 15 years: not recalled),
        `after_boundary` (one day later: recalled), `act` (the act date), `old`, `recent`."""
        rng, boundary = self.rng, self.boundary()
        if when == "boundary":
            return boundary
        if when == "after_boundary":
            return boundary + timedelta(days=1)
        if when == "act":
            return self.act
        if when == "old":
            return boundary - timedelta(days=rng.randint(1, 3000))
        if when == "recent":
            return self.act - timedelta(days=rng.randint(1, 900))
        return boundary + timedelta(days=rng.randint(1, (self.act - boundary).days))

    def add_prior(self, bid: str, when: str, cents: int, cash_790g: bool = False) -> None:
        self.prior.append((bid, self.prior_date(when), cents, cash_790g))

    # --- Writing the case -------------------------------------------------

    def write(self) -> dict:
        rng = self.rng
        case = {"kind": self.kind, "act_date": self.act.isoformat()}
        person = {"name": f"{rng.choice(FIRST_NAMES)} {self.surname}", "birth_date": self.person_birth.isoformat()}
        if rng.random() < 0.08:
            person.pop("name")
        if rng.random() < 0.05:
            pass  # Once `death_place`, a key no input declares: now refused. The draw keeps the stream.
        case["person"] = person
        if self.kind == "estate":
            self.write_estate(case)
        else:
            self.write_gift(case)
        case["beneficiaries"] = [self.write_person(p) for p in self.people]
        if self.prior or rng.random() < 0.25:
            case["prior_gifts"] = [self.write_prior(entry) for entry in self.prior]
        elif rng.random() < 0.1:
            case["prior_gifts"] = None
        if rng.random() < 0.04:
            pass  # Once `notary`, a key no input declares: now refused. The draw keeps the stream.
        return case

    def write_estate(self, case: dict) -> None:
        rng = self.rng
        case["assets"] = [{"label": rng.choice(ASSET_LABELS), "value": write_amount(rng, c)} for c in self.assets]
        if self.debts or rng.random() < 0.5:
            case["debts"] = [{"label": rng.choice(DEBT_LABELS), "value": write_amount(rng, c)} for c in self.debts]
        if self.funeral is None:
            case["funeral_costs"] = None
        elif self.funeral is not ABSENT:
            case["funeral_costs"] = write_amount(rng, self.funeral)
        if self.bequests or rng.random() < 0.4:
            case["bequests"] = [{"beneficiary": bid, "amount": write_amount(rng, c)} for bid, c in self.bequests]
        shares = {bid: write_fraction(rng, f) for bid, f in self.shares.items()}
        case["residue_shares"] = shuffled(rng, shares) if rng.random() < 0.2 else shares
        if self.spouse_usufruct:
            case["spouse_usufruct"] = True
        else:
            value = rng.choice([ABSENT, ABSENT, False, None])
            if value is not ABSENT:
                case["spouse_usufruct"] = value
        if rng.random() < 0.04:
            case["gifts"] = []  # Reading 5: an empty list of the other kind is accepted.

    def write_gift(self, case: dict) -> None:
        rng = self.rng
        gifts = []
        for gift in self.gifts:
            entry = {"beneficiary": gift["id"], "label": gift["label"], "value": write_amount(rng, gift["cents"]),
                     "fraction": write_fraction(rng, gift["fraction"])}
            for key, planned in (("cash", "cash"), ("reserved_usufruct", "reserved")):
                if gift[planned]:
                    entry[key] = True
                else:
                    value = rng.choice([False, False, ABSENT, None])
                    if value is not ABSENT:
                        entry[key] = value
            if rng.random() < 0.1:
                entry = shuffled(rng, entry)
            gifts.append(entry)
        case["gifts"] = gifts
        # Reading 5: empty lists, zeros and false of the other kind are accepted;
        # assets are validated but unused.
        if rng.random() < 0.08:
            case["assets"] = [{"label": rng.choice(ASSET_LABELS), "value": write_amount(rng, money_cents(rng, 1000, 90000))}]
        if rng.random() < 0.05:
            case["debts"] = rng.choice([[], None])
        if rng.random() < 0.05:
            case["funeral_costs"] = rng.choice([RawNumber("0"), "0", "0.00", None])
        if rng.random() < 0.05:
            case["bequests"] = []
        if rng.random() < 0.05:
            case["residue_shares"] = rng.choice([{}, None])
        if rng.random() < 0.05:
            case["spouse_usufruct"] = rng.choice([False, None])

    def write_person(self, p: Person) -> dict:
        rng = self.rng
        entry = {"id": p.id}
        if rng.random() < 0.92:
            entry["name"] = p.name
        entry["relationship"] = p.relationship
        entry["birth_date"] = p.birth.isoformat()
        if p.disabled:
            entry["disabled"] = True
        else:
            value = rng.choice([False, False, False, ABSENT, None])
            if value is not ABSENT:
                entry["disabled"] = value
        if p.represents is not None:
            entry["represents"] = p.represents
        elif rng.random() < 0.6:
            entry["represents"] = None
        if rng.random() < 0.12:
            entry = shuffled(rng, entry)
        return entry

    def write_prior(self, entry: tuple) -> dict:
        rng = self.rng
        bid, day, cents, cash_790g = entry
        gift = {"beneficiary": bid, "date": day.isoformat(), "value": write_amount(rng, cents)}
        if cash_790g:
            gift["cash_790g"] = True
        else:
            value = rng.choice([False, False, ABSENT, None])
            if value is not ABSENT:
                gift["cash_790g"] = value
        return gift


# --- Estates -----------------------------------------------------------------

def draw_estate_size(rng: random.Random) -> int:
    """Total assets in euros: mostly modest, sometimes large enough for the top bands."""
    roll = rng.random()
    if roll < 0.40:
        return rng.randint(40_000, 400_000)
    if roll < 0.80:
        return rng.randint(400_000, 1_600_000)
    if roll < 0.95:
        return rng.randint(1_600_000, 5_000_000)
    return rng.randint(5_000_000, 12_000_000)


def draw_assets(rng: random.Random, d: Dossier, total_euros: int) -> None:
    parts = [rng.random() + 0.05 for _ in range(rng.randint(1, 5))]
    unit = total_euros * 100 / sum(parts)
    d.assets = []
    for part in parts:
        cents = max(10_000, int(part * unit))
        d.assets.append(cents // 100 * 100 if rng.random() < 0.5 else cents)


def draw_debts(rng: random.Random, d: Dossier, total_euros: int) -> None:
    count = rng.choices([0, 1, 2, 3], weights=[35, 35, 20, 10])[0]
    d.debts = [money_cents(rng, 300, max(500, total_euros // 8)) for _ in range(count)]


def draw_funeral(rng: random.Random, d: Dossier) -> None:
    roll = rng.random()
    if roll < 0.10:
        d.funeral = ABSENT
    elif roll < 0.13:
        d.funeral = None
    elif roll < 0.18:
        d.funeral = 0
    elif roll < 0.35:
        d.funeral = money_cents(rng, 300, 1499)
    elif roll < 0.45:
        d.funeral = rng.choice([150000, 150001, 149999])
    else:
        d.funeral = money_cents(rng, 1501, 9000)


def estate_basics(rng: random.Random, d: Dossier, total: int | None = None) -> int:
    total = total or draw_estate_size(rng)
    d.set_person(rng.randint(55, 101))
    draw_assets(rng, d, total)
    draw_debts(rng, d, total)
    draw_funeral(rng, d)
    return total


def draw_bequest(rng: random.Random, total: int) -> int:
    return money_cents(rng, 1000, max(2000, min(150_000, total // 5)), whole=0.7)


def estate_only_child(rng: random.Random, d: Dossier) -> None:
    """Level 1: a widowed or divorced parent with an only child."""
    total = estate_basics(rng, d, rng.choice([rng.randint(60_000, 400_000), draw_estate_size(rng)]))
    child = d.add("child", disabled=rng.random() < 0.05)
    d.shares = {child: F(1)}
    if total and rng.random() < 0.03:
        d.bequests.append((child, draw_bequest(rng, total)))  # A bequest to the only heir: both add up.


def estate_family(rng: random.Random, d: Dossier, variant: str) -> None:
    """Level 2: 3-7 beneficiaries; bequests first, then shares of the residue."""
    total = estate_basics(rng, d)
    heirs, legatees = [], []
    if variant == "spouse_children":
        spouse = d.add("spouse" if rng.random() < 0.7 else "pacs_partner")
        children = [d.add("child", disabled=rng.random() < 0.12) for _ in range(rng.randint(1, 4))]
        spouse_share = rng.choice([F(1, 4), F(1, 4), F(1, 2), F(0), F(1, 3)])
        shares = split(rng, 1 - spouse_share, len(children))
        if spouse_share:
            d.shares[spouse] = spouse_share
        d.shares.update(zip(children, shares))
        for relationship in rng.sample(["grandchild", "unrelated", "nephew_niece", "great_grandchild"],
                                       rng.randint(0, 2)):
            legatees.append(d.add(relationship, disabled=rng.random() < 0.05))
        if rng.random() < 0.3:
            d.bequests.append((spouse, draw_bequest(rng, total)))
    elif variant == "children_legatees":
        children = [d.add("child", disabled=rng.random() < 0.12) for _ in range(rng.randint(1, 4))]
        pool = ["grandchild", "unrelated", "sibling", "nephew_niece", "great_grandchild", "grandchild", "unrelated"]
        legatees = [d.add(rng.choice(pool), disabled=rng.random() < 0.08) for _ in range(rng.randint(1, 3))]
        heirs = list(children)
        if rng.random() < 0.25:
            heirs.append(rng.choice(legatees))  # A legatee who also takes a share.
        d.shares.update(zip(heirs, split(rng, F(1), len(heirs))))
    else:  # siblings_legatees
        siblings = [d.add("sibling", disabled=rng.random() < 0.15) for _ in range(rng.randint(1, 4))]
        nephews = [d.add("nephew_niece", disabled=rng.random() < 0.05) for _ in range(rng.randint(0, 2))]
        heirs = siblings + nephews
        d.shares.update(zip(heirs, split(rng, F(1), len(heirs))))
        legatees = [d.add(rng.choice(["unrelated", "nephew_niece", "unrelated", "grandchild"]))
                    for _ in range(rng.randint(1, 2))]
    for legatee in legatees:
        d.bequests.append((legatee, draw_bequest(rng, total)))
    if rng.random() < 0.03:
        # Reading 4: bequests above the net estate; the residue is negative.
        d.bequests.append((legatees[0] if legatees else d.people[-1].id, total * 100 + money_cents(rng, 1, 50_000)))


def add_representation(rng: random.Random, d: Dossier, forced_groups: int = 1) -> None:
    """Replaces children by grandchildren representing them (reading 6, 7)."""
    children = [bid for bid in d.ids("child") if bid in d.shares]
    if not children:
        child = d.add("child")
        d.shares = {k: v * F(1, 2) for k, v in d.shares.items()} if d.shares else {}
        d.shares[child] = 1 - sum(d.shares.values(), F(0))
        children = [child]
    for child in rng.sample(children, min(len(children), forced_groups)):
        person = d.person_of(child)
        share = d.shares.pop(child)
        d.people.remove(person)
        name = person.name
        count = rng.choice([1, 2, 2, 2, 3, 3])
        reps = [d.add("grandchild", age=rng.randint(0, 45), disabled=rng.random() < 0.12, represents=name)
                for _ in range(count)]
        parts = split(rng, share, count)
        if count >= 2 and rng.random() < 0.2:
            # A representative with a bequest only: allowance 0 (reading 7).
            parts = [share] + [F(0)] * (count - 1)
            d.bequests.append((reps[-1], money_cents(rng, 1000, 30000)))
        for rep, part in zip(reps, parts):
            if part or rng.random() < 0.5:
                d.shares[rep] = part
    renumber(d)


def renumber(d: Dossier) -> None:
    """Keeps ids dense after a removal (ids are only labels)."""
    mapping = {p.id: d.style.format(n=i + 1) for i, p in enumerate(d.people)}
    if len(set(mapping.values())) != len(mapping):
        return
    for p in d.people:
        p.id = mapping[p.id]
    d.shares = {mapping.get(k, k): v for k, v in d.shares.items()}
    d.bequests = [(mapping.get(k, k), c) for k, c in d.bequests]
    d.prior = [(mapping.get(k, k), day, c, flag) for k, day, c, flag in d.prior]


def add_recall(rng: random.Random, d: Dossier, taxed: list, count: int | None = None) -> None:
    """Prior gifts: recalled, on the 15-year day, one day after, on the act date, old."""
    for _ in range(count or rng.randint(1, 3)):
        if not taxed:
            return
        bid = rng.choice(taxed)
        when = rng.choices(["window", "boundary", "after_boundary", "act", "old", "recent"],
                           weights=[40, 14, 14, 6, 8, 18])[0]
        relationship = d.person_of(bid).relationship
        allowance = int((ESTATE_ALLOWANCES if d.kind == "estate" else GIFT_ALLOWANCES).get(relationship, 0))
        roll = rng.random()
        if roll < 0.3 and allowance:
            cents = money_cents(rng, allowance + 1, allowance + 150_000)  # Above the allowance: T > 0.
        elif roll < 0.45 and allowance:
            cents = money_cents(rng, max(1, allowance - 15000), allowance)
        else:
            cents = money_cents(rng, 2000, 90_000)
        d.add_prior(bid, when, cents)


def add_790g_priors(rng: random.Random, d: Dossier, bids: list) -> None:
    """Prior family cash gifts: never recalled; they reduce a gift's ceiling."""
    for bid in bids:
        when = rng.choices(["window", "boundary", "after_boundary", "recent", "old", "act"],
                           weights=[40, 12, 12, 20, 10, 6])[0]
        cents = rng.choice([money_cents(rng, 3000, 31865), 3186500, money_cents(rng, 31866, 60000),
                            money_cents(rng, 5000, 20000)])
        d.add_prior(bid, when, cents, cash_790g=True)


def taxed_ids(d: Dossier) -> list:
    return [p.id for p in d.people if d.kind == "gift" or p.relationship not in EXEMPT_IN_ESTATE]


def estate_level3(rng: random.Random, d: Dossier, forced_representation: bool = False) -> str:
    variant = rng.choice(["spouse_children", "children_legatees", "siblings_legatees", "children_legatees"])
    if forced_representation and variant == "siblings_legatees":
        variant = "children_legatees"
    estate_family(rng, d, variant)
    extras = []
    if forced_representation or (variant != "siblings_legatees" and rng.random() < 0.45):
        add_representation(rng, d, forced_groups=2 if rng.random() < 0.15 else 1)
        extras.append("representation")
    if rng.random() < 0.8 or not extras:
        add_recall(rng, d, taxed_ids(d))
        extras.append("recall")
    if rng.random() < 0.35:
        add_790g_priors(rng, d, rng.sample(taxed_ids(d), min(2, len(taxed_ids(d)))))
        extras.append("790g-prior")
    return variant + "+" + "+".join(extras)


def estate_usufruct(rng: random.Random, d: Dossier) -> str:
    """Level 4: the spouse takes the usufruct of the residue; bequests, recall,
    representation or a non-recalled 790 G gift."""
    total = estate_basics(rng, d)
    age = rng.choice(USUFRUCT_EDGE_AGES + [rng.randint(40, 95) for _ in range(6)])
    spouse = d.add("spouse", age=age, mode=rng.choice(["random", "random", "birthday", "eve"]))
    d.spouse_usufruct = True
    if rng.random() < 0.1:
        d.add("pacs_partner")  # A PACS partner besides the one spouse: still exactly one spouse.
    children = [d.add("child", disabled=rng.random() < 0.2) for _ in range(rng.randint(1, 4))]
    spouse_share = F(0) if rng.random() < 0.75 else rng.choice([F(1, 4), F(1, 8)])
    if spouse_share:
        d.shares[spouse] = spouse_share
    d.shares.update(zip(children, split(rng, 1 - spouse_share, len(children))))
    legatees = [d.add(rng.choice(["grandchild", "sibling", "nephew_niece", "unrelated"]),
                      disabled=rng.random() < 0.1) for _ in range(rng.randint(1, 2))]
    for legatee in legatees:
        d.bequests.append((legatee, draw_bequest(rng, total)))
    extras = ["recall"]
    if rng.random() < 0.6:
        add_representation(rng, d, forced_groups=2 if rng.random() < 0.15 else 1)
        extras.append("representation")
    if rng.random() < 0.5 or len(extras) == 1:
        add_790g_priors(rng, d, rng.sample(taxed_ids(d), min(rng.randint(1, 2), len(taxed_ids(d)))))
        extras.append("790g-prior")
    add_recall(rng, d, taxed_ids(d), rng.randint(1, 3))
    return "usufruct+" + "+".join(extras)


# --- Gifts -------------------------------------------------------------------

def gift_entry(d: Dossier, bid: str, cents: int, fraction: Fraction = F(1), cash: bool = False,
               reserved: bool = False, label: str | None = None) -> None:
    label = label or ("Somme d'argent" if cash else d.rng.choice(GIFT_LABELS))
    d.gifts.append({"id": bid, "cents": cents, "fraction": fraction, "cash": cash, "reserved": reserved,
                    "label": label})


def gift_simple(rng: random.Random, d: Dossier) -> str:
    """Level 1: one child, 1-2 assets in full ownership."""
    d.set_person(rng.randint(45, 88))
    child = d.add("child", age=rng.randint(18, 60))
    for _ in range(rng.randint(1, 2)):
        fraction = F(1) if rng.random() < 0.7 else rng.choice([F(1, 2), F(1, 3), F(3, 8), F(2, 3)])
        gift_entry(d, child, money_cents(rng, 20_000, 600_000), fraction)
    return "simple"


def donee_age(rng: random.Random) -> tuple:
    """Ages around the 790 G threshold, with birthdays on the act date."""
    roll = rng.random()
    if roll < 0.12:
        return 18, "birthday"
    if roll < 0.22:
        return 17, "eve"
    if roll < 0.28:
        return 17, "random"
    if roll < 0.33:
        return 18, "random"
    if roll < 0.38:
        return rng.randint(0, 16), "random"
    return rng.randint(19, 55), "random"


def donor_age_790g(rng: random.Random) -> tuple:
    roll = rng.random()
    if roll < 0.12:
        return 79, "eve"       # Turns 80 the day after the gift: eligible.
    if roll < 0.20:
        return 80, "birthday"  # Turns 80 on the gift date: not eligible.
    if roll < 0.26:
        return rng.choice([79, 80, 81]), "random"
    return rng.randint(45, 78), "random"


def gift_790g(rng: random.Random, d: Dossier) -> str:
    """Level 3: cash gifts from a parent or grandparent, age conditions, reduced ceilings, recall."""
    age, mode = donor_age_790g(rng)
    d.set_person(age, mode)
    donees = []
    for _ in range(rng.choices([1, 2, 3], weights=[40, 40, 20])[0]):
        relationship = "child" if rng.random() < 0.6 else "grandchild"
        years, birth_mode = donee_age(rng)
        if relationship == "child":
            years = min(years, max(0, age - 16))
        donees.append(d.add(relationship, age=years, mode=birth_mode, disabled=rng.random() < 0.06))
    for bid in donees:
        for _ in range(rng.choice([1, 1, 2])):
            gift_entry(d, bid, money_cents(rng, 5_000, 70_000, whole=0.7), cash=True)
        if rng.random() < 0.6:
            fraction = rng.choice([F(1), F(1, 2), F(1, 3), F(3, 8), F(1, 4)])
            gift_entry(d, bid, money_cents(rng, 30_000, 500_000), fraction)
    if rng.random() < 0.55:
        add_790g_priors(rng, d, rng.sample(donees, rng.randint(1, len(donees))))
    if rng.random() < 0.6:
        add_recall(rng, d, donees)
    return "790g"


def gift_other(rng: random.Random, d: Dossier) -> str:
    """Gifts to siblings, nephews and nieces, great-grandchildren, unrelated persons."""
    d.set_person(rng.randint(40, 92), rng.choice(["random", "birthday"]))
    pool = ["sibling", "nephew_niece", "unrelated", "great_grandchild", "grandchild", "child"]
    donees = [d.add(rng.choice(pool), disabled=rng.random() < 0.12) for _ in range(rng.randint(1, 3))]
    for bid in donees:
        cash = rng.random() < 0.4
        reserved = rng.random() < 0.2
        gift_entry(d, bid, money_cents(rng, 3_000, 300_000), rng.choice([F(1), F(1), F(1, 2), F(2, 3)]),
                   cash=cash, reserved=reserved)
    if rng.random() < 0.5:
        add_recall(rng, d, donees)
    if rng.random() < 0.2:
        add_790g_priors(rng, d, donees[:1])
    return "other"


def gift_bare(rng: random.Random, d: Dossier) -> str:
    """Level 4: bare ownership to 2-3 children or grandchildren, cash, 790 G, recall."""
    age = rng.choice(USUFRUCT_EDGE_AGES + [rng.randint(50, 90) for _ in range(8)])
    mode = rng.choice(["random", "random", "birthday", "eve"])
    d.set_person(age, mode)
    donees = []
    for _ in range(rng.choice([2, 2, 3])):
        relationship = "child" if rng.random() < 0.6 else "grandchild"
        years, birth_mode = donee_age(rng)
        donees.append(d.add(relationship, age=years, mode=birth_mode, disabled=rng.random() < 0.15))
    house = money_cents(rng, 120_000, 1_500_000, whole=0.8)
    parts = split(rng, F(1), len(donees)) if rng.random() < 0.8 else [F(1, len(donees) + 1)] * len(donees)
    for bid, part in zip(donees, parts):
        gift_entry(d, bid, house, part, reserved=True, label="Maison")
    if rng.random() < 0.3:
        gift_entry(d, rng.choice(donees), money_cents(rng, 50_000, 400_000), rng.choice([F(1), F(1, 2)]),
                   reserved=True, label="Appartement")
    for bid in donees:
        if rng.random() < 0.75:
            gift_entry(d, bid, money_cents(rng, 5_000, 60_000, whole=0.7), cash=True,
                       reserved=rng.random() < 0.12)
    if rng.random() < 0.5:
        add_790g_priors(rng, d, rng.sample(donees, rng.randint(1, len(donees))))
    add_recall(rng, d, donees, rng.randint(1, 3))
    return "bare"


# --- Acceptance ----------------------------------------------------------------

LEVEL3_RULES = ("recall", "790g", "representation", "lower_bands")


def matters(case: Case, base: dict, ablation: str) -> bool:
    return answer_of(compute(case, frozenset([ablation]))) != base


def acceptable(rng: random.Random, case: Case, level: int) -> bool:
    results = compute(case)
    base = answer_of(results)
    taxed = [r for r in results if not r.exempt]
    owing = [r for r in taxed if r.tax > 0]
    if not owing and rng.random() < 0.9:
        return False
    if len(taxed) >= 2 and len(owing) < 2 and rng.random() < 0.7:
        return False
    if level == 3 and not any(matters(case, base, rule) for rule in LEVEL3_RULES):
        return False
    if level == 4 and not (matters(case, base, "669")
                           and any(matters(case, base, rule) for rule in LEVEL3_RULES)):
        return False
    return True


def build(rng: random.Random, level: int, variant: str) -> tuple:
    kind = "gift" if variant.startswith("gift") else "estate"
    d = Dossier(rng, kind, draw_act_date(rng), level, variant)
    detail = ""
    if variant == "estate_only_child":
        estate_only_child(rng, d)
    elif variant in ("estate_spouse_children", "estate_children_legatees", "estate_siblings_legatees"):
        estate_family(rng, d, variant.removeprefix("estate_"))
    elif variant == "estate_recall":
        detail = estate_level3(rng, d)
    elif variant == "estate_recall_representation":
        detail = estate_level3(rng, d, forced_representation=True)
    elif variant == "estate_usufruct":
        detail = estate_usufruct(rng, d)
    elif variant == "gift_simple":
        gift_simple(rng, d)
    elif variant == "gift_790g":
        gift_790g(rng, d)
    elif variant == "gift_other":
        gift_other(rng, d)
    elif variant == "gift_bare":
        gift_bare(rng, d)
    else:
        raise AssertionError(variant)
    return d.write(), detail


LEVEL_VARIANTS = {
    1: (("estate_only_child", 49), ("gift_simple", 51)),
    2: (("estate_spouse_children", 30), ("estate_children_legatees", 27), ("estate_siblings_legatees", 27),
        ("gift_other", 16)),
    3: (("gift_790g", 58), ("gift_other", 8), ("estate_recall", 22), ("estate_recall_representation", 12)),
    4: (("gift_bare", 70), ("estate_usufruct", 30)),
}
FIXED_VARIANTS = ["estate_only_child", "estate_usufruct", "estate_spouse_children", "gift_790g",
                  "estate_recall_representation", "gift_bare"]


def level_of(i: int) -> int:
    """The seed's mix: cycle 1, 4, 2, 3 with tasks 4 and 7 swapped."""
    if i < 8:
        return (1, 4, 2, 3, 3, 4, 2, 1)[i]
    return (1, 4, 2, 3)[i % 4]


def half_euro_deltas(t0: Fraction, per_cent: Fraction, limit: int) -> list:
    """Cent deltas d with t0 + per_cent x d on x.50 exactly (an affine piece), smallest first."""
    if per_cent == 0:
        return []
    goal = (F(1, 2) - t0) % 1  # per_cent x d = goal (mod 1)
    modulus = math.lcm(per_cent.denominator, goal.denominator)
    a = per_cent.numerator * (modulus // per_cent.denominator) % modulus
    b = goal.numerator * (modulus // goal.denominator) % modulus
    g = math.gcd(a, modulus)
    if b % g:
        return []
    step = modulus // g
    first = (b // g) * pow(a // g, -1, step) % step if step > 1 else 0
    deltas = []
    for k in range(-3, 4):
        for d in (first + k * step, first - step + k * step):
            if abs(d) <= limit and d not in deltas:
                deltas.append(d)
    return sorted(deltas, key=abs)


def plant_half_euro(rng: random.Random, case: dict, target: str | None = None) -> str | None:
    """Nudges one amount (an asset of an estate, a gift's value) so that an exact
    taxable share (solved: it is affine in the amount) or an exact tax (stepped
    by about one euro of taxable share) lands on x.50."""
    target = target or rng.choice(["taxable", "tax"])
    key = "assets" if case["kind"] == "estate" else "gifts"
    holders = [entry for entry in case.get(key) or []]
    if not holders:
        return None
    holder = rng.choice(holders)
    original = holder["value"]
    start = amount_cents(original)

    def results_at(delta: int) -> list | None:
        if start + delta < 0:
            return None
        holder["value"] = write_amount(rng, start + delta)
        return compute(read_case(case))

    def hit(results) -> bool:
        return results is not None and any(
            not r.exempt and (r.taxable_exact if target == "taxable" else r.tax_exact).denominator == 2
            and (r.taxable_exact if target == "taxable" else r.tax_exact) > 0 for r in results)

    base, moved = results_at(0), results_at(1)
    candidates = []
    for r0, r1 in zip(base, moved):
        if r0.exempt or r0.taxable_exact <= 0:
            continue
        slope = r1.taxable_exact - r0.taxable_exact
        if target == "taxable":
            candidates += half_euro_deltas(r0.taxable_exact, slope, 200_000)
        elif slope:
            step = max(1, math.ceil(1 / abs(slope)))
            candidates += [sign * step * k for k in range(1, 25) for sign in (1, -1)]
    seen = set()
    for delta in candidates[:80]:
        if delta in seen:
            continue
        seen.add(delta)
        if hit(results_at(delta)):
            return target
    holder["value"] = original
    return None


def draw_valid(rng: random.Random, level: int, variant: str | None = None) -> tuple:
    variant = variant or rng.choices(*zip(*LEVEL_VARIANTS[level]))[0]
    for _ in range(10):
        case, detail = build(rng, level, variant)
        if acceptable(rng, read_case(case), level):
            break
    planted = None
    if rng.random() < 0.35:
        # The tax rarely can land on x.50 (never in the 20 %, 30 % or 60 % bands with T = 0):
        # fall back to the taxable share.
        planted = plant_half_euro(rng, case) or plant_half_euro(rng, case, "taxable")
    tag = f"L{level}:{variant}" + (f"+{detail}" if detail else "")
    if planted:
        tag += f"+half-{planted}"
    return case, tag


# --- Faults ------------------------------------------------------------------

BAD_KINDS = [ABSENT, None, "Estate", "succession", "donation", "", RawNumber("1"), ["estate"], True, "gift ",
             "GIFT", "legacy"]
BAD_DATES = ["2026-02-29", "2027-02-29", "1900-02-29", "2026-13-01", "2026-04-31", "2026-00-10", "2026-01-00",
             "2026-3-14", "26-03-14", "14/03/2026", "2026/03/14", "20260314", "2026-03-14T00:00:00",
             " 2026-03-14", "2026-03-14 ", "", "2026-1-1", "\uff12\uff10\uff12\uff16-03-14", "2026-03-32",
             RawNumber("2026"), RawNumber("20260314"), True, [], {}, "March 14, 2026", "2026-03"]
BAD_AMOUNTS = [RawNumber("1500.5"), RawNumber("1500.0"), RawNumber("-1"), RawNumber("-0"), RawNumber("1e3"),
               RawNumber("1E+2"), RawNumber("0.01"), "-5", "-0.01", "-0", "1.234", "1500.000", "1.", ".5",
               " 12", "12 ", "1,5", "1 000", "1e3", "NaN", "Infinity", "", "+12", "12€", "€12", True, False,
               [], {}, "0x10", "\u0661\u0662", "12.5.0"]
BAD_FRACTIONS = ["1/0", "0/0", "3/0", "-1/4", "1/-4", "1/4 ", " 1/4", "1 / 4", "1/2/3", "0.25.1", ".25", "1.",
                 "1,5", "a", "", "1/4.0", "1.5/3", "one", "-0.25", "+1/4", "1e-1", "NaN", "\u2153", "1:4",
                 RawNumber("0.25"), RawNumber("-1"), RawNumber("1.0"), RawNumber("1e0"), RawNumber("-0"),
                 True, False, [], {}, ["1/4"]]
ABOVE_ONE = ["3/2", "1.01", RawNumber("2"), "5/4", "2", "1.5", "101/100", "1.0000001", "9/8", "10"]
BAD_FLAGS = ["true", "false", RawNumber("1"), RawNumber("0"), "yes", [], {}, "", "True", "null"]
BAD_RELATIONSHIPS = [ABSENT, None, "Child", "parent", "cousin", "partner", "spouse ", "grand_child", "grandchild ",
                     "nephew", "niece", "friend", "brother", "PACS", "pacs", "great-grandchild", RawNumber("1"),
                     True, [], "enfant"]
NOT_OBJECTS = [None, [], "x", RawNumber("1"), True]
NOT_LISTS = [{}, "x", RawNumber("3"), True, {"0": {}}]
NON_OBJECT_CASES = [[], "x", RawNumber("42"), None, True, [{"kind": "estate"}], "{}"]


def act_of(case: dict) -> date:
    try:
        return read_date(case.get("act_date"), "act_date")
    except DatasetError:
        return date(2026, 6, 1)


def after_act(rng: random.Random, case: dict) -> str:
    act = act_of(case)
    return rng.choice([act + timedelta(days=1), act + timedelta(days=1),
                       act + timedelta(days=rng.randint(2, 4000)), date(2099, 1, 1)]).isoformat()


def beneficiary_ids(case: dict) -> list:
    people = case.get("beneficiaries")
    if not isinstance(people, list):
        return []
    return [p["id"] for p in people if isinstance(p, dict) and isinstance(p.get("id"), str)]


def some_id(rng: random.Random, case: dict) -> str:
    ids = beneficiary_ids(case)
    return rng.choice(ids) if ids else "B1"


def unknown_id(rng: random.Random, case: dict) -> object:
    ids = beneficiary_ids(case)
    choices = [ABSENT, None, "B99", "", RawNumber("1"), ["B1"], "Z9"]
    if ids:
        choices += [ids[0].lower() if ids[0].lower() != ids[0] else ids[0] + "x", ids[-1] + " ", " " + ids[0]]
    people = case.get("beneficiaries")
    if isinstance(people, list) and people and isinstance(people[0], dict) and isinstance(people[0].get("name"), str):
        choices.append(people[0]["name"])  # A name is no id.
    choice = rng.choice(choices)
    return "B99" if isinstance(choice, str) and choice in ids else choice


def writable_items(rng: random.Random, case: dict, key: str, make) -> list:
    """The list `case[key]` as objects, with at least one item (made valid if needed)."""
    items = case.get(key)
    if not isinstance(items, list):
        items = []
    items = [dict(item) if isinstance(item, dict) else item for item in items]
    if not items:
        items.append(make())
    case[key] = items
    return items


def writable_item(rng: random.Random, case: dict, key: str, make) -> tuple:
    items = writable_items(rng, case, key, make)
    index = rng.randrange(len(items))
    if not isinstance(items[index], dict):
        items[index] = make()
    return index, items[index]


def make_asset(rng: random.Random):
    return lambda: {"label": rng.choice(ASSET_LABELS), "value": write_amount(rng, money_cents(rng, 1000, 50000))}


def make_bequest(rng: random.Random, case: dict):
    return lambda: {"beneficiary": some_id(rng, case), "amount": write_amount(rng, money_cents(rng, 1000, 20000))}


def make_gift(rng: random.Random, case: dict):
    return lambda: {"beneficiary": some_id(rng, case), "label": "Somme d'argent",
                    "value": write_amount(rng, money_cents(rng, 1000, 20000)), "fraction": "1", "cash": True}


def make_prior(rng: random.Random, case: dict):
    act = act_of(case)
    return lambda: {"beneficiary": some_id(rng, case), "date": (act - timedelta(days=rng.randint(0, 4000))).isoformat(),
                    "value": write_amount(rng, money_cents(rng, 1000, 20000))}


def make_person(rng: random.Random, case: dict):
    act = act_of(case)
    return lambda: {"id": f"N{rng.randint(10, 99)}", "relationship": "unrelated",
                    "birth_date": (act - timedelta(days=rng.randint(0, 30000))).isoformat()}


def fault_kind(rng, case):
    put(case, "kind", rng.choice(BAD_KINDS))


def fault_act_date(rng, case):
    put(case, "act_date", rng.choice([ABSENT, None] + BAD_DATES))


def fault_person(rng, case):
    put(case, "person", rng.choice([ABSENT, None, [], "Jeanne Martin", RawNumber("1"), [case.get("person")]]))


def fault_person_birth_date(rng, case):
    person = case.get("person")
    person = dict(person) if isinstance(person, dict) else {"name": "X"}
    case["person"] = person
    choices = [ABSENT, None] + BAD_DATES + [after_act(rng, case)] * 8
    put(person, "birth_date", rng.choice(choices))


def fault_beneficiaries(rng, case):
    put(case, "beneficiaries", rng.choice([ABSENT, None] + NOT_LISTS))


def fault_beneficiary_item(rng, case):
    index, _ = writable_item(rng, case, "beneficiaries", make_person(rng, case))
    case["beneficiaries"][index] = rng.choice(NOT_OBJECTS + ["B1"])


def fault_beneficiary_id(rng, case):
    _, person = writable_item(rng, case, "beneficiaries", make_person(rng, case))
    put(person, "id", rng.choice([ABSENT, None, RawNumber("1"), True, ["B1"], {}]))


def fault_duplicate_id(rng, case):
    """Reported at the second occurrence."""
    people = writable_items(rng, case, "beneficiaries", make_person(rng, case))
    objects = [i for i, p in enumerate(people) if isinstance(p, dict)]
    if len(objects) >= 2 and rng.random() < 0.75:
        first, second = sorted(rng.sample(objects, 2))
        people[second] = dict(people[second], id=people[first].get("id"))
    else:
        source = people[objects[0]] if objects else make_person(rng, case)()
        people.insert(rng.randint(1, len(people)), dict(source))


def fault_relationship(rng, case):
    _, person = writable_item(rng, case, "beneficiaries", make_person(rng, case))
    if case.get("kind") == "gift" and rng.random() < 0.5:
        person["relationship"] = rng.choice(["spouse", "pacs_partner"])  # Reading 9.
    else:
        put(person, "relationship", rng.choice(BAD_RELATIONSHIPS))


def fault_birth_date(rng, case):
    _, person = writable_item(rng, case, "beneficiaries", make_person(rng, case))
    put(person, "birth_date", rng.choice([ABSENT, None] + BAD_DATES + [after_act(rng, case)] * 8))


def fault_disabled(rng, case):
    _, person = writable_item(rng, case, "beneficiaries", make_person(rng, case))
    person["disabled"] = rng.choice(BAD_FLAGS)


def fault_represents(rng, case):
    """Reading 6: represents only on a grandchild in an estate, and only a string."""
    people = writable_items(rng, case, "beneficiaries", make_person(rng, case))
    objects = [p for p in people if isinstance(p, dict)]
    if not objects:
        return
    roll = rng.random()
    if roll < 0.25:
        rng.choice(objects)["represents"] = rng.choice([RawNumber("1"), True, [], {}, ["Luc Martin"]])
        return
    if case.get("kind") == "gift":
        rng.choice(objects)["represents"] = "Luc Martin"
        return
    others = [p for p in objects if p.get("relationship") != "grandchild"]
    target = rng.choice(others) if others else objects[0]
    if not others:
        target["relationship"] = rng.choice(["child", "great_grandchild", "nephew_niece"])
    target["represents"] = rng.choice(["Luc Martin", "", target.get("name") or "X"])


def fault_assets(rng, case):
    roll = rng.random()
    if roll < 0.15:
        case["assets"] = rng.choice(NOT_LISTS)
    elif roll < 0.3:
        index, _ = writable_item(rng, case, "assets", make_asset(rng))
        case["assets"][index] = rng.choice(NOT_OBJECTS)
    else:
        _, asset = writable_item(rng, case, "assets", make_asset(rng))
        put(asset, "value", rng.choice([ABSENT, None] + BAD_AMOUNTS * 2))


def fault_debts(rng, case):
    roll = rng.random()
    if roll < 0.15:
        case["debts"] = rng.choice(NOT_LISTS)
    elif roll < 0.3:
        index, _ = writable_item(rng, case, "debts", make_asset(rng))
        case["debts"][index] = rng.choice(NOT_OBJECTS)
    else:
        _, debt = writable_item(rng, case, "debts", make_asset(rng))
        put(debt, "value", rng.choice([ABSENT, None] + BAD_AMOUNTS * 2))


def fault_funeral_costs(rng, case):
    case["funeral_costs"] = rng.choice(BAD_AMOUNTS)


def fault_bequests(rng, case):
    roll = rng.random()
    if roll < 0.12:
        case["bequests"] = rng.choice(NOT_LISTS)
    elif roll < 0.24:
        index, _ = writable_item(rng, case, "bequests", make_bequest(rng, case))
        case["bequests"][index] = rng.choice(NOT_OBJECTS)
    elif roll < 0.62:
        _, bequest = writable_item(rng, case, "bequests", make_bequest(rng, case))
        put(bequest, "beneficiary", unknown_id(rng, case))
    else:
        _, bequest = writable_item(rng, case, "bequests", make_bequest(rng, case))
        put(bequest, "amount", rng.choice([ABSENT, None] + BAD_AMOUNTS * 2))


def fault_residue_shares(rng, case):
    shares = case.get("residue_shares")
    shares = dict(shares) if isinstance(shares, dict) else {}
    roll = rng.random()
    if roll < 0.12:
        case["residue_shares"] = rng.choice([[], "1", RawNumber("1"), True, [{"B1": "1"}]])
        return
    if roll < 0.5 or not shares:
        key = unknown_id(rng, case)
        key = key if isinstance(key, str) else "B99"
        items = list(shares.items())
        items.insert(rng.randint(0, len(items)), (key, rng.choice(["1/4", "0", "1/2"])))
        case["residue_shares"] = dict(items)
        return
    shares[rng.choice(list(shares))] = rng.choice(BAD_FRACTIONS)
    case["residue_shares"] = shares


def fault_spouse_usufruct(rng, case):
    case["spouse_usufruct"] = rng.choice(BAD_FLAGS)


def fault_gifts(rng, case):
    roll = rng.random()
    if roll < 0.08:
        case["gifts"] = rng.choice(NOT_LISTS)
        return
    if roll < 0.16:
        index, _ = writable_item(rng, case, "gifts", make_gift(rng, case))
        case["gifts"][index] = rng.choice(NOT_OBJECTS)
        return
    _, gift = writable_item(rng, case, "gifts", make_gift(rng, case))
    roll = rng.random()
    if roll < 0.2:
        put(gift, "beneficiary", unknown_id(rng, case))
    elif roll < 0.38:
        put(gift, "value", rng.choice([ABSENT, None] + BAD_AMOUNTS))
    elif roll < 0.58:
        put(gift, "fraction", rng.choice([ABSENT, None] + BAD_FRACTIONS))
    elif roll < 0.8:
        gift["fraction"] = rng.choice(ABOVE_ONE)  # Reading 2.
    elif roll < 0.9:
        gift["cash"] = rng.choice(BAD_FLAGS)
    else:
        gift["reserved_usufruct"] = rng.choice(BAD_FLAGS)


def fault_prior_gifts(rng, case):
    roll = rng.random()
    if roll < 0.08:
        case["prior_gifts"] = rng.choice(NOT_LISTS)
        return
    if roll < 0.15:
        index, _ = writable_item(rng, case, "prior_gifts", make_prior(rng, case))
        case["prior_gifts"][index] = rng.choice(NOT_OBJECTS)
        return
    _, gift = writable_item(rng, case, "prior_gifts", make_prior(rng, case))
    roll = rng.random()
    if roll < 0.25:
        put(gift, "beneficiary", unknown_id(rng, case))
    elif roll < 0.65:
        # Reading 13: the act date is accepted, the day after is not.
        put(gift, "date", rng.choice([ABSENT, None] + BAD_DATES + [after_act(rng, case)] * 12))
    elif roll < 0.85:
        put(gift, "value", rng.choice([ABSENT, None] + BAD_AMOUNTS))
    else:
        gift["cash_790g"] = rng.choice(BAD_FLAGS)


def fault_other_kind(rng, case):
    """Reading 5: fields of the other kind, each valid in itself."""
    if case.get("kind") == "gift":
        choice = rng.choice(["debts", "funeral_costs", "bequests", "residue_shares", "spouse_usufruct"])
        if choice == "debts":
            case["debts"] = [{"label": "Prêt", "value": write_amount(rng, money_cents(rng, 100, 20000))}]
        elif choice == "funeral_costs":
            case["funeral_costs"] = rng.choice(["0.01", RawNumber("1500"), "2300.00", "1"])
        elif choice == "bequests":
            case["bequests"] = [make_bequest(rng, case)()]
        elif choice == "residue_shares":
            case["residue_shares"] = {some_id(rng, case): rng.choice(["1", "0", "1/2"])}
        else:
            case["spouse_usufruct"] = True
    else:
        case["gifts"] = [make_gift(rng, case)()]


def fault_switch_kind(rng, case):
    if case.get("kind") in ("estate", "gift"):
        case["kind"] = "gift" if case["kind"] == "estate" else "estate"


def readable_shares(case: dict) -> dict | None:
    shares = case.get("residue_shares")
    if not isinstance(shares, dict):
        return None
    try:
        return {key: read_fraction(value, key) for key, value in shares.items()}
    except DatasetError:
        return None


def fault_share_sum(rng, case):
    """Reading 3: shares must add up to exactly 1."""
    if case.get("kind") == "gift":
        fault_other_kind(rng, case)
        return
    shares = readable_shares(case)
    roll = rng.random()
    if roll < 0.25 or not shares:
        put(case, "residue_shares", rng.choice([ABSENT, None, {}]))
        return
    key = rng.choice(list(shares))
    written = dict(case["residue_shares"])
    if roll < 0.5:
        share = shares[key]
        other = share + rng.choice([F(1, 100), -F(1, 100), F(1, 3), -share / 2, F(1, 1000000)])
        if other < 0 or other == share:
            other = share + F(1, 8)
        written[key] = write_fraction(rng, other)
    elif roll < 0.7:
        # Thirds written as rounded decimals never add up.
        for k, share in shares.items():
            text = decimal_text(share)
            written[k] = text if text is not None else f"{math.floor(share * 100) / 100:.2f}"
        if sum((read_fraction(v, "x") for v in written.values()), F(0)) == 1:
            written[key] = write_fraction(rng, shares[key] + F(1, 16))
    elif roll < 0.85:
        others = [i for i in beneficiary_ids(case) if i not in shares]
        if others:
            written[rng.choice(others)] = rng.choice(["1/4", "1/8", "0.1"])
        else:
            del written[key]
    else:
        del written[key]
    case["residue_shares"] = written


def fault_representation(rng, case):
    """Reading 6: a representation group whose shares add up to 0."""
    if case.get("kind") != "estate":
        fault_represents(rng, case)
        return
    people = case.get("beneficiaries")
    shares = readable_shares(case)
    if not isinstance(people, list) or shares is None:
        return
    groups = collections.defaultdict(list)
    for p in people:
        if isinstance(p, dict) and isinstance(p.get("represents"), str) and p.get("relationship") == "grandchild":
            groups[p["represents"]].append(p.get("id"))
    written = dict(case["residue_shares"])
    if groups and rng.random() < 0.7:
        name = rng.choice(list(groups))
        moved = sum((shares.get(bid, F(0)) for bid in groups[name]), F(0))
        for bid in groups[name]:
            if bid in written:
                if rng.random() < 0.5:
                    del written[bid]
                else:
                    written[bid] = "0"
        receivers = [bid for bid in shares if bid not in groups[name]]
        if receivers:
            receiver = rng.choice(receivers)
            written[receiver] = write_fraction(rng, shares[receiver] + moved)
        case["residue_shares"] = written
        return
    act = act_of(case)
    new_id = f"R{rng.randint(10, 99)}"
    people.insert(rng.randint(0, len(people)), {
        "id": new_id, "name": "Nina Orphelin", "relationship": "grandchild",
        "birth_date": (act - timedelta(days=rng.randint(0, 12000))).isoformat(),
        "represents": rng.choice(["Luc Martin", "Inconnu"])})
    if rng.random() < 0.5:
        bequests = case.get("bequests") if isinstance(case.get("bequests"), list) else []
        case["bequests"] = bequests + [{"beneficiary": new_id, "amount": "5000"}]


def fault_spouse_count(rng, case):
    """Reading 8: spouse usufruct without exactly one spouse."""
    if case.get("kind") != "estate":
        case["spouse_usufruct"] = True
        return
    case["spouse_usufruct"] = True
    people = case.get("beneficiaries")
    if not isinstance(people, list):
        return
    spouses = [p for p in people if isinstance(p, dict) and p.get("relationship") == "spouse"]
    if spouses and rng.random() < 0.5:
        spouses[0]["relationship"] = "pacs_partner"  # A PACS partner cannot take it.
    elif spouses:
        people.append(dict(spouses[0], id=f"S{rng.randint(10, 99)}", name="Second Conjoint"))
    elif rng.random() < 0.5 and people and isinstance(people[0], dict):
        people.append(dict(people[0], id="P9", relationship="pacs_partner", represents=None))


FAULTS = [
    (fault_kind, 4), (fault_act_date, 5), (fault_person, 3), (fault_person_birth_date, 5),
    (fault_beneficiaries, 3), (fault_beneficiary_item, 3), (fault_beneficiary_id, 3), (fault_duplicate_id, 5),
    (fault_relationship, 6), (fault_birth_date, 6), (fault_disabled, 3), (fault_represents, 6),
    (fault_assets, 5), (fault_debts, 4), (fault_funeral_costs, 4), (fault_bequests, 6),
    (fault_residue_shares, 7), (fault_spouse_usufruct, 3), (fault_gifts, 12), (fault_prior_gifts, 11),
    (fault_other_kind, 6), (fault_switch_kind, 3), (fault_share_sum, 7), (fault_representation, 5),
    (fault_spouse_count, 5),
]


def generate_tagged(rng: random.Random, i: int) -> tuple[str, str]:
    """One case as JSON text, with the generator's intent as a tag."""
    level = level_of(i)
    fixed = i < len(FIXED_VARIANTS)
    if not fixed and rng.random() < 0.015:
        return dump_json(rng.choice(NON_OBJECT_CASES)), "invalid:non_object"
    case, tag = draw_valid(rng, level, FIXED_VARIANTS[i] if fixed else None)
    tag = "valid:" + tag
    if not fixed and rng.random() < 0.30:
        n_faults = 1 if rng.random() < 0.65 else rng.randint(2, 3)
        functions, weights = zip(*FAULTS)
        names = []
        for fault in rng.choices(functions, weights=weights, k=n_faults):
            fault(rng, case)
            names.append(fault.__name__.removeprefix("fault_"))
        tag = f"invalid:L{level}:" + "+".join(names)
    if rng.random() < 0.25:
        case = shuffled(rng, case)
    return dump_json(case), tag


def generate(rng: random.Random, i: int) -> str:
    """One random case as JSON text (deterministic for a given rng state)."""
    return generate_tagged(rng, i)[0]


# ---------------------------------------------------------------------------
# Comparison with the engine, and the distribution report
# ---------------------------------------------------------------------------

BAND_EDGES = {age for oldest, _ in USUFRUCT_BANDS for age in (oldest, oldest + 1)}


def outcome_key(expected: dict) -> str:
    """A coarse label of an answer, for the distribution report."""
    if "error" not in expected:
        return "valid"
    path = re.sub(r"\[\d+\]", "[i]", expected["error"]["path"])
    path = re.sub(r"^residue_shares\..*", "residue_shares.<key>", path)
    return f"error {path}"


def features(case: Case) -> list:
    """What a valid case exercises, measured on the case itself."""
    found = set()
    results = compute(case)
    base = answer_of(results)
    act = case.act_date
    found.add(f"kind {case.kind}")
    n = len(case.beneficiaries)
    found.add("beneficiaries " + ("0" if n == 0 else "1" if n == 1 else "2-3" if n <= 3 else "4-7" if n <= 7 else "8+"))
    for b in case.beneficiaries:
        found.add(f"{case.kind}: relationship {b.relationship}")
        if b.disabled:
            found.add(f"{case.kind}: disabled beneficiary")
        if age_on(b.birth_date, act) != age_on(b.birth_date, act - timedelta(days=1)):
            found.add("a beneficiary's birthday on the act date")
    if (act.month, act.day) == (2, 29):
        found.add("act on 29 February")
    if act.year != 2026:
        found.add(f"act in {act.year}")
    boundary = date(*recall_boundary(act))
    for p in case.prior_gifts:
        tag = "790 G prior gift" if p.cash_790g else "prior gift"
        if p.date == boundary:
            found.add(f"{tag} on the 15-year day")
        elif p.date == boundary + timedelta(days=1):
            found.add(f"{tag} one day after the 15-year day")
        elif p.date == act:
            found.add(f"{tag} on the act date")
    if case.kind == "estate":
        net = sum(case.assets, F(0)) - sum(case.debts, F(0)) - min(case.funeral_costs, FUNERAL_CAP)
        if case.funeral_costs > FUNERAL_CAP:
            found.add("funeral costs above the cap")
        if net - sum((a for _, a in case.bequests), F(0)) < 0:
            found.add("negative residue")
        if case.bequests:
            found.add("bequests")
        if case.spouse_usufruct:
            spouse = next(b for b in case.beneficiaries if b.relationship == "spouse")
            spouse_age = age_on(spouse.birth_date, act)
            found.add(f"spouse usufruct {usufruct_percent(spouse_age)}%")
            if spouse_age in BAND_EDGES:
                found.add("spouse usufruct, spouse on an art. 669 band edge")
            if case.residue_shares.get(spouse.id):
                found.add("spouse usufruct with a spouse share")
        for name in representation_groups(case).values():
            members = [b for b in case.beneficiaries if b.represents == name]
            found.add(f"representation group of {len(members)}")
            shares = {case.residue_shares.get(b.id, F(0)) for b in members}
            if len(shares) > 1:
                found.add("representation with unequal shares")
            if F(0) in shares:
                found.add("representative without a share")
    else:
        donor_age = age_on(case.person_birth_date, act)
        if any(g.reserved_usufruct for g in case.gifts):
            found.add(f"reserved usufruct {usufruct_percent(donor_age)}%")
            if donor_age in BAND_EDGES:
                found.add("reserved usufruct, donor on an art. 669 band edge")
        if any(g.cash and g.reserved_usufruct for g in case.gifts):
            found.add("cash gift with reserved usufruct")
        if donor_age in (79, 80):
            birth = case.person_birth_date
            found.add(f"790 G donor aged {donor_age}"
                      + (" (birthday today)" if age_on(birth, act - timedelta(days=1)) != donor_age else "")
                      + (" (birthday tomorrow)" if age_on(birth, act + timedelta(days=1)) != donor_age else ""))
        for b, r in zip(case.beneficiaries, results):
            age = age_on(b.birth_date, act)
            if r.cash and b.relationship in CASH_790G_DONEES and age in (17, 18):
                found.add(f"790 G donee aged {age}"
                          + (" (birthday today)" if age_on(b.birth_date, act - timedelta(days=1)) != age else "")
                          + (" (birthday tomorrow)" if age_on(b.birth_date, act + timedelta(days=1)) != age else ""))
            if r.exemption > 0:
                found.add("790 G applied")
                if r.ceiling < CASH_790G_CEILING:
                    found.add("790 G reduced ceiling")
                if r.exemption < r.cash:
                    found.add("790 G capped by the ceiling")
            if r.cash_790g_eligible and r.cash > 0 and r.ceiling == 0:
                found.add("790 G ceiling exhausted")
            if r.cash > 0 and not r.cash_790g_eligible:
                found.add("cash gift without 790 G")
    for r in results:
        if r.exempt:
            continue
        if r.recalled > r.allowance:
            found.add("recall above the allowance (lower bands used)")
        if r.taxable_exact.denominator == 2:
            found.add("taxable share on a half euro")
        if r.tax_exact.denominator == 2:
            found.add("tax on a half euro")
        top = r.taxed_before + r.taxable
        if SCALES[r.relationship] is DIRECT_LINE and r.taxable and top > 552324:
            found.add("direct line above 552,324 (30 %+ bands)")
    if base["total_droits"] == 0:
        found.add("total 0")
    for ablation in ABLATIONS:
        if matters(case, base, ablation):
            found.add(f"matters: {ablation}")
    return sorted(found)


def print_distribution(cases, out) -> None:
    harness.print_distribution(cases, out, outcome_key, harness.level_intents,
                               features=lambda text: features(read_case(parse_case(text))))


# ---------------------------------------------------------------------------
# Worked examples (computed by hand, line by line) and the self-test
# ---------------------------------------------------------------------------
#
# Cumulative direct-line scale at the band tops: scale(8,072) = 403.60;
# scale(12,109) = 403.60 + 10 % x 4,037 = 807.30; scale(15,932) = 807.30 +
# 15 % x 3,823 = 1,380.75; so between 15,932 and 552,324:
# scale(x) = 1,380.75 + 20 % x (x - 15,932) = 0.2 x - 1,805.65.

def worked_examples() -> list:
    """The five hand-computed dossiers as JSON-ready dicts {name, case, expect}."""
    def person(bid, name, relationship, birth, disabled=False, represents=None):
        return {"id": bid, "name": name, "relationship": relationship, "birth_date": birth,
                "disabled": disabled, "represents": represents}

    def answer(rows, total):
        return {"beneficiaires": {bid: {"part_taxable": taxable, "droits": tax} for bid, taxable, tax in rows},
                "total_droits": total}

    examples = []

    # 1. Only-child estate with the funeral cap.
    # Assets 250,000 + 38,412.37 = 288,412.37; debts 6,000; funeral 2,300 capped at 1,500.
    # Net estate = 288,412.37 - 6,000 - 1,500 = 280,912.37; the only child takes the residue (share 1).
    # Allowance 100,000, no prior gift: taxable = 180,912.37 -> 180,912.
    # Tax = 403.60 + 403.70 + 573.45 + 20 % x (180,912 - 15,932) = 164,980 x 0.2 = 32,996
    #     = 34,376.75 -> 34,377 (0.2 x 180,912 - 1,805.65 = 34,376.75).
    examples.append({"name": "only-child estate with the funeral cap", "case": {
        "kind": "estate", "act_date": "2026-03-14",
        "person": {"name": "Jeanne Martin", "birth_date": "1948-02-11"},
        "assets": [{"label": "Maison", "value": 250000}, {"label": "Livret A", "value": "38412.37"}],
        "debts": [{"label": "Prêt immobilier", "value": 6000}],
        "funeral_costs": 2300, "bequests": [], "residue_shares": {"B1": "1"}, "spouse_usufruct": False,
        "beneficiaries": [person("B1", "Paul Martin", "child", "1975-06-02")], "prior_gifts": []},
        "expect": answer([("B1", 180912, 34377)], 34377)})

    # 2. Gift with 790 G and a recall. Act 2026-05-20; donor born 1955-10-03: 70, under 80.
    # Donee B1, child born 1990-02-14: 36, 18 or older. act - 15 years = 2011-05-20.
    # Value = 300,000 x 1/2 + 40,000 x 1 = 190,000; cash received 40,000.
    # Earlier 790 G gifts within 15 years: 2014-02-01 (20,000); 2010-01-01 is older.
    # Ceiling 31,865 - 20,000 = 11,865; E = min(40,000, 11,865) = 11,865.
    # Recall S: 2012-09-10 (60,000) only; 2011-05-20 (5,000) is exactly 15 years before: not
    # recalled; 790 G gifts never are. A = 100,000; U = 60,000; T = 0; remaining 40,000.
    # Taxable = 190,000 - 11,865 - 40,000 = 138,135.
    # Tax = 0.2 x 138,135 - 1,805.65 = 27,627 - 1,805.65 = 25,821.35 -> 25,821.
    examples.append({"name": "gift with 790 G and a recall", "case": {
        "kind": "gift", "act_date": "2026-05-20",
        "person": {"name": "Marc Petit", "birth_date": "1955-10-03"},
        "gifts": [
            {"beneficiary": "B1", "label": "Maison", "value": 300000, "fraction": "1/2", "cash": False,
             "reserved_usufruct": False},
            {"beneficiary": "B1", "label": "Somme d'argent", "value": 40000, "fraction": "1", "cash": True,
             "reserved_usufruct": False}],
        "beneficiaries": [person("B1", "Léa Petit", "child", "1990-02-14")],
        "prior_gifts": [
            {"beneficiary": "B1", "date": "2014-02-01", "value": 20000, "cash_790g": True},
            {"beneficiary": "B1", "date": "2010-01-01", "value": 10000, "cash_790g": True},
            {"beneficiary": "B1", "date": "2012-09-10", "value": 60000, "cash_790g": False},
            {"beneficiary": "B1", "date": "2011-05-20", "value": 5000, "cash_790g": False}]},
        "expect": answer([("B1", 138135, 25821)], 25821)})

    # 3. Bare-ownership gift whose recall uses the lower bands. Act 2026-09-15; donor born
    # 1960-01-20: 66 -> usufruct 40 %, bare ownership 60 %. act - 15 years = 2011-09-15.
    # B1 grandchild (born 2001-04-03, 25): apartment 420,000 x 1/2 x 60 % = 126,000, plus cash
    # 10,000 (790 G: donor 66 < 80, donee 25 >= 18, ceiling 31,865): E = 10,000; value 136,000.
    # Recall: 2016-06-30 (40,000). A = 31,865 (grandchild gift); U = 31,865; T = 8,135.
    # Taxable = 136,000 - 10,000 - (31,865 - 31,865) = 126,000.
    # scale(8,135) = 403.60 + 10 % x 63 = 409.90; scale(134,135) = 26,827 - 1,805.65 = 25,021.35.
    # Tax = 25,021.35 - 409.90 = 24,611.45 -> 24,611 (scale(126,000) alone would be 23,394.35).
    # B2 child (born 1985-07-11, 41): 420,000 x 1/2 x 60 % = 126,000; A = 100,000; taxable
    # 26,000; tax = 5,200 - 1,805.65 = 3,394.35 -> 3,394. Total 28,005.
    examples.append({"name": "bare-ownership gift whose recall uses the lower bands", "case": {
        "kind": "gift", "act_date": "2026-09-15",
        "person": {"name": "Hélène Faure", "birth_date": "1960-01-20"},
        "gifts": [
            {"beneficiary": "B1", "label": "Appartement", "value": 420000, "fraction": "1/2", "cash": False,
             "reserved_usufruct": True},
            {"beneficiary": "B2", "label": "Appartement", "value": 420000, "fraction": "1/2", "cash": False,
             "reserved_usufruct": True},
            {"beneficiary": "B1", "label": "Virement", "value": 10000, "fraction": "1", "cash": True,
             "reserved_usufruct": False}],
        "beneficiaries": [person("B1", "Théo Faure", "grandchild", "2001-04-03"),
                          person("B2", "Claire Faure", "child", "1985-07-11")],
        "prior_gifts": [{"beneficiary": "B1", "date": "2016-06-30", "value": 40000, "cash_790g": False}]},
        "expect": answer([("B1", 126000, 24611), ("B2", 26000, 3394)], 28005)})

    # 4. Spouse-usufruct estate with representation and a bequest. Act 2026-03-14.
    # Assets 900,000 + 85,250.40; debts 15,000; funeral 1,200 (under the cap).
    # Net = 985,250.40 - 15,000 - 1,200 = 969,050.40; bequest to B5 12,000; residue 957,050.40.
    # Spouse B1 born 1950-08-20: 75 -> usufruct 30 %, bare ownership 70 % on every residue share.
    # B2 child, 1/2: 957,050.40 x 1/2 x 0.7 = 334,967.64; A = 100,000; taxable 234,967.64 ->
    #   234,968; tax = 46,993.60 - 1,805.65 = 45,187.95 -> 45,188. (Its 790 G prior gift of
    #   2020 is never recalled.)
    # B3 and B4 represent Luc Moreau (group share 1/2), 1/4 each: value 957,050.40 x 1/4 x 0.7
    #   = 167,483.82; allowance 100,000 x (1/4) / (1/2) = 50,000 each.
    #   B3 has a recalled gift of 2015-01-10 (10,000): U = 10,000, T = 0, remaining 40,000;
    #   taxable 127,483.82 -> 127,484; tax = 25,496.80 - 1,805.65 = 23,691.15 -> 23,691.
    #   B4: taxable 117,483.82 -> 117,484; tax = 23,496.80 - 1,805.65 = 21,691.15 -> 21,691.
    # B5 nephew, bequest 12,000 in full ownership: 12,000 - 7,967 = 4,033; 55 % = 2,218.15 -> 2,218.
    # B1 spouse: exempt, 0 and 0. Total = 45,188 + 23,691 + 21,691 + 2,218 = 92,788.
    examples.append({"name": "spouse-usufruct estate with representation and a bequest", "case": {
        "kind": "estate", "act_date": "2026-03-14",
        "person": {"name": "Robert Moreau", "birth_date": "1944-05-02"},
        "assets": [{"label": "Maison", "value": 900000}, {"label": "Portefeuille titres", "value": "85250.40"}],
        "debts": [{"label": "Impôt sur le revenu", "value": 15000}],
        "funeral_costs": "1200.00",
        "bequests": [{"beneficiary": "B5", "amount": 12000}],
        "residue_shares": {"B2": "1/2", "B3": "1/4", "B4": "1/4"},
        "spouse_usufruct": True,
        "beneficiaries": [
            person("B1", "Anne Moreau", "spouse", "1950-08-20"),
            person("B2", "Julien Moreau", "child", "1972-11-05"),
            person("B3", "Emma Moreau", "grandchild", "1999-01-12", represents="Luc Moreau"),
            person("B4", "Hugo Moreau", "grandchild", "2003-07-30", represents="Luc Moreau"),
            person("B5", "Sophie Garnier", "nephew_niece", "1980-02-02")],
        "prior_gifts": [
            {"beneficiary": "B3", "date": "2015-01-10", "value": 10000, "cash_790g": False},
            {"beneficiary": "B2", "date": "2020-06-01", "value": 30000, "cash_790g": True}]},
        "expect": answer([("B1", 0, 0), ("B2", 234968, 45188), ("B3", 127484, 23691),
                          ("B4", 117484, 21691), ("B5", 4033, 2218)], 92788)})

    # 5. Siblings with a 0.50 rounding and a disabled heir. Act 2026-10-02.
    # Assets 160,000 + 31,004.00 = 191,004; debts 4,500; funeral 2,000 capped at 1,500.
    # Net = 185,004; bequest to B4 5,000; residue 180,004.
    # B1 sibling, 3/8: 67,501.50; A = 15,932; taxable 51,569.50 -> 51,570 (0.50 rounds up).
    #   Tax = 35 % x 24,430 = 8,550.50 + 45 % x (51,570 - 24,430) = 12,213.00 = 20,763.50
    #   -> 20,764 (0.50 up again).
    # B2 sibling, disabled, 3/8: 67,501.50; A = 15,932 + 159,325 = 175,257: taxable 0, tax 0.
    # B3 nephew, 1/4: 45,001; A = 7,967; taxable 37,034; 55 % = 20,368.70 -> 20,369.
    # B4 unrelated, bequest 5,000; A = 1,594; taxable 3,406; 60 % = 2,043.60 -> 2,044.
    # Total = 20,764 + 0 + 20,369 + 2,044 = 43,177.
    examples.append({"name": "siblings with a 0.50 rounding and a disabled heir", "case": {
        "kind": "estate", "act_date": "2026-10-02",
        "person": {"name": "Marcel Blanc", "birth_date": "1940-04-18"},
        "assets": [{"label": "Maison", "value": 160000}, {"label": "Livret A", "value": "31004.00"}],
        "debts": [{"label": "Facture EHPAD", "value": "4500"}],
        "funeral_costs": 2000,
        "bequests": [{"beneficiary": "B4", "amount": 5000}],
        "residue_shares": {"B1": "3/8", "B2": "3/8", "B3": "1/4"},
        "spouse_usufruct": False,
        "beneficiaries": [
            person("B1", "Odette Blanc", "sibling", "1943-01-09"),
            person("B2", "René Blanc", "sibling", "1946-12-24", disabled=True),
            person("B3", "Alice Blanc", "nephew_niece", "1975-05-05"),
            person("B4", "Karim Haddad", "unrelated", "1988-08-08")],
        "prior_gifts": []},
        "expect": answer([("B1", 51570, 20764), ("B2", 0, 0), ("B3", 37034, 20369), ("B4", 3406, 2044)],
                         43177)})
    return examples


def self_test() -> None:
    def check(case, expected) -> None:
        text = case if isinstance(case, str) else dump_json(case)
        actual = evaluate(parse_case(text))
        if isinstance(expected, str):
            assert "error" in actual and actual["error"]["path"] == expected, (text, actual, expected)
        else:
            assert actual == expected, (text, actual, expected)
            assert list(actual["beneficiaires"]) == list(expected["beneficiaires"]), (text, actual)

    examples = worked_examples()
    for example in examples:
        check(example["case"], example["expect"])
        json.dumps(example)  # JSON-ready.

    def variant(index: int, edit) -> dict:
        case = json.loads(json.dumps(examples[index]["case"]))
        edit(case)
        return case

    def value_of(index: int, edit, bid: str) -> dict:
        actual = evaluate(parse_case(dump_json(variant(index, edit))))
        assert "error" not in actual, actual
        return actual["beneficiaires"][bid]

    # --- Computation edges -----------------------------------------------------
    # Funeral cap: 1,499.49 is deducted in full: net 288,412.37 - 6,000 - 1,499.49 = 280,912.88,
    # taxable 180,912.88 -> 180,913.
    assert value_of(0, lambda c: c.update(funeral_costs="1499.49"), "B1")["part_taxable"] == 180913
    # Absent and null funeral costs are 0: taxable 182,412.37 -> 182,412.
    assert value_of(0, lambda c: c.pop("funeral_costs"), "B1")["part_taxable"] == 182412
    assert value_of(0, lambda c: c.update(funeral_costs=None), "B1")["part_taxable"] == 182412
    # Disabled only child: A = 259,325 > 280,912.37? No: taxable 21,587.37 -> 21,587;
    # tax = 0.2 x 21,587 - 1,805.65 = 2,511.75 -> 2,512.
    assert value_of(0, lambda c: c["beneficiaries"][0].update(disabled=True), "B1") == \
        {"part_taxable": 21587, "droits": 2512}
    # Top band: assets 3,000,000: taxable 2,900,000 -> 574,948.95 + 45 % x 1,094,323 =
    # 492,445.35 -> 1,067,394.30 -> 1,067,394.
    assert value_of(0, lambda c: c.update(assets=[{"value": "3001500"}], debts=[]), "B1") == \
        {"part_taxable": 2900000, "droits": 1067394}

    # Dossier 2 variants. Prior gift exactly 15 years before becomes recalled one day later:
    # S = 65,000: remaining 35,000; taxable 143,135; tax 28,627 - 1,805.65 = 26,821.35 -> 26,821.
    assert value_of(1, lambda c: c["prior_gifts"][3].update(date="2011-05-21"), "B1") == \
        {"part_taxable": 143135, "droits": 26821}
    # A prior gift dated on the act date is accepted and recalled (reading 13): same numbers.
    assert value_of(1, lambda c: c["prior_gifts"][3].update(date="2026-05-20"), "B1") == \
        {"part_taxable": 143135, "droits": 26821}
    # The 2014 790 G gift exactly 15 years before (2011-05-20) no longer reduces the ceiling:
    # E = 31,865; taxable 190,000 - 31,865 - 40,000 = 118,135; tax 23,627 - 1,805.65 -> 21,821.
    assert value_of(1, lambda c: c["prior_gifts"][0].update(date="2011-05-20"), "B1") == \
        {"part_taxable": 118135, "droits": 21821}
    # Ceiling exhausted (earlier 790 G gifts 40,000 within 15 years): E = 0; taxable 150,000;
    # tax 30,000 - 1,805.65 = 28,194.35 -> 28,194.
    assert value_of(1, lambda c: c["prior_gifts"][0].update(value=40000), "B1") == \
        {"part_taxable": 150000, "droits": 28194}
    # Donor turning 80 on the gift date: no 790 G (same 150,000); the day before 80: 790 G.
    assert value_of(1, lambda c: c["person"].update(birth_date="1946-05-20"), "B1")["part_taxable"] == 150000
    assert value_of(1, lambda c: c["person"].update(birth_date="1946-05-21"), "B1")["part_taxable"] == 138135
    # Donee turning 18 on the gift date: 790 G; the day after her 17th year ends: none.
    assert value_of(1, lambda c: c["beneficiaries"][0].update(birth_date="2008-05-20"), "B1")["part_taxable"] == 138135
    assert value_of(1, lambda c: c["beneficiaries"][0].update(birth_date="2008-05-21"), "B1")["part_taxable"] == 150000
    # Reading 14: act on 29 February -> boundary 28 February 15 years before.
    for day, recalled in (("2013-02-28", False), ("2013-03-01", True)):
        edit = (lambda d: lambda c: (c.update(act_date="2028-02-29"), c.update(prior_gifts=[
            {"beneficiary": "B1", "date": d, "value": 50000}])))(day)
        # Without recall: 190,000 - 31,865 - 100,000 = 58,135; with: 190,000 - 31,865 - 50,000 = 108,135.
        assert value_of(1, edit, "B1")["part_taxable"] == (108135 if recalled else 58135), day
    # Great-grandchild gift: allowance 5,310, no 790 G, direct-line scale: S = 60,000 > 5,310,
    # so U = 5,310, T = 54,690 and no allowance remains: taxable 190,000 - 0 - 0 = 190,000;
    # tax = scale(244,690) - scale(54,690) = 0.2 x 190,000 = 38,000 (both in the 20 % band).
    assert value_of(1, lambda c: c["beneficiaries"][0].update(relationship="great_grandchild"), "B1") == \
        {"part_taxable": 190000, "droits": 38000}
    # Unrelated donee: allowance 0, S = 60,000 = T; taxable 190,000; 60 % = 114,000.
    assert value_of(1, lambda c: c["beneficiaries"][0].update(relationship="unrelated"), "B1") == \
        {"part_taxable": 190000, "droits": 114000}

    # Dossier 3: donor aged 91 (born 1935-09-15, birthday on the act date) -> usufruct 10 %,
    # bare 90 %: B2 gets 189,000, taxable 89,000, tax 17,800 - 1,805.65 = 15,994.35 -> 15,994.
    # Aged 90 the day before (born 1935-09-16): bare 80 %: 168,000 -> 68,000 -> 11,794.35 -> 11,794.
    assert value_of(2, lambda c: c["person"].update(birth_date="1935-09-15"), "B2") == \
        {"part_taxable": 89000, "droits": 15994}
    assert value_of(2, lambda c: c["person"].update(birth_date="1935-09-16"), "B2") == \
        {"part_taxable": 68000, "droits": 11794}
    # Donor aged 20 (born 2006-09-15): usufruct 90 %, bare 10 %: B2 42,000 < 100,000 -> 0.
    assert value_of(2, lambda c: c["person"].update(birth_date="2006-09-15"), "B2") == \
        {"part_taxable": 0, "droits": 0}
    # Reading 11: the cash gift with reserved usufruct: 10,000 x 60 % = 6,000 cash and value;
    # B1 value 132,000 - E 6,000 = 126,000: unchanged taxable.
    assert value_of(2, lambda c: c["gifts"][2].update(reserved_usufruct=True), "B1")["part_taxable"] == 126000

    # Dossier 4: without usufruct B2 gets 478,525.20 -> 378,525.20 -> 378,525;
    # tax 0.2 x 378,525 - 1,805.65 = 73,899.35 -> 73,899.
    assert value_of(3, lambda c: c.update(spouse_usufruct=False), "B2") == {"part_taxable": 378525, "droits": 73899}
    # Unequal representation shares 1/6 and 1/3 (group 1/2): allowances 33,333.33... and
    # 66,666.66...; B4 value 957,050.40 x 1/3 x 0.7 = 223,311.76; taxable 156,645.093... -> 156,645.
    assert value_of(3, lambda c: c["residue_shares"].update(B3="1/6", B4="1/3"), "B4")["part_taxable"] == 156645
    # Reading 4: bequests above the net estate: negative residue, residue heirs floored at 0.
    assert value_of(3, lambda c: c["bequests"][0].update(amount=2000000), "B2") == {"part_taxable": 0, "droits": 0}
    # A spouse share is multiplied too and stays exempt; a PACS partner besides is fine.
    check(variant(3, lambda c: (c["residue_shares"].update(B1="1/4", B2="1/4"),
                                c["beneficiaries"].append({"id": "P", "relationship": "pacs_partner",
                                                           "birth_date": "1960-01-01"}))),
          {"beneficiaires": {"B1": {"part_taxable": 0, "droits": 0},
                             # B2: 957,050.40 x 1/4 x 0.7 = 167,483.82 - 100,000 -> 67,484;
                             # tax 13,496.80 - 1,805.65 = 11,691.15 -> 11,691.
                             "B2": {"part_taxable": 67484, "droits": 11691},
                             "B3": {"part_taxable": 127484, "droits": 23691},
                             "B4": {"part_taxable": 117484, "droits": 21691},
                             "B5": {"part_taxable": 4033, "droits": 2218},
                             "P": {"part_taxable": 0, "droits": 0}},
           "total_droits": 11691 + 23691 + 21691 + 2218})

    # Dossier 5: a 1,500.00 funeral invoice is the cap itself: unchanged.
    check(variant(4, lambda c: c.update(funeral_costs="1500.00")), examples[4]["expect"])

    # --- Syntax accepted --------------------------------------------------------
    for amount in ("31004", "31004.0", "031004.00", RawNumber("31004")):
        check(variant(4, lambda c: c["assets"][1].update(value=amount)), examples[4]["expect"])
    for b1, b2, b3 in (("0.375", "3/8", RawNumber("0") if False else "0.25"), ("6/16", "0.3750", "2/8")):
        check(variant(4, lambda c: c.update(residue_shares={"B1": b1, "B2": b2, "B3": b3})), examples[4]["expect"])
    check(variant(0, lambda c: c.update(residue_shares={"B1": RawNumber("1")})), examples[0]["expect"])
    # Optional fields absent or null.
    check(variant(4, lambda c: ([p.pop("disabled") for p in c["beneficiaries"][2:]],
                                [p.update(represents=None) for p in c["beneficiaries"]],
                                c.pop("prior_gifts"), c.update(spouse_usufruct=None, gifts=[]))),
          examples[4]["expect"])
    # A key no input declares is refused, before the faults of its object's values.
    check(variant(4, lambda c: [p.update(represents=None, extra="x") for p in c["beneficiaries"]]),
          "beneficiaries[0].extra")
    check(variant(4, lambda c: c.update(note=1, kind="will")), "note")
    check(variant(4, lambda c: c["person"].update(death_place="Lyon", birth_date="x")),
          "person.death_place")
    # A gift with empty lists, zeros and false of the estate kind (reading 5); assets unused.
    check(variant(1, lambda c: c.update(debts=[], funeral_costs="0.00", bequests=None, residue_shares={},
                                        spouse_usufruct=False, assets=[{"value": "12.5"}])),
          examples[1]["expect"])
    # A gift fraction of exactly 1, fractions of one asset over 1 in total (not summed).
    check(variant(1, lambda c: c["gifts"][0].update(fraction=RawNumber("1"))),
          {"beneficiaires": {"B1": {"part_taxable": 288135, "droits": 55821}}, "total_droits": 55821})
    # Birth date on the act date (age 0) and a gift without beneficiaries of its own.
    check({"kind": "gift", "act_date": "2026-01-01", "person": {"birth_date": "2026-01-01"}},
          {"beneficiaires": {}, "total_droits": 0})

    # --- Rejections ---------------------------------------------------------------
    for text in ("[]", '"x"', "42", "null", "true", '[{"kind": "estate"}]'):
        check(text, "$")
    for bad in (ABSENT, None, "Estate", "donation", RawNumber("1")):
        check(variant(0, lambda c: put(c, "kind", bad)), "kind")
    for bad in (ABSENT, "2026-02-29", "2026-3-14", "2026-03-14T00:00", RawNumber("20260314")):
        check(variant(0, lambda c: put(c, "act_date", bad)), "act_date")
    check(variant(0, lambda c: c.pop("person")), "person")
    check(variant(0, lambda c: c.update(person=["x"])), "person")
    check(variant(0, lambda c: c["person"].pop("birth_date")), "person.birth_date")
    check(variant(0, lambda c: c["person"].update(birth_date="2026-03-15")), "person.birth_date")
    check(variant(0, lambda c: c["person"].update(birth_date="2026-03-14")), examples[0]["expect"])
    check(variant(4, lambda c: c.update(beneficiaries={})), "beneficiaries")
    check(variant(4, lambda c: c["beneficiaries"].__setitem__(2, "B3")), "beneficiaries[2]")
    check(variant(4, lambda c: c["beneficiaries"][1].update(id=2)), "beneficiaries[1].id")
    check(variant(4, lambda c: c["beneficiaries"][2].update(id="B1")), "beneficiaries[2].id")
    # Beneficiary by beneficiary: [1]'s bad birth date before [2]'s duplicate id.
    check(variant(4, lambda c: (c["beneficiaries"][2].update(id="B1"),
                                c["beneficiaries"][1].update(birth_date="2026-10-03"))), "beneficiaries[1].birth_date")
    # Within one: id, relationship, birth date, disabled, represents.
    check(variant(4, lambda c: c["beneficiaries"][3].update(relationship="friend", birth_date="x", disabled="no")),
          "beneficiaries[3].relationship")
    check(variant(4, lambda c: c["beneficiaries"][3].update(birth_date="x", disabled="no")),
          "beneficiaries[3].birth_date")
    check(variant(4, lambda c: c["beneficiaries"][3].update(disabled="no", represents="X")),
          "beneficiaries[3].disabled")
    check(variant(4, lambda c: c["beneficiaries"][3].update(represents="X")), "beneficiaries[3].represents")
    check(variant(3, lambda c: c["beneficiaries"][2].update(represents=7)), "beneficiaries[2].represents")
    check(variant(1, lambda c: c["beneficiaries"][0].update(relationship="grandchild", represents="X")),
          "beneficiaries[0].represents")
    check(variant(1, lambda c: c["beneficiaries"][0].update(relationship="spouse")), "beneficiaries[0].relationship")
    check(variant(1, lambda c: c["beneficiaries"][0].update(relationship="pacs_partner")),
          "beneficiaries[0].relationship")
    for bad in (RawNumber("1500.5"), RawNumber("1500.0"), RawNumber("-0"), "-1", "1.234", "1.", True, None):
        check(variant(4, lambda c: c["assets"][1].update(value=bad)), "assets[1].value")
    check(variant(4, lambda c: c["assets"].append(None)), "assets[2]")
    check(variant(4, lambda c: c.update(assets={"value": 1})), "assets")
    check(variant(4, lambda c: c["debts"][0].update(value="4 500")), "debts[0].value")
    check(variant(4, lambda c: c.update(funeral_costs=RawNumber("2000.50"))), "funeral_costs")
    check(variant(4, lambda c: c["bequests"][0].update(beneficiary="B9")), "bequests[0].beneficiary")
    check(variant(4, lambda c: c["bequests"][0].update(beneficiary="Karim Haddad")), "bequests[0].beneficiary")
    check(variant(4, lambda c: c["bequests"][0].pop("amount")), "bequests[0].amount")
    check(variant(4, lambda c: c.update(residue_shares=["B1"])), "residue_shares")
    check(variant(4, lambda c: c["residue_shares"].update(B9="0")), "residue_shares.B9")
    for bad in ("1/0", "0/0", "-1/4", RawNumber("0.25"), "1/4 ", ".5", True, None):
        check(variant(4, lambda c: c["residue_shares"].update(B2=bad)), "residue_shares.B2")
    # Keys in JSON order: the unknown key first, then B1's bad value.
    check(variant(4, lambda c: c.update(residue_shares={"X": "1", "B1": "1/0"})), "residue_shares.X")
    check(variant(4, lambda c: c.update(spouse_usufruct="false")), "spouse_usufruct")
    check(variant(1, lambda c: c["gifts"][1].update(fraction="3/2")), "gifts[1].fraction")
    check(variant(1, lambda c: c["gifts"][1].update(fraction="1/0")), "gifts[1].fraction")
    check(variant(1, lambda c: c["gifts"][1].update(fraction="1.01")), "gifts[1].fraction")
    check(variant(1, lambda c: c["gifts"][1].update(cash="true")), "gifts[1].cash")
    check(variant(1, lambda c: c["gifts"][0].update(reserved_usufruct=1)), "gifts[0].reserved_usufruct")
    check(variant(1, lambda c: c["gifts"][0].update(beneficiary="B2", value="x")), "gifts[0].beneficiary")
    check(variant(1, lambda c: c["gifts"][0].update(value="x", fraction="x")), "gifts[0].value")
    check(variant(1, lambda c: c["prior_gifts"][2].update(date="2026-05-21")), "prior_gifts[2].date")
    check(variant(1, lambda c: c["prior_gifts"][2].update(beneficiary="b1")), "prior_gifts[2].beneficiary")
    check(variant(1, lambda c: c["prior_gifts"][2].pop("value")), "prior_gifts[2].value")
    check(variant(1, lambda c: c["prior_gifts"][2].update(cash_790g="no")), "prior_gifts[2].cash_790g")
    # Cross-field checks: kind-specific fields, share sum, groups, spouse usufruct.
    check(variant(1, lambda c: c.update(debts=[{"value": 1}])), GIFT_DEBTS_PATH)
    check(variant(1, lambda c: c.update(funeral_costs="0.01")), "funeral_costs")
    check(variant(1, lambda c: c.update(bequests=[{"beneficiary": "B1", "amount": 1}])), "bequests")
    check(variant(1, lambda c: c.update(residue_shares={"B1": "0"})), "residue_shares")
    check(variant(1, lambda c: c.update(spouse_usufruct=True)), "spouse_usufruct")
    check(variant(1, lambda c: c.update(debts=[{"value": 1}], spouse_usufruct=True)), GIFT_DEBTS_PATH)
    check(variant(4, lambda c: c.update(gifts=[{"beneficiary": "B1", "value": 1, "fraction": "1"}])), "gifts")
    check(variant(4, lambda c: c.update(gifts=[{"beneficiary": "B1", "value": 1}])), "gifts[0].fraction")
    for shares in (ABSENT, None, {}, {"B1": "3/8", "B2": "3/8", "B3": "1/5"},
                   {"B1": "0.33", "B2": "0.33", "B3": "0.34", "B4": "0.01"}):
        check(variant(4, lambda c: put(c, "residue_shares", shares)), "residue_shares")
    # The share sum comes after the kind-specific fields, before the groups.
    check(variant(4, lambda c: c.update(residue_shares={"B1": "1/2"}, gifts=[{"beneficiary": "B1", "value": 1,
                                                                              "fraction": "1"}])), "gifts")
    check(variant(3, lambda c: c.update(residue_shares={"B2": "1/2", "B3": "0", "B4": "0"})), "residue_shares")
    check(variant(3, lambda c: c.update(residue_shares={"B2": "1", "B3": "0"})), "beneficiaries[2].represents")
    check(variant(3, lambda c: c.update(residue_shares={"B2": "1", "B3": "0"}, spouse_usufruct=False)),
          "beneficiaries[2].represents")
    # Groups come before the spouse usufruct check.
    check(variant(3, lambda c: (c.update(residue_shares={"B2": "1"}),
                                c["beneficiaries"][0].update(relationship="pacs_partner"))),
          "beneficiaries[2].represents")
    check(variant(3, lambda c: c["beneficiaries"][0].update(relationship="pacs_partner")), "spouse_usufruct")
    check(variant(3, lambda c: c["beneficiaries"].append(dict(c["beneficiaries"][0], id="B6"))), "spouse_usufruct")
    # Field checks come before every cross-field check.
    check(variant(3, lambda c: (c["beneficiaries"][0].update(relationship="pacs_partner"),
                                c["prior_gifts"][0].update(value="-1"))), "prior_gifts[0].value")
    check(variant(1, lambda c: (c.update(kind="estate"))), "gifts")
    check(variant(3, lambda c: (c.update(kind="gift"))), "beneficiaries[0].relationship")
    check(variant(4, lambda c: (c.update(kind="gift"))), GIFT_DEBTS_PATH)

    # --- Generator --------------------------------------------------------------
    def sample(seed: int) -> list[str]:
        rng = random.Random(seed)
        return [generate(rng, i) for i in range(120)]

    assert sample(7) == sample(7) and sample(7) != sample(8)
    rng = random.Random(5)
    for i in range(6):  # The first six tasks are valid, with the seed's fixed variants.
        text, tag = generate_tagged(rng, i)
        assert tag.startswith(f"valid:L{level_of(i)}:{FIXED_VARIANTS[i]}"), tag
        assert "error" not in evaluate(parse_case(text)), text
    for text in sample(3):
        raw = parse_case(text)
        if "error" not in evaluate(raw):
            features(read_case(raw))
    assert [level_of(i) for i in range(12)] == [1, 4, 2, 3, 3, 4, 2, 1, 1, 4, 2, 3]
    print("self-test: ok")


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = harness.cli_parser(__doc__, "rulebooks/succession-fr/v2026")
    parser.add_argument("--worked-examples", action="store_true",
                        help="print the five hand-computed dossiers as {name, case, expect} JSON Lines")
    args = parser.parse_args(argv)

    if args.self_test:
        self_test()
        return 0
    if args.worked_examples:
        for example in worked_examples():
            print(json.dumps(example, ensure_ascii=False))
        return 0
    if args.tasks:
        return harness.run_tasks(args.tasks, "succession-fr", evaluate, ensure_ascii=False,
                                 bareme=args.bareme, rulebook=args.rulebook)
    cases = harness.generate_cases(args.n, args.seed, generate_tagged, evaluate)
    return harness.dump_or_run(parser, args, cases, print_distribution, ensure_ascii=False,
                               instead_of_bareme="--dump, --self-test or --worked-examples")


if __name__ == "__main__":
    sys.exit(main())
