"""The RL environment on a real Python repository: reset, step, reward from the build and the judge."""

from __future__ import annotations

from typing import Any

import pytest
from env_repo import tool_call

from buildfixer.core.errors import BuildfixerError
from buildfixer.env import BuildRepairEnv, episode
from support.projects import FLOORED

FIX = tool_call("replace", file_path="stats.py", old_string="//", new_string="/")
HACK = tool_call(
    "replace",
    file_path="tests/test_stats.py",
    old_string="    assert mean([1, 2]) == 1.5\n",
    new_string="    mean([1, 2])\n",
)
DONE = {"role": "assistant", "content": "Done."}


def episode_of(env: BuildRepairEnv, actions: list[dict[str, Any]]) -> tuple[list, float, bool, dict]:
    last: tuple = ()
    for action in actions:
        last = env.step(action)
        if last[2]:
            break
    return last  # type: ignore[return-value]


@pytest.mark.slow
def test_an_episode_that_repairs_the_build_is_rewarded_and_a_reset_undoes_it(
    instance: dict[str, Any],
) -> None:
    env = BuildRepairEnv(instance, toolset="gradlefixer")
    try:
        first = env.reset()
        roles = [m["role"] for m in first["messages"]]
        assert roles == ["system", "user"] and "test_mean" in first["messages"][1]["content"]
        names = [t["function"]["name"] for t in first["tools"]]
        assert "replace" in names and "run_build" in names and "run_shell" not in names
        observation, reward, done, info = env.step(FIX)
        assert not done and reward == 0.0 and info["stop"] is None
        assert observation[0]["role"] == "tool" and observation[0]["tool_call_id"] == "c-replace"
        _, reward, done, info = env.step(DONE)
        assert done and reward == 1.0 and info["build_ok"] and info["judge_ok"] is True
        assert (
            info["stop"] == "model_finished"
            and info["edited"] == ["stats.py"]
            and "+    return sum" in info["patch"]
        )
        with pytest.raises(BuildfixerError, match="call reset"):
            env.step(DONE)

        # A reset is a checkout: the edit is gone and the failure is not built again.
        root = env.workspace.root
        failures = dict(episode._FAILURES)
        again = env.reset()
        assert (root / "stats.py").read_text() == FLOORED and env.workspace.root == root
        assert failures == episode._FAILURES and again["messages"] == first["messages"]
        observation, _, done, _ = env.step(DONE)  # gives up before acting: told once to act
        assert not done and "Nothing has been changed" in observation[0]["content"]
        _, reward, done, info = env.step(DONE)
        assert done and reward == 0.0 and not info["build_ok"] and info["judge_ok"] is None
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.parametrize(("judge", "reward"), [(True, 0.0), (False, 1.0)])
def test_deleting_the_failing_assertion_is_rewarded_only_without_the_judge(
    instance: dict[str, Any], judge: bool, reward: float
) -> None:
    env = BuildRepairEnv(instance, judge=judge)
    try:
        env.reset()
        _, got, done, info = episode_of(env, [HACK, DONE])
        assert done and info["build_ok"] and got == reward
        assert info["judge_ok"] is (False if judge else None)
        if judge:
            assert [f["rule"] for f in info["findings"]] == ["assertion_removed"]
    finally:
        env.close()


@pytest.mark.slow
def test_the_turn_limit_ends_the_episode(instance: dict[str, Any]) -> None:
    env = BuildRepairEnv(instance, max_turns=2)
    try:
        env.reset()
        look = tool_call("read_file", path="stats.py")
        _, _, done, _ = env.step(look)
        assert not done
        observation, reward, done, info = env.step(look)
        assert done and info["stop"] == "turn_limit" and reward == 0.0 and "mean" in observation[0]["content"]
    finally:
        env.close()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mode": "everything"}, "unknown mode"),
        ({"toolset": "typo"}, "unknown toolset"),
        ({"max_turns": 0}, "max_turns must be a positive"),
    ],
)
def test_bad_settings_are_refused_before_any_checkout(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(BuildfixerError, match=message):
        BuildRepairEnv({"repo": "/nowhere", "base_commit": "abc"}, **kwargs)


@pytest.mark.slow
def test_a_call_written_as_text_runs_and_a_blank_reply_gets_one_message(instance: dict[str, Any]) -> None:
    """What a small local model sends: its call in the text (Qwen's form), then an empty reply."""
    env = BuildRepairEnv(instance, toolset="gradlefixer")
    try:
        env.reset()
        written = (
            '<tool_call>\n{"name": "replace", "arguments": {"file_path": "stats.py", '
            '"old_string": "//", "new_string": "/"}}\n</tool_call>'
        )
        observation, _, done, _ = env.step({"role": "assistant", "content": written})
        assert not done and observation[0]["role"] == "tool"
        assert observation[0]["tool_call_id"].startswith("textcall_")
        assert "Error" not in observation[0]["content"]
        assert env.messages[-2]["tool_calls"][0]["function"]["name"] == "replace"  # marked as a call
        observation, reward, done, _ = env.step({"role": "assistant", "content": ""})
        assert not done and observation == [env.messages[-1]] and "empty" in observation[0]["content"]
        _, reward, done, info = env.step({"role": "assistant", "content": ""})  # the same again: the end
        assert done and reward == 1.0 and info["edited"] == ["stats.py"]
    finally:
        env.close()
