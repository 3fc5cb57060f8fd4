"""``bareme.dist`` on Ray Data: index ranges as a ``ray.data.range`` of
shards, ``map_batches`` running ``_work`` in Ray tasks (each retried by Ray
when its worker dies: Ray core's ``max_retries``, 3 by default), the order of blocks kept
(``preserve_order``) so that lines come back in index order."""

from __future__ import annotations

import os
from typing import Any, Iterator

import pyarrow as pa
import ray

from . import _work

# A Ray task whose worker process dies is retried by Ray core (its
# default `max_retries`, 3); an exception raised by the work itself (a
# refusal) is not retried, and fails the dataset.


def start(address: str | None = None, num_cpus: int | None = None) -> None:
    """Joins the cluster of ``address`` (or ``$RAY_ADDRESS``, as ``ray job
    submit`` sets it), else starts a local one: a small object store, no
    dashboard."""
    if ray.is_initialized():
        return
    env = {k: v for k, v in os.environ.items() if k in (_work.CRASH_ENV, "BAREME_RULEBOOKS")}
    runtime_env = {"env_vars": env} if env else None
    if address or os.environ.get("RAY_ADDRESS"):
        ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
    else:
        ray.init(
            num_cpus=num_cpus,
            object_store_memory=200_000_000,
            include_dashboard=False,
            runtime_env=runtime_env,
            log_to_driver=False,
        )
    ray.data.DataContext.get_current().execution_options.preserve_order = True


def _ordered() -> None:
    ray.data.DataContext.get_current().execution_options.preserve_order = True


def generate(ident: dict, n: int, seed: int, shards: int, level: int | None, fields: bool, jobs: int) -> Any:
    """Phase 1 on the workers (materialized: each shard's first draws and
    identities), phase 2 on the driver (the duplicates drawn again), the
    dataset then phase 1's rows with those lines put in place."""
    _ordered()
    bounds = _work.shard_bounds(n, shards)
    schema = (_work.TASK_SCHEMA if fields else _work.LINE_SCHEMA).append(_work.IDENTITY)

    def draw(batch: pa.Table) -> pa.Table:
        out = []
        for k in batch.column("id").to_pylist():
            start, count = bounds[k]
            out.extend(_work.first_shard(ident, seed, start, count, level, fields, jobs))
        return pa.Table.from_batches(out, schema=schema)

    first = (
        ray.data.range(len(bounds), override_num_blocks=len(bounds))
        .map_batches(draw, batch_size=1, batch_format="pyarrow", num_cpus=1)
        .materialize()
    )

    def pairs() -> Iterator[tuple[int, bytes]]:
        for b in first.select_columns(["index", "identity"]).iter_batches(batch_format="pyarrow", batch_size=None):
            yield from zip(b.column("index").to_pylist(), b.column("identity").to_pylist())

    redrawn = _work.redrawn(ident, seed, level, pairs(), n)

    def settle(batch: pa.Table) -> pa.Table:
        out = [_work.settled(b, redrawn, fields) for b in batch.to_batches()]
        return pa.Table.from_batches(out, schema=_work.TASK_SCHEMA if fields else _work.LINE_SCHEMA)

    return first.map_batches(settle, batch_format="pyarrow", batch_size=None)


def from_lines(column: str, lines: list[str], blocks: int, extra: dict[str, list] | None = None) -> Any:
    """Rows (index, ``column``) of lines, in ``blocks`` blocks in order."""
    _ordered()
    tables = []
    for start, count in _work.shard_bounds(len(lines), blocks):
        cols = {"index": pa.array(range(start, start + count), pa.int64()), column: pa.array(lines[start : start + count], pa.string())}
        for name, values in (extra or {}).items():
            cols[name] = pa.array(values[start : start + count], pa.string())
        tables.append(pa.table(cols))
    return ray.data.from_arrow(tables)


def evaluate(ident: dict, cases: Any, jobs: int) -> Any:
    _ordered()

    def run(batch: pa.Table) -> pa.Table:
        return pa.Table.from_batches(list(_work.evaluate_batches(ident, batch.to_batches(), jobs)), schema=_work.OUT_SCHEMA)

    return cases.map_batches(run, batch_format="pyarrow", batch_size=None, num_cpus=1)


#: This process's task tables, by object reference.
_TASKS: dict[str, dict[str, str]] = {}


def score(ident: dict, tasks: Any, replies: Any) -> Any:
    """Replies scored; the tasks (``id``, ``line``) gathered into one table
    that every worker reads once from the object store (a broadcast, not a
    shuffle)."""
    _ordered()
    table: dict[str, str] = {}
    for batch in tasks.select_columns(["id", "line"]).iter_batches(batch_format="pyarrow"):
        table.update(zip(batch.column("id").to_pylist(), batch.column("line").to_pylist()))
    boxed = [ray.put(table)]
    del table

    def run(batch: pa.Table) -> pa.Table:
        ref = boxed[0]
        key = ref.hex()
        if key not in _TASKS:
            _TASKS.clear()
            _TASKS[key] = ray.get(ref)
        if "id" not in batch.column_names:
            batch = batch.append_column("id", pa.array([_work.reply_id(r) for r in batch.column("reply").to_pylist()], pa.string()))
        return pa.Table.from_batches(list(_work.score_batches(ident, batch.to_batches(), _TASKS[key])), schema=_work.OUT_SCHEMA)

    return replies.map_batches(run, batch_format="pyarrow", batch_size=None, num_cpus=1)


def lines(ds: Any) -> Iterator[tuple[int, str]]:
    """(index, line) in the dataset's order."""
    for batch in ds.select_columns(["index", "line"]).iter_batches(batch_format="pyarrow", batch_size=None):
        yield from zip(batch.column("index").to_pylist(), batch.column("line").to_pylist())
