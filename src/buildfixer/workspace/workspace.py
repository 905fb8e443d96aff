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
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root
from buildfixer.workspace.git import git, is_repo, literal
from buildfixer.workspace.ledger import small_ignored_files
from buildfixer.workspace.snapshot import take_snapshot

_URL = re.compile(r"^([a-z][a-z0-9+.-]*://|git@|[\w.-]+@[\w.-]+:)", re.IGNORECASE)


def _mirror_for(source: str, cache_dir: Path) -> Path:
    """Bare mirror of the source in the cache, cloned on first use."""
    name = re.sub(r"[^\w.-]", "_", source.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git"))[:40]
    key = hashlib.sha256(source.encode()).hexdigest()[:12]
    mirror = cache_dir / "repos" / f"{name}-{key}.git"
    if not mirror.exists():
        mirror.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".clone-", dir=mirror.parent))
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


def _take_lock(lock: Path) -> bool:
    """Create the lock file holding our pid; a lock whose process is gone is taken over.

    The file appears with its pid already in it (written aside, then hard-linked into place):
    a lock read between its creation and the write would look abandoned and be taken twice.
    """
    pending = lock.with_name(f".{lock.name}.{os.getpid()}.{threading.get_ident()}")
    pending.write_text(str(os.getpid()))
    try:
        for _ in range(2):
            try:
                os.link(pending, lock)
                return True
            except FileExistsError:
                try:
                    holder = int(lock.read_text().strip() or "0")
                except (OSError, ValueError):
                    holder = 0
                if holder and _pid_alive(holder):
                    return False
                lock.unlink(missing_ok=True)
        return False
    finally:
        pending.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
    """A working tree at `base_commit`, private to one attempt."""

    root: Path
    base_commit: str
    mirror: Path
    lock: Path | None = None  # set for pooled workspaces (see `acquire`)
    protected: set[str] = field(default_factory=set)  # a snapshot's git-ignored user files
    left_out: list[str] = field(default_factory=list)  # ignored files a snapshot could not hold
    snapshot_dir: Path | None = None  # a snapshot's private repository, removed with the workspace

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
        if dest is None:
            (cache_dir / "workspaces").mkdir(parents=True, exist_ok=True)
            dest = Path(tempfile.mkdtemp(prefix="ws-", dir=cache_dir / "workspaces"))
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
        snap_root = cache_dir / "snapshots"
        snap_root.mkdir(parents=True, exist_ok=True)
        into = Path(tempfile.mkdtemp(prefix=f"{folder.name}-", dir=snap_root))
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
            if not _take_lock(lock):
                continue
            try:
                if (slot / ".git").exists():
                    git("checkout", "--quiet", "--force", "--detach", resolved, cwd=slot)
                    git("clean", "-qffdx", cwd=slot)
                    return cls(root=slot.resolve(), base_commit=resolved, mirror=mirror, lock=lock)
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

    def reset(self) -> None:
        """Back to the base commit exactly: edits undone, new and ignored files removed."""
        git("reset", "--quiet", "--hard", self.base_commit, cwd=self.root)
        git("clean", "-qffdx", cwd=self.root)

    def changed_files(self, paths: list[str] | None = None) -> list[str]:
        """Paths (relative to the root) that differ from the base commit, new files included.

        Args:
            paths: Only these paths (the edits of a repair); None for every change.
        """
        if paths is not None and not paths:
            return []
        self._stage_all()
        out = git(
            "diff", "--cached", "--name-only", "--no-renames", "-z", self.base_commit, "--",
            *literal(paths), cwd=self.root,
        )  # fmt: skip
        return [p for p in out.split("\0") if p]

    def diff(self, paths: list[str] | None = None) -> str:
        """Unified diff from the base commit to the current tree, new files and binary changes included.

        Args:
            paths: Only these paths (the edits of a repair); None for every change.
        """
        if paths is not None and not paths:
            return ""
        self._stage_all()
        return git(
            "diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--no-renames",
            self.base_commit, "--", *literal(paths), cwd=self.root,
        )  # fmt: skip

    def write_tree(self) -> str:
        """The tree object of the working state (what `diff` compares), written to the mirror."""
        self._stage_all()
        tree = git("write-tree", cwd=self.root).strip()
        git("reset", "--quiet", cwd=self.root)  # unstage: builds and tools see the tree, not an index
        return tree

    def _stage_all(self) -> None:
        git("add", "-A", cwd=self.root)
        for path in small_ignored_files(self.root):
            git("add", "-f", "--", path, cwd=self.root)

    def apply_patch(self, patch: str) -> list[str]:
        """Apply a unified diff (see the module's `apply_patch`); returns the paths it changed."""
        return apply_patch(self.root, patch)

    def remove(self) -> None:
        """Delete the working tree (stop its builds' daemons first: build.api.stop_daemons)."""
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


def apply_patch(root: Path, patch: str) -> list[str]:
    """Apply a unified diff in `root`; one that does not apply changes nothing and raises BuildfixerError."""
    if not patch.strip():
        return []
    data = (patch if patch.endswith("\n") else patch + "\n").encode()
    try:
        git("apply", "--check", "--whitespace=nowarn", cwd=root, input_bytes=data)
    except BuildfixerError as exc:
        raise BuildfixerError(f"patch does not apply: {str(exc).split(': ', 1)[-1]}") from None
    git("apply", "--whitespace=nowarn", cwd=root, input_bytes=data)
    names = git("apply", "--numstat", cwd=root, input_bytes=data)
    return [line.split("\t", 2)[2] for line in names.splitlines() if line.count("\t") >= 2]
