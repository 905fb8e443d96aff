"""The tool loop: budgets, loop detection, tool errors, the trajectory on disk, a model error mid-attempt."""

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from buildfixer.agents.tool_loop import Budget, ToolLoop
from buildfixer.agents.trajectory import Trajectory
from buildfixer.core.chat import Message, ModelReply, ToolCall, Usage
from buildfixer.examples import get_example, materialize
from buildfixer.harness.attempt import AttemptConfig, run_attempt
from buildfixer.llm import factory
from buildfixer.llm.scripted import ScriptedModel
from buildfixer.tools.base import Tool, ToolError, make_tool

NOTE = "you have made this exact call several times in a row"


class LoopModel:
    """A model whose n-th reply (0-based) comes from a function; records each request."""

    name = "loop-model"

    def __init__(self, reply: Callable[[int], ModelReply]) -> None:
        self.reply = reply
        self.requests: list[list[Message]] = []

    def complete(self, messages: list[Message], tools: list[dict], limits=None) -> ModelReply:
        self.requests.append([dict(m) for m in messages])
        return self.reply(len(self.requests) - 1)


def calls(*specs: tuple[str, str], usage: Usage | None = None) -> ModelReply:
    """A reply calling each (name, raw JSON arguments)."""
    return ModelReply(
        tool_calls=[ToolCall(f"c{i}-{name}", name, args) for i, (name, args) in enumerate(specs)],
        usage=usage or Usage(),
    )


def echo(text: str) -> str:
    """Return the text.

    Args:
        text: Anything.
    """
    return f"echo {text}"


def fail(reason: str) -> str:
    """Always fail.

    Args:
        reason: Why.
    """
    raise ToolError(f"cannot do that: {reason}")


def lambda_two(a: str, b: str) -> str:
    """Join two strings.

    Args:
        a: First.
        b: Second.
    """
    return a + b


def tools() -> list[Tool]:
    return [make_tool(echo), make_tool(fail)]


def run(model: LoopModel, budget: Budget, tool_list: list[Tool] | None = None, **kw) -> tuple:
    trajectory = Trajectory(None)
    result = ToolLoop(model, tools() if tool_list is None else tool_list, budget, **kw).run(
        trajectory, "system", "first"
    )
    return result, trajectory


def outputs(trajectory: Trajectory) -> list[str]:
    return [r.output for step in trajectory.steps for r in step.tool_results]


# ---- budgets -------------------------------------------------------------------------------------


def test_call_budget_makes_exactly_max_calls():
    model = LoopModel(lambda n: calls(("echo", json.dumps({"text": str(n)}))))
    result, trajectory = run(model, Budget(max_calls=5))
    assert result.stop_reason == "LLM call budget reached (5)"
    assert len(model.requests) == 5 and trajectory.llm_calls() == 5
    assert outputs(trajectory) == [f"echo {n}" for n in range(5)]  # every call's tools ran


def test_token_budget_stops_once_tokens_reach_it():
    model = LoopModel(lambda n: calls(("echo", json.dumps({"text": str(n)})), usage=Usage(100, 50)))
    result, trajectory = run(model, Budget(max_calls=100, max_tokens=400))
    # 0, 150, 300 are under 400: three calls; 450 stops the fourth.
    assert result.stop_reason == "token budget reached (400)"
    assert len(model.requests) == 3
    assert trajectory.usage.input_tokens + trajectory.usage.output_tokens == 450


def test_cost_budget_stops_once_cost_reaches_it():
    model = LoopModel(
        lambda n: calls(("echo", json.dumps({"text": str(n)})), usage=Usage(10, 10, cost_usd=0.01))
    )
    result, trajectory = run(model, Budget(max_calls=100, max_cost_usd=0.025))
    assert result.stop_reason.startswith("cost budget reached")
    assert len(model.requests) == 3 and trajectory.usage.cost_usd == pytest.approx(0.03)


def test_wall_time_budget_counts_time_spent_in_tools():
    def slow(text: str) -> str:
        """Sleep a little.

        Args:
            text: Anything.
        """
        time.sleep(0.2)
        return text

    model = LoopModel(lambda n: calls(("slow", json.dumps({"text": str(n)}))))
    began = time.monotonic()
    result, _ = run(model, Budget(max_calls=100, max_wall_s=0.5), [make_tool(slow)])
    assert result.stop_reason.startswith("time budget reached")
    # 0.0, 0.2, 0.4 are under 0.5 s; after the third tool the loop stops (the second on a machine
    # so loaded that the overhead passes 0.1 s). Without tool time counted it would run 100 calls.
    assert 2 <= len(model.requests) <= 3
    assert time.monotonic() - began < 2


# ---- loop detection -----------------------------------------------------------------------------


def test_identical_call_warns_one_before_the_limit_then_stops():
    model = LoopModel(lambda n: calls(("echo", '{"text": "x"}')))
    result, trajectory = run(model, Budget(max_calls=20), repeat_limit=4)
    assert result.stop_reason == "loop detected (the same call repeated)"
    assert len(model.requests) == 4
    got = outputs(trajectory)
    assert [NOTE in out for out in got] == [False, False, True, False]
    assert all(out.startswith("echo x") for out in got)  # the calls still ran
    # The warning reached the model in the conversation.
    tool_messages = [m for m in model.requests[3] if m["role"] == "tool"]
    assert NOTE in tool_messages[-1]["content"]


def test_repeat_limit_is_configurable_and_counts_calls_within_one_reply():
    model = LoopModel(lambda n: calls(("echo", '{"text": "x"}'), ("echo", '{"text": "x"}')))
    result, trajectory = run(model, Budget(max_calls=20), repeat_limit=3)
    assert result.stop_reason == "loop detected (the same call repeated)"
    assert len(model.requests) == 2  # calls 1,2 in the first reply, 3 in the second
    assert [NOTE in out for out in outputs(trajectory)] == [False, True, False, False]


def test_different_arguments_break_the_run_of_repeats():
    texts = ["x", "x", "y", "x", "x", "x"]
    model = LoopModel(
        lambda n: calls(("echo", json.dumps({"text": texts[n]}))) if n < len(texts) else ModelReply("done")
    )
    result, trajectory = run(model, Budget(max_calls=20), repeat_limit=4)
    assert result.stop_reason == "model finished" and result.final_message == "done"
    assert [NOTE in out for out in outputs(trajectory)] == [False, False, False, False, False, True]


def test_same_tool_same_arguments_other_tool_between_is_not_a_repeat():
    def reply(n: int) -> ModelReply:
        if n >= 8:
            return ModelReply("done")
        return calls(("echo", '{"text": "x"}') if n % 2 == 0 else ("fail", '{"reason": "x"}'))

    result, trajectory = run(LoopModel(reply), Budget(max_calls=20), repeat_limit=2)
    assert result.stop_reason == "model finished"
    assert not any(NOTE in out for out in outputs(trajectory))


def test_repeat_limit_two_stops_at_the_first_repetition_without_a_premature_warning():
    model = LoopModel(lambda n: calls(("echo", '{"text": "x"}')))
    result, trajectory = run(model, Budget(max_calls=20), repeat_limit=2)
    assert result.stop_reason == "loop detected (the same call repeated)"
    assert len(model.requests) == 2
    assert outputs(trajectory) == ["echo x", "echo x"]  # a first call is no repetition to warn about


def test_whitespace_and_key_order_do_not_make_a_call_different():
    variants = ['{"text":"x"}', '{ "text": "x" }', '{\n  "text" : "x"\n}', '{"text": "x"}']
    model = LoopModel(lambda n: calls(("echo", variants[n % len(variants)])))
    result, trajectory = run(model, Budget(max_calls=20), repeat_limit=4)
    assert result.stop_reason == "loop detected (the same call repeated)"
    assert len(model.requests) == 4

    two = make_tool(lambda_two)
    pairs = ['{"a": "1", "b": "2"}', '{"b":"2","a":"1"}', '{ "a":"1" , "b":"2" }']
    model = LoopModel(lambda n: calls(("lambda_two", pairs[n % len(pairs)])))
    result, _ = run(model, Budget(max_calls=20), [two], repeat_limit=3)
    assert result.stop_reason == "loop detected (the same call repeated)"
    assert len(model.requests) == 3


def test_malformed_arguments_repeated_verbatim_count_as_a_loop():
    model = LoopModel(lambda n: calls(("echo", '{"text": ')))
    result, trajectory = run(model, Budget(max_calls=20), repeat_limit=3)
    assert result.stop_reason == "loop detected (the same call repeated)"
    assert all(out.startswith("Error: arguments are not valid JSON") for out in outputs(trajectory))


# ---- tool errors --------------------------------------------------------------------------------


def test_tool_errors_become_results_and_the_loop_goes_on():
    script = [
        calls(("nope", "{}")),
        calls(("fail", '{"reason": "disk full"}'), ("echo", '{"text": "after"}')),
        calls(("echo", '{"text": 5}'), ("echo", '{"text": "a", "extra": 1}'), ("echo", "[1]")),
        ModelReply("all done"),
    ]
    model = LoopModel(lambda n: script[n])
    result, trajectory = run(model, Budget(max_calls=10))
    assert result.stop_reason == "model finished" and result.final_message == "all done"
    assert len(model.requests) == 4
    results = [r for step in trajectory.steps for r in step.tool_results]
    assert results[0].error is True
    assert results[0].output == "Error: unknown tool 'nope'. Available tools: echo, fail"
    assert results[1].error is True and results[1].output == "Error: cannot do that: disk full"
    assert results[2].error is False and results[2].output == "echo after"
    assert results[3].output.startswith("Error: parameter text must be string")
    assert results[4].output.startswith("Error: unknown parameter(s) extra for echo")
    assert results[5].output == "Error: arguments must be a JSON object, got list"
    assert all(r.error for r in results[3:])
    # Every call got its answer, in order, in the conversation the model saw next.
    last = model.requests[3]
    tool_msgs = [m for m in last if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == [r.id for r in results]
    assert [m["content"] for m in tool_msgs] == [r.output for r in results]
    assert trajectory.tool_counts() == {"nope": 1, "fail": 1, "echo": 4}


def test_unknown_tool_with_no_tools_offered():
    model = LoopModel(lambda n: calls(("anything", "{}")) if n == 0 else ModelReply("ok"))
    result, trajectory = run(model, Budget(max_calls=5), [])
    assert result.stop_reason == "model finished"
    assert outputs(trajectory) == ["Error: unknown tool 'anything'. Available tools: none"]


def test_progress_events():
    events: list[tuple[str, dict]] = []
    model = LoopModel(lambda n: calls(("echo", '{"text": "x"}')) if n == 0 else ModelReply("ok"))
    run(model, Budget(max_calls=5), progress=lambda e, d: events.append((e, d)))
    assert [e for e, _ in events] == ["step", "tool", "step", "stop"]
    assert events[1][1]["name"] == "echo"
    assert events[-1][1] == {"reason": "model finished", "kind": "model_finished"}


# ---- the trajectory on disk ---------------------------------------------------------------------


def test_trajectory_file_is_written_after_every_step(tmp_path):
    path = tmp_path / "t.json"
    seen: list[dict | None] = []

    def peek() -> str:
        """Read the trajectory file as it is on disk now."""
        seen.append(json.loads(path.read_text()) if path.exists() else None)
        return "peeked"

    model = ScriptedModel(
        [{"content": f"look {i}", "tool_calls": [{"name": "peek", "arguments": {}}]} for i in range(3)]
        + [{"content": "finished"}]
    )
    trajectory = Trajectory(path, meta={"model": "scripted"})
    result = ToolLoop(model, [make_tool(peek)], Budget(max_calls=10), repeat_limit=10).run(
        trajectory, "system", "first"
    )
    assert result.stop_reason == "model finished"
    assert seen[0] is None  # nothing is saved before the first step is complete
    assert [len(doc["steps"]) for doc in seen[1:]] == [1, 2]
    assert [doc["llm_calls"] for doc in seen[1:]] == [1, 2]
    assert [doc["tool_counts"] for doc in seen[1:]] == [{"peek": 1}, {"peek": 2}]
    assert 0 < seen[1]["usage"]["input_tokens"] < seen[2]["usage"]["input_tokens"]
    assert seen[2]["steps"][1]["tool_results"][0]["output"] == "peeked"
    assert seen[2]["verdict"] is None and seen[2]["meta"]["model"] == "scripted"
    assert [t["function"]["name"] for t in seen[2]["meta"]["tools"]] == ["peek"]  # what the model saw

    final = json.loads(path.read_text())
    assert len(final["steps"]) == 4 and final["llm_calls"] == 4 and final["tool_counts"] == {"peek": 3}
    assert final["usage"]["input_tokens"] == trajectory.usage.input_tokens > seen[2]["usage"]["input_tokens"]
    assert final["usage"]["cost_known"] is True and final["usage"]["estimated"] is True
    assert final["messages"][0] == {"role": "system", "content": "system"}
    assert final["messages"][-1]["content"] == "finished"
    trajectory.finish({"resolved": False, "stop_reason": result.stop_reason})
    assert json.loads(path.read_text())["verdict"] == {"resolved": False, "stop_reason": "model finished"}
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]  # no temp files left


# ---- a model error in a real attempt ------------------------------------------------------------


@pytest.mark.slow
def test_model_error_mid_attempt_still_gets_a_verdict_build(tmp_path, monkeypatch):
    """The model fixes the build, then its provider fails: the harness still builds and judges."""
    project = materialize(get_example("maven-app/syntax-error"), tmp_path / "project")
    counter = "src/main/java/com/example/wordstats/WordCounter.java"
    model = ScriptedModel(
        [
            {"tool_calls": [{"name": "replace", "arguments": {
                "file_path": counter,
                "old_string": "        return counts.size();\n\n",
                "new_string": "        return counts.size();\n    }\n\n"}}]},
            {"error": 401, "message": "invalid api key"},
        ]
    )  # fmt: skip
    monkeypatch.setattr(factory, "make_model", lambda spec, **options: model)
    events: list[tuple[str, dict]] = []
    path = tmp_path / "traj.json"
    config = AttemptConfig(agent="tool", model="scripted:unused", trajectory_path=path)
    result = run_attempt(project, config, progress=lambda e, d: events.append((e, d)))

    assert result.stop_reason.startswith("model error: ")
    assert "HTTP 401" in result.stop_reason and "invalid api key" in result.stop_reason
    assert [d["phase"] for e, d in events if e == "build"] == ["initial", "verdict"]
    assert result.initial.status == "failure" and result.verdict.status == "success"
    assert result.resolved is True and result.llm_calls == 1
    saved = json.loads(path.read_text())
    assert saved["verdict"]["resolved"] is True
    assert saved["verdict"]["stop_reason"] == result.stop_reason
    assert saved["verdict"]["status"] == "success"
    assert saved["meta"]["initial"]["status"] == "failure"
    assert saved["tool_counts"] == {"replace": 1} and saved["llm_calls"] == 1
    assert saved["usage"]["input_tokens"] > 0
    assert Path(saved["verdict"]["log_path"]).exists()
