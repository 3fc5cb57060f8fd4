"""A repair task as a verifiers (v1) environment (issue 28, docs/repair.md).

``load_environment("sales-tax-repair")`` (also ``paie-fr-repair``,
``succession-fr-repair``, ``succession-fr-repair-2``;
``bareme.envs.load_environment`` gives the same) returns a
``vf.SingleAgentEnv`` over ``RepairTaskset``: one task, the repair file's
incident as its prompt.

* **Tools, owned by the task**: ``RepairTask.toolsets`` declares
  ``RepairToolset``, an MCP tool server verifiers launches per rollout (this
  module run as ``python -m bareme.repair_vf``). Its ``setup_task`` opens one
  ``bareme.RepairSession`` holding the seeded candidate; the four tools
  (``inspect_business``, ``read_rulebook``, ``replace_rulebook``,
  ``calculate_cart``) are that session's. One process and one session per
  rollout: sessions share nothing.
* **State**: every call leaves the stored rulebook's text and the call count
  in the rollout's ``RepairState`` (verifiers syncs it between the tool
  server and the trace).
* **Reward** ``repair_reward``: ``bareme verify``'s reward of the rulebook
  stored when the rollout ends (``Repair.verify``), whatever the final
  message says; metrics ``cases_passed``, ``cases``, ``refused`` and one
  ``group:NAME`` (0 or 1) per group.
* **The seed's limits**: the tool server refuses a call past the 160th of a
  rollout and a string argument over 32,000 bytes, whatever harness calls it.
  The bundled harness ``RepairHarness`` (the taskset's default: the ``bareme_repair``
  package exports both) runs the rollout in process: at most ``max_turns``
  model turns (30 by default, 2 to 100; the tool calls of the last turn are
  not run), 8 calls a turn, arguments a JSON object of at most 32,000 bytes,
  each key once, exactly the tool's parameters (a ``state`` argument is
  refused). Every model call goes through verifiers' interception endpoint,
  every tool call through the rollout's MCP server.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from contextlib import AsyncExitStack
from typing import Any

import verifiers.v1 as vf
from pydantic import Field

import bareme
from bareme.repair_env import (
    MAX_ARGUMENT_BYTES,
    MAX_CALLS_PER_ROLLOUT,
    MAX_CALLS_PER_TURN,
    TASKS,
    check_arguments,
)

TASKSET_ID = "bareme-repair"
"""The taskset's verifiers id: the package ``bareme_repair``."""


@functools.cache
def load_repair(name: str) -> bareme.Repair:
    """The repair task ``name`` (``TASKS``), its hidden cases drawn once per process."""
    if name not in TASKS:
        raise ValueError(f"unknown repair environment {name!r}: one of {', '.join(TASKS)}")
    return bareme.Repair.load(bareme.rulebook_path(TASKS[name]))


class RepairState(vf.State):
    """What a rollout's tool server leaves for the reward."""

    rulebook: str | None = None
    """The stored rulebook's text; None while the seeded candidate is stored."""
    calls: int = 0
    """Tool calls made in the rollout, refused ones included."""


class RepairTaskData(vf.TaskData):
    """One repair task: the prompt, and which repair file (``TASKS``)."""

    repair: str = "sales-tax-repair"


class RepairToolsetConfig(vf.ToolsetConfig):
    """Where the tool server runs (a local subprocess by default)."""


class RepairToolset(vf.Toolset[RepairToolsetConfig, RepairState]):
    """The four tools of one rollout's ``RepairSession``."""

    TOOL_PREFIX = None
    """The tools keep the seed's bare names."""

    session: Any = None

    async def setup_task(self, task: RepairTaskData) -> None:
        """A fresh session holding the seeded candidate."""
        self.session = load_repair(task.repair).session()

    def _admit(self, *arguments: str) -> str | None:
        """Count the call; the refusal when a limit is passed."""
        self.state.calls += 1
        if self.state.calls > MAX_CALLS_PER_ROLLOUT:
            return f"error: this rollout has made its {MAX_CALLS_PER_ROLLOUT} tool calls"
        if sum(len(a.encode("utf-8", "surrogatepass")) for a in arguments) > MAX_ARGUMENT_BYTES:
            return f"error: tool arguments are at most {MAX_ARGUMENT_BYTES} bytes"
        if self.session is None:
            return "error: no repair session"
        return None

    @vf.tool
    def inspect_business(self, section: str) -> str:
        """Show a section of the business records: contract, rules, products, customers, carts (or visible: the visible cases)."""
        return self._admit(section) or self.session.inspect_business(section)

    @vf.tool
    def read_rulebook(self) -> str:
        """The stored calculator: a bareme rulebook (TOML)."""
        return self._admit() or self.session.read_rulebook()

    @vf.tool
    def replace_rulebook(self, text: str) -> str:
        """Replace the stored rulebook; a refused text leaves the stored one."""
        refused = self._admit(text)
        if refused:
            return refused
        answer = self.session.replace_rulebook(text)
        if json.loads(answer).get("updated"):
            self.state.rulebook = self.session.read_rulebook()
        return answer

    @vf.tool
    def calculate_cart(self, cart_id: str) -> str:
        """Run the stored rulebook on a visible cart and show its answer."""
        return self._admit(cart_id) or self.session.calculate_cart(cart_id)


class RepairTask(vf.Task[RepairTaskData, RepairState]):
    """A repair task: its tools, and the verdict of the rulebook left behind."""

    @classmethod
    def toolsets(cls, config: vf.TaskConfig) -> list[vf.Toolset]:
        return [RepairToolset(RepairToolsetConfig())]

    def verdict(self, trace: vf.Trace) -> dict[str, Any]:
        """``bareme verify``'s verdict of the stored rulebook, computed once per trace."""
        cached = trace.info.get("bareme_verdict")
        if cached is not None:
            return cached
        repair = load_repair(self.data.repair)
        text = getattr(trace.state, "rulebook", None)
        verdict = repair.session().verify() if text is None else repair.verify(text)
        trace.info["bareme_verdict"] = verdict
        return verdict

    @vf.reward
    async def repair_reward(self, trace: vf.Trace) -> float:
        """1.0 every hidden and visible case right; at most 0.45 otherwise; 0 refused."""
        return float(self.verdict(trace)["reward"])

    @vf.metric
    async def verification(self, trace: vf.Trace) -> dict[str, float]:
        """Cases passed, cases, refused (0 or 1) and each group (0 or 1)."""
        v = self.verdict(trace)
        out = {
            "cases_passed": float(v["cases_passed"]),
            "cases": float(v["cases"]),
            "refused": 1.0 if "refused" in v else 0.0,
            "tool_calls": float(getattr(trace.state, "calls", 0)),
        }
        for name, passed in v["groups"].items():
            out[f"group:{name}"] = 1.0 if passed else 0.0
        return out


class RepairTasksetConfig(vf.TasksetConfig):
    """Which repair task."""

    repair: str = "sales-tax-repair"


class RepairTaskset(vf.Taskset[RepairTask, RepairTasksetConfig]):
    """One repair task (a repair file holds one)."""

    def load(self) -> Iterable[RepairTask]:
        name = self.config.repair
        repair = load_repair(name)
        yield RepairTask(
            RepairTaskData(
                id=name,
                name=name,
                prompt=[vf.UserMessage(content=repair.prompt)],
                repair=name,
            )
        )


class RepairHarnessConfig(vf.HarnessConfig):
    """The seed's turn limit."""

    max_turns: int = Field(30, ge=2, le=100)


class RepairHarness(vf.Harness[RepairHarnessConfig]):
    """The seed's tool loop, in process: the model through verifiers'
    interception endpoint, the tools through the rollout's MCP servers."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_MCP = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: vf.ModelContext,
        trace: vf.Trace,
        runtime: vf.Runtime,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: vf.TaskData,
    ) -> vf.ProgramResult:
        from openai import AsyncOpenAI
        from verifiers.v1.harnesses.utils.mcp import call_mcp, connect_mcp

        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages.extend(m.model_dump(exclude_none=True) for m in prompt or [])
        servers_config = {
            "mcpServers": {
                name: {"url": url, "timeout": self.config.tool_timeout}
                for name, url in mcp_urls.items()
            }
        }
        client = AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0)
        async with AsyncExitStack() as stack:
            stack.push_async_callback(client.close)
            tools, dispatch, servers = await connect_mcp(servers_config, stack)
            params = {
                t["function"]["name"]: set((t["function"]["parameters"] or {}).get("properties", {}))
                for t in tools
            }
            for turn in range(self.config.max_turns):
                completion = await client.chat.completions.create(
                    model=ctx.model, messages=messages, tools=tools
                )
                message = completion.choices[0].message
                messages.append(message.model_dump(exclude_none=True))
                if not message.tool_calls or turn == self.config.max_turns - 1:
                    break
                for i, call in enumerate(message.tool_calls):
                    name = call.function.name
                    if i >= MAX_CALLS_PER_TURN:
                        content: Any = f"error: at most {MAX_CALLS_PER_TURN} tool calls a turn"
                    elif name not in dispatch:
                        content = "error: unknown tool"
                    else:
                        args = check_arguments(params[name], call.function.arguments)
                        if isinstance(args, str):
                            content = args
                        else:
                            content = await call_mcp(servers, dispatch, name, args)
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        return vf.ProgramResult(exit_code=0, stdout="", stderr="")


def load_environment(name: str = "sales-tax-repair", max_turns: int = 30, **options: Any) -> vf.Env:
    """The repair task ``name``'s verifiers environment: ``RepairTaskset``
    played by ``RepairHarness`` (``max_turns``, 2 to 100) in the local
    subprocess runtime; ``options`` go to ``SingleAgentEnvConfig``."""
    load_repair(name)
    taskset = RepairTasksetConfig(id=TASKSET_ID, repair=name)
    return local_environment(taskset, RepairHarnessConfig(id=TASKSET_ID, max_turns=max_turns), options)


def local_environment(
    taskset: vf.TasksetConfig, harness: vf.HarnessConfig, options: dict[str, Any]
) -> vf.Env:
    """A single-agent environment of ``taskset`` played by ``harness`` in the
    local subprocess runtime (the repair and tool-mode environments both);
    ``options`` go to ``SingleAgentEnvConfig``, an ``agent`` among them
    replacing the harness and runtime."""
    agent = options.pop("agent", vf.AgentConfig(harness=harness, runtime=vf.SubprocessConfig()))
    return vf.SingleAgentEnv(vf.SingleAgentEnvConfig(taskset=taskset, agent=agent, **options))


__all__ = [
    "RepairHarness",
    "RepairHarnessConfig",
    "RepairState",
    "RepairTask",
    "RepairTaskData",
    "RepairTaskset",
    "RepairTasksetConfig",
    "RepairToolset",
    "load_environment",
    "load_repair",
    "local_environment",
]

if __name__ == "__main__":
    RepairToolset.run()
