"""A task set in the seed's tool mode, as a verifiers (v1) multi-turn tool
environment (seed 004, section 3: "Tool mode hides the record and schedule
behind tools").

``load_environment("luma-payroll", mode="tools")`` (through
``bareme.envs.load_environment``) draws the tasks with the generator's
``documents`` prompt option (``bareme generate --option documents``, see
docs/generators.md): the prompt holds the rules and the answer format and
says the record comes as documents, the record and the reference schedule
sitting behind three tools, owned by the task (``RecordToolset``, an MCP
tool server verifiers runs per rollout as ``python -m bareme.tools_vf``);
the task's system prompt names the tools and the turn limit:

* ``read_document(name)``: a document of the record (Luma: ``payroll_record``,
  ``contract``, ``amendment``, those the record holds), as JSON with every
  value as the record writes it;
* ``lookup_reference(name)``: a row of the reference table in force for the
  record, by its name: the rows the record supplies, validated as the
  rulebook reads them, or the rulebook's own (``bareme.table_rows``), and
  any other row the record supplies, which the rules ignore, as the record
  writes it (Luma's distractor ``2025-second-half``);
* ``calculate(expression)``: an expression of bareme's grammar on decimals,
  evaluated exactly by the engine (``bareme.calculate``); it holds no names.

Each rollout's tool schema lists the allowed names of its task (an ``enum``);
a name outside them, or a calculation that fails, answers with an ``error:``
text that names the allowed names or the fault, never a value of the record.
The harness (``ToolHarness``, the repair environment's in-process tool loop)
allows ``max_turns`` model turns (8 by default, as the seed's hosted tool
mode), 8 tool calls a turn; the tool calls of the last turn are not run. The
reward is the rubric's score of the last reply, as in single-turn mode
(``BaremeTask``), with the same metrics, plus ``tool_calls`` and
``tool_errors``.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import verifiers.v1 as vf
from pydantic import Field

import bareme
from bareme.envs import (
    SYSTEMS,
    BaremeTask,
    BaremeTaskData,
    BaremeTaskset,
    BaremeTasksetConfig,
)
from bareme.repair_vf import RepairHarness, RepairHarnessConfig, local_environment

TASKSET_ID = "bareme-tools"
"""The taskset's verifiers id: the package ``bareme_tools``."""


@dataclass(frozen=True)
class ToolMode:
    """How a system's record is put behind tools."""

    table: str
    """The rulebook's reference table that ``lookup_reference`` reads."""
    table_input: str
    """The case input that supplies that table's rows (not a document)."""
    documents: dict[str, list[str]]
    """Each document's name and the case keys it holds, in order."""
    turns: int = 8
    """The seed's turn limit."""
    calculator_help: str = (
        "numbers, + - * /, parentheses, min, max, clamp, abs, "
        "round(x, places), floor(x, places), ceil(x, places)"
    )
    """What the calculator reads, as its tool description says."""


TOOL_MODES: dict[str, ToolMode] = {
    "luma-payroll": ToolMode(
        table="schedule",
        table_input="reference_tables",
        documents={
            "payroll_record": ["task", "field", "gross_pay", "payroll_month", "allowed_deduction"],
            "contract": ["contract_gross_pay"],
            "amendment": ["amendment"],
        },
    ),
}
"""The systems that have a tool mode, and how."""


def tool_mode(system: str) -> ToolMode:
    """``TOOL_MODES[system]``, or a ``ValueError`` naming those that have one."""
    if system not in TOOL_MODES:
        raise ValueError(
            f"{system!r} has no tool mode: one of {', '.join(TOOL_MODES)}"
        )
    return TOOL_MODES[system]


@functools.cache
def _rulebook(system: str) -> bareme.Rulebook:
    """The system's rulebook (its generator's), loaded once per process."""
    return bareme.Generator.load(bareme.rulebook_path(SYSTEMS[system][0])).rulebook


def _case(task_line: str) -> dict[str, Any]:
    """A task line's case, numbers with a fraction as ``Decimal``."""
    from decimal import Decimal

    return json.loads(task_line, parse_float=Decimal)["case"]


@dataclass
class Record:
    """One task's record as its tools show it: documents and reference rows
    by name (only the case's ``case``, never its expected answer)."""

    documents: dict[str, str]
    references: dict[str, str]

    @classmethod
    def of(cls, system: str, task_line: str) -> Record:
        mode = tool_mode(system)
        case = _case(task_line)
        documents = {}
        for name, keys in mode.documents.items():
            text = bareme.case_part(case, keys)
            if text is not None:
                documents[name] = text
        references = dict(bareme.table_rows(_rulebook(system), case, mode.table))
        # A row the record supplies that the rules do not read (an extra key
        # of the table's input, never refused) is still part of the record:
        # shown as the record writes it, under its name.
        supplied = case.get(mode.table_input)
        if isinstance(supplied, dict):
            for name in supplied:
                if name not in references:
                    references[name] = bareme.case_part(supplied, [name]) or "{}"
        return cls(documents=documents, references=references)


def tool_instructions(system: str, line: str) -> str:
    """The system prompt of a task in tool mode (its ``line``): which tools
    hold the record, with this record's names, and the turn limit. The task's
    own prompt, drawn with the ``documents`` option, says the record comes
    as documents."""
    mode = tool_mode(system)
    record = Record.of(system, line)
    return (
        "The record and the reference schedule are not shown in the task: use the tools. "
        f"read_document(name) shows a document of the record ({', '.join(record.documents)}); "
        f"lookup_reference(name) shows a row of the reference schedule the record is read with "
        f"({', '.join(record.references)}), with the months it covers; calculate(expression) "
        f"computes exactly ({mode.calculator_help}). You have at most {mode.turns} turns; "
        "your last message, without a tool call, is your answer."
    )


class ToolState(vf.State):
    """What a rollout's tool server leaves for the metrics."""

    calls: int = 0
    """Tool calls that reached the server."""
    errors: int = 0
    """Of those, the ones answered with an error."""


class RecordToolsetConfig(vf.ToolsetConfig):
    """Where the tool server runs (a local subprocess by default)."""


def _name_parameter(what: str, names: list[str]) -> Any:
    """A string parameter whose schema lists ``names`` (an ``enum``), while
    any string reaches the tool, which answers an unknown one itself."""
    return Annotated[
        str,
        Field(description=f"the {what}: one of {', '.join(names)}", json_schema_extra={"enum": names}),
    ]


class RecordToolset(vf.Toolset[RecordToolsetConfig, ToolState]):
    """The three tools of one rollout's record."""

    TOOL_PREFIX = None
    """The tools keep their bare names."""

    record: Record | None = None
    mode: ToolMode | None = None

    async def setup_task(self, task: BaremeTaskData) -> None:
        """The task's documents and reference rows, read once."""
        self.mode = tool_mode(task.system)
        self.record = Record.of(task.system, task.bareme_task)

    def _answer(self, text: str) -> str:
        """Counts the call (and an error) in the rollout's state."""
        self.state.calls += 1
        if text.startswith("error:"):
            self.state.errors += 1
        return text

    def read_document(self, name: str) -> str:
        """A document of the record, by name."""
        documents = self.record.documents if self.record else {}
        if name in documents:
            return self._answer(documents[name])
        return self._answer(
            f"error: no document {name!r}; the documents of this record are: {', '.join(documents)}"
        )

    def lookup_reference(self, name: str) -> str:
        """A row of the reference schedule in force for the record, by name."""
        rows = self.record.references if self.record else {}
        if name in rows:
            return self._answer(rows[name])
        return self._answer(
            f"error: no reference row {name!r}; the rows are: {', '.join(rows)}"
        )

    def calculate(self, expression: str) -> str:
        """An expression on decimals, computed exactly."""
        try:
            return self._answer(bareme.calculate(expression))
        except ValueError as e:
            return self._answer(f"error: {e}")

    def register(self, mcp: Any) -> None:
        """The tools, their schemas listing this task's allowed names."""
        record = self.record or Record(documents={}, references={})
        mode = self.mode or ToolMode(table="", table_input="", documents={})
        tools: list[tuple[Callable[..., str], str, dict[str, Any]]] = [
            (
                self.read_document,
                "Show a document of the record (JSON), by name: " + ", ".join(record.documents) + ".",
                {"name": _name_parameter("document", list(record.documents))},
            ),
            (
                self.lookup_reference,
                "Show a row of the reference schedule in force for this record (JSON: its name, "
                "the months it covers, its values), by name: " + ", ".join(record.references) + ".",
                {"name": _name_parameter("row", list(record.references))},
            ),
            (
                self.calculate,
                "Compute an expression on decimals exactly (numbers only, no names): "
                + mode.calculator_help
                + ". Write each amount as a number, e.g. round(0.04 * min(3450.00, 5000.00), 2).",
                {"expression": Annotated[str, Field(description="the expression")]},
            ),
        ]
        for method, description, params in tools:

            def tool(*args: Any, _method: Callable[..., str] = method, **kwargs: Any) -> str:
                return _method(*args, **kwargs)

            name = method.__name__
            (param,) = params
            tool.__name__ = name
            tool.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
                [inspect.Parameter(param, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=params[param])],
                return_annotation=str,
            )
            tool.__annotations__ = {param: params[param], "return": str}
            mcp.add_tool(self._with_state(tool), name=name, description=description)


class ToolTask(BaremeTask, vf.Task[BaremeTaskData, ToolState]):
    """A task in tool mode: its tools, and the rubric's score of the last reply."""

    @classmethod
    def toolsets(cls, config: vf.TaskConfig) -> list[vf.Toolset]:
        return [RecordToolset(RecordToolsetConfig())]

    @vf.metric
    async def tool_use(self, trace: vf.Trace) -> dict[str, float]:
        """Tool calls that reached the server, and those answered with an error."""
        return {
            "tool_calls": float(getattr(trace.state, "calls", 0)),
            "tool_errors": float(getattr(trace.state, "errors", 0)),
        }


class ToolTasksetConfig(BaremeTasksetConfig):
    """Which system (one with a tool mode), split and how many tasks."""


class ToolTaskset(BaremeTaskset, vf.Taskset[ToolTask, ToolTasksetConfig]):
    """The tasks of one split, their records behind tools."""

    TASK = ToolTask
    OPTIONS = {"documents": True}

    def system_prompt_of(self, task: dict[str, Any], line: str) -> str | None:
        return tool_instructions(self.config.system, line)


class ToolHarnessConfig(RepairHarnessConfig):
    """The seed's turn limit in tool mode: 8."""

    max_turns: int = Field(8, ge=2, le=100)


class ToolHarness(RepairHarness, vf.Harness[ToolHarnessConfig]):
    """The repair environment's in-process tool loop, at the tool mode's
    turn limit."""


def load_environment(
    system: str = "luma-payroll",
    split: str = "train",
    n: int = 200,
    seed: int | None = None,
    judge_id: int | None = None,
    max_turns: int | None = None,
    **options: Any,
) -> vf.Env:
    """The tool-mode environment of ``n`` tasks of ``system``'s ``split``
    (``bareme.envs.load_environment(system, mode="tools")`` calls this):
    ``ToolTaskset`` played by ``ToolHarness`` (``max_turns``: the seed's 8
    unless given, 2 to 100) in the local subprocess runtime; ``options`` go
    to ``SingleAgentEnvConfig``."""
    mode = tool_mode(system)
    taskset = ToolTasksetConfig(
        id=TASKSET_ID, system=system, split=split, n=n, seed=seed, judge_id=judge_id
    )
    harness = ToolHarnessConfig(id=TASKSET_ID, max_turns=max_turns or mode.turns)
    return local_environment(taskset, harness, options)


__all__ = [
    "TOOL_MODES",
    "Record",
    "RecordToolset",
    "ToolHarness",
    "ToolHarnessConfig",
    "ToolMode",
    "ToolState",
    "ToolTask",
    "ToolTaskset",
    "ToolTasksetConfig",
    "load_environment",
    "tool_instructions",
    "tool_mode",
]

if __name__ == "__main__":
    RecordToolset.run()
