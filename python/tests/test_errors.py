"""Every error kind raised with its fields, and nothing from input crosses
the boundary as a panic."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

import bareme

LUMA = bareme.rulebook_path("luma-payroll/v3")

FAULTY = """[rulebook]
id = "fault-demo"
version = 1
schema = 1

[clauses]
R1 = "One."

[inputs.x]
type = "decimal"
required = true

[[checks]]
decision = "ok"

[decisions.ok]
clauses = ["R1"]

[decisions.ok.answer]
money = { expr = "x", format = "money" }
"""


def test_a_rulebook_with_problems_lists_them(tmp_path: Path):
    f = tmp_path / "rulebook.toml"
    f.write_text("[rulebook]\nid = 3\n")
    with pytest.raises(bareme.RulebookError) as err:
        bareme.Rulebook.load(f)
    (d,) = err.value.diagnostics
    assert d["code"] == "load::toml"
    assert (d["file"], d["line"], d["column"]) == (str(f), 2, 6)
    assert isinstance(err.value, bareme.BaremeError)


def test_a_missing_rulebook_is_a_rulebook_error(tmp_path: Path):
    with pytest.raises(bareme.RulebookError) as err:
        bareme.Rulebook.load(tmp_path / "nowhere")
    (d,) = err.value.diagnostics
    assert d["code"] == "load::io" and d["line"] is None and d["column"] is None


def test_a_generator_or_rubric_with_problems(tmp_path: Path):
    for cls in (bareme.Generator, bareme.Rubric):
        f = tmp_path / "broken.toml"
        f.write_text("[generator\n")
        with pytest.raises(bareme.RulebookError) as err:
            cls.load(f, rulebook=LUMA)
        (d,) = err.value.diagnostics
        assert (d["file"], d["line"]) == (str(f), 1), d
        # Its rulebook missing: the rulebook's own path is named.
        with pytest.raises(bareme.RulebookError) as err:
            cls.load(f, rulebook=tmp_path / "nowhere")
        (d,) = err.value.diagnostics
        assert d["code"] == "load::io" and d["file"] == str(tmp_path / "nowhere"), d


def test_a_rejected_case_names_its_path():
    rb = bareme.Rulebook.load(LUMA)
    with pytest.raises(bareme.CaseRejected) as err:
        rb.evaluate({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-13"})
    assert err.value.path == "payroll_month"
    assert err.value.message
    for bad in ("{", "[]", b"\xff", "\ufeff{}"):
        with pytest.raises(bareme.CaseRejected) as err:
            rb.evaluate(bad)
        assert err.value.path == "$"
    with pytest.raises(bareme.CaseRejected, match="duplicate key") as err:
        rb.evaluate('{"a": 1, "a": 2}')
    assert err.value.path == "a"


def test_a_float_is_refused_with_its_path():
    rb = bareme.Rulebook.load(LUMA)
    with pytest.raises(bareme.CaseRejected, match="money is never a float") as err:
        rb.evaluate({"task": "payslip", "gross_pay": 2500.0, "payroll_month": "2026-03"})
    assert err.value.path == "gross_pay"
    with pytest.raises(bareme.CaseRejected) as err:
        rb.evaluate({"items": [{"x": 1.5}]})
    assert err.value.path == "items[0].x"
    # In a batch, the float's case is an error line and the others are answered.
    out = rb.evaluate_batch(
        [{"gross_pay": 1.0}, {"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"}]
    )
    assert out[0]["error"]["path"] == "gross_pay"
    assert out[1]["net_pay"] == "2237.50"


def test_values_that_are_no_json_are_refused():
    rb = bareme.Rulebook.load(LUMA)
    loop: list = []
    loop.append(loop)
    for bad in ({"a": object()}, {1: "x"}, {"a": loop}, {"a": Decimal("NaN")}):
        with pytest.raises(bareme.CaseRejected):
            rb.evaluate(bad)


def test_a_fault_of_the_rulebook(tmp_path: Path):
    f = tmp_path / "rulebook.toml"
    f.write_text(FAULTY)
    rb = bareme.Rulebook.load(f)
    assert rb.evaluate({"x": "12.5"}) == {"money": "12.50"}
    with pytest.raises(bareme.RulebookFault, match="more than 2 decimals"):
        rb.evaluate({"x": "1.005"})
    (line,) = rb.evaluate_batch([{"x": "1.005"}])
    assert line["error"]["path"] == "$"


def test_score_errors():
    rub = bareme.Rubric.load(bareme.rulebook_path("luma-payroll/rubric-8.toml"))
    gen = bareme.Generator.load(bareme.rulebook_path("luma-payroll/generator-4.toml"))
    (task,) = gen.generate(1, 1)
    with pytest.raises(ValueError, match="between 0 and 1"):
        rub.score(task, "x", explanation_grade=2)
    other = dict(task, rulebook_hash="0" * 64)
    with pytest.raises(ValueError, match="written for"):
        rub.score(other, "x")
    with pytest.raises(ValueError):
        rub.score({"id": "t"}, "x")
    # Half a surrogate pair is no text: the reply's floor, not an exception.
    lone = rub.score(task, '{"decision": "\ud800"}')
    assert lone["malformed"] == "reply::lone_surrogate"
    assert lone["score"] == rub.score(task, "x")["score"]


def test_a_batch_is_a_list_of_cases():
    rb = bareme.Rulebook.load(LUMA)
    with pytest.raises(TypeError):
        rb.evaluate_batch('{"task": "payslip"}')
    assert rb.evaluate_batch([]) == []
    with pytest.raises(ValueError):
        rb.evaluate_batch(["{}"], ablate=["no_such"])


def test_a_batch_of_dicts_over_many_chunks_is_each_case_in_order():
    """Dict cases are written and evaluated a chunk at a time (256), the
    evaluation overlapping the writing: over a thousand cases, refused ones
    among them, each line is the case's own, in order, on one worker or two;
    a case the iterable cannot give stops the batch with its exception."""
    rb = bareme.Rulebook.load(LUMA)
    gen = bareme.Generator.load(bareme.rulebook_path("luma-payroll/generator-4.toml"))
    texts = [json.dumps(t["case"]) for t in map(json.loads, gen.generate_json(300, 11))]
    cases: list = []
    for i, text in enumerate(texts * 4):
        case = json.loads(text, parse_float=Decimal)
        if i % 97 == 5:
            case["gross_pay"] = 1.5  # refused: its own error line
        elif i % 89 == 7:
            case = {1: "x"}
        cases.append(case)
    want = [rb.evaluate_batch_json([c], jobs=1)[0] for c in cases]
    assert sum('"message":"a Python float (1.5)' in line for line in want) == 13
    assert sum(line.startswith('{"error":{"path":"$","message":"an object') for line in want) == 14
    for jobs in (1, 2):
        assert rb.evaluate_batch_json(cases, jobs=jobs) == want
        assert rb.evaluate_batch_json(iter(cases), jobs=jobs) == want
        assert rb.evaluate_batch(cases, jobs=jobs) == [json.loads(w, parse_float=Decimal) for w in want]

    def broken():
        yield from cases[:600]
        raise KeyError("the source failed")

    with pytest.raises(KeyError, match="the source failed"):
        rb.evaluate_batch(broken(), jobs=2)


SQUARED = """[rulebook]
id = "squared"
version = 1
schema = 1

[inputs.xs]
type = "list"
required = true
items = { type = "decimal", numbers = "plain" }

[inputs.t]
type = "text"
required = true
max_length = 100000

[steps.items]
expr = "xs"

[per_item.g]
over = "items"
item = "x"

[per_item.g.steps.z]
expr = "t"

[steps.total]
expr = "count(g.z)"

[[checks]]
decision = "d"

[decisions.d.answer]
total = { expr = "total" }
"""


def test_a_trace_past_its_bytes_is_a_fault_and_the_case_answers_untraced(tmp_path: Path):
    # Each of 2,500 items' steps gives a 100 KB text: 500 MB of JSON, over
    # the 48 MiB a trace may take.
    f = tmp_path / "rulebook.toml"
    f.write_text(SQUARED)
    rb = bareme.Rulebook.load(f)
    case = {"xs": ["1"] * 2500, "t": "t" * 100_000}
    assert rb.evaluate(case) == {"total": "2500"}
    with pytest.raises(bareme.RulebookFault, match="over 48 MiB"):
        rb.evaluate(case, trace=True)
    (line,) = rb.evaluate_batch([case], trace=True)
    assert line["error"]["path"] == "$"
    assert line["error"]["message"].startswith("the trace's JSON is over 48 MiB")
