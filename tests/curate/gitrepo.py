"""Write small git repositories with real histories for the curation tests."""

import os
import subprocess
from datetime import datetime, timedelta
from pathlib import Path


class Repo:
    """A repository whose commits are dated one hour apart from 2024-01-01, in the order made."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.when = datetime(2024, 1, 1, 9, 0, 0)
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        stamp = self.when.strftime("%Y-%m-%dT%H:%M:%S+0000")
        env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        return subprocess.run(
            ["git", "-c", "user.name=dev", "-c", "user.email=dev@example.com", *args],
            cwd=self.path, env=env, check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip

    def write(self, files: dict[str, str | None]) -> None:
        for name, text in files.items():
            target = self.path / name
            if text is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)

    def commit(self, message: str, files: dict[str, str | None]) -> str:
        """Write the files (None deletes one) and commit them; returns the commit hash."""
        self.when += timedelta(hours=1)
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def branch(self, name: str) -> None:
        self.git("checkout", "-q", "-b", name)

    def checkout(self, name: str) -> None:
        self.git("checkout", "-q", name)

    def merge(self, name: str) -> str:
        """Merge a branch into the current one with a merge commit; returns its hash."""
        self.when += timedelta(hours=1)
        self.git("merge", "-q", "--no-ff", "-m", f"Merge branch '{name}'", name)
        return self.git("rev-parse", "HEAD")
