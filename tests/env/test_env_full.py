"""Full mode: the repair loop as an episode, driven reply by reply, on a real Python repository."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from env_repo import tool_call

from buildfixer.env import BuildRepairEnv

pytestmark = pytest.mark.slow  # every test resets the environment: a real build

FIXED = "def mean(values):\n    return sum(values) / len(values)\n"
GIVE_UP = {"role": "assistant", "content": "I cannot fix this."}


@pytest.fixture(autouse=True)
def empty_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No remembered fix: every try goes to the policy (a replay would need none)."""
    monkeypatch.setenv("BUILDFIXER_MEMORY", str(tmp_path / "memory.db"))


def test_a_failed_try_gives_a_fresh_context_and_the_repair_is_rewarded(instance: dict[str, Any]) -> None:
    env = BuildRepairEnv(instance, mode="full", toolset="industrial")
    try:
        first = env.reset()
        assert [m["role"] for m in first["messages"]] == ["system", "user"]
        assert (
            "# The error to fix" in first["messages"][1]["content"]
            and "assert 1 == 1.5" in first["messages"][1]["content"]
        )
        assert {"write_file", "validate_and_build", "read_file"} <= {
            t["function"]["name"] for t in first["tools"]
        }
        # Try 1 changes nothing (told once to act, it gives up again): the loop builds, sees the
        # same error, starts try 2 afresh.
        obs, reward, done, info = env.step(GIVE_UP)
        assert not done and info["new_context"] is False and "Nothing has been changed" in obs[-1]["content"]
        obs, reward, done, info = env.step(GIVE_UP)
        assert not done and reward == 0.0 and info["new_context"] is True
        assert [m["role"] for m in obs] == ["system", "user"] and obs == info["messages"]
        # Try 2 writes the fix: the same conversation goes on with the tool's result.
        obs, reward, done, info = env.step(tool_call("write_file", path="stats.py", content=FIXED))
        assert not done and info["new_context"] is False
        assert [m["role"] for m in obs] == ["tool"] and "stats.py" in obs[0]["content"]  # only what is new
        assert info["messages"][-2]["tool_calls"][0]["function"]["name"] == "write_file"
        obs, reward, done, info = env.step({"role": "assistant", "content": "Fixed the division."})
        assert done and reward == 1.0
        assert info["build_ok"] is True and info["judge_ok"] is True and info["stop"] == "resolved"
        tries = info["pipeline"]["errors"][0]["tries"]
        assert [t["outcome"] for t in tries] == ["similar", "resolved"]
        assert "return sum(values) / len(values)" in info["patch"] and info["turns"] == 4
        # The next episode starts from the failure again.
        again = env.reset()
        assert "assert 1 == 1.5" in again["messages"][1]["content"]
        assert (env.workspace.root / "stats.py").read_text() != FIXED
    finally:
        env.close()


def test_deleting_the_assertion_is_never_rewarded(instance: dict[str, Any]) -> None:
    env = BuildRepairEnv(instance, mode="full", toolset="industrial", max_turns=8)
    try:
        env.reset()
        unchecked = "from stats import mean\n\n\ndef test_mean():\n    mean([1, 2])\n"
        hack = tool_call("write_file", path="tests/test_stats.py", content=unchecked)
        obs, reward, done, info = env.step(hack)
        for _ in range(8):
            if done:
                break
            obs, reward, done, info = env.step(GIVE_UP)
        assert done and reward == 0.0
        outcomes = [t["outcome"] for error in info["pipeline"]["errors"] for t in error["tries"]]
        assert outcomes[0] == "rejected"  # the loop's judge threw the passing hack away
        assert "tests/test_stats.py" not in info["patch"]
    finally:
        env.close()


def test_closing_mid_episode_ends_the_loop(instance: dict[str, Any]) -> None:
    env = BuildRepairEnv(instance, mode="full")
    before = threading.active_count()
    env.reset()
    assert threading.active_count() == before + 1  # the loop waits for the policy in its thread
    env.close()
    assert threading.active_count() == before
    env.reset()  # a closed environment starts over
    reward, done, info = env.finish()
    assert done and reward == 0.0 and info["build_ok"] is False
    env.close()


def test_full_mode_offers_the_default_toolset(instance: dict[str, Any]) -> None:
    env = BuildRepairEnv(instance, mode="full")
    try:
        first = env.reset()
        assert {"replace", "run_build"} <= {t["function"]["name"] for t in first["tools"]}
        env.step(tool_call("replace", file_path="stats.py", old_string="//", new_string="/"))
        obs, reward, done, info = env.step({"role": "assistant", "content": "Done."})
        assert done and reward == 1.0 and obs == [] and info["build_ok"] is True
    finally:
        env.close()
