"""Where each curation mode looks for instances: the candidates, before any filter.

- human: commits inside merged branches (or given ranges) whose build fails where a later commit
  of the same branch builds;
- dependency: commits that change build files and source together (their build-file half is
  reverted later, to see whether the source needs it);
- llm: commits a model is asked to re-implement from their message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from buildfixer.core.errors import BuildfixerError
from buildfixer.curate.history import History, is_build_file

MODES = ("human", "dependency", "llm")
_DOC_NAME = re.compile(r"(?i)(readme|changelog|changes|history|license|notice|authors|contributing)(\.\w+)?$")
_DOC_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".png", ".jpg", ".svg", ".gif")
_CI_FILES = {"Jenkinsfile", "azure-pipelines.yml", "appveyor.yml", "codecov.yml", "bitbucket-pipelines.yml",
             "cloudbuild.yaml", "renovate.json", "netlify.toml", "vercel.json"}  # fmt: skip


def is_source_file(path: str) -> bool:
    """A file of the program itself: not a build file, documentation, an image, or CI and tool settings.

    Anything under a hidden folder (`.github/workflows/ci.yml`, `.mvn/jvm.config`, `.idea/`) or a CI
    system's file at the root (`Jenkinsfile`) is the machinery around the program: a commit that
    changes only such files beside its build files is no dependency candidate (reverting its build
    files cannot break code it never changed).
    """
    parts = path.split("/")
    name = parts[-1]
    if is_build_file(path) or _DOC_NAME.match(name) or any(part.startswith(".") for part in parts):
        return False
    if len(parts) == 1 and name in _CI_FILES:
        return False
    return not name.lower().endswith(_DOC_SUFFIXES)


@dataclass(frozen=True)
class Candidate:
    """A possible instance.

    Attributes:
        key: Stable identity (mode and commits), used to resume and to name the instance.
        mode: human, dependency or llm.
        commit: The commit it comes from: the failing commit (human) or the changed one.
        good: The state that builds (the fix).
        bad: The failing state, or None until it is made (llm).
        order: Position in history, oldest first; earlier candidates win duplicates.
        span: Commits from the failing state to the good one (human mode; 1: the next commit).
    """

    key: str
    mode: str
    commit: str
    good: str
    bad: str | None
    order: int
    span: int = 1


def read_ranges(path: Path) -> list[tuple[str, str]]:
    """PR ranges from a file: one `BASE..HEAD` (or `BASE HEAD`) per line; `#` starts a comment.

    Raises:
        BuildfixerError: Unreadable file or a malformed line (with its number).
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BuildfixerError(f"cannot read ranges file {path}: {exc}") from None
    ranges = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split("..") if ".." in text else text.split()
        if len(parts) != 2 or not all(p.strip() for p in parts):
            raise BuildfixerError(f"{path}:{number}: expected BASE..HEAD, got {line.strip()!r}")
        ranges.append((parts[0].strip(), parts[1].strip()))
    return ranges


def branch_chains(
    history: History, rev: str, limit: int | None, ranges: list[tuple[str, str]] | None,
    unreadable: dict[str, str] | None = None,
) -> list[list[str]]:  # fmt: skip
    """The branches to look into, each as its commits oldest first (the last is the branch's head).

    A merged branch that cannot be read is left out, noted in `unreadable` (commit -> git's reason).
    """
    if ranges is None:
        return history.merged_chains(rev, limit, unreadable)
    chains = [history.chain(history.resolve(base), history.resolve(head)) for base, head in ranges]
    return [chain for chain in chains if chain]


def human_candidates(chains: list[list[str]], builds: dict[str, bool]) -> list[Candidate]:
    """Failing commits of each branch whose head builds, paired with the next commit that builds.

    Args:
        chains: Branches, commits oldest first.
        builds: Whether each commit of those chains builds; a commit absent from it (one that
            cannot be read) is neither a failure nor a fix.
    """
    found: dict[str, Candidate] = {}
    order = 0
    for chain in chains:
        if not builds.get(chain[-1]):
            continue  # the branch never built: nothing to learn a fix from
        for index, sha in enumerate(chain[:-1]):
            if builds.get(sha, True):
                continue
            later = chain[index + 1 :]
            span, good = next((n, commit) for n, commit in enumerate(later, 1) if builds.get(commit))
            if sha not in found:
                found[sha] = Candidate(f"human-{sha[:12]}", "human", sha, good, sha, order, span)
                order += 1
    return list(found.values())


def _changes(history: History, sha: str, unreadable: dict[str, str] | None) -> list[str] | None:
    """The paths a single-parent commit changes; None for a merge, or a commit that cannot be read.

    An unreadable commit is noted in `unreadable` (commit -> git's reason); without that dict, it raises.
    """
    try:
        parents = history.commit(sha).parents
        return history.changed_paths(parents[0], sha) if len(parents) == 1 else None
    except BuildfixerError as exc:
        if unreadable is None:
            raise
        unreadable[sha] = str(exc)
        return None


def dependency_candidates(
    history: History, rev: str, limit: int | None, unreadable: dict[str, str] | None = None
) -> list[Candidate]:
    """Commits that change build files and source files together (their build half to revert)."""
    found = []
    for order, sha in enumerate(reversed(history.commits(rev, limit))):
        paths = _changes(history, sha, unreadable) or []
        if any(is_build_file(p) for p in paths) and any(is_source_file(p) for p in paths):
            found.append(Candidate(f"dependency-{sha[:12]}", "dependency", sha, sha, None, order))
    return found


def revert_build_files(history: History, sha: str) -> str:
    """The synthetic state of a dependency candidate: the commit with its build-file changes undone.

    A build file the commit added is removed, one it removed comes back, one it changed is the
    parent's again.
    """
    parent = history.commit(sha).parents[0]
    build_files = [p for p in history.changed_paths(parent, sha) if is_build_file(p)]
    message = f"buildfixer: {sha[:12]} with its build-file changes reverted"
    return history.synthetic(sha, parent, {p: parent for p in build_files}, message)


def llm_candidates(
    history: History, rev: str, limit: int | None, unreadable: dict[str, str] | None = None
) -> list[Candidate]:
    """Commits with a single parent that change source files: re-implementation targets."""
    found = []
    for order, sha in enumerate(reversed(history.commits(rev, limit))):
        if any(is_source_file(p) for p in _changes(history, sha, unreadable) or []):
            found.append(Candidate(f"llm-{sha[:12]}", "llm", sha, sha, None, order))
    return found
