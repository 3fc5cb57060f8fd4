"""What one worker of ``bareme.dist`` runs, whatever the engine: a shard of
tasks drawn, a batch of cases evaluated, a batch of replies scored, each as
the exact lines the ``bareme`` command writes, in Arrow record batches.

Each worker process loads a generator, rulebook or rubric once (a cache
keyed by the path and the hashes the driver saw) and refuses to work when
what it loads is not what the driver loaded: another rulebook version
(its hash) or another generator or rubric file (the SHA-256 of its bytes)
raises ``VersionMismatch`` instead of writing lines of another version.

Nothing here imports Ray or Spark: the engines only move these batches.
"""

from __future__ import annotations

import hashlib
import json
import os
from decimal import Decimal
from typing import Any, Iterable, Iterator

import pyarrow as pa

import bareme

#: A test hook: when this environment variable names a file, the first
#: worker that processes a batch not starting at index 0 removes the file
#: and kills its own process (``os._exit(1)``), as a lost machine would;
#: the engine must retry that batch with no line lost or duplicated.
CRASH_ENV = "BAREME_DIST_CRASH_ONCE"

#: Rows per Arrow batch a worker hands back: bounds its memory.
BATCH_ROWS = 1000


class VersionMismatch(bareme.BaremeError):
    """A worker loaded another version than the driver: it refuses."""


def file_sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def identity(kind: str, path: str) -> dict[str, str]:
    """What the driver loaded, that every worker must load too: the
    absolute path, the rulebook's hash, the file's SHA-256 (a rubric or
    generator). Loading here also reports a bad file on the driver, before
    any worker starts."""
    path = os.path.abspath(os.fspath(path))
    obj = _load_plain(kind, path)
    ident = {"kind": kind, "path": path, "rulebook_hash": _rulebook_hash(kind, obj)}
    if kind != "rulebook":
        ident["file_sha256"] = file_sha256(path)
    _CACHE[_key(ident)] = obj
    return ident


def _load_plain(kind: str, path: str) -> Any:
    if kind == "generator":
        return bareme.Generator.load(path)
    if kind == "rubric":
        return bareme.Rubric.load(path)
    return bareme.Rulebook.load(path)


def _rulebook_hash(kind: str, obj: Any) -> str:
    if kind == "generator":
        return obj.rulebook.hash
    if kind == "rubric":
        return obj.rulebook_hash
    return obj.hash


def _key(ident: dict[str, str]) -> tuple:
    return tuple(sorted(ident.items()))


#: This process's loaded generators, rulebooks and rubrics.
_CACHE: dict[tuple, Any] = {}


def loaded(ident: dict[str, str]) -> Any:
    """The object ``ident`` names, loaded once per process and checked
    against the driver's hashes."""
    key = _key(ident)
    obj = _CACHE.get(key)
    if obj is not None:
        return obj
    path = ident["path"]
    if "file_sha256" in ident and file_sha256(path) != ident["file_sha256"]:
        raise VersionMismatch(
            f"{path} on this worker is not the file the driver loaded "
            f"(SHA-256 {ident['file_sha256'][:16]}…): refusing to work on another version"
        )
    obj = _load_plain(ident["kind"], path)
    have = _rulebook_hash(ident["kind"], obj)
    if have != ident["rulebook_hash"]:
        raise VersionMismatch(
            f"{path} loads a rulebook of hash {have[:16]}… on this worker, "
            f"the driver's is {ident['rulebook_hash'][:16]}…: refusing to work on another version"
        )
    _CACHE[key] = obj
    return obj


def maybe_crash(first_index: int) -> None:
    """The test hook of ``CRASH_ENV``: one kill, ever, per armed file."""
    marker = os.environ.get(CRASH_ENV)
    if not marker or first_index == 0:
        return
    try:
        os.unlink(marker)
    except FileNotFoundError:
        return
    os._exit(1)


# -- generate ----------------------------------------------------------------

#: The columns of a generated task, in the order of its line, and `line`.
TASK_FIELDS = [
    ("id", pa.string()),
    ("index", pa.int64()),
    ("level", pa.int64()),
    ("tier", pa.string()),
    ("branch", pa.string()),
    ("rulebook", pa.string()),
    ("rulebook_hash", pa.string()),
    ("generator", pa.string()),
    ("generator_hash", pa.string()),
    ("rubric", pa.int64()),
    ("case", pa.string()),
    ("prompt", pa.string()),
    ("expected", pa.string()),
    ("tags", pa.string()),
    ("line", pa.string()),
]
TASK_SCHEMA = pa.schema(TASK_FIELDS)
LINE_SCHEMA = pa.schema([("index", pa.int64()), ("id", pa.string()), ("line", pa.string())])
#: JSON values kept as compact JSON text in their column.
_JSON_COLUMNS = {"case", "expected", "tags"}


def compact(value: Any) -> str:
    """JSON text without spaces, numbers as written (read as ``Decimal``)."""
    if isinstance(value, dict):
        return "{" + ",".join(compact(k) + ":" + compact(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(compact(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def shard_bounds(n: int, shards: int) -> list[tuple[int, int]]:
    """``shards`` contiguous index ranges (start, count) covering 0..n."""
    shards = max(1, min(shards, n)) if n else 1
    base, extra = divmod(n, shards)
    out, start = [], 0
    for k in range(shards):
        count = base + (k < extra)
        out.append((start, count))
        start += count
    return out


#: Phase 1's extra column: each row's first-draw identity (32 bytes).
IDENTITY = pa.field("identity", pa.binary())


def first_shard(
    ident: dict[str, str], seed: int, start: int, count: int, level: int | None, fields: bool, jobs: int
) -> Iterator[pa.RecordBatch]:
    """Phase 1 on a worker: tasks ``start..start + count`` of ``seed``,
    each index's first passing draw and its identity (a last column),
    drawing no index below ``start``: a shard costs its own indices."""
    maybe_crash(start)
    gen = loaded(ident)
    lines, ids = gen.first_draws(count, seed, start=start, level=level, jobs=jobs)
    for at in range(0, len(lines), BATCH_ROWS):
        batch = _task_batch(lines[at : at + BATCH_ROWS], start + at, fields)
        chunk = [ids[32 * i : 32 * i + 32] for i in range(at, at + batch.num_rows)]
        yield pa.record_batch(
            batch.columns + [pa.array(chunk, pa.binary())], schema=batch.schema.append(IDENTITY)
        )


def redrawn(ident: dict[str, str], seed: int, level: int | None, pairs: Iterable[tuple[int, bytes]], n: int) -> dict[int, str]:
    """Phase 2 on the driver: from every index's (index, identity), in any
    order, the lines of the indices whose first draw repeats an earlier
    index's task, drawn again as ``bareme generate`` draws them."""
    ids = bytearray(32 * n)
    seen = 0
    for index, identity in pairs:
        if not 0 <= index < n or len(identity) != 32:
            raise RuntimeError(f"phase 1 gave index {index} of a run of {n}")
        ids[32 * index : 32 * index + 32] = identity
        seen += 1
    if seen != n:
        raise RuntimeError(f"phase 1 gave {seen} rows, {n} expected: a lost or repeated row")
    return dict(loaded(ident).redraw_duplicates(bytes(ids), seed, level=level))


def settled(batch: pa.RecordBatch, redrawn: dict[int, str], fields: bool) -> pa.RecordBatch:
    """Phase 1's rows with the identity dropped and each redrawn index's
    line (and fields) put in place."""
    first = batch.column("index")[0].as_py() if batch.num_rows else 0
    schema = TASK_SCHEMA if fields else LINE_SCHEMA
    if not any(i in redrawn for i in range(first, first + batch.num_rows)):
        return pa.record_batch([batch.column(n) for n in schema.names], schema=schema)
    lines = batch.column("line").to_pylist()
    lines = [redrawn.get(first + k, line) for k, line in enumerate(lines)]
    return _task_batch(lines, first, fields)


def _task_batch(lines: list[str], first: int, fields: bool) -> pa.RecordBatch:
    if not fields:
        ids = [json.loads(line)["id"] for line in lines]
        return pa.record_batch(
            [pa.array(range(first, first + len(lines)), pa.int64()), pa.array(ids, pa.string()), pa.array(lines, pa.string())],
            schema=LINE_SCHEMA,
        )
    cols: dict[str, list] = {name: [] for name, _ in TASK_FIELDS}
    for line in lines:
        task = json.loads(line, parse_float=Decimal)
        for name, _ in TASK_FIELDS[:-1]:
            v = task.get(name)
            cols[name].append(compact(v) if name in _JSON_COLUMNS and v is not None else v)
        cols["line"].append(line)
    return pa.record_batch([pa.array(cols[n], t) for n, t in TASK_FIELDS], schema=TASK_SCHEMA)


# -- evaluate ----------------------------------------------------------------

OUT_SCHEMA = pa.schema([("index", pa.int64()), ("line", pa.string())])


def evaluate_batches(ident: dict[str, str], batches: Iterable[pa.RecordBatch], jobs: int) -> Iterator[pa.RecordBatch]:
    """Each row's ``case`` (JSON text) evaluated: its ``eval --batch`` line."""
    rb = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        index = batch.column("index").to_pylist()
        maybe_crash(index[0])
        rb = rb or loaded(ident)
        lines = rb.evaluate_batch_json(batch.column("case").to_pylist(), jobs=jobs)
        yield pa.record_batch([pa.array(index, pa.int64()), pa.array(lines, pa.string())], schema=OUT_SCHEMA)


# -- score -------------------------------------------------------------------


def score_line(rub: Any, task: str | None, reply_line: str) -> str:
    """One reply line (``id``, ``reply``, optional ``explanation_grade``)
    scored against its task line: the ``bareme score`` line."""
    reply = json.loads(reply_line, parse_float=Decimal)
    if not isinstance(reply, dict) or not isinstance(reply.get("reply"), str):
        raise ValueError(f"a reply line is an object with `id` and `reply` (text): {reply_line[:80]}")
    if task is None:
        raise ValueError(f"a reply to an unknown task: {reply.get('id')!r}")
    return rub.score_json(task, reply["reply"], reply.get("explanation_grade"))


def score_batches(
    ident: dict[str, str], batches: Iterable[pa.RecordBatch], tasks: dict[str, str] | None = None
) -> Iterator[pa.RecordBatch]:
    """Each row's ``reply`` line scored against its ``task`` line (a
    column, after a join) or ``tasks[id]`` (a table every worker holds)."""
    rub = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        index = batch.column("index").to_pylist()
        maybe_crash(index[0])
        rub = rub or loaded(ident)
        replies = batch.column("reply").to_pylist()
        if tasks is None:
            task_lines = batch.column("task").to_pylist()
        else:
            task_lines = [tasks.get(i) for i in batch.column("id").to_pylist()]
        lines = [score_line(rub, t, r) for t, r in zip(task_lines, replies)]
        yield pa.record_batch([pa.array(index, pa.int64()), pa.array(lines, pa.string())], schema=OUT_SCHEMA)


def reply_id(line: str) -> str | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None
