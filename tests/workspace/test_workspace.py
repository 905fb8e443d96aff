import hashlib
from pathlib import Path

import pytest

from buildfixer.core.errors import BuildfixerError
from buildfixer.workspace.workspace import Workspace
from support.git import Repo, git


def tree_digest(path: Path) -> str:
    digest = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        digest.update(str(item.relative_to(path)).encode())
        if item.is_file():
            digest.update(item.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = Repo(tmp_path / "repo")
    ignore = "build/\nlocal.properties\n"
    repo.commit("first", {".gitignore": ignore, "App.java": "class App {\n  int x = 1;\n}\n"})
    repo.commit("second", {"App.java": "class App {\n  int x = 2;\n}\n"})
    return repo.path


def test_create_at_commit_without_touching_the_source(repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    before = tree_digest(repo)
    first = git(repo, "rev-parse", "HEAD~1")
    ws = Workspace.create(repo, first, dest=tmp_path / "ws", cache_dir=cache_dir)
    assert ws.base_commit == first
    assert (ws.root / "App.java").read_text() == "class App {\n  int x = 1;\n}\n"
    (ws.root / "App.java").write_text("changed\n")
    ws.remove()
    assert not (tmp_path / "ws").exists()
    assert tree_digest(repo) == before


def test_diff_reset_and_ignored_config_files(repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    ws = Workspace.create(repo, dest=tmp_path / "ws", cache_dir=cache_dir)
    (ws.root / "App.java").write_text("class App {\n  int x = 3;\n}\n")
    (ws.root / "New.java").write_text("class New {}\n")
    (ws.root / "local.properties").write_text("sdk.dir=/opt/sdk\n")  # ignored, but a fix may create it
    (ws.root / "build").mkdir()
    (ws.root / "build" / "App.class").write_bytes(b"\xca\xfe\xba\xbe\0\0")
    patch = ws.diff()
    assert "+  int x = 3;" in patch
    assert "New.java" in patch
    assert "local.properties" in patch
    assert "App.class" not in patch
    assert sorted(ws.changed_files()) == ["App.java", "New.java", "local.properties"]
    ws.reset()
    assert ws.diff() == ""
    assert not (ws.root / "build").exists()
    assert not (ws.root / "New.java").exists()
    # The diff of one workspace applies to a fresh one and reproduces the change.
    ws.apply_patch(patch)
    assert (ws.root / "local.properties").read_text() == "sdk.dir=/opt/sdk\n"
    assert (ws.root / "App.java").read_text().count("x = 3") == 1


def test_patch_that_does_not_apply_changes_nothing(repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    ws = Workspace.create(repo, dest=tmp_path / "ws", cache_dir=cache_dir)
    good_then_bad = (
        "--- a/App.java\n+++ b/App.java\n@@ -1,3 +1,3 @@\n class App {\n-  int x = 2;\n+  int x = 9;\n }\n"
        "--- a/Missing.java\n+++ b/Missing.java\n@@ -1 +1 @@\n-old\n+new\n"
    )
    before = tree_digest(ws.root)
    with pytest.raises(BuildfixerError, match="patch does not apply"):
        ws.apply_patch(good_then_bad)
    assert tree_digest(ws.root) == before
    with pytest.raises(BuildfixerError):
        ws.apply_patch("this is not a patch at all\n")
    assert tree_digest(ws.root) == before


def test_url_source_and_bad_sources(repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    ws = Workspace.create(f"file://{repo}", dest=tmp_path / "ws", cache_dir=cache_dir)
    assert (ws.root / "App.java").exists()
    with pytest.raises(BuildfixerError, match="not found"):
        Workspace.create(repo, "0123456789abcdef", dest=tmp_path / "ws2", cache_dir=cache_dir)
    with pytest.raises(BuildfixerError, match="no such repository"):
        Workspace.create(tmp_path / "nope", cache_dir=cache_dir)
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(BuildfixerError, match="not a git repository"):
        Workspace.create(plain, cache_dir=cache_dir)
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine")
    with pytest.raises(BuildfixerError, match="not empty"):
        Workspace.create(repo, dest=tmp_path / "busy", cache_dir=cache_dir)
    assert (tmp_path / "busy" / "keep.txt").read_text() == "mine"


def test_mirror_follows_new_commits(repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    Workspace.create(repo, dest=tmp_path / "ws1", cache_dir=cache_dir)
    (repo / "App.java").write_text("class App {}\n")
    git(repo, "commit", "-qam", "third")
    head = git(repo, "rev-parse", "HEAD")
    ws = Workspace.create(repo, head, dest=tmp_path / "ws2", cache_dir=cache_dir)
    assert (ws.root / "App.java").read_text() == "class App {}\n"


def test_from_directory_snapshots_a_plain_folder(tmp_path: Path, cache_dir: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "pom.xml").write_text("<project/>\n")
    ws = Workspace.from_directory(folder, dest=tmp_path / "ws", cache_dir=cache_dir)
    (ws.root / "pom.xml").write_text("<project></project>\n")
    assert "-<project/>" in ws.diff()
    assert (folder / "pom.xml").read_text() == "<project/>\n"


def test_pooled_workspaces_are_reused_and_reset(repo: Path, cache_dir: Path) -> None:
    first_commit = git(repo, "rev-parse", "HEAD~1")
    one = Workspace.acquire(repo, cache_dir=cache_dir)
    two = Workspace.acquire(repo, first_commit, cache_dir=cache_dir)
    assert one.root != two.root, "a held slot is never handed out twice"
    (one.root / "App.java").write_text("edited by an attempt\n")
    (one.root / "junk.txt").write_text("left behind\n")
    one.release()
    three = Workspace.acquire(repo, first_commit, cache_dir=cache_dir)
    assert three.root == one.root
    assert (three.root / "App.java").read_text() == "class App {\n  int x = 1;\n}\n"
    assert not (three.root / "junk.txt").exists()
    assert three.diff() == ""


def test_a_dead_holders_slot_is_taken_over(repo: Path, cache_dir: Path) -> None:
    ws = Workspace.acquire(repo, cache_dir=cache_dir)
    assert ws.lock is not None
    ws.lock.write_text("999999999")  # as if the holder had been killed with -9
    again = Workspace.acquire(repo, cache_dir=cache_dir)
    assert again.root == ws.root


def test_snapshot_skips_outputs_but_keeps_sources_named_like_them(tmp_path: Path, cache_dir: Path) -> None:
    folder = tmp_path / "plain"
    (folder / "build").mkdir(parents=True)
    (folder / "build" / "App.class").write_bytes(b"\xca\xfe")
    (folder / "build.gradle").write_text("apply plugin: 'java'\n")
    (folder / "tools" / "build").mkdir(parents=True)
    (folder / "tools" / "build" / "helper.py").write_text("x = 1\n")
    (folder / "node_modules" / "m").mkdir(parents=True)
    ws = Workspace.from_directory(folder, dest=tmp_path / "ws", cache_dir=cache_dir)
    assert not (ws.root / "build").exists()
    assert not (ws.root / "node_modules").exists()
    assert (ws.root / "tools" / "build" / "helper.py").read_text() == "x = 1\n"


def test_build_outputs_never_enter_the_diff(tmp_path):
    from buildfixer.workspace.workspace import Workspace

    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "src" / "A.java").write_text("class A {}\n")
    ws = Workspace.from_directory(project, cache_dir=tmp_path / "cache")
    try:
        (ws.root / "build" / "classes").mkdir(parents=True)
        (ws.root / "build" / "classes" / "A.class").write_bytes(b"\xca\xfe\xba\xbe")
        (ws.root / ".gradle").mkdir()
        (ws.root / ".gradle" / "state.txt").write_text("x\n")
        (ws.root / "src" / "A.java").write_text("class A { int x; }\n")
        assert ws.changed_files() == ["src/A.java"]
        assert "build/" not in ws.diff() and ".gradle" not in ws.diff()
    finally:
        ws.remove()
