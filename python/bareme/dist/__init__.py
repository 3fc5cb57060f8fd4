"""bareme on Ray and on Spark: tasks drawn, cases evaluated and replies
scored over index ranges, on many workers, giving the bytes one process
gives (``bareme generate``, ``bareme eval --batch``, ``bareme score``).

``pip install "./python[ray]"`` or ``"./python[spark]"``; see
``docs/distributed.md``.

- ``generate(engine, generator, n, seed, shards=None)``: a Ray ``Dataset`` or a
  Spark ``DataFrame`` of tasks, one row per index: the task's fields as
  columns (``case``, ``expected`` and ``tags`` as compact JSON text) and
  ``line``, the exact line ``bareme generate`` writes; ``fields=False``
  keeps ``index``, ``id`` and ``line`` only.
- ``evaluate(engine, rulebook, cases)``: rows ``index``, ``case`` (JSON
  text) give rows ``index``, ``line`` (the ``eval --batch`` line).
- ``score(engine, rubric, tasks, replies)``: tasks as ``generate`` gives
  them (``id``, ``line``), replies as rows ``index``, ``reply`` (a line of
  a replies file) give rows ``index``, ``line`` (the ``bareme score`` line).
- ``write_lines(rows, path)``: the rows' lines in index order, each index
  exactly once (a gap or a repeat raises): what the command line writes.

``engine`` is ``"ray"`` (the running Ray, else a local one), ``"spark"`` (the
active session, else ``local[2,4]``) or a ``SparkSession``. Every worker
loads the file once and refuses (``VersionMismatch``) when its rulebook hash
or file is not the driver's.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator

from ._work import VersionMismatch, identity

__all__ = ["VersionMismatch", "evaluate", "generate", "lines", "read_lines", "rows", "score", "write_lines"]


def _engine(engine: Any) -> tuple[str, Any]:
    """("ray", None) or ("spark", session)."""
    if engine == "ray":
        from . import _ray

        _ray.start()
        return "ray", None
    if engine == "spark":
        from . import _spark

        return "spark", _spark.start()
    if type(engine).__name__ == "SparkSession":
        return "spark", engine
    raise ValueError(f"engine is 'ray', 'spark' or a SparkSession, not {engine!r}")


def _shards(kind: str, session: Any, shards: int | None) -> int:
    if shards:
        return shards
    if kind == "spark":
        return session.sparkContext.defaultParallelism
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def generate(
    engine: Any,
    generator: str | os.PathLike,
    n: int,
    seed: int,
    shards: int | None = None,
    level: int | None = None,
    fields: bool = True,
    jobs: int = 1,
) -> Any:
    """Tasks ``0..n`` of ``seed`` in ``shards`` contiguous index ranges (one
    per worker core by default), each drawn on ``jobs`` threads, in two
    phases: each index's first draw on the workers (a shard draws its own
    indices only), then on the driver the rare index whose first draw
    repeats an earlier index's case drawn again, as ``bareme generate``
    does. The first phase runs when this is called."""
    kind, session = _engine(engine)
    ident = identity("generator", generator)
    count = _shards(kind, session, shards)
    if kind == "ray":
        from . import _ray

        return _ray.generate(ident, n, seed, count, level, fields, jobs)
    from . import _spark

    return _spark.generate(session, ident, n, seed, count, level, fields, jobs)


def evaluate(engine: Any, rulebook: str | os.PathLike, cases: Any, jobs: int = 1) -> Any:
    """Each case (a row's ``case``, JSON text) evaluated as ``eval --batch``
    does; ``cases`` may also be a list of JSON texts."""
    kind, session = _engine(engine)
    ident = identity("rulebook", rulebook)
    if isinstance(cases, list):
        cases = rows(engine, "case", cases)
    if kind == "ray":
        from . import _ray

        return _ray.evaluate(ident, cases, jobs)
    from . import _spark

    return _spark.evaluate(ident, cases, jobs)


def score(engine: Any, rubric: str | os.PathLike, tasks: Any, replies: Any) -> Any:
    """Each reply (a row's ``reply``: a replies-file line, ``id``, ``reply``
    and optional ``explanation_grade``) scored against the task of its id
    as ``bareme score`` does; ``tasks`` and ``replies`` may also be lists
    of lines."""
    kind, session = _engine(engine)
    ident = identity("rubric", rubric)
    if isinstance(tasks, list):
        ids = [_task_id(t) for t in tasks]
        tasks = rows(engine, "line", tasks, extra={"id": ids})
    if isinstance(replies, list):
        replies = rows(engine, "reply", replies)
    if kind == "ray":
        from . import _ray

        return _ray.score(ident, tasks, replies)
    from . import _spark

    return _spark.score(ident, tasks, replies)


def _task_id(line: str) -> str:
    import json

    return json.loads(line)["id"]


def rows(engine: Any, column: str, lines: list[str], blocks: int | None = None, extra: dict[str, list] | None = None) -> Any:
    """A dataset of ``lines`` as rows (``index``, ``column``), in
    ``blocks`` contiguous, ordered index ranges (by default: on Ray four
    per core, on Spark as ``createDataFrame`` slices them, one per core)."""
    kind, session = _engine(engine)
    if kind == "ray":
        from . import _ray

        return _ray.from_lines(column, lines, blocks or 4 * _shards(kind, session, None), extra)
    from . import _spark

    return _spark.from_lines(session, column, lines, blocks, extra)


def read_lines(path: str | os.PathLike) -> list[str]:
    """A JSON Lines file's lines as the command reads them: split at
    ``\\n``, a final newline ending the last line."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


def lines(data: Any) -> Iterator[tuple[int, str]]:
    """(index, line) of a Ray Dataset or Spark DataFrame, in its order."""
    if type(data).__name__ == "DataFrame" and hasattr(data, "sparkSession"):
        from . import _spark

        return _spark.lines(data)
    from . import _ray

    return _ray.lines(data)


def write_lines(data: Any, path: str | os.PathLike, n: int | None = None) -> int:
    """Writes the rows' ``line`` in index order, one per line, and gives
    their count. The engine hands rows back in index order (Ray's
    ``preserve_order``, Spark's ordered partitions); this checks it: an
    index out of place (a lost or duplicated row) raises, and nothing is
    left at ``path``. With ``n``, exactly ``n`` rows are expected."""
    return _write(lines(data), path, n)


def _write(pairs: Iterable[tuple[int, str]], path: str | os.PathLike, n: int | None) -> int:
    tmp = f"{os.fspath(path)}.part"
    count = 0
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as out:
            for index, line in pairs:
                if index != count:
                    raise RuntimeError(f"row {index} came where row {count} was due: a lost or repeated row")
                out.write(line)
                out.write("\n")
                count += 1
        if n is not None and count != n:
            raise RuntimeError(f"{count} rows written, {n} expected")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return count
