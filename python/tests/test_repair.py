"""Repair tasks from Python (issue 28): the session's tools and the
multi-turn tool environment, driven offline by a scripted client (no
model, no network): the seeded candidate earns 0.0, the reference 1.0."""

from __future__ import annotations

import json

import pytest

import bareme
from bareme import repair_env


class Scripted:
    """Stands in for the model: one assistant message per turn, in order."""

    def __init__(self, turns: list[dict]):
        self.turns = list(turns)
        self.seen: list[list[dict]] = []

    def complete(self, messages, tools):
        assert [t["function"]["name"] for t in tools] == [
            "inspect_business", "read_rulebook", "replace_rulebook", "calculate_cart"
        ]
        self.seen.append(list(messages))
        return self.turns.pop(0) if self.turns else {"role": "assistant", "content": "Done."}


def calls(*pairs: tuple[str, dict]) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(pairs)
        ],
    }


@pytest.fixture(scope="module")
def env() -> repair_env.RepairEnvironment:
    return repair_env.load_environment("sales-tax-repair")


def reference_text() -> str:
    return bareme.rulebook_path("sales-tax/v1/rulebook.toml").read_text()


def test_the_seeded_candidate_earns_zero(env):
    client = Scripted([
        calls(("inspect_business", {"section": "contract"}), ("calculate_cart", {"cart_id": "CART-1"})),
        {"role": "assistant", "content": "I fixed everything. PASS"},
    ])
    out = env.rollout(client)
    assert out["reward"] == 0.0
    tool_answers = [m["content"] for m in out["messages"] if m["role"] == "tool"]
    assert "Line net" in tool_answers[0]
    assert json.loads(tool_answers[1])["cart_id"] == "CART-1"


def test_the_reference_earns_one(env):
    client = Scripted([
        calls(("read_rulebook", {})),
        calls(("replace_rulebook", {"text": "not a rulebook"})),
        calls(("replace_rulebook", {"text": reference_text()}), ("calculate_cart", {"cart_id": "CART-3"})),
    ])
    out = env.rollout(client)
    answers = [m["content"] for m in out["messages"] if m["role"] == "tool"]
    refused = json.loads(answers[1])
    assert refused["updated"] is False and refused["error"].startswith("refused: candidate::invalid")
    assert json.loads(answers[2]) == {"updated": True}
    assert json.loads(answers[3])["tax"] == "0.16"
    assert out["reward"] == 1.0
    assert out["verdict"]["cases_passed"] == out["verdict"]["cases"] == 149
    # Nothing hidden reached the model: no hidden id, no group name.
    shown = json.dumps(out["messages"])
    assert "sales-0" not in shown and "new_identities" not in shown


def test_the_limits(env):
    state = env.new_state()
    assert env.call_tool(state, "inspect_business", '{"section": "rules", "section": "x"}').startswith("error")
    assert env.call_tool(state, "inspect_business", '{"section": "rules", "state": {}}').startswith("error")
    assert env.call_tool(state, "read_rulebook", "[]").startswith("error")
    big = json.dumps({"text": "x" * 40_000})
    assert env.call_tool(state, "replace_rulebook", big).startswith("error")
    assert env.call_tool(state, "calculate_cart", '{"cart_id": "sales-0"}').startswith("error: unknown cart")
    assert env.call_tool(state, "shell", "{}") == "error: unknown tool"
    many = calls(*[("read_rulebook", {})] * 9)
    answers = env.env_response(many, state)
    assert answers[-1]["content"] == "error: at most 8 tool calls a turn"
    state["calls"] = 160
    assert env.call_tool(state, "read_rulebook", "{}").startswith("error")
    # Sessions share nothing.
    a, b = env.new_state(), env.new_state()
    assert json.loads(env.call_tool(a, "replace_rulebook", json.dumps({"text": reference_text()})))["updated"]
    assert env.reward(a) == 1.0 and env.reward(b) == 0.0
    with pytest.raises(ValueError):
        repair_env.RepairEnvironment("sales-tax-repair", max_turns=1)


def test_the_turn_limit_stops_tool_calls():
    env = repair_env.RepairEnvironment("sales-tax-repair", max_turns=2)
    client = Scripted([calls(("read_rulebook", {})), calls(("replace_rulebook", {"text": reference_text()}))])
    out = env.rollout(client)
    # The second turn is the last: its replacement is never run.
    assert out["reward"] == 0.0


def test_envs_gives_the_repair_environment():
    envs = pytest.importorskip("bareme.envs", reason="the envs extra: pip install './python[envs]'")
    env = envs.load_environment("sales-tax-repair", max_turns=10)
    assert isinstance(env, repair_env.RepairEnvironment)
    assert env.max_turns == 10
