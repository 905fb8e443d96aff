"""The repair loop tells damage from progress: a try that breaks a file it changed is discarded.

A small model replaced a pom.xml by a three-line fragment; the build's new errors ("'modelVersion'
is missing") shared no words with the old one, so the loop kept the damage as progress (a distinct
error) and spent its tries on it. Now a try is a *regression*, discarded like a similar error, when
a build file it changed no longer parses or the build's top error is a malformed line it wrote.
The slow tests drive real builds (Maven on the bundled example, Python on the stats project) with
a scripted model; the others check the rule's parts on their own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from buildfixer.agents.damage import (
    changed_file,
    diff_hunks,
    moved,
    regression,
    unparsable,
)
from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.examples import get_example, materialize
from buildfixer.harness.attempt import AttemptConfig, AttemptResult, run_attempt
from buildfixer.judge.diff import Hunk
from support.git import Repo
from support.model import scripted, write_file
from support.projects import FLOORED, RIGHT, TEST, broken, stats_project

REPORT = "src/main/java/com/example/wordstats/Report.java"
FRAGMENT = "<dependency>\n  <groupId>org.apache.commons</groupId>\n</dependency>\n"
DONE = {"content": "Done."}


@pytest.fixture
def memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "fixes.sqlite3"
    monkeypatch.setenv("BUILDFIXER_MEMORY", str(path))  # never the shared test cache's memory
    yield path


def attempt(project: Path, tmp_path: Path, steps: list[dict[str, Any]]) -> tuple[AttemptResult, dict]:
    model = scripted(tmp_path / "script.json", steps)
    config = AttemptConfig(agent="pipeline", model=model, trajectory_path=tmp_path / "trajectory.json")
    result = run_attempt(project, config)
    return result, json.loads((tmp_path / "trajectory.json").read_text())


def maven_project(tmp_path: Path) -> Path:
    """maven-app/missing-parameter, committed: Report.java calls top(int), which now takes two ints."""
    project = materialize(get_example("maven-app/missing-parameter"), tmp_path / "maven-app")
    Repo(project).commit("broken")
    return project


@pytest.mark.slow
@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(FRAGMENT, id="fragment"),  # well-formed, the wrong root: "'modelVersion' is missing"
        pytest.param("<project>\n  <dependency>\n    <groupId>org", id="truncated"),  # no error location
    ],
)
def test_a_try_that_breaks_the_pom_is_discarded_and_the_next_fixes(
    tmp_path: Path, memory: Path, damage: str
) -> None:
    project = maven_project(tmp_path)
    pom, report = (project / "pom.xml").read_text(), (project / REPORT).read_text()
    fixed = report.replace("counter.top(topCount())", "counter.top(topCount(), 1)")
    steps = [write_file("pom.xml", damage), DONE, write_file(REPORT, fixed), DONE]
    result, saved = attempt(project, tmp_path / "run", steps)
    assert result.resolved, saved["meta"]["pipeline"]
    (record,) = saved["meta"]["pipeline"]["errors"]  # the damage was never taken on as an error
    assert [t["outcome"] for t in record["tries"]] == ["regression", "resolved"]
    assert record["tries"][0]["detail"].startswith("regression: the try broke pom.xml")
    # The fragment try is not kept: the pom is the project's, the repair is Report.java alone.
    assert (project / "pom.xml").read_text() == pom
    assert result.edited == [REPORT] and (project / REPORT).read_text() == fixed


@pytest.fixture(scope="module")
def stats_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = stats_project(tmp_path_factory.mktemp("regression") / "stats", stats=RIGHT)
    Repo(project).commit("good")
    return project


@pytest.mark.slow
def test_a_syntax_error_at_a_line_the_try_wrote_is_discarded(
    stats_repo: Path, tmp_path: Path, memory: Path
) -> None:
    project = broken(stats_repo, FLOORED)  # test_mean fails
    mangled = "def mean(values):\n    return sum(values) / len(values\n"  # the paren never closed
    result, saved = attempt(
        project, tmp_path, [write_file("stats.py", mangled), DONE, write_file("stats.py", RIGHT), DONE]
    )
    assert result.resolved
    (record,) = saved["meta"]["pipeline"]["errors"]
    assert record["category"] == "test_failure"
    assert [t["outcome"] for t in record["tries"]] == ["regression", "resolved"]
    assert record["tries"][0]["detail"].startswith("regression: the try broke stats.py (at line 2")
    assert result.edited == ["stats.py"] and (project / "tests" / "test_stats.py").read_text() == TEST


# ---- the rule's parts -------------------------------------------------------------------------


def build(*errors: BuildError) -> BuildResult:
    return BuildResult("failure", 1, 1.0, "maven", ["mvn"], 17, "build.log", list(errors))


def test_unparsable_build_files() -> None:
    assert unparsable("pom.xml", "<project><modelVersion>4.0.0</modelVersion></project>") is None
    assert unparsable("app/pom.xml", '<project xmlns="http://maven.apache.org/POM/4.0.0"/>') is None
    assert unparsable("pom.xml", FRAGMENT) == "its root element is <dependency>, not <project>"
    assert (unparsable("pom.xml", "<project>\n<dependency>") or "").startswith("not well-formed XML")
    assert unparsable("package.json", '{"name": "a"}') is None
    assert (unparsable("package.json", '{"name": "a",}') or "").startswith("not valid JSON")
    assert unparsable("package.json", '["a"]') == "not a JSON object"
    assert unparsable("pyproject.toml", '[project]\nname = "a"\n') is None
    assert (unparsable("pyproject.toml", '[project]\nname = "a\n') or "").startswith("not valid TOML")
    assert (unparsable("gradle/libs.versions.toml", "[versions\n") or "").startswith("not valid TOML")
    assert unparsable("setup.cfg", "[metadata]\nname = a\n") is None
    assert (unparsable("setup.cfg", "name = a\n") or "").startswith("not valid INI")
    assert unparsable("build.gradle", "}}}") is None  # not a file this can tell about


def test_diff_hunks_and_moved_lines() -> None:
    diff = (
        "diff --git a/A.java b/A.java\n--- a/A.java\n+++ b/A.java\n"
        "@@ -2 +2,2 @@\n-x\n+y\n+++ z\n"  # an added line that reads like a header
        "@@ -10,2 +11,0 @@\n-a\n-b\n"
        'diff --git "a/n\\303\\251w" "b/n\\303\\251w"\nnew file mode 100644\n--- /dev/null\n'
        '+++ "b/n\\303\\251w"\n@@ -0,0 +1 @@\n+new\n'
        "diff --git a/gone b/gone\ndeleted file mode 100644\n--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-g\n"
    )
    hunks = diff_hunks(diff)
    assert hunks == {"A.java": [Hunk(2, 1, 2, 2), Hunk(10, 2, 11, 0)], "néw": [Hunk(0, 0, 1, 1)]}
    assert Hunk(2, 1, 2, 2).written() == {2, 3} and Hunk(10, 2, 11, 0).written() == {11, 12}
    edits = hunks["A.java"]
    assert moved(1, edits) == {1} and moved(2, edits) == {2, 3}  # above; rewritten
    assert moved(5, edits) == {6} and moved(11, edits) == {11, 12} and moved(20, edits) == {19}


def test_changed_file_names() -> None:
    changed = {"pom.xml", "app/pom.xml", "src/a.py"}
    assert changed_file("./src/a.py", changed) == "src/a.py"
    assert changed_file("/elsewhere/project/app/pom.xml", changed) == "app/pom.xml"
    assert changed_file("lib/pom.xml", changed) is None


def no_texts(path: str) -> tuple[str | None, str | None]:
    return None, None


SYNTAX = BuildError("';' expected", "syntax", "javac", "src/A.java", 5)


def test_a_malformed_line_the_try_wrote_is_a_regression() -> None:
    hunks = {"src/A.java": [Hunk(5, 1, 5, 1)]}
    before = build(BuildError("cannot find symbol", "syntax", "javac", "src/B.java", 9))
    assert (regression(before, build(SYNTAX), hunks, no_texts) or "").startswith(
        "regression: the try broke src/A.java (at line 5, a line it wrote"
    )


@pytest.mark.parametrize(
    ("error", "hunks", "before"),
    [
        # An error where the try wrote nothing: an error it uncovered.
        (SYNTAX, {"src/A.java": [Hunk(30, 1, 30, 1)]}, build()),
        # A failing test or a missing library at a line it wrote: a wrong fix, not a broken file.
        (
            BuildError("assert 1 == 2", "test_failure", "pytest", "src/A.java", 5),
            {"src/A.java": [Hunk(5, 1, 5, 1)]},
            build(),
        ),
        # That place failed before the try (its line moved down by one the try added above it).
        (
            SYNTAX,
            {"src/A.java": [Hunk(1, 0, 2, 1), Hunk(4, 1, 5, 1)]},
            build(BuildError("x", "syntax", "javac", "src/A.java", 4)),
        ),
        # A file the try did not change.
        (
            BuildError("';' expected", "syntax", "javac", "src/C.java", 5),
            {"src/A.java": [Hunk(5, 1, 5, 1)]},
            build(),
        ),
    ],
)
def test_what_is_no_regression(error: BuildError, hunks: dict[str, list[Hunk]], before: BuildResult) -> None:
    assert regression(before, build(error), hunks, no_texts) is None


def test_a_build_file_that_no_longer_parses_is_a_regression_unless_the_build_got_past_it() -> None:
    texts = {"pom.xml": ("<project/>", FRAGMENT)}
    unlocated = build(
        BuildError("Some problems were encountered while processing the POMs", "other", "maven")
    )
    hunks: dict[str, list[Hunk]] = {"pom.xml": [Hunk(1, 1, 1, 3)], "src/A.java": []}
    why = regression(build(), unlocated, hunks, texts.__getitem__)
    assert why == "regression: the try broke pom.xml (its root element is <dependency>, not <project>)"
    # It did not parse before either: not what this try broke.
    assert regression(build(), unlocated, hunks, {"pom.xml": ("<oops>", FRAGMENT)}.__getitem__) is None
    # Located in a file outside the project (a library's): still the pom's failure.
    library = build(
        BuildError("TOMLDecodeError", "syntax", "python", "/usr/lib/python3/tomllib/_parser.py", 9)
    )
    assert regression(build(), library, hunks, texts.__getitem__)
    # The build's top error is in another file of the project: the build got past the pom.
    elsewhere = build(BuildError("cannot find symbol", "syntax", "javac", "src/B.java", 3))
    assert regression(build(), elsewhere, hunks, texts.__getitem__) is None
    # A build file the try created broken counts; one it deleted has nothing to parse.
    assert regression(build(), unlocated, {"pom.xml": []}, {"pom.xml": (None, "{")}.__getitem__)
    assert (
        regression(build(), unlocated, {"pom.xml": []}, {"pom.xml": ("<project/>", None)}.__getitem__) is None
    )
