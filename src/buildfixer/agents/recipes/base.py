"""What every recipe shares: the planned repair, the evidence of a failed build, common helpers.

Recipe modules import this one (never `diagnose`, which imports them): the records of a
repair (`PlannedCall`, `Repair`), what recipes look at (`Evidence`, `read_evidence`), and the
helpers several recipes use (build-file edits as tool calls, paths an error names, the version
a JVM declaration writes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.deps import manage as deps
from buildfixer.logs.text import read_log, strip_ansi
from buildfixer.workspace.git import git

_LOG_CAP = 2_000_000  # characters of the log's end that recipes read

JVM = ("gradle", "maven")  # the build systems of JVM projects


@dataclass
class PlannedCall:
    """One tool call of a repair: the tool's name and its JSON arguments."""

    tool: str
    arguments: dict[str, Any]


@dataclass
class Repair:
    """A planned repair: which recipe, what it does in a sentence, and the tool calls doing it."""

    recipe: str
    summary: str
    calls: list[PlannedCall] = field(default_factory=list)


@dataclass(frozen=True)
class HistoryFolder:
    """A folder whose git history a recipe may read, and the git directory to read it through."""

    folder: Path
    git_dir: Path | None = None  # None: the folder's own repository (a folder no sandbox writes)

    def git(self, *args: str, timeout: float) -> str:
        """Run git on this history (BuildfixerError when it fails)."""
        work_tree = self.folder if self.git_dir else None
        return git(*args, cwd=self.folder, git_dir=self.git_dir, work_tree=work_tree, timeout=timeout)


@dataclass
class Evidence:
    """What recipes look at: the failed result, its log and the project.

    Attributes:
        project: The project root (resolved).
        result: The failed build.
        options: The build options (cache directory, offline).
        log: The end of the build log, ANSI codes removed.
        text: The error messages followed by the log: what trigger patterns are searched in.
        origin: The project the workspace was snapshot from, when known: its git history has
            what the snapshot (a single commit) lacks, such as a file deleted in a commit.
        git_dir: The workspace's git directory as buildfixer recorded it (its ledger's): the
            workspace's history is read only through it, never through the `.git` the sandbox
            and the model can rewrite to name any repository on the host.
    """

    project: Path
    result: BuildResult
    options: BuildOptions
    log: str
    text: str
    origin: Path | None = None
    git_dir: Path | None = None

    def histories(self) -> list[HistoryFolder]:
        """Where git history may be read, in order: the workspace (its recorded git directory), its origin."""
        places = [HistoryFolder(self.project, self.git_dir)] if self.git_dir else []
        if self.origin is not None and self.origin.is_dir():
            places.append(HistoryFolder(self.origin))
        return places

    @property
    def system(self) -> str:
        """The build system of the failed build."""
        return self.result.build_system

    def errors_matching(self, pattern: re.Pattern[str]) -> list[tuple[BuildError, re.Match[str]]]:
        """Parsed errors whose message matches, with the match."""
        found = []
        for error in self.result.errors:
            match = pattern.search(error.message)
            if match:
                found.append((error, match))
        return found

    def source(self, path: str | None) -> Path | None:
        """A file an error names, inside the project (relative paths are from its root)."""
        if not path:
            return None
        candidate = Path(path) if Path(path).is_absolute() else self.project / path
        try:
            real = candidate.resolve()
        except OSError:
            return None
        return real if real.is_relative_to(self.project) and real.is_file() else None


def read_evidence(
    project: Path, result: BuildResult, options: BuildOptions, origin: Path | None = None,
    git_dir: Path | None = None,
) -> Evidence:  # fmt: skip
    """Collect the evidence of a failed build (the log from disk, else the recorded tail)."""
    try:
        log = read_log(result.log_path) if result.log_path else result.output_tail
    except BuildfixerError:
        log = result.output_tail
    log = strip_ansi(log[-_LOG_CAP:])
    messages = "\n".join(e.message for e in result.errors)
    return Evidence(
        project.resolve(), result, options, log, f"{messages}\n{log}", origin.resolve() if origin else None,
        git_dir,
    )  # fmt: skip


def edit_calls(edits: list[deps.Edit]) -> list[PlannedCall]:
    """Planned edits as tool calls: `replace`, or `write_file` for a new file."""
    calls = []
    for edit in edits:
        if edit.old_text == "":
            calls.append(PlannedCall("write_file", {"path": edit.file, "content": edit.new_text}))
        else:
            args = {"file_path": edit.file, "old_string": edit.old_text, "new_string": edit.new_text}
            calls.append(PlannedCall("replace", {**args, "expected_replacements": 1}))
    return calls


def undeclared_repair(edits: list[deps.Edit], notes: list[str]) -> Repair | None:
    """The undeclared-dependency repair of these edits (None when there are none), its notes as summary."""
    if not edits:
        return None
    return Repair("undeclared-dependency", "; ".join(notes) + ".", edit_calls(edits))


def error_path(ev: Evidence, path: str | None) -> str:
    """A path an error names, relative to the project when it lies inside (else as given)."""
    if not path:
        return ""
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            return candidate.resolve().relative_to(ev.project).as_posix()
        except (ValueError, OSError):
            return path
    return path


def project_file(ev: Evidence, path: str | None) -> str | None:
    """The project-relative path of a file an error names; None for files outside (a library's)."""
    rel = error_path(ev, path)
    return rel if rel and not Path(rel).is_absolute() else None


def raw_version(decl: deps.Declaration) -> str | None:
    """The version as a declaration writes it: "${jackson.version}", "$gsonVersion", "2.10.1"."""
    if decl.kind == "maven":
        match = re.search(r"<version>\s*([^<\s]+)\s*</version>", decl.text)
    else:
        match = re.search(r"['\"][\w.-]+:[\w.-]+:([^'\":@\s]+)", decl.text)
    return match.group(1) if match else None
