"""The fix memory in the harness: repairs remembered, ask_for_help answered, no leak into a benchmark."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from buildfixer.harness.remember import knowledge_for
from buildfixer.memory.store import USER, Entry, FixMemory, default_path
from support.model import call, scripted, write_file
from support.projects import RIGHT, stats_project

ERROR = "Execution failed: cannot find symbol WidgetFactory in Board.java"


def test_a_benchmark_instance_reads_only_what_predates_it_and_is_not_its_own(tmp_path: Path) -> None:
    with FixMemory(default_path(tmp_path)) as memory:

        def add(marker: str, **kw: object) -> None:
            patch = f"PATCH-{marker}"
            memory.add(
                Entry("repair", f"{ERROR} {marker}", patch=patch, build_system="gradle", origin=USER, **kw)
            )  # type: ignore[arg-type]

        add("own", instance_id="game-7", created_at="2023-01-01T00:00:00Z", split="train")
        add("later", instance_id="game-9", created_at="2024-08-01T00:00:00Z", split="train")
        add("test", instance_id="game-3", created_at="2023-01-01T00:00:00Z", split="test")
        add("earlier", instance_id="game-1", created_at="2023-01-01T00:00:00Z", split="train")
        add("ours", created_at="2023-02-01T00:00:00Z")
    instance = {"instance_id": "game-7", "created_at": "2024-03-05T12:35:00+00:00", "split": "test"}
    kb = knowledge_for(default_path(tmp_path), "gradle", instance)
    assert kb is not None
    answer = kb.answer(ERROR)
    assert "PATCH-earlier" in answer and "PATCH-ours" in answer
    assert not any(f"PATCH-{m}" in answer for m in ("own", "later", "test"))
    assert knowledge_for(default_path(tmp_path / "none"), "gradle", instance) is None  # no memory: no backend


@pytest.mark.slow
def test_fix_remembers_its_repair_and_a_later_fix_is_offered_it(tmp_path: Path) -> None:
    project = stats_project(tmp_path / "stats")
    cache = tmp_path / "cache"
    steps = [call("ask_for_help", question="assert mean([1, 2]) == 1.5"), write_file("stats.py", RIGHT)]
    model = scripted(tmp_path / "script.json", [*steps, {"content": "done"}])
    env = {"BUILDFIXER_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin:/usr/local/bin"}

    def fix(target: Path) -> dict:
        cmd = [sys.executable, "-m", "buildfixer", "fix", str(target), "--model", model,
               "--toolset", "industrial", "--dry-run", "--json"]  # fmt: skip
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=600, env={**env, "HOME": str(tmp_path)}
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout)

    first = fix(project)
    assert first["resolved"]
    with FixMemory(default_path(cache)) as memory:
        (entry,) = list(memory.entries())
    assert entry.kind == "repair" and entry.resolved and entry.files == ["stats.py"] and "//" in entry.patch
    second = fix(project)  # the project was not changed (--dry-run): the same failure again
    steps = json.loads(Path(second["trajectory"]).read_text())["steps"]
    help_output = next(
        r["output"] for s in steps for r in s.get("tool_results", []) if r["name"] == "ask_for_help"
    )
    assert "past fix" in help_output and "return sum(values) / len(values)" in help_output
