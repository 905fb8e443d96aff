"""A `bench run` reads and writes only the memory it was given: its run directory's by default.

The machine-wide memory (the one `fix` reads: `$BUILDFIXER_MEMORY`, here a file of the test's)
holds a fix of the instance's error that the instance may see (the user's, made before the
instance). A run told to use that memory (`--memory`) replays it; a run given none never reads it
(no candidate offered, no replay, nothing from `ask_for_help`, the model repairs), never writes to it
(not a byte changes), and leaves its own repair in `memory.sqlite3` of its run directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from buildfixer.bench.run import RUN_MEMORY, read_results
from buildfixer.core.build_result import BuildError
from buildfixer.memory.sources import error_summary
from buildfixer.memory.store import USER, Entry, FixMemory
from support.model import call, scripted, write_file

INIT = "src/tinycalc/__init__.py"
GOOD = "def add(a, b):\n    return a + b\n"
# What the instance's build reports (the remembered fix was learned on the same error).
ERROR = BuildError("SyntaxError: expected ':'", "syntax", "python", f"./{INIT}", 1)


def machine_memory(path: Path, patch: str) -> Path:
    """The machine-wide memory: the user's fix of the instance's error, dated before the instance."""
    with FixMemory(path) as memory:
        memory.add(
            Entry(
                "repair",
                error_summary([ERROR]),
                category="syntax",
                build_system="python",
                files=[INIT],
                patch=patch,
                origin=USER,
                created_at="2023-06-01T00:00:00+00:00",
            )  # fmt: skip
        )
    return path


def entries(path: Path) -> list[dict[str, Any]]:
    with FixMemory(path) as memory:
        return [e.to_dict() for e in memory.entries()]


def bench_run(dataset: Path, out: Path, model: str, env: dict[str, str], *args: str) -> dict[str, Any]:
    """`bench run --agent pipeline` on tinycalc-0; its result line and the loop's record."""
    command = [
        sys.executable, "-m", "buildfixer", "bench", "run", str(dataset), "--out", str(out),
        "--only", "tinycalc-0", "--agent", "pipeline", "--model", model, "--no-sandbox", *args,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    (row,) = read_results(out / "results.jsonl")
    trajectory = json.loads((out / row["trajectory"]).read_text())
    return {**row, "loop": trajectory["meta"]["pipeline"], "messages": trajectory["messages"]}


@pytest.mark.slow
def test_a_run_reads_and_writes_only_its_own_memory(dataset: tuple[Path, list[dict]], tmp_path: Path) -> None:
    _, instances = dataset
    data = tmp_path / "instances.jsonl"
    data.write_text(json.dumps(instances[0]) + "\n")
    machine = machine_memory(tmp_path / "machine" / "fixes.sqlite3", instances[0]["gold_patch"])
    env = {**os.environ, "BUILDFIXER_MEMORY": str(machine)}  # the default memory: the test's own
    ask = call("ask_for_help", question="SyntaxError: expected ':' in src/tinycalc/__init__.py")
    model = scripted(tmp_path / "script.json", [ask, write_file(INIT, GOOD), {"content": "Added the colon."}])

    # The control: a run given that memory (a copy) is offered the fix and replays it, no model call.
    named = shutil.copy(machine, tmp_path / "named.sqlite3")
    told = bench_run(data, tmp_path / "told", model, env, "--memory", str(named))
    assert told["resolved"] and told["llm_calls"] == 0
    (error,) = told["loop"]["errors"]
    assert error["candidates"] and error["tries"][0]["replayed"]

    before = machine.read_bytes(), entries(machine)
    row = bench_run(data, tmp_path / "own", model, env)
    assert row["resolved"] and row["llm_calls"] == 3  # the model repaired: nothing was replayed
    (error,) = row["loop"]["errors"]
    assert error["candidates"] == [] and not any(t["replayed"] for t in error["tries"])
    # ask_for_help had no memory to answer from (offered or not: the run's memory was still empty).
    replies = [m["content"] for m in row["messages"] if m["role"] == "tool"]
    assert replies and not any("past fix" in reply for reply in replies)
    # The machine-wide memory was not written (not even a use counted) ...
    assert (machine.read_bytes(), entries(machine)) == before
    # ... and the run's repair is in the run's own memory.
    (learned,) = entries(tmp_path / "own" / RUN_MEMORY)
    assert learned["instance_id"] == "tinycalc-0" and learned["patch"] == row["patch"]
    assert learned["origin"].startswith("bench:") and "def add(a, b):" in learned["patch"]
