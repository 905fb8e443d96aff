"""One `bench run` per run directory, and a resume that survives whatever an earlier run left.

The runs are real: an npm project in a git repository whose build fails (its gold patch fixes
it), run by the `oracle` agent, so every attempt checks out, builds, applies the patch and
builds again. The slow dataset's build sleeps, so a run is still going while a second one tries.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from buildfixer.bench.resume import REJECTED
from buildfixer.bench.run import read_results
from buildfixer.bench.runlock import LOCK_FILE, RunLock
from buildfixer.core.errors import BuildfixerError
from support.git import Repo

CLI = [sys.executable, "-m", "buildfixer", "bench", "run"]
ORACLE = ["--agent", "oracle", "--workers", "1"]


def _package(code: int, sleep_ms: int) -> str:
    script = f'node -e "setTimeout(() => process.exit({code}), {sleep_ms})"'
    return json.dumps({"name": "tiny", "version": "1.0.0", "scripts": {"build": script}}, indent=2) + "\n"


def _dataset(root: Path, sleep_ms: int, count: int) -> Path:
    """A dataset of `count` instances of one npm repository whose build fails (then is fixed)."""
    repo = Repo(root / "repo")
    repo.commit("good", {"package.json": _package(0, sleep_ms)})
    base = repo.commit("break", {"package.json": _package(1, sleep_ms)})
    fix = repo.commit("fix", {"package.json": _package(0, sleep_ms)})
    patch = repo.diff(base, fix)
    lines = []
    for number in range(count):
        lines.append(json.dumps({
            "instance_id": f"tiny-{number}", "repo": "repo", "base_commit": base, "fix_commit": fix,
            "gold_patch": patch, "origin": "human", "category": "other", "build_system": "npm",
            "created_at": "2024-01-01T00:00:00",
        }) + "\n")  # fmt: skip
    path = root / "dataset.jsonl"
    path.write_text("".join(lines))
    return path


@pytest.fixture(scope="module")
def slow_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _dataset(tmp_path_factory.mktemp("slow"), sleep_ms=8000, count=1)


@pytest.fixture(scope="module")
def quick_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _dataset(tmp_path_factory.mktemp("quick"), sleep_ms=0, count=2)


def _run(dataset: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [*CLI, str(dataset), "--out", str(out), *ORACLE, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def _start(dataset: Path, out: Path) -> subprocess.Popen[bytes]:
    command = [*CLI, str(dataset), "--out", str(out), *ORACLE]
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    return subprocess.Popen(command, start_new_session=True, **quiet)


def _wait_for_lock(out: Path, pid: int) -> None:
    """Until the run with this pid holds the lock of `out` (its record names it)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if json.loads((out / LOCK_FILE).read_text())["pid"] == pid:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    pytest.fail(f"the run {pid} never took the lock of {out}")


def _lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]


# ---- the lock ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_second_run_on_the_same_out_is_refused_naming_the_holder(
    slow_dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = _start(slow_dataset, out)
    try:
        _wait_for_lock(out, first.pid)
        second = _run(slow_dataset, out)
        lines = second.stderr.splitlines()
        assert second.returncode == 2 and len(lines) == 1, second.stderr
        assert f"pid {first.pid}" in lines[0] and "started 20" in lines[0] and "in use" in lines[0]
        assert first.wait(timeout=300) == 0
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
    rows = _lines(out)
    assert [(r["instance_id"], r["sample"], r["resolved"]) for r in rows] == [("tiny-0", 0, True)]  # once


@pytest.mark.slow
def test_the_lock_of_a_run_killed_with_9_is_taken_over(slow_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _start(slow_dataset, out)
    _wait_for_lock(out, first.pid)
    os.kill(first.pid, signal.SIGKILL)  # the runner alone: its worker notices and stops by itself
    first.wait()
    again = _run(slow_dataset, out)
    assert again.returncode == 0, again.stderr
    assert [(r["instance_id"], r["resolved"]) for r in _lines(out)] == [("tiny-0", True)]
    assert json.loads((out / LOCK_FILE).read_text())["pid"] != first.pid  # the record names the new holder


def test_a_lock_held_elsewhere_refuses_at_once_and_dies_with_its_holder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from buildfixer.bench.runlock import RunLock; "
         "RunLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(600)", str(out)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        began = time.monotonic()
        with pytest.raises(BuildfixerError, match=f"in use by another `bench run` \\(pid {holder.pid} on "):
            RunLock(out).acquire()
        assert time.monotonic() - began < 5  # refused, never waited for
    finally:
        holder.kill()
        holder.wait()
    with RunLock(out), RunLock(out):  # taken over, and taken again by its own process for free
        assert json.loads((out / LOCK_FILE).read_text())["pid"] == os.getpid()
    with RunLock(out):  # released by the outer one
        pass


# ---- resuming from whatever is in results.jsonl ------------------------------------------------


def _row(instance: str, number: int, **fields: Any) -> dict[str, Any]:
    row = {"instance_id": instance, "sample": number, "resolved": True, "agent": "oracle",
           "toolset": "gradlefixer", "model": "recipes", "status": "success", "stop": "resolved",
           "stop_reason": "resolved", "llm_calls": 0, "input_tokens": 0, "output_tokens": 0,
           "cost_usd": 0.0, "tool_counts": {}, "duration_s": 1.0, "patch": "", "trajectory": "t.json",
           "origin": "human", "category": "other"}  # fmt: skip
    row.update(fields)
    return row


# Each case: what an earlier run left in results.jsonl after tiny-0's good line (as raw text),
# and how many lines a resumed run must set aside.
LEFT_BEHIND = {
    "no resolved": (json.dumps({k: v for k, v in _row("tiny-1", 0).items() if k != "resolved"}) + "\n", 1),
    "resolved as text": (json.dumps(_row("tiny-1", 0, resolved="yes")) + "\n", 1),
    "sample as text": (json.dumps(_row("tiny-1", 0, sample="0")) + "\n", 1),
    "cost as text": (json.dumps(_row("tiny-1", 0, cost_usd="free")) + "\n", 1),
    "unknown stop": (json.dumps(_row("tiny-1", 0, stop="gave_up")) + "\n", 1),
    "not an object": ("[1, 2, 3]\n", 1),
    "torn last line (kill -9)": (json.dumps(_row("tiny-1", 0))[:57], 1),
    "torn line then a line": (
        '{"instance_id": "tiny-1", "sa\n' + json.dumps(_row("tiny-1", 0, resolved=None)) + "\n", 2
    ),
    "crashed (infrastructure)": (json.dumps(_row("tiny-1", 0, resolved=False, stop="crashed")) + "\n", 0),
    "infra_error": (json.dumps(_row("tiny-1", 0, resolved=False, stop="infra_error")) + "\n", 0),
}  # fmt: skip


@pytest.fixture(scope="module")
def first_run(quick_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory that holds tiny-0's attempt only; each case copies it."""
    out = tmp_path_factory.mktemp("first") / "out"
    first = _run(quick_dataset, out, "--only", "tiny-0")
    assert first.returncode == 0, first.stderr
    return out


@pytest.mark.slow
@pytest.mark.parametrize("case", list(LEFT_BEHIND))
def test_resume_sets_aside_what_it_cannot_use_and_reruns_it(
    quick_dataset: Path, first_run: Path, tmp_path: Path, case: str
) -> None:
    out = tmp_path / "out"
    shutil.copytree(first_run, out)
    kept = (out / "results.jsonl").read_text()
    text, set_aside = LEFT_BEHIND[case]
    with (out / "results.jsonl").open("a") as f:
        f.write(text)
    again = _run(quick_dataset, out)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    warnings = [line for line in again.stderr.splitlines() if "set aside" in line]
    if set_aside:
        assert len(warnings) == 1 and f"set aside {set_aside} unusable line(s)" in warnings[0], again.stderr
        assert (out / REJECTED).read_text() == text.rstrip("\n") + "\n"  # kept for a look, not lost
    else:
        assert warnings == [] and not (out / REJECTED).exists()
    rows = _lines(out)
    assert rows[0] == json.loads(kept)  # tiny-0's line stands: not run again
    last = {(r["instance_id"], r["sample"]): r for r in read_results(out / "results.jsonl")}
    assert set(last) == {("tiny-0", 0), ("tiny-1", 0)} and all(r["resolved"] for r in last.values())
    assert sum(r["instance_id"] == "tiny-1" and r["stop"] == "resolved" for r in rows) == 1  # rerun once
    command = [sys.executable, "-m", "buildfixer", "bench", "report", str(out), "--format", "json"]
    report = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr  # what is left reads cleanly
