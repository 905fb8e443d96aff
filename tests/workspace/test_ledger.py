"""The edit ledger: a repair's edits apart from what builds wrote, on real git worktrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from buildfixer.core.build_result import BuildResult
from buildfixer.workspace.ledger import EditLedger
from support.git import Repo


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "w"
    root.mkdir()
    (root / ".gitignore").write_text("build/\nlocal.properties\n")
    (root / "App.java").write_text("class App {}\n")
    (root / "package-lock.json").write_text('{"v": 1}\n')
    (root / "local.properties").write_text("key=mine\n")
    repo = Repo(root)
    repo.git("add", "-f", "local.properties")  # tracked, though ignored
    repo.commit("base")
    return root


def result(status: str = "failure") -> BuildResult:
    return BuildResult(status, 1, 1.0, "npm", ["npm"], None, "/dev/null")


def fake_build(ledger: EditLedger, root: Path, options: str = "o", status: str = "failure") -> BuildResult:
    """What a build does to a tree: rewrites the lockfile, writes outputs, creates a stray file."""
    started = ledger.before_build()
    (root / "package-lock.json").write_text('{"v": 2}\n')
    (root / "build").mkdir(exist_ok=True)
    (root / "build" / "out.txt").write_text("out\n")
    (root / "generated.txt").write_text("gen\n")
    built = result(status)
    ledger.after_build(started, options, built)
    return built


def test_edits_are_told_from_build_side_effects(tree: Path) -> None:
    ledger = EditLedger.open(tree)
    assert ledger is not None
    fake_build(ledger, tree)
    (tree / "App.java").write_text("class App { int x; }\n")  # an edit after the build
    (tree / "New.java").write_text("class New {}\n")
    (tree / "local.properties").write_text("key=placeholder\n")
    fake_build(ledger, tree)
    kept, undone = ledger.undo_side_effects(frozen={"local.properties"})
    assert kept == ["App.java", "New.java"] and undone == ["local.properties"]
    # The tree is now the base plus the edits alone.
    assert (tree / "package-lock.json").read_text() == '{"v": 1}\n'
    assert not (tree / "generated.txt").exists()
    assert (tree / "local.properties").read_text() == "key=mine\n"
    assert (tree / "App.java").read_text() == "class App { int x; }\n"
    assert (tree / "build" / "out.txt").exists()  # ignored outputs are no part of any repair


def test_an_edit_a_build_rewrites_stays_an_edit(tree: Path) -> None:
    ledger = EditLedger.open(tree)
    assert ledger is not None
    (tree / "package-lock.json").write_text('{"v": "edited"}\n')
    fake_build(ledger, tree)
    kept, _ = ledger.undo_side_effects()
    assert "package-lock.json" in kept


def test_a_build_over_an_unchanged_repair_is_reused(tree: Path) -> None:
    ledger = EditLedger.open(tree)
    assert ledger is not None
    first = fake_build(ledger, tree)
    ledger.undo_side_effects()
    assert ledger.reusable_result("o") is first  # side effects undone, no edit: the same repair
    assert ledger.reusable_result("other options") is None
    (tree / "App.java").write_text("class App { int y; }\n")
    assert ledger.reusable_result("o") is None
    second = fake_build(ledger, tree, status="success")
    (tree / "App.java").write_text("class App { int y; }\n")  # rewritten with the same content
    assert ledger.reusable_result("o") is second


def test_no_ledger_outside_a_git_worktree(tmp_path: Path) -> None:
    assert EditLedger.open(tmp_path) is None
