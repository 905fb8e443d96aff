"""A thin, checked wrapper around the git command line, hardened against what an agent can write.

An agent may write anything into a workspace, `.git` included. Every git command buildfixer runs
therefore ignores the places where a repository can name a command to run: no fsmonitor, no hooks,
no `ext::` transport, no pager, no external diff; and nothing git reads from the caller's
environment (GIT_DIR, GIT_CONFIG_PARAMETERS, GIT_EXTERNAL_DIFF, ...) except what buildfixer sets
itself. Commands on a workspace also pass its git directory explicitly (see `Workspace` and
`EditLedger`), so a `.git` file the agent replaced is never read.
"""

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

# Settings that name a program git would run. Command-line `-c` wins over every config file, and
# git passes it on to the git processes it starts (for submodules, too).
SAFE_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "protocol.ext.allow=never",
    "submodule.recurse=false",
    "log.showSignature=false",  # gpg.program would run on `git log`
    "core.sshCommand=ssh",
)

# Inherited variables kept: where the system's CA certificates are (an https clone needs them).
# Nothing else of the caller's GIT_* reaches git: GIT_DIR or GIT_INDEX_FILE set by a hook that
# started buildfixer would point every command at the user's repository.
_KEPT_GIT_VARIABLES = {"GIT_SSL_CAINFO", "GIT_SSL_CAPATH"}


def git_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a git command: the caller's without its GIT_* variables, plus `extra`."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _KEPT_GIT_VARIABLES}
    return {**inherited, **_IDENTITY, **(extra or {})}


def git(
    *args: str,
    cwd: Path | None = None,
    git_dir: Path | None = None,
    work_tree: Path | None = None,
    input_bytes: bytes | None = None,
    check: bool = True,
    timeout: float = 600,
    env: dict[str, str] | None = None,
) -> str:
    """Run git and return stdout; a failure becomes a one-line BuildfixerError.

    `env` adds variables (GIT_INDEX_FILE for a private index, for instance). `git_dir` and
    `work_tree` name the repository and its working tree instead of letting git discover them.
    """
    out = git_bytes(
        *args, cwd=cwd, git_dir=git_dir, work_tree=work_tree, input_bytes=input_bytes, check=check,
        timeout=timeout, env=env,
    )  # fmt: skip
    return out.decode("utf-8", "replace")


def git_bytes(
    *args: str,
    cwd: Path | None = None,
    git_dir: Path | None = None,
    work_tree: Path | None = None,
    input_bytes: bytes | None = None,
    check: bool = True,
    timeout: float = 600,
    env: dict[str, str] | None = None,
) -> bytes:
    """`git` returning stdout as bytes (a blob's exact content)."""
    argv = ["git", "--no-pager"]
    for setting in SAFE_CONFIG:
        argv += ["-c", setting]
    if git_dir is not None:
        # A git directory buildfixer names is its own, so is its config; a workspace's working
        # tree may belong to the sandbox's user, which git would call "dubious ownership".
        safe = [git_dir, *([work_tree] if work_tree is not None else [])]
        argv += [arg for path in safe for arg in ("-c", f"safe.directory={path}")]
        argv += ["--git-dir", str(git_dir)]
    if work_tree is not None:
        argv += ["--work-tree", str(work_tree)]
    argv += list(args)
    try:
        proc = subprocess.run(
            argv,
            cwd=cwd,
            input=input_bytes,
            capture_output=True,
            env=git_environment(env),
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
    return proc.stdout


def worktree_git_dir(root: Path) -> Path:
    """The git directory of the working tree at `root`, asked of git (reads `root/.git`).

    Call it only while nothing but buildfixer has written into `root`: afterwards, pass the
    directory it returned to every command instead of letting git look at `.git` again.
    """
    # Its working tree may belong to the sandbox's user, which git calls "dubious ownership".
    trusted = ("-c", f"safe.directory={root}")
    out = git(*trusted, "rev-parse", "--absolute-git-dir", cwd=root, check=False).strip()
    if not out:
        raise BuildfixerError(f"not a git working tree: {root}")
    return Path(out)


def is_repo(path: Path) -> bool:
    """True when path is the top of a git working tree or a bare repository."""
    return (path / ".git").exists() or ((path / "HEAD").is_file() and (path / "objects").is_dir())


def literal(paths: list[str] | None) -> list[str]:
    """Pathspecs that match these exact paths (`app/[id].tsx` or `:x` is no pattern here)."""
    return [f":(literal){p}" for p in paths or []]
