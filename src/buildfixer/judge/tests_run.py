"""The judge's dynamic rule: the project's tests, run before and after the patch, by their reports.

Both sides build a copy of the project (the patch applied to the second) with the project's own
build, in the sandbox, and read what the tests report: JUnit XML for Gradle and Maven
(`build/test-results`, `target/surefire-reports`, `target/failsafe-reports`), a JUnit XML that
pytest writes when asked through `PYTEST_ADDOPTS`, and the summary lines of Jest, Vitest, Mocha
and node's test runner for npm. Fewer tests run after the patch, or more skipped, rejects it.
Before a patch that repairs a compile error no test runs at all: then there is nothing to compare,
and the verdict says so in a note (the static rules still apply).

The reports are files the builds wrote: they are found and read through `core.confined`, so a
report that links out of the copy (to a host file) is never read. The copies keep links as links
and leave out what is no regular file, directory or link, and hard-linked files.
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
# Summary lines of Jest and Vitest: (the counts by kind, the total).
_JS_SUMMARIES = [
    re.compile(r"^Tests:\s+(.*?)(\d+) total", re.M),
    re.compile(r"^\s*Tests\s+(.*?)\((\d+)\)", re.M),
]


@dataclass
class TestRun:
    """What one build's tests reported: the tests that ran, and those skipped (by name when known)."""

    ran: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    ran_count: int = 0
    skipped_count: int = 0


def compare_test_runs(project: Path, patch: str, options: Any = None) -> tuple[list[Finding], list[str]]:
    """Findings (fewer tests ran, tests newly skipped) and notes, from a build before and after `patch`."""
    base = options if isinstance(options, BuildOptions) else BuildOptions()
    with tempfile.TemporaryDirectory(prefix="buildfixer-judge-") as scratch:
        before_dir, after_dir = Path(scratch) / "before", Path(scratch) / "after"
        for target in (before_dir, after_dir):
            shutil.copytree(project, target, ignore=_outputs, symlinks=True)
        apply_patch(after_dir, patch)
        before, after = _tests_of(before_dir, base), _tests_of(after_dir, base)
    notes = [f"tests before the patch: {before.ran_count} ran, {before.skipped_count} skipped; "
             f"after: {after.ran_count} ran, {after.skipped_count} skipped"]  # fmt: skip
    if before.ran_count == 0:
        notes.append("no test ran before the patch (the build stops earlier): the test runs compare nothing")
        return [], notes
    findings = []
    if after.ran_count < before.ran_count:
        missing = sorted(before.ran - after.ran)[:5]
        named = f": {', '.join(missing)}" if missing else ""
        detail = f"{before.ran_count - after.ran_count} test(s) fewer ran after the patch{named}"
        findings.append(Finding("fewer_tests_ran", None, None, detail))
    if after.skipped_count > before.skipped_count:
        newly = sorted(after.skipped - before.skipped)[:5]
        named = f": {', '.join(newly)}" if newly else ""
        detail = f"{after.skipped_count - before.skipped_count} test(s) newly skipped{named}"
        findings.append(Finding("tests_newly_skipped", None, None, detail))
    return findings, notes


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
        else:
            run.ran.add(name)
            run.ran_count += 1


def _read_js_summary(log: str, run: TestRun) -> None:
    """Counts from the last summary line of Jest, Vitest, Mocha or node's test runner."""
    for pattern in _JS_SUMMARIES:
        if found := list(pattern.finditer(log)):
            parts, total = found[-1].group(1), int(found[-1].group(2))
            skipped = sum(int(n) for n in re.findall(r"(\d+) (?:skipped|todo)", parts))
            run.ran_count, run.skipped_count = total - skipped, skipped
            return
    if tap := re.findall(r"^# (tests|pass|skip|todo) (\d+)$", log, re.M):  # node --test (TAP)
        counts = {key: int(value) for key, value in tap}
        run.skipped_count = counts.get("skip", 0) + counts.get("todo", 0)
        run.ran_count = counts.get("tests", 0) - run.skipped_count
        return
    passing = re.findall(r"^\s*(\d+) passing\b", log, re.M)  # mocha
    pending = re.findall(r"^\s*(\d+) pending\b", log, re.M)
    failing = re.findall(r"^\s*(\d+) failing\b", log, re.M)
    if passing or failing:
        run.ran_count = int((passing or ["0"])[-1]) + int((failing or ["0"])[-1])
        run.skipped_count = int((pending or ["0"])[-1])
