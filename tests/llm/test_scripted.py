import json
from pathlib import Path

import pytest

from buildfixer.core.chat import ModelError
from buildfixer.core.errors import BuildfixerError
from buildfixer.llm.scripted import SCRIPT_FINISHED, ScriptedModel, load_script

TOOLS = [{"type": "function", "function": {"name": "read_log", "description": "d", "parameters": {}}}]


def test_replays_steps_in_order_then_finishes() -> None:
    model = ScriptedModel(
        [
            {"content": "looking", "tool_calls": [{"name": "read_log", "arguments": {"tail": 20}}]},
            {"tool_calls": [{"name": "a", "arguments": "{not json"}, {"name": "b"}]},
            {"content": "done"},
        ]
    )
    first = model.complete([{"role": "user", "content": "fix it"}], TOOLS)
    assert first.content == "looking"
    assert [(c.id, c.name, c.arguments) for c in first.tool_calls] == [("call_1", "read_log", '{"tail": 20}')]
    second = model.complete([], TOOLS)
    assert [(c.id, c.name, c.arguments) for c in second.tool_calls] == [
        ("call_2", "a", "{not json"),
        ("call_3", "b", "{}"),
    ]
    assert second.content == ""
    assert model.complete([], []).content == "done"
    assert model.finished
    end = model.complete([], [])
    assert end.content == SCRIPT_FINISHED and end.tool_calls == []


def test_usage_is_deterministic_and_free() -> None:
    messages = [{"role": "user", "content": "x" * 400}]
    a = ScriptedModel([{"content": "y" * 40}]).complete(messages, TOOLS).usage
    b = ScriptedModel([{"content": "y" * 40}]).complete(messages, TOOLS).usage
    assert a == b
    assert a.input_tokens > 100 and a.output_tokens == 10
    assert a.cost_usd == 0 and a.cost_known and a.estimated


def test_records_requests_as_copies() -> None:
    model = ScriptedModel([{"content": "ok"}])
    messages = [{"role": "user", "content": "hi"}]
    model.complete(messages, TOOLS)
    messages.append({"role": "assistant", "content": "later"})
    assert model.requests == [([{"role": "user", "content": "hi"}], TOOLS)]


def test_reply_message_round_trips_into_openai_format() -> None:
    reply = ScriptedModel([{"tool_calls": [{"name": "read_log", "arguments": {}}]}]).complete([], TOOLS)
    assert reply.message() == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "read_log", "arguments": "{}"}}
        ],
    }


def test_error_steps_transient_skipped_fatal_raised() -> None:
    model = ScriptedModel([{"error": 503}, {"content": "after retry"}, {"error": 401, "message": "bad key"}])
    assert model.complete([], []).content == "after retry"
    with pytest.raises(ModelError, match="401.*bad key"):
        model.complete([], [])


def test_load_script_list_and_object(tmp_path: Path) -> None:
    steps = [{"content": "hi"}]
    (tmp_path / "a.json").write_text(json.dumps(steps))
    (tmp_path / "b.json").write_text(json.dumps({"steps": steps}))
    assert load_script(tmp_path / "a.json") == steps
    assert load_script(str(tmp_path / "b.json")) == steps


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"stepz": []}', "needs a 'steps' list"),
        ('"hello"', "list of steps"),
        ("[1]", "step 1: a step is an object"),
        ('[{"content": 3}]', "'content' must be a string"),
        ('[{"tool_calls": [{"arguments": {}}]}]', "needs a 'name'"),
        ('[{"tool_calls": [{"name": "x", "arguments": 5}]}]', "'arguments' must be"),
        ('[{"contnet": "typo"}]', "unknown keys"),
        ('[{"error": 200}]', "HTTP status"),
    ],
)
def test_load_script_malformed(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(text)
    with pytest.raises(BuildfixerError, match=message) as info:
        load_script(path)
    assert str(path) in str(info.value)


def test_load_script_missing(tmp_path: Path) -> None:
    with pytest.raises(BuildfixerError, match="script not found"):
        load_script(tmp_path / "nope.json")


def test_constructor_validates() -> None:
    with pytest.raises(BuildfixerError):
        ScriptedModel([{"tool_calls": "read_log"}])
