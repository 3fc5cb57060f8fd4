"""Shared fixtures: the repository's rulebooks and the `bareme` command the
module is compared with (`$BAREME_BIN`, else the workspace's release or
debug build)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULEBOOKS = ROOT / "rulebooks"


def bareme_bin() -> str:
    env = os.environ.get("BAREME_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        candidate = ROOT / "target" / profile / "bareme"
        if candidate.exists():
            return str(candidate)
    raise RuntimeError(
        "no `bareme` command to compare with: build it (`cargo build`) or set BAREME_BIN"
    )


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [bareme_bin(), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def versions() -> list[Path]:
    """Every bundled rulebook version with conformance cases."""
    return sorted(p for p in RULEBOOKS.glob("*/*") if (p / "rulebook.toml").is_file())


GENERATORS = sorted(RULEBOOKS.glob("*/generator-*.toml"))
RUBRICS = sorted(RULEBOOKS.glob("*/rubric-*.toml"))


def pytest_configure(config):
    for engine in ("ray", "spark"):
        config.addinivalue_line("markers", f"{engine}: bareme.dist on {engine} (needs the `{engine}` extra)")


@pytest.fixture(scope="session")
def refs():
    """The command's outputs that `bareme.dist`'s tests compare with, made
    once for both engines (dist_refs.py)."""
    from dist_refs import make_refs

    yield from make_refs()


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture
def run_episode():
    """Runs one rollout as verifiers runs an episode (interception, the
    task's tool server, scoring) against a ``scripted.FakeModel``:
    ``run_episode(env, model, task=None)`` (the taskset's first task unless
    given) gives the episode's one trace, after checking it has no error."""
    vf = pytest.importorskip("verifiers.v1", reason="the envs extra: pip install './python[envs]'")

    def run(env, model, task=None):
        import asyncio

        task = task if task is not None else next(iter(env.taskset))
        ctx = vf.ModelContext(
            model="scripted",
            client=vf.EvalClientConfig(base_url=model.base_url, api_key_var="BAREME_TEST_KEY"),
        )

        async def go():
            async with env.serving():
                return await env.run_episode(task, ctx)

        episode = asyncio.run(asyncio.wait_for(go(), 300))
        assert not episode.errors, episode.errors
        (trace,) = episode.traces
        return trace

    return run
