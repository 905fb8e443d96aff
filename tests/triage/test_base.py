"""Which base a failure is compared with: given, the pull request's, the upstream's default, main, master."""

from pathlib import Path

import pytest

from buildfixer.core.errors import BuildfixerError
from buildfixer.triage.base import find_base
from support.git import Repo, git


def feature_repo(root: Path, trunk: str = "main") -> Repo:
    """`trunk` with two commits, then a branch `feature` with one more, checked out."""
    repo = Repo(root)
    if trunk != "main":
        repo.git("branch", "-m", trunk)
    repo.commit("one", {"app/package.json": "{}\n"})
    repo.commit("two", {"app/a.js": "1\n"})
    repo.branch("feature")
    repo.commit("three", {"app/a.js": "2\n"})
    return repo


def test_the_base_is_where_the_branch_left_main(tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "r")
    left = repo.git("rev-parse", "main")
    repo.checkout("main")
    repo.commit("main moves on", {"app/b.js": "3\n"})
    repo.checkout("feature")
    base, note = find_base(repo.path / "app", environ={})
    assert base is not None and not note
    assert (base.ref, base.how, base.commit, base.folder) == ("main", "default branch", left, "app")
    assert base.to_dict() == {"ref": "main", "how": "default branch", "commit": left, "folder": "app"}


def test_master_when_there_is_no_main(tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "r", trunk="master")
    base, _ = find_base(repo.path, environ={})
    assert base is not None and base.ref == "master"


def test_the_pull_requests_base_and_the_upstreams_default_come_first(tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "r")
    repo.git("branch", "release", "main~1")
    repo.git("update-ref", "refs/remotes/origin/develop", "main")
    repo.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
    base, _ = find_base(repo.path, environ={"GITHUB_BASE_REF": "release"})
    assert base is not None and (base.ref, base.how) == ("release", "GITHUB_BASE_REF")
    base, _ = find_base(repo.path, environ={})
    assert base is not None and (base.ref, base.how) == ("origin/develop", "origin/HEAD")


def test_a_given_base_wins_and_a_bad_one_is_an_error(tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "r")
    first = repo.git("rev-list", "--max-parents=0", "HEAD")
    base, _ = find_base(repo.path, first[:10], environ={"GITHUB_BASE_REF": "main"})
    assert base is not None and (base.how, base.commit) == ("--base", first)
    for bad in ("no-such-branch", "--all", "-h"):
        with pytest.raises(BuildfixerError, match="--base"):
            find_base(repo.path, bad, environ={})


def test_nothing_to_compare_on_the_base_itself(tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "r")
    repo.checkout("main")
    base, note = find_base(repo.path, environ={})
    assert base is None and "HEAD is on the base" in note
    repo.git("checkout", "-q", "main~1")  # behind the base: nothing of its own either
    assert find_base(repo.path, environ={})[0] is None


def test_no_checkout_no_base(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    base, note = find_base(tmp_path / "plain", environ={})
    assert base is None and "not a git checkout" in note
    with pytest.raises(BuildfixerError, match="not in a git checkout"):
        find_base(tmp_path / "plain", "main", environ={})
    Repo(tmp_path / "empty")
    assert "no commit" in find_base(tmp_path / "empty", environ={})[1]


def test_finding_the_base_leaves_the_checkout_as_it_was(tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "r")
    (repo.path / "app" / "a.js").write_text("uncommitted\n")
    before = git(repo.path, "status", "--porcelain"), repo.git("for-each-ref")
    find_base(repo.path, environ={})
    assert (git(repo.path, "status", "--porcelain"), repo.git("for-each-ref")) == before
