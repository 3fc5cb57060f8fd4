"""The differential-test harness shared by the scripts in this folder.

Why this exists: each script here (luma_payroll.py, sales_tax.py,
succession_fr.py, paie_fr.py) is an independent Python reading of one rule
set's spec, and what is specific to the rule set (reading a case, evaluating
it, generating cases, the stats and the self-test examples) stays there. The
machinery around it was the same in every script and lives here once: JSON
with numbers kept as written, the error a case is rejected with, small helpers
for writing cases, writing the generated cases as JSON Lines and running
`bareme eval RULEBOOK --batch FILE [--ablate NAME]` on them, comparing the
answers (JSON values, numbers by value; errors by path only), the distribution
report and the command line. `--tasks FILE` answers instead the cases of a task
file written by `bareme generate` and compares them with the tasks' `expected`.

Stdlib only. The scripts are run as `python3 tests/differential/X.py` from
the repository root; each puts its own folder on `sys.path` to import this.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
from decimal import Decimal

# ---------------------------------------------------------------------------
# JSON with numbers as written
# ---------------------------------------------------------------------------


class RawNumber:
    """A JSON number kept exactly as written (`1205.120`, `3.0`, `1e3`, `-0`)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other):
        if isinstance(other, RawNumber):
            return self.text == other.text
        return NotImplemented

    def __hash__(self):
        return hash(self.text)

    def __repr__(self):
        return f"RawNumber({self.text!r})"


def _reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def parse_case(text: str):
    """Parses one case, keeping every number as a `RawNumber`."""
    return json.loads(text, parse_float=RawNumber, parse_int=RawNumber,
                      parse_constant=_reject_constant)


def dump_json(value) -> str:
    """Serialises a case back to JSON, writing `RawNumber`s verbatim."""
    if isinstance(value, RawNumber):
        return value.text
    if isinstance(value, dict):
        items = (json.dumps(k, ensure_ascii=False) + ": " + dump_json(v) for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dump_json(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


class DatasetError(Exception):
    """A case the spec rejects, with the path of the first fault.

    A script's `evaluate` answers it as `{"error": {"path", "message"}}`; only
    the path is compared with the engine's answer.
    """

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def refuse_unknown(obj, known, path: str = "") -> None:
    """An object's first key (in the case's order) that its rulebook does not
    declare rejects the case at that key, before any fault of the object's
    values: a misspelt key is an error, never an input silently absent."""
    if not isinstance(obj, dict):
        return
    for key in obj:
        if key not in known:
            raise DatasetError(f"{path}.{key}" if path else key, "unknown key")


# ---------------------------------------------------------------------------
# Writing cases
# ---------------------------------------------------------------------------

ABSENT = object()  # A key left out of the case (as opposed to `null`).


def put(mapping: dict, key: str, value) -> None:
    """Stores a value; ABSENT removes the key."""
    if value is ABSENT:
        mapping.pop(key, None)
    else:
        mapping[key] = value


def shuffled(rng: random.Random, mapping: dict) -> dict:
    items = list(mapping.items())
    rng.shuffle(items)
    return dict(items)


def generate_cases(n: int, seed: int, generate_tagged, expect) -> list[tuple[str, str, dict]]:
    """`n` cases as (JSON text, generator tag, expected answer), from
    `generate_tagged(rng, i) -> (text, tag)` and `expect(parsed case) -> answer`."""
    rng = random.Random(seed)
    cases = []
    for i in range(n):
        text, tag = generate_tagged(rng, i)
        cases.append((text, tag, expect(parse_case(text))))
    return cases


# ---------------------------------------------------------------------------
# The distribution report
# ---------------------------------------------------------------------------

MULTI_FAULT_INTENTS = "generator intents (each fault of a multi-fault case counted):"


def print_counts(counts: collections.Counter, total: int, out) -> None:
    for key, count in sorted(counts.items()):
        print(f"  {count:6d}  {100 * count / total:5.1f}%  {key}", file=out)


def level_intents(cases) -> collections.Counter:
    """Counts tags `valid:<level>:<variant>...` by variant and
    `invalid:<level>:<fault>+<fault>...` by fault (plus the multi-fault cases)."""
    tags = collections.Counter()
    for _, tag, _ in cases:
        kind, _, rest = tag.partition(":")
        if kind == "valid":
            tags["valid:" + rest.split("+")[0]] += 1
            continue
        level, _, names = rest.partition(":")
        if "+" in names:
            tags["invalid: multi-fault"] += 1
        for name in (names or level).split("+"):
            tags[f"invalid:{name}"] += 1
    return tags


def print_distribution(cases, out, outcome_key, count_intents, intents_title=MULTI_FAULT_INTENTS,
                       features=None) -> None:
    """Outcomes (by `outcome_key(expected)`, errors starting with "error"), the
    generator's intents (`count_intents(cases)`) and, if `features(case text)` is
    given, what the valid cases exercise."""
    n = len(cases)
    outcomes = collections.Counter(outcome_key(expect) for _, _, expect in cases)
    valid = sum(count for key, count in outcomes.items() if not key.startswith("error"))
    print(f"{n} cases: {valid} valid ({100 * valid / n:.1f}%), {n - valid} rejected "
          f"({100 * (n - valid) / n:.1f}%)", file=out)
    print_counts(outcomes, n, out)
    print(intents_title, file=out)
    print_counts(count_intents(cases), n, out)
    if features is None:
        return
    covered = collections.Counter()
    for text, _, expect in cases:
        if "error" not in expect:
            covered.update(features(text))
    print(f"features of the {valid} valid cases:", file=out)
    print_counts(covered, max(valid, 1), out)


# ---------------------------------------------------------------------------
# Comparison with the engine
# ---------------------------------------------------------------------------

def as_comparable(text: str):
    return json.loads(text, parse_float=Decimal, parse_int=Decimal)


def agrees(expected: dict, actual_line: str) -> bool:
    """Answers agree as JSON values (numbers by value); errors by path only."""
    try:
        actual = as_comparable(actual_line)
    except ValueError:
        return False
    if "error" in expected:
        return (isinstance(actual, dict) and isinstance(actual.get("error"), dict)
                and actual["error"].get("path") == expected["error"]["path"])
    return actual == as_comparable(json.dumps(expected))


def run_differential(bareme: str, rulebook: str, cases, keep: str | None, ablation: str | None = None,
                     ensure_ascii: bool = True) -> int:
    """Runs bareme on the cases, prints the first mismatches and the tally; the exit code.

    `ensure_ascii` is how a mismatch's expected answer is printed (each script keeps its own).
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = keep or os.path.join(tmp, "cases.jsonl")
        with open(path, "w", encoding="utf-8") as file:
            for text, _, _ in cases:
                file.write(text + "\n")
        command = [bareme, "eval", rulebook, "--batch", path]
        if ablation:
            command += ["--ablate", ablation]
        result = subprocess.run(command, capture_output=True, text=True, encoding="utf-8")
    lines = [line for line in result.stdout.split("\n") if line.strip()]
    if result.returncode != 0 or len(lines) != len(cases):
        print(f"bareme exited {result.returncode} with {len(lines)} lines for {len(cases)} cases",
              file=sys.stderr)
        if result.stderr:
            print(result.stderr[-2000:], file=sys.stderr)
    passed = failed = 0
    for index, (text, tag, expected) in enumerate(cases):
        actual = lines[index] if index < len(lines) else "<no output>"
        if agrees(expected, actual):
            passed += 1
            continue
        failed += 1
        if failed <= 20:
            print(f"--- mismatch #{failed} (line {index + 1}, {tag})")
            print(f"case:     {text}")
            print(f"expected: {json.dumps(expected, ensure_ascii=ensure_ascii)}")
            print(f"actual:   {actual}")
    print(f"differential: {passed} passed, {failed} failed")
    return 1 if failed else 0


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def engine_answers(bareme: str, rulebook: str, cases: list) -> list:
    """`bareme eval RULEBOOK --batch` on cases (each in its envelope), one parsed line each."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cases.jsonl")
        with open(path, "w", encoding="utf-8") as file:
            for case in cases:
                file.write('{"case": ' + dump_json(case) + "}\n")
        result = subprocess.run([bareme, "eval", rulebook, "--batch", path],
                                capture_output=True, text=True, encoding="utf-8")
    if result.returncode != 0:
        print(f"bareme exited {result.returncode}: {result.stderr[-2000:]}", file=sys.stderr)
    return [json.loads(line) for line in result.stdout.split("\n") if line.strip()]


def run_tasks(path: str, rulebook_id: str, evaluate, ensure_ascii: bool = True,
              bareme: str | None = None, rulebook: str | None = None) -> int:
    """Reads a task file (`bareme generate`'s JSON Lines), answers each task's
    `case` with this script's `evaluate(raw case)` and compares it with the
    task's `expected` (the engine's reference, as `agrees` compares); prints the
    first mismatches and the tally; the exit code.

    With `bareme` (and its `rulebook` folder), each `expected` must also be
    exactly what `bareme eval RULEBOOK --batch` prints for the task's case.
    A task written for another rule set than `rulebook_id` is a failure: the
    script would be reading a spec that is not its own."""
    passed = failed = 0
    with open(path, encoding="utf-8") as file:
        lines = [(number, line) for number, line in enumerate(file, 1) if line.strip()]
    tasks = [(number, parse_case(line), json.loads(line)) for number, line in lines]
    engine = engine_answers(bareme, rulebook, [t["case"] for _, t, _ in tasks]) if bareme else None
    if engine is not None and len(engine) != len(tasks):
        print(f"bareme answered {len(engine)} of {len(tasks)} cases", file=sys.stderr)
        return 1
    for at, (number, task, plain) in enumerate(tasks):
        name = plain.get("id", f"line {number}")
        if engine is not None and engine[at] != plain["expected"]:
            failed += 1
            print(f"--- task {name}: `expected` is not what bareme eval gives: {json.dumps(engine[at])}")
            continue
        written_for = str(plain.get("rulebook", "")).partition("@")[0]
        if written_for != rulebook_id:
            failed += 1
            print(f"--- task {name}: written for {plain.get('rulebook')!r}, not for {rulebook_id}")
            continue
        try:
            answer = evaluate(task["case"])
        except Exception as error:  # noqa: BLE001  (a crash of the reading is a mismatch too)
            answer = {"error": {"path": "<python>", "message": f"{type(error).__name__}: {error}"}}
        if agrees(answer, json.dumps(plain["expected"], ensure_ascii=False)):
            passed += 1
            continue
        failed += 1
        if failed <= 20:
            print(f"--- mismatch #{failed} (task {name}, {plain.get('branch', '')})")
            print(f"case:     {dump_json(task['case'])}")
            print(f"python:   {json.dumps(answer, ensure_ascii=ensure_ascii)}")
            print(f"expected: {json.dumps(plain['expected'], ensure_ascii=ensure_ascii)}")
    print(f"differential ({path}): {passed} passed, {failed} failed")
    if passed + failed == 0:
        print(f"no task in {path}", file=sys.stderr)
        return 1
    return 1 if failed else 0


def cli_parser(doc: str, rulebook: str) -> argparse.ArgumentParser:
    """The options every script takes; a script adds its own after these."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--bareme", help="path to the bareme binary")
    parser.add_argument("--rulebook", default=rulebook)
    parser.add_argument("--n", type=int, default=5000, help="number of cases")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dump", metavar="FILE",
                        help="only write {case, expect} JSON Lines to FILE, without running bareme")
    parser.add_argument("--keep-cases", metavar="FILE", help="also keep the batch input in FILE")
    parser.add_argument("--stats", action="store_true", help="print the distribution of the generated cases")
    parser.add_argument("--self-test", action="store_true", help="run the hand-computed examples")
    parser.add_argument("--tasks", metavar="FILE",
                        help="answer the cases of a task file (`bareme generate`) and compare with their `expected`")
    return parser


def dump_or_run(parser: argparse.ArgumentParser, args, cases, print_distribution, *,
                ablation: str | None = None, ensure_ascii: bool = True,
                instead_of_bareme: str = "--dump or --self-test") -> int:
    """After the cases are generated: the report (--stats, --dump), the dump, or the run."""
    if args.stats or args.dump:
        print_distribution(cases, sys.stderr)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as file:
            for text, _, expected in cases:
                file.write('{"case": ' + text + ', "expect": ' + json.dumps(expected, ensure_ascii=False) + "}\n")
        print(f"wrote {len(cases)} cases to {args.dump}")
        return 0
    if not args.bareme:
        parser.error(f"--bareme is required unless {instead_of_bareme} is given")
    return run_differential(args.bareme, args.rulebook, cases, args.keep_cases, ablation, ensure_ascii)
