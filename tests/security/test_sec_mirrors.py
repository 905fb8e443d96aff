"""A build reads its own workspace's git history, never another mirror in buildfixer's cache.

Builds may run `git describe`, so a workspace's git directory (a worktree of its mirror) is
mounted read-only. The review rewrote the workspace's `.git` file to name another repository's
mirror, or another workspace's worktree, and the build read that repository's history.
"""

from pathlib import Path

import pytest

from buildfixer.agents.recipes.diagnose import diagnose
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import run_in_sandbox
from buildfixer.buildsys.sandbox.backends import confinement_for
from buildfixer.core.build_result import BuildResult
from buildfixer.workspace.workspace import Workspace
from support.git import Repo

SECRET = "secret-commit-message-of-the-other-repository"


def repository(path: Path, message: str) -> Path:
    """A repository with one (empty) commit."""
    Repo(path).commit(message)
    return path


@pytest.mark.parametrize("target", ["other-mirror", "other-worktree", "own-mirror-bare"])
def test_a_rewritten_git_file_exposes_no_other_repository(target: str, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    mine = Workspace.create(repository(tmp_path / "mine", "mine"), cache_dir=cache)
    other = Workspace.create(repository(tmp_path / "other", SECRET), cache_dir=cache)
    try:
        honest = confinement_for(mine.root, BuildOptions(cache_dir=cache))
        assert mine.git_dir in honest.readable  # its own history is there, read-only
        named = {"other-mirror": other.mirror, "other-worktree": other.git_dir}.get(target, mine.mirror)
        (mine.root / ".git").write_text(f"gitdir: {named}\n")
        options = BuildOptions(cache_dir=cache, offline=True)
        confinement = confinement_for(mine.root, options)
        assert not any(p.is_relative_to(other.mirror) for p in confinement.readable)
        log = tmp_path / "log"
        command = f"git log --all --format=%s; git --git-dir={other.mirror} log --all"
        run_in_sandbox(mine.root, options, ["sh", "-c", command], env={"PATH": "/usr/bin:/bin"},
                       log_path=log, timeout_s=60, owner="t-mirrors")  # fmt: skip
        assert SECRET not in log.read_text()
    finally:
        mine.remove()
        other.remove()


def test_recipes_read_no_history_through_a_planted_git_file(tmp_path: Path) -> None:
    """The recipes restore a deleted file from git history: only the workspace's recorded history."""
    history = Repo(tmp_path / "host")
    history.commit("host")
    history.commit("add", {"app.properties": f"token={SECRET}\n"})
    history.commit("rm", {"app.properties": None})
    host = history.path
    mine = Workspace.create(repository(tmp_path / "mine", "mine"), cache_dir=tmp_path / "cache")
    try:
        reads = "def p = new Properties()\nfile('app.properties').withInputStream { p.load(it) }\n"
        reads += "def t = p['token']\n"
        (mine.root / "build.gradle").write_text(reads)
        (mine.root / "lib").mkdir()  # the project's own value for the key, what the recipe may take
        (mine.root / "lib/app.properties").write_text("token=mine\n")
        (mine.root / ".git").write_text(f"gitdir: {host / '.git'}\n")  # what a build or the model can write
        log = tmp_path / "build.log"
        log.write_text(f"> {mine.root}/app.properties (No such file or directory)\n")
        result = BuildResult("failure", 1, 1.0, "gradle", ["gradle", "build"], 17, str(log), [])
        options = BuildOptions(cache_dir=tmp_path / "cache", offline=True)
        repair = diagnose(mine.root, result, options, git_dir=mine.git_dir)
        assert repair is not None and SECRET not in repr(repair.calls)  # the project's value, not the host's
    finally:
        mine.remove()
