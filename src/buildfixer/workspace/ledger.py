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

The tree is written by builds and the model: the ledger's own look at its files (is an ignored
file small text? remove a file a checkpoint did not have) goes through `core.confined`, so a
link or a linked directory planted there never leads it out. git itself never follows a link.
"""

from __future__ import annotations

import shutil
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from buildfixer.core import confined
from buildfixer.core.build_result import BuildResult
from buildfixer.core.errors import BuildfixerError, ToolError
from buildfixer.workspace.git import git, literal, worktree_git_dir

# Ignored single files worth keeping in a picture: small config files a fix creates
# (local.properties, keystore.properties, google-services.json, .env), never build outputs.
MAX_IGNORED_FILE = 100_000


def small_ignored_files(
    root: Path, env: dict[str, str] | None = None, git_dir: Path | None = None
) -> list[str]:
    """Ignored single files (not whole ignored directories such as build/) that look like config.

    With `git_dir`, git reads that repository with `root` as its working tree, never `root/.git`.
    Submodules (a nested repository an agent created) are not looked into: git would run there.
    """
    out = git(
        "status", "--porcelain", "--ignored", "--ignore-submodules=all", "-z",
        cwd=root, git_dir=git_dir, work_tree=root if git_dir else None, env=env,
    )  # fmt: skip
    found = []
    for entry in out.split("\0"):
        if not entry.startswith("!! ") or entry.endswith("/"):
            continue
        path = entry[3:]
        try:  # a regular file itself (no link, no linked directory on the way), of one name
            with confined.open_node(root, path, follow=False) as node:
                small = node.is_file() and node.st.st_nlink == 1 and node.st.st_size <= MAX_IGNORED_FILE
                if small and b"\0" not in node.head(8192):
                    found.append(path)
        except (ToolError, OSError):
            continue
    return found


def nested_repositories(root: Path, git_dir: Path, env: dict[str, str] | None = None) -> list[str]:
    """Repositories inside the tree that git does not track (an agent's `git init`, a planted `.git`).

    git lists a nested repository among untracked files as one entry ending in "/" (it never
    looks inside), every other untracked path as a file.
    """
    out = git(
        "ls-files", "-z", "--others", "--exclude-standard", cwd=root, git_dir=git_dir, work_tree=root, env=env
    )
    return [entry.rstrip("/") for entry in out.split("\0") if entry.endswith("/")]


def stage_all(root: Path, git_dir: Path, env: dict[str, str] | None = None) -> None:
    """Stage the whole tree as a repair sees it: new files, deletions, small ignored config files.

    Nested repositories are left out: staged, they become submodules, and git then runs
    `git status` inside them with *their* config (filters, fsmonitor) on every later command.
    A repair never carries one (copy-back refuses them).
    """
    nested = [f":(exclude,literal){path}" for path in nested_repositories(root, git_dir, env)]
    git("add", "-A", "--", ".", *nested, cwd=root, git_dir=git_dir, work_tree=root, env=env)
    ignored = small_ignored_files(root, env, git_dir)
    if ignored:
        git("add", "-f", "--", *literal(ignored), cwd=root, git_dir=git_dir, work_tree=root, env=env)


@dataclass
class _FullBuild:
    """The picture a full build started from, under which options, and what it said."""

    tree: str
    options: str
    result: BuildResult


@dataclass
class EditLedger:
    """Tracks the edits made in a git working tree since `base`, apart from build side effects.

    `git_dir` is the tree's git directory as it was when the ledger was opened (before any agent
    ran); every command names it, so a `.git` an agent writes into the tree later is never read.
    """

    root: Path
    base: str
    git_dir: Path
    edited: set[str] = field(default_factory=set)
    _last: str = ""
    _index: Path | None = None
    _last_full: _FullBuild | None = None

    @classmethod
    def open(cls, root: Path, git_dir: Path | None = None) -> EditLedger | None:
        """A ledger for the worktree at `root` (base: its HEAD); None when root is no git worktree.

        Args:
            root: The top of the working tree.
            git_dir: Its git directory when the caller knows it (`Workspace.git_dir`); else asked of
                git now, so open the ledger before an agent can write into `root`.
        """
        root = root.resolve()
        if git_dir is None:
            # Before any agent ran, `.git` is buildfixer's; the tree may be the sandbox user's.
            trusted = ("-c", f"safe.directory={root}")
            top = git(*trusted, "rev-parse", "--show-toplevel", cwd=root, check=False).strip()
            if not top or Path(top).resolve() != root:
                return None
            git_dir = worktree_git_dir(root)
        head = git(
            "rev-parse", "--verify", "--quiet", "HEAD", cwd=root, git_dir=git_dir, work_tree=root, check=False
        ).strip()
        if not head:
            return None
        ledger = cls(root=root, base=head, git_dir=git_dir)
        ledger._last = ledger.picture()
        return ledger

    def _git(self, *args: str, env: dict[str, str] | None = None, input_bytes: bytes | None = None) -> str:
        """Run git on the tree through the git directory recorded at `open`."""
        return git(
            *args, cwd=self.root, git_dir=self.git_dir, work_tree=self.root, env=env, input_bytes=input_bytes
        )

    def _index_path(self, name: str) -> Path:
        return self.git_dir / name

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
        stage_all(self.root, self.git_dir, env)
        return self._git("write-tree", env=env).strip()

    def changed_between(self, old: str, new: str) -> set[str]:
        """Paths that differ between two trees."""
        if old == new:
            return set()
        out = self._git("diff-tree", "-r", "--no-renames", "--name-only", "-z", old, new)
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
        self._git("read-tree", self.base, env=env)
        if self.edited:
            paths = "".join(f"{p}\0" for p in sorted(self.edited)).encode()
            self._git("update-index", "--add", "--remove", "-z", "--stdin", env=env, input_bytes=paths)
        return self._git("write-tree", env=env).strip()

    def patch(self) -> str:
        """The repair as a unified diff from the base commit (what a judge reads)."""
        return self._git(
            "diff", "--binary", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
            self.base, self.repair_tree(),
        )  # fmt: skip

    def checkpoint(self) -> str:
        """The repair so far, as a tree to come back to with `restore`."""
        self.note_edits()
        return self.repair_tree()

    def restore(self, tree: str) -> None:
        """Put the working tree back to a `checkpoint`: later edits undone, files they added removed."""
        self.note_edits()
        changed = sorted(self.changed_between(tree, self.repair_tree()))
        if not changed:
            return
        listed = self._git("ls-tree", "-r", "-z", "--name-only", tree, "--", *literal(changed))
        present = sorted(p for p in listed.split("\0") if p)
        for rel in sorted(set(changed) - set(present)):
            _remove(self.root, rel)
        if present:
            self._git("checkout", tree, "--", *literal(present), env=self._env())
        self._last = self.picture()

    def undo_side_effects(self, frozen: set[str] | None = None) -> tuple[list[str], list[str]]:
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
        listed = self._git("ls-tree", "-r", "-z", "--name-only", self.base, "--", *literal(paths))
        in_base = {p for p in listed.split("\0") if p}
        for rel in paths:
            if rel not in in_base:
                _remove(self.root, rel)
        present = sorted(in_base)
        if present:
            # Through the ledger's own index: the worktree's index stays as the checkout left it.
            env = self._env()
            try:
                self._git("checkout", self.base, "--", *literal(present), env=env)
            except BuildfixerError as exc:
                raise BuildfixerError(f"could not undo build side effects: {exc}") from None


def _remove(root: Path, rel: str) -> None:
    """Remove the file or link `rel` (never what a link points at, never through a linked directory)."""
    with suppress(ToolError):  # leads out of the tree (a directory swapped for a link): nothing of ours
        confined.unlink(root, rel)
