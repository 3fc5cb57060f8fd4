"""Repair tasks from Python (issue 28): the session's tools, the
engine-independent tool loop driven by a scripted client, and the verifiers
environment run as verifiers runs an episode against a scripted endpoint on
127.0.0.1 (no model, no network beyond loopback): the seeded candidate
earns 0.0, the reference 1.0."""

from __future__ import annotations

import json

import pytest

import bareme
from bareme import repair_env
from scripted import FakeModel, calls


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
    # Half a surrogate pair escaped in the arguments (a model's broken
    # output) is an answer the model reads, not a UnicodeEncodeError.
    lone = "the argument holds half a surrogate pair"
    assert env.call_tool(state, "calculate_cart", '{"cart_id": "CART-1\\ud800"}') == f"error: {lone} (U+D800 to U+DFFF), which no text holds"
    assert env.call_tool(state, "inspect_business", '{"section": "\\udc00"}').startswith(f"error: {lone}")
    refused = json.loads(env.call_tool(state, "replace_rulebook", '{"text": "\\ud800"}'))
    assert refused["updated"] is False and refused["error"].startswith(f"refused: {lone}")
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


def tool_answers(model: FakeModel) -> list[str]:
    """The tool results the model was sent, in order (the last request holds all)."""
    return [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "tool"]


def test_the_verifiers_environment_scores_the_rulebook_left_behind(run_episode):
    vf = pytest.importorskip("verifiers.v1", reason="the envs extra: pip install './python[envs]'")
    from bareme import envs, repair_vf

    env = envs.load_environment("sales-tax-repair", max_turns=10)
    assert isinstance(env, vf.SingleAgentEnv)
    assert isinstance(env.taskset, repair_vf.RepairTaskset)

    # The seeded candidate, whatever the final message claims: 0.0.
    with FakeModel([
        calls(("inspect_business", {"section": "contract"}), ("calculate_cart", {"cart_id": "CART-1"})),
        {"role": "assistant", "content": "I fixed everything. PASS"},
    ]) as model:
        trace = run_episode(env, model)
    tools = model.requests[0]["tools"]
    # The four tools and nothing else (verifiers lists them by name).
    assert [t["function"]["name"] for t in tools] == [
        "calculate_cart", "inspect_business", "read_rulebook", "replace_rulebook"
    ]
    assert tools[3]["function"]["parameters"]["required"] == ["text"]
    answers = tool_answers(model)
    assert "Line net" in answers[0]
    assert json.loads(answers[1])["cart_id"] == "CART-1"
    assert trace.rewards["repair_reward"].score == 0.0
    assert trace.metrics["cases_passed"] == 0.0 and trace.metrics["cases"] == 149.0
    assert trace.metrics["tool_calls"] == 2.0

    # The reference, after a refused text and two refused calls: 1.0.
    with FakeModel([
        calls(("read_rulebook", {})),
        calls(("replace_rulebook", {"text": "not a rulebook"}), ("read_rulebook", {"state": "x"}), ("shell", {})),
        calls(("replace_rulebook", {"text": reference_text()}), ("calculate_cart", {"cart_id": "CART-3"})),
    ]) as model:
        trace = run_episode(env, model)
    answers = tool_answers(model)
    assert answers[0] == repair_vf.load_repair("sales-tax-repair").session().read_rulebook()
    assert answers[0] != reference_text()
    refused = json.loads(answers[1])
    assert refused["updated"] is False and refused["error"].startswith("refused: candidate::invalid")
    assert answers[2] == "error: this tool takes no arguments"
    assert answers[3] == "error: unknown tool"
    assert json.loads(answers[4]) == {"updated": True}
    assert json.loads(answers[5])["tax"] == "0.16"
    assert trace.rewards["repair_reward"].score == 1.0
    assert trace.metrics["cases_passed"] == trace.metrics["cases"] == 149.0
    assert trace.metrics["group:ordering"] == 1.0
    # The two calls the harness refused never reached the server; four did.
    assert trace.metrics["tool_calls"] == 4.0
    # Nothing hidden reached the model: no hidden id, no group name.
    shown = json.dumps(model.requests)
    assert "sales-0" not in shown and "new_identities" not in shown


def test_the_verifiers_environment_keeps_the_turn_limit(run_episode):
    pytest.importorskip("verifiers.v1", reason="the envs extra: pip install './python[envs]'")
    from bareme import repair_vf

    env = repair_vf.load_environment("sales-tax-repair", max_turns=2)
    with FakeModel([
        calls(*[("read_rulebook", {})] * 9),
        calls(("replace_rulebook", {"text": reference_text()})),
    ]) as model:
        trace = run_episode(env, model)
    answers = tool_answers(model)
    assert len(answers) == 9 and answers[-1] == "error: at most 8 tool calls a turn"
    # The second turn is the last: its replacement is never run.
    assert len(model.requests) == 2
    assert trace.rewards["repair_reward"].score == 0.0
    assert trace.metrics["tool_calls"] == 8.0
    with pytest.raises(ValueError):
        repair_vf.load_environment("sales-tax-repair", max_turns=1)


def test_the_tool_server_keeps_the_rollout_limits():
    import asyncio

    pytest.importorskip("verifiers.v1", reason="the envs extra: pip install './python[envs]'")
    from bareme import repair_vf

    def toolset():
        t = repair_vf.RepairToolset(repair_vf.RepairToolsetConfig())
        asyncio.run(t.setup_task(repair_vf.RepairTaskData(repair="sales-tax-repair")))
        return t

    a, b = toolset(), toolset()
    # Outside a rollout's call the state is the server's own (inert) one.
    assert json.loads(a.replace_rulebook(reference_text())) == {"updated": True}
    assert a.state.rulebook == reference_text() and a.state.calls == 1
    # Sessions share nothing.
    assert b.read_rulebook() != reference_text() and b.state.rulebook is None
    assert a.replace_rulebook("x" * 32_001) == "error: tool arguments are at most 32000 bytes"
    a.state.calls = 160
    assert a.read_rulebook() == "error: this rollout has made its 160 tool calls"
