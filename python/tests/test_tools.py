"""Luma's tool mode (seed 004, section 3) as a verifiers environment, run
as verifiers runs an episode against a scripted endpoint on 127.0.0.1 (no
model, no network beyond loopback): a scripted model that reads the
record's documents, looks up the row, has the calculator do every sum and
answers with its results earns the rubric's top score; a malformed answer
its floor; a bad tool call an ``error:`` text that reveals no value."""

from __future__ import annotations

import json

import pytest

vf = pytest.importorskip("verifiers.v1", reason="the envs extra: pip install './python[envs]'")

import bareme  # noqa: E402
from bareme import envs, tools_vf  # noqa: E402
from scripted import FakeModel, calls  # noqa: E402

RUBRIC = "luma-payroll/rubric-8.toml"


def tool_results(messages: list[dict]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "tool"]


def answer(content: str) -> dict:
    return {"role": "assistant", "content": content}


@pytest.fixture(scope="module")
def env():
    return envs.load_environment("luma-payroll", n=24, mode="tools")


def first(env, predicate):
    for task in env.taskset:
        line = json.loads(task.data.bareme_task)
        if predicate(line):
            return task, line
    raise AssertionError("no such task among the drawn ones")


def payslip_script() -> list:
    """A clerk who reads, looks up and calculates, copying nothing but the
    calculator's results into the payslip."""
    seen: dict = {}

    def look(messages):
        record = json.loads(tool_results(messages)[-1])
        seen["record"] = record
        return calls(("lookup_reference", {"name": "first-half"}), ("lookup_reference", {"name": "second-half"}))

    def contribution(messages):
        rows = [json.loads(t) for t in tool_results(messages)[-2:]]
        month = seen["record"]["payroll_month"]
        (row,) = [r for r in rows if r["from"] <= month <= r["to"]]
        seen["row"] = row
        gross = seen["record"]["gross_pay"]
        seen["deduction"] = seen["record"].get("allowed_deduction", "0.00")
        return calls(("calculate", {"expression": f"round({row['rate']} * min({gross}, {row['cap']}), 2)"}))

    def taxes(messages):
        seen["contribution"] = tool_results(messages)[-1]
        r, g = seen["row"], seen["record"]["gross_pay"]
        taxable = f"({g} - {seen['contribution']} - {seen['deduction']})"
        tax = (
            f"round({r['middle_rate']} * clamp({taxable} - {r['free']}, 0, {r['upper']} - {r['free']})"
            f" + {r['upper_rate']} * max({taxable} - {r['upper']}, 0), 2)"
        )
        return calls(("calculate", {"expression": taxable}), ("calculate", {"expression": tax}))

    def net(messages):
        seen["taxable"], seen["tax"] = tool_results(messages)[-2:]
        return calls(("calculate", {"expression": f"{seen['taxable']} - {seen['tax']}"}))

    def reply(messages):
        return answer(json.dumps({
            "decision": "calculate",
            "currency": "LCR",
            "gross_pay": seen["record"]["gross_pay"],
            "employee_contribution": seen["contribution"],
            "allowed_deduction": seen["deduction"],
            "taxable_pay": seen["taxable"],
            "income_tax": seen["tax"],
            "net_pay": tool_results(messages)[-1],
            "clauses": ["R1", "R2", "R3", "R4", "R5", "R6"],
        }))

    return [calls(("read_document", {"name": "payroll_record"})), look, contribution, taxes, net, reply]


def test_a_payslip_worked_through_the_tools_earns_the_top_score(env, run_episode):
    rubric = bareme.Rubric.load(bareme.rulebook_path(RUBRIC))
    task, line = first(
        env,
        lambda t: t["expected"]["decision"] == "calculate"
        and "contract_gross_pay" not in t["case"]
        and t["case"].get("reference_tables"),
    )
    prompt = task.data.prompt[0].content
    system = task.data.system_prompt
    # The prompt is the generator's own, drawn with its `documents` option;
    # the record and the schedule sit behind the tools: no value of the
    # case, of its schedule or of the default one is in either prompt.
    assert line["options"]["documents"] is True and prompt == line["prompt"]
    for value in [line["case"]["gross_pay"], *line["case"]["reference_tables"]["first-half"].values(), "4,800.00"]:
        assert value not in prompt and value not in system
    assert "they come as documents" in prompt
    assert "lookup_reference(name)" in system and "at most 8 turns" in system
    assert "record below" not in prompt and "the default:" not in prompt
    with FakeModel(payslip_script()) as model:
        trace = run_episode(env, model, task)
    tools = {t["function"]["name"]: t["function"] for t in model.requests[0]["tools"]}
    assert sorted(tools) == ["calculate", "lookup_reference", "read_document"]
    # The schema lists the allowed names of this task.
    supplied = list(line["case"]["reference_tables"])
    rows = ["first-half", "second-half", *(r for r in supplied if r not in ("first-half", "second-half"))]
    assert tools["lookup_reference"]["parameters"]["properties"]["name"]["enum"] == rows
    assert tools["read_document"]["parameters"]["properties"]["name"]["enum"] == ["payroll_record"]
    top = rubric.score(line, rubric.reference_reply(line))
    assert trace.rewards["rubric_score"].score == top["score"] == top["max"]
    assert trace.metrics["malformed"] == 0.0
    assert trace.metrics["tool_calls"] == 7.0 and trace.metrics["tool_errors"] == 0.0
    # The reply is the expected answer, field for field: the tools gave
    # the reference's own row and arithmetic.
    assert json.loads(trace.last_reply) == line["expected"]


def test_a_malformed_answer_scores_the_floor(env, run_episode):
    rubric = bareme.Rubric.load(bareme.rulebook_path(RUBRIC))
    task, line = first(env, lambda t: t["expected"]["decision"] == "clarify")
    with FakeModel([
        calls(("read_document", {"name": "payroll_record"})),
        answer("```json\n" + rubric.reference_reply(line) + "\n```"),
    ]) as model:
        trace = run_episode(env, model, task)
    floor = rubric.score(line, "not json")
    assert "malformed" in floor
    assert trace.rewards["rubric_score"].score == floor["score"] < 0
    assert trace.metrics["malformed"] == 1.0
    # The same clarification, unwrapped, earns the top score.
    with FakeModel([calls(("read_document", {"name": "payroll_record"})), answer(rubric.reference_reply(line))]) as model:
        trace = run_episode(env, model, task)
    assert trace.rewards["rubric_score"].score == rubric.score(line, rubric.reference_reply(line))["max"]


def test_a_bad_tool_call_gets_a_clear_error_and_no_private_value(env, run_episode):
    task, line = first(env, lambda t: t["expected"]["decision"] == "calculate" and "gross_pay" in t["case"])
    with FakeModel([
        calls(
            ("lookup_reference", {"name": "H2"}),
            ("read_document", {"name": "bank_statement"}),
            ("calculate", {"expression": "gross_pay * 0.05"}),
            ("calculate", {"expression": "Please compute 5% of the gross pay"}),
            ("calculate", {"expression": "1 / 3"}),
            ("calculate", {"expression": "1 / 0"}),
            ("lookup_reference", {"row": "first-half"}),
            ("shell", {"cmd": "ls"}),
        ),
        answer("{}"),
    ]) as model:
        trace = run_episode(env, model, task)
    answers = tool_results(model.requests[-1]["messages"])
    record = tools_vf.Record.of("luma-payroll", task.data.bareme_task)
    assert list(record.references)[:2] == ["first-half", "second-half"]
    assert answers[0] == f"error: no reference row 'H2'; the rows are: {', '.join(record.references)}"
    documents = ", ".join(record.documents)
    assert answers[1] == f"error: no document 'bank_statement'; the documents of this record are: {documents}"
    assert answers[2].startswith("error: unknown name `gross_pay` (at byte 0; the calculator knows no names")
    assert answers[3].startswith("error: syntax error")
    assert answers[4] == "error: 1/3 has no finite decimal form: round it, e.g. round(…, 2)"
    assert answers[5] == "error: division by zero (1 / 0)"
    assert answers[6] == "error: the arguments must be exactly: name"
    assert answers[7] == "error: unknown tool"
    # Six calls reached the tool server, every one an error.
    assert trace.metrics["tool_calls"] == 6.0 and trace.metrics["tool_errors"] == 6.0
    shown = "\n".join(answers)
    for value in [line["case"]["gross_pay"], *json.loads(json.dumps(line["expected"])).values()]:
        if isinstance(value, str) and any(c.isdigit() for c in value):
            assert value not in shown


def test_the_tools_are_the_engines():
    ts = tools_vf.RecordToolset(tools_vf.RecordToolsetConfig())
    gen = bareme.Generator.load(bareme.rulebook_path("luma-payroll/generator-4.toml"))
    line = gen.generate_json(1, 7, start=0)[0]
    ts.record = tools_vf.Record.of("luma-payroll", line)
    case = json.loads(line)["case"]
    rb = gen.rulebook
    # A row as the rulebook reads the case's schedule (or its own).
    row = json.loads(ts.lookup_reference("second-half"))
    assert row == json.loads(dict(bareme.table_rows(rb, case, "schedule"))["second-half"])
    assert (row["from"], row["to"]) == ("2026-07", "2026-12")
    assert ts.calculate("round(0.075 * min(3450.00, 5200.00), 2)") == "258.75"
    assert ts.calculate("0.1 + 0.2") == "0.3"
    assert ts.calculate("x" * 2001) == "error: the expression is longer than 2000 bytes"
    assert ts.state.calls == 4 and ts.state.errors == 1


def test_the_distractor_row_is_shown_as_the_record_writes_it(env):
    """The seed's 2025 row (spec: an extra key of ``reference_tables``, which
    the rules ignore) is in the record, so a lookup shows it, as written."""
    task, line = first(env, lambda t: "2025-second-half" in (t["case"].get("reference_tables") or {}))
    record = tools_vf.Record.of("luma-payroll", task.data.bareme_task)
    assert list(record.references) == ["first-half", "second-half", "2025-second-half"]
    shown = json.loads(record.references["2025-second-half"])
    assert shown == {"2025-second-half": line["case"]["reference_tables"]["2025-second-half"]}
    # The rows the rules read keep their months; the distractor has none.
    assert json.loads(record.references["second-half"])["from"] == "2026-07"
    assert "2025-second-half" in task.data.system_prompt


def test_only_luma_has_a_tool_mode():
    with pytest.raises(ValueError, match="no tool mode"):
        envs.load_environment("paie-fr", n=2, mode="tools")
    with pytest.raises(ValueError, match="unknown mode"):
        envs.load_environment("luma-payroll", n=2, mode="tool")


def test_the_taskset_is_found_by_its_id():
    from verifiers.v1.utils.loaders import harness_class, taskset_class

    assert taskset_class("bareme-tools") is tools_vf.ToolTaskset
    assert harness_class("bareme-tools") is tools_vf.ToolHarness
