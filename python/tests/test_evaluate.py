"""`Rulebook.evaluate` against `bareme eval`, byte for byte, on every
conformance case of every bundled rulebook, and `evaluate_batch` against
`eval --batch` (untraced and traced)."""

from __future__ import annotations

import json
import re
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest

import bareme
from conftest import run_cli, versions


def cases_of(version: Path) -> list[tuple[str, dict]]:
    out = []
    for f in sorted((version / "cases").glob("*.toml")) if (version / "cases").is_dir() else []:
        out.append((f.name, tomllib.loads(f.read_text())))
    return out


VERSIONS = [v for v in versions() if cases_of(v)]


def ablate_of(case: dict) -> list[str] | None:
    a = case.get("ablation")
    return [x.strip() for x in a.split(",")] if a else None


@pytest.mark.parametrize("version", VERSIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_evaluate_is_bareme_eval_byte_for_byte(version: Path, tmp_path: Path):
    rb = bareme.Rulebook.load(version)
    answered = rejected = 0
    for name, case in cases_of(version):
        text = case["case"]
        ablate = ablate_of(case)
        f = tmp_path / "case.json"
        f.write_text(text)
        args = ["eval", str(version), str(f)] + (["--ablate", ",".join(ablate)] if ablate else [])
        cli = run_cli(*args)
        if cli.returncode == 0:
            line = cli.stdout.rstrip("\n")
            assert rb.evaluate_json(text, ablate=ablate) == line, name
            got = rb.evaluate(text, ablate=ablate)
            want = json.loads(line, parse_float=Decimal)
            assert got == want and list(got) == list(want), name
            assert "answer" in case["expect"], name
            answered += 1
        else:
            assert cli.returncode == 2, (name, cli.stderr)
            with pytest.raises(bareme.CaseRejected) as err:
                rb.evaluate(text, ablate=ablate)
            expected = case["expect"]["error"]
            assert err.value.path == expected["path"], name
            assert f"rejected: {err.value.path}: {err.value.message}" in cli.stderr, name
            rejected += 1
    assert answered > 0 and answered + rejected == len(cases_of(version))


@pytest.mark.parametrize("version", VERSIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.parametrize("trace", [False, True])
def test_evaluate_batch_is_eval_batch(version: Path, trace: bool, tmp_path: Path):
    rb = bareme.Rulebook.load(version)
    plain = [c["case"].replace("\n", " ") for _, c in cases_of(version) if not c.get("ablation")]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(line + "\n" for line in plain))
    args = ["eval", str(version), "--batch", str(batch)] + (["--trace", "json"] if trace else [])
    cli = run_cli(*args)
    assert cli.returncode == 0, cli.stderr
    want = cli.stdout.splitlines()
    for jobs in (1, 2):
        assert rb.evaluate_batch_json(plain, jobs=jobs, trace=trace) == want
    got = rb.evaluate_batch(plain, trace=trace)
    assert got == [json.loads(line, parse_float=Decimal) for line in want]


@pytest.mark.parametrize("version", VERSIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_dict_case_reads_as_its_text(version: Path):
    """A case given as a dict (numbers as Decimal, as json.loads reads them
    exactly) gives the answer its JSON text gives."""
    rb = bareme.Rulebook.load(version)
    for name, case in cases_of(version):
        text, ablate = case["case"], ablate_of(case)
        if re.search(r"\d[eE][+-]?\d", text):
            continue  # Decimal("5.25e-2") writes 0.0525: only the text keeps an exponent
        try:
            as_dict = json.loads(text, parse_float=Decimal)
        except ValueError:
            continue
        try:
            want = rb.evaluate_json(text, ablate=ablate)
        except bareme.CaseRejected as e:
            if e.path == "$":  # a key given twice: the dict has lost it
                continue
            with pytest.raises(bareme.CaseRejected) as err:
                rb.evaluate(as_dict, ablate=ablate)
            assert (err.value.path, err.value.message) == (e.path, e.message), name
            continue
        assert rb.evaluate_json(as_dict, ablate=ablate) == want, name


def test_a_traced_answer_is_eval_trace_json(tmp_path: Path):
    version = Path(bareme.rulebook_path("luma-payroll/v3"))
    case = '{"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"}'
    f = tmp_path / "c.json"
    f.write_text(case)
    cli = run_cli("eval", str(version), str(f), "--trace", "json")
    assert cli.returncode == 0
    rb = bareme.Rulebook.load(version)
    assert rb.evaluate_json(case, trace=True) == cli.stdout.rstrip("\n")
    traced = rb.evaluate(case, trace=True)
    assert list(traced) == ["answer", "trace"]
    # Worked by hand: 5% of 2500.00 = 125.00; tax 10% of (2375.00 - 1000.00) = 137.50.
    assert traced["answer"]["net_pay"] == "2237.50"


def test_identity_check_and_schema():
    rb = bareme.Rulebook.load(bareme.rulebook_path("luma-payroll/v3"))
    assert (rb.id, rb.version) == ("luma-payroll", "3")
    assert len(rb.hash) == 64 and all(c in "0123456789abcdef" for c in rb.hash)
    assert rb.check() == []
    schema = rb.case_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "gross_pay" in json.dumps(schema)


def test_numbers_in_a_json_string_are_kept_as_written():
    rb = bareme.Rulebook.load(bareme.rulebook_path("luma-payroll/v3"))
    # A JSON number keeps its digits: 2500.10 is 2500.10, not a float's 2500.1.
    answer = rb.evaluate('{"task": "payslip", "gross_pay": 2500.10, "payroll_month": "2026-03"}')
    assert answer["gross_pay"] == "2500.10"
    assert rb.evaluate({"task": "payslip", "gross_pay": Decimal("2500.10"), "payroll_month": "2026-03"}) == answer


def test_ablations_change_the_answer():
    rb = bareme.Rulebook.load(bareme.rulebook_path("sales-tax/v1"))
    with pytest.raises(ValueError, match="no_such"):
        rb.evaluate("{}", ablate=["no_such"])
