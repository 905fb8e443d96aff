"""Isolated working copies of a repository at a commit: create, reset, diff, apply a patch.

A workspace is a git worktree of a bare mirror kept in buildfixer's cache, never of the
source repository itself: `git worktree add` on the user's repository would write into
its `.git`, and nothing outside a workspace may change. The mirror is cloned once per
source (hard-linked objects for a local path) and shared by every workspace, so a new
workspace costs one checkout, and a reset costs a `reset --hard` plus `clean`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from buildfixer.core import confined
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root
from buildfixer.workspace.git import git, is_repo, literal
from buildfixer.workspace.ledger import stage_all
from buildfixer.workspace.owners import owned_temp_dir, take_lock
from buildfixer.workspace.snapshot import take_snapshot

_URL = re.compile(r"^([a-z][a-z0-9+.-]*://|git@|[\w.-]+@[\w.-]+:)", re.IGNORECASE)


def _mirror_for(source: str, cache_dir: Path) -> Path:
    """Bare mirror of the source in the cache, cloned on first use."""
    name = re.sub(r"[^\w.-]", "_", source.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git"))[:40]
    key = hashlib.sha256(source.encode()).hexdigest()[:12]
    mirror = cache_dir / "repos" / f"{name}-{key}.git"
    if not mirror.exists():
        tmp = owned_temp_dir(mirror.parent, ".clone-")  # a killed clone's is removed by the next one
        try:
            git("clone", "--bare", "--quiet", source, str(tmp / "m.git"))
            try:
                (tmp / "m.git").rename(mirror)  # atomic: a half-cloned mirror is never visible
            except OSError:
                if not mirror.exists():  # else another process cloned it first: use theirs
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    _exclude_build_outputs(mirror)
    return mirror


# What builds write into a project. Excluded in every workspace (the mirror's info/exclude is
# shared by its worktrees), so a diff never carries build outputs a project's .gitignore forgot.
BUILD_OUTPUTS = (
    "build/", "target/", ".gradle/", "node_modules/", "__pycache__/", "*.py[cod]", "*.class",
    ".pytest_cache/", ".mypy_cache/", ".tox/", ".venv/", "*.egg-info/", ".eggs/", "dist/",
    "out/", ".cxx/", ".externalNativeBuild/", "*.tsbuildinfo", ".kotlin/",
)  # fmt: skip


def _exclude_build_outputs(mirror: Path) -> None:
    exclude = mirror / "info" / "exclude"
    wanted = "".join(f"{pattern}\n" for pattern in BUILD_OUTPUTS)
    try:
        if exclude.is_file() and wanted in exclude.read_text():
            return
        exclude.parent.mkdir(parents=True, exist_ok=True)
        with exclude.open("a") as out:
            out.write("# buildfixer: build outputs never belong to a repair\n" + wanted)
    except OSError:
        pass  # a read-only mirror: diffs then rely on the project's own .gitignore


@contextlib.contextmanager
def _worktrees_locked(mirror: Path) -> Iterator[None]:
    """Serialize changes to a mirror's worktree list (add, remove, prune) across threads and processes.

    `worktree prune` run while another `worktree add` is half done removes the new worktree's
    administrative directory, and the add fails.
    """
    if not mirror.is_dir():  # already deleted: no worktree list left to protect
        yield
        return
    with open(mirror / "buildfixer-worktrees.lock", "a") as handle:  # removed with the mirror
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _resolve(mirror: Path, wanted: str, source: str | Path) -> str:
    """Full hash of a commit-ish in the mirror, fetching once when the source has moved on."""

    def lookup() -> str:
        return git(
            "rev-parse", "--verify", "--quiet", f"{wanted}^{{commit}}", git_dir=mirror, check=False
        ).strip()

    resolved = lookup()
    if not resolved:
        refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
        git("fetch", "--quiet", "origin", *refspecs, git_dir=mirror, check=False)
        resolved = lookup()
    if not resolved:
        raise BuildfixerError(f"commit {wanted} not found in {source}")
    return resolved


def mirror_of(source: str | Path, cache_dir: Path | None = None, refresh: bool = False) -> Path:
    """The bare mirror of a repository path, URL or bundle in the cache (cloned on first use).

    Args:
        source: The repository.
        cache_dir: buildfixer's cache; the default cache when None.
        refresh: Fetch the source's branches and tags first, for a mirror that may be behind.
    """
    mirror = _mirror_for(normalize_source(source), cache_dir or cache_root())
    if refresh:
        refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]
        git("fetch", "--quiet", "origin", *refspecs, git_dir=mirror, check=False)
    return mirror


def normalize_source(source: str | Path) -> str:
    """A repository source as buildfixer keys it: a URL as is, a path absolute; checked to exist."""
    text = str(source)
    if _URL.match(text):
        return text
    path = Path(text).expanduser().resolve()
    if path.is_file() and path.suffix == ".bundle":
        return str(path)  # a git bundle (`git bundle create x.bundle --all`) clones like a repository
    if not path.is_dir():
        raise BuildfixerError(f"no such repository: {source}")
    if not is_repo(path):
        raise BuildfixerError(
            f"not a git repository: {path} (use Workspace.from_directory for a plain folder)"
        )
    return str(path)


@dataclass
class Workspace:
    """A working tree at `base_commit`, private to one attempt.

    `git_dir` is the worktree's own directory in the mirror, found from the mirror's side when the
    workspace is made. Every git command on the workspace names it (and the root as its working
    tree), so the `.git` entry inside the root, which an agent can rewrite, is never read.
    """

    root: Path
    base_commit: str
    mirror: Path
    lock: Path | None = None  # set for pooled workspaces (see `acquire`)
    protected: set[str] = field(default_factory=set)  # a snapshot's git-ignored user files
    left_out: list[str] = field(default_factory=list)  # ignored files a snapshot could not hold
    snapshot_dir: Path | None = None  # a snapshot's private repository, removed with the workspace
    git_dir: Path = field(default=Path())

    def __post_init__(self) -> None:
        if self.git_dir == Path():
            found = _admin_dir(self.mirror, self.root)
            if found is None:
                raise BuildfixerError(f"{self.root} is no worktree of {self.mirror}")
            self.git_dir = found

    @classmethod
    def create(
        cls,
        source: str | Path,
        commit: str | None = None,
        dest: Path | None = None,
        cache_dir: Path | None = None,
    ) -> Workspace:
        """Check out `commit` (default: HEAD) of a repository path, URL or `.bundle` into a new directory."""
        cache_dir = cache_dir or cache_root()
        mirror = _mirror_for(normalize_source(source), cache_dir)
        resolved = _resolve(mirror, commit or "HEAD", source)
        return cls._checkout(mirror, resolved, dest, cache_dir)

    @classmethod
    def _checkout(cls, mirror: Path, resolved: str, dest: Path | None, cache_dir: Path) -> Workspace:
        """A new worktree of `mirror` at the commit `resolved`."""
        if dest is None:  # named after this process, so a run after a kill -9 can remove it
            dest = owned_temp_dir(cache_dir / "workspaces", "ws-")
            dest.rmdir()
        elif dest.exists() and any(dest.iterdir()):
            raise BuildfixerError(f"workspace destination is not empty: {dest}")
        with _worktrees_locked(mirror):
            git("worktree", "add", "--detach", "--quiet", str(dest), resolved, git_dir=mirror)
        return cls(root=dest.resolve(), base_commit=resolved, mirror=mirror)

    @classmethod
    def from_directory(
        cls, folder: Path, dest: Path | None = None, cache_dir: Path | None = None
    ) -> Workspace:
        """Snapshot a folder as its build sees it (see workspace.snapshot) and check it out as a workspace.

        The workspace's `protected` paths are the git-ignored files of the folder it holds (the
        user's own config): a repair may read them but never writes them back.
        """
        if not folder.is_dir():
            raise BuildfixerError(f"not a directory: {folder}")
        cache_dir = cache_dir or cache_root()
        into = owned_temp_dir(cache_dir / "snapshots", f"{folder.name}-")
        try:
            snap = take_snapshot(folder.resolve(), into)
            _exclude_build_outputs(snap.repo)
            workspace = cls._checkout(snap.repo, snap.commit, dest, cache_dir)
        except BaseException:
            shutil.rmtree(into, ignore_errors=True)
            raise
        workspace.protected = snap.ignored
        workspace.left_out = snap.left_out
        workspace.snapshot_dir = into
        return workspace

    @classmethod
    def acquire(
        cls, source: str | Path, commit: str | None = None, cache_dir: Path | None = None
    ) -> Workspace:
        """A pooled workspace: reuse a released checkout of the same repository when there is one.

        Switching a used checkout to another commit rewrites only the files that differ, which
        for a large repository is far cheaper than checking out every file again. Give it back
        with `release()`; a slot whose holder died (kill -9) is taken over.
        """
        cache_dir = cache_dir or cache_root()
        mirror = _mirror_for(normalize_source(source), cache_dir)
        resolved = _resolve(mirror, commit or "HEAD", source)
        pool = cache_dir / "workspaces" / mirror.name.removesuffix(".git")
        pool.mkdir(parents=True, exist_ok=True)
        for index in range(10_000):
            slot, lock = pool / f"slot-{index}", pool / f"slot-{index}.lock"
            if not take_lock(lock):
                continue
            try:
                admin = _admin_dir(mirror, slot)
                if admin is not None and slot.is_dir():
                    ws = cls(slot.resolve(), resolved, mirror, lock=lock, git_dir=admin)
                    ws._restore_git_link()  # the last attempt's agent may have rewritten `.git`
                    ws.git("checkout", "--quiet", "--force", "--detach", resolved)
                    ws.git("clean", "-qffdx")
                    return ws
                shutil.rmtree(slot, ignore_errors=True)
                with _worktrees_locked(mirror):
                    git("worktree", "prune", git_dir=mirror, check=False)
                    git("worktree", "add", "--detach", "--quiet", str(slot), resolved, git_dir=mirror)
                return cls(root=slot.resolve(), base_commit=resolved, mirror=mirror, lock=lock)
            except BaseException:
                lock.unlink(missing_ok=True)
                raise
        raise BuildfixerError(f"workspace pool exhausted in {pool}")

    def release(self) -> None:
        """Give a pooled workspace back (its next user resets it); removes an unpooled one."""
        if self.lock is None:
            self.remove()
            return
        self.lock.unlink(missing_ok=True)
        self.lock = None

    def git(self, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
        """Run git on this workspace through its recorded git directory (never the root's `.git`)."""
        return git(*args, cwd=self.root, git_dir=self.git_dir, work_tree=self.root, env=env, check=check)

    def _restore_git_link(self) -> None:
        """Point the root's `.git` at the workspace's git directory again, whatever was written there."""
        link = self.root / ".git"
        if link.is_dir() and not link.is_symlink():
            shutil.rmtree(link)  # never follows a link inside (fd-based)
        # Renamed over whatever is there now: a link planted at .git is replaced, not written through.
        confined.write_bytes(self.root, ".git", f"gitdir: {self.git_dir}\n".encode(), into_git=True)

    def reset(self) -> None:
        """Back to the base commit exactly: edits undone, new and ignored files removed."""
        self.git("reset", "--quiet", "--hard", self.base_commit)
        self.git("clean", "-qffdx")
        self._restore_git_link()

    def changed_files(self, paths: list[str] | None = None) -> list[str]:
        """Paths (relative to the root) that differ from the base commit, new files included.

        Args:
            paths: Only these paths (the edits of a repair); None for every change.
        """
        if paths is not None and not paths:
            return []
        self._stage_all()
        out = self.git(
            "diff", "--cached", "--name-only", "--no-renames", "-z", self.base_commit, "--", *literal(paths)
        )
        return [p for p in out.split("\0") if p]

    def diff(self, paths: list[str] | None = None, tree: str | None = None) -> str:
        """Unified diff from the base commit to the current tree, new files and binary changes included.

        Args:
            paths: Only these paths (the edits of a repair); None for every change.
            tree: Diff to this tree object (from `write_tree`) instead of the working tree now.
        """
        if paths is not None and not paths:
            return ""
        if tree is None:
            self._stage_all()
        compared = [self.base_commit, tree] if tree else ["--cached", self.base_commit]
        return self.git(
            "diff", "--binary", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
            *compared, "--", *literal(paths),
        )  # fmt: skip

    def write_tree(self) -> str:
        """The tree object of the working state (what `diff` compares), written to the mirror."""
        self._stage_all()
        tree = self.git("write-tree").strip()
        self.git("reset", "--quiet")  # unstage: builds and tools see the tree, not an index
        return tree

    def _stage_all(self) -> None:
        stage_all(self.root, self.git_dir)

    def apply_patch(self, patch: str) -> list[str]:
        """Apply a unified diff (see the module's `apply_patch`); returns the paths it changed."""
        return apply_patch(self.root, patch)

    def remove(self) -> None:
        """Delete the working tree (stop its builds' daemons first: buildsys.project.stop_daemons)."""
        with _worktrees_locked(self.mirror):
            git("worktree", "remove", "--force", str(self.root), git_dir=self.mirror, check=False)
            shutil.rmtree(self.root, ignore_errors=True)
            git("worktree", "prune", git_dir=self.mirror, check=False)
        if self.snapshot_dir is not None:
            shutil.rmtree(self.snapshot_dir, ignore_errors=True)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _admin_dir(mirror: Path, root: Path) -> Path | None:
    """The git directory of the worktree at `root`, looked up in the mirror (never in the root).

    `git worktree add` records in `<mirror>/worktrees/<id>/gitdir` where the worktree's `.git`
    is; the mirror is out of an agent's reach, the root is not.
    """
    wanted = os.path.normpath(root.resolve() / ".git")
    try:
        admins = list((mirror / "worktrees").iterdir())
    except OSError:
        return None
    for admin in admins:
        try:
            recorded = (admin / "gitdir").read_text().strip()
        except OSError:
            continue
        if os.path.normpath(recorded) == wanted:
            return admin.resolve()
    return None


def apply_patch(root: Path, patch: str, reverse: bool = False) -> list[str]:
    """Apply a unified diff in `root`; one that does not apply changes nothing and raises BuildfixerError.

    `reverse` takes an applied diff back out (the tree before it).

    git runs against an empty scratch repository with `root` as its working tree: a patch needs
    no history, and the `.git` inside `root` (an agent's to write) is never read.
    """
    if not patch.strip():
        return []
    data = (patch if patch.endswith("\n") else patch + "\n").encode()
    with tempfile.TemporaryDirectory(prefix="buildfixer-apply-") as scratch:
        repo = Path(scratch) / "empty.git"
        git("init", "--bare", "--quiet", str(repo))

        def apply(*flags: str) -> str:
            options = [*flags, "--whitespace=nowarn", *(["--reverse"] if reverse else [])]
            return git("apply", *options, cwd=root, git_dir=repo, work_tree=root, input_bytes=data)

        try:
            apply("--check")
        except BuildfixerError as exc:
            raise BuildfixerError(f"patch does not apply: {str(exc).split(': ', 1)[-1]}") from None
        apply()
        names = apply("--numstat")
    return [line.split("\t", 2)[2] for line in names.splitlines() if line.count("\t") >= 2]
