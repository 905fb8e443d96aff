"""The TRL environment class on a real repository, called the way GRPOTrainer calls it.

GRPOTrainer creates the class with the factory, calls `reset(**row)`, calls tool methods with
keyword arguments parsed from the model's reply, then `get_reward()`; here the same calls are made
by hand (the trainer itself runs in test_trl_training.py).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from buildfixer.core.errors import BuildfixerError
from buildfixer.env.trl import environment_class, trl_environment, trl_rows
from buildfixer.tools.presets import make_toolset
from support.projects import FLOORED
from support.tools import tool_context


def tools_of(cls: type) -> dict[str, Any]:
    """What TRL offers the model: the public functions of the class but reset and get_reward."""
    members = inspect.getmembers(cls, predicate=inspect.isfunction)
    return {
        name: fn for name, fn in members if not name.startswith("_") and name not in ("reset", "get_reward")
    }


def test_methods_are_the_toolset_for_every_build_system_of_the_data() -> None:
    cls = environment_class("gradlefixer", ["python", "maven"])
    probes = [tool_context(Path("/"), system) for system in ("python", "maven")]
    expected = {tool.name for probe in probes for tool in make_toolset(probe, "gradlefixer")}
    assert set(tools_of(cls)) == expected
    assert {"run_python_command", "run_maven_command", "replace", "run_build"} <= expected
    replace = inspect.signature(tools_of(cls)["replace"])
    assert list(replace.parameters)[1:] == ["file_path", "old_string", "new_string", "expected_replacements"]
    assert replace.parameters["file_path"].annotation is str
    assert replace.parameters["expected_replacements"].default is None  # optional in the tool's schema
    assert "Args:\n    file_path: " in (tools_of(cls)["replace"].__doc__ or "")


@pytest.mark.slow
def test_a_rollout_edits_builds_and_is_rewarded(instance: dict[str, Any]) -> None:
    factory = trl_environment([instance], toolset="gradlefixer")
    env = factory()
    row = trl_rows([instance])[0]
    assert row["prompt"][0]["role"] == "system" and isinstance(row["instance"], str)
    first = env.reset(**row)
    assert "stats.py" in first and "assert" in first  # the failing build's log, for the user message
    out = env.replace(file_path="stats.py", old_string="//", new_string="/")
    assert "replaced 1 occurrence" in out
    assert "1 passed" in env.run_build()
    assert env.get_reward() == 1.0
    assert (
        env.info["build_ok"] is True and env.info["judge_ok"] is True and env.info["stop"] == "rollout_ended"
    )
    assert env.get_reward() == 1.0  # asked again: the same rollout, not a second build
    assert "rollout has ended" in env.replace(file_path="stats.py", old_string="/", new_string="//")
    # The next rollout starts from the failing commit again: nothing of the last one is left.
    env.reset(**row)
    assert env.get_reward() == 0.0 and env.info["build_ok"] is False


@pytest.mark.slow
def test_a_rollout_that_deletes_the_assertion_gets_nothing(instance: dict[str, Any]) -> None:
    env = trl_environment([instance])()
    env.reset(**trl_rows([instance])[0])
    test = "tests/test_stats.py"
    env.replace(
        file_path=test, old_string="    assert mean([1, 2]) == 1.5\n", new_string="    mean([1, 2])\n"
    )
    assert env.get_reward() == 0.0
    assert env.info["build_ok"] is True and env.info["judge_ok"] is False


@pytest.mark.slow
def test_a_tool_of_another_build_system_names_the_fitting_ones(instance: dict[str, Any]) -> None:
    env = trl_environment([instance, {**instance, "build_system": "maven"}])()
    env.reset(**trl_rows([instance])[0])
    out = env.run_maven_command(maven_command="package")
    assert "does not apply to this project" in out and "run_python_command" in out
    assert (env._env.workspace.root / "stats.py").read_text() == FLOORED  # nothing ran


def test_bad_rows_and_calls_are_refused_in_one_line(instance: dict[str, Any]) -> None:
    env = trl_environment([instance])()
    with pytest.raises(BuildfixerError, match="before reset"):
        env.run_build()
    with pytest.raises(BuildfixerError, match="needs an `instance`"):
        env.reset(prompt=[])
    with pytest.raises(BuildfixerError, match="unknown toolset"):
        trl_environment([instance], toolset="nope")
    with pytest.raises(BuildfixerError, match="at least one instance"):
        trl_environment([])
