"""`bareme.dist` on Spark `local[2,4]` (two cores, each task tried up to four times), one
session for the module: generate, evaluate and score
write the single-process command's bytes for 20,000 tasks of each bundled
generator; a killed worker is retried with no line lost or repeated; a
worker that finds another rulebook version refuses. Runs when the `spark`
extra is installed (`pip install "./python[spark]"`)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

from conftest import GENERATORS  # noqa: E402
from dist_refs import IDS, arm, check_crash_retried, check_evaluate, check_fields, check_generate  # noqa: E402
from dist_refs import check_duplicates_redrawn, check_other_version_refused, check_score  # noqa: E402

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def marker(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("spark-crash") / "armed"


@pytest.fixture(scope="module")
def engine(marker: Path):
    # Set before the workers start, so that they inherit it.
    arm(marker)
    from bareme.dist import _spark

    session = _spark.start("local[2,4]")
    yield session
    session.stop()


@pytest.mark.parametrize("generator", GENERATORS, ids=IDS)
def test_generate_is_bareme_generate(engine, generator: Path, refs, tmp_path: Path):
    check_generate(engine, generator, refs, tmp_path / "out.jsonl")


@pytest.mark.parametrize("generator", GENERATORS, ids=IDS)
def test_evaluate_is_eval_batch(engine, generator: Path, refs, tmp_path: Path):
    check_evaluate(engine, generator, refs, tmp_path / "out.jsonl")


@pytest.mark.parametrize("generator", GENERATORS, ids=IDS)
def test_score_is_bareme_score(engine, generator: Path, refs, tmp_path: Path):
    check_score(engine, generator, refs, tmp_path / "out.jsonl")


def test_columns_are_the_task_fields(engine):
    import bareme.dist as dist

    data = dist.generate(engine, GENERATORS[0], 60, 5, shards=2)
    rows = data.take_all() if hasattr(data, "take_all") else [r.asDict() for r in data.collect()]
    check_fields(engine, rows)


def test_duplicates_are_redrawn_as_the_command_does(engine, tmp_path: Path):
    check_duplicates_redrawn(engine, tmp_path)


def test_killed_worker_is_retried(engine, marker: Path, refs, tmp_path: Path):
    check_crash_retried(engine, marker, refs, tmp_path / "out.jsonl")


def test_worker_with_another_version_refuses(engine, tmp_path: Path):
    check_other_version_refused(engine, tmp_path)
