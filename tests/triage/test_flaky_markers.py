"""Tests known to flap: each framework's marker, the project's list, and what does not count."""

from pathlib import Path

import pytest

from buildfixer.core.build_result import BuildError
from buildfixer.triage.flaky import FLAKY_LIST, known_flaky


def failing(file: str, line: int | None, message: str, tool: str = "pytest") -> BuildError:
    return BuildError(message, "test_failure", tool, file=file, line=line)


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)


PYTEST_DECORATED = """import pytest


def test_steady():
    assert True


@pytest.mark.flaky(reruns=3)
def test_network_clock():
    assert now() == 1
"""
PYTEST_MODULE = """import pytest

pytestmark = [pytest.mark.flaky(reruns=2), pytest.mark.slow]


def test_network_clock():
    assert now() == 1
"""
JUNIT_METHOD = """package demo;

import androidx.test.filters.FlakyTest;
import org.junit.Test;

public class CalcTest {
    @Test
    public void steady() {
        assertEquals(2, 1 + 1);
    }

    @FlakyTest(bugId = 42)
    @Test
    public void adds() {
        assertEquals(5, Calc.add(2, 2));
    }
}
"""
JUNIT5_CLASS = """package demo;

@Tag("flaky")
class ClockTest {

    @Test
    void ticks() {
        assertEquals(1, clock.ticks());
    }
}
"""
KOTLIN_PIONEER = """class ClockTest {
    @RetryingTest(3)
    fun `ticks once per second`() {
        assertEquals(1, clock.ticks())
    }
}
"""
JEST_RETRIES = """jest.retryTimes(3);

test('adds 1 + 2 to equal 3', () => {
  expect(sum(1, 2)).toBe(3);
});
"""


@pytest.mark.parametrize(
    "rel,text,error,marker",
    [
        ("tests/test_clock.py", PYTEST_DECORATED,
         failing("tests/test_clock.py", 11, "tests/test_clock.py::test_network_clock - assert 2 == 1"),
         "@pytest.mark.flaky"),
        ("tests/test_clock.py", PYTEST_MODULE,
         failing("tests/test_clock.py", None, "tests/test_clock.py::test_network_clock - assert 2 == 1"),
         "pytestmark = [pytest.mark.flaky(reruns=2), pytest.mark.slow]"),
        ("src/test/java/demo/CalcTest.java", JUNIT_METHOD,
         failing("src/test/java/demo/CalcTest.java", 15, "demo.CalcTest.adds FAILURE: expected:<5>", "maven"),
         "@FlakyTest"),
        ("src/test/java/demo/ClockTest.java", JUNIT5_CLASS,
         failing("src/test/java/demo/ClockTest.java", 8, "Test demo.ClockTest > ticks() FAILED", "gradle"),
         '@Tag("flaky")'),
        ("src/test/kotlin/ClockTest.kt", KOTLIN_PIONEER,
         failing("src/test/kotlin/ClockTest.kt", 4, "Test ClockTest > ticks once per second() FAILED"),
         "@RetryingTest"),
        ("sum.test.js", JEST_RETRIES,
         failing("sum.test.js", 4, "adds 1 + 2 to equal 3: expect(received).toBe(expected)", "node"),
         "jest.retryTimes(3);"),
    ],
)  # fmt: skip
def test_a_framework_marker_makes_a_failing_test_known_to_flap(
    tmp_path: Path, rel: str, text: str, error: BuildError, marker: str
) -> None:
    write(tmp_path, rel, text)
    found = known_flaky([error], tmp_path)
    assert [t["file"] for t in found] == [rel]
    assert found[0]["marker"] == marker


def test_an_unmarked_test_is_not_known_to_flap(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_clock.py", PYTEST_DECORATED)
    error = failing("tests/test_clock.py", 5, "tests/test_clock.py::test_steady - assert False")
    assert known_flaky([error], tmp_path) == []
    write(tmp_path, "src/test/java/demo/CalcTest.java", JUNIT_METHOD)
    error = failing("src/test/java/demo/CalcTest.java", 9, "demo.CalcTest.steady FAILURE", "maven")
    assert known_flaky([error], tmp_path) == []  # the next method's @FlakyTest is not its


def test_every_failing_test_must_be_known_to_flap(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_clock.py", PYTEST_DECORATED)
    marked = failing("tests/test_clock.py", 11, "tests/test_clock.py::test_network_clock - assert 2 == 1")
    unmarked = failing("tests/test_clock.py", 5, "tests/test_clock.py::test_steady - assert False")
    assert known_flaky([marked, unmarked], tmp_path) == []
    assert len(known_flaky([marked, marked], tmp_path)) == 1  # one test reported twice is one test


def test_a_failure_besides_the_tests_is_not_flapping(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_clock.py", PYTEST_DECORATED)
    marked = failing("tests/test_clock.py", 11, "tests/test_clock.py::test_network_clock - assert 2 == 1")
    compile_error = BuildError("cannot find symbol", "syntax", "javac", file="src/Main.java", line=3)
    assert known_flaky([marked, compile_error], tmp_path) == []
    assert known_flaky([compile_error], tmp_path) == []


@pytest.mark.parametrize(
    "entry",
    ["tests/test_stats.py::test_mean", "test_mean", "tests/test_stats.py", "*mean*",
     "  test_mean   # flaps on slow runners"],
)  # fmt: skip
def test_the_projects_list_names_tests_known_to_flap(tmp_path: Path, entry: str) -> None:
    write(tmp_path, "tests/test_stats.py", "def test_mean():\n    assert mean([1, 2]) == 1.5\n")
    write(tmp_path, FLAKY_LIST, f"# tests that flap\n{entry}\n")
    error = failing("tests/test_stats.py", 2, "tests/test_stats.py::test_mean - assert 1 == 1.5")
    found = known_flaky([error], tmp_path)
    assert found and found[0]["marker"].startswith(FLAKY_LIST)


@pytest.mark.parametrize("entry", ["CalcTest.adds", "CalcTest#adds", "CalcTest > adds", "demo/*Test.java"])
def test_the_list_names_jvm_tests_as_their_runners_do(tmp_path: Path, entry: str) -> None:
    write(tmp_path, "src/test/java/demo/CalcTest.java", JUNIT_METHOD.replace("@FlakyTest(bugId = 42)", ""))
    write(tmp_path, FLAKY_LIST, f"{entry}\n")
    error = failing("src/test/java/demo/CalcTest.java", 14, "demo.CalcTest.adds FAILURE: expected", "maven")
    assert known_flaky([error], tmp_path), entry
    write(tmp_path, FLAKY_LIST, "CalcTest.steady\n")
    assert known_flaky([error], tmp_path) == []


def test_a_test_file_that_is_a_link_out_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text(PYTEST_DECORATED)
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_clock.py").symlink_to(outside)
    error = failing("tests/test_clock.py", 11, "tests/test_clock.py::test_network_clock - assert 2 == 1")
    assert known_flaky([error], project) == []
