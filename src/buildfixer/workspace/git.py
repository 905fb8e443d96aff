"""A thin, checked wrapper around the git command line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from buildfixer.core.errors import BuildfixerError

# Commits made by buildfixer must not depend on the user's git configuration.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "buildfixer",
    "GIT_AUTHOR_EMAIL": "buildfixer@localhost",
    "GIT_COMMITTER_NAME": "buildfixer",
    "GIT_COMMITTER_EMAIL": "buildfixer@localhost",
    "GIT_TERMINAL_PROMPT": "0",  # a private URL fails instead of waiting for a password
}


def git(
    *args: str,
    cwd: Path | None = None,
    git_dir: Path | None = None,
    input_bytes: bytes | None = None,
    check: bool = True,
    timeout: float = 600,
    env: dict[str, str] | None = None,
) -> str:
    """Run git and return stdout; a failure becomes a one-line BuildfixerError.

    `env` adds variables (GIT_INDEX_FILE for a private index, for instance).
    """
    argv = ["git"]
    if git_dir is not None:
        argv += ["--git-dir", str(git_dir)]
    argv += list(args)
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            input=input_bytes,
            capture_output=True,
            env={**os.environ, **_IDENTITY, **(env or {})},
            timeout=timeout,
        )
    except FileNotFoundError as exc:
        raise BuildfixerError("git is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise BuildfixerError(f"git {args[0]} timed out after {timeout:.0f}s") from exc
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        first = next(
            (m for m in message if m.startswith(("fatal:", "error:"))), message[0] if message else ""
        )
        raise BuildfixerError(f"git {args[0]} failed: {first or f'exit code {proc.returncode}'}")
    return proc.stdout.decode("utf-8", "replace")


def is_repo(path: Path) -> bool:
    """True when path is the top of a git working tree or a bare repository."""
    return (path / ".git").exists() or ((path / "HEAD").is_file() and (path / "objects").is_dir())


def literal(paths: list[str] | None) -> list[str]:
    """Pathspecs that match these exact paths (`app/[id].tsx` or `:x` is no pattern here)."""
    return [f":(literal){p}" for p in paths or []]
