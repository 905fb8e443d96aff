"""The tests' own git: one runner for any command, one builder for repositories with a history.

Both run git with a fixed identity and without the caller's `GIT_*` variables (a `GIT_DIR` set
around the test run, or by a test for buildfixer's own git, never reaches the fixtures' git).
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

IDENTITY = ("-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false")
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}


def git(
    cwd: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None, raw: bool = False
) -> str:
    """Run `git args` in cwd (check=True) and return its output, stripped.

    Args:
        cwd: Where git runs.
        args: The git command line after `git`.
        input: Text given on standard input (`git apply -`).
        env: Variables added to the clean environment (commit dates, for instance).
        raw: Return the output exactly as printed (a patch, whose last line may be blank context).
    """
    done = subprocess.run(
        ["git", *IDENTITY, *args],
        cwd=cwd, input=input, env={**CLEAN_ENV, **(env or {})}, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout if raw else done.stdout.strip()


class Repo:
    """A repository whose commits are dated one hour apart from `start`, in the order made.

    `Repo(path)` makes the folder (its files may already be there) and runs `git init` on branch
    `main`; `commit` writes files and commits everything in the tree.
    """

    def __init__(self, path: Path, start: datetime = datetime(2024, 1, 1, 9, 0, 0)) -> None:
        self.path = path
        self.when = start
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, raw: bool = False) -> str:
        """Run git in the repository, dated at the last commit's time."""
        stamp = self.when.strftime("%Y-%m-%dT%H:%M:%S+0000")
        return git(self.path, *args, env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}, raw=raw)

    def write(self, files: dict[str, str | None]) -> None:
        """Write the files (None deletes one)."""
        for name, text in files.items():
            target = self.path / name
            if text is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)

    def commit(self, message: str, files: dict[str, str | None] | None = None) -> str:
        """Write the files (None deletes one) and commit the whole tree; returns the commit hash."""
        self.when += timedelta(hours=1)
        self.write(files or {})
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        """The hash of the current commit."""
        return self.git("rev-parse", "HEAD")

    def diff(self, base: str, head: str) -> str:
        """The patch from base to head, exactly as `git diff` prints it."""
        return self.git("diff", base, head, raw=True)

    def branch(self, name: str) -> None:
        """Create a branch at the current commit and check it out."""
        self.git("checkout", "-q", "-b", name)

    def checkout(self, name: str) -> None:
        self.git("checkout", "-q", name)

    def merge(self, name: str) -> str:
        """Merge a branch into the current one with a merge commit; returns its hash."""
        self.when += timedelta(hours=1)
        self.git("merge", "-q", "--no-ff", "-m", f"Merge branch '{name}'", name)
        return self.head()
