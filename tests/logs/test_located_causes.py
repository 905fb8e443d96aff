"""Errors whose category and location come from what the message names (module, @types
package, missing file, Python range) or from the test runner's own location lines."""

from pathlib import Path

import pytest

from buildfixer.core.confined import WorkspaceFiles
from buildfixer.logs.analyze import analyze_file, analyze_text
from buildfixer.logs.locate import locate_in_project
from buildfixer.logs.parsers import gradle, maven
from buildfixer.logs.parsers.pytrace import foreign, missing_file
from buildfixer.logs.taxonomy import classify

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"


def root_of(*lines: str):
    analysis = analyze_text("\n".join(lines) + "\n")
    assert analysis.errors, "no error found"
    return analysis.errors[0], analysis


# --- 1. javac: module not found ------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "column"),
    [
        ("/w/app/src/main/java/module-info.java:3: error: module not found: org.slf4j", 14),
        ("[ERROR] /w/app/src/main/java/module-info.java:[3,14] module not found: org.slf4j", 14),
        ("C:\\w\\app\\src\\main\\java\\module-info.java:3: error: module not found: org.slf4j", 14),
    ],
)
def test_javac_module_not_found_is_library_unavailable(line, column):
    error, analysis = root_of("> Task :compileJava FAILED", line, "    requires org.slf4j;", "             ^")
    assert error.file is not None and error.file.replace("\\", "/").endswith("src/main/java/module-info.java")
    assert (error.line, error.column, error.category, error.tool) == (
        3,
        column,
        "library_unavailable",
        "javac",
    )
    assert "module not found: org.slf4j" in error.message
    assert analysis.category == "library_unavailable"


def test_module_not_found_keeps_webpack_relative_imports_as_missing_files():
    assert (
        classify("Module not found: Error: Can't resolve './styles.css' in '/app/src'") == "resource_missing"
    )
    assert classify("module not found: com.fasterxml.jackson.databind", "javac") == "library_unavailable"


@pytest.mark.parametrize("name", ["gradle_javac_module_not_found", "maven_module_not_found"])
def test_module_not_found_fixtures(name):
    error = analyze_file(FIXTURES / f"{name}.log").errors[0]
    assert error.file is not None and error.file.endswith("module-info.java")
    assert error.category == "library_unavailable" and "module not found: " in error.message


# --- 2. tsc: missing @types packages and bare module specifiers --------------------------


@pytest.mark.parametrize(
    ("lines", "file", "line"),
    [
        (["error TS2688: Cannot find type definition file for 'node'."], None, None),
        (
            [
                "error TS2688: Cannot find type definition file for 'node'.",
                "  The file is in the program because:",
                "    Entry point of type library 'node' specified in compilerOptions",
            ],
            "tsconfig.json",
            None,
        ),
        (
            [
                "error TS2688: Cannot find type definition file for 'node'.",
                "  The file is in the program because:",
                "    Entry point of type library 'node' specified in compilerOptions",
                "",
                "  tsconfig.app.json:7:15",
                '    7     "types": ["node"]',
                "                    ~~~~~~",
                "    File is entry point of type library specified here.",
            ],
            "tsconfig.app.json",
            7,
        ),
        (
            ["tsconfig.json(3,5): error TS2688: Cannot find type definition file for 'node'."],
            "tsconfig.json",
            3,
        ),
        (
            ["tsconfig.json:3:5 - error TS2688: Cannot find type definition file for 'node'."],
            "tsconfig.json",
            3,
        ),
        (
            ["src/env.d.ts(1,23): error TS2688: Cannot find type definition file for 'node'."],
            "src/env.d.ts",
            1,
        ),
        (
            ["src/env.d.ts:1:23 - error TS2688: Cannot find type definition file for 'node'."],
            "src/env.d.ts",
            1,
        ),
        (
            [
                "node_modules/@types/react-dom/index.d.ts(8,23): error TS2688: "
                "Cannot find type definition file for 'react'."
            ],
            "node_modules/@types/react-dom/index.d.ts",
            8,
        ),
    ],
)
def test_tsc_missing_type_definitions(lines, file, line):
    error, _ = root_of("> tsc -p .", *lines, "", "Found 1 error.")
    assert (error.tool, error.category, error.file, error.line) == ("tsc", "library_unavailable", file, line)
    assert "Cannot find type definition file for '" in error.message
    assert "The file is in the program because" not in error.message


@pytest.mark.parametrize(
    ("specifier", "category"),
    [
        ("lodash", "library_unavailable"),
        ("@acme/ui/button", "library_unavailable"),
        ("./util", "resource_missing"),
        ("../lib/db", "resource_missing"),
    ],
)
def test_tsc_cannot_find_module(specifier, category):
    error, _ = root_of(
        f"src/app.ts(2,22): error TS2307: Cannot find module '{specifier}' "
        "or its corresponding type declarations."
    )
    assert (error.file, error.line, error.column, error.category) == ("src/app.ts", 2, 22, category)
    assert f"'{specifier}'" in error.message


# --- 3. test runners' own location lines ---------------------------------------------------

VITEST = """
 RUN  v1.6.0 /home/ci/mathkit

 ❯ src/index.spec.ts  (2 tests | 1 failed) 5ms
   × src/index.spec.ts > adds > two numbers
     → expected 3 to be 4 // Object.is equality

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/index.spec.ts > adds > two numbers
AssertionError: expected 3 to be 4 // Object.is equality
 ❯ add node_modules/@vitest/expect/dist/index.js:1200:11
 ❯ src/index.spec.ts:33:34
     33|     expect(add(1, 2)).toBe(4)

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed (1)
      Tests  1 failed | 1 passed (2)
"""


def test_vitest_failure_is_located_at_its_location_line():
    analysis = analyze_text(VITEST)
    error = analysis.errors[0]
    assert (error.category, error.tool, error.file, error.line, error.column) == (
        "test_failure",
        "vitest",
        "src/index.spec.ts",
        33,
        34,
    )
    assert "expected 3 to be 4" in error.message
    # The summary tree's `×` line repeats the failure; it is not a second, unlocated one.
    assert all(e.file for e in analysis.errors if e.category == "test_failure")


@pytest.mark.parametrize("prefix", ["packages/core test: ", "@acme/core:test: "])
def test_vitest_in_a_monorepo_run(prefix):
    error, _ = root_of(
        *(
            prefix + line
            for line in (
                " FAIL  src/index.spec.ts > adds > two numbers",
                "AssertionError: expected 3 to be 4 // Object.is equality",
                " ❯ src/index.spec.ts:33:34",
                "",
                " Test Files  1 failed (1)",
            )
        )
    )
    assert (error.tool, error.category, error.file, error.line, error.column) == (
        "vitest",
        "test_failure",
        "src/index.spec.ts",
        33,
        34,
    )
    assert error.message.startswith("src/index.spec.ts > adds > two numbers: AssertionError: expected 3")


def test_vitest_at_frames_and_test_file_preferred():
    error, _ = root_of(
        " FAIL  test/cart.test.ts > cart > discount",
        "TypeError: Cannot read properties of undefined (reading 'price')",
        "    at total (/srv/shop/src/cart.ts:14:20)",
        "    at /srv/shop/test/cart.test.ts:21:12",
        "    at file:///srv/shop/node_modules/@vitest/runner/dist/index.js:135:14",
        "",
        " Test Files  1 failed (1)",
    )
    assert (error.category, error.file, error.line, error.column) == (
        "test_failure",
        "/srv/shop/test/cart.test.ts",
        21,
        12,
    )


def test_jest_frame_in_the_failing_test_file():
    error, _ = root_of(
        "FAIL src/orders/total.test.ts",
        "  ● order total › adds shipping",
        "",
        "    expect(received).toEqual(expected) // deep equality",
        "",
        "      at assertTotal (src/orders/testing.ts:12:17)",
        "      at Object.<anonymous> (src/orders/total.test.ts:27:5)",
        "      at Promise.then.completed (node_modules/jest-circus/build/utils.js:298:28)",
        "",
        "Tests:       1 failed, 3 passed, 4 total",
    )
    assert (error.category, error.file, error.line) == ("test_failure", "src/orders/total.test.ts", 27)


def test_jest_suite_that_cannot_load_a_package():
    error, _ = root_of(
        "FAIL src/app.test.ts",
        "  ● Test suite failed to run",
        "",
        "    Cannot find module 'supertest' from 'src/app.test.ts'",
        "",
        "      at Resolver._throwModNotFoundError (node_modules/jest-resolve/build/resolver.js:427:11)",
        "      at Object.<anonymous> (src/app.test.ts:2:1)",
        "",
        "Test Suites: 1 failed, 1 total",
    )
    assert (error.category, error.file, error.line) == ("library_unavailable", "src/app.test.ts", 2)


def test_failing_test_mentioning_a_missing_file_is_still_a_test_failure():
    error, _ = root_of(
        " FAIL  src/io.spec.ts > reader > reports absent files",
        "Error: expected message 'File not found' but got 'ok'",
        " ❯ src/io.spec.ts:9:11",
        "",
        " Test Files  1 failed (1)",
    )
    assert (error.category, error.file, error.line, error.column) == ("test_failure", "src/io.spec.ts", 9, 11)


def test_gradle_nested_test_class_frame():
    errors = gradle.parse(
        [
            "> Task :test FAILED",
            "",
            "com.acme.PriceTest > Rounding > halfUp() FAILED",
            "    org.opentest4j.AssertionFailedError: expected: <3> but was: <2>",
            "        at app//org.junit.jupiter.api.AssertEquals.failNotEqual(AssertEquals.java:197)",
            "        at app//com.acme.PriceTest$Rounding.halfUp(PriceTest.java:42)",
        ]
    )
    test = next(e for e in errors if e.category == "test_failure")
    assert (test.file, test.line) == ("com/acme/PriceTest.java", 42)


def test_surefire_nested_test_class_frame():
    errors = maven.parse(
        [
            "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE!"
            " -- in com.acme.PriceTest$Rounding",
            "[ERROR] com.acme.PriceTest$Rounding.halfUp -- Time elapsed: 0.01 s <<< FAILURE!",
            "org.opentest4j.AssertionFailedError: expected: <3> but was: <2>",
            "\tat org.junit.jupiter.api.AssertEquals.failNotEqual(AssertEquals.java:197)",
            "\tat com.acme.PriceTest$Rounding.halfUp(PriceTest.java:42)",
        ]
    )
    test = next(e for e in errors if e.category == "test_failure" and e.file)
    assert (test.file, test.line) == ("com/acme/PriceTest.java", 42)


# --- 4. build backends: the missing file, never a stdlib or site-packages frame -----------


@pytest.mark.parametrize(
    ("name", "tool"),
    [
        ("pip_hatchling_readme_missing", "hatchling"),
        ("pip_flit_readme_missing", "flit-core"),
        ("pip_poetry_core_readme_missing", "poetry-core"),
        ("pip_backend_readme_missing_windows", "pdm-backend"),
    ],
)
def test_backend_missing_readme(name, tool):
    analysis = analyze_file(FIXTURES / f"{name}.log")
    root = analysis.errors[0]
    assert (root.category, root.tool, root.line) == ("resource_missing", tool, None)
    assert root.file is not None and root.file.rsplit("/", 1)[-1] in ("README.md", "README.rst")
    for error in analysis.errors:
        assert error.category != "test_failure", error
        assert error.file is None or not foreign(error.file), error


def test_backend_missing_readme_located_in_project(tmp_path):
    project = tmp_path / "notes-app"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "x"\nreadme = "README.md"\n')
    text = (FIXTURES / "pip_poetry_core_readme_missing.log").read_text()
    analysis = analyze_text(text.replace("/builds/acme/poetry-lib", str(project)))
    locate_in_project(analysis.errors, WorkspaceFiles(project))
    assert (analysis.errors[0].file, analysis.errors[0].category) == ("README.md", "resource_missing")


def test_missing_relative_file_is_not_mapped_onto_another_of_its_name(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("docs\n")
    analysis = analyze_file(FIXTURES / "pip_hatchling_readme_missing.log")
    locate_in_project(analysis.errors, WorkspaceFiles(tmp_path))
    assert (analysis.errors[0].file, analysis.errors[0].category) == ("README.md", "resource_missing")


@pytest.mark.parametrize(
    "frame",
    [
        "/usr/lib64/python3.11/pathlib.py",
        "/usr/lib/python3.12/pathlib.py",
        "/opt/pypy/lib/pypy3.10/pathlib.py",
        "C:\\Python312\\Lib\\pathlib.py",
        "/Library/Frameworks/Python.framework/Versions/3.12/lib/python3.12/pathlib.py",
        "/home/u/.venv/lib/python3.12/site-packages/hatchling/metadata/core.py",
    ],
)
def test_interpreter_and_package_frames_are_never_project_locations(frame):
    assert foreign(frame)
    error, _ = root_of(
        "Traceback (most recent call last):",
        f'  File "{frame}", line 1044, in open',
        "    return io.open(self, mode)",
        "FileNotFoundError: [Errno 2] No such file or directory: 'LICENSE.txt'",
    )
    assert (error.file, error.line, error.category) == ("LICENSE.txt", None, "resource_missing")


@pytest.mark.parametrize(
    ("message", "path"),
    [
        ("FileNotFoundError: [Errno 2] No such file or directory: 'README.md'", "README.md"),
        ("OSError: Readme file does not exist: README.md", "README.md"),
        ("OSError: License file does not exist: LICENSES/MIT.txt", "LICENSES/MIT.txt"),
        ("ConfigError: Description file docs/intro.rst does not exist", "docs/intro.rst"),
        ("FileNotFoundError: Readme path `/p/README.md` does not exist.", "/p/README.md"),
        ("ValueError: invalid version", None),
    ],
)
def test_missing_file_named_in_message(message, path):
    assert missing_file(message) == path


def test_pip_diagnostic_cross_is_not_a_failed_test():
    analysis = analyze_text(
        "\n".join(
            [
                "error: subprocess-exited-with-error",
                "",
                "× Getting requirements to build wheel did not run successfully.",
                "│ exit code: 1",
                "╰─> See above for output.",
                "",
                "note: This error originates from a subprocess, and is likely not a problem with pip.",
            ]
        )
    )
    assert all(e.category != "test_failure" for e in analysis.errors)


# --- 5. Python version outside the project's range -----------------------------------------

PY_RANGE_LOGS = [
    "ERROR: Package 'newpy' requires a different Python: 3.11.7 not in '>=3.12'",
    "error: The requested interpreter resolved to Python 3.11.7, which is incompatible with the project's"
    " Python requirement: `>=3.12` (from `project.requires-python`)",
    "The current project's supported Python range (>=3.12) is not compatible with some of the required"
    " packages Python requirement:",
    "Current Python version (3.11.7) is not allowed by the project (>=3.12).",
]


@pytest.mark.parametrize("line", PY_RANGE_LOGS)
def test_python_range_is_configuration_in_pyproject(line):
    error, analysis = root_of("Processing ./.", line)
    assert (error.category, error.file, error.line) == ("configuration", "pyproject.toml", None)
    assert analysis.category == "configuration"


@pytest.mark.parametrize(
    ("files", "file", "line"),
    [
        (
            {"pyproject.toml": '[project]\nname = "newpy"\nversion = "1"\nrequires-python = ">=3.12"\n'},
            "pyproject.toml",
            4,
        ),
        (
            {
                "pyproject.toml": '[build-system]\nrequires = ["setuptools"]\n',
                "setup.cfg": "[metadata]\nname = newpy\n\n[options]\npython_requires = >=3.12\n",
            },
            "setup.cfg",
            5,
        ),
        (
            {
                "setup.py": 'from setuptools import setup\n\nsetup(\n    name="newpy",\n'
                '    python_requires=">=3.12",\n)\n'
            },
            "setup.py",
            5,
        ),
        (
            {
                "pyproject.toml": '[tool.poetry]\nname = "newpy"\n\n'
                '[tool.poetry.dependencies]\npython = ">=3.12"\n'
            },
            "pyproject.toml",
            5,
        ),
    ],
)
@pytest.mark.parametrize("log_line", [PY_RANGE_LOGS[0], PY_RANGE_LOGS[1]])
def test_python_range_located_at_declaring_line(tmp_path, files, file, line, log_line):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    _, analysis = root_of("Processing ./.", log_line)
    locate_in_project(analysis.errors, WorkspaceFiles(tmp_path))
    error = analysis.errors[0]
    assert (error.category, error.file, error.line) == ("configuration", file, line)


def test_poetry_activated_python_warning_alone_is_not_the_root():
    _, analysis = root_of(
        "The currently activated Python version 3.11.7 is not supported by the project (>=3.12).",
        "Trying to find and use a compatible version.",
        "Using python3.12 (3.12.1)",
        "ERROR: Could not find a version that satisfies the requirement nosuchpkg==9 (from versions: none)",
    )
    assert analysis.errors[0].category == "library_unavailable"
