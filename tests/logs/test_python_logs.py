import time

from buildfixer.logs.parsers.python import parse


def best(lines):
    errors = parse(lines)
    assert errors, "no errors"
    return max(errors, key=lambda e: e.specificity)


def test_pip_version_not_found_merges_no_matching_distribution():
    errors = parse(
        [
            "ERROR: Could not find a version that satisfies the requirement foo==99.0 (from "
            "versions: 1.0, 1.1)",
            "ERROR: No matching distribution found for foo==99.0",
        ]
    )
    assert len(errors) == 1
    assert (errors[0].tool, errors[0].category) == ("pip", "library_unavailable")
    assert "foo==99.0 (from versions: 1.0, 1.1)" in errors[0].message


def test_pip_no_matching_distribution_alone():
    error = best(["ERROR: No matching distribution found for bar>=2"])
    assert error.category == "library_unavailable"


def test_pip_conflict_keeps_the_cause():
    error = best(
        [
            "ERROR: Cannot install a==1 and b==2 because these package versions have conflicting "
            "dependencies.",
            "",
            "The conflict is caused by:",
            "    The user requested b==2",
            "    a 1 depends on b<2",
            "",
            "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/",
        ]
    )
    assert error.category == "library_unavailable"
    assert "a 1 depends on b<2" in error.message


def test_build_backend_traceback_in_setup_py():
    lines = [
        "  error: subprocess-exited-with-error",
        "  ",
        "  × Getting requirements to build wheel did not run successfully.",
        "  │ exit code: 1",
        "  ╰─> [6 lines of output]",
        "      Traceback (most recent call last):",
        '        File "/tmp/pip-build-env-x/overlay/lib/python3.11/site-packages/setuptools/build_meta.py", '
        "line 317, in run_setup",
        "          exec(code, locals())",
        '        File "<string>", line 3, in <module>',
        "      FileNotFoundError: [Errno 2] No such file or directory: 'README.md'",
        "      [end of output]",
    ]
    error = best(lines)
    assert (error.tool, error.category, error.file, error.line) == (
        "setuptools",
        "resource_missing",
        "setup.py",
        3,
    )
    assert "README.md" in error.message
    assert error.log_line == 5


def test_traceback_picks_innermost_project_frame():
    error = best(
        [
            "Traceback (most recent call last):",
            '  File "C:\\proj\\my app\\main.py", line 3, in <module>',
            "    import requests",
            '  File "C:\\Python311\\Lib\\site-packages\\requests\\__init__.py", line 9, in <module>',
            "    import urllib4",
            "ModuleNotFoundError: No module named 'urllib4'",
        ]
    )
    assert (error.file, error.line, error.category) == ("C:\\proj\\my app\\main.py", 3, "library_unavailable")
    assert error.tool == "python"


def test_syntax_error_uses_the_syntax_location():
    error = best(
        [
            "Traceback (most recent call last):",
            '  File "/p/run.py", line 1, in <module>',
            "    import pkg.mod",
            '  File "/p/pkg/mod.py", line 4',
            "    def broken(:",
            "               ^",
            "SyntaxError: invalid syntax",
        ]
    )
    assert (error.file, error.line, error.category) == ("/p/pkg/mod.py", 4, "syntax")


def test_compileall_output():
    errors = parse(
        [
            "Listing './pkg'...",
            "*** Error compiling './pkg/mod.py'...",
            '  File "./pkg/mod.py", line 3',
            "    return (",
            "           ^",
            "SyntaxError: '(' was never closed",
        ]
    )
    assert len(errors) == 1
    assert (errors[0].file, errors[0].line, errors[0].category, errors[0].log_line) == (
        "./pkg/mod.py",
        3,
        "syntax",
        1,
    )


def test_pytest_failure_with_location_from_details():
    errors = parse(
        [
            "=================================== FAILURES ===================================",
            "___________________________________ test_add ___________________________________",
            "",
            "    def test_add():",
            ">       assert add(2, 3) == 5",
            "E       assert -1 == 5",
            "",
            "tests/test_calc.py:5: AssertionError",
            "=========================== short test summary info ============================",
            "FAILED tests/test_calc.py::test_add - assert -1 == 5",
            "========================= 1 failed, 1 passed in 0.05s ==========================",
        ]
    )
    assert len(errors) == 1
    error = errors[0]
    assert (error.tool, error.category, error.file, error.line) == (
        "pytest",
        "test_failure",
        "tests/test_calc.py",
        5,
    )
    assert "tests/test_calc.py::test_add" in error.message
    assert error.log_line == 1


def test_pytest_collection_import_error():
    errors = parse(
        [
            "==================================== ERRORS ====================================",
            "______________________ ERROR collecting tests/test_app.py ______________________",
            "ImportError while importing test module '/p/tests/test_app.py'.",
            "tests/test_app.py:1: in <module>",
            "    from app import load",
            "E   ModuleNotFoundError: No module named 'yaml'",
            "=========================== short test summary info ============================",
            "ERROR tests/test_app.py",
        ]
    )
    assert len(errors) == 1
    assert errors[0].category == "library_unavailable"
    assert "No module named 'yaml'" in errors[0].message


def test_pytest_collection_error_with_rootdir_above_the_project():
    # Configuration in an ancestor (a monorepo root): headers are relative to it, the summary is not.
    errors = parse(
        [
            "==================================== ERRORS ====================================",
            "_______________ ERROR collecting pkg/semverkit/tests/test_bump.py _______________",
            "src/semverkit/policy.py:8: in <module>",
            "    _POLICY = json.loads(path.read_text())",
            "E   FileNotFoundError: [Errno 2] No such file or directory: 'data/policy.json'",
            "=========================== short test summary info ============================",
            "ERROR tests/test_bump.py - FileNotFoundError: [Errno 2] No such file or directory: 'data/p...",
        ]
    )
    assert len(errors) == 1
    assert (errors[0].category, errors[0].file, errors[0].line) == (
        "resource_missing",
        "src/semverkit/policy.py",
        8,
    )


def test_pytest_totals_only():
    errors = parse(["==== 2 failed, 3 passed in 1.20s ===="])
    assert [(e.category, e.specificity) for e in errors] == [("test_failure", 1)]


def test_pytest_unrecognized_arguments():
    error = best(
        [
            "ERROR: usage: pytest [options] [file_or_dir] [file_or_dir] [...]",
            "pytest: error: unrecognized arguments: --cov=app",
        ]
    )
    assert error.category == "configuration"


def test_setuptools_error_inside_backend_output():
    error = best(
        [
            "  × Getting requirements to build wheel did not run successfully.",
            "  ╰─> [3 lines of output]",
            "      error: package directory 'src/pkg' does not exist",
            "      [end of output]",
        ]
    )
    assert (error.tool, error.category) == ("setuptools", "resource_missing")


def test_successful_logs_have_no_errors():
    assert (
        parse(
            [
                "Successfully installed requests-2.31.0",
                "============================== 2 passed in 0.03s ===============================",
                "WARNING: You are using pip version 23.2.1; however, version 24.0 is available.",
                "tests/test_errors.py::test_raises_value_error PASSED",
            ]
        )
        == []
    )


def test_tracebacks_inside_pytest_failures_belong_to_the_test():
    errors = parse(
        [
            "=================================== FAILURES ===================================",
            "_________________________________ test_load ___________________________________",
            "----------------------------- Captured stderr call -----------------------------",
            "Traceback (most recent call last):",
            '  File "/p/app.py", line 3, in load',
            "FileNotFoundError: [Errno 2] No such file or directory: 'x'",
            "tests/test_app.py:9: AssertionError",
            "=========================== short test summary info ============================",
            "FAILED tests/test_app.py::test_load - AssertionError",
        ]
    )
    assert [e.category for e in errors] == ["test_failure"]


def test_large_log_is_fast():
    lines = ["Collecting foo", 'File "x", line 1', "Error: nothing", "x" * 300] * 60_000
    start = time.perf_counter()
    parse(lines)
    assert time.perf_counter() - start < 15  # linear: about 4 s alone; quadratic would take minutes
