"""Simplified mode, one example per starting error, on a real repository with two failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from env_repo import make_two_error_instance, tool_call

from buildfixer.core.errors import BuildfixerError
from buildfixer.env import BuildRepairEnv
from buildfixer.memory.store import USER, Entry, FixMemory

pytestmark = pytest.mark.slow  # the examples fixture runs the project's real build

REMEMBERED = (
    "--- a/util.py\n+++ b/util.py\n@@ -1,2 +1,2 @@\n def double(value):\n-    return value + 2\n"
    "+    return value * 2\n"
)
UTIL_ERROR = "tests/test_util.py:5: tests/test_util.py::test_double - assert 5 == 6"


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return BuildRepairEnv.examples(make_two_error_instance(tmp_path_factory.mktemp("two")))


def test_each_distinct_error_is_an_example(examples: list[dict[str, Any]]) -> None:
    assert [row["error_index"] for row in examples] == [0, 1]
    assert [row["example_id"] for row in examples] == ["stats-2#e0", "stats-2#e1"]
    files = sorted(row["error"].split(":")[0] for row in examples)
    assert files == ["tests/test_stats.py", "tests/test_util.py"]


def test_an_example_is_rewarded_when_its_own_error_is_gone(
    examples: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = tmp_path / "memory.db"
    remembered = Entry(kind="repair", error=UTIL_ERROR, category="test_failure", build_system="python",
                       files=["util.py"], patch=REMEMBERED, origin=USER)  # fmt: skip
    with FixMemory(memory) as store:  # a fix remembered for the util error is offered with it
        store.add(remembered)
    monkeypatch.setenv("BUILDFIXER_MEMORY", str(memory))
    util = next(row for row in examples if "test_util" in row["error"])
    env = BuildRepairEnv(util)
    try:
        first = env.reset()["messages"]
        assert "# The error to fix" in first[1]["content"] and "test_util.py" in first[1]["content"]
        assert "return value * 2" in first[1]["content"]  # the remembered fix, in hand
        env.step(tool_call("replace", file_path="util.py", old_string="value + 2", new_string="value * 2"))
        _, reward, done, info = env.step({"role": "assistant", "content": "Fixed double."})
        assert done and reward == 1.0
        assert (
            info["error_fixed"] is True and info["build_ok"] is False
        )  # test_stats still fails: another example
        # Fixing the other error instead does not count for this example.
        env.reset()
        env.step(tool_call("replace", file_path="stats.py", old_string="//", new_string="/"))
        _, reward, done, info = env.step({"role": "assistant", "content": "Fixed mean."})
        assert done and reward == 0.0 and info["error_fixed"] is False
    finally:
        env.close()


def test_a_bad_error_index_is_refused(examples: list[dict[str, Any]]) -> None:
    with pytest.raises(BuildfixerError, match="out of range"):
        BuildRepairEnv({**examples[0], "error_index": 7}).reset()
    with pytest.raises(BuildfixerError, match="whole number"):
        BuildRepairEnv({**examples[0], "error_index": -1})
    with pytest.raises(BuildfixerError, match="full mode runs the loop"):
        BuildRepairEnv(examples[0], mode="full")
