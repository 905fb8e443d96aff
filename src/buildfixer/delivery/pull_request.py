"""`fix --pr`: the repair as a commit on a new branch of the user's repository, and a pull request.

The commit is made without touching the user's working tree, index or checked-out branch: the
patch is applied to a private index read from HEAD, written as a tree, committed with HEAD as
parent, and the new branch points at it. The message says what failed, what changed, what the
judge said and which build proves it. When `gh` is installed and logged in, the branch is pushed
and a pull request opened; otherwise the commands to do so are printed.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildfixer.core.build_result import BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.shareable import shareable_text
from buildfixer.triage import PRE_EXISTING, Triage
from buildfixer.workspace.git import git, git_environment

_PREFIX = "buildfixer/fix-"
_GH_TIMEOUT_S = 120
# Git's and GitHub's conventional longest subject line.
SUBJECT_LIMIT = 72
_ELLIPSIS = "…"


@dataclass
class PullRequest:
    """What `fix --pr` made: the branch and commit, and the pull request's URL or why there is none."""

    branch: str
    commit: str
    base: str
    url: str | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of `fix --pr --json`."""
        return dict(self.__dict__)


def repository_of(project: Path) -> tuple[Path, str]:
    """The repository `fix --pr` commits to, and the project's folder inside it ("" at the top).

    Raises:
        BuildfixerError: No git repository, no commit yet, or uncommitted changes to tracked
            files (the repair is made against the working tree, the commit goes on HEAD).
    """
    top = git("rev-parse", "--show-toplevel", cwd=project, check=False).strip()
    if not top:
        raise BuildfixerError(f"fix --pr needs a git repository: {project} is not in one")
    root = Path(top).resolve()
    if not git("rev-parse", "--verify", "--quiet", "HEAD", cwd=root, check=False).strip():
        raise BuildfixerError("fix --pr needs a commit to branch from: the repository has none yet")
    status = git("status", "--porcelain", "--untracked-files=no", cwd=root)
    dirty = [line for line in status.splitlines() if line]
    if dirty:
        first = dirty[0][3:]  # "XY path"
        raise BuildfixerError(
            f"fix --pr commits the repair on top of HEAD, but tracked files have uncommitted changes "
            f"({first} ...): commit or stash them first"
        )
    folder = project.resolve().relative_to(root).as_posix()
    return root, "" if folder == "." else folder


def message(
    initial: BuildResult,
    verdict: BuildResult,
    patch: str,
    judge: dict[str, Any] | None,
    workspace: Path | None = None,
    triage: Triage | None = None,
) -> str:
    """The commit message: the root error, the change, the judge's verdict, the build that proves it.

    With `triage`, what the failure was (docs/TRIAGE.md); a `pre_existing` one says the failure was
    already on the base, so a reviewer does not look for its cause in the branch.

    The subject is at most `SUBJECT_LIMIT` characters, cut after a whole word (with "…") when
    longer; the body holds the root error and the verdict build's command whole. The paths of this
    machine are made shareable (`core.shareable`), those of `workspace` (where the repair was
    built) relative to the project.
    """
    error = initial.errors[0] if initial.errors else None
    headline = error.message.splitlines()[0] if error else f"the build ended with {initial.status}"
    headline = shareable_text(headline, workspace)
    title = subject(f"Fix {initial.category or 'build'} failure: {headline}")
    where = f"{shareable_text(error.location(), workspace)}: " if error and error.location() else ""
    lines = [title, "", f"Root error ({initial.build_system}, {initial.category}):", f"  {where}{headline}"]
    if triage is not None and triage.kind is not None:
        already = " The failure was already on the base branch." if triage.kind == PRE_EXISTING else ""
        basis = shareable_text(triage.basis, workspace)
        lines += ["", f"Triage: {triage.kind} ({triage.confidence:.2f}): {basis}.{already}"]
    lines += ["", "Changes:"]
    lines += [f"  {path} (+{added} -{removed})" for path, added, removed in _numstat(patch)]
    findings = (judge or {}).get("findings") or []
    verdict_text = "approved" if (judge or {}).get("approved", True) else "rejected"
    counted = f" ({len(findings)} finding(s))" if findings else ", no findings"
    lines += ["", f"Judge: {verdict_text}{counted}"]
    jdk = f" on JDK {verdict.jdk}" if verdict.jdk else ""
    # The command whole, as a shell reads it (the body has room for it, the subject has not).
    command = shlex.join(verdict.command) if verdict.command else verdict.build_system
    command = shareable_text(command, workspace)
    took = f"{verdict.duration_s:.0f}s"
    lines.append(f"Build: `{command}` {verdict.status}{jdk} in {took} (buildfixer's verdict build)")
    lines += ["", "Made by buildfixer fix --pr."]
    return "\n".join(lines) + "\n"


def subject(text: str, limit: int = SUBJECT_LIMIT) -> str:
    """`text` on one line of at most `limit` characters: cut after its last whole word that fits, then "…".

    Separators the cut leaves at the end (" -", ":") go too. A first word longer than the line
    is the one thing cut inside a word.
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    room = text[: limit - len(_ELLIPSIS) + 1]  # one more: a space there ends the last word that fits
    cut = room[: room.rfind(" ")] if " " in room else room[: limit - len(_ELLIPSIS)]
    cut = cut.rstrip(" -–—:;,")
    return (cut or text[: limit - len(_ELLIPSIS)]) + _ELLIPSIS


def _numstat(patch: str) -> list[tuple[str, int, int]]:
    """(path, lines added, lines removed) per file of a unified diff."""
    files: list[tuple[str, int, int]] = []
    for chunk in re.split(r"^diff --git ", patch, flags=re.M)[1:]:
        path = re.search(r"^\+\+\+ (?:b/)?(.+)$", chunk, re.M)
        path = path if path and path.group(1) != "/dev/null" else re.search(r"^--- (?:a/)?(.+)$", chunk, re.M)
        name = path.group(1) if path else chunk.split()[0][2:]
        added = len(re.findall(r"^\+(?!\+\+ )", chunk, re.M))
        removed = len(re.findall(r"^-(?!-- )", chunk, re.M))
        files.append((name, added, removed))
    return files


def commit_on_branch(root: Path, folder: str, patch: str, text: str) -> PullRequest:
    """Commit `patch` (paths relative to `folder`) on a new branch off HEAD; nothing else changes."""
    head = git("rev-parse", "HEAD", cwd=root).strip()
    base = git("symbolic-ref", "--quiet", "--short", "HEAD", cwd=root, check=False).strip() or head
    branch = f"{_PREFIX}{time.strftime('%Y%m%d-%H%M%S')}"
    suffix = 1
    while git("rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", cwd=root, check=False).strip():
        suffix += 1
        branch = f"{_PREFIX}{time.strftime('%Y%m%d-%H%M%S')}-{suffix}"
    with tempfile.TemporaryDirectory(prefix="buildfixer-pr-") as scratch:
        index = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        git("read-tree", head, cwd=root, env=index)
        directory = ["--directory", folder] if folder else []
        data = (patch if patch.endswith("\n") else patch + "\n").encode()
        git("apply", "--cached", "--whitespace=nowarn", *directory, cwd=root, env=index, input_bytes=data)
        tree = git("write-tree", cwd=root, env=index).strip()
    commit = git("commit-tree", tree, "-p", head, "-F", "-", cwd=root, input_bytes=text.encode()).strip()
    git("branch", branch, commit, cwd=root)
    return PullRequest(branch, commit, base)


def open_pull_request(root: Path, made: PullRequest, text: str) -> PullRequest:
    """Push the branch and open a pull request with `gh` when it is there and logged in."""
    title, _, body = text.partition("\n")
    manual = f"git push -u origin {made.branch} && gh pr create --base {made.base} --head {made.branch}"
    gh = shutil.which("gh")
    if gh is None:
        made.note = f"gh is not installed: open the pull request with `{manual}`"
        return made
    env = git_environment({"GH_PROMPT_DISABLED": "1", "GIT_TERMINAL_PROMPT": "0"})
    if _run([gh, "auth", "status"], root, env).returncode != 0:
        made.note = f"gh is not logged in (gh auth login): open the pull request with `{manual}`"
        return made
    remote = git("remote", cwd=root).split()
    if "origin" not in remote:
        made.note = "the repository has no remote named origin: push the branch, then `gh pr create`"
        return made
    pushed = _run(["git", "push", "--quiet", "origin", f"{made.branch}:{made.branch}"], root, env)
    if pushed.returncode != 0:
        made.note = f"git push failed: {_last_line(pushed)}"
        return made
    create = [gh, "pr", "create", "--base", made.base, "--head", made.branch, "--title", title]
    created = _run([*create, "--body", body.strip()], root, env)
    if created.returncode != 0:
        made.note = f"gh pr create failed: {_last_line(created)}"
        return made
    urls = re.findall(r"https?://\S+", created.stdout)
    made.url = urls[-1] if urls else created.stdout.strip() or None
    return made


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=_GH_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess(argv, 1, "", str(exc))


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = (done.stderr or done.stdout or "").strip().splitlines()
    return lines[-1] if lines else f"exit {done.returncode}"
