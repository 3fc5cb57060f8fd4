"""What the `bareme.dist` tests of both engines share: the single-process
command's outputs for 20,000 tasks of each bundled generator (`bareme
generate`, `eval --batch` of their cases, `bareme score` of replies to
them), made once per session, and the checks that an engine writes the
same bytes."""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

import bareme
from conftest import GENERATORS, RULEBOOKS, run_cli

N = int(os.environ.get("BAREME_DIST_N", "20000"))  # tasks per generator
SEED = 5
IDS = [f"{p.parent.name}/{p.stem}" for p in GENERATORS]


class Refs:
    """The command's files for one generator, made on first use."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.made: dict[Path, dict[str, Path]] = {}

    def __call__(self, generator: Path) -> dict[str, Path]:
        if generator in self.made:
            return self.made[generator]
        d = self.folder / f"{generator.parent.name}-{generator.stem}"
        d.mkdir()
        f = {k: d / f"{k}.jsonl" for k in ("tasks", "cases", "eval", "replies", "score")}
        cli = run_cli("generate", str(generator), "-n", str(N), "--seed", str(SEED), "--out", str(f["tasks"]))
        assert cli.returncode == 0, cli.stderr
        with open(f["tasks"], encoding="utf-8") as fh:
            first = json.loads(fh.readline())
        rubric = generator.parent / f"rubric-{first['rubric']}.toml"
        version = RULEBOOKS / first["rulebook"].split("@")[0] / f"v{first['rulebook'].split('@')[1]}"
        rub = bareme.Rubric.load(rubric)
        # The cases of the tasks (a batch answered and refused), and per
        # task a reply: the reference, a malformed one, an empty one with
        # an explanation grade, a wrong amount.
        with open(f["tasks"], encoding="utf-8") as tasks, open(f["cases"], "w", encoding="utf-8") as cases, open(
            f["replies"], "w", encoding="utf-8"
        ) as replies:
            for i, line in enumerate(tasks):
                task = json.loads(line)
                cases.write(json.dumps(task["case"], ensure_ascii=False, separators=(",", ":")) + "\n")
                ref = rub.reference_reply(line)
                reply = {"id": task["id"], "reply": [ref, "about 2000, I think", "", ref.replace("0", "1", 1)][i % 4]}
                if i % 4 == 2:
                    reply["explanation_grade"] = 0.5
                replies.write(json.dumps(reply, ensure_ascii=False) + "\n")
        cli = run_cli("eval", str(version), "--batch", str(f["cases"]))
        assert cli.returncode in (0, 2), cli.stderr
        f["eval"].write_text(cli.stdout, encoding="utf-8")
        cli = run_cli("score", str(rubric), "--tasks", str(f["tasks"]), "--replies", str(f["replies"]))
        assert cli.returncode == 0, cli.stderr
        f["score"].write_text(cli.stdout, encoding="utf-8")
        f["rubric"], f["rulebook"] = rubric, version
        self.made[generator] = f
        return f


def make_refs():
    """The session's `Refs`, in a folder removed at the end (the
    `refs` fixture of conftest.py: one for both engines' modules)."""
    folder = Path(tempfile.mkdtemp(prefix="bareme-dist-"))
    try:
        yield Refs(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def same_file(a: Path, b: Path) -> None:
    assert a.stat().st_size == b.stat().st_size, f"{a} has {a.stat().st_size} bytes, {b} {b.stat().st_size}"
    assert filecmp.cmp(a, b, shallow=False), f"{a} and {b} differ"
    a.unlink()  # hundreds of megabytes over the run


def check_generate(engine, generator: Path, refs: Refs, out: Path) -> None:
    import bareme.dist as dist

    f = refs(generator)
    data = dist.generate(engine, generator, N, SEED, shards=2, fields=False)
    assert dist.write_lines(data, out, N) == N
    same_file(out, f["tasks"])


def check_duplicates_redrawn(engine, tmp: Path) -> None:
    """Where first draws repeat (Luma generator 4 at seed 2026: the
    manifest counts duplicates in 400), the two phases (shards' first
    draws, then the duplicates drawn again on the driver) write the
    command's bytes, lines and fields alike."""
    import bareme.dist as dist

    generator = RULEBOOKS / "luma-payroll" / "generator-4.toml"
    cli = run_cli(
        "generate", str(generator), "-n", "400", "--seed", "2026",
        "--out", str(tmp / "cli.jsonl"), "--manifest", str(tmp / "manifest.json"),
    )
    assert cli.returncode == 0, cli.stderr
    manifest = json.loads((tmp / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["duplicates"] > 0, manifest["redraws"]
    expected = (tmp / "cli.jsonl").read_bytes()
    gen = bareme.Generator.load(generator)
    lines, ids = gen.first_draws(400, 2026)
    assert 0 < len(gen.redraw_duplicates(ids, 2026)) <= manifest["duplicates"]
    assert "\n".join(lines).encode() + b"\n" != expected, "no first draw was redrawn"
    data = dist.generate(engine, generator, 400, 2026, shards=3, fields=False)
    assert dist.write_lines(data, tmp / "out.jsonl", 400) == 400
    assert (tmp / "out.jsonl").read_bytes() == expected
    data = dist.generate(engine, generator, 400, 2026, shards=3)
    rows = data.take_all() if hasattr(data, "take_all") else [r.asDict() for r in data.collect()]
    assert "\n".join(r["line"] for r in rows).encode() + b"\n" == expected
    check_fields(engine, rows)


def check_evaluate(engine, generator: Path, refs: Refs, out: Path) -> None:
    import bareme.dist as dist

    f = refs(generator)
    cases = dist.rows(engine, "case", dist.read_lines(f["cases"]))
    assert dist.write_lines(dist.evaluate(engine, f["rulebook"], cases), out, N) == N
    same_file(out, f["eval"])


def check_score(engine, generator: Path, refs: Refs, out: Path) -> None:
    import bareme.dist as dist

    f = refs(generator)
    tasks = dist.read_lines(f["tasks"])
    tasks = dist.rows(engine, "line", tasks, blocks=8, extra={"id": [json.loads(t)["id"] for t in tasks]})
    replies = dist.rows(engine, "reply", dist.read_lines(f["replies"]))
    assert dist.write_lines(dist.score(engine, f["rubric"], tasks, replies), out, N) == N
    same_file(out, f["score"])


def check_fields(engine, rows: list[dict]) -> None:
    """`generate`'s columns are the task's fields; `line` its exact line."""
    from decimal import Decimal

    from bareme.dist._work import compact

    assert [r["index"] for r in rows] == list(range(len(rows)))
    for r in rows:
        task = json.loads(r["line"], parse_float=Decimal)
        assert list(task) == [k for k in r if k != "line"]
        for k, v in task.items():
            assert r[k] == (compact(v) if k in ("case", "expected", "tags") else v), k
        assert json.loads(r["case"]) == json.loads(r["line"])["case"]


def check_crash_retried(engine, crash_marker: Path, refs: Refs, out: Path) -> None:
    """A worker killed on its first attempt at one shard (`os._exit(1)`):
    the engine retries it, the file has every line once."""
    import bareme.dist as dist

    generator = GENERATORS[0]
    f = refs(generator)
    k = min(4000, N)
    crash_marker.write_text("armed")
    data = dist.generate(engine, generator, k, SEED, shards=2, fields=False)
    assert dist.write_lines(data, out, k) == k
    assert not crash_marker.exists(), "no worker was killed"
    with open(f["tasks"], "rb") as full:
        assert out.read_bytes() == b"".join(full.readline() for _ in range(k))
    crash_marker.write_text("armed")
    cases = dist.rows(engine, "case", dist.read_lines(f["cases"]))
    assert dist.write_lines(dist.evaluate(engine, f["rulebook"], cases), out, N) == N
    assert not crash_marker.exists(), "no worker was killed"
    same_file(out, f["eval"])


def check_other_version_refused(engine, tmp: Path) -> None:
    """The driver loads one rulebook; the workers find another on disk:
    they refuse rather than write the other version's tasks."""
    import bareme.dist as dist

    set_dir = tmp / "sales-tax"
    shutil.copytree(RULEBOOKS / "sales-tax", set_dir)
    rulebook = set_dir / "v1" / "rulebook.toml"
    driver_loads = dist.identity

    def then_edited(kind, path):
        # `generate` draws when called (its first phase): the file changes
        # between the driver's load and the workers'.
        ident = driver_loads(kind, path)
        rulebook.write_text(rulebook.read_text(encoding="utf-8") + "\n# another version\n", encoding="utf-8")
        return ident

    dist.identity = then_edited
    try:
        with pytest.raises(Exception, match="refusing to work on another version"):
            dist.write_lines(dist.generate(engine, set_dir / "generator-1.toml", 40, SEED, shards=2, fields=False), tmp / "out.jsonl", 40)
    finally:
        dist.identity = driver_loads
    assert not (tmp / "out.jsonl").exists()


def arm(marker: Path) -> None:
    os.environ["BAREME_DIST_CRASH_ONCE"] = str(marker)
