"""Replies that call no tool, and model calls bounded by the budget: what the tool loop does with each."""

import json
import time

import pytest

from buildfixer.agents.tool_loop import Budget, ToolLoop
from buildfixer.agents.trajectory import Step, Trajectory
from buildfixer.core.chat import CallLimits, Message, ModelReply, ModelTimeout, ToolCall, Usage
from buildfixer.tools.base import make_tool


def echo(text: str) -> str:
    """Return the text.

    Args:
        text: Anything.
    """
    return f"echo {text}"


class Replies:
    """A model answering from a list (then "done."), recording messages and limits of each request."""

    name = "replies"

    def __init__(self, *replies: ModelReply | str, delay_s: float = 0.0) -> None:
        self.replies = [ModelReply(content=r) if isinstance(r, str) else r for r in replies]
        self.requests: list[list[Message]] = []
        self.limits: list[CallLimits | None] = []
        self.delay_s = delay_s

    def complete(self, messages, tools, limits=None) -> ModelReply:
        self.requests.append([dict(m) for m in messages])
        self.limits.append(limits)
        if self.delay_s and limits is not None and limits.timeout_s is not None:
            time.sleep(min(self.delay_s, limits.timeout_s))
            if self.delay_s > limits.timeout_s:
                raise ModelTimeout("no reply within the limit")
        index = len(self.requests) - 1
        return self.replies[index] if index < len(self.replies) else ModelReply(content="done.")


def call(text: str) -> ModelReply:
    return ModelReply(tool_calls=[ToolCall("c1", "echo", json.dumps({"text": text}))], usage=Usage(10, 300))


def run(model: Replies, budget: Budget | None = None, trajectory: Trajectory | None = None):
    trajectory = trajectory or Trajectory(None)
    loop = ToolLoop(model, [make_tool(echo)], budget or Budget(max_calls=10))
    return loop.run(trajectory, "system", "first"), trajectory


@pytest.mark.parametrize(
    ("reply", "told"),
    [
        ("", "Your reply was empty"),
        ("   \n", "Your reply was empty"),
        ('<tool_call>{"name": "echo", "arguments": {"text": "a}</tool_call>', "could not be read"),
        ('{"name": "run_shell", "arguments": {"command": "ls"}}', "'run_shell' is not one of your tools"),
        ("I would change the version in pom.xml to 2.0.", "Nothing has been changed or run yet"),
    ],
)
def test_a_reply_that_is_no_answer_gets_one_message_to_act_on(reply, told):
    model = Replies(reply, call("x"))
    result, trajectory = run(model)
    nudge = model.requests[1][-1]
    assert nudge["role"] == "user" and told in nudge["content"] and "echo" in nudge["content"]
    assert [r.output for s in trajectory.steps for r in s.tool_results] == ["echo x"]  # it acted on it
    assert result.stop.kind == "model_finished" and len(model.requests) == 3


def test_the_same_problem_twice_in_a_row_ends_the_attempt():
    model = Replies("", "")
    result, trajectory = run(model)
    assert result.stop.kind == "model_finished" and len(model.requests) == 2
    assert sum(m["role"] == "user" for m in trajectory.messages) == 2  # the first message and one nudge


def test_prose_after_the_model_acted_is_its_final_word():
    model = Replies(call("x"), "The build works now.")
    result, _ = run(model)
    assert result.stop.kind == "model_finished" and result.final_message == "The build works now."
    assert len(model.requests) == 2


def test_a_nudge_is_given_again_after_the_model_acted_in_between():
    model = Replies("", call("a"), "", call("b"))
    _, trajectory = run(model)
    assert [r.output for s in trajectory.steps for r in s.tool_results] == ["echo a", "echo b"]


def test_each_call_gets_the_time_and_tokens_left():
    model = Replies(call("a"), call("b"))
    run(model, Budget(max_calls=10, max_tokens=1000, max_wall_s=120))
    first, second = model.limits[0], model.limits[1]
    assert first is not None and second is not None
    assert 100 < first.timeout_s <= 120 and first.max_tokens == 1000
    assert second.timeout_s <= first.timeout_s and second.max_tokens == 1000 - 310


def test_the_reply_length_follows_the_models_writing_speed_in_the_time_left():
    trajectory = Trajectory(None)
    slow = Step(1, {"role": "assistant", "content": "x"}, usage=Usage(100, 400), model_s=40.0)  # 10 tokens/s
    trajectory.add_step(slow)
    limits = Budget(max_wall_s=60).call_limits(trajectory, time.monotonic())
    assert limits.max_tokens is not None and 500 <= limits.max_tokens <= 600
    assert Budget().call_limits(trajectory, time.monotonic()) == CallLimits()  # no budget, no bounds


def test_a_call_cut_short_by_the_time_budget_ends_the_attempt_as_budget_time():
    model = Replies(call("a"), delay_s=30)
    began = time.monotonic()
    result, _ = run(model, Budget(max_calls=10, max_wall_s=1.5))
    assert result.stop.kind == "budget_time"
    assert time.monotonic() - began < 10


def test_a_model_timeout_of_its_own_is_a_model_error():
    class Slow(Replies):
        def complete(self, messages, tools, limits=None):
            raise ModelTimeout("no reply within 900s")

    with pytest.raises(ModelTimeout):
        run(Slow(), Budget(max_calls=10, max_wall_s=3600))


def test_older_outputs_are_condensed_in_the_request_once_the_window_fills():
    class Small(Replies):
        context_window = 3000

    long_text = "\n".join(f"line {i} of a long build log" for i in range(300))  # ~2.4k tokens a call
    model = Small(*[call(f"{n}\n{long_text}") for n in range(4)])
    _, trajectory = run(model)
    last = model.requests[-1]
    sent_outputs = [m["content"] for m in last if m["role"] == "tool"]
    assert any("[older output condensed" in text for text in sent_outputs)  # the request was fitted
    assert len(json.dumps(last)) < len(json.dumps(trajectory.messages[: len(last)]))
    kept = [m["content"] for m in trajectory.messages if m["role"] == "tool"]
    assert all("[older output condensed" not in text for text in kept)  # the record keeps them whole


def test_a_model_without_a_window_gets_the_conversation_as_it_is():
    long_text = "\n".join(f"line {i}" for i in range(300))
    model = Replies(*[call(f"{n}\n{long_text}") for n in range(3)])
    _, trajectory = run(model)
    assert model.requests[-1] == trajectory.messages[: len(model.requests[-1])]


def test_a_fix_shown_as_code_after_acting_is_told_to_be_applied():
    shown = "Here is the corrected code:\n\n```java\npublic int top(int n) {\n    return n;\n}\n```"
    model = Replies(call("a"), "", shown, call("b"))
    result, trajectory = run(model)
    told = [m["content"] for m in trajectory.messages if m["role"] == "user"][1:]
    assert told[0].startswith("Your reply was empty") and "changes no file" in told[1]
    assert [r.output for s in trajectory.steps for r in s.tool_results] == ["echo a", "echo b"]


def test_each_kind_of_problem_is_told_once_until_the_model_calls_again():
    model = Replies(call("a"), "", "", call("b"))
    result, trajectory = run(model)
    assert result.stop.kind == "model_finished" and len(model.requests) == 3  # the second blank ends it


def test_an_empty_reply_goes_back_with_a_content_string():
    """llama.cpp's server refuses an assistant message with neither content nor calls (HTTP 400)."""
    model = Replies(call("a"), "", call("b"))
    _, trajectory = run(model)
    empty = [m for m in trajectory.messages if m["role"] == "assistant" and not m.get("tool_calls")][0]
    assert empty["content"] == ""


def test_the_step_of_a_reply_that_was_no_answer_records_the_message_it_got():
    model = Replies(call("a"), "", "The build works now.")
    _, trajectory = run(model)
    assert [step.told[:21] for step in trajectory.steps] == ["", "Your reply was empty.", ""]
    assert "told" in trajectory.to_dict()["steps"][1] and "told" not in trajectory.to_dict()["steps"][0]
