"""Read a repository's history and make the synthetic states curation needs, all in the bare mirror.

Curation never touches the user's repository: every query runs on buildfixer's mirror of it, and
a synthetic state (a commit with its build files reverted, or a model's re-implementation) is a
commit object written into that mirror and kept alive by a ref under `refs/buildfixer/curate/`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from fnmatch import fnmatch
from pathlib import Path

from buildfixer.core.errors import BuildfixerError
from buildfixer.workspace.git import git

SYNTHETIC_REFS = "refs/buildfixer/curate"

# Files that declare how a project builds and what it depends on (not its code).
BUILD_FILE_PATTERNS = (
    "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties",
    "gradle/libs.versions.toml", "gradle/wrapper/gradle-wrapper.properties", "pom.xml",
    "AndroidManifest.xml", "pyproject.toml", "setup.py", "setup.cfg", "requirements*.txt",
    "Pipfile", "tox.ini", "package.json", "package-lock.json", "npm-shrinkwrap.json", "yarn.lock",
    "pnpm-lock.yaml", "tsconfig*.json",
)  # fmt: skip


def is_build_file(path: str) -> bool:
    """True when a repository path is a build or dependency file (at any depth)."""
    name = path.rsplit("/", 1)[-1]
    return any(fnmatch(name, p) if "/" not in p else path.endswith(p) for p in BUILD_FILE_PATTERNS)


@dataclass(frozen=True)
class Commit:
    """What curation needs to know about one commit."""

    sha: str
    tree: str
    parents: tuple[str, ...]
    date: str  # committer date, ISO 8601 in UTC ("2022-03-01T12:00:00Z")
    subject: str
    message: str


class History:
    """Queries on one mirror."""

    def __init__(self, mirror: Path) -> None:
        self.mirror = mirror
        self._commits: dict[str, Commit] = {}

    def git(self, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
        """Run git on the mirror."""
        return git(*args, git_dir=self.mirror, env=env, check=check)

    def resolve(self, rev: str) -> str:
        """Full hash of a commit-ish; a clear error when it is unknown."""
        sha = self.git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False).strip()
        if not sha:
            raise BuildfixerError(f"no commit {rev!r} in the repository")
        return sha

    def commit(self, sha: str) -> Commit:
        """The commit's tree, parents, UTC date and message (cached).

        Raises:
            BuildfixerError: The commit cannot be read (missing, or git cannot parse it).
        """
        if sha not in self._commits:
            out = self.git("show", "-s", "--format=%H%x00%T%x00%P%x00%ct%x00%s%x00%B", sha)
            try:
                full, tree, parents, stamp, subject, body = out.split("\0", 5)
                date = datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            except ValueError:  # a damaged commit object git still prints something for
                raise BuildfixerError(f"cannot read commit {sha}: {out[:200]!r}") from None
            commit = Commit(full, tree, tuple(parents.split()), date, subject, body.strip())
            self._commits[sha] = self._commits[full] = commit
        return self._commits[sha]

    def merges(self, rev: str = "HEAD", limit: int | None = None) -> list[str]:
        """Merge commits on the first-parent line of `rev`, newest first."""
        count = [f"--max-count={limit}"] if limit else []
        return self.git("rev-list", "--merges", "--first-parent", *count, rev).split()

    def chain(self, start: str, end: str) -> list[str]:
        """The branch's own commits from `start` (excluded) to `end` (included), oldest first.

        The first-parent line is followed, so merges of the main line into the branch count as
        one step rather than importing the main line's commits.
        """
        return self.git("rev-list", "--reverse", "--first-parent", end, f"^{start}").split()

    def merged_chains(
        self, rev: str = "HEAD", limit: int | None = None, unreadable: dict[str, str] | None = None
    ) -> list[list[str]]:
        """For each merge on `rev`'s first-parent line, the merged branch's commits, oldest first.

        A merge whose branch cannot be read (a shallow or partial clone) is left out, with git's
        reason in `unreadable`.
        """
        chains = []
        for merge in self.merges(rev, limit):
            try:
                parents = self.commit(merge).parents
                chain = self.chain(parents[0], parents[1]) if len(parents) >= 2 else []
            except BuildfixerError as exc:
                if unreadable is None:
                    raise
                unreadable[merge] = str(exc)
                continue
            if chain:
                chains.append(chain)
        return chains

    def commits(self, rev: str = "HEAD", limit: int | None = None) -> list[str]:
        """Non-merge commits reachable from `rev` (merged branches' included), newest first."""
        count = [f"--max-count={limit}"] if limit else []
        return self.git("rev-list", "--no-merges", *count, rev).split()

    def changed_paths(self, old: str, new: str) -> list[str]:
        """Paths that differ between two commits (renames as a delete and an add)."""
        out = self.git("diff", "--name-only", "--no-renames", "-z", old, new)
        return [p for p in out.split("\0") if p]

    def diff(self, old: str, new: str) -> str:
        """Unified diff old -> new, binary changes included, as `git apply` takes it."""
        return self.git("diff", "--binary", "--no-color", "--no-ext-diff", "--find-renames", old, new)

    def synthetic(self, base: str, parent: str, take_from: dict[str, str | None], message: str) -> str:
        """A commit with `base`'s tree where each path of `take_from` comes from another commit.

        Args:
            base: The commit whose tree is the starting point.
            parent: The new commit's parent (its history, for tools that read it).
            take_from: Path -> commit to take the path's content from (None: delete the path;
                a path absent there is deleted too).
            message: Commit message.

        Returns:
            The new commit's hash; a ref under SYNTHETIC_REFS keeps it from garbage collection.
        """
        # One `update-index --index-info` does both: an entry as `ls-tree` prints it is written, and
        # mode 0 removes the path (`--force-remove` would want a working tree, a mirror has none).
        removed = f"0 {'0' * len(self.commit(base).sha)}\t"
        entries = []
        for path, source in take_from.items():
            entry = self.git("ls-tree", "-z", source, "--", path) if source else ""
            entries.append(entry if entry else f"{removed}{path}\0")
        with self.index_of(base) as env:
            if entries:
                data = "".join(entries).encode()
                git("update-index", "-z", "--index-info", git_dir=self.mirror, env=env, input_bytes=data)
            tree = self.git("write-tree", env=env).strip()
        return self.commit_tree(tree, parent, message)

    def unreadable(self, sha: str) -> str | None:
        """Why a commit, or an object of its tree, cannot be read (None: it can).

        A partial clone lacks blobs, a shallow one the parents at its edge, and a damaged object
        stops git: such a commit cannot be built, and curation skips it.
        """
        try:
            self.commit(sha)
            self.git("rev-list", "--objects", "--no-walk", sha)  # fails on a missing tree or blob
        except BuildfixerError as exc:
            return str(exc)
        return None

    def is_ancestor(self, old: str, new: str) -> bool:
        """Whether commit `old` is an ancestor of `new`, both full hashes (False when either is unknown)."""
        return self.git("merge-base", old, new, check=False).strip() == old

    @contextlib.contextmanager
    def index_of(self, commit: str) -> Iterator[dict[str, str]]:
        """A private index holding `commit`'s tree: the environment that points git at it.

        Synthetic states are built, and patches checked, in it without any working tree.
        """
        fd, index = tempfile.mkstemp(prefix="curate-index-", dir=self.mirror)
        os.close(fd)
        os.unlink(index)  # git wants to create the index itself
        env = {"GIT_INDEX_FILE": index}
        try:
            self.git("read-tree", commit, env=env)
            yield env
        finally:
            Path(index).unlink(missing_ok=True)

    def commit_tree(self, tree: str, parent: str, message: str) -> str:
        """A commit of `tree` on `parent`, dated like the parent (so it sorts with its history)."""
        when = self.git("show", "-s", "--format=%cI", parent).strip()
        env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
        sha = self.git("commit-tree", tree, "-p", parent, "-m", message, env=env).strip()
        self.git("update-ref", f"{SYNTHETIC_REFS}/{sha}", sha)
        return sha

    def write_git_bundle(self, out: Path, refs: list[str]) -> None:
        """Write a git bundle holding `refs` (and their history) to `out`, atomically."""
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.tmp")
        self.git("bundle", "create", "--quiet", str(tmp), *refs)
        os.replace(tmp, out)
