"""The filters every candidate goes through, each a small named step, and the instance it becomes.

A candidate is kept only when all pass: `size` (the fix is within the limits), `gold_applies`
(the fix applies cleanly to the failing state), `builds_good` (the fixed state builds, twice),
`fails_bad` (the failing state fails twice, with the same category), `reproducible` (nothing
the build resolves at build time, a SNAPSHOT say, that cannot be pinned to the commit's date)
and, at the end and in history order, `duplicate` (the same error at the same place as an earlier
instance). The llm mode adds `model` (the model answered with a change). Each rejection names its
filter, so a summary can count them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from buildfixer.bench.dataset import patch_stats
from buildfixer.core.errors import BuildfixerError
from buildfixer.curate.builds import BuildRecord, StateBuilder
from buildfixer.curate.candidates import Candidate
from buildfixer.curate.history import History
from buildfixer.harness import grading
from buildfixer.logs.rank import normalize_message
from buildfixer.workspace.git import git

FILTERS = ("size", "builds_good", "model", "gold_applies", "fails_bad", "reproducible", "duplicate")


class Rejected(Exception):
    """A candidate failed a filter."""

    def __init__(self, filter_name: str, reason: str) -> None:
        super().__init__(f"{filter_name}: {reason}")
        self.filter = filter_name
        self.reason = reason


@dataclass
class SizeLimits:
    """Size limits of a fix (the gold patch).

    `max_commits` (human mode): how far after the failing commit the first one that builds may be.
    Further on, the diff to it carries the work of the commits between (25 files around a fix of
    a few lines), which no repair is expected to reproduce.
    """

    max_files: int = 50
    max_lines: int = 2000
    max_commits: int = 3


@dataclass
class Outcome:
    """What became of one candidate; `instance` holds the instance's fields when it passed the filters."""

    key: str
    mode: str
    accepted: bool
    filter: str | None = None
    reason: str = ""
    signature: str | None = None
    instance: dict[str, Any] | None = None  # kept when rejected as `duplicate`, to decide again
    stats: dict[str, Any] = field(default_factory=dict)  # its build requests (CacheStats)
    duplicate_of: str | None = None  # the key of the kept instance with the same signature
    commit: str | None = None  # the candidate's commit in history: duplicates are ordered by ancestry


def check_size(patch: str, limits: SizeLimits) -> tuple[int, int]:
    """Files and lines the patch changes; Rejected when empty or beyond the limits."""
    files, lines = patch_stats(patch) if patch.strip() else (0, 0)
    if files == 0:
        raise Rejected("size", "the fix changes nothing")
    if files > limits.max_files or lines > limits.max_lines:
        raise Rejected(
            "size", f"{files} files / {lines} lines changed (limits {limits.max_files} / {limits.max_lines})"
        )
    return files, lines


def check_span(span: int, limits: SizeLimits) -> None:
    """Rejected (size) when the fix is more than `max_commits` commits after the failure."""
    if span > limits.max_commits:
        raise Rejected("size", f"the fix is {span} commits after the failure (limit {limits.max_commits})")


def check_applies(history: History, commit: str, patch: str) -> None:
    """Rejected unless `patch` applies cleanly to `commit`'s tree (checked in a private index)."""
    data = patch if patch.endswith("\n") else patch + "\n"
    try:
        with history.index_of(commit) as env:
            git("apply", "--cached", "--check", git_dir=history.mirror, env=env, input_bytes=data.encode())
    except BuildfixerError as exc:
        raise Rejected("gold_applies", str(exc).split(": ", 1)[-1]) from None


def check_builds(builder: StateBuilder, sha: str, repeats: int, as_of: str | None) -> list[BuildRecord]:
    """Rejected (builds_good) unless the state builds in every repeat (grading.gold_finding)."""
    records = builder.build(sha, repeats, as_of)
    if grading.gold_finding(records) is not None:
        failed = [r for r in records if r.status != grading.SUCCESS]
        first = failed[0]
        detail = first.errors[0]["message"][:200] if first.errors else first.status
        raise Rejected("builds_good", f"{first.verdict} in {len(failed)} of {len(records)} builds: {detail}")
    return records


def check_fails(builder: StateBuilder, sha: str, repeats: int, as_of: str | None) -> list[BuildRecord]:
    """Rejected (fails_bad) unless the state fails in every repeat with one and the same category.

    The rule is grading.base_finding with no recorded category (the instance records this one).
    """
    records = builder.build(sha, repeats, as_of)
    finding = grading.base_finding(records)
    if finding is not None:
        verdicts = ", ".join(sorted(set(finding.seen)))
        if finding.kind == grading.FLAKY:
            raise Rejected("fails_bad", f"flaky: {verdicts}")
        raise Rejected("fails_bad", f"builds as {verdicts}, not a failure every time")
    return records


def signature(record: BuildRecord) -> str:
    """`duplicate` key: category and the first error's file, line and message (normalized)."""
    error = record.errors[0] if record.errors else {}
    parts = [record.category or "", error.get("file") or "", str(error.get("line")), error.get("message", "")]
    parts[3] = normalize_message(parts[3])
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def ran_on(records: list[BuildRecord]) -> int | None:
    """The JDK all these builds ran on; None when not known, or when they ran on different ones.

    The failing and the fixed state each build on the JDK buildsys chooses (`--jdk`, else the
    state's own version files, else the default). An instance names one JDK, which `bench` then
    builds both states on; when the states chose different JDKs (a fix that pins another one),
    none is named, so each state chooses as it did here.
    """
    jdks = {record.jdk for record in records}
    return jdks.pop() if len(jdks) == 1 else None


def make_instance(
    candidate: Candidate, states: tuple[str, str], builder: StateBuilder, gold: str, failing: BuildRecord,
    as_of: str | None, jdk: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The instance's fields; `states` are the failing and the fixed commit, `jdk` the JDK both built on."""
    files, lines = patch_stats(gold)
    commit = builder.history.commit(candidate.commit)
    return {
        "instance_id": candidate.key,
        "repo": "",
        "base_commit": states[0],
        "fix_commit": states[1],
        "gold_patch": gold,
        "origin": candidate.mode,
        "category": failing.category,
        "build_system": builder.system,
        "build_command": builder.options.tasks,
        "jdk": jdk if jdk is not None else builder.options.jdk,
        "error_log": failing.log,
        "files_changed": files,
        "lines_changed": lines,
        "difficulty": grading.difficulty(lines),
        "created_at": commit.date,
        "split": "test",
        "as_of": as_of,
    }
