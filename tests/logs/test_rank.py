from buildfixer.core.build_result import BuildError
from buildfixer.logs.rank import dedupe, normalize_message, rank


def err(message, *, tool="javac", file=None, line=None, spec=10, at=0, category="syntax"):
    return BuildError(
        message=message, category=category, tool=tool, file=file, line=line, log_line=at, specificity=spec
    )


def test_normalize_ignores_case_space_and_help_links():
    assert normalize_message("Could not find X.  -> [Help 1]") == normalize_message("could  not find x")


def test_maven_double_report_is_merged_keeping_the_first_copy():
    first = err("cannot find symbol", file="/p/A.java", line=3, at=10)
    second = err("cannot  find symbol", file="/p/A.java", line=3, at=40)
    other_line = err("cannot find symbol", file="/p/A.java", line=4, at=11)
    assert dedupe([second, first, other_line]) == [first, other_line]
    assert dedupe([second, first])[0].log_line == 10


def test_summary_wrapping_compiler_errors_is_dropped():
    summary = err(
        "Execution failed for task ':compileJava'. > Compilation failed", tool="gradle", spec=1, at=20
    )
    compiler = err(
        "package org.x does not exist", file="/p/A.java", line=1, at=5, category="library_unavailable"
    )
    assert rank([summary, compiler]) == [compiler]


def test_summary_alone_is_kept():
    summary = err("BUILD FAILED", tool="gradle", spec=0, at=3, category="other")
    assert rank([summary]) == [summary]


def test_unrelated_summary_after_nothing_specific_is_kept():
    tests_failed = err("There were failing tests", tool="gradle", spec=2, at=50, category="test_failure")
    dependency = err("Could not find a:b:1", tool="gradle", spec=8, at=60, category="library_unavailable")
    assert rank([tests_failed, dependency]) == [dependency, tests_failed]


def test_specificity_then_log_order():
    late_compiler = err("';' expected", file="/p/B.java", line=2, at=30)
    early_compiler = err("cannot find symbol", file="/p/A.java", line=9, at=12)
    gradle_block = err("Could not find a:b:1", tool="gradle", spec=8, at=2, category="library_unavailable")
    assert rank([late_compiler, gradle_block, early_compiler]) == [
        early_compiler,
        late_compiler,
        gradle_block,
    ]


def test_build_tool_quote_of_another_tools_error_is_dropped():
    inner = err(
        "Android Gradle plugin requires Java 17 to run.", tool="agp", spec=8, at=12, category="configuration"
    )
    wrapper = err(
        "Failed to apply plugin 'com.android.application'. > Android Gradle plugin requires Java 17 to run.",
        tool="gradle",
        file="/p/build.gradle",
        line=2,
        spec=9,
        at=10,
        category="configuration",
    )
    assert rank([wrapper, inner]) == [inner]


def test_errors_without_log_line_sort_last():
    placed = err("x expected", file="/p/A.java", line=1, at=5)
    unplaced = err("y expected", file="/p/A.java", line=2, at=None)
    assert rank([unplaced, placed]) == [placed, unplaced]
