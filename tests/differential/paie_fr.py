#!/usr/bin/env python3
"""Independent reference for the French monthly payslip 2026 (paie-fr v2026), for differential testing.

Why this exists: the `bareme` engine evaluates `rulebooks/paie-fr/v2026` from a
declarative rulebook. This file is a second, independent reading of the same
spec (specs/paie-fr.md, its 28 "Precise readings" included; the
seed 000_fbadd0e6490dde35.md where the spec is silent, the spec winning where
they differ), written directly in Python with no code shared with the engine
(the harness it runs in is harness.py). Random cases are
generated, evaluated here and by the engine, and every disagreement is printed:
either the rulebook or this reading is wrong, and the spec decides which.

Stdlib only. Usage:

    python3 tests/differential/paie_fr.py --bareme target/debug/bareme \\
        --rulebook rulebooks/paie-fr/v2026 --n 5000 --seed 1
    python3 tests/differential/paie_fr.py --bareme target/debug/bareme \\
        --ablate hourly_rate_rounded_before_premium --n 2000   # an engine ablation vs `ablated`
    python3 tests/differential/paie_fr.py --dump /tmp/cases.jsonl --n 2000 --stats
    python3 tests/differential/paie_fr.py --self-test

Cases are JSON parsed with numbers kept as written (`RawNumber`), so that a
level `3.0` or `1e0` can be told apart from `3`.

Arithmetic: every input amount, rate and hour count is read as an exact
`Fraction` of its decimal text; every amount the spec rounds is rounded
exactly, half-up (a tie goes away from zero, as `decimal.ROUND_HALF_UP`), to
the cent (the RGDU coefficient to 4 decimals); intermediate ratios are never
rounded; totals are sums of rounded amounts. The only inexact step is the
fractional power of the RGDU formula, computed with `decimal` at 60 digits as
the 4th root of the 7th power ((x^7)^(1/4) = x^1.75), far below the 1e-6 the
generator keeps between a coefficient and a rounding boundary.

Readings this file takes where the spec leaves a choice (the spec's own
readings are cited by number; everything else is a decision of this file):

Validation (reading 14's order; the first fault wins; every path is the
field's own key, `health_insurance.premium` style inside the two objects):
  `$` (not a JSON object), level, month, status, headcount, base_salary,
  contract_hours, hourly_rate, overtime_25_hours, overtime_50_hours, the
  part-time check (path of the first overtime field whose value is > 0),
  bonus, unpaid_absence_hours (syntax, then > contract hours), benefit_in_kind,
  health_insurance (the object, premium, employer_share), meal_vouchers (the
  object, count, face_value, employer_share), at_rate, mobility_rate,
  withholding_rate, rgdu_coefficient (syntax and range when given, then
  "missing at levels 1-2"), entry_date, exit_date, entry + exit together
  (`exit_date`), overtime_exempt_ytd (syntax when given, then "missing at
  level 4 with overtime"), then the negative gross (`unpaid_absence_hours`).
  * Required (reading 2): absent or `null` is a fault at the field's step.
    `null` is "absent" for every optional field. `health_insurance` or
    `meal_vouchers` present but not an object (list, string, number, boolean)
    is reported at that key; inside, every sub-field is required.
  * Money (reading 3): a JSON string `[0-9]+(\\.[0-9]{1,2})?` (ASCII digits,
    leading zeros allowed: "03200.00" is 3200.00); anything else (JSON
    number, sign, exponent, spaces, comma, `.5`, `5.`) is rejected.
  * Rates (reading 4): a JSON string `[0-9]+(\\.[0-9]+)?`, any number of
    decimals, no upper bound. Shares and `rgdu_coefficient`: the same syntax
    and a value in [0, 1] ("1", "1.000" and "0" accepted).
  * Hours (reading 5): a JSON string `[0-9]+(\\.[0-9]{1,2})?`; contract_hours
    must equal by value one of 151.67, 86.67, 104, 121.33, 130, 138.67
    ("104", "0104.00" accepted; "151.670" rejected for its three decimals).
    Overtime "0" / "0.00" is no overtime (reading 8). Absence equal to the
    contract hours is accepted (SMIC_ref 0, hence C = 0); above them
    rejected, at every level (reading 1: validated wherever present).
  * Integers (reading 6): a JSON number written `[0-9]+` (no fraction, no
    exponent, no sign). DECISION: `-0` is rejected like `-0.00` (reading 3
    rejects a written minus sign even on a zero), for headcount and count
    alike; a level `-0` is rejected anyway.
  * Month (reading 7): a string `YYYY-MM`, month 01-12, year 2026.
  * Dates (reading 10): a string `YYYY-MM-DD` naming a real day (2026 is not
    a leap year: "2026-02-29" does not exist) inside the payroll month,
    validated at every level, used only at level 4.
  * "With overtime" (readings 2, 8, 19, 22) means an overtime hours value
    > 0; level 4 with overtime hours > 0 needs overtime_exempt_ytd even when
    the hourly rate is 0 (overtime pay 0).
  * Negative gross (reading 12): gross < 0 is rejected; a gross of exactly
    0.00 is a valid case. Only levels 1-3 deduct absence, so a level-4 case
    never fails this check (reading 1).
Computation:
  * Days of presence (level 4): entry → days of the month − entry day + 1;
    exit → exit day; neither → the whole month. Levels 1-3 never prorate
    (entry/exit dates are validated, then ignored, reading 1).
  * Base of the month: round(base × presence / days) whenever level 4 has an
    entry or exit date (= base for a whole-month date, reading 10).
  * Overtime pays at every level (reading 15: a level-1 case with overtime is
    computed); level-4 overtime on an entry month or outside August-December
    is computed (reading 11). Absence is deducted at levels 1-3 only.
  * Ceiling: 4,005.00 at levels 1-3 (also part time, reading 9); level 4
    round(4,005 × hours / 151.67 × presence / days) with the hours as written.
    T1, T2, capped-4, CET bases from that rounded ceiling; T2 is capped at 7
    ceilings and the CET base at 8 ceilings (a brut above 8 ceilings is
    computed as written). CET only when brut > ceiling.
  * SMIC_ref: levels 1-3 round(1,823.03 × (hours − absence) / hours) (at
    level 4 absence is ignored); level 4 round(1,823.03 × hours / 151.67 ×
    presence / days). Levels 1-2 use the given coefficient as written (any
    decimals, not rounded to 4). Levels 3-4: C = 0 when brut ≥ 3 × SMIC_ref
    (so SMIC_ref 0 gives C = 0, and brut 0 with SMIC_ref > 0 takes the cap,
    reading 21); else min(0.02 + Tdelta × (0.5 × (3 S / brut − 1))^1.75,
    0.02 + Tdelta) rounded to 4 decimals; Tdelta 0.3781 below 50 employees,
    0.3821 from 50. RGDU = round(brut × C).
  * Health: employer round(premium × share), employee premium − employer
    (reading 18), each counted once. Death cover (cadres) round(1.5 % × T1)
    (reading 17). CSG/CRDS base = round(98.25 % × (brut − overtime pay)) +
    employer health share + death cover; overtime base round(98.25 % ×
    overtime pay). A negative amount (brut − overtime can be negative when an
    absence eats the base but overtime keeps the gross ≥ 0) is rounded
    half-up away from zero, like the negative PAS of reading 23.
  * Line conditions: FNAL 0.10 % of T1 below 50 employees, 0.50 % of brut
    from 50; mobility, forfait social and CFP 1.00 % from 11 employees (CFP
    0.55 % below); APEC and death cover for cadres; overtime CSG/CRDS when an
    overtime hours value > 0 (reading 19); the health lines when the object
    is present. Lines of zero amount change no total.
  * Exempt overtime: levels 1-3 the whole overtime pay; level 4
    min(overtime pay, max(0, 7,500 − ytd)) (reading 22; no overtime → 0).
  * Meal vouchers: employer round(count × face × share) on the total,
    employee count × face − employer; they enter only net_a_payer and
    cout_employeur.
  * Answers are strings with exactly two decimals; a zero is "0.00", never
    "-0.00"; negative amounts keep their sign ("-12.34").
Ablations (`ablated(case, name)`; validation unchanged, only the reading):
  * hourly_rate_rounded_before_premium: overtime = round(hours ×
    round(rate × 1.25)) and round(hours × round(rate × 1.5)).
  * daily_salary_rounded_before_proration: wherever the base is prorated
    (level 4 with an entry or exit date, whole-month dates included, as the
    formula replaced is the one the spec applies there):
    round(round(base / days) × presence).
  * meal_vouchers_rounded_per_voucher: employer share = count ×
    round(face × share); the employee share follows (total − employer).
  * ignore_overtime_cap: level 4 exempt overtime = the whole overtime pay.
  * unprorated_ceiling: level 4 ceiling 4,005.00 whatever the hours and the
    presence (the reference SMIC stays prorated).
Generator: the seed's levels (mix cycle 1, 4, 2, 3, `id` "paie-<level>-<i>"
on some cases as an ignored key), profiles and level-4 discards (ceiling,
SMIC_ref or prorated base within 1e-9 of a half cent; a computed C within
1e-6 of a 4-decimal rounding boundary), plus DECISIONS of this file: ~11 %
of valid cases are "edge" cases of the readings (whole-month dates, level-4
overtime on an entry month or in spring, part time at levels 1-3, level 1
outside its profile, zero base or gross, absence = contract hours, brut on
3 × SMIC_ref, big bonus on a tiny prorated ceiling (brut > 8 ceilings),
ytd without overtime, ignored level-4 absence, extreme coefficients and
shares...), and ~6 % of level-4 valid cases deliberately keep an exact
half-cent prorated base (the seed discards them only so that its float and
decimal arithmetic agree; an exact engine must round them up). About 30 % of
cases get one to three faults; the outcome is always measured by `evaluate`.
"""

from __future__ import annotations

import calendar
import json
import os
import random
import re
import sys
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, getcontext
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402  (the shared harness, in this folder)
    ABSENT, DatasetError, RawNumber, dump_json, parse_case, put, shuffled,
)
import harness  # noqa: E402

getcontext().prec = 60

F = Fraction
ZERO = F(0)
CENT = Decimal("0.01")

YEAR = 2026
PMSS = F("4005.00")
SMIC_RGDU = F("1823.03")
LEGAL_HOURS = F("151.67")
OVERTIME_CAP = F("7500.00")
OVERTIME_REDUCTION = F("11.31") / 100
CSG_BASE_RATE = F("98.25") / 100
CONTRACT_HOURS = tuple(F(h) for h in ("151.67", "86.67", "104.00", "121.33", "130.00", "138.67"))
STATUSES = ("cadre", "non_cadre")
LEVELS = (1, 2, 3, 4)

# Readings 3 and 5: unsigned ASCII digits, optionally a point and one or two digits.
MONEY_SYNTAX = re.compile(r"[0-9]+(?:\.[0-9]{1,2})?")
HOURS_SYNTAX = MONEY_SYNTAX
# Reading 4: any number of decimals.
RATE_SYNTAX = re.compile(r"[0-9]+(?:\.[0-9]+)?")
# Reading 6: a JSON integer without sign, fraction or exponent.
INTEGER_SYNTAX = re.compile(r"[0-9]+")
MONTH_SYNTAX = re.compile(r"([0-9]{4})-([0-9]{2})")
DATE_SYNTAX = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")

ANSWER_KEYS = ("brut", "total_cotisations_salariales", "net_imposable", "prelevement_source",
               "net_a_payer", "cout_employeur")
ABLATIONS = ("hourly_rate_rounded_before_premium", "daily_salary_rounded_before_proration",
             "meal_vouchers_rounded_per_voucher", "ignore_overtime_cap", "unprorated_ceiling")


# ---------------------------------------------------------------------------
# Validation (readings 1-14)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Health:
    premium: Fraction
    share: Fraction


@dataclass(frozen=True)
class Meals:
    count: int
    face_value: Fraction
    share: Fraction


@dataclass(frozen=True)
class Case:
    level: int
    month: int
    status: str
    headcount: int
    base_salary: Fraction
    contract_hours: Fraction
    hourly_rate: Fraction
    overtime_25: Fraction
    overtime_50: Fraction
    bonus: Fraction
    absence: Fraction
    benefit_in_kind: Fraction
    health: Health | None
    meals: Meals | None
    at_rate: Fraction
    mobility_rate: Fraction
    withholding_rate: Fraction
    rgdu_coefficient: Fraction | None
    entry: date | None
    exit: date | None
    overtime_exempt_ytd: Fraction | None

    @property
    def days_in_month(self) -> int:
        return calendar.monthrange(YEAR, self.month)[1]

    @property
    def has_overtime(self) -> bool:
        return self.overtime_25 > 0 or self.overtime_50 > 0

    @property
    def part_time(self) -> bool:
        return self.contract_hours != LEGAL_HOURS


def is_given(value) -> bool:
    """Reading 2: `null` means absent."""
    return value is not None


def required(raw: dict, key: str, path: str | None = None):
    value = raw.get(key)
    if not is_given(value):
        raise DatasetError(path or key, "missing")
    return value


def read_text(value, path: str, syntax: re.Pattern, what: str) -> Fraction:
    if not isinstance(value, str):
        raise DatasetError(path, f"{what} must be a decimal string")
    if not syntax.fullmatch(value):
        raise DatasetError(path, f"{value!r} is not a valid {what}")
    return F(value)


def read_money(value, path: str) -> Fraction:
    """Reading 3."""
    return read_text(value, path, MONEY_SYNTAX, "amount (non-negative, at most two decimals)")


def read_hours(value, path: str) -> Fraction:
    """Reading 5."""
    return read_text(value, path, HOURS_SYNTAX, "hour count (at most two decimals)")


def read_rate(value, path: str) -> Fraction:
    """Reading 4: percent rates, no upper bound."""
    return read_text(value, path, RATE_SYNTAX, "rate")


def read_share(value, path: str) -> Fraction:
    """Reading 4: fractions in [0, 1]."""
    share = read_text(value, path, RATE_SYNTAX, "share")
    if share > 1:
        raise DatasetError(path, f"{value!r} is above 1")
    return share


def read_integer(value, path: str) -> int:
    """Reading 6: a JSON integer (no sign, fraction or exponent)."""
    if not (isinstance(value, RawNumber) and INTEGER_SYNTAX.fullmatch(value.text)):
        raise DatasetError(path, "must be a non-negative JSON integer")
    return int(value.text)


def read_month(value) -> int:
    """Reading 7."""
    if not isinstance(value, str):
        raise DatasetError("month", "month must be a YYYY-MM string")
    match = MONTH_SYNTAX.fullmatch(value)
    if not match or not 1 <= int(match.group(2)) <= 12:
        raise DatasetError("month", f"{value!r} is not YYYY-MM")
    if int(match.group(1)) != YEAR:
        raise DatasetError("month", f"{value!r} is not a 2026 month")
    return int(match.group(2))


def read_date(value, path: str, month: int) -> date:
    """Reading 10: a real day inside the payroll month."""
    if not isinstance(value, str):
        raise DatasetError(path, "a date must be a YYYY-MM-DD string")
    match = DATE_SYNTAX.fullmatch(value)
    if not match:
        raise DatasetError(path, f"{value!r} is not YYYY-MM-DD")
    try:
        day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        raise DatasetError(path, f"{value!r} does not exist") from None
    if day.year != YEAR or day.month != month:
        raise DatasetError(path, f"{value!r} is not in the payroll month")
    return day


def optional(raw: dict, key: str, reader, default=None):
    value = raw.get(key)
    return reader(value, key) if is_given(value) else default


# Keys a case may hold: any other is refused, at the first in the case's order.
CASE_KEYS = ("level", "month", "status", "headcount", "base_salary", "contract_hours", "hourly_rate",
             "overtime_25_hours", "overtime_50_hours", "bonus", "unpaid_absence_hours",
             "benefit_in_kind", "health_insurance", "meal_vouchers", "at_rate", "mobility_rate",
             "withholding_rate", "rgdu_coefficient", "entry_date", "exit_date", "overtime_exempt_ytd")


def read_case(raw) -> Case:
    """Reading 14's order; the first fault is raised."""
    if not isinstance(raw, dict):
        raise DatasetError("$", "a case must be a JSON object")
    harness.refuse_unknown(raw, CASE_KEYS)

    level = required(raw, "level")
    if not (isinstance(level, RawNumber) and INTEGER_SYNTAX.fullmatch(level.text)
            and int(level.text) in LEVELS):
        raise DatasetError("level", "level must be the JSON integer 1, 2, 3 or 4")
    level = int(level.text)

    month = read_month(required(raw, "month"))

    status = required(raw, "status")
    if not isinstance(status, str) or status not in STATUSES:
        raise DatasetError("status", "status must be 'cadre' or 'non_cadre'")

    headcount = read_integer(required(raw, "headcount"), "headcount")
    base_salary = read_money(required(raw, "base_salary"), "base_salary")

    contract_hours = read_hours(required(raw, "contract_hours"), "contract_hours")
    if contract_hours not in CONTRACT_HOURS:
        raise DatasetError("contract_hours", "not one of 151.67, 86.67, 104.00, 121.33, 130.00, 138.67")

    hourly_rate = read_money(required(raw, "hourly_rate"), "hourly_rate")

    overtime_25 = optional(raw, "overtime_25_hours", read_hours, ZERO)
    overtime_50 = optional(raw, "overtime_50_hours", read_hours, ZERO)
    if contract_hours != LEGAL_HOURS:  # Reading 8.
        if overtime_25 > 0:
            raise DatasetError("overtime_25_hours", "overtime on a part-time contract")
        if overtime_50 > 0:
            raise DatasetError("overtime_50_hours", "overtime on a part-time contract")

    bonus = optional(raw, "bonus", read_money, ZERO)

    absence = optional(raw, "unpaid_absence_hours", read_hours, ZERO)
    if absence > contract_hours:  # Reading 12.
        raise DatasetError("unpaid_absence_hours", "absence above the contract hours")

    benefit_in_kind = optional(raw, "benefit_in_kind", read_money, ZERO)

    health = raw.get("health_insurance")
    if is_given(health):
        if not isinstance(health, dict):
            raise DatasetError("health_insurance", "health_insurance must be an object")
        harness.refuse_unknown(health, ("premium", "employer_share"), "health_insurance")
        premium = read_money(required(health, "premium", "health_insurance.premium"),
                             "health_insurance.premium")
        share = read_share(required(health, "employer_share", "health_insurance.employer_share"),
                           "health_insurance.employer_share")
        health = Health(premium, share)

    meals = raw.get("meal_vouchers")
    if is_given(meals):
        if not isinstance(meals, dict):
            raise DatasetError("meal_vouchers", "meal_vouchers must be an object")
        harness.refuse_unknown(meals, ("count", "face_value", "employer_share"), "meal_vouchers")
        count = read_integer(required(meals, "count", "meal_vouchers.count"), "meal_vouchers.count")
        face = read_money(required(meals, "face_value", "meal_vouchers.face_value"),
                          "meal_vouchers.face_value")
        share = read_share(required(meals, "employer_share", "meal_vouchers.employer_share"),
                           "meal_vouchers.employer_share")
        meals = Meals(count, face, share)

    at_rate = read_rate(required(raw, "at_rate"), "at_rate")
    mobility_rate = read_rate(required(raw, "mobility_rate"), "mobility_rate")
    withholding_rate = read_rate(required(raw, "withholding_rate"), "withholding_rate")

    rgdu = optional(raw, "rgdu_coefficient", read_share)
    if rgdu is None and level <= 2:
        raise DatasetError("rgdu_coefficient", "required at levels 1-2")

    entry = optional(raw, "entry_date", lambda v, p: read_date(v, p, month))
    exit_ = optional(raw, "exit_date", lambda v, p: read_date(v, p, month))
    if entry is not None and exit_ is not None:
        raise DatasetError("exit_date", "entry and exit in the same case")

    ytd = optional(raw, "overtime_exempt_ytd", read_money)
    if ytd is None and level == 4 and (overtime_25 > 0 or overtime_50 > 0):
        raise DatasetError("overtime_exempt_ytd", "required at level 4 with overtime")

    return Case(level, month, status, headcount, base_salary, contract_hours, hourly_rate,
                overtime_25, overtime_50, bonus, absence, benefit_in_kind, health, meals,
                at_rate, mobility_rate, withholding_rate, rgdu, entry, exit_, ytd)


# ---------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------

def round_to(x: Fraction, places: int) -> Fraction:
    """Half-up to `places` decimals, exactly; a tie goes away from zero
    (what `Decimal.quantize(..., ROUND_HALF_UP)` does)."""
    scaled = abs(x) * 10 ** places
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest >= scaled.denominator:
        whole += 1
    return F(whole if x >= 0 else -whole, 10 ** places)


def cents(x: Fraction) -> Fraction:
    return round_to(x, 2)


def pct(rate: str | Fraction) -> Fraction:
    return F(rate) / 100


def money_text(amount: Fraction) -> str:
    """Two decimals; a zero never carries a sign."""
    value = Decimal(amount.numerator) / Decimal(amount.denominator)
    value = value.quantize(CENT, rounding=ROUND_HALF_UP)
    if value == 0:
        value = value.copy_abs()
    return format(value, "f")


def power_175(x: Fraction) -> Decimal:
    """x^1.75 = (x^7)^(1/4) for x > 0, at 60 digits."""
    xd = Decimal(x.numerator) / Decimal(x.denominator)
    return (xd ** 7).sqrt().sqrt()


def presence_days(case: Case) -> int:
    """Level 4 only: calendar days, entry day and last day both counted."""
    days = case.days_in_month
    if case.level != 4:
        return days
    if case.entry is not None:
        return days - case.entry.day + 1
    if case.exit is not None:
        return case.exit.day
    return days


@dataclass
class Payslip:
    """Every intermediate amount, for the answer, the features and the self-test."""
    days: int = 0
    presence: int = 0
    prorated: bool = False
    base: Fraction = ZERO
    overtime_25: Fraction = ZERO
    overtime_50: Fraction = ZERO
    overtime: Fraction = ZERO
    absence: Fraction = ZERO
    brut: Fraction = ZERO
    ceiling: Fraction = ZERO
    ceiling_exact: Fraction = ZERO
    t1: Fraction = ZERO
    t2: Fraction = ZERO
    capped4: Fraction = ZERO
    cet_base: Fraction = ZERO
    health_employer: Fraction = ZERO
    health_employee: Fraction = ZERO
    death_cover: Fraction = ZERO
    csg_base: Fraction = ZERO
    overtime_csg_base: Fraction = ZERO
    employee: dict = field(default_factory=dict)
    employer: dict = field(default_factory=dict)
    overtime_reduction: Fraction = ZERO
    smic_ref: Fraction | None = None
    smic_ref_exact: Fraction | None = None
    coefficient: Fraction = ZERO
    coefficient_raw: Decimal | None = None   # the formula before rounding (levels 3-4, formula branch)
    rgdu: Fraction = ZERO
    exempt_overtime: Fraction = ZERO
    total_employee: Fraction = ZERO
    net_before_tax: Fraction = ZERO
    net_imposable: Fraction = ZERO
    pas: Fraction = ZERO
    meal_employer: Fraction = ZERO
    meal_employee: Fraction = ZERO
    net_a_payer: Fraction = ZERO
    total_employer: Fraction = ZERO
    cout_employeur: Fraction = ZERO
    base_exact: Fraction = ZERO

    def answer(self) -> dict:
        return {
            "brut": money_text(self.brut),
            "total_cotisations_salariales": money_text(self.total_employee),
            "net_imposable": money_text(self.net_imposable),
            "prelevement_source": money_text(self.pas),
            "net_a_payer": money_text(self.net_a_payer),
            "cout_employeur": money_text(self.cout_employeur),
        }


def compute(case: Case, ablate: frozenset = frozenset()) -> Payslip:
    p = Payslip()
    p.days = case.days_in_month
    p.presence = presence_days(case)
    cadre = case.status == "cadre"
    hc = case.headcount

    # Pay items.
    p.prorated = case.level == 4 and (case.entry is not None or case.exit is not None)
    if p.prorated:
        p.base_exact = case.base_salary * p.presence / p.days
        if "daily_salary_rounded_before_proration" in ablate:
            p.base = cents(cents(case.base_salary / p.days) * p.presence)
        else:
            p.base = cents(p.base_exact)
    else:
        p.base = p.base_exact = case.base_salary
    if "hourly_rate_rounded_before_premium" in ablate:
        p.overtime_25 = cents(case.overtime_25 * cents(case.hourly_rate * F(125, 100)))
        p.overtime_50 = cents(case.overtime_50 * cents(case.hourly_rate * F(150, 100)))
    else:
        p.overtime_25 = cents(case.overtime_25 * case.hourly_rate * F(125, 100))
        p.overtime_50 = cents(case.overtime_50 * case.hourly_rate * F(150, 100))
    p.overtime = p.overtime_25 + p.overtime_50
    p.absence = cents(case.absence * case.hourly_rate) if case.level <= 3 else ZERO
    p.brut = p.base + p.overtime + case.bonus + case.benefit_in_kind - p.absence
    if p.brut < 0:  # Reading 12, the last check of reading 14.
        raise DatasetError("unpaid_absence_hours", "the absence deduction makes the gross negative")

    # Ceiling and bases.
    if case.level == 4 and "unprorated_ceiling" not in ablate:
        p.ceiling_exact = PMSS * case.contract_hours / LEGAL_HOURS * p.presence / p.days
    else:
        p.ceiling_exact = PMSS
    p.ceiling = cents(p.ceiling_exact)
    brut, ceiling = p.brut, p.ceiling
    p.t1 = min(brut, ceiling)
    p.t2 = min(max(brut - ceiling, ZERO), 7 * ceiling)
    p.capped4 = min(brut, 4 * ceiling)
    above_ceiling = brut > ceiling
    p.cet_base = min(brut, 8 * ceiling) if above_ceiling else ZERO
    if case.health is not None:
        p.health_employer = cents(case.health.premium * case.health.share)
        p.health_employee = case.health.premium - p.health_employer
    p.death_cover = cents(pct("1.50") * p.t1) if cadre else ZERO
    p.csg_base = cents(CSG_BASE_RATE * (brut - p.overtime)) + p.health_employer + p.death_cover
    p.overtime_csg_base = cents(CSG_BASE_RATE * p.overtime)

    def line(base: Fraction, rate) -> Fraction:
        return cents(base * (rate if isinstance(rate, Fraction) else pct(rate)))

    ee, er = p.employee, p.employer
    er["maladie"] = line(brut, "13.00")
    ee["vieillesse_plafonnee"] = line(p.t1, "6.90")
    er["vieillesse_plafonnee"] = line(p.t1, "8.55")
    ee["vieillesse_deplafonnee"] = line(brut, "0.40")
    er["vieillesse_deplafonnee"] = line(brut, "2.11")
    er["allocations_familiales"] = line(brut, "5.25")
    er["at_mp"] = line(brut, case.at_rate / 100)
    er["csa"] = line(brut, "0.30")
    er["fnal"] = line(p.t1, "0.10") if hc < 50 else line(brut, "0.50")
    if hc >= 11:
        er["versement_mobilite"] = line(brut, case.mobility_rate / 100)
    er["chomage"] = line(p.capped4, "4.00")
    er["ags"] = line(p.capped4, "0.25")
    ee["agirc_arrco_t1"] = line(p.t1, "3.15")
    er["agirc_arrco_t1"] = line(p.t1, "4.72")
    ee["agirc_arrco_t2"] = line(p.t2, "8.64")
    er["agirc_arrco_t2"] = line(p.t2, "12.95")
    ee["ceg_t1"] = line(p.t1, "0.86")
    er["ceg_t1"] = line(p.t1, "1.29")
    ee["ceg_t2"] = line(p.t2, "1.08")
    er["ceg_t2"] = line(p.t2, "1.62")
    if above_ceiling:
        ee["cet"] = line(p.cet_base, "0.14")
        er["cet"] = line(p.cet_base, "0.21")
    if cadre:
        ee["apec"] = line(p.capped4, "0.024")
        er["apec"] = line(p.capped4, "0.036")
        er["prevoyance_deces"] = p.death_cover
    er["formation_professionnelle"] = line(brut, "1.00" if hc >= 11 else "0.55")
    er["dialogue_social"] = line(brut, "0.016")
    if hc >= 11:
        er["forfait_social"] = line(p.health_employer + p.death_cover, "8.00")
    ee["csg_deductible"] = line(p.csg_base, "6.80")
    ee["csg_non_deductible"] = line(p.csg_base, "2.40")
    ee["crds"] = line(p.csg_base, "0.50")
    if case.has_overtime:
        ee["csg_crds_heures_sup"] = line(p.overtime_csg_base, "9.70")
    if case.health is not None:
        ee["mutuelle"] = p.health_employee
        er["mutuelle"] = p.health_employer

    # Reductions.
    p.overtime_reduction = cents(OVERTIME_REDUCTION * p.overtime)
    if case.level <= 3:
        hours = case.contract_hours
        p.smic_ref_exact = SMIC_RGDU * (hours - case.absence) / hours
    else:
        p.smic_ref_exact = SMIC_RGDU * case.contract_hours / LEGAL_HOURS * p.presence / p.days
    p.smic_ref = cents(p.smic_ref_exact)
    if case.level <= 2:
        p.coefficient = case.rgdu_coefficient
    else:
        p.coefficient, p.coefficient_raw = rgdu_coefficient(brut, p.smic_ref, hc)
    p.rgdu = cents(brut * p.coefficient)

    # Results.
    p.total_employee = sum(ee.values(), ZERO) - p.overtime_reduction
    p.net_before_tax = brut - p.total_employee
    if case.level == 4 and "ignore_overtime_cap" not in ablate:
        ytd = case.overtime_exempt_ytd if case.overtime_exempt_ytd is not None else ZERO
        p.exempt_overtime = min(p.overtime, max(ZERO, OVERTIME_CAP - ytd))
    else:
        p.exempt_overtime = p.overtime
    p.net_imposable = (p.net_before_tax + ee["csg_non_deductible"] + ee["crds"]
                       + ee.get("csg_crds_heures_sup", ZERO) + p.health_employer - p.exempt_overtime)
    p.pas = cents(p.net_imposable * case.withholding_rate / 100)
    if case.meals is not None:
        total = case.meals.count * case.meals.face_value
        if "meal_vouchers_rounded_per_voucher" in ablate:
            p.meal_employer = case.meals.count * cents(case.meals.face_value * case.meals.share)
        else:
            p.meal_employer = cents(total * case.meals.share)
        p.meal_employee = total - p.meal_employer
    p.net_a_payer = p.net_before_tax - p.pas - case.benefit_in_kind - p.meal_employee
    p.total_employer = sum(er.values(), ZERO)
    p.cout_employeur = brut + p.total_employer + p.meal_employer - p.rgdu
    return p


def rgdu_coefficient(brut: Fraction, smic_ref: Fraction, headcount: int) -> tuple[Fraction, Decimal | None]:
    """Levels 3-4 (reading 21): the rounded coefficient, and the formula before
    rounding when it is below the cap (for the generator's boundary discard)."""
    tdelta = Decimal("0.3781") if headcount < 50 else Decimal("0.3821")
    cap = Decimal("0.02") + tdelta
    if brut >= 3 * smic_ref:
        return ZERO, None
    if brut == 0:
        return F(cap), None
    x = F(1, 2) * (3 * smic_ref / brut - 1)
    formula = Decimal("0.02") + tdelta * power_175(x)
    rounded = min(formula, cap).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    return F(rounded), (formula if formula < cap else None)


def evaluate(raw) -> dict:
    """The expected answer for one parsed case, or `{"error": {path, message}}`."""
    return ablated(raw, None)


def ablated(raw, name: str | None) -> dict:
    """The answer under the named alternative reading (None: the spec's reading)."""
    if name is not None and name not in ABLATIONS:
        raise ValueError(f"unknown ablation {name!r}; known: {', '.join(ABLATIONS)}")
    try:
        return compute(read_case(raw), frozenset([name]) if name else frozenset()).answer()
    except DatasetError as error:
        return {"error": {"path": error.path, "message": error.message}}


# ---------------------------------------------------------------------------
# Case generator
# ---------------------------------------------------------------------------
#
# The seed's levels in the mix cycle 1, 4, 2, 3. A valid payslip is drafted
# from the level's profile, written with the spellings the spec accepts,
# re-drawn while it falls within the seed's discard margins, then ~30 % of
# cases get one to three faults. The outcome is always measured by
# `evaluate`, never assumed from the intent.

LEVEL_CYCLE = (1, 4, 2, 3)
HOURS_SPELLINGS = {
    "151.67": ["151.67"] * 12 + ["0151.67"],
    "86.67": ["86.67"],
    "104.00": ["104.00", "104.00", "104", "104.0"],
    "121.33": ["121.33"],
    "130.00": ["130.00", "130.00", "130", "130.0"],
    "138.67": ["138.67"],
}
PART_TIME_HOURS = ("86.67", "104.00", "121.33", "130.00", "138.67")
HEADCOUNTS = [0, 1, 3, 5, 8, 10, 10, 11, 11, 12, 15, 20, 35, 42, 49, 49, 50, 50, 51, 60, 120, 250, 999, 4800]
AT_RATES = ["0.70", "0.84", "0.90", "1.20", "1.20", "1.5", "2.08", "2.3", "3.10", "5.36", "1.045", "0.6500"]
MOBILITY_RATES = ["0", "0.00", "0.55", "1.00", "1.60", "1.75", "1.75", "2.01", "2.5", "2.95", "3.20", "1.325"]
WITHHOLDING_RATES = ["0", "0.00", "0.0", "1.5", "2.90", "4.50", "4.5", "6.00", "7.5", "9.9", "12.30",
                     "14.1", "16.4", "21", "23.75", "43"]
OT25_HOURS = ["0.5", "1", "1.5", "2", "2.25", "3", "3.5", "4", "4.75", "5", "6", "7.5", "8", "8.67",
              "10", "12", "12.33", "14", "17.33"]
OT50_HOURS = ["0.5", "1", "2", "2.5", "3", "4", "4.25", "6", "8", "1.75"]
PREMIUMS = ["40.00", "55.50", "62.30", "80.00", "96.20", "110.00", "120.00", "150.35", "35.7"]
HEALTH_SHARES = ["0.50", "0.5", "0.55", "0.60", "0.6", "0.65", "0.70", "0.75", "1", "0.575"]
FACE_VALUES = ["7.00", "8.00", "9.00", "9.50", "10.00", "11.00", "11.5", "12.00", "13.50"]
MEAL_SHARES = ["0.50", "0.5", "0.55", "0.60", "0.6"]
BENEFITS = ["45.00", "72.50", "98.40", "120.00", "150.00", "210.40", "300.00", "5"]
ABSENCE_HOURS = ["0.25", "1", "2", "3.5", "7", "7.5", "14", "21", "35", "3.75"]
# Keys the case format does not have: a case holding one is refused at the first.
EXTRA_KEYS = [
    {"label": "Bulletin de paie"}, {"employee": {"name": "Claire Martin", "job": "Comptable"}},
    {"company": "Fictive SAS", "siret": "00000000000000"}, {"notes": None},
    {"convention": "Syntec", "coefficient": RawNumber("275")}, {"difficulte": RawNumber("2")},
]


@dataclass
class Draft:
    """A valid case before it is written (amounts as Fractions, rates as text)."""
    level: int
    month: int = 3
    status: str = "non_cadre"
    headcount: int = 20
    base: Fraction = F(2000)
    hours: str = "151.67"
    rate: Fraction | None = None
    ot25: Fraction | None = None
    ot50: Fraction | None = None
    bonus: Fraction | None = None
    absence: Fraction | None = None
    bik: Fraction | None = None
    health: tuple | None = None       # (premium, share text)
    meals: tuple | None = None        # (count, face value, share text)
    at_rate: str = "1.20"
    mobility: str = "1.75"
    withholding: str = "4.50"
    rgdu: str | None = None           # "formula": a realistic given coefficient (levels 1-2)
    entry: int | None = None
    exit: int | None = None
    ytd: Fraction | None = None
    allow_tie: bool = False
    tag: str = ""


def cents_between(rng: random.Random, low, high) -> Fraction:
    low_c, high_c = int(F(low) * 100), int(F(high) * 100)
    return F(rng.randint(low_c, max(low_c, high_c)), 100)


def write_money(rng: random.Random, amount: Fraction) -> str:
    """A valid spelling: "1205.10" mostly, sometimes "1205.1" or "01205.10"."""
    two = money_text(amount)
    roll = rng.random()
    if roll < 0.82:
        return two
    if roll < 0.96:
        return two.rstrip("0").rstrip(".") if "." in two else two
    return "0" + two


def write_hours(rng: random.Random, hours: Fraction) -> str:
    two = money_text(hours)
    short = two.rstrip("0").rstrip(".")
    return short if rng.random() < 0.8 else two


def days_in(month: int) -> int:
    return calendar.monthrange(YEAR, month)[1]


def write(rng: random.Random, d: Draft, i: int) -> dict:
    """The case as JSON values, in the spec's key order (sometimes shuffled)."""
    case: dict = {}
    if rng.random() < 0.3:
        case["id"] = f"paie-{d.level}-{i}"
    case["level"] = RawNumber(str(d.level))
    case["month"] = f"{YEAR}-{d.month:02d}"
    case["status"] = d.status
    case["headcount"] = RawNumber(str(d.headcount))
    case["base_salary"] = write_money(rng, d.base)
    case["contract_hours"] = rng.choice(HOURS_SPELLINGS.get(d.hours, [d.hours]))
    rate = d.rate if d.rate is not None else cents(d.base / F(d.hours))
    case["hourly_rate"] = write_money(rng, rate)

    def opt(key, value, writer):
        if value is not None:
            case[key] = writer(value)
        elif rng.random() < 0.1:
            case[key] = None

    opt("overtime_25_hours", d.ot25, lambda v: write_hours(rng, v))
    opt("overtime_50_hours", d.ot50, lambda v: write_hours(rng, v))
    opt("bonus", d.bonus, lambda v: write_money(rng, v))
    opt("unpaid_absence_hours", d.absence, lambda v: write_hours(rng, v))
    opt("benefit_in_kind", d.bik, lambda v: write_money(rng, v))
    opt("health_insurance", d.health, lambda v: {"premium": write_money(rng, v[0]), "employer_share": v[1]})
    opt("meal_vouchers", d.meals, lambda v: {"count": RawNumber(str(v[0])), "face_value": write_money(rng, v[1]),
                                             "employer_share": v[2]})
    case["at_rate"] = d.at_rate
    case["mobility_rate"] = d.mobility
    case["withholding_rate"] = d.withholding
    rgdu = d.rgdu
    if rgdu == "formula":
        rgdu = given_coefficient(rng, case, d)
    opt("rgdu_coefficient", rgdu, str)
    opt("entry_date", d.entry, lambda day: f"{YEAR}-{d.month:02d}-{day:02d}")
    opt("exit_date", d.exit, lambda day: f"{YEAR}-{d.month:02d}-{day:02d}")
    opt("overtime_exempt_ytd", d.ytd, lambda v: write_money(rng, v))
    if rng.random() < 0.15:
        case.update(rng.choice(EXTRA_KEYS))
    if rng.random() < 0.25:
        case = shuffled(rng, case)
    for key in ("health_insurance", "meal_vouchers"):
        if isinstance(case.get(key), dict) and rng.random() < 0.2:
            case[key] = shuffled(rng, case[key])
            if rng.random() < 0.3:
                case[key]["note"] = "ignored"
    return case


def given_coefficient(rng: random.Random, case: dict, d: Draft) -> str:
    """Levels 1-2: usually the formula's value on this gross (as the seed's
    prompt would give it), sometimes anything valid, used as given."""
    roll = rng.random()
    if roll < 0.65:
        probe = dict(case, rgdu_coefficient="0", level=RawNumber("3"))
        probe.pop("unpaid_absence_hours", None)
        try:
            p = compute(read_case(probe))
        except DatasetError:
            return "0.1234"
        return format(Decimal(p.coefficient.numerator) / Decimal(p.coefficient.denominator), ".4f")
    if roll < 0.88:
        return f"0.{rng.randint(0, 3981):04d}"
    return rng.choice(["0", "0.0", "0.3981", "0.4021", "1", "1.0000", "0.05", "0.12345678", "0.2",
                       "0.000001", "00.25"])


def draw_rates(rng: random.Random, d: Draft) -> None:
    d.headcount = rng.choice(HEADCOUNTS)
    d.at_rate = rng.choice(AT_RATES)
    d.mobility = rng.choice(MOBILITY_RATES)
    d.withholding = rng.choice(WITHHOLDING_RATES) if rng.random() < 0.85 else \
        f"{rng.randint(0, 2500) / 100:.2f}"


def draw_overtime(rng: random.Random, d: Draft, both: bool = False) -> None:
    d.ot25 = F(rng.choice(OT25_HOURS)) if both or rng.random() < 0.85 else None
    d.ot50 = F(rng.choice(OT50_HOURS)) if both or rng.random() < 0.6 or d.ot25 is None else None
    if rng.random() < 0.1:  # The seed's worked example: 3.5 h x 15.47 x 1.25 = 67.68125.
        d.ot25, d.rate = F("3.5"), F("15.47")
        d.base = min(d.base, F("2400.00"))


def draw_health(rng: random.Random, d: Draft) -> None:
    d.health = (F(rng.choice(PREMIUMS)), rng.choice(HEALTH_SHARES))


def draw_meals(rng: random.Random, d: Draft) -> None:
    d.meals = (rng.randint(8, 23), F(rng.choice(FACE_VALUES)), rng.choice(MEAL_SHARES))


def draw_level1(rng: random.Random, d: Draft) -> None:
    """Non-cadre below the ceiling, base + optional bonus, C given."""
    d.status = "non_cadre"
    d.base = cents_between(rng, "1823.03", "3800")
    if rng.random() < 0.5 and PMSS - d.base >= 10:
        d.bonus = cents_between(rng, 10, min(F(900), PMSS - d.base))
    d.rgdu = "formula"
    d.month = rng.randint(1, 12)


def draw_level2(rng: random.Random, d: Draft) -> None:
    """Cadre or non-cadre up to ~4,700; overtime, health, meal vouchers; C given."""
    d.status = rng.choice(STATUSES)
    d.base = cents_between(rng, "1823.03", "4300")
    d.month = rng.randint(1, 12)
    if rng.random() < 0.55:
        draw_overtime(rng, d)
    if rng.random() < 0.35:
        d.bonus = cents_between(rng, 30, 600)
    if rng.random() < 0.5:
        draw_health(rng, d)
    if rng.random() < 0.5:
        draw_meals(rng, d)
    d.rgdu = "formula"


def draw_level3(rng: random.Random, d: Draft) -> None:
    """Up to ~7,500 (T2, CET); absence, benefit in kind; C computed."""
    d.status = rng.choice(STATUSES)
    d.month = rng.randint(1, 12)
    low, high = rng.choice([("1823.03", "2600"), ("2600", "4005"), ("4005", "5600"), ("5300", "5600"),
                            ("5600", "7500")])
    d.base = cents_between(rng, low, high)
    if rng.random() < 0.3:
        d.absence = F(rng.choice(ABSENCE_HOURS))
    if rng.random() < 0.3:
        d.bik = F(rng.choice(BENEFITS))
    if rng.random() < 0.4:
        draw_overtime(rng, d)
    if rng.random() < 0.35:
        d.bonus = cents_between(rng, 30, 900)
    if rng.random() < 0.5:
        draw_health(rng, d)
    if rng.random() < 0.5:
        draw_meals(rng, d)
    if rng.random() < 0.15:  # Reading 1: fields of other levels, validated then ignored.
        d.rgdu = f"0.{rng.randint(0, 9999):04d}"
        if rng.random() < 0.5:
            d.ytd = cents_between(rng, 0, 9000)
        if rng.random() < 0.4:
            day = rng.randint(2, days_in(d.month) - 1)
            if rng.random() < 0.5:
                d.entry = day
            else:
                d.exit = day


def draw_ytd(rng: random.Random, d: Draft) -> str:
    """The seed's cap states for level-4 overtime: reached this month ~55 %,
    already reached ~20 %, not reached ~25 %."""
    rate = d.rate if d.rate is not None else cents(d.base / F(d.hours))
    pay = cents((d.ot25 or ZERO) * rate * F(125, 100)) + cents((d.ot50 or ZERO) * rate * F(150, 100))
    roll = rng.random()
    if roll < 0.55 and pay >= F(2, 100):
        d.ytd = OVERTIME_CAP - pay + cents_between(rng, F(1, 100), pay - F(1, 100))
        return "cap_reached_this_month"
    if roll < 0.75:
        d.ytd = OVERTIME_CAP if rng.random() < 0.3 else OVERTIME_CAP + cents_between(rng, F(1, 100), 2500)
        return "cap_already_reached"
    d.ytd = OVERTIME_CAP - pay if rng.random() < 0.15 else cents_between(rng, 0, OVERTIME_CAP - pay)
    return "cap_not_reached"


def draw_level4(rng: random.Random, d: Draft) -> None:
    """Level 3 + incomplete month and/or part time; no absence."""
    d.status = rng.choice(STATUSES)
    profile = rng.choices(["entry_exit", "part_time", "part_time_entry_exit", "overtime_whole_month"],
                          weights=[40, 30, 10, 20])[0]
    full_time_base = cents_between(rng, *rng.choice([("1823.03", "3000"), ("3000", "4500"),
                                                     ("4500", "7500")]))
    overtime = profile == "overtime_whole_month" or (profile == "entry_exit" and rng.random() < 0.5)
    if profile.startswith("part_time"):
        d.hours = rng.choice(PART_TIME_HOURS)
        d.base = cents(full_time_base * F(d.hours) / LEGAL_HOURS)
    else:
        d.base = full_time_base
    d.month = rng.randint(8, 12) if overtime else rng.randint(1, 12)
    days = days_in(d.month)
    detail = ""
    if profile in ("entry_exit", "part_time_entry_exit"):
        if overtime or rng.random() < 0.5:
            d.exit = rng.randint(2, days - 1)
            detail = "exit"
        else:
            d.entry = rng.randint(2, days)
            detail = "entry"
    if overtime:
        draw_overtime(rng, d, both=True)
        detail += ("+" if detail else "") + draw_ytd(rng, d)
    if rng.random() < 0.3:
        d.bik = F(rng.choice(BENEFITS))
    if rng.random() < 0.35:
        d.bonus = cents_between(rng, 30, 900)
    if rng.random() < 0.5:
        draw_health(rng, d)
    if rng.random() < 0.5:
        draw_meals(rng, d)
    d.tag = f"L4:{profile}" + (f"+{detail}" if detail else "")


def plant_half_cent_base(rng: random.Random, d: Draft) -> bool:
    """An exact half-cent prorated base (which the seed would discard):
    base cents x presence x 2 / days must be an odd integer, impossible in a
    31-day month. With overtime, an exit in September or November."""
    overtime = d.ot25 is not None or d.ot50 is not None
    for _ in range(40):
        month = rng.choice([9, 11] if overtime else [2, 4, 6, 9, 11])
        days = days_in(month)
        presence = rng.randint(2, days - 1)
        start = int(d.base * 100)
        for base_cents in range(start, start + 400):
            twice = 2 * base_cents * presence
            if twice % days == 0 and (twice // days) % 2 == 1:
                d.month, d.base = month, F(base_cents, 100)
                d.entry = d.exit = None
                if not overtime and rng.random() < 0.5:
                    d.entry = days - presence + 1
                else:
                    d.exit = presence
                if overtime:
                    draw_ytd(rng, d)
                d.allow_tie = True
                return True
    return False


# --- Edge cases of the readings -----------------------------------------------

EDGES = {
    1: ["level1_out_of_profile", "part_time_l1_3", "rgdu_extremes", "zero_gross", "shares_rates_extremes",
        "example_at_level", "above_ceiling_exactly"],
    2: ["part_time_l1_3", "rgdu_extremes", "negative_net_imposable", "shares_rates_extremes",
        "example_at_level", "part_time_zero_overtime", "absence_equals_hours"],
    3: ["part_time_l1_3", "absence_equals_hours", "zero_gross", "brut_on_3smic", "brut_below_smic",
        "above_8_ceilings", "negative_net_imposable", "example", "example", "shares_rates_extremes"],
    4: ["entry_first_day", "exit_last_day", "overtime_on_entry_month", "overtime_outside_aug_dec",
        "ytd_without_overtime", "absence_ignored_l4", "tiny_ceiling_big_bonus", "zero_base_l4",
        "part_time_zero_overtime", "overtime_zero_rate", "example_at_level"],
}

SPEC_EXAMPLE = {
    "level": RawNumber("3"), "month": "2026-03", "status": "cadre", "headcount": RawNumber("35"),
    "base_salary": "3200.00", "contract_hours": "151.67", "hourly_rate": "21.10",
    "overtime_25_hours": "3.5", "overtime_50_hours": "2", "bonus": "150.00", "unpaid_absence_hours": "7",
    "benefit_in_kind": "120.00", "health_insurance": {"premium": "80.00", "employer_share": "0.50"},
    "meal_vouchers": {"count": RawNumber("20"), "face_value": "9.00", "employer_share": "0.60"},
    "at_rate": "1.20", "mobility_rate": "1.75", "withholding_rate": "4.50", "rgdu_coefficient": "0.1234",
    "entry_date": "2026-03-12", "exit_date": None, "overtime_exempt_ytd": "6800.00",
}


def draw_edge(rng: random.Random, level: int, i: int) -> tuple[dict, str]:
    name = rng.choice(EDGES[level])
    if name in ("example", "example_at_level"):
        case = json.loads(dump_json(SPEC_EXAMPLE), parse_float=RawNumber, parse_int=RawNumber)
        case["level"] = RawNumber(str(level))
        if level == 4 and rng.random() < 0.5:  # Level 4 with overtime on an entry month (reading 11).
            case["overtime_exempt_ytd"] = rng.choice(["6800.00", "7500", "7400.00", "0.00"])
        return case, f"edge:{name}"
    d = Draft(level)
    draw_rates(rng, d)
    {1: draw_level1, 2: draw_level2, 3: draw_level3, 4: draw_level4}[level](rng, d)
    if name == "level1_out_of_profile":  # Reading 15.
        kind = rng.choice(["cadre", "above_ceiling", "overtime"])
        if kind == "cadre":
            d.status = "cadre"
        elif kind == "above_ceiling":
            d.base = cents_between(rng, "4005.01", "7000")
        else:
            draw_overtime(rng, d)
        name += f"+{kind}"
    elif name == "part_time_l1_3":  # Reading 9.
        d.hours = rng.choice(PART_TIME_HOURS)
        d.base = cents(d.base * F(d.hours) / LEGAL_HOURS)
        d.ot25 = d.ot50 = None
        if level == 3 and rng.random() < 0.6:
            d.absence = F(rng.choice(ABSENCE_HOURS))
    elif name == "rgdu_extremes":
        d.rgdu = rng.choice(["0", "1", "0.3981", "0.4021", "0.123456789012", "1.000", "0.00005", "0.99999"])
    elif name == "zero_gross":  # Reading 21: C irrelevant, RGDU 0.
        d.base, d.bonus, d.bik, d.ot25, d.ot50, d.absence = ZERO, None, None, None, None, None
        if rng.random() < 0.5:
            draw_health(rng, d)
    elif name == "shares_rates_extremes":
        d.health = (F(rng.choice(PREMIUMS)), rng.choice(["0", "1", "1.000", "0.0", "0.333333"]))
        d.meals = (rng.choice([0, 0, 1, 22]), F(rng.choice(FACE_VALUES + ["0"])),
                   rng.choice(["0", "1", "0.5", "0.575", "0.123"]))
        d.at_rate = rng.choice(["0", "0.0", "12.5", "0.123456789"])
        d.mobility = rng.choice(["0", "3.2", "0.0001"])
        d.withholding = rng.choice(["0", "0.0", "43.000", "100"])
        d.headcount = rng.choice([0, 10, 11, 49, 50])
    elif name == "above_ceiling_exactly":
        d.base, d.bonus = rng.choice([(PMSS, None), (PMSS + F(1, 100), None), (F("3905.00"), F("100.00"))])
        d.status = rng.choice(STATUSES)
    elif name == "negative_net_imposable":  # Reading 23: overtime-heavy, almost no base.
        d.base = cents_between(rng, 0, 40)
        d.rate = cents_between(rng, 20, 60)
        d.ot25, d.ot50 = F(rng.choice(OT25_HOURS)), F(rng.choice(OT50_HOURS))
        d.bonus = d.bik = d.absence = None
        if rng.random() < 0.5:
            d.health = (F("150.00"), "1")
    elif name == "absence_equals_hours":  # SMIC_ref 0 -> C 0; the bonus keeps the gross >= 0.
        d.absence = F(d.hours)
        d.rate = cents(d.base / F(d.hours))
        d.bonus = cents_between(rng, 50, 900)
    elif name == "brut_on_3smic":  # Reading 21: 5,469.09 gives 0.
        d.base = rng.choice([F("5469.09"), F("5469.08"), F("5469.10")])
        d.bonus = d.bik = d.absence = d.ot25 = d.ot50 = None
    elif name == "brut_below_smic":  # The cap Tmin + Tdelta.
        d.base = cents_between(rng, 500, "1823.02")
        d.bonus = d.bik = None
    elif name == "above_8_ceilings":  # T2 capped at 7 ceilings, CET base at 8.
        d.base = cents_between(rng, 32000, 45000)
        d.status = "cadre"
    elif name in ("entry_first_day", "exit_last_day"):  # Reading 10.
        d.entry = d.exit = None
        if name == "entry_first_day":
            d.entry = 1
            if rng.random() < 0.4 and d.hours == "151.67":
                draw_overtime(rng, d, both=True)
                draw_ytd(rng, d)
        else:
            d.exit = days_in(d.month)
    elif name == "overtime_on_entry_month":  # Reading 11.
        d.hours, d.exit = "151.67", None
        d.entry = rng.randint(2, days_in(d.month))
        draw_overtime(rng, d, both=rng.random() < 0.7)
        draw_ytd(rng, d)
    elif name == "overtime_outside_aug_dec":  # Reading 11.
        d.hours = "151.67"
        d.month = rng.randint(1, 7)
        d.entry = None
        if d.exit is not None:
            d.exit = rng.randint(2, days_in(d.month) - 1)
        draw_overtime(rng, d, both=rng.random() < 0.7)
        draw_ytd(rng, d)
    elif name == "ytd_without_overtime":  # Reading 22: unused.
        d.ot25 = d.ot50 = None
        d.ytd = cents_between(rng, 0, 9000)
    elif name == "absence_ignored_l4":  # Reading 1.
        d.absence = F(rng.choice(ABSENCE_HOURS))
    elif name == "tiny_ceiling_big_bonus":  # Part time, 1-3 days: brut above 8 prorated ceilings.
        d.hours = rng.choice(PART_TIME_HOURS)
        d.base = cents_between(rng, 900, 2500)
        d.ot25 = d.ot50 = d.ytd = d.entry = None
        d.exit = rng.randint(1, 3)
        d.bonus = cents_between(rng, 1500, 6000)
        d.status = rng.choice(STATUSES)
    elif name == "zero_base_l4":
        d.base = ZERO
        if rng.random() < 0.5:
            d.bonus = cents_between(rng, 100, 900)
    elif name == "part_time_zero_overtime":  # Reading 8: "0" is no overtime.
        d.hours = rng.choice(PART_TIME_HOURS)
        d.base = cents(d.base * F(d.hours) / LEGAL_HOURS)
        d.ot25, d.ot50 = ZERO, rng.choice([ZERO, None])
        d.ytd = None
    elif name == "overtime_zero_rate":  # Overtime hours > 0 at a zero rate: ytd still required.
        d.hours, d.rate = "151.67", ZERO
        d.entry = None
        draw_overtime(rng, d, both=True)
        d.rate = ZERO
        d.ytd = cents_between(rng, 0, 9000)
    return write(rng, d, i), f"edge:{name}"


# --- Acceptance (the seed's discards) ---------------------------------------------

def near_half_cent(x: Fraction | None) -> bool:
    """Within 1e-9 of a half cent (1e-7 of a half, in cents)."""
    if x is None:
        return False
    frac = (x * 100) % 1
    return abs(frac - F(1, 2)) < F(1, 10 ** 7)


def near_coefficient_boundary(raw: Decimal | None) -> bool:
    """Within 1e-6 of a 4-decimal rounding boundary."""
    if raw is None:
        return False
    frac = (raw * 10000) % 1
    return abs(frac - Decimal("0.5")) < Decimal("0.01")


def acceptable(case: dict, allow_tie: bool) -> bool:
    try:
        c = read_case(parse_case(dump_json(case)))
        p = compute(c)
    except DatasetError:
        return False
    if c.level == 4 and not allow_tie:
        if any(near_half_cent(x) for x in (p.ceiling_exact, p.smic_ref_exact, p.base_exact)):
            return False
    if c.level >= 3 and near_coefficient_boundary(p.coefficient_raw):
        return False
    return True


def draw_valid(rng: random.Random, level: int, i: int) -> tuple[dict, str]:
    for attempt in range(30):
        if rng.random() < 0.11:
            case, tag = draw_edge(rng, level, i)
            allow_tie = False
        else:
            d = Draft(level)
            draw_rates(rng, d)
            {1: draw_level1, 2: draw_level2, 3: draw_level3, 4: draw_level4}[level](rng, d)
            if level == 4 and rng.random() < 0.06 and plant_half_cent_base(rng, d):
                d.tag = "L4:half_cent_base"
            tag = d.tag or f"L{level}"
            allow_tie = d.allow_tie
            case = write(rng, d, i)
        if acceptable(case, allow_tie):
            return case, tag
    return case, tag + "+not-discarded"


# --- Faults ----------------------------------------------------------------------

BAD_MONEY = ["-5.00", "-0.00", "-0", "2000.001", "1e3", "1E3", ".5", "5.", "1 000", "1,000.00", "12,50",
             " 12.00", "12.00 ", "+12.00", "", "NaN", "€12", "12 €", "0x10", "\u0661\u0662", "12.3.4",
             RawNumber("2500"), RawNumber("2500.00"), RawNumber("0"), True, False, [], {}, ["12.00"]]
BAD_HOURS = ["-1", "-0", "3.555", "1e1", ".5", "3.", "3,5", " 3", "", "trois", "3.5h", "+2",
             RawNumber("3.5"), RawNumber("2"), RawNumber("0"), True, [], {}]
BAD_RATES = ["-1", "-0", "-0.0", "1e-2", ".5", "5.", "5%", "1,2", " 1.2", "1.2 ", "", "NaN", "+1.2",
             "1/2", RawNumber("1.2"), RawNumber("0"), True, [], {}]
BAD_SHARES = BAD_RATES + ["1.01", "1.0000001", "2", "50", "100", "1.5"]
BAD_INTEGERS = [RawNumber("-1"), RawNumber("35.0"), RawNumber("1e1"), RawNumber("-0"), RawNumber("3.5"),
                RawNumber("1E2"), RawNumber("0.0"), "35", "0", True, False, [], {}]
BAD_LEVELS = [RawNumber("0"), RawNumber("5"), RawNumber("-1"), RawNumber("3.0"), RawNumber("1e0"),
              RawNumber("-0"), RawNumber("10"), RawNumber("2.5"), "3", "level 3", True, [RawNumber("3")]]
BAD_MONTHS = ["2025-12", "2027-01", "2026-13", "2026-00", "2026-3", "26-03", "2026/03", "2026-03-01",
              " 2026-03", "2026-03 ", "", "mars 2026", "2026-1", "1999-03", RawNumber("202603"), True, []]
BAD_STATUSES = ["Cadre", "CADRE", "non-cadre", "noncadre", "non cadre", "", "cadre ", "Non_cadre",
                "employee", RawNumber("1"), True, [], ["cadre"]]
BAD_CONTRACT_HOURS = ["100.00", "151.670", "151.6", "151", "152", "35", "0", "86.666", "86.68", "169.00",
                      "75.83", "151,67", "", "-151.67", "1e2", "151.67h", RawNumber("151.67"),
                      RawNumber("104"), True, []]
NOT_OBJECTS = [[], "80.00", RawNumber("80"), True, "{}", [{"premium": "80.00"}]]
NON_OBJECT_CASES = [[], "x", RawNumber("42"), None, True, [dict(SPEC_EXAMPLE)], "{}"]


def level_of_case(case: dict) -> int | None:
    level = case.get("level")
    if isinstance(level, RawNumber) and level.text in ("1", "2", "3", "4"):
        return int(level.text)
    return None


def amount_of(case: dict, key: str, default: Fraction = ZERO) -> Fraction:
    value = case.get(key)
    if isinstance(value, str) and RATE_SYNTAX.fullmatch(value):
        return F(value)
    return default


def month_of(case: dict) -> int:
    value = case.get("month")
    if isinstance(value, str):
        match = MONTH_SYNTAX.fullmatch(value)
        if match and 1 <= int(match.group(2)) <= 12:
            return int(match.group(2))
    return 3


def fault_level(rng, case):
    put(case, "level", rng.choice([ABSENT, None] + BAD_LEVELS * 2))


def fault_month(rng, case):
    put(case, "month", rng.choice([ABSENT, None] + BAD_MONTHS * 2))


def fault_status(rng, case):
    put(case, "status", rng.choice([ABSENT, None] + BAD_STATUSES * 2))


def fault_headcount(rng, case):
    put(case, "headcount", rng.choice([ABSENT, None] + BAD_INTEGERS * 2))


def fault_base_salary(rng, case):
    put(case, "base_salary", rng.choice([ABSENT, None] + BAD_MONEY * 2))


def fault_contract_hours(rng, case):
    put(case, "contract_hours", rng.choice([ABSENT, None] + BAD_CONTRACT_HOURS * 2))


def fault_hourly_rate(rng, case):
    put(case, "hourly_rate", rng.choice([ABSENT, None] + BAD_MONEY * 2))


def fault_overtime_25(rng, case):
    case["overtime_25_hours"] = rng.choice(BAD_HOURS)


def fault_overtime_50(rng, case):
    case["overtime_50_hours"] = rng.choice(BAD_HOURS)


def fault_part_time_overtime(rng, case):
    """Reading 8: part time with an overtime value > 0, path of the first non-zero one."""
    case["contract_hours"] = rng.choice(PART_TIME_HOURS + ("104", "130"))
    kind = rng.choice(["25", "50", "both"])
    if kind in ("25", "both"):
        case["overtime_25_hours"] = rng.choice(OT25_HOURS + ["0.01"])
    else:
        put(case, "overtime_25_hours", rng.choice([ABSENT, None, "0", "0.00"]))
    if kind in ("50", "both"):
        case["overtime_50_hours"] = rng.choice(OT50_HOURS + ["0.01"])
    elif rng.random() < 0.5:
        case["overtime_50_hours"] = rng.choice(["0", "0.0"])


def fault_bonus(rng, case):
    case["bonus"] = rng.choice(BAD_MONEY)


def fault_absence(rng, case):
    case["unpaid_absence_hours"] = rng.choice(BAD_HOURS)


def fault_absence_above_hours(rng, case):
    """Reading 12: above the contract hours (at every level)."""
    hours = case.get("contract_hours")
    hours = F(hours) if isinstance(hours, str) and HOURS_SYNTAX.fullmatch(hours) else LEGAL_HOURS
    case["unpaid_absence_hours"] = money_text(hours + F(rng.choice(["0.01", "0.01", "1", "10", "200"])))


def fault_negative_gross(rng, case):
    """Reading 12: an absence deduction larger than the pay (ignored at level 4)."""
    if level_of_case(case) == 4 and rng.random() < 0.8:
        case["level"] = RawNumber("3")
    for key in ("overtime_25_hours", "overtime_50_hours"):
        if rng.random() < 0.7:
            case.pop(key, None)
    hours_text = case.get("contract_hours")
    hours = F(hours_text) if isinstance(hours_text, str) and HOURS_SYNTAX.fullmatch(hours_text) \
        and F(hours_text) in CONTRACT_HOURS else LEGAL_HOURS
    pay = amount_of(case, "base_salary") + amount_of(case, "bonus") + amount_of(case, "benefit_in_kind")
    absence = rng.choice([hours, hours, cents(hours * F(rng.randint(50, 99), 100))])
    rate = cents(pay / absence) + F(rng.choice([1, 1, 2, 50, 1000]), 100)
    if rng.random() < 0.15:  # Exactly zero: accepted.
        base = cents(absence * cents(pay / absence))
        case["base_salary"] = money_text(base)
        case.pop("bonus", None)
        case.pop("benefit_in_kind", None)
        rate = cents(pay / absence)
    case["hourly_rate"] = money_text(rate)
    case["unpaid_absence_hours"] = money_text(absence)


def fault_benefit_in_kind(rng, case):
    case["benefit_in_kind"] = rng.choice(BAD_MONEY)


def fault_health(rng, case):
    kind = rng.choice(["not_object", "premium", "premium", "share", "share", "share"])
    if kind == "not_object":
        case["health_insurance"] = rng.choice(NOT_OBJECTS)
        return
    health = case.get("health_insurance")
    health = dict(health) if isinstance(health, dict) else {"premium": "80.00", "employer_share": "0.50"}
    if kind == "premium":
        put(health, "premium", rng.choice([ABSENT, None] + BAD_MONEY))
    else:
        put(health, "employer_share", rng.choice([ABSENT, None] + BAD_SHARES))
    case["health_insurance"] = health


def fault_meals(rng, case):
    kind = rng.choice(["not_object", "count", "count", "face_value", "face_value", "share", "share"])
    if kind == "not_object":
        case["meal_vouchers"] = rng.choice(NOT_OBJECTS)
        return
    meals = case.get("meal_vouchers")
    meals = dict(meals) if isinstance(meals, dict) else {"count": RawNumber("20"), "face_value": "9.00",
                                                         "employer_share": "0.60"}
    if kind == "count":
        put(meals, "count", rng.choice([ABSENT, None] + BAD_INTEGERS))
    elif kind == "face_value":
        put(meals, "face_value", rng.choice([ABSENT, None] + BAD_MONEY))
    else:
        put(meals, "employer_share", rng.choice([ABSENT, None] + BAD_SHARES))
    case["meal_vouchers"] = meals


def fault_at_rate(rng, case):
    put(case, "at_rate", rng.choice([ABSENT, None] + BAD_RATES))


def fault_mobility_rate(rng, case):
    """Required even below 11 employees (reading 2)."""
    put(case, "mobility_rate", rng.choice([ABSENT, None] + BAD_RATES))


def fault_withholding_rate(rng, case):
    put(case, "withholding_rate", rng.choice([ABSENT, None] + BAD_RATES))


def fault_rgdu(rng, case):
    if rng.random() < 0.4:  # Missing at levels 1-2.
        if level_of_case(case) not in (1, 2):
            case["level"] = RawNumber(rng.choice(["1", "2"]))
        put(case, "rgdu_coefficient", rng.choice([ABSENT, None]))
    else:  # Invalid wherever present (reading 1).
        case["rgdu_coefficient"] = rng.choice(BAD_SHARES)


BAD_DATE_FORMS = ["2026-3-12", "12/03/2026", "2026-03-12T00:00", "", "2026-03-00", "2026-03-32",
                  " 2026-03-12", "20260312", RawNumber("20260312"), True, [], "2026-13-01"]


def bad_date(rng, case) -> object:
    month = month_of(case)
    kind = rng.choice(["form", "nonexistent", "other_month", "other_year"])
    if kind == "form":
        return rng.choice(BAD_DATE_FORMS)
    if kind == "nonexistent":
        return rng.choice(["2026-02-29", "2026-02-30", "2026-04-31", "2026-06-31", "2026-09-31",
                           "2026-11-31", f"2026-{month:02d}-32"])
    if kind == "other_month":
        other = rng.choice([m for m in range(1, 13) if m != month])
        return f"2026-{other:02d}-{rng.randint(1, days_in(other)):02d}"
    return f"{rng.choice([2025, 2027])}-{month:02d}-{rng.randint(1, 28):02d}"


def fault_entry_date(rng, case):
    case["entry_date"] = bad_date(rng, case)


def fault_exit_date(rng, case):
    case["exit_date"] = bad_date(rng, case)


def fault_entry_and_exit(rng, case):
    """Reading 10: both dates valid, together rejected at exit_date."""
    month = month_of(case)
    days = days_in(month)
    entry = rng.randint(1, days)
    case["entry_date"] = f"2026-{month:02d}-{entry:02d}"
    case["exit_date"] = f"2026-{month:02d}-{rng.randint(entry, days):02d}"


def fault_ytd(rng, case):
    case["overtime_exempt_ytd"] = rng.choice(BAD_MONEY)


def fault_ytd_missing(rng, case):
    """Reading 2: level 4 with overtime and no ytd."""
    case["level"] = RawNumber("4")
    case["contract_hours"] = "151.67"
    if not any(isinstance(case.get(k), str) and HOURS_SYNTAX.fullmatch(case[k]) and F(case[k]) > 0
               for k in ("overtime_25_hours", "overtime_50_hours")):
        case[rng.choice(["overtime_25_hours", "overtime_50_hours"])] = rng.choice(OT50_HOURS)
    put(case, "overtime_exempt_ytd", rng.choice([ABSENT, None]))


FAULTS = [
    (fault_level, 5), (fault_month, 5), (fault_status, 4), (fault_headcount, 5), (fault_base_salary, 5),
    (fault_contract_hours, 5), (fault_hourly_rate, 4), (fault_overtime_25, 3), (fault_overtime_50, 3),
    (fault_part_time_overtime, 6), (fault_bonus, 3), (fault_absence, 3), (fault_absence_above_hours, 4),
    (fault_negative_gross, 6), (fault_benefit_in_kind, 3), (fault_health, 6), (fault_meals, 7),
    (fault_at_rate, 3), (fault_mobility_rate, 3), (fault_withholding_rate, 3), (fault_rgdu, 6),
    (fault_entry_date, 4), (fault_exit_date, 4), (fault_entry_and_exit, 4), (fault_ytd, 3),
    (fault_ytd_missing, 6),
]


def generate_tagged(rng: random.Random, i: int) -> tuple[str, str]:
    """One case as JSON text, with the generator's intent as a tag."""
    level = LEVEL_CYCLE[i % 4]
    if rng.random() < 0.015:
        return dump_json(rng.choice(NON_OBJECT_CASES)), "invalid:non_object"
    case, tag = draw_valid(rng, level, i)
    tag = "valid:" + tag
    if rng.random() < 0.30:
        n_faults = 1 if rng.random() < 0.7 else rng.randint(2, 3)
        functions, weights = zip(*FAULTS)
        names = []
        for fault in rng.choices(functions, weights=weights, k=n_faults):
            fault(rng, case)
            names.append(fault.__name__.removeprefix("fault_"))
        tag = f"invalid:L{level}:" + "+".join(names)
    return dump_json(case), tag


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
    return f"error {expected['error']['path']}"


def features(raw) -> list[str]:
    """What a valid case exercises, measured on the case itself."""
    c = read_case(raw)
    p = compute(c)
    found = {f"level {c.level}", f"level {c.level} {c.status}"}
    found.add("headcount < 11" if c.headcount < 11 else "headcount 11-49" if c.headcount < 50
              else "headcount >= 50")
    if c.headcount in (10, 11, 49, 50):
        found.add("headcount on a threshold (10/11/49/50)")
    if p.brut > p.ceiling:
        found.add("brut > ceiling (tranche 2, CET)")
    elif p.brut == p.ceiling:
        found.add("brut = ceiling")
    if p.brut > 8 * p.ceiling:
        found.add("brut > 8 ceilings")
    if p.brut == 0:
        found.add("brut 0")
    if c.has_overtime:
        found.add("overtime")
        if c.overtime_25 > 0 and c.overtime_50 > 0:
            found.add("overtime at both rates")
    if c.absence > 0:
        found.add("unpaid absence" if c.level <= 3 else "absence ignored (level 4)")
    if c.absence == c.contract_hours and c.level <= 3:
        found.add("absence = contract hours")
    if c.benefit_in_kind > 0:
        found.add("benefit in kind")
    if c.bonus > 0:
        found.add("bonus")
    if c.health is not None:
        found.add("health insurance")
    if c.meals is not None:
        found.add("meal vouchers")
    if c.part_time:
        found.add(f"part time level {c.level}" if c.level == 4 else "part time levels 1-3")
    if c.level == 4:
        if p.prorated:
            found.add("level 4 entry" if c.entry else "level 4 exit")
            if p.presence == p.days:
                found.add("level 4 whole-month date")
            if (p.base_exact * 100) % 1 == F(1, 2):
                found.add("level 4 prorated base on a half cent")
        if p.ceiling != PMSS:
            found.add("level 4 prorated ceiling")
        if c.has_overtime:
            ytd = c.overtime_exempt_ytd
            state = ("cap already reached" if ytd >= OVERTIME_CAP else
                     "cap reached this month" if ytd + p.overtime > OVERTIME_CAP else "cap not reached")
            found.add(f"level 4 overtime, {state}")
            if c.entry is not None:
                found.add("level 4 overtime on an entry month")
            if not 8 <= c.month <= 12:
                found.add("level 4 overtime outside August-December")
        elif c.overtime_exempt_ytd is not None:
            found.add("level 4 ytd without overtime")
    if c.level >= 3:
        if p.coefficient == 0:
            found.add("C = 0 (brut >= 3 SMIC_ref)")
        elif p.coefficient_raw is None:
            found.add("C at its cap")
        else:
            found.add("C from the formula")
    if c.level <= 2 and c.rgdu_coefficient in (0, 1):
        found.add(f"C given = {c.rgdu_coefficient}")
    if c.level >= 3 and c.rgdu_coefficient is not None:
        found.add("rgdu_coefficient ignored (levels 3-4)")
    if c.level <= 3 and (c.entry or c.exit or c.overtime_exempt_ytd is not None):
        found.add("level-4 fields ignored (levels 1-3)")
    if p.net_imposable < 0:
        found.add("negative net imposable")
    if p.net_a_payer < 0:
        found.add("negative net a payer")
    base = p.answer()
    for name in ABLATIONS:
        if compute(c, frozenset([name])).answer() != base:
            found.add(f"ablation changes the answer: {name}")
    return sorted(found)


def print_distribution(cases, out) -> None:
    harness.print_distribution(cases, out, outcome_key, harness.level_intents,
                               features=lambda text: features(parse_case(text)))


# ---------------------------------------------------------------------------
# Self-test on hand-computed examples
# ---------------------------------------------------------------------------

def answer(brut, total, imposable, pas, net, cout) -> dict:
    return dict(zip(ANSWER_KEYS, (brut, total, imposable, pas, net, cout)))


def self_test() -> None:
    def check(case, expected) -> None:
        text = case if isinstance(case, str) else dump_json(case)
        actual = evaluate(parse_case(text))
        if isinstance(expected, str):
            assert actual.get("error", {}).get("path") == expected, (text, actual, expected)
        else:
            assert actual == expected and list(actual) == list(expected), (text, actual, expected)

    def variant(base: dict, **changes) -> dict:
        case = json.loads(dump_json(base), parse_float=RawNumber, parse_int=RawNumber)
        for key, value in changes.items():
            put(case, key, value)
        return case

    # --- Level 1 -----------------------------------------------------------------
    # Non-cadre, 8 employees (< 11: no mobility, no forfait social, CFP 0.55 %; < 50: FNAL on T1),
    # base 2000 + bonus 100 = brut 2100.00 < ceiling 4005: T1 2100, T2 0, no CET.
    # Employee: 6.90 % 144.90; 0.40 % 8.40; AGIRC T1 3.15 % 66.15; CEG T1 0.86 % 18.06;
    # CSG base round(0.9825 x 2100 = 2063.25) = 2063.25: 6.80 % 140.301 -> 140.30,
    # 2.40 % 49.518 -> 49.52, CRDS 0.50 % 10.31625 -> 10.32. Total 437.65.
    # Net before tax 1662.35; imposable 1662.35 + 49.52 + 10.32 = 1722.19; PAS 2.5 % 43.05475 -> 43.05;
    # net 1662.35 - 43.05 = 1619.30.
    # Employer: 13 % 273.00; 8.55 % 179.55; 2.11 % 44.31; 5.25 % 110.25; AT 1.20 % 25.20; CSA 6.30;
    # FNAL 0.10 % T1 2.10; chomage 4 % 84.00; AGS 0.25 % 5.25; AGIRC T1 4.72 % 99.12; CEG T1 1.29 % 27.09;
    # CFP 0.55 % 11.55; dialogue 0.016 % 0.336 -> 0.34. Sum 868.06. RGDU 2100 x 0.25 = 525.00.
    # Cout 2100 + 868.06 - 525.00 = 2443.06.
    level1 = {"level": RawNumber("1"), "month": "2026-02", "status": "non_cadre", "headcount": RawNumber("8"),
              "base_salary": "2000.00", "contract_hours": "151.67", "hourly_rate": "13.19", "bonus": "100",
              "at_rate": "1.20", "mobility_rate": "0", "withholding_rate": "2.50", "rgdu_coefficient": "0.25"}
    check(level1, answer("2100.00", "437.65", "1722.19", "43.05", "1619.30", "2443.06"))
    # Reading 1: a level-4 exit date is validated, then ignored below level 4.
    check(variant(level1, exit_date="2026-02-10", overtime_exempt_ytd="100.00"),
          answer("2100.00", "437.65", "1722.19", "43.05", "1619.30", "2443.06"))
    # The coefficient is used as given, any number of decimals: 2100 x 0.123456 = 259.2576 -> 259.26,
    # cout 2100 + 868.06 - 259.26 = 2708.80.
    check(variant(level1, rgdu_coefficient="0.123456"),
          answer("2100.00", "437.65", "1722.19", "43.05", "1619.30", "2708.80"))

    # --- Level 2 -----------------------------------------------------------------
    # Cadre, 60 employees; 4 h at 25 %: 4 x 23.08 x 1.25 = 115.40; 2 h at 50 %: 2 x 23.08 x 1.5 = 69.24;
    # overtime 184.64; brut 3684.64. Health 90 x 0.60 = 54.00 employer, 36.00 employee.
    # Death cover 1.5 % x 3684.64 = 55.2696 -> 55.27. CSG base round(0.9825 x 3500) = 3438.75
    # + 54.00 + 55.27 = 3548.02; overtime base round(0.9825 x 184.64 = 181.4088) = 181.41.
    # Employee: 254.24 + 14.74 + 116.07 + 31.69 + APEC 0.88 + 241.27 + 85.15 + 17.74
    # + overtime 9.70 % 17.59677 -> 17.60 + health 36.00 = 815.38; minus 11.31 % x 184.64 = 20.88 -> 794.50.
    # Net before 2890.14; imposable + 85.15 + 17.74 + 17.60 + 54.00 - 184.64 = 2879.99; PAS 6 % 172.7994
    # -> 172.80. Meals 18 x 10 = 180, employer 99.00, employee 81.00; net 2890.14 - 172.80 - 81.00 = 2636.34.
    # Employer: 479.00 + 315.04 + 77.75 + 193.44 + AT 33.16 + CSA 11.05 + FNAL 0.50 % brut 18.42
    # + mobility 2.95 % 108.70 + 147.39 + 9.21 + 173.92 + 47.53 + APEC 1.33 + death 55.27 + CFP 1 % 36.85
    # + 0.59 + forfait 8 % x 109.27 = 8.74 + health 54.00 = 1771.39. RGDU 3684.64 x 0.0425 = 156.5972
    # -> 156.60. Cout 3684.64 + 1771.39 + 99.00 - 156.60 = 5398.43.
    level2 = {"level": RawNumber("2"), "month": "2026-05", "status": "cadre", "headcount": RawNumber("60"),
              "base_salary": "3500.00", "contract_hours": "151.67", "hourly_rate": "23.08",
              "overtime_25_hours": "4", "overtime_50_hours": "2.00",
              "health_insurance": {"premium": "90.00", "employer_share": "0.60"},
              "meal_vouchers": {"count": RawNumber("18"), "face_value": "10.00", "employer_share": "0.55"},
              "at_rate": "0.90", "mobility_rate": "2.95", "withholding_rate": "6.00",
              "rgdu_coefficient": "0.0425"}
    check(level2, answer("3684.64", "794.50", "2879.99", "172.80", "2636.34", "5398.43"))
    # Ablation: the increased hourly rate rounded first: 23.08 x 1.25 = 28.85, x 4 = 115.40 (same);
    # 23.08 x 1.5 = 34.62, x 2 = 69.24 (same) -> no change here; with 15.47: 3.5 x 19.3375 = 67.68125
    # -> 67.68, but 3.5 x round(19.3375) = 3.5 x 19.34 = 67.69 (the seed's example).
    assert ablated(parse_case(dump_json(level2)), "hourly_rate_rounded_before_premium") == evaluate(
        parse_case(dump_json(level2)))
    example_ot = variant(level2, hourly_rate="15.47", overtime_25_hours="3.5", overtime_50_hours=ABSENT)
    assert compute(read_case(example_ot)).overtime_25 == F("67.68")
    assert compute(read_case(example_ot), frozenset(["hourly_rate_rounded_before_premium"])).overtime_25 \
        == F("67.69")
    # Meal vouchers voucher by voucher: 18 x round(10 x 0.555 = 5.55) = 99.90 vs round(180 x 0.555 = 99.9).
    # With 9.50 x 0.55 = 5.225 -> 5.23 x 18 = 94.14, against round(171 x 0.55 = 94.05) = 94.05.
    meals = variant(level2, meal_vouchers={"count": RawNumber("18"), "face_value": "9.50",
                                           "employer_share": "0.55"})
    assert compute(read_case(meals)).meal_employer == F("94.05")
    assert compute(read_case(meals), frozenset(["meal_vouchers_rounded_per_voucher"])).meal_employer \
        == F("94.14")

    # --- Level 3: the spec's example case (reading 1) -----------------------------
    # Overtime 3.5 x 21.10 x 1.25 = 92.3125 -> 92.31; 2 x 21.10 x 1.5 = 63.30; total 155.61.
    # Absence 7 x 21.10 = 147.70. Brut 3200 + 155.61 + 150 + 120 - 147.70 = 3477.91 (the entry date,
    # the given coefficient 0.1234 and the ytd are validated then ignored at level 3).
    # Health 40.00 / 40.00; death cover 1.5 % x 3477.91 = 52.16865 -> 52.17.
    # CSG base round(0.9825 x 3322.30 = 3264.15975) = 3264.16 + 40.00 + 52.17 = 3356.33;
    # overtime base round(0.9825 x 155.61 = 152.886825) = 152.89.
    # Employee: 239.98 + 13.91 + 109.55 + 29.91 + APEC 0.83 + 228.23 + 80.55 + 16.78 + 14.83 + 40.00
    # = 774.57; minus round(11.31 % x 155.61 = 17.599491) = 17.60 -> 756.97. Net before 2720.94.
    # Imposable 2720.94 + 80.55 + 16.78 + 14.83 + 40.00 - 155.61 = 2717.49; PAS 4.5 % 122.28705 -> 122.29.
    # Meals 180, employer 108.00, employee 72.00; net 2720.94 - 122.29 - 120.00 - 72.00 = 2406.65.
    # Employer: 452.13 + 297.36 + 73.38 + 182.59 + 41.73 + 10.43 + FNAL 3.48 + mobility 60.86 + 139.12
    # + 8.69 + 164.16 + 44.87 + 1.25 + 52.17 + CFP 34.78 + 0.56 + forfait 8 % x 92.17 = 7.37 + 40.00
    # = 1614.93. SMIC_ref round(1823.03 x 144.67 / 151.67 = 1738.892...) = 1738.89, 3 S = 5216.67;
    # x = 0.5 x (5216.67 / 3477.91 - 1) = 0.249975; 0.02 + 0.3781 x x^1.75 = 0.053413 -> C 0.0534
    # (the spec's reading 1); RGDU 3477.91 x 0.0534 = 185.720394 -> 185.72.
    # Cout 3477.91 + 1614.93 + 108.00 - 185.72 = 5015.12.
    check(SPEC_EXAMPLE, answer("3477.91", "756.97", "2717.49", "122.29", "2406.65", "5015.12"))
    example = compute(read_case(SPEC_EXAMPLE))
    assert (example.smic_ref, example.coefficient, example.rgdu) == (F("1738.89"), F("0.0534"), F("185.72"))
    # Reading 21: brut 5469.09 = 3 x 1823.03 gives C = 0; one cent less gives 0.02 + tiny -> 0.0200.
    at_3smic = variant(level1, level=RawNumber("3"), base_salary="5469.09", bonus=ABSENT)
    assert compute(read_case(at_3smic)).coefficient == 0
    below = compute(read_case(variant(at_3smic, base_salary="5469.08")))
    assert below.coefficient == F("0.0200") and below.rgdu == F("109.38")
    # Below SMIC_ref the formula exceeds the cap: 0.02 + 0.3781 = 0.3981 (< 50), 0.4021 (>= 50).
    assert compute(read_case(variant(at_3smic, base_salary="1500.00"))).coefficient == F("0.3981")
    assert compute(read_case(variant(at_3smic, base_salary="1500.00", headcount=RawNumber("50")))) \
        .coefficient == F("0.4021")
    # Zero gross (reading 21): RGDU 0, every amount 0.00 (mobility "0", no health).
    zero = variant(at_3smic, base_salary="0")
    check(zero, answer("0.00", "0.00", "0.00", "0.00", "0.00", "0.00"))
    # Reading 9: part time at level 3, ceiling not prorated, SMIC_ref 1823.03 x (86.67 - 7) / 86.67
    # = 1675.788... -> 1675.79 (not prorated for the part time).
    part = compute(read_case(variant(at_3smic, base_salary="1200.00", contract_hours="86.67",
                                     unpaid_absence_hours="7", hourly_rate="13.85")))
    assert (part.ceiling, part.smic_ref, part.absence, part.brut) == (PMSS, F("1675.79"), F("96.95"),
                                                                      F("1103.05"))

    # --- Level 4 -----------------------------------------------------------------
    # Full-time cadre, 120 employees, leaves on 20 September (30 days): presence 20.
    # Base round(4500 x 20 / 30) = 3000.00; overtime 5 x 29.67 x 1.25 = 185.4375 -> 185.44 and
    # 3 x 29.67 x 1.5 = 133.515 -> 133.52 (a tie, half-up); overtime 318.96; brut 3318.96.
    # Ceiling round(4005 x 20 / 30) = 2670.00: T1 2670.00, T2 648.96, capped-4 and CET base 3318.96.
    # Death cover 1.5 % x 2670 = 40.05. CSG base round(0.9825 x 3000) = 2947.50 + 40.05 = 2987.55;
    # overtime base round(0.9825 x 318.96 = 313.3782) = 313.38.
    # Employee: 184.23 + 13.28 + AGIRC T1 84.105 -> 84.11 + T2 8.64 % 56.07 + CEG T1 22.96 + T2 7.01
    # + CET 0.14 % 4.65 + APEC 0.80 + 203.15 + 71.70 + 14.94 + overtime 30.40 = 693.30;
    # minus round(11.31 % x 318.96 = 36.074376) = 36.07 -> 657.23. Net before 2661.73.
    # Exempt overtime min(318.96, 7500 - 7300 = 200.00) = 200.00 (cap reached this month).
    # Imposable 2661.73 + 71.70 + 14.94 + 30.40 - 200.00 = 2578.77; PAS 8 % 206.3016 -> 206.30;
    # net 2661.73 - 206.30 = 2455.43.
    # Employer: 431.46 + 228.285 -> 228.29 + 70.03 + 174.25 + AT 1.5 % 49.78 + 9.96 + FNAL 0.5 % 16.59
    # + mobility 2 % 66.38 + 132.76 + 8.30 + 126.02 + 84.04 + 34.44 + 10.51 + CET 6.97 + APEC 1.19
    # + death 40.05 + CFP 33.19 + 0.53 + forfait 8 % x 40.05 = 3.20 = 1527.94.
    # SMIC_ref round(1823.03 x 20 / 30 = 1215.3533) = 1215.35; 3 S = 3646.05; x = 0.5 x (3646.05 /
    # 3318.96 - 1) = 0.049276; 0.02 + 0.3821 x x^1.75 (~0.0051536) = 0.021969 -> 0.0220;
    # RGDU 3318.96 x 0.0220 = 73.01712 -> 73.02. Cout 3318.96 + 1527.94 - 73.02 = 4773.88.
    level4 = {"level": RawNumber("4"), "month": "2026-09", "status": "cadre", "headcount": RawNumber("120"),
              "base_salary": "4500.00", "contract_hours": "151.67", "hourly_rate": "29.67",
              "overtime_25_hours": "5", "overtime_50_hours": "3", "at_rate": "1.50", "mobility_rate": "2.00",
              "withholding_rate": "8.00", "exit_date": "2026-09-20", "overtime_exempt_ytd": "7300.00"}
    check(level4, answer("3318.96", "657.23", "2578.77", "206.30", "2455.43", "4773.88"))
    p4 = compute(read_case(level4))
    assert (p4.ceiling, p4.smic_ref, p4.coefficient) == (F("2670.00"), F("1215.35"), F("0.0220"))
    # ignore_overtime_cap: imposable 2578.77 + 200.00 - 318.96 = 2459.81, PAS 196.7848 -> 196.78,
    # net 2661.73 - 196.78 = 2464.95.
    assert ablated(level4, "ignore_overtime_cap") == answer(
        "3318.96", "657.23", "2459.81", "196.78", "2464.95", "4773.88")
    # unprorated_ceiling: T1 3318.96, no T2, no CET, so the answer changes.
    assert ablated(level4, "unprorated_ceiling")["total_cotisations_salariales"] != "657.23"
    # ytd 7500 or more: nothing exempt; ytd 0: everything (318.96).
    for ytd, exempt in (("7500", ZERO), ("9000.00", ZERO), ("0", F("318.96")), ("7181.04", F("318.96")),
                        ("7181.05", F("318.95"))):
        assert compute(read_case(variant(level4, overtime_exempt_ytd=ytd))).exempt_overtime == exempt, ytd
    # An exit on the last day is a whole month (reading 10): base 4500.00, ceiling 4005.00, SMIC 1823.03.
    whole = compute(read_case(variant(level4, exit_date="2026-09-30")))
    assert (whole.base, whole.ceiling, whole.smic_ref) == (F("4500.00"), PMSS, SMIC_RGDU)
    # Daily salary rounded first: round(4500 / 30) = 150.00 x 20 = 3000.00 (same); with 4400.00:
    # 4400 x 20 / 30 = 2933.333 -> 2933.33, but round(146.6667) = 146.67 x 20 = 2933.40.
    daily = variant(level4, base_salary="4400.00")
    assert compute(read_case(daily)).base == F("2933.33")
    assert compute(read_case(daily), frozenset(["daily_salary_rounded_before_proration"])).base == F("2933.40")
    # Part time 86.67 h with an entry on 15 February (28 days): presence 14.
    # Base round(1500 x 14 / 28) = 750.00; ceiling 4005 x 86.67 / 151.67 = 2288.609 x 0.5 = 1144.3046
    # -> 1144.30; SMIC_ref 1823.03 x 86.67 / 151.67 = 1041.7486 x 0.5 = 520.8743 -> 520.87.
    part4 = variant(level4, month="2026-02", contract_hours="86.67", base_salary="1500.00", hourly_rate="17.31",
                    overtime_25_hours=ABSENT, overtime_50_hours="0", exit_date=ABSENT, entry_date="2026-02-15",
                    overtime_exempt_ytd=ABSENT, unpaid_absence_hours="86.67")
    p = compute(read_case(part4))
    assert (p.presence, p.base, p.ceiling, p.smic_ref, p.absence) == (
        14, F("750.00"), F("1144.30"), F("520.87"), ZERO)
    assert compute(read_case(part4), frozenset(["unprorated_ceiling"])).ceiling == PMSS

    # --- Answers' format -----------------------------------------------------------
    assert money_text(F(0)) == "0.00" and money_text(F(-0)) == "0.00" and money_text(F(-1234, 100)) == "-12.34"
    assert round_to(F(-5, 1000), 2) == F(-1, 100) and round_to(F(5, 1000), 2) == F(1, 100)
    assert round_to(F(4999, 1000000), 2) == 0

    # --- Rejections (reading 14's order) ---------------------------------------------
    for text in ('[]', '"x"', '42', 'null', 'true', '[{"level": 1}]'):
        check(text, "$")
    errors = [
        ({"level": ABSENT}, "level"), ({"level": None}, "level"), ({"level": RawNumber("3.0")}, "level"),
        ({"level": RawNumber("1e0")}, "level"), ({"level": "2"}, "level"), ({"level": True}, "level"),
        ({"level": RawNumber("5")}, "level"), ({"level": RawNumber("-0")}, "level"),
        ({"month": "2025-12"}, "month"), ({"month": "2026-13"}, "month"), ({"month": "2026-3"}, "month"),
        ({"month": None}, "month"),
        ({"status": "Cadre"}, "status"), ({"status": "non-cadre"}, "status"),
        ({"headcount": RawNumber("35.0")}, "headcount"), ({"headcount": "35"}, "headcount"),
        ({"headcount": True}, "headcount"), ({"headcount": RawNumber("-1")}, "headcount"),
        ({"headcount": RawNumber("-0")}, "headcount"),
        ({"base_salary": RawNumber("2500")}, "base_salary"), ({"base_salary": "-5.00"}, "base_salary"),
        ({"base_salary": "-0.00"}, "base_salary"), ({"base_salary": "2000.001"}, "base_salary"),
        ({"base_salary": "1e3"}, "base_salary"), ({"base_salary": ".5"}, "base_salary"),
        ({"base_salary": "1 000"}, "base_salary"), ({"base_salary": None}, "base_salary"),
        ({"contract_hours": "100.00"}, "contract_hours"), ({"contract_hours": "151.670"}, "contract_hours"),
        ({"contract_hours": RawNumber("151.67")}, "contract_hours"),
        ({"hourly_rate": ABSENT}, "hourly_rate"),
        ({"overtime_25_hours": "1.555"}, "overtime_25_hours"), ({"overtime_50_hours": RawNumber("2")},
                                                                "overtime_50_hours"),
        ({"contract_hours": "104", "overtime_25_hours": "0", "overtime_50_hours": "2"}, "overtime_50_hours"),
        ({"contract_hours": "104", "overtime_25_hours": "1", "overtime_50_hours": "2"}, "overtime_25_hours"),
        # Syntax of both overtime fields before the part-time check.
        ({"contract_hours": "104", "overtime_25_hours": "1", "overtime_50_hours": "x"}, "overtime_50_hours"),
        ({"bonus": "5."}, "bonus"),
        ({"unpaid_absence_hours": "151.68"}, "unpaid_absence_hours"),
        ({"unpaid_absence_hours": "-1"}, "unpaid_absence_hours"),
        ({"benefit_in_kind": RawNumber("5")}, "benefit_in_kind"),
        ({"health_insurance": []}, "health_insurance"), ({"health_insurance": "80"}, "health_insurance"),
        ({"health_insurance": {"employer_share": "x"}}, "health_insurance.premium"),
        ({"health_insurance": {"premium": "80.00"}}, "health_insurance.employer_share"),
        ({"health_insurance": {"premium": "80.00", "employer_share": "1.01"}}, "health_insurance.employer_share"),
        ({"meal_vouchers": {"count": RawNumber("20.0")}}, "meal_vouchers.count"),
        ({"meal_vouchers": {"count": RawNumber("20"), "employer_share": "2"}}, "meal_vouchers.face_value"),
        ({"meal_vouchers": {"count": RawNumber("20"), "face_value": "9", "employer_share": "-0.5"}},
         "meal_vouchers.employer_share"),
        ({"meal_vouchers": True}, "meal_vouchers"),
        ({"at_rate": RawNumber("1.2")}, "at_rate"), ({"mobility_rate": ABSENT}, "mobility_rate"),
        ({"withholding_rate": "4,5"}, "withholding_rate"),
        ({"rgdu_coefficient": ABSENT}, "rgdu_coefficient"), ({"rgdu_coefficient": "1.0001"}, "rgdu_coefficient"),
        ({"entry_date": "2026-02-29"}, "entry_date"), ({"entry_date": "2026-03-01"}, "entry_date"),
        ({"exit_date": "2026-2-10"}, "exit_date"),
        ({"entry_date": "2026-02-10", "exit_date": "2026-02-20"}, "exit_date"),
        ({"overtime_exempt_ytd": "-1"}, "overtime_exempt_ytd"),
        # 151.67 x 13.19 = 2000.5273 -> 2000.53 < 2100 (gross 99.47), but x 14.00 = 2123.38 > 2100.
        ({"unpaid_absence_hours": "151.67", "hourly_rate": "14.00"}, "unpaid_absence_hours"),
        # Multi-fault order.
        ({"level": "1", "month": "x"}, "level"), ({"month": "x", "base_salary": "y"}, "month"),
        ({"mobility_rate": "x", "health_insurance": []}, "health_insurance"),
        ({"rgdu_coefficient": ABSENT, "at_rate": ABSENT}, "at_rate"),
        ({"exit_date": "2026-02-30", "rgdu_coefficient": "2"}, "rgdu_coefficient"),
        ({"unpaid_absence_hours": "151.67", "hourly_rate": "14", "overtime_exempt_ytd": "x"},
         "overtime_exempt_ytd"),
        ({"unpaid_absence_hours": "200", "bonus": "x"}, "bonus"),
    ]
    for changes, path in errors:
        check(variant(level1, **changes), path)
    # A zero gross is accepted: 151.67 h x 13.85 = 2100.6295 -> 2100.63 = base 2000.63 + bonus 100.
    check(variant(level1, unpaid_absence_hours="151.67", hourly_rate="13.85", base_salary="2000.63"),
          answer("0.00", "0.00", "0.00", "0.00", "0.00", "0.00"))
    # Level 4 with overtime needs a ytd; "0" hours is no overtime; the level-4 absence is not deducted.
    check(variant(level4, overtime_exempt_ytd=ABSENT), "overtime_exempt_ytd")
    check(variant(level4, overtime_exempt_ytd=None, overtime_25_hours="0", overtime_50_hours="0.00",
                  unpaid_absence_hours="151.67"),
          evaluate(variant(level4, overtime_exempt_ytd=None, overtime_25_hours=ABSENT, overtime_50_hours=ABSENT)))
    check(variant(level4, unpaid_absence_hours="151.68"), "unpaid_absence_hours")
    check(variant(level4, rgdu_coefficient="1.5"), "rgdu_coefficient")
    # A key no input declares is refused, before every other fault (the first
    # such key in the case's order); shares as "1", "0"; count 0.
    check(variant(level2, id="paie-2-2", label="x", employee={"name": "A"}), "id")
    check(variant(level2, bonuss="10.00", level=7), "bonuss")
    check(variant(level2, health_insurance={"premium": "1.00", "employer_share": "2", "x": 1}),
          "health_insurance.x")

    # --- The generator is deterministic and its output always evaluates -----------------
    def sample(seed: int) -> list[str]:
        rng = random.Random(seed)
        return [generate(rng, i) for i in range(300)]

    assert sample(7) == sample(7) and sample(7) != sample(8)
    for text in sample(3):
        raw = parse_case(text)
        if "error" not in evaluate(raw):
            features(raw)
            for name in ABLATIONS:
                assert "error" not in ablated(raw, name)
    print("self-test: ok")


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = harness.cli_parser(__doc__, "rulebooks/paie-fr/v2026")
    parser.add_argument("--ablate", metavar="NAME", choices=ABLATIONS,
                        help="expect `ablated(case, NAME)` and run bareme with --ablate NAME")
    args = parser.parse_args(argv)

    if args.self_test:
        self_test()
        return 0
    if args.tasks:
        if args.ablate:
            parser.error("--tasks compares with the tasks' reference answers: without --ablate")
        return harness.run_tasks(args.tasks, "paie-fr", lambda raw: ablated(raw, None), ensure_ascii=False,
                                 bareme=args.bareme, rulebook=args.rulebook)
    cases = harness.generate_cases(args.n, args.seed, generate_tagged, lambda raw: ablated(raw, args.ablate))
    return harness.dump_or_run(parser, args, cases, print_distribution, ablation=args.ablate)


if __name__ == "__main__":
    sys.exit(main())
