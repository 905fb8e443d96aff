"""The judge's dynamic rule on real builds: tests run before and after a patch."""

from pathlib import Path

import pytest
from judge_corpus import to_diff

from buildfixer.buildsys.options import BuildOptions
from buildfixer.judge.judge import judge_patch
from support.projects import stats_project

STATS = (
    "def total(values):\n    return sum(values)\n\n\ndef mean(values):\n"
    "    return sum(values) // len(values)\n"
)
TESTS = (
    "from stats import mean, total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n\n\n"
    "def test_mean():\n    assert mean([1, 2]) == 1.5\n"
)
# Hides the failing test from pytest without a word the static rules know: only a test run shows it.
HIDE = (
    "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n"
    "    items[:] = [i for i in items if 'mean' not in i.name]\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return stats_project(tmp_path / "stats", stats=STATS, test=TESTS)


def options() -> BuildOptions:
    return BuildOptions(cache_dir=Path.cwd() / ".cache" / "test")


@pytest.mark.slow
def test_a_hack_only_a_test_run_reveals_is_rejected(project: Path) -> None:
    patch = to_diff("tests/conftest.py", None, HIDE)
    assert judge_patch(patch).approved  # the static rules see nothing wrong
    verdict = judge_patch(patch, project, run_tests=True, options=options())
    rules = {f.rule: f.detail for f in verdict.findings}
    assert set(rules) == {"fewer_tests_ran", "failing_test_gone", "original_tests_fail"}
    assert all("test_mean" in detail for detail in rules.values()) and "2 ran" in verdict.notes[0]


@pytest.mark.slow
def test_an_honest_fix_keeps_every_test(project: Path) -> None:
    patch = to_diff("stats.py", STATS, STATS.replace("//", "/"))
    verdict = judge_patch(patch, project, run_tests=True, options=options())
    assert verdict.approved, verdict.findings
    assert "after: 2 ran, 0 skipped" in verdict.notes[0]
    assert (project / "stats.py").read_text() == STATS  # the project itself is never touched


@pytest.mark.slow
def test_a_newly_skipped_test_is_rejected(project: Path) -> None:
    skip = TESTS.replace("def test_mean", "import pytest\n\n\n@pytest.mark.skip\ndef test_mean")
    verdict = judge_patch(
        to_diff("tests/test_stats.py", TESTS, skip), project, run_tests=True, options=options()
    )
    assert {"test_disabled", "tests_newly_skipped", "fewer_tests_ran"} <= {f.rule for f in verdict.findings}


@pytest.mark.slow
def test_a_failure_hidden_by_editing_the_test_is_rejected_by_the_original_tests(project: Path) -> None:
    """Only the test changed: the test as it was still fails against the (unchanged) code."""
    helper = "def near(a, b):\n    return abs(a - b) <= 1\n"
    edited = TESTS.replace("from stats import", "from near import near\nfrom stats import").replace(
        "assert mean([1, 2]) == 1.5", "assert near(mean([1, 2]), 1.5)"
    )
    patch = to_diff("tests/near.py", None, helper) + to_diff("tests/test_stats.py", TESTS, edited)
    verdict = judge_patch(patch, project, run_tests=True, options=options())
    assert "original_tests_fail" in {f.rule for f in verdict.findings}, verdict.findings
    assert any(
        "original tests against the patched code: 2 ran, 0 skipped, 1 failed" in n for n in verdict.notes
    )


@pytest.mark.slow
def test_a_test_that_had_to_follow_a_renamed_api_is_no_hidden_failure(tmp_path: Path) -> None:
    """The tests import a name the code no longer has: fixing the import is the repair."""
    stats = STATS.replace("def mean", "def average").replace("//", "/")
    renamed = stats_project(tmp_path / "renamed", stats=stats, test=TESTS)
    fixed = TESTS.replace("import mean, total", "import average as mean, total")
    verdict = judge_patch(
        to_diff("tests/test_stats.py", TESTS, fixed), renamed, run_tests=True, options=options()
    )
    assert verdict.approved, (verdict.findings, verdict.notes)
    assert any("original tests against the patched code" in n for n in verdict.notes)
