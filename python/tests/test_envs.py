"""Each system's verifiers environment end to end, offline: a scripted client
stands in for the model (no network), its replies are scored by the
environment's own tasks as verifiers scores a finished rollout."""

from __future__ import annotations

import asyncio
import json

import pytest

vf = pytest.importorskip("verifiers.v1", reason="the envs extra: pip install './python[envs]'")

import bareme  # noqa: E402
from bareme import envs  # noqa: E402


class ScriptedClient:
    """Stands in for the model: answers each prompt from a script keyed by
    the prompt's text (the reference reply, or a malformed one)."""

    def __init__(self, replies: dict[str, str]):
        self.replies = replies
        self.calls = 0

    def complete(self, messages) -> str:
        self.calls += 1
        text = "\n\n".join(m.content for m in messages)
        return self.replies[text]


def rollout(task, client: ScriptedClient) -> "vf.Trace":
    """One single-turn rollout: the prompt to the client, its reply onto the
    trace, then the task's own scoring (rewards and metrics)."""
    reply = client.complete(task.data.prompt)
    trace = vf.Trace(
        task=vf.TraceTask(type=type(task).__name__, data=task.data),
        agent=vf.AgentInfo(config=vf.AgentConfig()),
        root_reply=reply,
    )
    asyncio.run(task.score(trace))
    return trace


@pytest.mark.parametrize("system", sorted(envs.SYSTEMS))
def test_an_environment_runs_end_to_end(system: str):
    env = envs.load_environment(system, n=6)
    assert isinstance(env, vf.Env)
    tasks = list(env.taskset)
    assert len(tasks) >= 4
    rubric = bareme.Rubric.load(bareme.rulebook_path(envs.SYSTEMS[system][1]))
    for task in tasks:
        line = task.data.bareme_task
        expected = json.dumps(json.loads(line)["expected"])
        # Never the expected answer in the prompt.
        assert expected not in task.data.prompt_text
        prompt = "\n\n".join(m.content for m in task.data.prompt)
        good = rollout(task, ScriptedClient({prompt: rubric.reference_reply(line)}))
        top = rubric.score(line, rubric.reference_reply(line))
        assert good.rewards["rubric_score"].score == top["score"] == top["max"]
        assert good.metrics["malformed"] == 0.0
        bad = rollout(task, ScriptedClient({prompt: "Sorry, I cannot help with that."}))
        floor = rubric.score(line, "Sorry, I cannot help with that.")
        assert "malformed" in floor
        assert bad.rewards["rubric_score"].score == floor["score"] < top["max"]
        assert bad.metrics["malformed"] == 1.0


def test_splits_are_exactly_n_and_share_no_case():
    keys = {}
    for split in envs.SPLIT_SEEDS:
        lines = envs.split_task_lines("luma-payroll", split, 60)
        keys[split] = {json.dumps(json.loads(l)["case"], sort_keys=True) for l in lines}
        assert len(lines) == len(keys[split]) == 60
    assert not keys["train"] & keys["dev"]
    assert not (keys["train"] | keys["dev"]) & keys["test"]
    assert len(list(envs.load_environment("luma-payroll", split="test", n=60).taskset)) == 60


def test_a_split_is_what_generate_exclude_draws(tmp_path):
    from conftest import run_cli

    train = envs.split_task_lines("luma-payroll", "train", 100)
    dev = envs.split_task_lines("luma-payroll", "dev", 100)
    (tmp_path / "train.jsonl").write_text("\n".join(train) + "\n")
    out = run_cli(
        "generate", str(bareme.rulebook_path("luma-payroll/generator-4.toml")), "-n", "100",
        "--seed", "2002", "--exclude", str(tmp_path / "train.jsonl"),
    )
    assert out.stdout.splitlines() == dev
    # Drawn without the exclusion, one task of the dev seed is one of train
    # (the same signature: the same case up to months of the same row).
    plain = bareme.Generator.load(bareme.rulebook_path("luma-payroll/generator-4.toml")).generate_json(100, 2002)
    assert sum(a != b for a, b in zip(plain, dev)) == 1


def test_the_judge_seam_grades_the_explanation():
    seen = []

    def judge(task: dict, reply: str) -> float:
        seen.append(task["id"])
        return 0.0

    env = envs.load_environment("luma-payroll", n=3, judge=judge)
    task = next(iter(env.taskset))
    rubric = bareme.Rubric.load(bareme.rulebook_path(envs.SYSTEMS["luma-payroll"][1]))
    line = task.data.bareme_task
    prompt = "\n\n".join(m.content for m in task.data.prompt)
    trace = rollout(task, ScriptedClient({prompt: rubric.reference_reply(line)}))
    assert seen == [task.data.id]
    assert trace.rewards["rubric_score"].score == rubric.score(line, rubric.reference_reply(line), 0.0)["score"]


def test_the_taskset_is_found_by_its_id():
    from verifiers.v1.utils.loaders import taskset_class

    cls = taskset_class("bareme-envs")
    assert cls is envs.BaremeTaskset
