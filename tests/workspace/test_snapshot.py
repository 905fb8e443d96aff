"""Snapshots of a folder as its build sees it, and copy-back of a repair into the folder."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from buildfixer.delivery.fix import CopyConflict, copy_back
from buildfixer.workspace import snapshot
from buildfixer.workspace.workspace import Workspace
from support.git import Repo, git


def digest(root: Path) -> str:
    """Every byte under root, .git included: a read-only operation leaves it the same."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file() and not p.is_symlink():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    (root / ".gitignore").write_text("build/\nlocal.properties\nsecrets/\n*.bin\nvenv/\nbig.dat\n")
    (root / "Main.java").write_text("class Main {}\n")
    repo = Repo(root)
    repo.commit("one")
    repo.git("tag", "v2.3")
    (root / "local.properties").write_text("sdk.dir=/home/me/sdk\n")
    (root / "secrets").mkdir()
    (root / "secrets" / "keystore.json").write_text('{"key": 1}\n')
    (root / "blob.bin").write_bytes(b"\0\1\2")
    (root / "big.dat").write_bytes(b"x" * 5000)
    (root / "build" / "classes").mkdir(parents=True)
    (root / "build" / "classes" / "Main.class").write_bytes(b"\xca\xfe")
    (root / "venv").mkdir()
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / "node_modules" / "x" / "index.js").write_text("1\n")
    (root / "Draft.java").write_text("class Draft {}\n")  # untracked, not ignored
    return root


def test_the_snapshot_holds_what_the_build_sees(repo: Path, cache_dir: Path, monkeypatch) -> None:
    monkeypatch.setattr(snapshot, "MAX_IGNORED_FILE", 1000)  # big.dat (5000 bytes) is over it
    before = digest(repo)
    ws = Workspace.from_directory(repo, cache_dir=cache_dir)
    try:
        found = ws.root.rglob("*")
        held = {str(p.relative_to(ws.root)) for p in found if p.is_file() and ".git" not in p.parts}
        assert {"Main.java", "Draft.java", "local.properties", "secrets/keystore.json", "blob.bin"} <= held
        assert not {p for p in held if p.startswith(("build/", "venv/", "node_modules/"))}
        assert "big.dat" not in held and ws.left_out == ["big.dat"]
        assert ws.protected == {"local.properties", "secrets/keystore.json", "blob.bin"}
        # The history is there: version-from-git tools describe the snapshot from the user's tags.
        assert git(ws.root, "describe", "--tags").startswith("v2.3-1-g")
        assert ws.changed_files() == []  # the snapshot is the base: nothing looks changed
    finally:
        ws.remove()
    assert digest(repo) == before
    assert ws.snapshot_dir is not None and not ws.snapshot_dir.exists()


def test_a_plain_folder_keeps_its_ignored_files_too(tmp_path: Path, cache_dir: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / ".gitignore").write_text(".env\n")
    (folder / ".env").write_text("TOKEN=abc\n")
    (folder / "setup.py").write_text("print(1)\n")
    with Workspace.from_directory(folder, cache_dir=cache_dir) as ws:
        assert (ws.root / ".env").read_text() == "TOKEN=abc\n"
        assert ws.protected == {".env"}


def test_copy_back_refuses_a_file_the_user_changed_meanwhile(repo: Path, cache_dir: Path) -> None:
    with Workspace.from_directory(repo, cache_dir=cache_dir) as ws:
        (ws.root / "Main.java").write_text("class Main { int fixed; }\n")
        (ws.root / "Draft.java").write_text("class Draft { int fixed; }\n")
        (repo / "Draft.java").write_text("class Draft { int mine; }\n")  # the user edits while fix runs
        with pytest.raises(CopyConflict, match="Draft.java changed since the snapshot"):
            copy_back(ws, repo, ["Main.java", "Draft.java"])
    assert (repo / "Main.java").read_text() == "class Main {}\n"  # all or nothing
    assert (repo / "Draft.java").read_text() == "class Draft { int mine; }\n"


def test_copy_back_never_overwrites_a_file_the_snapshot_did_not_hold(
    repo: Path, cache_dir: Path, monkeypatch
) -> None:
    monkeypatch.setattr(snapshot, "MAX_IGNORED_FILE", 1000)
    with Workspace.from_directory(repo, cache_dir=cache_dir) as ws:
        (ws.root / "big.dat").write_text("placeholder\n")  # "missing" in the snapshot, present at home
        with pytest.raises(CopyConflict):
            copy_back(ws, repo, ["big.dat"])
    assert (repo / "big.dat").read_bytes() == b"x" * 5000


def test_copy_back_writes_links_as_links_and_applies_deletions(repo: Path, cache_dir: Path) -> None:
    with Workspace.from_directory(repo, cache_dir=cache_dir) as ws:
        os.symlink("Main.java", ws.root / "alias.java")  # inside the project: fine (outside: refused,
        (ws.root / "Draft.java").unlink()  # see tests/security/test_sec_copyback.py)
        (ws.root / "run.sh").write_text("#!/bin/sh\n")
        (ws.root / "run.sh").chmod(0o755)
        copy_back(ws, repo, ["alias.java", "Draft.java", "run.sh"])
    assert (repo / "alias.java").is_symlink() and os.readlink(repo / "alias.java") == "Main.java"
    assert not (repo / "Draft.java").exists()
    assert os.access(repo / "run.sh", os.X_OK)
    assert not [p for p in repo.iterdir() if ".buildfixer-" in p.name]
