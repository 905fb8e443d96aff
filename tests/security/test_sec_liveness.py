"""Attacks on liveness: inputs that made a tool run for ever, and tools that hang past the budget.

Catastrophic patterns (in search_file_content, glob, find_files, list_directory's ignore) ran on
a backtracking engine; they now run on RE2 and come back at once. A tool that hangs used to block
the loop for ever; the attempt's time budget now stops the wait, and the loop ends with
`budget_time`. The step's own usage reaches the progress events.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from buildfixer.agents.calls import execute_call
from buildfixer.agents.tool_loop import Budget, ToolLoop
from buildfixer.agents.trajectory import Trajectory
from buildfixer.core.chat import Message, ModelReply, ToolCall, Usage
from buildfixer.core.stops import StopKind
from buildfixer.tools import patterns
from buildfixer.tools.base import Tool, ToolError, make_tool
from buildfixer.tools.files import file_tools
from buildfixer.tools.web import CommandSearchProvider, web_tools
from support.tools import tool_context, tools_by_name

MEGABYTE_LINE = "a" * 1_000_000 + "b\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "big.txt").write_text(MEGABYTE_LINE)
    (root / "build.gradle").write_text("version = '1.2.3'\nrepeat = 'aa'\n")
    return root


@pytest.fixture
def tools(ws: Path) -> dict[str, Tool]:
    return tools_by_name(tool_context(ws, "gradle"), file_tools)


def timed(run) -> tuple[float, object]:
    began = time.monotonic()
    result = run()
    return time.monotonic() - began, result


# ---- catastrophic patterns ---------------------------------------------------------------------

CATASTROPHIC = ["(a+)+$", "(a|a)+$", "(a|aa)+$", "(.*a){12}$", "(a*)*c", "^(a?){25}a{25}$", "(\\w+\\s?)+!"]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_search_pattern_returns_within_a_second(pattern: str, tools: dict[str, Tool]) -> None:
    seconds, out = timed(lambda: tools["search_file_content"].call({"pattern": pattern, "path": "big.txt"}))
    assert seconds < 1.0, f"{pattern} took {seconds:.2f}s"
    assert out == f"no matches for {pattern!r} in big.txt"


def test_patterns_re2_cannot_run_still_work(tools: dict[str, Tool]) -> None:
    out = tools["search_file_content"].call({"pattern": "'(\\w)\\1'", "path": "build.gradle"})
    assert out.splitlines()[1:] == ["build.gradle:2: repeat = 'aa'"]  # a backreference
    out = tools["search_file_content"].call({"pattern": "(?<=version = ')[\\d.]+", "path": "build.gradle"})
    assert out.splitlines()[1:] == ["build.gradle:1: version = '1.2.3'"]  # a lookbehind


def test_backtracking_fallback_stops_at_its_budget(
    ws: Path, tools: dict[str, Tool], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(patterns, "FALLBACK_BUDGET_S", 0.5)
    (ws / "short.txt").write_text("a" * 40 + "!\n")
    began = time.monotonic()
    with pytest.raises(ToolError, match="took more than 0.5s: it needs backtracking") as info:
        tools["search_file_content"].call({"pattern": "(a|a)*\\1$", "path": "short.txt"})
    # `regex` checks its clock between steps: on a loaded box it overshoots by seconds, not for ever.
    assert time.monotonic() - began < 30.0
    assert "invalid escape sequence" in str(info.value)  # why RE2 refused it


def test_catastrophic_glob_returns_at_once(ws: Path, tools: dict[str, Tool]) -> None:
    deep = ws.joinpath(*["d"] * 30)
    deep.mkdir(parents=True)
    (deep / "f.y").write_text("")
    pattern = "**/" * 20 + "*.x"
    seconds, out = timed(lambda: tools["glob"].call({"pattern": pattern}))
    assert seconds < 2.0 and str(out).startswith("no files match")
    seconds, out = timed(lambda: tools["find_files"].call({"pattern": pattern}))
    assert seconds < 2.0 and str(out).startswith("no files named")


def test_catastrophic_ignore_pattern_returns_at_once(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / ("a" * 200)).write_text("")
    seconds, out = timed(lambda: tools["list_directory"].call({"path": ".", "ignore": ["*a" * 12 + "*b"]}))
    assert seconds < 2.0 and "a" * 200 in str(out)


# ---- the watchdog ------------------------------------------------------------------------------


class Script:
    """A fake model: the n-th reply comes from a list; then it finishes."""

    name = "script"

    def __init__(self, replies: list[ModelReply]) -> None:
        self.replies = replies
        self.calls = 0

    def complete(self, messages: list[Message], tools: list[dict], limits=None) -> ModelReply:
        self.calls += 1
        return self.replies.pop(0) if self.replies else ModelReply("done", usage=Usage(1, 1))


def asking(*calls: tuple[str, dict], usage: Usage | None = None) -> ModelReply:
    return ModelReply(
        tool_calls=[ToolCall(f"c{i}", name, json.dumps(args)) for i, (name, args) in enumerate(calls)],
        usage=usage or Usage(1, 1),
    )


def test_a_hanging_search_command_is_stopped_by_the_time_budget(tmp_path: Path) -> None:
    search = CommandSearchProvider(["sh", "-c", "sleep 5", "search"], timeout_s=60)
    ctx = tool_context(tmp_path, "gradle", search=search)
    model = Script([asking(("search_google", {"query": "gradle error"}))])
    trajectory = Trajectory(None)
    loop = ToolLoop(model, web_tools(ctx), Budget(max_calls=10, max_wall_s=1.0))
    seconds, result = timed(lambda: loop.run(trajectory, "system", "first"))
    assert seconds < 4.0, seconds
    assert result.stop.kind is StopKind.BUDGET_TIME
    (answer,) = trajectory.steps[0].tool_results
    assert answer.error and "search_google did not finish before the attempt's time budget" in answer.output
    assert model.calls == 1  # the model was not asked again


def test_calls_after_the_deadline_are_not_started(tmp_path: Path) -> None:
    release = threading.Event()
    ran: list[str] = []

    def hang(reason: str) -> str:
        """Block until released.

        Args:
            reason: Anything.
        """
        release.wait(30)
        return "released"

    def mark(text: str) -> str:
        """Record that it ran.

        Args:
            text: Anything.
        """
        ran.append(text)
        return text

    model = Script([asking(("hang", {"reason": "x"}), ("mark", {"text": "second"}))])
    trajectory = Trajectory(None)
    loop = ToolLoop(model, [make_tool(hang), make_tool(mark)], Budget(max_calls=10, max_wall_s=0.5))
    try:
        seconds, result = timed(lambda: loop.run(trajectory, "system", "first"))
    finally:
        release.set()  # let the abandoned thread end
    assert seconds < 3.0
    assert result.stop.kind is StopKind.BUDGET_TIME
    assert ran == [] and [r.name for r in trajectory.steps[0].tool_results] == ["hang"]


def test_a_bug_in_a_tool_under_a_deadline_still_fails_loudly() -> None:
    def broken(text: str) -> str:
        """Fail with a bug.

        Args:
            text: Anything.
        """
        raise RuntimeError(f"bug: {text}")

    with pytest.raises(RuntimeError, match="bug: x"):
        execute_call({"broken": make_tool(broken)}, "c0", "broken", {"text": "x"}, time.monotonic() + 30)


def test_tools_under_a_deadline_answer_as_without_one(ws: Path, tools: dict[str, Tool]) -> None:
    deadline = time.monotonic() + 60
    for name, args in [("read_file", {"path": "build.gradle"}), ("read_file", {"path": "../x"})]:
        plain = execute_call(tools, "c", name, args)
        watched = execute_call(tools, "c", name, args, deadline)
        assert (watched.output, watched.error) == (plain.output, plain.error)


# ---- progress -----------------------------------------------------------------------------------


def test_step_events_carry_the_step_usage_and_the_total(ws: Path, tools: dict[str, Tool]) -> None:
    events: list[tuple[str, dict]] = []
    model = Script(
        [
            asking(("read_file", {"path": "build.gradle"}), usage=Usage(100, 10)),
            asking(("read_file", {"path": "big.txt", "limit": 1}), usage=Usage(250, 20)),
        ]
    )

    def progress(event: str, data: dict) -> None:  # what a renderer sees at the time of the event
        events.append((event, {k: replace(v) if isinstance(v, Usage) else v for k, v in data.items()}))

    loop = ToolLoop(model, list(tools.values()), Budget(max_calls=10), progress=progress)
    loop.run(Trajectory(None), "system", "first")
    steps = [data for event, data in events if event == "step"]
    assert [(s["step_usage"].input_tokens, s["step_usage"].output_tokens) for s in steps] == [
        (100, 10),
        (250, 20),
        (1, 1),
    ]
    assert [s["usage"].input_tokens for s in steps] == [0, 100, 350]  # the total, as before
