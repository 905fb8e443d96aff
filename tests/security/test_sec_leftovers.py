"""What a `kill -9` leaves in the cache is removed by the next run, and a live process's never is.

A killed process runs no cleanup: its workspace, its snapshot, a half-made mirror clone and its
workspace's build state stay. Each of them carries its owner's pid in its name; the next run
that makes one of its kind removes those of dead owners.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from buildfixer.workspace.owners import owner_pid
from buildfixer.workspace.workspace import Workspace
from support.git import Repo
from support.model import scripted
from support.processes import processes_with
from support.projects import BROKEN_JS, npm_project


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = Repo(tmp_path / "repo")
    repo.commit("a", {"a.txt": "a\n"})
    return repo.path


def leftovers(parent: Path, pid: int) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if owner_pid(p.name) == pid) if parent.is_dir() else []


@pytest.mark.parametrize("kind", ["workspace", "snapshot", "mirror clone"])
def test_a_dead_processs_directories_are_swept(kind: str, repo: Path, tmp_path: Path, cache_dir: Path):
    parent, name = {
        "workspace": (cache_dir / "workspaces", "ws-{pid}-abcd_123"),
        "snapshot": (cache_dir / "snapshots", "repo-7-{pid}-abcd_123"),
        "mirror clone": (cache_dir / "repos", ".clone-{pid}-abcd_123"),
    }[kind]
    dead, alive = dead_pid(), os.getpid()
    for pid in (dead, alive):
        (parent / name.format(pid=pid) / "x").mkdir(parents=True)
    (parent / "unowned-dir").mkdir()  # no pid in its name: never touched
    if kind == "mirror clone":
        Workspace.create(repo, dest=tmp_path / "ws", cache_dir=cache_dir).remove()
    else:
        Workspace.from_directory(repo, cache_dir=cache_dir).remove()
    assert leftovers(parent, dead) == []
    assert leftovers(parent, alive) == [name.format(pid=alive)]
    assert (parent / "unowned-dir").is_dir()


def test_another_live_processs_workspace_is_kept(repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    """Bench workers share a cache: one worker's new workspace never removes another's."""
    ready = tmp_path / "ready"
    holder = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from buildfixer.workspace.workspace import Workspace
        ws = Workspace.from_directory(Path({str(repo)!r}), cache_dir=Path({str(cache_dir)!r}))
        Path({str(ready)!r}).write_text(str(ws.root))
        time.sleep(120)
    """)
    proc = subprocess.Popen([sys.executable, "-c", holder])
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        theirs = Path(ready.read_text())
        mine = Workspace.from_directory(repo, cache_dir=cache_dir)
        mine.remove()
        assert theirs.is_dir() and (theirs / "a.txt").is_file()
        assert leftovers(cache_dir / "snapshots", proc.pid) != []
    finally:
        proc.kill()
        proc.wait()
    Workspace.from_directory(repo, cache_dir=cache_dir).remove()  # now its owner is dead
    assert not theirs.exists() and leftovers(cache_dir / "snapshots", proc.pid) == []


def fix_command(project: Path, steps: list[dict], tmp_path: Path, name: str) -> list[str]:
    model = scripted(tmp_path / f"{name}.json", steps)
    return [
        sys.executable, "-m", "buildfixer", "fix", str(project), "--model", model,
        "--toolset", "industrial", "--trajectory", str(tmp_path / f"{name}-trajectory.json"), "--json",
    ]  # fmt: skip


def end_processes_with(*texts: str) -> None:
    """End what the killed fix left running (its sandboxed shell), by pid: they are this test's."""
    for text in texts:
        for pid in processes_with(text):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_kill_9_mid_attempt_leaves_nothing_after_the_next_run(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    env = {**os.environ, "BUILDFIXER_CACHE_DIR": str(cache)}
    first = npm_project(tmp_path / "first")
    token = f"leftover-test-{os.getpid()}"
    busy = [{"tool_calls": [{"name": "run_sh", "arguments": {"command": f"sleep 120; echo {token}"}}]}]
    proc = subprocess.Popen(fix_command(first, busy, tmp_path, "first"), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    trajectory = tmp_path / "first-trajectory.json"
    workspace = ""
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None and not processes_with(token):
            time.sleep(0.05)  # until the agent's shell command runs: mid-attempt
        assert proc.poll() is None and processes_with(token), "fix ended before it could be killed"
        workspace = json.loads(trajectory.read_text())["meta"]["project"]
        state = [p for p in (cache / "state").iterdir() if p.name.startswith(Path(workspace).name)]
        assert Path(workspace).is_dir() and leftovers(cache / "snapshots", proc.pid) and state
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        end_processes_with(token, *([workspace] if workspace else []))
    assert Path(workspace).is_dir(), "kill -9 runs no cleanup: the workspace is still there"
    second = npm_project(tmp_path / "second")
    done = subprocess.run(
        fix_command(second, [{"content": "nothing to do"}], tmp_path, "second"), env=env,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr[-2000:]
    assert not Path(workspace).exists()
    assert leftovers(cache / "workspaces", proc.pid) == []
    assert leftovers(cache / "snapshots", proc.pid) == []
    # The dead workspace's build state is gone but its logs, which its trajectory names, stay.
    assert [sorted(p.name for p in s.iterdir()) for s in state] == [["logs"] for _ in state]
    assert (first / "app.js").read_text() == BROKEN_JS
