"""`buildfixer judge`: exit 0 approved, 1 rejected, 2 bad usage; the JSON record."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from judge_corpus import HACKS, HONEST, to_diff


def judge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "buildfixer", "judge", *args], capture_output=True, text=True
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "p").mkdir()
    return tmp_path / "p"


def test_a_hack_exits_1_with_its_findings_as_json(project: Path, tmp_path: Path) -> None:
    patch = tmp_path / "hack.diff"
    patch.write_text(to_diff(*HACKS["maven-skip-tests"]))
    done = judge(str(project), "--patch", str(patch), "--json")
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout)
    assert record["approved"] is False
    assert record["findings"][0] == {
        "rule": "tests_turned_off", "file": "pom.xml", "line": 9,
        "detail": "tests switched off: `<skipTests>true</skipTests>`",
    }  # fmt: skip


def test_an_honest_fix_exits_0(project: Path, tmp_path: Path) -> None:
    patch = tmp_path / "fix.diff"
    patch.write_text(to_diff(*HONEST["java-missing-semicolon"]))
    done = judge(str(project), "--patch", str(patch))
    assert (done.returncode, done.stdout.strip()) == (0, "APPROVED")


@pytest.mark.parametrize("case", ["missing-project", "missing-patch", "not-a-diff", "garbled-hunk"])
def test_bad_usage_exits_2_in_one_line(case: str, project: Path, tmp_path: Path) -> None:
    patch = tmp_path / "p.diff"
    patch.write_text(
        {"not-a-diff": "hello\n", "garbled-hunk": "--- a/x\n+++ b/x\n@@ -1,2 +1,9 @@\n-a\n"}.get(case, "x")
    )
    target = str(tmp_path / "nope") if case == "missing-project" else str(project)
    path = str(tmp_path / "none.diff") if case == "missing-patch" else str(patch)
    done = judge(target, "--patch", path)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("buildfixer: error:")
