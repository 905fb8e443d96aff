"""What a real model sent, replayed: the local 1.5B model's replies in its bench runs, via the real client.

The fixtures (tests/fixtures/replies, written by benchmarks/replies_from_runs.py from `bench run`
directories) hold the replies exactly as llama.cpp's server sent them: calls written as text in
fences, bare or tagged, blank replies, prose, repeats, long writes. The fake server sends them
again to the real litellm path, so CI checks that each reads as it did when recorded, and a few
whole attempts replay against real builds to the recorded outcome.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from buildfixer.llm.fake_server import FakeOpenAIServer
from buildfixer.llm.litellm_model import LiteLLMModel
from buildfixer.llm.text_calls import reply_problem

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "replies"
PATHS = sorted(FIXTURES.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def schemas(names: list[str]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in names]


def test_the_fixtures_hold_the_reply_shapes_the_model_sent() -> None:
    fixtures = [load(path) for path in PATHS]
    toolsets = {f["toolset"] for f in fixtures}
    assert len(fixtures) >= 8 and toolsets >= {"gradlefixer", "shell", "noshell", "industrial"}
    pairs = [(step, read) for f in fixtures for step, read in zip(f["steps"], f["calls_read"], strict=True)]
    written = [step["content"] for step, read in pairs if read and "tool_calls" not in step]
    assert any(text.lstrip().startswith("```json") for text in written)  # fenced
    assert any(text.lstrip().startswith("{") for text in written)  # bare
    assert any(not step["content"].strip() and not read for step, read in pairs)  # blank
    assert any("\\." in step["content"] and not read for step, read in pairs)  # a lone backslash, unread then


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_each_recorded_reply_reads_as_it_did_when_recorded(path: Path) -> None:
    fixture = load(path)
    tools = schemas(fixture["tools"])
    messages = [{"role": "user", "content": "The build fails."}]
    with FakeOpenAIServer(fixture["steps"]) as server:
        model = LiteLLMModel("openai/local", api_base=server.base_url)
        for step, recorded in zip(fixture["steps"], fixture["calls_read"], strict=True):
            reply = model.complete(messages, tools)
            read = [[c.name, c.arguments] for c in reply.tool_calls]
            # What was read when recorded is read the same; a reply read as no call then may be
            # one now (a form learned since, e.g. a lone backslash from a log).
            assert read == recorded or (not recorded and read)
            if read:
                assert reply.written == step["content"] or "tool_calls" in step
            else:  # a reply with no call: the message it gets, if any, says what to do
                found = reply_problem(reply.content, fixture["tools"], acted=True)
                assert found is None or "Call a tool" in found[1]


# Whole attempts recorded by the code that reads and answers these replies as it does now.
# The first resolved the instance: a real model's replies repair a real build in CI.
REPLAYED_NAMES = (
    "final-gradlefixer--inventory-jdk8-fork", "final-gradlefixer--wordstats-top-min-count",
    "final-pipeline--semverkit-pin-packaging",
)  # fmt: skip
REPLAYED = [FIXTURES / f"{name}.json" for name in REPLAYED_NAMES]


@pytest.mark.slow
@pytest.mark.parametrize("path", REPLAYED, ids=[p.stem for p in REPLAYED])
def test_a_recorded_attempt_replays_to_its_recorded_outcome(path: Path, tmp_path: Path) -> None:
    """The same replies, the same tools, real builds: the same calls run and the same verdict."""
    fixture = load(path)
    with FakeOpenAIServer(fixture["steps"], model_id="local") as server:
        env = {**os.environ, "BUILDFIXER_API_BASE": server.base_url, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        budget = fixture["budget"] or {}
        command = [
            sys.executable, "-m", "buildfixer", "bench", "run", "bundled", "--out", str(tmp_path / "run"),
            "--agent", fixture["agent"], "--toolset", fixture["toolset"], "--model", "openai/local",
            "--only", fixture["instance_id"], "--max-calls", str(budget.get("max_calls") or 30),
        ]  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    (result,) = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    recorded = fixture["recorded"]
    assert result["resolved"] == recorded["resolved"]
    assert sum(result["tool_counts"].values()) == recorded["executed_calls"]
    assert result["llm_calls"] == recorded["llm_calls"]
