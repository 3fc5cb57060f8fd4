"""`Generator.generate` against `bareme generate`, `Rubric.score` against
`bareme score`, and `bareme.diff` against `bareme diff --format json`."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

import bareme
from conftest import GENERATORS, RUBRICS, run_cli


@pytest.mark.parametrize("path", GENERATORS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_generate_is_bareme_generate(path: Path):
    gen = bareme.Generator.load(path)
    cli = run_cli("generate", str(path), "-n", "40", "--seed", "2026")
    assert cli.returncode == 0, cli.stderr
    lines = cli.stdout.splitlines()
    assert len(lines) > 30
    assert gen.generate_json(40, 2026) == lines
    assert gen.generate_json(40, 2026, jobs=1) == lines
    tasks = gen.generate(40, 2026)
    assert tasks == [json.loads(line, parse_float=Decimal) for line in lines]
    assert [list(t) for t in tasks] == [list(json.loads(line)) for line in lines]
    # A shard writes the full run's lines for its indices.
    shard = run_cli("generate", str(path), "--start", "25", "-n", "15", "--seed", "2026")
    assert gen.generate_json(15, 2026, start=25) == shard.stdout.splitlines()
    for lv in (1, 2, 3, 4, 9):
        level = run_cli("generate", str(path), "-n", "8", "--seed", "7", "--level", str(lv))
        if level.returncode == 0:
            assert gen.generate_json(8, 7, level=lv) == level.stdout.splitlines()
        else:
            with pytest.raises(ValueError, match=f"no level {lv}"):
                gen.generate_json(8, 7, level=lv)


def test_a_prompt_option_is_bareme_generates():
    """``options`` sets a declared prompt switch as ``--option`` does: Luma's
    ``documents`` leaves the record and the default schedule out of the
    prompt, draws the same cases and records the switch in each line."""
    path = bareme.rulebook_path("luma-payroll/generator-4.toml")
    plain = bareme.Generator.load(path)
    documents = bareme.Generator.load(path, options={"documents": True})
    assert plain.options == {"demonstrations": False, "documents": False}
    assert documents.options == {"demonstrations": False, "documents": True}
    cli = run_cli("generate", str(path), "-n", "30", "--seed", "7", "--option", "documents")
    assert cli.returncode == 0, cli.stderr
    lines = documents.generate_json(30, 7)
    assert lines == cli.stdout.splitlines()
    shown = [json.loads(line) for line in plain.generate_json(30, 7)]
    for task, told in zip(shown, map(json.loads, lines)):
        assert "Record:\n" in task["prompt"] and "the default:" in task["prompt"]
        assert "Record:" not in told["prompt"] and "the default:" not in told["prompt"]
        assert "they come as documents" in told["prompt"]
        assert told["options"] == {"demonstrations": False, "documents": True}
        assert "options" not in task
        assert (told["case"], told["expected"]) == (task["case"], task["expected"])
    with pytest.raises(ValueError, match="demonstrations, documents"):
        bareme.Generator.load(path, options={"tools": True})


def replies_for(rub: bareme.Rubric, tasks: list[str]) -> list[tuple[str, str, object]]:
    """Per task: the reference reply, a malformed one, an empty one and a
    wrong amount; graded with and without an explanation grade."""
    out = []
    for i, line in enumerate(tasks):
        task = json.loads(line)
        ref = rub.reference_reply(line)
        out.append((task["id"], ref, None))
        out.append((task["id"], "I think it is about 2000", None))
        out.append((task["id"], "", 0.5 if i % 2 else None))
        out.append((task["id"], ref.replace("0", "1", 1), 1 if i % 3 == 0 else None))
    return out


@pytest.mark.parametrize("path", RUBRICS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_score_is_bareme_score(path: Path, tmp_path: Path):
    rub = bareme.Rubric.load(path)
    generator = sorted(path.parent.glob("generator-*.toml"))[-1]
    gen = bareme.Generator.load(generator)
    tasks = gen.generate_json(12, 99)
    task_file = tmp_path / "tasks.jsonl"
    task_file.write_text("".join(t + "\n" for t in tasks))
    replies = replies_for(rub, tasks)
    reply_file = tmp_path / "replies.jsonl"
    reply_file.write_text(
        "".join(
            json.dumps({"id": i, "reply": r} | ({"explanation_grade": g} if g is not None else {})) + "\n"
            for i, r, g in replies
        )
    )
    cli = run_cli("score", str(path), "--tasks", str(task_file), "--replies", str(reply_file))
    by_id = {json.loads(t)["id"]: t for t in tasks}
    if cli.returncode != 0:
        # This rubric grades another version than the generator draws for.
        with pytest.raises(ValueError, match="written for"):
            rub.score(tasks[0], "{}")
        assert "written for" in cli.stderr, cli.stderr
        return
    lines = cli.stdout.splitlines()
    assert len(lines) == len(replies)
    for (i, reply, grade), line in zip(replies, lines):
        g = Decimal(str(grade)) if grade is not None else None
        assert rub.score_json(by_id[i], reply, g) == line
        scored = rub.score(json.loads(by_id[i], parse_float=Decimal), reply, grade)
        assert scored == json.loads(line)
        assert isinstance(scored["score"], float)
    first = rub.score(by_id[replies[0][0]], replies[0][1])
    assert first["score"] == first["max"]
    malformed = rub.score(by_id[replies[1][0]], replies[1][1])
    assert "malformed" in malformed
    # A task's `expected` is checked against the rulebook, as `bareme score`
    # checks it: a forged one (a field added) is no answer to grade against.
    forged = json.loads(tasks[0])
    reference = rub.reference_reply(forged)
    if isinstance(forged["expected"], dict):
        forged["expected"]["bonus"] = "1.00"
        for call in (
            lambda: rub.score(forged, reference),
            lambda: rub.score_json(json.dumps(forged), reference),
            lambda: rub.reference_reply(forged),
        ):
            with pytest.raises(ValueError, match="`expected` is not what .* gives for its case"):
                call()


def test_jobs_are_1_to_256_as_the_command_takes_them():
    rb = bareme.Rulebook.load(bareme.rulebook_path("luma-payroll/v3"))
    gen = bareme.Generator.load(bareme.rulebook_path("luma-payroll/generator-4.toml"))
    for jobs in (0, 257, 1000):
        with pytest.raises(ValueError, match=f"jobs is 1 to 256, not {jobs}"):
            rb.evaluate_batch_json([], jobs=jobs)
        with pytest.raises(ValueError, match="jobs is 1 to 256"):
            gen.generate_json(1, 1, jobs=jobs)
    assert rb.evaluate_batch_json([], jobs=256) == []


def test_diff_is_bareme_diff_json(root: Path):
    old, new = root / "rulebooks/paie-fr/v2025", root / "rulebooks/paie-fr/v2026"
    cli = run_cli("diff", str(old), str(new), "--format", "json")
    assert cli.returncode in (0, 1), cli.stderr
    got = bareme.diff(old, new)
    want = json.loads(cli.stdout)
    assert got == want and list(got) == list(want)
    assert got["new"]["rulebook"] == "paie-fr@2026"
    assert json.dumps(got, indent=2, ensure_ascii=False) == cli.stdout.rstrip("\n")
