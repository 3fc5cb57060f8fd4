"""``bareme.dist`` on Spark: index ranges as a ``spark.range`` of shards,
``mapInArrow`` running ``_work`` in Python workers (a task whose worker dies
is retried by Spark up to ``spark.task.maxFailures``: ``local[2,4]`` in
local mode), the partitions kept in index order, read back in that order
(``toArrow``); a score joins replies to tasks by id and sorts by
reply index."""

from __future__ import annotations

import os
import sys
from typing import Any, Iterator

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from . import _work

_TASK_DDL = ", ".join(
    f"`{name}` {'long' if t == pa.int64() else 'string'}" for name, t in _work.TASK_FIELDS
)
_LINE_DDL = "`index` long, `id` string, `line` string"
_OUT_DDL = "`index` long, `line` string"


def start(master: str | None = None) -> SparkSession:
    """The active session (``spark-submit`` makes one), else a new one on
    ``master`` (``local[2,4]``: two cores, a task tried four times, when
    neither it nor ``spark.master`` is set)."""
    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    builder = SparkSession.builder.appName("bareme.dist")
    from pyspark import SparkConf

    if master or not SparkConf().contains("spark.master"):
        master = master or "local[2,4]"
        builder = builder.master(master)
    if (master or "").startswith("local"):
        # Local workers run this very interpreter (its venv has bareme).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", os.environ.get("BAREME_SPARK_DRIVER_MEMORY", "2g"))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def generate(spark: SparkSession, ident: dict, n: int, seed: int, shards: int, level: int | None, fields: bool, jobs: int) -> DataFrame:
    """Phase 1 on the executors (kept there by a local checkpoint: each
    shard's first draws and identities), phase 2 on the driver (the duplicates drawn again), the
    frame then phase 1's rows with those lines put in place."""
    bounds = _work.shard_bounds(n, shards)
    ddl = _TASK_DDL if fields else _LINE_DDL

    def draw(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for k in batch.column(0).to_pylist():
                start, count = bounds[k]
                yield from _work.first_shard(ident, seed, start, count, level, fields, jobs)

    # Kept on the executors once drawn (eager): a plan cached by `persist`
    # would be matched by a later call's identical plan and stay until the
    # session ends; a local checkpoint is dropped with the frame.
    first = spark.range(0, len(bounds), 1, numPartitions=len(bounds)).mapInArrow(draw, ddl + ", `identity` binary")
    first = first.localCheckpoint(eager=True)
    table = first.select("index", "identity").toArrow()
    pairs = zip(table.column(0).to_pylist(), table.column(1).to_pylist())
    redrawn = _work.redrawn(ident, seed, level, pairs, n)

    def settle(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield _work.settled(batch, redrawn, fields)

    return first.mapInArrow(settle, ddl)


def from_lines(spark: SparkSession, column: str, lines: list[str], blocks: int | None, extra: dict[str, list] | None = None) -> DataFrame:
    """Rows (index, ``column``) of lines in partitions of contiguous index
    ranges, in order: as ``createDataFrame`` slices them (one per core), or
    ``blocks`` ranges (a sample and a shuffle more)."""
    cols = {"index": pa.array(range(len(lines)), pa.int64()), column: pa.array(lines, pa.string())}
    for name, values in (extra or {}).items():
        cols[name] = pa.array(values, pa.string())
    df = spark.createDataFrame(pa.table(cols))
    if blocks is None or blocks == df.rdd.getNumPartitions():
        return df
    return df.repartitionByRange(max(1, blocks), "index").sortWithinPartitions("index")


def evaluate(ident: dict, cases: DataFrame, jobs: int) -> DataFrame:
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        yield from _work.evaluate_batches(ident, batches, jobs)

    return cases.select("index", "case").mapInArrow(run, _OUT_DDL)


def score(ident: dict, tasks: DataFrame, replies: DataFrame) -> DataFrame:
    """Replies joined to their task by id (a reply to an unknown task keeps
    a null task, and fails), scored, sorted by the reply's index."""
    if "id" not in replies.columns:
        replies = replies.withColumn("id", F.get_json_object("reply", "$.id"))
    joined = replies.select("index", "id", "reply").join(
        tasks.select("id", F.col("line").alias("task")), on="id", how="left"
    )

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        yield from _work.score_batches(ident, batches)

    return joined.mapInArrow(run, _OUT_DDL).orderBy("index")


def lines(df: DataFrame) -> Iterator[tuple[int, str]]:
    """(index, line), partition after partition, gathered on the driver as
    Arrow (``toArrow``: a fourth of the time of ``toLocalIterator``'s rows,
    but the whole output in the driver's memory; beyond that, write with
    ``df.select("line").write.text``, whose part files follow the
    partitions, in index order)."""
    table = df.select("index", "line").toArrow()
    for batch in table.to_batches():
        yield from zip(batch.column(0).to_pylist(), batch.column(1).to_pylist())
