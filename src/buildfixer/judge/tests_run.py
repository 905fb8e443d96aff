"""The judge's dynamic rule: the project's tests, run before and after the patch, by their reports.

Three builds of copies of the project, each with the project's own build in the sandbox:
- **before**: the project as it is (the failing build);
- **after**: with the patch;
- **original tests**: with the patch's changes to main code and build files only, every test as
  it was before. As SWE-bench keeps the test files out of the candidate's reach, this run shows
  whether the code was repaired or only the tests were changed until they passed. It is built
  only when the patch touches a test.

They read what the tests report: JUnit XML for Gradle and Maven (`build/test-results`,
`target/surefire-reports`, `target/failsafe-reports`), a JUnit XML that pytest writes when asked
through `PYTEST_ADDOPTS`, and the summary lines of Jest, Vitest, Mocha and node's test runner for
npm (counts only: those name no test). A patch is rejected when
- fewer tests ran after it, or more were skipped (`fewer_tests_ran`, `tests_newly_skipped`);
- a test that failed before it no longer runs after it (`failing_test_gone`);
- the original tests still fail against the patched code: a test that failed before, or, when no
  test ran before (a compile error stopped the build), any test (`original_tests_fail`).
When the original tests do not build against the patched code (a test had to follow a renamed
API), that run decides nothing, and the verdict's notes say so.

The reports are files the builds wrote: they are found and read through `core.confined`, so a
report that links out of the copy (to a host file) is never read. The copies keep links as links
and leave out what is no regular file, directory or link, and hard-linked files; all three are
made before any build runs.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project, stop_daemons
from buildfixer.core import confined
from buildfixer.core.file_kinds import is_test
from buildfixer.judge.diff import select_files
from buildfixer.judge.verdict import Finding
from buildfixer.logs.text import read_log
from buildfixer.workspace.workspace import apply_patch

_PYTEST_REPORT = ".buildfixer-judge-pytest.xml"
# Where JUnit XML reports are: anywhere below a build/test-results/, directly in the others.
_REPORT_TREE = ("build", "test-results")
_REPORT_DIRS = (("target", "surefire-reports"), ("target", "failsafe-reports"))
_MAX_REPORT_BYTES = 64 << 20
_IGNORED_DIRS = {".git", "node_modules", ".gradle", "__pycache__", ".venv", "venv"}
_OUTPUT_DIRS = {"build", "target", "dist"}  # outputs only beside a build file (a package may be named build)
_BUILD_FILES = ("build.gradle", "build.gradle.kts", "pom.xml", "package.json")
# A test that fails because its own code does not load or link (a renamed API, a missing import):
# a fix may have to change it, so its failure says nothing about the code under test.
_BROKEN_TEST = re.compile(
    r"\b(NameError|ImportError|ModuleNotFoundError|SyntaxError|NoSuchMethodError|NoSuchFieldError"
    r"|NoClassDefFoundError|ClassNotFoundException|ReferenceError|Unresolved reference)\b"
    r"|^\s*collection failure"
)
# Summary lines of Jest and Vitest: (the counts by kind, the total).
_JS_SUMMARIES = [
    re.compile(r"^Tests:\s+(.*?)(\d+) total", re.M),
    re.compile(r"^\s*Tests\s+(.*?)\((\d+)\)", re.M),
]


@dataclass
class TestRun:
    """What one build's tests reported: the tests that ran, were skipped and failed (by name when known)."""

    ran: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    broken: set[str] = field(default_factory=set)  # failed as test code that does not load or link
    ran_count: int = 0
    skipped_count: int = 0
    failed_count: int = 0

    def summary(self) -> str:
        """`N ran, N skipped, N failed`."""
        return f"{self.ran_count} ran, {self.skipped_count} skipped, {self.failed_count} failed"


def compare_test_runs(
    project: Path, patch: str, options: Any = None, applied: bool = False
) -> tuple[list[Finding], list[str]]:
    """Findings and notes from the builds before and after `patch`, and of the original tests after it.

    `applied`: the project already holds the patch (an attempt's workspace); the copy before it
    takes the patch back out.
    """
    base = options if isinstance(options, BuildOptions) else BuildOptions()
    code_only = select_files(patch, lambda old, new: not (is_test(old) or is_test(new)))
    guarded = code_only.strip() != patch.strip()  # the patch touches a test
    with tempfile.TemporaryDirectory(prefix="buildfixer-judge-") as scratch:
        dirs = {name: Path(scratch) / name for name in ("before", "after", "original-tests")}
        for name, target in dirs.items():
            if name != "original-tests" or guarded:
                shutil.copytree(project, target, ignore=_outputs, symlinks=True)
        if applied:
            apply_patch(dirs["before"], patch, reverse=True)
            if guarded:
                apply_patch(
                    dirs["original-tests"],
                    select_files(patch, lambda old, new: is_test(old) or is_test(new)),
                    reverse=True,
                )
        else:
            apply_patch(dirs["after"], patch)
            if guarded:
                apply_patch(dirs["original-tests"], code_only)
        before, after = _tests_of(dirs["before"], base), _tests_of(dirs["after"], base)
        original = _tests_of(dirs["original-tests"], base) if guarded else None
    notes = [f"tests before the patch: {before.summary()}; after: {after.summary()}"]
    findings = _compare(before, after)
    if original is not None:
        notes.append(f"the original tests against the patched code: {original.summary()}")
        findings += _original_tests(before, original, notes)
    if before.ran_count == 0:
        notes.append(
            "no test ran before the patch (the build stops earlier): only the tests after it can tell"
        )
    return findings, notes


def _compare(before: TestRun, after: TestRun) -> list[Finding]:
    """Fewer tests ran, more skipped, or a test that failed no longer runs."""
    if before.ran_count == 0:
        return []
    findings = []
    if after.ran_count < before.ran_count:
        fewer = before.ran_count - after.ran_count
        detail = f"{fewer} test(s) fewer ran after the patch{_named(before.ran - after.ran)}"
        findings.append(Finding("fewer_tests_ran", None, None, detail))
    if after.skipped_count > before.skipped_count:
        newly = after.skipped - before.skipped
        detail = f"{after.skipped_count - before.skipped_count} test(s) newly skipped{_named(newly)}"
        findings.append(Finding("tests_newly_skipped", None, None, detail))
    gone = before.failed - after.ran
    if gone:
        detail = f"the test that failed no longer runs after the patch{_named(gone)}"
        findings.append(Finding("failing_test_gone", None, None, detail))
    return findings


def _original_tests(before: TestRun, original: TestRun, notes: list[str]) -> list[Finding]:
    """The original tests' run against the patched code: a failure the patch hid by changing tests."""
    if original.ran_count == 0:
        notes.append("the original tests do not build against the patched code: that run decides nothing")
        return []
    if before.ran_count == 0:  # no test ran before: the original tests after the patch decide
        still = original.failed - original.broken
        failing = bool(still) or (original.failed_count > 0 and not original.failed)
    elif before.failed or original.failed:  # by name: a test that failed before fails as it was
        still = (before.failed & original.failed) - original.broken
        failing = bool(still)
    else:  # by count (npm's runners name no test)
        still, failing = set(), before.failed_count > 0 and original.failed_count > 0
    if not failing:
        return []
    detail = f"the tests as they were before the patch still fail against the patched code{_named(still)}"
    return [Finding("original_tests_fail", None, None, detail)]


def _named(names: set[str]) -> str:
    return f": {', '.join(sorted(names)[:5])}" if names else ""


def _outputs(directory: str, names: list[str]) -> set[str]:
    """What not to copy: caches, installed packages and the build's own outputs (a fresh build makes them)."""
    here = Path(directory)
    module = any((here / name).is_file() for name in _BUILD_FILES)
    return {n for n in names if n in _IGNORED_DIRS or (module and n in _OUTPUT_DIRS) or _not_copied(here / n)}


def _not_copied(path: Path) -> bool:
    """A FIFO, socket or device (copying would block or fail), or a file with other hard links."""
    try:
        found = os.lstat(path)
    except OSError:
        return True
    if stat.S_ISREG(found.st_mode):
        return found.st_nlink > 1
    return not (stat.S_ISDIR(found.st_mode) or stat.S_ISLNK(found.st_mode))


def _is_report(rel: str) -> bool:
    """A JUnit XML report of Gradle (build/test-results/**) or Maven (target/*-reports/*.xml)."""
    parts = rel.split("/")
    if not parts[-1].endswith(".xml"):
        return False
    dirs = parts[:-1]
    in_tree = any(tuple(dirs[i : i + 2]) == _REPORT_TREE for i in range(len(dirs) - 1))
    return in_tree or tuple(dirs[-2:]) in _REPORT_DIRS


def _tests_of(project: Path, base: BuildOptions) -> TestRun:
    """Build `project` (its tests included) and read what its tests reported."""
    options = replace(
        base, state_dir=None, log_path=None, tasks=None, warm=True,
        extra_env={**base.extra_env, "PYTEST_ADDOPTS": f"--junitxml={project / _PYTEST_REPORT} -rs"},
    )  # fmt: skip
    try:
        result = build_project(project, options)
    finally:
        stop_daemons(project, options)
    run = TestRun()
    reports = [rel for rel in confined.walk(project) if _is_report(rel)]
    reports += [_PYTEST_REPORT] if confined.is_file(project, _PYTEST_REPORT) else []
    for report in reports:
        _read_junit(confined.try_read_text(project, report, _MAX_REPORT_BYTES), run)
    if not reports:
        _read_js_summary(read_log(result.log_path, strict=False), run)
    return run


def _read_junit(report: str | None, run: TestRun) -> None:
    """Add a JUnit XML report's test cases (a text that is not one, or None, is skipped)."""
    if report is None:
        return
    try:
        root = ElementTree.fromstring(report)
    except ElementTree.ParseError:
        return
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}.{case.get('name', '')}".strip(".")
        if case.find("skipped") is not None:
            run.skipped.add(name)
            run.skipped_count += 1
            continue
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        said = "" if problem is None else f"{problem.get('type', '')} {problem.get('message', '')}"
        if problem is not None and _BROKEN_TEST.search(said):
            run.broken.add(name)  # the test code itself does not load: no verdict on the code under test
            if said.strip().startswith("collection failure"):
                continue
        run.ran.add(name)
        run.ran_count += 1
        if problem is not None:
            run.failed.add(name)
            run.failed_count += 1


def _read_js_summary(log: str, run: TestRun) -> None:
    """Counts from the last summary line of Jest, Vitest, Mocha or node's test runner."""
    for pattern in _JS_SUMMARIES:
        if found := list(pattern.finditer(log)):
            parts, total = found[-1].group(1), int(found[-1].group(2))
            skipped = sum(int(n) for n in re.findall(r"(\d+) (?:skipped|todo)", parts))
            run.ran_count, run.skipped_count = total - skipped, skipped
            run.failed_count = sum(int(n) for n in re.findall(r"(\d+) failed", parts))
            return
    if tap := re.findall(r"^[#ℹ] (tests|pass|fail|skip|todo|skipped) (\d+)$", log, re.M):  # node --test
        counts = {key: int(value) for key, value in tap}
        run.skipped_count = counts.get("skip", 0) + counts.get("skipped", 0) + counts.get("todo", 0)
        run.ran_count = counts.get("tests", 0) - run.skipped_count
        run.failed_count = counts.get("fail", 0)
        return
    passing = re.findall(r"^\s*(\d+) passing\b", log, re.M)  # mocha
    pending = re.findall(r"^\s*(\d+) pending\b", log, re.M)
    failing = re.findall(r"^\s*(\d+) failing\b", log, re.M)
    if passing or failing:
        run.failed_count = int((failing or ["0"])[-1])
        run.ran_count = int((passing or ["0"])[-1]) + run.failed_count
        run.skipped_count = int((pending or ["0"])[-1])
