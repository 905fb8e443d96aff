import json
import time

import pytest
from big_logs import big_gradle_log  # tests/logs is on sys.path (pytest rootdir-less import)
from hypothesis import given, settings
from hypothesis import strategies as st

from buildfixer.core.build_result import CATEGORIES
from buildfixer.core.errors import BuildfixerError
from buildfixer.logs.analyze import Analysis, analyze_file, analyze_text, build_system_of_log


def test_to_dict_is_exactly_the_contract():
    analysis = analyze_text("/p/A.java:1: error: ';' expected\n  x\n   ^\n1 error\nBUILD FAILED in 1s\n")
    data = analysis.to_dict()
    assert list(data) == ["errors", "category", "build_system"]
    assert data["category"] == "syntax" and data["build_system"] == "gradle"
    assert set(data["errors"][0]) == {"file", "line", "column", "message", "category", "tool"}
    json.dumps(data)


def test_successful_build_has_no_errors():
    log = "> Task :compileJava\nwarning: [options] bootstrap class path not set\n\nBUILD SUCCESSFUL in 3s\n"
    analysis = analyze_text(log)
    assert (analysis.errors, analysis.category, analysis.build_system) == ([], None, "gradle")
    maven_ok = "[INFO] Scanning for projects...\n[ERROR] Tests run: 2, Failures: 1\n[INFO] BUILD SUCCESS\n"
    assert analyze_text(maven_ok).errors == []


def test_a_failed_rerun_after_a_success_is_analyzed():
    log = (
        "BUILD SUCCESSFUL in 3s\n* What went wrong:\nExecution failed for task ':test'.\n"
        "> There were failing tests.\n\nBUILD FAILED in 1s\n"
    )
    assert analyze_text(log).category == "test_failure"


@pytest.mark.parametrize(
    ("log", "system"),
    [
        ("> Task :app:compileJava\nBUILD FAILED in 2s", "gradle"),
        ("[INFO] Scanning for projects...\n[INFO] BUILD FAILURE", "maven"),
        ("npm ERR! code E404\nnpm ERR! 404 Not Found", "npm"),
        ("============================= test session starts ==============================", "python"),
        ("plain text", None),
    ],
)
def test_build_system_of_log(log, system):
    assert build_system_of_log(log.splitlines()) == system


def test_empty_log():
    analysis = analyze_text("")
    assert (analysis.errors, analysis.category, analysis.build_system) == ([], None, None)


def test_analyze_file_rejects_binary_and_missing(tmp_path):
    with pytest.raises(BuildfixerError):
        analyze_file(tmp_path / "nope.log")
    (tmp_path / "core").write_bytes(b"\x00" * 4096)
    with pytest.raises(BuildfixerError):
        analyze_file(tmp_path / "core")


def test_ten_megabyte_gradle_log_is_fast():
    log = big_gradle_log(10 * 1024 * 1024)
    assert len(log) >= 10 * 1024 * 1024 * 0.95
    analyze_text(log[:100_000])  # warm up imports and regex compilation
    start = time.perf_counter()
    analysis = analyze_text(log)
    elapsed = time.perf_counter() - start
    assert analysis.errors[0].file.endswith("org/big/m7/Service.java") and analysis.errors[0].line == 88
    assert analysis.category == "syntax"
    # Target is 0.5 s; the margin absorbs slow, shared CI machines.
    assert elapsed < 1.5, f"10 MB log took {elapsed:.2f} s"


@settings(max_examples=150, deadline=None, database=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "* What went wrong:",
                "* Where:",
                "Build file '/p/b.gradle' line: x",
                "> Could not find a:b:1.",
                "[ERROR] Failed to execute goal on project x:",
                "[ERROR] /p/A.java:[1,2] boom",
                "/p/A.java:1: error: x",
                "  symbol: y",
                "    ^",
                "[ERROR] Failures:",
                "[ERROR]   T.t:1 x",
                "<<< FAILURE!",
                "BUILD FAILED",
                "demo.T > t FAILED",
                "   at x.T.t(T.java:3)",
                "",
                "\x1b[31m",
                "\r",
                "Tests run: 1, Failures: 1, Errors: 0",
            ]
        ),
        max_size=40,
    ),
    st.text(max_size=50),
)
def test_arbitrary_logs_never_crash(lines, extra):
    analysis = analyze_text("\n".join(lines) + extra)
    assert isinstance(analysis, Analysis)
    assert analysis.category is None or analysis.category in CATEGORIES
    assert all(e.category in CATEGORIES for e in analysis.errors)
