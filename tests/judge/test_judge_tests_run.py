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
    assert [f.rule for f in verdict.findings] == ["fewer_tests_ran"]
    assert "test_mean" in verdict.findings[0].detail and "2 ran" in verdict.notes[0]


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
