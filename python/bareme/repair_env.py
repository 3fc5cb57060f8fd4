"""A multi-turn tool environment for a repair task (issue 28, docs/repair.md).

``RepairEnvironment("sales-tax-repair")`` holds one repair task (its hidden
cases drawn once) and runs rollouts in which a model repairs the task's
seeded rulebook through four tools only: ``inspect_business(section)``,
``read_rulebook()``, ``replace_rulebook(text)`` and
``calculate_cart(cart_id)``. Each rollout gets a fresh ``RepairSession``
(sessions share nothing); the reward is the verdict of the rulebook stored
when the rollout ends (1.0 all cases right, at most 0.45 otherwise, 0 when
refused), never of the final text.

The seed's limits hold: at most ``max_turns`` model turns (30 by default, 2
to 100; tool calls of the last turn are not run), 8 tool calls per turn,
160 per rollout, tool arguments a JSON object of at most 32,000 UTF-8 bytes
with no key given twice, naming only the tool's parameters (a ``state``
argument is refused). A refused call answers with a fixed error and still
counts.

The rollout loop is here, in process: a client is any object with
``complete(messages, tools) -> dict``, the assistant message in the OpenAI
chat shape (``content``, optional ``tool_calls`` with ``id`` and
``function: {name, arguments}``). It needs no verifiers: the verifiers (v1)
environment, with the same tools and limits, is ``bareme.repair_vf`` (what
``bareme.envs.load_environment("sales-tax-repair")`` returns), which uses
``TASKS``, the limits and ``check_arguments`` from here.
"""

from __future__ import annotations

import json
from typing import Any

import bareme

TASKS: dict[str, str] = {
    "sales-tax-repair": "sales-tax/repair-1.toml",
    "paie-fr-repair": "paie-fr/repair-1.toml",
    "succession-fr-repair": "succession-fr/repair-1.toml",
    "succession-fr-repair-2": "succession-fr/repair-2.toml",
}
"""Each repair environment's task file, under ``bareme.rulebooks_dir()``."""

MAX_CALLS_PER_TURN = 8
MAX_CALLS_PER_ROLLOUT = 160
MAX_ARGUMENT_BYTES = 32_000

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "inspect_business",
            "description": "Show a section of the business records: contract, rules, products, customers, carts (or visible: the visible cases).",
            "parameters": {
                "type": "object",
                "properties": {"section": {"type": "string"}},
                "required": ["section"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_rulebook",
            "description": "The stored calculator: a bareme rulebook (TOML).",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "replace_rulebook",
            "description": "Replace the stored rulebook; a refused text leaves the stored one.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "calculate_cart",
            "description": "Run the stored rulebook on a visible cart and show its answer.",
            "parameters": {
                "type": "object",
                "properties": {"cart_id": {"type": "string"}},
                "required": ["cart_id"],
                "additionalProperties": False,
            },
        },
    },
]

_PARAMS = {t["function"]["name"]: set(t["function"]["parameters"]["properties"]) for t in TOOLS}


def _no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("a key given twice")
    return dict(pairs)


def check_arguments(params: set[str], arguments: Any) -> dict[str, str] | str:
    """A tool call's arguments as the seed admits them: a JSON object of at
    most 32,000 UTF-8 bytes, each key once, exactly ``params``, every value a
    string. The arguments, or the error the model reads."""
    if not isinstance(arguments, str) or len(arguments.encode("utf-8", "surrogatepass")) > MAX_ARGUMENT_BYTES:
        return "error: tool arguments are a JSON object of at most 32000 bytes"
    try:
        args = json.loads(arguments or "{}", object_pairs_hook=_no_twice)
    except ValueError:
        return "error: tool arguments are a JSON object, each key once"
    if isinstance(args, dict) and args and not params:
        return "error: this tool takes no arguments"
    if not isinstance(args, dict) or set(args) != params:
        return "error: the arguments must be exactly: " + ", ".join(sorted(params))
    if not all(isinstance(v, str) for v in args.values()):
        return "error: every argument is a string"
    return args


class RepairEnvironment:
    """One repair task's multi-turn tool environment."""

    def __init__(self, name: str = "sales-tax-repair", max_turns: int = 30):
        if name not in TASKS:
            raise ValueError(f"unknown repair environment {name!r}: one of {', '.join(TASKS)}")
        if not 2 <= max_turns <= 100:
            raise ValueError("max_turns is 2 to 100")
        self.name = name
        self.max_turns = max_turns
        self.repair = bareme.Repair.load(bareme.rulebook_path(TASKS[name]))
        self.tools = TOOLS

    def prompt(self) -> list[dict[str, str]]:
        """The incident, as the rollout's first message."""
        return [{"role": "user", "content": self.repair.prompt}]

    def new_state(self) -> dict[str, Any]:
        """A fresh session and a zeroed call counter."""
        return {"session": self.repair.session(), "calls": 0}

    def call_tool(self, state: dict[str, Any], name: str, arguments: str) -> str:
        """One tool call, its arguments checked; the answer the model reads."""
        state["calls"] += 1
        if state["calls"] > MAX_CALLS_PER_ROLLOUT:
            return "error: this rollout has made its 160 tool calls"
        if name not in _PARAMS:
            return "error: unknown tool"
        args = check_arguments(_PARAMS[name], arguments)
        if isinstance(args, str):
            return args
        session = state["session"]
        if name == "inspect_business":
            return session.inspect_business(args["section"])
        if name == "read_rulebook":
            return session.read_rulebook()
        if name == "replace_rulebook":
            return session.replace_rulebook(args["text"])
        return session.calculate_cart(args["cart_id"])

    def env_response(self, message: dict[str, Any], state: dict[str, Any]) -> list[dict[str, Any]]:
        """The tool messages answering an assistant message's tool calls."""
        calls = message.get("tool_calls") or []
        out = []
        for i, call in enumerate(calls):
            fn = call.get("function") or {}
            if i >= MAX_CALLS_PER_TURN:
                content = "error: at most 8 tool calls a turn"
            else:
                content = self.call_tool(state, fn.get("name", ""), fn.get("arguments", ""))
            out.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": content})
        return out

    def reward(self, state: dict[str, Any]) -> float:
        """The stored rulebook's reward."""
        return float(state["session"].verify()["reward"])

    def rollout(self, client: Any) -> dict[str, Any]:
        """A whole rollout with ``client``: turns until the model answers
        without tool calls or the turns run out, then the reward."""
        state = self.new_state()
        messages: list[dict[str, Any]] = self.prompt()
        for turn in range(self.max_turns):
            message = client.complete(messages, self.tools)
            messages.append(message)
            if not message.get("tool_calls") or turn == self.max_turns - 1:
                break
            messages.extend(self.env_response(message, state))
        verdict = state["session"].verify()
        return {"messages": messages, "reward": float(verdict["reward"]), "verdict": verdict}


def load_environment(name: str = "sales-tax-repair", **options: Any) -> RepairEnvironment:
    """``RepairEnvironment(name, **options)``."""
    return RepairEnvironment(name, **options)


__all__ = [
    "MAX_ARGUMENT_BYTES",
    "MAX_CALLS_PER_ROLLOUT",
    "MAX_CALLS_PER_TURN",
    "RepairEnvironment",
    "TASKS",
    "TOOLS",
    "check_arguments",
    "load_environment",
]
