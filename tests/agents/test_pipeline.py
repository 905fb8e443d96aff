"""The repair loop's retry rules on a real Python build, with the scripted model and a real fix memory.

One small project (`stats`) is built for every test; each test commits its own broken version as
the attempt's base, so the build state (the virtualenv) stays warm between tests.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from buildfixer.agents.repair_loop import MAX_TRIES
from buildfixer.harness.attempt import AttemptConfig, AttemptResult, run_attempt
from buildfixer.memory.store import USER, Entry, FixMemory
from support.git import Repo
from support.model import scripted, write_file
from support.projects import FLOORED, RIGHT, TEST, broken, stats_project

NO_COLON = "def mean(values)\n    return sum(values) // len(values)\n"  # a syntax error first


@pytest.fixture(scope="module")
def stats_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = stats_project(tmp_path_factory.mktemp("pipeline") / "stats", stats=RIGHT)
    Repo(project).commit("good")
    return project


@pytest.fixture
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "fixes.sqlite3"
    monkeypatch.setenv("BUILDFIXER_MEMORY", str(path))  # never the shared test cache's memory
    yield path


DONE = {"content": "Changed stats.py."}
FIX = (
    "--- a/stats.py\n+++ b/stats.py\n@@ -1,2 +1,2 @@\n def mean(values):\n"
    "-    return sum(values) // len(values)\n+    return sum(values) / len(values)\n"
)


def attempt(project: Path, tmp_path: Path, steps: list[dict[str, Any]]) -> tuple[AttemptResult, dict]:
    model = scripted(tmp_path / "script.json", steps)
    config = AttemptConfig(agent="pipeline", model=model, trajectory_path=tmp_path / "trajectory.json")
    result = run_attempt(project, config)
    return result, json.loads((tmp_path / "trajectory.json").read_text())


@pytest.mark.slow
def test_a_distinct_error_keeps_the_state_and_starts_a_fresh_context(
    stats_repo: Path, tmp_path: Path, memory: Path
) -> None:
    project = broken(stats_repo, NO_COLON)
    result, saved = attempt(
        project, tmp_path, [write_file("stats.py", FLOORED), DONE, write_file("stats.py", RIGHT), DONE]
    )
    assert result.resolved and result.stop.kind.value == "resolved"
    first, second = saved["meta"]["pipeline"]["errors"]
    assert first["category"] == "syntax" and second["category"] == "test_failure"
    assert [t["outcome"] for t in first["tries"]] == ["distinct"]
    assert [t["outcome"] for t in second["tries"]] == ["resolved"]
    # The second error's conversation started afresh: its first message names the test failure only.
    messages = saved["messages"]
    assert messages[0]["role"] == "system" and "test_mean" in messages[1]["content"]
    assert "SyntaxError" not in messages[1]["content"] and len(messages) == 5
    assert saved["llm_calls"] == 4


@pytest.mark.slow
def test_a_similar_error_discards_the_try_and_the_third_try_gives_up(
    stats_repo: Path, tmp_path: Path, memory: Path
) -> None:
    project = broken(stats_repo, FLOORED)
    wrong = [
        [write_file("stats.py", FLOORED.replace("//", "//  ")), write_file("notes.txt", f"try {n}\n"), DONE]
        for n in range(MAX_TRIES)
    ]
    result, saved = attempt(project, tmp_path, [step for steps in wrong for step in steps])
    assert not result.resolved and result.stop.kind.value == "declined"
    (record,) = saved["meta"]["pipeline"]["errors"]
    assert [t["outcome"] for t in record["tries"]] == ["similar"] * MAX_TRIES
    assert [t["number"] for t in record["tries"]] == [1, 2, 3]
    assert record["ended"].startswith(f"not fixed in {MAX_TRIES} tries")
    assert "every error of the build was tried" in saved["meta"]["pipeline"]["ended"]
    # Every try was discarded: nothing of them is left in the workspace or the result.
    assert (project / "stats.py").read_text() == FLOORED and not (project / "notes.txt").exists()
    assert result.edited == []


@pytest.mark.slow
def test_a_similar_error_then_a_right_second_try(stats_repo: Path, tmp_path: Path, memory: Path) -> None:
    project = broken(stats_repo, FLOORED)
    steps = [write_file("notes.txt", "first try\n"), DONE, write_file("stats.py", RIGHT), DONE]
    result, saved = attempt(project, tmp_path, steps)
    assert result.resolved
    (record,) = saved["meta"]["pipeline"]["errors"]
    assert [t["outcome"] for t in record["tries"]] == ["similar", "resolved"]
    assert result.edited == ["stats.py"]  # the first try's file went with the discarded try


@pytest.mark.slow
def test_a_change_the_judge_rejects_is_discarded_like_a_failed_try(
    stats_repo: Path, tmp_path: Path, memory: Path
) -> None:
    project = broken(stats_repo, FLOORED)
    no_assert = "from stats import mean\n\n\ndef test_mean():\n    mean([1, 2])\n"
    hack = write_file("tests/test_stats.py", no_assert)
    result, saved = attempt(project, tmp_path, [hack, DONE, write_file("stats.py", RIGHT), DONE])
    assert result.resolved
    (record,) = saved["meta"]["pipeline"]["errors"]
    assert [t["outcome"] for t in record["tries"]] == ["rejected", "resolved"]
    assert "assert" in record["tries"][0]["detail"]
    assert (project / "tests" / "test_stats.py").read_text() == TEST


def remembered(
    memory: Path, patch: str, error: str = "tests/test_stats.py:5 assert 1 == 1.5 test_mean"
) -> int:
    with FixMemory(memory) as fixes:
        entry_id = fixes.add(
            Entry(
                "repair",
                error,
                category="test_failure",
                build_system="python",
                files=["stats.py"],
                patch=patch,
                origin=USER,  # the user's: taken in any repository (memory.trust)
            )
        )
    assert entry_id is not None
    return entry_id


@pytest.mark.slow
def test_a_memory_hit_is_replayed_without_a_model_call(
    stats_repo: Path, tmp_path: Path, memory: Path
) -> None:
    project = broken(stats_repo, FLOORED)
    entry_id = remembered(memory, FIX)
    result, saved = attempt(project, tmp_path, [])
    assert result.resolved and saved["llm_calls"] == 0
    (record,) = saved["meta"]["pipeline"]["errors"]
    assert record["candidates"] == [entry_id]
    assert record["tries"][0]["replayed"] and record["tries"][0]["policy"] == "replay"
    with FixMemory(memory) as fixes:
        used = next(e for e in fixes.entries() if e.id == entry_id)
    assert (used.uses, used.successes) == (1, 1)


@pytest.mark.slow
def test_a_candidate_that_does_not_apply_is_offered_to_the_model(
    stats_repo: Path, tmp_path: Path, memory: Path
) -> None:
    project = broken(stats_repo, FLOORED)
    other = FIX.replace("mean(values)", "average(xs)").replace("(values)", "(xs)")  # another project's
    entry_id = remembered(memory, other)
    result, saved = attempt(project, tmp_path, [write_file("stats.py", RIGHT), DONE])
    assert result.resolved
    (record,) = saved["meta"]["pipeline"]["errors"]
    assert record["tries"][0]["candidate"] == entry_id and not record["tries"][0]["replayed"]
    assert "return sum(xs) / len(xs)" in saved["messages"][1]["content"]
    assert "Repository: stats" in saved["messages"][1]["content"]
