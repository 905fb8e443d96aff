"""The gym-style wrapper shown in docs/TRAINING.md, run as it is written there, on a real build."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # a whole episode on a real build

DOC = Path(__file__).resolve().parents[2] / "docs" / "TRAINING.md"


def wrapper_code() -> str:
    section = DOC.read_text().split("## Wrapping it", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the wrapper's code block is missing from docs/TRAINING.md"
    return match.group(1)


def test_the_documented_gymnasium_wrapper_runs_an_episode(instance: dict[str, Any]) -> None:
    import gymnasium as gym

    namespace: dict[str, Any] = {}
    exec(compile(wrapper_code(), str(DOC), "exec"), namespace)  # noqa: S102 - our own documentation
    env = namespace["BuildRepairGym"](instance)
    assert isinstance(env, gym.Env)
    try:
        observation, extra = env.reset(seed=0)
        assert json.loads(observation)[1]["role"] == "user" and extra["tools"]
        arguments = json.dumps({"file_path": "stats.py", "old_string": "//", "new_string": "/"})
        call = {"id": "c1", "type": "function", "function": {"name": "replace", "arguments": arguments}}
        observation, reward, terminated, truncated, _ = env.step(
            json.dumps({"role": "assistant", "tool_calls": [call]})
        )
        assert "replaced 1 occurrence" in json.loads(observation)[0]["content"]
        assert (reward, terminated, truncated) == (0.0, False, False)
        _, reward, terminated, truncated, info = env.step(
            json.dumps({"role": "assistant", "content": "Done."})
        )
        assert (reward, terminated, truncated) == (1.0, True, False) and info["build_ok"] is True
    finally:
        env.close()
