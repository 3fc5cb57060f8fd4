"""verifiers environments for the four bundled task sets (``pip install "./python[envs]"``).

``load_environment(system, split="train", n=200, seed=None, judge=None)``
returns a ``verifiers`` (v1) environment whose taskset draws ``n`` tasks from
the system's bundled generator and scores each reply with its bundled rubric
through ``bareme.Rubric.score``:

* the prompt is the task's own prompt as a chat message; the task's public
  fields (id, tier, level, branch, tags) ride on the task data, and the task
  line itself (``bareme_task``, with the expected answer) is read only by
  the reward, never shown to the model;
* the reward ``rubric_score`` is the rubric's score (the reference reply earns the
  rubric's maximum, a malformed reply its floor); every component's points
  are logged as metrics (``part:path``), with ``malformed`` (0 or 1);
* splits: ``train``, ``dev`` and ``test`` draw at the seeds 1001, 2002 and
  3003 (as docs/generators.md's disjoint splits do), each exactly ``n``
  tasks; a later split is drawn excluding the earlier splits of the same
  ``n`` (the generator's ``--exclude``: a draw whose case they hold is drawn
  again), so the three share no case;
* ``judge``: the explanation seam. A callable ``(task: dict, reply: str) ->
  float | None`` grading the reply's explanation in [0, 1]; its grade is
  the rubric's ``explanation_grade`` (a rubric that weighs no explanation
  ignores it).

* ``mode="tools"`` (Luma only): the seed's tool mode, a multi-turn tool
  environment where the record and schedule sit behind tools
  (``bareme.tools_vf``: read a document, look up a reference row, calculate
  exactly; at most ``max_turns`` turns, 8 by default).

The taskset is also installed as the verifiers package ``bareme-envs``
(module ``bareme_envs``), so ``vf eval bareme-envs --env.taskset.system
luma-payroll`` finds it the way verifiers finds any taskset.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import verifiers.v1 as vf

import bareme

SYSTEMS: dict[str, tuple[str, str]] = {
    "luma-payroll": ("luma-payroll/generator-4.toml", "luma-payroll/rubric-8.toml"),
    "paie-fr": ("paie-fr/generator-1.toml", "paie-fr/rubric-1.toml"),
    "succession-fr": ("succession-fr/generator-1.toml", "succession-fr/rubric-1.toml"),
    "sales-tax": ("sales-tax/generator-1.toml", "sales-tax/rubric-1.toml"),
}
"""Each system's bundled generator and rubric, under ``bareme.rulebooks_dir()``."""

SPLIT_SEEDS: dict[str, int] = {"train": 1001, "dev": 2002, "test": 3003}
"""The seed each split draws at; the order is the order of exclusion."""

Judge = Callable[[dict, str], "float | None"]

_JUDGES: dict[int, Judge] = {}
"""Judges by id: a config holds only data, so the taskset finds its judge here."""


def split_task_lines(
    system: str,
    split: str,
    n: int,
    seed: int | None = None,
    options: dict[str, bool] | None = None,
) -> list[str]:
    """The task lines of one split: exactly ``n`` tasks drawn at the split's
    seed (or ``seed``), excluding the cases of the splits before it, with
    the generator's prompt ``options`` (``bareme generate --option``) set."""
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}: one of {', '.join(SYSTEMS)}")
    if split not in SPLIT_SEEDS:
        raise ValueError(f"unknown split {split!r}: one of {', '.join(SPLIT_SEEDS)}")
    generator = bareme.Generator.load(bareme.rulebook_path(SYSTEMS[system][0]), options=options)
    earlier: list[list[str]] = []
    for name, split_seed in SPLIT_SEEDS.items():
        if name == split:
            break
        earlier.append(generator.generate_json(n, split_seed, exclude=earlier))
    return generator.generate_json(n, SPLIT_SEEDS[split] if seed is None else seed, exclude=earlier)


class BaremeTaskData(vf.TaskData):
    """One task: the prompt and public fields, and the task line for the reward."""

    system: str = ""
    tier: str | None = None
    level: int | None = None
    branch: str | None = None
    tags: list[str] = []
    bareme_task: str = ""
    """The task's JSON line as ``bareme generate`` writes it (its ``expected``
    included): read by the reward only."""


class BaremeTask(vf.Task[BaremeTaskData]):
    """A task scored by the system's rubric."""

    judge: Judge | None = None
    rubric: bareme.Rubric | None = None

    def graded(self, trace: vf.Trace) -> dict[str, Any]:
        """The rubric's score of the trace's reply, computed once per trace."""
        cached = trace.info.get("bareme_score")
        if cached is not None:
            return cached
        rubric = self.rubric or bareme.Rubric.load(
            bareme.rulebook_path(SYSTEMS[self.data.system][1])
        )
        reply = trace.last_reply
        grade = None
        if self.judge is not None:
            grade = self.judge(json.loads(self.data.bareme_task), reply)
        scored = rubric.score(self.data.bareme_task, reply, explanation_grade=grade)
        trace.info["bareme_score"] = scored
        return scored

    @vf.reward
    async def rubric_score(self, trace: vf.Trace) -> float:
        """The rubric's score of the reply."""
        return float(self.graded(trace)["score"])

    @vf.metric
    async def components(self, trace: vf.Trace) -> dict[str, float]:
        """Each component's points (``part:path``), and ``malformed`` (0 or 1)."""
        scored = self.graded(trace)
        out = {"malformed": 1.0 if "malformed" in scored else 0.0}
        for c in scored["components"]:
            if "points" in c:
                key = c["part"] + (":" + c["path"] if "path" in c else "")
                out[key] = float(c["points"])
        return out


class BaremeTasksetConfig(vf.TasksetConfig):
    """Which system, split and how many tasks."""

    system: str = "luma-payroll"
    split: str = "train"
    n: int = 200
    seed: int | None = None
    judge_id: int | None = None


class BaremeTaskset(vf.Taskset[BaremeTask, BaremeTasksetConfig]):
    """The tasks of one split of one system, drawn by its bundled generator."""

    TASK: type[BaremeTask] = BaremeTask
    """The task class each line becomes."""

    OPTIONS: dict[str, bool] = {}
    """The generator's prompt options the tasks are drawn with."""

    def system_prompt_of(self, task: dict[str, Any], line: str) -> str | None:
        """A system prompt for the task (``task`` read from its ``line``): none."""
        return None

    def load(self) -> Iterable[BaremeTask]:
        c = self.config
        rubric = bareme.Rubric.load(bareme.rulebook_path(SYSTEMS[c.system][1]))
        judge = _JUDGES.get(c.judge_id) if c.judge_id is not None else None
        for line in split_task_lines(c.system, c.split, c.n, c.seed, self.OPTIONS or None):
            task = json.loads(line)
            data = BaremeTaskData(
                id=task["id"],
                name=task["id"],
                prompt=[vf.UserMessage(content=task["prompt"])],
                system_prompt=self.system_prompt_of(task, line),
                system=c.system,
                tier=task.get("tier"),
                level=task.get("level"),
                branch=task.get("branch"),
                tags=task.get("tags") or [],
                bareme_task=line,
            )
            t = self.TASK(data)
            t.rubric = rubric
            t.judge = judge
            yield t


def load_environment(
    system: str = "luma-payroll",
    split: str = "train",
    n: int = 200,
    seed: int | None = None,
    judge: Judge | None = None,
    mode: str = "single",
    **options: Any,
) -> vf.Env:
    """A verifiers environment of ``n`` tasks of ``system``'s ``split``.

    ``mode``: ``"single"`` (the prompt holds the record; one reply) or
    ``"tools"`` (``bareme.tools_vf``: the record behind tools, several
    turns; ``options`` may give ``max_turns``, 8 by default).
    ``options`` go to verifiers' ``EnvConfig`` (e.g. ``max_concurrent_agents``).
    A repair system (``"sales-tax-repair"``, ``bareme.repair_env.TASKS``)
    gives its multi-turn tool environment instead (``bareme.repair_vf``:
    task-owned tools, ``options`` its ``max_turns`` and env config)."""
    from bareme import repair_env

    if system in repair_env.TASKS:
        from bareme import repair_vf

        return repair_vf.load_environment(system, **options)
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r}: one of {', '.join(SYSTEMS)}")
    if mode not in ("single", "tools"):
        raise ValueError(f"unknown mode {mode!r}: single or tools")
    judge_id = None
    if judge is not None:
        judge_id = id(judge)
        _JUDGES[judge_id] = judge
    if mode == "tools":
        from bareme import tools_vf

        return tools_vf.load_environment(
            system, split=split, n=n, seed=seed, judge_id=judge_id, **options
        )
    taskset = BaremeTasksetConfig(
        id="bareme-envs", system=system, split=split, n=n, seed=seed, judge_id=judge_id
    )
    return vf.SingleAgentEnv(vf.SingleAgentEnvConfig(taskset=taskset, **options))


__all__ = [
    "BaremeTask",
    "BaremeTaskData",
    "BaremeTaskset",
    "BaremeTasksetConfig",
    "SPLIT_SEEDS",
    "SYSTEMS",
    "load_environment",
    "split_task_lines",
]
