"""A snapshot of a project folder as the user's build sees it, committed into a private repository.

A build reads more than git tracks: a git-ignored `local.properties` or `signing.properties`
holding the user's real values, a `_version.py` a version-from-git tool wrote, a `.env`. A
snapshot without them builds differently from the user's folder, and a repair would then "fix"
the difference (placeholders) and overwrite the user's file. So the snapshot holds every file
the build can read, ignored ones included, and leaves out only what builds produce or download
(build/, target/, node_modules/, virtualenvs, caches) and ignored files over a size limit.

When the folder lies in a git repository, the snapshot commit sits on top of its HEAD in a
clone that shares the repository's objects (nothing is copied), with its branches and tags, so
`git describe` and the tools built on it (setuptools-scm, hatch-vcs, versioning plugins) see the
history the user's build sees. The user's repository is only read.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from buildfixer.core.errors import BuildfixerError
from buildfixer.workspace.git import git

# An ignored file larger than this is no config file a build reads but data or an output
# (a database dump, a model, an archive): left out, and named in the snapshot's notes.
MAX_IGNORED_FILE = 20_000_000

# Directories that hold what builds produce or download, never sources. Skipped wherever they
# are git-ignored; `.git` and dependency folders are skipped everywhere.
OUTPUT_DIRS = {
    "build", "target", "out", "dist", ".gradle", ".kotlin", ".cxx", ".externalNativeBuild",
    "node_modules", ".next", ".nuxt", ".parcel-cache", ".turbo", ".angular", ".svelte-kit",
    "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".eggs",
    ".venv", "venv", "env", ".hypothesis", "htmlcov", "coverage", ".cache",
}  # fmt: skip
_NEVER_SOURCES = {".git", ".gradle", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache"}
_COMPILED = (".class", ".pyc", ".pyo")


@dataclass
class Snapshot:
    """The private repository holding a folder's snapshot, and what it left out."""

    repo: Path
    commit: str
    ignored: set[str] = field(default_factory=set)  # git-ignored files the snapshot holds
    left_out: list[str] = field(default_factory=list)  # ignored files too large to hold


def take_snapshot(folder: Path, into: Path) -> Snapshot:
    """Copy `folder` as its build sees it into `into`, commit it, and return the private repository."""
    tree, repo, index = into / "tree", into / "repo.git", into / "index"
    selection = _Selection.of(folder)
    shutil.copytree(folder, tree, symlinks=True, ignore=selection.ignore_function(folder))
    parent = _clone_history(folder, repo)
    if parent is None:
        git("init", "--bare", "--quiet", str(repo))
    exclude = git("rev-parse", "--git-path", "info/exclude", cwd=folder, check=False).strip()
    if exclude and (folder / exclude).is_file():  # the user's own ignore rules, to tell ignored files
        (repo / "info").mkdir(exist_ok=True)
        shutil.copyfile(folder / exclude, repo / "info" / "exclude")
    env = {"GIT_INDEX_FILE": str(index)}
    git("add", "-A", "-f", "--", ".", git_dir=repo, work_tree=tree, cwd=tree, env=env)
    listed = git(
        "ls-files", "-z", "-c", "-i", "--exclude-standard", git_dir=repo, work_tree=tree, cwd=tree, env=env
    )
    tree_id = git("write-tree", git_dir=repo, env=env).strip()
    args = ["commit-tree", tree_id, "-m", "buildfixer snapshot"] + (["-p", parent] if parent else [])
    commit = git(*args, git_dir=repo).strip()
    git("update-ref", "refs/heads/buildfixer-snapshot", commit, git_dir=repo)
    shutil.rmtree(tree, ignore_errors=True)
    index.unlink(missing_ok=True)
    return Snapshot(repo, commit, {p for p in listed.split("\0") if p}, sorted(selection.too_large))


def _clone_history(folder: Path, repo: Path) -> str | None:
    """Clone the folder's repository (objects shared) into `repo`; its HEAD, or None without history."""
    top = git("rev-parse", "--show-toplevel", cwd=folder, check=False).strip()
    head = git("rev-parse", "--verify", "--quiet", "HEAD", cwd=folder, check=False).strip()
    if not top or not head:
        return None
    try:
        git("clone", "--bare", "--shared", "--quiet", top, str(repo))
    except BuildfixerError:  # an unreadable or foreign-owned repository: a snapshot without history
        shutil.rmtree(repo, ignore_errors=True)
        return None
    return head


@dataclass
class _Selection:
    """What the copy skips: VCS data, build outputs, and ignored files too large to be config."""

    ignored_dirs: set[str] = field(default_factory=set)  # relative, no trailing slash
    ignored_files: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    too_large: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, folder: Path) -> _Selection:
        """Read the folder's git-ignored entries (none outside a git repository)."""
        selection = cls()
        out = git(
            "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory",
            cwd=folder, check=False,
        )  # fmt: skip
        for entry in (e for e in out.split("\0") if e):
            if entry.endswith("/"):
                rel = entry.rstrip("/")
                if _is_output_dir(folder / rel):
                    selection.skipped.add(rel)
                else:
                    selection.ignored_dirs.add(rel)
            else:
                selection.ignored_files.add(entry)
        return selection

    def _is_ignored(self, rel: str) -> bool:
        if rel in self.ignored_files:
            return True
        parts = rel.split("/")
        return any("/".join(parts[:i]) in self.ignored_dirs for i in range(1, len(parts)))

    def ignore_function(self, root: Path) -> Callable[[str, list[str]], set[str]]:
        """The `ignore` callable of shutil.copytree for this selection."""

        def ignore(directory: str, names: list[str]) -> set[str]:
            base = Path(directory)
            prefix = os.path.relpath(directory, root)
            skipped = {n for n in names if n in _NEVER_SOURCES}
            present = set(names)
            if present & {"build.gradle", "build.gradle.kts"}:
                skipped.add("build")  # outputs next to their build file, ignored or not
            if "pom.xml" in present:
                skipped.add("target")
            for name in names:
                rel = name if prefix == "." else f"{prefix}/{name}"
                path = base / name
                if rel in self.skipped or (path.is_dir() and not path.is_symlink() and _is_venv(path)):
                    skipped.add(name)
                elif self._is_ignored(rel) and not path.is_dir() and _too_large_or_compiled(path):
                    skipped.add(name)
                    if not name.endswith(_COMPILED):
                        self.too_large.add(rel)
                elif self._is_ignored(rel) and path.is_dir() and _is_output_dir(path):
                    skipped.add(name)
            return skipped & present

        return ignore


def _is_venv(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file()


def _is_output_dir(path: Path) -> bool:
    return path.name in OUTPUT_DIRS or path.name.endswith(".egg-info") or _is_venv(path)


def _too_large_or_compiled(path: Path) -> bool:
    if path.name.endswith(_COMPILED):
        return True
    try:
        return not path.is_symlink() and path.stat().st_size > MAX_IGNORED_FILE
    except OSError:
        return True
