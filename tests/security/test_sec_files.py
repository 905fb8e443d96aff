"""Attacks on the file tools: links swapped in during a call, hard links to outside files, git metadata.

Each race runs a separate process that swaps a name of the workspace between an inside target and
an outside one as fast as it can, while the tool reads or writes through that name 3,000 times.
An escape is a read that returns the outside secret or a write that changes the outside tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from buildfixer.tools.base import Tool, ToolError
from buildfixer.tools.dependency import dependency_tools
from buildfixer.tools.files import file_tools
from support.tools import tool_context, tools_by_name

ROUNDS = 3000
RACE_S = 60
SECRET = "TOP-SECRET-VALUE"
INSIDE = "inside content"
CHANGED = "changed content"

# Swaps `name` between two states until `stop` exists; `ready` appears after the first swap.
SWAPPER = r"""
import os, sys
mode, name, inside, outside, ready, stop = sys.argv[1:7]
temp, trash = name + ".swap", [0]
def clear():  # a directory a write made while the name was free is moved aside
    if os.path.isdir(name) and not os.path.islink(name):
        trash[0] += 1
        os.rename(name, f"{name}.trash{trash[0]}")
    elif os.path.lexists(name):
        os.unlink(name)
def retry(step):
    while True:
        try:
            return step()
        except OSError:
            clear()
def link(target):
    if os.path.lexists(temp):
        os.unlink(temp)
    os.symlink(target, temp)
    retry(lambda: os.replace(temp, name))
def hold(rounds):  # keep a state a while: a tool's call takes longer than two renames
    for _ in range(rounds):
        os.path.lexists(stop)
first = True
while not os.path.exists(stop):
    if mode == "link":  # name is a symlink: to an inside target, then to an outside one
        link(inside)
        link(outside)
    else:  # name is a real file or directory (kept at `inside`), then a symlink out
        retry(lambda: os.rename(inside, name))
        hold(2000)
        os.rename(name, inside)
        link(outside)
        hold(200)
        os.unlink(name)
    if first:
        open(ready, "w").close()
        first = False
"""


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text(f"{SECRET}\n{INSIDE}\n")  # INSIDE too: a replace would match
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "realdir").mkdir(parents=True)
    (root / "inside.txt").write_text(INSIDE + "\n")
    (root / "realdir" / "secret.txt").write_text(INSIDE + "\n")
    return root


@pytest.fixture
def tools(ws: Path) -> dict[str, Tool]:
    return tools_by_name(tool_context(ws, "gradle"), file_tools, dependency_tools)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


@contextmanager
def swapping(mode: str, ws: Path, name: str, inside: str, outside: str) -> Iterator[None]:
    """Run the swapper process for the duration of the with-block."""
    ready, stop = ws.parent / "ready", ws.parent / "stop"
    proc = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, mode, str(ws / name), inside, outside, str(ready), str(stop)]
    )
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "the swapper did not start"
            time.sleep(0.01)
        yield
    finally:
        stop.touch()
        assert proc.wait(timeout=30) == 0, "the swapper failed"


def race(mode: str, ws: Path, name: str, inside: str, outside: str, attempt: Callable[[int], str]) -> Counter:
    """Outcomes ("ok", "refused", "escape") of attempts while the swapper runs.

    At least ROUNDS attempts, then on until both an "ok" and a "refused" were seen (on a loaded
    machine the swapper may be starved for a whole burst), at most RACE_S seconds.
    """
    outcomes: Counter = Counter()
    deadline = time.monotonic() + RACE_S
    with swapping(mode, ws, name, inside, outside):
        i = 0
        while i < ROUNDS or not (outcomes["ok"] and outcomes["refused"]):
            if i >= ROUNDS and time.monotonic() > deadline:
                break
            try:
                outcomes[attempt(i)] += 1
            except ToolError:
                outcomes["refused"] += 1
            i += 1
    return outcomes


# ---- races: kind -> (swapper mode, name swapped, where the real one is kept, path the tool uses) ---

RACES = {
    "file-link": ("link", "target", "inside.txt", "target"),
    "real-file-swapped-for-link": ("real", "inside.txt", "inside.kept", "inside.txt"),
    "real-dir-swapped-for-link": ("real", "realdir", "realdir.kept", "realdir/secret.txt"),
}


def outside_target(kind: str, outside: Path) -> str:
    return str(outside) if kind == "real-dir-swapped-for-link" else str(outside / "secret.txt")


def prepare(kind: str, ws: Path) -> str:
    """The swapper's `inside` argument: a link target, or where the real file or directory is kept."""
    mode, name, kept, _ = RACES[kind]
    if mode == "link":
        return kept
    (ws / name).rename(ws / kept)
    return str(ws / kept)


@pytest.mark.parametrize("kind", list(RACES))
def test_read_race_never_returns_the_outside_file(
    kind: str, ws: Path, outside: Path, tools: dict[str, Tool]
) -> None:
    mode, name, _, path = RACES[kind]
    inside = prepare(kind, ws)

    def read(_: int) -> str:
        out = tools["read_file"].call({"path": path})
        return "escape" if SECRET in out else "ok" if INSIDE in out else f"other: {out[:80]}"

    outcomes = race(mode, ws, name, inside, outside_target(kind, outside), read)
    assert outcomes["escape"] == 0, outcomes
    assert outcomes["ok"] > 0 and outcomes["refused"] > 0, outcomes  # the race really ran
    assert sum(outcomes.values()) >= ROUNDS


@pytest.mark.parametrize("tool", ["write_file", "replace"])
@pytest.mark.parametrize("kind", list(RACES))
def test_write_race_never_changes_the_outside_tree(
    kind: str, tool: str, ws: Path, outside: Path, tools: dict[str, Tool]
) -> None:
    mode, name, _, path = RACES[kind]
    inside = prepare(kind, ws)
    before = snapshot(outside)
    state = {"text": INSIDE}

    def write(i: int) -> str:
        new = CHANGED if state["text"] == INSIDE else INSIDE  # replace toggles the two
        if tool == "write_file":
            tools["write_file"].call({"path": path, "content": f"{new}\n"})
        else:
            tools["replace"].call({"file_path": path, "old_string": state["text"], "new_string": new})
        state["text"] = new
        if snapshot(outside) != before:
            for rel, data in before.items():
                (outside / rel).write_bytes(data)  # put it back, count the escape
            return "escape"
        return "ok"

    outcomes = race(mode, ws, name, inside, outside_target(kind, outside), write)
    assert outcomes["escape"] == 0, outcomes
    assert outcomes["ok"] > 0 and outcomes["refused"] > 0, outcomes
    assert snapshot(outside) == before
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


# ---- hard links ---------------------------------------------------------------------------------


@pytest.fixture
def hard_link(ws: Path, outside: Path) -> Path:
    link = ws / "linked.txt"
    os.link(outside / "secret.txt", link)
    return link


HARD_LINK_CALLS = {
    "read_file": ("read_file", {"path": "linked.txt"}),
    "write_file": ("write_file", {"path": "linked.txt", "content": "changed\n"}),
    "replace": ("replace", {"file_path": "linked.txt", "old_string": SECRET, "new_string": "changed"}),
}


@pytest.mark.parametrize("attack", list(HARD_LINK_CALLS))
def test_hard_linked_file_is_neither_read_nor_written(
    attack: str, hard_link: Path, outside: Path, tools: dict[str, Tool]
) -> None:
    name, args = HARD_LINK_CALLS[attack]
    with pytest.raises(ToolError, match="linked.txt has 2 hard links") as info:
        tools[name].call(args)
    assert SECRET not in str(info.value)
    assert (outside / "secret.txt").read_text() == f"{SECRET}\n{INSIDE}\n"
    assert hard_link.read_text() == f"{SECRET}\n{INSIDE}\n" and hard_link.stat().st_nlink == 2


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("search_file_content", {"pattern": "TOP-SECRET"}),
        ("search_file_content", {"pattern": "TOP-SECRET", "path": "linked.txt"}),
        ("find_files_with_text", {"text": "TOP-SECRET"}),
    ],
)
def test_searches_skip_hard_linked_files(
    name: str, args: dict[str, str], hard_link: Path, tools: dict[str, Tool]
) -> None:
    out = tools[name].call(args)
    assert SECRET not in out and out.startswith("no ")


# ---- git metadata -------------------------------------------------------------------------------


@pytest.fixture
def git_ws(ws: Path) -> Path:
    """The workspace with git metadata in it (no repository: only what the tools must not write)."""
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (ws / "sub").mkdir()
    (ws / "sub" / ".git").write_text("gitdir: ../.git/worktrees/sub\n")  # a worktree's .git file
    os.symlink(".git", ws / "gitlink")
    return ws


GIT_WRITES = {
    "write-config": ("write_file", {"path": ".git/config", "content": "[core]\n\thooksPath = /tmp\n"}),
    "write-hook": ("write_file", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nid\n"}),
    "write-dot-git-file": ("write_file", {"path": "sub/.git", "content": "gitdir: /tmp/evil\n"}),
    "write-nested-new-git": ("write_file", {"path": "lib/.git/config", "content": "x\n"}),
    "write-through-dotdot": ("write_file", {"path": "sub/../.git/HEAD", "content": "ref: x\n"}),
    "write-through-symlink": ("write_file", {"path": "gitlink/hooks/post-checkout", "content": "id\n"}),
    "write-case-variant": ("write_file", {"path": ".GIT/config", "content": "x\n"}),
    "write-absolute": ("write_file", {"path": "{root}/.git/config", "content": "x\n"}),
    "replace-config": ("replace", {"file_path": ".git/config", "old_string": "false", "new_string": "true"}),
    "create-hook": ("replace", {"file_path": ".git/hooks/post-merge", "old_string": "", "new_string": "id"}),
}


@pytest.mark.parametrize("attack", list(GIT_WRITES))
def test_git_metadata_is_never_written(attack: str, git_ws: Path, tools: dict[str, Tool]) -> None:
    name, args = GIT_WRITES[attack]
    args = {k: v.replace("{root}", str(git_ws)) for k, v in args.items()}
    before = snapshot(git_ws)
    with pytest.raises(ToolError, match=r"is in \.git"):
        tools[name].call(args)
    assert snapshot(git_ws) == before
    assert not (git_ws / "lib").exists()


def test_git_metadata_can_still_be_read(git_ws: Path, tools: dict[str, Tool]) -> None:
    assert "bare = false" in tools["read_file"].call({"path": ".git/config"})
    assert tools["write_file"].call({"path": "gitignore.txt", "content": "x\n"}).startswith("wrote")


# ---- links and paths that lead out, without a race ------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["out/secret.txt", "outfile", "chain", "abslink/secret.txt", "realdir/../../outside/secret.txt", "~/x"],
)
@pytest.mark.parametrize("tool", ["read_file", "write_file", "list_directory", "search_file_content"])
def test_links_out_are_refused(path: str, tool: str, ws: Path, outside: Path, tools: dict[str, Tool]) -> None:
    os.symlink(outside, ws / "out")
    os.symlink(outside / "secret.txt", ws / "outfile")
    os.symlink("realdir/../outfile", ws / "chain")  # an inner link whose target goes on out
    os.symlink(str(ws / "realdir" / ".." / ".." / "outside"), ws / "abslink")
    before = snapshot(outside)
    args = {
        "read_file": {"path": path},
        "write_file": {"path": path, "content": "x"},
        "list_directory": {"path": path},
        "search_file_content": {"pattern": "SECRET", "path": path},
    }[tool]
    with pytest.raises(ToolError, match="outside the workspace") as info:
        tools[tool].call(args)
    assert SECRET not in str(info.value)
    assert snapshot(outside) == before


def test_inner_links_keep_working(ws: Path, tools: dict[str, Tool]) -> None:
    os.symlink("realdir", ws / "alias")
    os.symlink(str(ws / "inside.txt"), ws / "absolute-inner")
    assert INSIDE in tools["read_file"].call({"path": "alias/secret.txt"})
    assert INSIDE in tools["read_file"].call({"path": "absolute-inner"})
    tools["write_file"].call({"path": "alias/new.txt", "content": "made\n"})
    assert (ws / "realdir" / "new.txt").read_text() == "made\n"
    tools["replace"].call({"file_path": "absolute-inner", "old_string": "inside", "new_string": "INNER"})
    assert (ws / "inside.txt").read_text().startswith("INNER") and (ws / "absolute-inner").is_symlink()


def test_dependency_edit_through_a_link_out_is_refused(
    ws: Path, outside: Path, tools: dict[str, Tool]
) -> None:
    gradle = "dependencies {\n    implementation 'com.google.guava:guava:30.0-jre'\n}\n"
    (outside / "build.gradle").write_text(gradle)
    os.symlink(outside / "build.gradle", ws / "build.gradle")
    before = snapshot(outside)
    with pytest.raises(ToolError, match="outside the workspace"):
        tools["dependency_upgrade"].call({"dependency": "com.google.guava:guava", "version": "33.0-jre"})
    assert snapshot(outside) == before


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("a/" * 300 + "x", "too deep"),  # one descriptor is held per level
        ("a/" * 2100 + "x", "too long"),
        ("loop/x", "too many levels of symbolic links"),
        ("inside.txt/x", "inside.txt is not a directory"),
        ("bad\0name", "invalid path"),
    ],
)
def test_unreasonable_paths_get_one_clear_line_and_change_nothing(
    path: str, message: str, ws: Path, tools: dict[str, Tool]
) -> None:
    os.symlink("loop", ws / "loop")
    before = sorted(p.name for p in ws.iterdir())
    with pytest.raises(ToolError, match=message) as info:
        tools["write_file"].call({"path": path, "content": "x"})
    assert "\n" not in str(info.value) and len(str(info.value)) < 300
    assert sorted(p.name for p in ws.iterdir()) == before
