"""`bareme.dist` without an engine (runs when pyarrow is installed, as
either extra installs it): index ranges, the ordered writer's checks, and
a worker's refusal of another version."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

from bareme.dist import VersionMismatch, _write  # noqa: E402
from bareme.dist._work import identity, loaded, shard_bounds  # noqa: E402
from conftest import RULEBOOKS  # noqa: E402


def test_shards_are_contiguous_ranges_covering_every_index():
    assert shard_bounds(10, 3) == [(0, 4), (4, 3), (7, 3)]
    assert shard_bounds(2, 5) == [(0, 1), (1, 1)]
    assert shard_bounds(0, 4) == [(0, 0)]


def test_rows_are_written_in_index_order(tmp_path: Path):
    out = tmp_path / "out.jsonl"
    assert _write(iter([(0, "a"), (1, "b")]), out, 2) == 2
    assert out.read_bytes() == b"a\nb\n"


@pytest.mark.parametrize(
    "pairs, why",
    [
        ([(0, "a"), (2, "c")], "row 2 came where row 1 was due"),
        ([(0, "a"), (0, "a"), (1, "b")], "row 0 came where row 1 was due"),
        ([(0, "a")], "1 rows written, 2 expected"),
    ],
)
def test_a_lost_or_repeated_row_is_an_error_and_leaves_no_file(tmp_path: Path, pairs, why):
    out = tmp_path / "out.jsonl"
    with pytest.raises(RuntimeError, match=why):
        _write(iter(pairs), out, 2)
    assert list(tmp_path.iterdir()) == []


def test_a_worker_refuses_another_version():
    ident = identity("generator", RULEBOOKS / "sales-tax/generator-1.toml")
    assert loaded(ident) is loaded(ident)
    with pytest.raises(VersionMismatch, match="refusing to work on another version"):
        loaded(dict(ident, rulebook_hash="0" * 64))
    with pytest.raises(VersionMismatch, match="not the file the driver loaded"):
        loaded(dict(ident, file_sha256="0" * 64))
