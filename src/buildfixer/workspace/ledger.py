"""Which changes in a working tree are the repair, and which are what builds wrote.

A repair is what an agent or a recipe changed on purpose: files edited through tools or the
shell between builds. Builds change files too (a lockfile rewritten by `npm install`, a
`_version.py` regenerated from git, a formatter's rewrite), and those changes are no part of
the repair: copying them back would write files nobody asked to change. The ledger tells the
two apart by *when* a change happened: it takes a picture of the tree (a git tree object, built
in a private index so the worktree's own index is never touched) before and after every build;
whatever differs between the end of one build and the start of the next was edited.

It also remembers the picture each full build started from, so a verdict build over an
unchanged tree can reuse the last result instead of building again.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from buildfixer.core.build_result import BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.workspace.git import git, literal

# Ignored single files worth keeping in a picture: small config files a fix creates
# (local.properties, keystore.properties, google-services.json, .env), never build outputs.
MAX_IGNORED_FILE = 100_000


def small_ignored_files(root: Path, env: dict[str, str] | None = None) -> list[str]:
    """Ignored single files (not whole ignored directories such as build/) that look like config."""
    out = git("status", "--porcelain", "--ignored", "-z", cwd=root, env=env)
    found = []
    for entry in out.split("\0"):
        if not entry.startswith("!! ") or entry.endswith("/"):
            continue
        path = entry[3:]
        full = root / path
        try:
            small = full.is_file() and not full.is_symlink() and full.stat().st_size <= MAX_IGNORED_FILE
            if small and b"\0" not in full.read_bytes()[:8192]:
                found.append(path)
        except OSError:
            continue
    return found


@dataclass
class _FullBuild:
    """The picture a full build started from, under which options, and what it said."""

    tree: str
    options: str
    result: BuildResult


@dataclass
class EditLedger:
    """Tracks the edits made in a git working tree since `base`, apart from build side effects."""

    root: Path
    base: str
    edited: set[str] = field(default_factory=set)
    _last: str = ""
    _index: Path | None = None
    _git_dir: Path | None = None
    _last_full: _FullBuild | None = None

    @classmethod
    def open(cls, root: Path) -> EditLedger | None:
        """A ledger for the worktree at `root` (base: its HEAD); None when root is no git worktree."""
        head = git("rev-parse", "--verify", "--quiet", "HEAD", cwd=root, check=False).strip()
        top = git("rev-parse", "--show-toplevel", cwd=root, check=False).strip()
        if not head or not top or Path(top).resolve() != root.resolve():
            return None
        ledger = cls(root=root.resolve(), base=head)
        ledger._last = ledger.picture()
        return ledger

    def _index_path(self, name: str) -> Path:
        if self._git_dir is None:
            self._git_dir = Path(git("rev-parse", "--absolute-git-dir", cwd=self.root).strip())
        return self._git_dir / name

    def _env(self) -> dict[str, str]:
        if self._index is None:
            self._index = self._index_path("buildfixer-ledger.index")
            own = self._index_path("index")
            if own.is_file():  # start from the checkout's stat cache: no file is hashed twice
                shutil.copyfile(own, self._index)
        return {"GIT_INDEX_FILE": str(self._index)}

    def picture(self) -> str:
        """The tree object of the working tree as it is now (new files and small ignored ones included)."""
        env = self._env()
        git("add", "-A", cwd=self.root, env=env)
        for path in small_ignored_files(self.root, env):
            git("add", "-f", "--", path, cwd=self.root, env=env)
        return git("write-tree", cwd=self.root, env=env).strip()

    def changed_between(self, old: str, new: str) -> set[str]:
        """Paths that differ between two trees."""
        if old == new:
            return set()
        out = git("diff-tree", "-r", "--no-renames", "--name-only", "-z", old, new, cwd=self.root)
        return {p for p in out.split("\0") if p}

    def note_edits(self) -> str:
        """Record what changed since the last picture as edits; returns the new picture."""
        now = self.picture()
        self.edited |= self.changed_between(self._last, now)
        self._last = now
        return now

    def before_build(self) -> str:
        """Call when a build starts: what changed until now was edited. Returns the repair's tree."""
        self.note_edits()
        return self.repair_tree()

    def after_build(self, started_from: str, options: str, result: BuildResult | None) -> None:
        """Call when a build ends: its changes are side effects. Remembered unless it crashed (None)."""
        self._last = self.picture()
        self._last_full = _FullBuild(started_from, options, result) if result is not None else None

    def reusable_result(self, options: str) -> BuildResult | None:
        """The last full build's result when nothing was built or edited since and the options match."""
        full = self._last_full
        if full is None or full.options != options:
            return None
        self.note_edits()
        return full.result if self.repair_tree() == full.tree else None

    def repair_tree(self) -> str:
        """The tree of the base commit plus the edits alone (no side effects): what a repair amounts to."""
        env = {"GIT_INDEX_FILE": str(self._index_path("buildfixer-repair.index"))}
        git("read-tree", self.base, cwd=self.root, env=env)
        if self.edited:
            paths = "".join(f"{p}\0" for p in sorted(self.edited)).encode()
            git(
                "update-index", "--add", "--remove", "-z", "--stdin",
                cwd=self.root, env=env, input_bytes=paths,
            )  # fmt: skip
        return git("write-tree", cwd=self.root, env=env).strip()

    def settle(self, frozen: set[str] | None = None) -> tuple[list[str], list[str]]:
        """Undo build side effects and edits of `frozen` paths; returns (edited paths kept, frozen undone).

        After this the tree is the base commit plus the edits alone: what a verdict build must judge.
        """
        self.note_edits()
        current = self.changed_between(self.base, self._last)
        undone = sorted(p for p in self.edited & current if p in (frozen or set()))
        keep = sorted(p for p in self.edited & current if p not in (frozen or set()))
        restore = sorted(current - set(keep))
        if restore:
            self._restore(restore)
            self._last = self.picture()
        if undone:
            self.edited -= set(undone)
        return keep, undone

    def _restore(self, paths: list[str]) -> None:
        """Put paths back as they are in the base commit (removed when the base has none)."""
        listed = git("ls-tree", "-r", "-z", "--name-only", self.base, "--", *literal(paths), cwd=self.root)
        in_base = {p for p in listed.split("\0") if p}
        for rel in paths:
            target = self.root / rel
            if rel not in in_base and (target.is_file() or target.is_symlink()):
                target.unlink()
        present = sorted(in_base)
        if present:
            # Through the ledger's own index: the worktree's index stays as the checkout left it.
            env = self._env()
            try:
                git("checkout", self.base, "--", *literal(present), cwd=self.root, env=env)
            except BuildfixerError as exc:
                raise BuildfixerError(f"could not undo build side effects: {exc}") from None
