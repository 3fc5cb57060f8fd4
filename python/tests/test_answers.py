"""Answers given as dicts (`evaluate`, `evaluate_batch`) are built from the
typed answer, not read back from its line: each must be what `json.loads`
(fractions as `Decimal`) reads from the line `evaluate_json` and
`evaluate_batch_json` give, value, type, digits and key order alike.

Python's `==` cannot see the difference (`Decimal("1.0") == Decimal("1.00")
== 1 == True`), so answers are compared by `exact`, which can."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

import bareme
from conftest import RULEBOOKS


def exact(value):
    """A value spelt with its types: every digit of a `Decimal`, `int`
    apart from `bool`, and a dict's keys in order."""
    if isinstance(value, dict):
        return ("dict", [(k, exact(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [exact(v) for v in value])
    return (type(value).__name__, str(value))


def test_exact_tells_apart_what_equality_does_not():
    assert exact(Decimal("1.0")) != exact(Decimal("1.00"))
    assert exact(1) != exact(True) and exact(1) != exact(Decimal("1"))
    assert exact({"a": 1, "b": 2}) != exact({"b": 2, "a": 1})


GENERATORS = sorted(RULEBOOKS.glob("*/generator-*.toml"))
# The version each set's generators are written against.
VERSION = {"luma-payroll": "v3", "paie-fr": "v2026", "succession-fr": "v2026", "sales-tax": "v1"}


@pytest.mark.parametrize("path", GENERATORS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_dict_answers_are_their_lines_as_json_loads_reads_them(path):
    gen = bareme.Generator.load(path)
    tasks = gen.generate(120, 11)
    rb = bareme.Rulebook.load(RULEBOOKS / path.parent.name / VERSION[path.parent.name])
    cases = [t["case"] for t in tasks]
    # A case that is refused, and one that is no case at all, among them.
    cases += [{"no_such_input": "1"}, "[]"]
    lines = rb.evaluate_batch_json(cases, jobs=2)
    want = [exact(json.loads(line, parse_float=Decimal)) for line in lines]
    for jobs in (1, 2):
        assert [exact(a) for a in rb.evaluate_batch(cases, jobs=jobs)] == want
    answered = 0
    for case, line in zip(cases, lines):
        if line.startswith('{"error"'):
            with pytest.raises(bareme.CaseRejected):
                rb.evaluate(case)
            continue
        assert exact(rb.evaluate(case)) == exact(json.loads(line, parse_float=Decimal))
        answered += 1
    assert answered > 0


def test_every_format_is_built_as_its_line_reads():
    # Every format an answer value takes, keyed items among them.
    rb = bareme.Rulebook.load(RULEBOOKS.parent / "tests" / "formats")
    cases = [
        {"items": [{"id": "a", "amount": "1.25"}, {"id": 'b"\né', "amount": "4.25"}],
         "day": "2026-03-01", "note": "tab\there é"},
        {"items": [{"id": "a", "amount": "-0.5"}], "day": "2026-02-28"},
        # A repeated key: the rulebook's fault, an error item.
        {"items": [{"id": "a", "amount": "1"}, {"id": "a", "amount": "2"}], "day": "2026-03-01"},
    ]
    lines = rb.evaluate_batch_json(cases)
    assert json.loads(lines[0])["by_id"]["a"]["exact"] == 2.5
    got = rb.evaluate_batch(cases)
    assert [exact(a) for a in got] == [exact(json.loads(l, parse_float=Decimal)) for l in lines]
    assert type(got[0]["by_id"]["a"]["exact"]) is Decimal and type(got[0]["total"]) is int
    assert type(got[0]["big"]) is bool and got[2]["error"]["path"] == "$"
    assert exact(rb.evaluate(cases[0])) == exact(got[0])


def test_the_collector_is_left_as_it_was_found():
    import gc

    rb = bareme.Rulebook.load(RULEBOOKS / "luma-payroll" / "v3")
    case = {"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"}
    assert gc.isenabled()
    assert rb.evaluate_batch([case, "{"])[0]["net_pay"] == "2237.50"
    assert gc.isenabled()
    with pytest.raises(TypeError):
        rb.evaluate_batch("not a list")
    assert gc.isenabled()
    gc.disable()
    try:
        rb.evaluate_batch([case])
        assert not gc.isenabled()
    finally:
        gc.enable()
