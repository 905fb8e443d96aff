"""The order of triage's rules and the builds each one spends, on build results made here (no build runs)."""

from collections.abc import Callable
from pathlib import Path

import pytest

from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.triage import FLAKY, INFRA, REAL, triage
from buildfixer.triage.triage import same_failure


def result(status: str = "failure", *errors: BuildError, tail: str = "") -> BuildResult:
    return BuildResult(
        status, 0 if status == "success" else 1, 2.0, "python", ["pytest"], None, "", errors=list(errors),
        category=errors[0].category if errors else None, output_tail=tail,
    )  # fmt: skip


TEST_MEAN = BuildError("tests/test_stats.py::test_mean - assert 1 == 1.5", "test_failure", "pytest",
                       file="tests/test_stats.py", line=5)  # fmt: skip
TEST_MEDIAN = BuildError("tests/test_stats.py::test_median - assert 2 == 3", "test_failure", "pytest",
                         file="tests/test_stats.py", line=9)  # fmt: skip
SYNTAX = BuildError("invalid syntax", "syntax", "python", file="stats.py", line=2)


class Rebuilds:
    """A rebuild that hands out prepared results and counts its calls."""

    def __init__(self, *results: BuildResult) -> None:
        self.results = list(results)
        self.calls = 0

    def __call__(self) -> BuildResult:
        self.calls += 1
        return self.results.pop(0)


def run(first: BuildResult, tmp_path: Path, rebuild: Callable[[], BuildResult] | None, budget: int = 2):
    return triage(first, tmp_path, max_builds=budget, rebuild=rebuild, base_note="no base here")


def test_a_passing_build_has_nothing_to_triage(tmp_path: Path) -> None:
    again = Rebuilds()
    verdict = run(result("success"), tmp_path, again)
    assert verdict.kind is None and again.calls == 0 and verdict.to_dict()["class"] is None


def test_infrastructure_is_decided_from_the_first_build_alone(tmp_path: Path) -> None:
    again = Rebuilds()
    verdict = run(result("timeout", TEST_MEAN), tmp_path, again)
    assert (verdict.kind, verdict.builds, again.calls) == (INFRA, 0, 0)
    assert verdict.signals[0].kind == "timeout" and verdict.confidence == 0.7


def test_a_test_marked_flaky_needs_no_rerun(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_stats.py").write_text(
        "import pytest\n\n\n@pytest.mark.flaky\ndef test_mean():\n    assert mean([1, 2]) == 1.5\n"
    )
    again = Rebuilds()
    verdict = run(result("failure", TEST_MEAN), tmp_path, again)
    assert (verdict.kind, verdict.builds, again.calls, verdict.confidence) == (FLAKY, 0, 0, 0.75)
    assert verdict.known_flaky == [{"test": "test_mean", "file": "tests/test_stats.py",
                                    "marker": "@pytest.mark.flaky"}]  # fmt: skip


def test_a_test_that_passes_when_built_again_is_flaky(tmp_path: Path) -> None:
    again = Rebuilds(result("success"))
    verdict = run(result("failure", TEST_MEAN), tmp_path, again)
    assert (verdict.kind, verdict.builds, verdict.confidence) == (FLAKY, 1, 0.9)
    assert verdict.reruns[0]["status"] == "success" and not verdict.reruns[0]["same_failure"]


def test_a_test_that_fails_the_same_way_again_is_real(tmp_path: Path) -> None:
    moved = BuildError(TEST_MEAN.message, "test_failure", "pytest", file="tests/test_stats.py", line=6)
    again = Rebuilds(result("failure", moved))
    verdict = run(result("failure", TEST_MEAN), tmp_path, again, budget=1)
    assert (verdict.kind, verdict.builds, verdict.confidence) == (REAL, 1, 0.85)
    assert verdict.reruns[0]["same_failure"] and verdict.notes == ["no base here"]


def test_with_no_base_to_build_the_budget_goes_to_more_reruns(tmp_path: Path) -> None:
    again = Rebuilds(result("failure", TEST_MEAN), result("failure", TEST_MEAN))
    verdict = run(result("failure", TEST_MEAN), tmp_path, again, budget=2)
    assert (verdict.kind, verdict.builds, verdict.confidence) == (REAL, 2, 0.9)
    assert verdict.basis == "it failed the same way all 2 times it was built again"
    flapping = Rebuilds(result("failure", TEST_MEAN), result("success"))  # passes the second time
    assert run(result("failure", TEST_MEAN), tmp_path, flapping, budget=2).kind == FLAKY


def test_another_test_failing_the_second_time_is_flaky(tmp_path: Path) -> None:
    verdict = run(result("failure", TEST_MEAN), tmp_path, Rebuilds(result("failure", TEST_MEDIAN)))
    assert (verdict.kind, verdict.confidence) == (FLAKY, 0.6)


def test_infrastructure_in_the_rerun_is_infra(tmp_path: Path) -> None:
    rerun = result("failure", TEST_MEAN, tail="$ pip install\nERROR: [Errno 28] No space left on device\n")
    rerun.errors[0] = BuildError("Could not install packages", "library_unavailable", "pip")
    verdict = run(result("failure", TEST_MEAN), tmp_path, Rebuilds(rerun))
    assert verdict.kind == INFRA and verdict.basis.startswith("when built again, the disk is full")


def test_a_compile_error_is_never_built_again(tmp_path: Path) -> None:
    again = Rebuilds()
    verdict = run(result("failure", SYNTAX), tmp_path, again)
    assert (verdict.kind, verdict.builds, again.calls, verdict.confidence) == (REAL, 0, 0, 0.8)


@pytest.mark.parametrize("budget,rebuild", [(0, Rebuilds()), (2, None)])
def test_without_a_rerun_a_failing_test_is_real_with_less_confidence(
    tmp_path: Path, budget: int, rebuild: Rebuilds | None
) -> None:
    verdict = run(result("failure", TEST_MEAN), tmp_path, rebuild, budget)
    assert (verdict.kind, verdict.builds, verdict.confidence) == (REAL, 0, 0.6)
    assert "may pass when built again" in verdict.notes[0]


def test_the_same_failure_ignores_numbers_ranking_and_where_it_was_built() -> None:
    first = result("failure", TEST_MEAN)
    message = "Cannot find module '{0}/lib/money.js' from {0}/app.js"
    here = BuildError(message.format("/home/runner/work/acme-shop/acme-shop"), "other", "node")
    there = BuildError(message.format("/root/.cache/buildfixer/workspaces/ws-4242-abcdefgh"), "other", "node")
    assert same_failure(result("failure", here), result("failure", there))
    assert same_failure(first, result("failure", SYNTAX, TEST_MEAN))  # the root among the first few
    assert not same_failure(first, result("failure", TEST_MEDIAN))
    assert not same_failure(first, result("success"))
    assert same_failure(result("failure"), result("failure"))  # nothing read from either: the status
    assert not same_failure(result("failure"), result("timeout"))


def test_the_record_is_json(tmp_path: Path) -> None:
    import json

    verdict = run(result("failure", TEST_MEAN), tmp_path, Rebuilds(result("success")))
    data = json.loads(json.dumps(verdict.to_dict()))
    assert set(data) == {"class", "confidence", "basis", "evidence", "builds", "seconds"}
    assert set(data["evidence"]) == {"first", "signals", "known_flaky", "reruns", "base", "notes"}
    assert data["evidence"]["first"]["root_error"].startswith("tests/test_stats.py:5: ")


def test_the_text_form_spells_out_a_logs_control_characters(tmp_path: Path) -> None:
    from buildfixer.cli.triage_commands import triage_lines

    evil = "npm error code ECONNREFUSED \x1b]0;owned\x07 \x9b2K"
    first = result("failure", BuildError(evil, "other", "npm"), tail=f"$ npm ci\n{evil}\n")
    verdict = run(first, tmp_path, Rebuilds())
    text = "\n".join(triage_lines(verdict))
    assert "\x07" not in text and "\x9b" not in text and "\\x9b" in text
    assert text.startswith("INFRA (confidence 0.85): the network failed: ")
