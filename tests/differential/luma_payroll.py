#!/usr/bin/env python3
"""Independent reference for the Luma payroll rules v3, for differential testing.

Why this exists: the `bareme` engine evaluates `rulebooks/luma-payroll/v3`
from a declarative rulebook. This file is a second, independent reading of the
same spec (specs/luma-payroll.md, "Precise readings" included),
written directly in Python with no code shared with the engine (the harness
it runs in is harness.py). Random cases are generated,
evaluated here and by the engine, and every disagreement is printed: either
the rulebook or this reading is wrong, and the spec decides which.

Stdlib only. Usage:

    python3 tests/differential/luma_payroll.py --bareme target/debug/bareme \\
        --rulebook rulebooks/luma-payroll/v3 --n 5000 --seed 1
    python3 tests/differential/luma_payroll.py --dump /tmp/cases.jsonl --n 2000
    python3 tests/differential/luma_payroll.py --self-test

Cases are JSON parsed with numbers kept as written (`RawNumber`), so that
`1205.120` and `1e3` can be told apart from `1205.12` and `1000`.
"""

from __future__ import annotations

import collections
import os
import random
import re
import sys
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, getcontext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import (  # noqa: E402  (the shared harness, in this folder)
    ABSENT, DatasetError, RawNumber, dump_json, parse_case, shuffled,
)
import harness  # noqa: E402

getcontext().prec = 60

CENT = Decimal("0.01")
ZERO = Decimal("0")
CURRENCY = "LCR"

# R2 / readings 2-3: unsigned, digits, optionally a point and one or two digits.
MONEY_SYNTAX = re.compile(r"[0-9]+(?:\.[0-9]{1,2})?")
# Reading 4: a rate is any non-negative plain decimal, of any precision.
RATE_SYNTAX = re.compile(r"[0-9]+(?:\.[0-9]+)?")
# R1: YYYY-MM with a year from 2000 through 2099.
MONTH_SYNTAX = re.compile(r"(20[0-9]{2})-(0[1-9]|1[0-2])")

TASKS = ("payslip", "retrieval")
RETRIEVAL_FIELDS = ("contribution_rate", "contribution_cap", "deduction_cap")
ROW_NAMES = ("first-half", "second-half")
COLUMNS = ("rate", "cap", "deduction", "free", "upper", "middle_rate", "upper_rate")
RATE_COLUMNS = ("rate", "middle_rate", "upper_rate")
COVERED_YEAR = 2026
# R4 / reading 8: the deduction cap when no reference row applies.
DEDUCTION_CAP_WITHOUT_ROW = Decimal("350.00")

DEFAULT_REFERENCE_TABLES = {
    "first-half": {
        "rate": "0.05", "cap": "4800.00", "deduction": "300.00", "free": "1000.00",
        "upper": "3300.00", "middle_rate": "0.10", "upper_rate": "0.22",
    },
    "second-half": {
        "rate": "0.04", "cap": "5000.00", "deduction": "350.00", "free": "1100.00",
        "upper": "3000.00", "middle_rate": "0.08", "upper_rate": "0.20",
    },
}

CALCULATE_CLAUSES = ["R1", "R2", "R3", "R4", "R5", "R6"]
AMENDMENT_CLAUSE = "R9"
CLARIFY_CLAUSES = {
    "MISSING_GROSS_PAY": ["R1", "R7"],
    "MISSING_PAYROLL_MONTH": ["R1", "R7"],
    "NO_APPLICABLE_REFERENCE": ["R1", "R7"],
    "CONFLICTING_GROSS_PAY": ["R7", "R9"],
}
RETRIEVE_CLAUSES = {
    "contribution_rate": ["R1", "R3"],
    "contribution_cap": ["R1", "R3"],
    "deduction_cap": ["R1", "R4"],
}


# ---------------------------------------------------------------------------
# Dataset validation (R1, R2, R4, R7 last paragraph, R8, R9; readings 1-14)
# ---------------------------------------------------------------------------

# A case that breaks the task schema raises `DatasetError`: rejected, never clarified.

@dataclass(frozen=True)
class PayrollMonth:
    year: int
    month: int

    def __le__(self, other: "PayrollMonth") -> bool:
        return (self.year, self.month) <= (other.year, other.month)


@dataclass(frozen=True)
class ReferenceRow:
    rate_as_written: str
    rate: Decimal
    cap: Decimal
    deduction: Decimal
    free: Decimal
    upper: Decimal
    middle_rate: Decimal
    upper_rate: Decimal


@dataclass(frozen=True)
class Amendment:
    gross_pay: Decimal
    effective_month: PayrollMonth
    approved: bool


@dataclass(frozen=True)
class Case:
    task: str
    gross_pay: Decimal | None
    payroll_month: PayrollMonth | None
    allowed_deduction: Decimal
    contract_gross_pay: Decimal | None
    amendment: Amendment | None
    schedule: dict
    field: str | None


def is_given(value) -> bool:
    """Reading 6: `null` means absent."""
    return value is not None


def read_money(value, path: str) -> Decimal:
    """R2 with readings 2, 3 and 5: a string, or a JSON number as written."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, RawNumber):
        text = value.text
    elif isinstance(value, int) and not isinstance(value, bool):
        text = str(value)  # Only for callers that parsed without RawNumber.
    else:
        raise DatasetError(path, "money must be a decimal string or a plain JSON number")
    if not MONEY_SYNTAX.fullmatch(text):
        raise DatasetError(path, f"{text!r} is not a non-negative amount with at most two decimals")
    return Decimal(text)


def read_rate(value, path: str) -> tuple[str, Decimal]:
    """Reading 4: rates are non-negative plain decimal strings of any precision."""
    if not isinstance(value, str):
        raise DatasetError(path, "a rate must be a decimal string")
    if not RATE_SYNTAX.fullmatch(value):
        raise DatasetError(path, f"{value!r} is not a non-negative plain decimal")
    return value, Decimal(value)


def read_month(value, path: str) -> PayrollMonth:
    """R1: `YYYY-MM`, month 01-12, year 2000-2099."""
    if not isinstance(value, str):
        raise DatasetError(path, "a month must be a YYYY-MM string")
    match = MONTH_SYNTAX.fullmatch(value)
    if not match:
        raise DatasetError(path, f"{value!r} is not YYYY-MM with a year from 2000 through 2099")
    return PayrollMonth(int(match.group(1)), int(match.group(2)))


def read_amendment(value) -> Amendment:
    """Reading 13: gross_pay, effective_month and a boolean approved are all required."""
    if not isinstance(value, dict):
        raise DatasetError("amendment", "an amendment must be an object")
    harness.refuse_unknown(value, AMENDMENT_KEYS, "amendment")

    def required(key: str):
        if not is_given(value.get(key)):
            raise DatasetError(f"amendment.{key}", "missing")
        return value[key]

    # Key by key, in the order R9 lists them: the first fault is reported.
    gross_pay = read_money(required("gross_pay"), "amendment.gross_pay")
    effective_month = read_month(required("effective_month"), "amendment.effective_month")
    approved = required("approved")
    if not isinstance(approved, bool):
        raise DatasetError("amendment.approved", "approved must be a JSON boolean")
    return Amendment(gross_pay, effective_month, approved)


def read_reference_tables(value) -> dict:
    """R1 with readings 1, 4, 5, 6: both rows, every column; extras ignored."""
    if not isinstance(value, dict):
        raise DatasetError("reference_tables", "reference_tables must be an object")
    schedule = {}
    for name in ROW_NAMES:
        row_path = f"reference_tables.{name}"
        row = value.get(name)
        if not is_given(row):
            raise DatasetError(row_path, "missing row")
        if not isinstance(row, dict):
            raise DatasetError(row_path, "a row must be an object")
        schedule[name] = read_reference_row(row, row_path)
    return schedule


def read_reference_row(row: dict, row_path: str) -> ReferenceRow:
    columns = {}
    for column in COLUMNS:
        path = f"{row_path}.{column}"
        cell = row.get(column)
        if not is_given(cell):
            raise DatasetError(path, "missing column")
        if column in RATE_COLUMNS:
            columns[column] = read_rate(cell, path)
        else:
            columns[column] = read_money(cell, path)
    rate_as_written, rate = columns["rate"]
    return ReferenceRow(
        rate_as_written=rate_as_written,
        rate=rate,
        cap=columns["cap"],
        deduction=columns["deduction"],
        free=columns["free"],
        upper=columns["upper"],
        middle_rate=columns["middle_rate"][1],
        upper_rate=columns["upper_rate"][1],
    )


DEFAULT_SCHEDULE = read_reference_tables(DEFAULT_REFERENCE_TABLES)


# Keys a case may hold: any other is refused (the rulebook's default); a
# supplied schedule's extra rows and columns are allowed (reading 1).
CASE_KEYS = ("task", "gross_pay", "payroll_month", "allowed_deduction", "contract_gross_pay",
             "amendment", "reference_tables", "field")
AMENDMENT_KEYS = ("gross_pay", "effective_month", "approved")


def read_case(raw) -> Case:
    """Reading 14, in order: task, gross_pay, payroll_month, allowed_deduction,
    contract_gross_pay, amendment, reference_tables, field."""
    if not isinstance(raw, dict):
        raise DatasetError("$", "a case must be a JSON object")
    harness.refuse_unknown(raw, CASE_KEYS)

    task = raw.get("task")
    if not isinstance(task, str) or task not in TASKS:
        raise DatasetError("task", "task must be 'payslip' or 'retrieval'")

    gross_pay = raw.get("gross_pay")
    gross_pay = read_money(gross_pay, "gross_pay") if is_given(gross_pay) else None

    payroll_month = raw.get("payroll_month")
    payroll_month = read_month(payroll_month, "payroll_month") if is_given(payroll_month) else None

    allowed_deduction = raw.get("allowed_deduction")
    allowed_deduction = (read_money(allowed_deduction, "allowed_deduction")
                         if is_given(allowed_deduction) else Decimal("0.00"))

    contract = raw.get("contract_gross_pay")
    contract = read_money(contract, "contract_gross_pay") if is_given(contract) else None

    amendment = raw.get("amendment")
    amendment = read_amendment(amendment) if is_given(amendment) else None

    tables = raw.get("reference_tables")
    schedule = read_reference_tables(tables) if is_given(tables) else DEFAULT_SCHEDULE

    field = None
    if task == "retrieval":
        field = raw.get("field")
        if not isinstance(field, str) or field not in RETRIEVAL_FIELDS:
            raise DatasetError("field", "field must be contribution_rate, contribution_cap or deduction_cap")

    return Case(task, gross_pay, payroll_month, allowed_deduction, contract, amendment, schedule, field)


def applicable_row(case: Case) -> ReferenceRow | None:
    """R1: the row covering the payroll month; only 2026 is covered."""
    month = case.payroll_month
    if month is None or month.year != COVERED_YEAR:
        return None
    return case.schedule["first-half" if month.month <= 6 else "second-half"]


def check_allowed_deduction(case: Case, row: ReferenceRow | None) -> None:
    """R4 cap (reading 8) then the available-pay check (reading 7)."""
    deduction_cap = row.deduction if row is not None else DEDUCTION_CAP_WITHOUT_ROW
    if case.allowed_deduction > deduction_cap:
        raise DatasetError("allowed_deduction", f"above the deduction cap {deduction_cap}")
    if row is not None and case.gross_pay is not None:
        available_pay = case.gross_pay - employee_contribution(case.gross_pay, row)
        if case.allowed_deduction > available_pay:
            raise DatasetError("allowed_deduction", "above gross pay minus the employee contribution")


# ---------------------------------------------------------------------------
# Arithmetic (R2, R3, R4, R5, R6)
# ---------------------------------------------------------------------------

def round_half_up(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def employee_contribution(gross_pay: Decimal, row: ReferenceRow) -> Decimal:
    return round_half_up(row.rate * min(gross_pay, row.cap))


def income_tax(taxable: Decimal, row: ReferenceRow) -> Decimal:
    middle_band = min(max(taxable - row.free, ZERO), row.upper - row.free)
    upper_band = max(taxable - row.upper, ZERO)
    return round_half_up(row.middle_rate * middle_band + row.upper_rate * upper_band)


def money_text(amount: Decimal) -> str:
    """Two decimals; a zero never carries a sign."""
    amount = amount.quantize(CENT)
    if amount == 0:
        amount = amount.copy_abs()
    return format(amount, "f")


# ---------------------------------------------------------------------------
# Decisions (R6, R7, R8, R9)
# ---------------------------------------------------------------------------

def amendment_resolves_conflict(case: Case) -> bool:
    """R9: approved, effective no later than the payroll month, same amount."""
    amendment = case.amendment
    return (amendment is not None
            and amendment.approved
            and amendment.effective_month <= case.payroll_month
            and amendment.gross_pay == case.gross_pay)


def clarify(reason_code: str) -> dict:
    return {"decision": "clarify", "reason_code": reason_code,
            "clauses": list(CLARIFY_CLAUSES[reason_code])}


def calculate(case: Case, row: ReferenceRow, amendment_needed: bool) -> dict:
    gross = case.gross_pay
    deduction = case.allowed_deduction
    contribution = employee_contribution(gross, row)
    taxable = gross - contribution - deduction
    tax = income_tax(taxable, row)
    net = gross - contribution - deduction - tax
    clauses = list(CALCULATE_CLAUSES) + ([AMENDMENT_CLAUSE] if amendment_needed else [])
    return {
        "decision": "calculate",
        "currency": CURRENCY,
        "gross_pay": money_text(gross),
        "employee_contribution": money_text(contribution),
        "allowed_deduction": money_text(deduction),
        "taxable_pay": money_text(taxable),
        "income_tax": money_text(tax),
        "net_pay": money_text(net),
        "clauses": clauses,
    }


def payslip(case: Case, row: ReferenceRow | None) -> dict:
    """R7 checks in order, then R6."""
    if case.gross_pay is None:
        return clarify("MISSING_GROSS_PAY")
    if case.payroll_month is None:
        return clarify("MISSING_PAYROLL_MONTH")
    if row is None:
        return clarify("NO_APPLICABLE_REFERENCE")
    amendment_needed = (case.contract_gross_pay is not None
                        and case.contract_gross_pay != case.gross_pay)
    if amendment_needed and not amendment_resolves_conflict(case):
        return clarify("CONFLICTING_GROSS_PAY")
    return calculate(case, row, amendment_needed)


def retrieve(case: Case, row: ReferenceRow | None) -> dict:
    """R8 with readings 10 and 11."""
    if row is None:
        raise DatasetError("payroll_month", "a retrieval needs a payroll month covered by a reference row")
    value = {
        "contribution_rate": row.rate_as_written,
        "contribution_cap": money_text(row.cap),
        "deduction_cap": money_text(row.deduction),
    }[case.field]
    return {"decision": "retrieve", "field": case.field, "value": value,
            "clauses": list(RETRIEVE_CLAUSES[case.field])}


def evaluate(raw) -> dict:
    """The expected answer for one parsed case, or `{"error": {path, message}}`."""
    try:
        case = read_case(raw)
        row = applicable_row(case)
        check_allowed_deduction(case, row)
        if case.task == "retrieval":
            return retrieve(case, row)
        return payslip(case, row)
    except DatasetError as error:
        return {"error": {"path": error.path, "message": error.message}}


# ---------------------------------------------------------------------------
# Case generator
# ---------------------------------------------------------------------------
#
# Like generator 4: the schedule and the deduction are drawn first, then the
# inputs are built for an intended branch against that schedule. The outcome
# is always measured by `evaluate`, never assumed from the intent.

def dec(value) -> Decimal:
    return Decimal(value.text if isinstance(value, RawNumber) else value)


def cents_between(rng: random.Random, low: Decimal, high: Decimal) -> Decimal:
    """A uniform amount in cents within [low, high] (high < low gives low)."""
    low_cents, high_cents = int(low * 100), int(high * 100)
    return (Decimal(rng.randint(low_cents, max(low_cents, high_cents))) / 100).quantize(CENT)


def write_money(rng: random.Random, amount: Decimal):
    """A valid way to write `amount`: usually "1205.10", sometimes "1205.1",
    a JSON number with at most two written decimals, or leading zeros."""
    two = format(amount.quantize(CENT), "f")
    short = two.rstrip("0").rstrip(".")
    roll = rng.random()
    if roll < 0.68:
        return two
    if roll < 0.80:
        return short
    if roll < 0.96:
        return RawNumber(rng.choice([two, short]))
    return "0" + two


def month_text(year: int, month: int) -> str:
    return f"{year:04d}-{month:02d}"


def plan_row(rows: dict, month: str | None) -> dict | None:
    """The generator's own view of the applicable row (Decimal columns)."""
    if month is None or not MONTH_SYNTAX.fullmatch(month) or int(month[:4]) != COVERED_YEAR:
        return None
    return rows["first-half" if int(month[5:]) <= 6 else "second-half"]


def plan_contribution(gross: Decimal, row: dict) -> Decimal:
    return round_half_up(row["rate"] * min(gross, row["cap"]))


@dataclass
class Plan:
    """What the generator knows about the case it is building."""
    rows: dict           # row name -> {column: Decimal}
    tag: str = ""


RATE_CHOICES = ["0.035", "0.040", "0.1234", "0.05", "0.045", "0.0625", "0", "0.04",
                "0.075", "0.12345", "0.5", "1.25"]
MIDDLE_RATE_CHOICES = ["0.10", "0.1", "0.125", "0.08", "0.095", "0.15", "0.0"]
UPPER_RATE_CHOICES = ["0.22", "0.2", "0.215", "0.30", "0.25", "0.333"]


def draw_schedule(rng: random.Random, case: dict) -> Plan:
    """Half the cases use the default schedule; the others supply reference_tables."""
    if rng.random() < 0.5:
        if rng.random() < 0.1:
            case["reference_tables"] = None
        return Plan(rows={name: {c: dec(v) for c, v in row.items()}
                          for name, row in DEFAULT_REFERENCE_TABLES.items()})
    tables, rows = {}, {}
    keep_defaults = rng.random() < 0.25
    for name in ROW_NAMES:
        written = dict(DEFAULT_REFERENCE_TABLES[name])
        if not keep_defaults:
            for column in COLUMNS:
                if rng.random() < 0.5:
                    written[column] = perturbed_column(rng, column)
            if rng.random() < 0.04:  # Reading 4: free > upper is not checked.
                written["upper"] = format(dec(written["free"]) - cents_between(rng, CENT, Decimal(300)), "f")
        rows[name] = {c: dec(v) for c, v in written.items()}
        row_json = {}
        for column in COLUMNS:
            value = written[column]
            row_json[column] = value if column in RATE_COLUMNS else write_money(rng, dec(value))
        if rng.random() < 0.2:
            row_json.update(extra_columns(rng))
        if rng.random() < 0.2:
            row_json = shuffled(rng, row_json)
        tables[name] = row_json
    if rng.random() < 0.3:
        tables["2025-second-half"] = distractor_row(rng)
    if rng.random() < 0.05:
        tables["2027-first-half"] = distractor_row(rng)
    if rng.random() < 0.3:
        tables = shuffled(rng, tables)
    case["reference_tables"] = tables
    return Plan(rows=rows)


def perturbed_column(rng: random.Random, column: str) -> str:
    """A replacement value for one column of a case-supplied schedule."""
    if column == "rate":
        return rng.choice(RATE_CHOICES)
    if column == "middle_rate":
        return rng.choice(MIDDLE_RATE_CHOICES)
    if column == "upper_rate":
        return rng.choice(UPPER_RATE_CHOICES)
    if column == "cap":
        return format(rng.choice([cents_between(rng, Decimal(2000), Decimal(7000)),
                                  Decimal(rng.randint(2, 7) * 1000)]), "f")
    if column == "deduction":
        return rng.choice(["200.00", "250.50", "300.00", "350.00", "400.00", "500.00", "0.00", "349.99"])
    if column == "free":
        return format(cents_between(rng, Decimal(500), Decimal(1500)), "f")
    if column == "upper":
        return format(cents_between(rng, Decimal(2000), Decimal(4000)), "f")
    raise AssertionError(column)


def extra_columns(rng: random.Random) -> dict:
    return rng.choice([
        {"note": "fictional"},
        {"valid_from": "2026-01", "currency": "LCR"},
        {"rate_percent": RawNumber("5")},
        {"draft": False, "cap_old": "-1.00"},
    ])


def distractor_row(rng: random.Random) -> object:
    """Reading 1: an extra row is ignored, whatever it holds."""
    return rng.choice([
        {"rate": "0.03", "cap": "4500.00", "deduction": "250.00", "free": "900.00",
         "upper": "3100.00", "middle_rate": "0.09", "upper_rate": "0.21"},
        {"rate": RawNumber("0.03"), "cap": "45.001", "deduction": "-1"},
        {"rate": "0.03"},
        "see archive",
        None,
    ])


def draw_deduction(rng: random.Random, cap: Decimal):
    """A valid deduction up to `cap`, drawn before the gross pay."""
    roll = rng.random()
    if roll < 0.18:
        return ABSENT
    if roll < 0.24:
        return None
    if roll < 0.34:
        return cap
    if roll < 0.39:
        return max(cap - CENT, ZERO)
    if roll < 0.44:
        return Decimal("0.00")
    return cents_between(rng, ZERO, cap)


def put(case: dict, key: str, value, rng: random.Random) -> None:
    """Stores a field: ABSENT removes it, a Decimal is written as money."""
    if value is ABSENT:
        case.pop(key, None)
    elif isinstance(value, Decimal):
        case[key] = write_money(rng, value)
    else:
        case[key] = value


def gross_for_taxable(taxable: Decimal, deduction: Decimal, row: dict) -> Decimal:
    """Approximately inverts taxable = gross - contribution - deduction."""
    if row["rate"] < 1:
        below_cap = ((taxable + deduction) / (1 - row["rate"])).quantize(CENT)
        if below_cap <= row["cap"]:
            return below_cap
    return taxable + deduction + plan_contribution(row["cap"], row)


def random_2026_month(rng: random.Random) -> str:
    return month_text(COVERED_YEAR, rng.randint(1, 12))


def earlier_month(rng: random.Random, month: str) -> str:
    year, mon = int(month[:4]), int(month[5:])
    choice = rng.random()
    if choice < 0.35:
        return month  # Reading 13: the same month counts as "no later".
    if choice < 0.75 and mon > 1:
        return month_text(year, rng.randint(1, mon - 1))
    return month_text(rng.randint(2000, year - 1), rng.randint(1, 12))


def later_month(rng: random.Random, month: str) -> str:
    year, mon = int(month[:4]), int(month[5:])
    if rng.random() < 0.6 and mon < 12:
        return month_text(year, rng.randint(mon + 1, 12))
    return month_text(rng.randint(year + 1, 2099), rng.randint(1, 12))


def different_amount(rng: random.Random, gross: Decimal) -> Decimal:
    delta = rng.choice([CENT, Decimal("1.00"), Decimal("0.10"), cents_between(rng, CENT, Decimal(900))])
    if gross - delta >= 0 and rng.random() < 0.5:
        return gross - delta
    return gross + delta


def add_decorations(rng: random.Random, case: dict) -> None:
    """Keys of no input: a payslip's `field` must not change the answer
    (readings 9 and 19); the others are refused, at the first in the case."""
    if case.get("task") == "payslip" and rng.random() < 0.12:
        case["field"] = rng.choice(["contribution_rate", "deduction_cap", "bogus", RawNumber("3"), None])
    if rng.random() < 0.08:
        case["employee_id"] = f"E-{rng.randint(1, 999):03d}"
    if rng.random() < 0.05:
        case["upload_date"] = "2025-12-30"
    if rng.random() < 0.03:
        case["rulebook_version"] = RawNumber("3")


# --- Payslips -------------------------------------------------------------

PAYSLIP_BRANCHES = ("below_free", "middle_bracket", "upper_bracket", "above_cap", "on_cap",
                    "bracket_line", "taxable_zero", "zero_gross", "amendment_resolved")


def draw_payslip(rng: random.Random, case: dict, plan: Plan, branch: str | None = None) -> None:
    branch = branch or rng.choice(PAYSLIP_BRANCHES)
    month = random_2026_month(rng)
    row = plan_row(plan.rows, month)
    deduction = draw_deduction(rng, row["deduction"])
    d = deduction if isinstance(deduction, Decimal) else ZERO
    gross = payslip_gross(rng, branch, row, d)
    if branch == "bracket_line":
        gross, d = bracket_line_inputs(rng, row, d)
        deduction = d
    elif branch == "taxable_zero":
        gross, d = taxable_zero_inputs(rng, row)
        deduction = d
    elif branch == "zero_gross":
        deduction = rng.choice([ABSENT, None, Decimal("0.00")])
    if isinstance(deduction, Decimal) and deduction > gross - plan_contribution(gross, row):
        deduction = cents_between(rng, ZERO, gross - plan_contribution(gross, row))
    case["task"] = "payslip"
    put(case, "gross_pay", gross, rng)
    case["payroll_month"] = month
    put(case, "allowed_deduction", deduction, rng)
    if branch == "amendment_resolved":
        put(case, "contract_gross_pay", different_amount(rng, gross), rng)
        case["amendment"] = amendment(rng, gross, earlier_month(rng, month), True)
    else:
        roll = rng.random()
        if roll < 0.35:
            put(case, "contract_gross_pay", gross, rng)  # Equal by value (reading 12).
        elif roll < 0.42:
            case["contract_gross_pay"] = None
        if rng.random() < 0.2:
            case["amendment"] = unneeded_amendment(rng, gross, month)
    plan.tag = f"payslip:{branch}"


def payslip_gross(rng: random.Random, branch: str, row: dict, d: Decimal) -> Decimal:
    free, upper, cap = row["free"], row["upper"], row["cap"]
    if branch == "below_free":
        return gross_for_taxable(cents_between(rng, ZERO, max(free - CENT, ZERO)), d, row)
    if branch in ("middle_bracket", "amendment_resolved"):
        return gross_for_taxable(cents_between(rng, free + CENT, max(upper - CENT, free + CENT)), d, row)
    if branch == "upper_bracket":
        return gross_for_taxable(cents_between(rng, upper + CENT, upper + 4000), d, row)
    if branch == "above_cap":
        return cap + cents_between(rng, CENT, Decimal(6000))
    if branch == "on_cap":
        return cap
    return ZERO


def bracket_line_inputs(rng: random.Random, row: dict, d: Decimal) -> tuple[Decimal, Decimal]:
    """Gross and deduction with taxable pay exactly on `free` or `upper`."""
    line = rng.choice([row["free"], row["upper"]])
    estimate = gross_for_taxable(line, d, row)
    for step in range(400):
        gross = estimate + CENT * (step // 2) * (1 if step % 2 else -1)
        if gross < 0:
            continue
        deduction = gross - plan_contribution(gross, row) - line
        if ZERO <= deduction <= row["deduction"]:
            return gross, deduction
    return estimate, ZERO


def taxable_zero_inputs(rng: random.Random, row: dict) -> tuple[Decimal, Decimal]:
    """Deduction equal to gross minus contribution (the available-pay edge)."""
    for _ in range(50):
        gross = cents_between(rng, ZERO, row["deduction"] * 2)
        deduction = gross - plan_contribution(gross, row)
        if ZERO <= deduction <= row["deduction"]:
            return gross, deduction
    return ZERO, ZERO


def amendment(rng: random.Random, gross: Decimal, effective: str, approved) -> dict:
    value = {"gross_pay": write_money(rng, gross), "effective_month": effective, "approved": approved}
    if rng.random() < 0.1:
        value["note"] = "signed by HR"
    if rng.random() < 0.2:
        value = shuffled(rng, value)
    return value


def unneeded_amendment(rng: random.Random, gross: Decimal, month: str) -> dict:
    kind = rng.choice(["approved", "draft", "future", "different"])
    if kind == "approved":
        return amendment(rng, gross, earlier_month(rng, month), True)
    if kind == "draft":
        return amendment(rng, gross, earlier_month(rng, month), False)
    if kind == "future":
        return amendment(rng, gross, later_month(rng, month), True)
    return amendment(rng, different_amount(rng, gross), earlier_month(rng, month), True)


# --- Traps ----------------------------------------------------------------

TRAP_KINDS = ("gross_absent", "gross_null", "month_absent", "month_null", "past_year",
              "next_year", "other_year", "conflict_no_amendment", "conflict_draft",
              "conflict_future", "conflict_different_amount")


def draw_trap(rng: random.Random, case: dict, plan: Plan, kind: str | None = None) -> None:
    kind = kind or rng.choice(TRAP_KINDS)
    case["task"] = "payslip"
    gross = cents_between(rng, ZERO, Decimal(rng.choice([1500, 4000, 9000])))
    month = random_2026_month(rng)
    if kind in ("gross_absent", "gross_null"):
        gross = ABSENT if kind == "gross_absent" else None
        month = rng.choice([month, month, ABSENT, None, "2025-12", "2027-01"])
    elif kind in ("month_absent", "month_null"):
        month = ABSENT if kind == "month_absent" else None
    elif kind == "past_year":
        month = month_text(2025, rng.randint(1, 12))
    elif kind == "next_year":
        month = month_text(2027, rng.randint(1, 12))
    elif kind == "other_year":
        month = month_text(rng.choice([2000, 2001, 2019, 2030, 2050, 2099]), rng.randint(1, 12))
    put(case, "gross_pay", gross, rng)
    put(case, "payroll_month", month, rng)

    row = plan_row(plan.rows, month if isinstance(month, str) else None)
    cap = row["deduction"] if row else DEDUCTION_CAP_WITHOUT_ROW
    deduction = draw_deduction(rng, cap)
    if row and isinstance(gross, Decimal) and isinstance(deduction, Decimal):
        available = gross - plan_contribution(gross, row)
        if deduction > available:
            deduction = cents_between(rng, ZERO, available)
    put(case, "allowed_deduction", deduction, rng)

    if kind.startswith("conflict"):
        contract = different_amount(rng, gross)
        put(case, "contract_gross_pay", contract, rng)
        if kind == "conflict_draft":
            case["amendment"] = amendment(rng, gross, earlier_month(rng, month), False)
        elif kind == "conflict_future":
            case["amendment"] = amendment(rng, gross, later_month(rng, month), rng.random() < 0.8)
        elif kind == "conflict_different_amount":
            other = rng.choice([contract, different_amount(rng, gross)])
            case["amendment"] = amendment(rng, other, earlier_month(rng, month), True)
        elif rng.random() < 0.2:
            case["amendment"] = None
    elif isinstance(gross, Decimal) and rng.random() < 0.3:
        # A conflict behind an earlier blocker: the earlier reason wins.
        put(case, "contract_gross_pay", different_amount(rng, gross), rng)
    plan.tag = f"trap:{kind}"


# --- Retrievals -----------------------------------------------------------

def draw_retrieval(rng: random.Random, case: dict, plan: Plan) -> None:
    field = rng.choice(RETRIEVAL_FIELDS)
    month = random_2026_month(rng)
    row = plan_row(plan.rows, month)
    case["task"] = "retrieval"
    case["payroll_month"] = month
    case["field"] = field
    deduction = draw_deduction(rng, row["deduction"])
    roll = rng.random()
    if roll < 0.5:
        gross = cents_between(rng, ZERO, Decimal(8000))
        put(case, "gross_pay", gross, rng)
        if isinstance(deduction, Decimal) and deduction > gross - plan_contribution(gross, row):
            deduction = cents_between(rng, ZERO, gross - plan_contribution(gross, row))
        if rng.random() < 0.3:  # Reading 10: conflicts are ignored.
            put(case, "contract_gross_pay", different_amount(rng, gross), rng)
        if rng.random() < 0.15:
            case["amendment"] = unneeded_amendment(rng, gross, month)
    elif roll < 0.6:
        case["gross_pay"] = None
    put(case, "allowed_deduction", deduction, rng)
    plan.tag = f"retrieval:{field}"


# --- Faults ---------------------------------------------------------------

BAD_MONEY = ["-0.00", "-1.00", "1e3", "1E3", ".5", "5.", "1205.123", " 12", "12 ", "NaN",
             "Infinity", "", "1_000.00", "1,205.12", "+12.00", "12.00 LCR", "\u0661\u0662",
             "0x10", "12.3.4", "LCR 5", True, False, [], {}, RawNumber("1205.120"),
             RawNumber("1e3"), RawNumber("-5"), RawNumber("1.5E2"), RawNumber("-0"),
             RawNumber("-0.01"), RawNumber("0.125"), RawNumber("1E+2")]
BAD_MONTHS = ["2026-13", "2026-7", "1999-12", "2100-01", "202607", "2026-00", "2026/07", "26-07",
              " 2026-07", "2026-07 ", "2026-07-01", "", "July 2026", "\uff12\uff10\uff12\uff16-07",
              RawNumber("202607"), True, ["2026-07"], "1900-01", "2026-1"]
BAD_TASKS = [ABSENT, None, "Payslip", "calculate", "retrieve", "", RawNumber("1"), ["payslip"], True]
BAD_FIELDS = [ABSENT, None, "rate", "Contribution_rate", "contribution_rate ", "cap", "value",
              RawNumber("1"), True, ["deduction_cap"], "deduction"]
BAD_RATES = [RawNumber("0.05"), RawNumber("0"), "-0.05", "-0", "5%", ".05", "0.05.1", "", " 0.05",
             "1e-2", "NaN", True, ["0.05"], "0,05", "+0.05"]
NON_OBJECT_CASES = [[], "x", RawNumber("42"), None, True, [{"task": "payslip"}], "{}"]


def fault_task(rng, case, plan):
    put(case, "task", rng.choice(BAD_TASKS), rng)


def fault_gross_pay(rng, case, plan):
    case["gross_pay"] = rng.choice(BAD_MONEY)


def fault_payroll_month(rng, case, plan):
    case["payroll_month"] = rng.choice(BAD_MONTHS)


def fault_allowed_deduction(rng, case, plan):
    case["allowed_deduction"] = rng.choice(BAD_MONEY)


def fault_contract(rng, case, plan):
    case["contract_gross_pay"] = rng.choice(BAD_MONEY)


def fault_amendment(rng, case, plan):
    current = case.get("amendment")
    if not isinstance(current, dict):
        current = amendment(rng, Decimal("1000.00"), "2026-01", True)
    current = dict(current)
    kind = rng.choice(["non_object", "missing", "null", "approved", "month", "gross"])
    if kind == "non_object":
        case["amendment"] = rng.choice([[], "approved", True, RawNumber("1"), [current]])
        return
    key = rng.choice(["gross_pay", "effective_month", "approved"])
    if kind == "missing":
        current.pop(key, None)
    elif kind == "null":
        current[key] = None
    elif kind == "approved":
        current["approved"] = rng.choice(["true", "yes", RawNumber("1"), RawNumber("0"), "false", []])
    elif kind == "month":
        current["effective_month"] = rng.choice(BAD_MONTHS)
    else:
        current["gross_pay"] = rng.choice(BAD_MONEY)
    case["amendment"] = current


def fault_reference_tables(rng, case, plan):
    tables = case.get("reference_tables")
    if not isinstance(tables, dict):
        tables = {name: dict(row) for name, row in DEFAULT_REFERENCE_TABLES.items()}
    tables = {name: (dict(row) if isinstance(row, dict) else row) for name, row in tables.items()}
    kind = rng.choice(["non_object", "missing_row", "null_row", "row_not_object", "missing_column",
                       "null_column", "bad_rate", "bad_rate", "bad_money", "bad_money"])
    name = rng.choice(ROW_NAMES)
    column = rng.choice(COLUMNS)
    if not isinstance(tables.get(name), dict):
        tables[name] = dict(DEFAULT_REFERENCE_TABLES[name])
    if kind == "non_object":
        case["reference_tables"] = rng.choice([[], "default", RawNumber("2026"), True])
        return
    if kind == "missing_row":
        tables.pop(name, None)
    elif kind == "null_row":
        tables[name] = None
    elif kind == "row_not_object":
        tables[name] = rng.choice([[], "0.05", RawNumber("1"), [dict(DEFAULT_REFERENCE_TABLES[name])]])
    elif kind == "missing_column":
        tables[name].pop(column, None)
    elif kind == "null_column":
        tables[name][column] = None
    elif kind == "bad_rate":
        tables[name][rng.choice(RATE_COLUMNS)] = rng.choice(BAD_RATES)
    else:
        tables[name][rng.choice(["cap", "deduction", "free", "upper"])] = rng.choice(BAD_MONEY)
    case["reference_tables"] = tables


def fault_field(rng, case, plan):
    case["task"] = "retrieval"
    put(case, "field", rng.choice(BAD_FIELDS), rng)


def fault_deduction_cap(rng, case, plan):
    """R4: just above the cap of the row, or above 350.00 without a row."""
    month = case.get("payroll_month")
    row = plan_row(plan.rows, month if isinstance(month, str) else None)
    cap = row["deduction"] if row else DEDUCTION_CAP_WITHOUT_ROW
    excess = rng.choice([CENT, CENT, Decimal("0.50"), cents_between(rng, CENT, Decimal(200))])
    put(case, "allowed_deduction", cap + excess, rng)


def fault_available_pay(rng, case, plan):
    """R4/reading 7: under the cap but above gross minus contribution."""
    month = case.get("payroll_month")
    if plan_row(plan.rows, month if isinstance(month, str) else None) is None:
        month = random_2026_month(rng)
        case["payroll_month"] = month
    row = plan_row(plan.rows, month)
    if row["deduction"] < CENT:
        return
    gross = cents_between(rng, ZERO, row["deduction"] - CENT)
    available = gross - plan_contribution(gross, row)
    put(case, "gross_pay", gross, rng)
    put(case, "allowed_deduction", cents_between(rng, available + CENT, row["deduction"]), rng)


def fault_retrieval_month(rng, case, plan):
    """Reading 10: a retrieval month that is missing, null or outside 2026."""
    case["task"] = "retrieval"
    if case.get("field") not in RETRIEVAL_FIELDS:
        case["field"] = rng.choice(RETRIEVAL_FIELDS)
    put(case, "payroll_month", rng.choice([ABSENT, None, "2025-12", "2025-07", "2027-01",
                                           "2000-01", "2099-12"]), rng)
    # Keep a valid deduction under the no-row cap, so that the month is the fault.
    deduction = case.get("allowed_deduction")
    text = deduction.text if isinstance(deduction, RawNumber) else deduction
    if isinstance(text, str) and MONEY_SYNTAX.fullmatch(text) and Decimal(text) > DEDUCTION_CAP_WITHOUT_ROW:
        put(case, "allowed_deduction", cents_between(rng, ZERO, DEDUCTION_CAP_WITHOUT_ROW), rng)


FAULTS = [
    (fault_task, 7), (fault_gross_pay, 10), (fault_payroll_month, 10),
    (fault_allowed_deduction, 7), (fault_contract, 6), (fault_amendment, 10),
    (fault_reference_tables, 14), (fault_field, 7), (fault_deduction_cap, 10),
    (fault_available_pay, 10), (fault_retrieval_month, 8),
]


def draw_valid(rng: random.Random, case: dict, plan: Plan) -> None:
    roll = rng.random()
    if roll < 0.25:
        draw_retrieval(rng, case, plan)
    elif roll < 0.62:
        draw_payslip(rng, case, plan)
    else:
        draw_trap(rng, case, plan)
    add_decorations(rng, case)


def generate_tagged(rng: random.Random, i: int) -> tuple[str, str]:
    """One case as JSON text, with the generator's intent as a tag."""
    if rng.random() < 0.02:
        return dump_json(rng.choice(NON_OBJECT_CASES)), "invalid:non_object"
    case: dict = {}
    plan = draw_schedule(rng, case)
    draw_valid(rng, case, plan)
    if rng.random() < 0.40:
        n_faults = 1 if rng.random() < 0.7 else rng.randint(2, 3)
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
# Comparison with the engine
# ---------------------------------------------------------------------------

def outcome_key(expected: dict) -> str:
    """A coarse label of an answer, for the distribution report."""
    if "error" in expected:
        path = re.sub(r"^reference_tables\.[^.]+", "reference_tables.<row>", expected["error"]["path"])
        return f"error {path}"
    decision = expected["decision"]
    if decision == "calculate":
        return "calculate +R9" if AMENDMENT_CLAUSE in expected["clauses"] else "calculate"
    if decision == "clarify":
        return f"clarify {expected['reason_code']}"
    return f"retrieve {expected['field']}"


def print_distribution(cases, out) -> None:
    harness.print_distribution(cases, out, outcome_key, intents, "generator intents:")


def intents(cases) -> collections.Counter:
    """The generator's intent of each case, its first fault for an invalid one."""
    return collections.Counter(tag.split("+")[0] for _, tag, _ in cases)


# ---------------------------------------------------------------------------
# Self-test on hand-computed examples
# ---------------------------------------------------------------------------

def self_test() -> None:
    def check(text: str, expected: dict) -> None:
        actual = evaluate(parse_case(text))
        if "error" in expected:
            assert actual.get("error", {}).get("path") == expected["error"], (text, actual)
        else:
            assert actual == expected and list(actual) == list(expected), (text, actual, expected)

    def payslip_answer(*amounts, clauses=CALCULATE_CLAUSES):
        gross, contribution, deduction, taxable, tax, net = amounts
        return {"decision": "calculate", "currency": "LCR", "gross_pay": gross,
                "employee_contribution": contribution, "allowed_deduction": deduction,
                "taxable_pay": taxable, "income_tax": tax, "net_pay": net, "clauses": clauses}

    # Reading 19, the spec's example: second-half; 0.04 x 1205.12 = 48.2048 -> 48.20;
    # taxable 1205.12 - 48.20 - 74.70 = 1082.22 < free 1100 -> tax 0.00; net 1082.22.
    example = ('{"task": "payslip", "gross_pay": "1205.12", "payroll_month": "2026-07", '
               '"allowed_deduction": "74.70", "contract_gross_pay": "1205.12", '
               '"amendment": {"gross_pay": "1205.12", "effective_month": "2026-05", "approved": true}, '
               '"field": "contribution_rate"}')
    check(example, payslip_answer("1205.12", "48.20", "74.70", "1082.22", "0.00", "1082.22"))

    # Middle bracket, first-half: 0.05 x 2500 = 125.00; taxable 2500 - 125 - 150 = 2225.00;
    # tax 0.10 x (2225 - 1000) = 122.50; net 2500 - 125 - 150 - 122.50 = 2102.50.
    check('{"task": "payslip", "gross_pay": "2500", "payroll_month": "2026-03", "allowed_deduction": 150}',
          payslip_answer("2500.00", "125.00", "150.00", "2225.00", "122.50", "2102.50"))

    # Upper bracket above the cap, second-half: 0.04 x min(6000, 5000) = 200.00;
    # taxable 6000 - 200 - 350 = 5450.00; tax 0.08 x (3000 - 1100) = 152.00
    # + 0.20 x (5450 - 3000) = 490.00 -> 642.00; net 5450 - 642 = 4808.00.
    check('{"task": "payslip", "gross_pay": "6000.00", "payroll_month": "2026-09", "allowed_deduction": "350.00"}',
          payslip_answer("6000.00", "200.00", "350.00", "5450.00", "642.00", "4808.00"))

    # Half-up on both roundings: 0.05 x 1234.50 = 61.725 -> 61.73; taxable 1172.77;
    # tax 0.10 x 172.77 = 17.277 -> 17.28; net 1234.50 - 61.73 - 17.28 = 1155.49.
    check('{"task": "payslip", "gross_pay": 1234.5, "payroll_month": "2026-02"}',
          payslip_answer("1234.50", "61.73", "0.00", "1172.77", "17.28", "1155.49"))

    # Taxable exactly on the upper line, second-half: 0.04 x 3489.58 = 139.5832 -> 139.58;
    # taxable 3489.58 - 139.58 - 350 = 3000.00; tax 0.08 x 1900 = 152.00; net 2848.00.
    check('{"task": "payslip", "gross_pay": "3489.58", "payroll_month": "2026-11", "allowed_deduction": "350"}',
          payslip_answer("3489.58", "139.58", "350.00", "3000.00", "152.00", "2848.00"))

    # Gross exactly on the first-half cap: 0.05 x 4800 = 240.00; taxable 4800 - 240 - 300 = 4260.00;
    # tax 0.10 x 2300 = 230 + 0.22 x 960 = 211.20 -> 441.20; net 4260 - 441.20 = 3818.80.
    check('{"task": "payslip", "gross_pay": "4800.00", "payroll_month": "2026-06", "allowed_deduction": "300.00"}',
          payslip_answer("4800.00", "240.00", "300.00", "4260.00", "441.20", "3818.80"))

    # Conflict resolved by a same-month approved amendment equal by value: R9 cited.
    # 0.04 x 1500.10 = 60.004 -> 60.00; taxable 1440.10; tax 0.08 x 340.10 = 27.208 -> 27.21;
    # net 1440.10 - 27.21 = 1412.89.
    check('{"task": "payslip", "gross_pay": "1500.1", "payroll_month": "2026-08", "contract_gross_pay": "1400.00",'
          ' "amendment": {"gross_pay": "1500.10", "effective_month": "2026-08", "approved": true}}',
          payslip_answer("1500.10", "60.00", "0.00", "1440.10", "27.21", "1412.89",
                         clauses=CALCULATE_CLAUSES + ["R9"]))

    # Case schedule with a 0.035 rate and a distractor row; upper bracket, rates unrounded:
    # 0.035 x 4000 = 140.00; taxable 3860.00; 0.10 x 2300 = 230 + 0.22 x 560 = 123.2 -> 353.20.
    tables = dict(DEFAULT_REFERENCE_TABLES)
    tables["first-half"] = dict(tables["first-half"], rate="0.035", extra="x")
    tables["2025-second-half"] = {"rate": RawNumber("9")}
    check(dump_json({"task": "payslip", "gross_pay": "4000.00", "payroll_month": "2026-01",
                     "reference_tables": tables}),
          payslip_answer("4000.00", "140.00", "0.00", "3860.00", "353.20", "3506.80"))

    # Clarifications and their order.
    check('{"task": "payslip", "gross_pay": null, "payroll_month": "2025-01"}', clarify("MISSING_GROSS_PAY"))
    check('{"task": "payslip", "gross_pay": "10"}', clarify("MISSING_PAYROLL_MONTH"))
    check('{"task": "payslip", "gross_pay": "10", "payroll_month": "2027-01", "contract_gross_pay": "11"}',
          clarify("NO_APPLICABLE_REFERENCE"))
    for amendment_json in ('null', '{"gross_pay": "10", "effective_month": "2026-05", "approved": false}',
                           '{"gross_pay": "10", "effective_month": "2026-06", "approved": true}',
                           '{"gross_pay": "11", "effective_month": "2026-01", "approved": true}'):
        check('{"task": "payslip", "gross_pay": "10.00", "payroll_month": "2026-05", "contract_gross_pay": "11",'
              f' "amendment": {amendment_json}}}', clarify("CONFLICTING_GROSS_PAY"))
    # Reading 8: no row -> cap 350.00, even with a case schedule capping at 300.00.
    check('{"task": "payslip", "gross_pay": "100", "payroll_month": "2025-03", "allowed_deduction": "340"}',
          clarify("NO_APPLICABLE_REFERENCE"))

    # Retrievals (reading 11).
    check('{"task": "retrieval", "payroll_month": "2026-07", "field": "contribution_rate"}',
          {"decision": "retrieve", "field": "contribution_rate", "value": "0.04", "clauses": ["R1", "R3"]})
    tables = {name: dict(row) for name, row in DEFAULT_REFERENCE_TABLES.items()}
    tables["second-half"].update(rate="0.040", cap=RawNumber("5200"))
    check(dump_json({"task": "retrieval", "payroll_month": "2026-12", "field": "contribution_rate",
                     "reference_tables": tables}),
          {"decision": "retrieve", "field": "contribution_rate", "value": "0.040", "clauses": ["R1", "R3"]})
    check(dump_json({"task": "retrieval", "payroll_month": "2026-12", "field": "contribution_cap",
                     "reference_tables": tables}),
          {"decision": "retrieve", "field": "contribution_cap", "value": "5200.00", "clauses": ["R1", "R3"]})
    check('{"task": "retrieval", "payroll_month": "2026-01", "field": "deduction_cap", "gross_pay": "5",'
          ' "contract_gross_pay": "6"}',
          {"decision": "retrieve", "field": "deduction_cap", "value": "300.00", "clauses": ["R1", "R4"]})

    # Dataset errors.
    errors = [
        ('[]', "$"), ('"x"', "$"),
        ('{"gross_pay": "1e3"}', "task"),
        ('{"task": "payslip", "gross_pay": "1e3", "payroll_month": "2026-13"}', "gross_pay"),
        ('{"task": "payslip", "gross_pay": 1205.120}', "gross_pay"),
        ('{"task": "payslip", "gross_pay": 1e3}', "gross_pay"),
        ('{"task": "payslip", "gross_pay": "-0.00"}', "gross_pay"),
        ('{"task": "payslip", "gross_pay": true}', "gross_pay"),
        ('{"task": "payslip", "payroll_month": "2026-7"}', "payroll_month"),
        ('{"task": "payslip", "payroll_month": "2100-01"}', "payroll_month"),
        ('{"task": "payslip", "allowed_deduction": "5."}', "allowed_deduction"),
        ('{"task": "payslip", "contract_gross_pay": " 12"}', "contract_gross_pay"),
        ('{"task": "payslip", "amendment": []}', "amendment"),
        ('{"task": "payslip", "amendment": {"gross_pay": "1", "effective_month": "2026-01", "approved": "true"}}',
         "amendment.approved"),
        ('{"task": "payslip", "amendment": {"gross_pay": "1", "approved": true}}', "amendment.effective_month"),
        # Key by key: the bad gross_pay comes before the missing effective_month.
        ('{"task": "payslip", "amendment": {"gross_pay": "1.001", "approved": true}}', "amendment.gross_pay"),
        ('{"task": "payslip", "amendment": {"gross_pay": "1", "effective_month": "1999-12", "approved": true}}',
         "amendment.effective_month"),
        ('{"task": "payslip", "reference_tables": {"first-half": {}}}', "reference_tables.first-half.rate"),
        ('{"task": "payslip", "reference_tables": {"second-half": {}}}', "reference_tables.first-half"),
        ('{"task": "retrieval", "payroll_month": "2026-01"}', "field"),
        ('{"task": "retrieval", "payroll_month": "2026-01", "field": "deduction_cap", "allowed_deduction": "300.01"}',
         "allowed_deduction"),
        # Reading 8: the row's cap applies even without gross pay.
        ('{"task": "payslip", "payroll_month": "2026-03", "allowed_deduction": "320.00"}', "allowed_deduction"),
        ('{"task": "payslip", "allowed_deduction": "350.01"}', "allowed_deduction"),
        # Reading 7: 100 - 5.00 = 95.00 available, also for a conflict trap.
        ('{"task": "payslip", "gross_pay": "100", "payroll_month": "2026-01", "allowed_deduction": "95.01",'
         ' "contract_gross_pay": "200"}', "allowed_deduction"),
        ('{"task": "retrieval", "payroll_month": "2025-01", "field": "deduction_cap"}', "payroll_month"),
        ('{"task": "retrieval", "field": "deduction_cap", "allowed_deduction": "351"}', "allowed_deduction"),
    ]
    for text, path in errors:
        check(text, {"error": path})
    rate_number = {name: dict(row) for name, row in DEFAULT_REFERENCE_TABLES.items()}
    rate_number["second-half"]["middle_rate"] = RawNumber("0.08")
    check(dump_json({"task": "payslip", "reference_tables": rate_number}),
          {"error": "reference_tables.second-half.middle_rate"})
    rate_number["second-half"]["middle_rate"] = "-0.08"
    check(dump_json({"task": "payslip", "reference_tables": rate_number}),
          {"error": "reference_tables.second-half.middle_rate"})

    # The generator is deterministic and its output always parses.
    def sample(seed: int) -> list[str]:
        rng = random.Random(seed)
        return [generate(rng, i) for i in range(300)]

    assert sample(7) == sample(7) and sample(7) != sample(8)
    for text in sample(3):
        evaluate(parse_case(text))
    print("self-test: ok")


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = harness.cli_parser(__doc__, "rulebooks/luma-payroll/v3")
    args = parser.parse_args(argv)

    if args.self_test:
        self_test()
        return 0
    if args.tasks:
        return harness.run_tasks(args.tasks, "luma-payroll", evaluate, ensure_ascii=False,
                                 bareme=args.bareme, rulebook=args.rulebook)
    cases = harness.generate_cases(args.n, args.seed, generate_tagged, evaluate)
    return harness.dump_or_run(parser, args, cases, print_distribution)


if __name__ == "__main__":
    sys.exit(main())
