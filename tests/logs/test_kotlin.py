import time

import pytest

from buildfixer.logs.parsers.kotlin import parse


def one(*lines: str):
    errors = parse(list(lines))
    assert len(errors) == 1, errors
    return errors[0]


@pytest.mark.parametrize(
    ("line", "file", "row", "col", "message"),
    [
        (
            "e: file:///home/u/app/src/Main.kt:12:5 Unresolved reference: foo",
            "/home/u/app/src/Main.kt",
            12,
            5,
            "Unresolved reference: foo",
        ),
        (
            "e: /abs/My Project/File.kt: (12, 5): Type mismatch: inferred type is String but Int "
            "was expected",
            "/abs/My Project/File.kt",
            12,
            5,
            "Type mismatch: inferred type is String but Int was expected",
        ),
        (
            "e: C:\\work\\app\\File.kt: (3, 1): Expecting member declaration",
            "C:\\work\\app\\File.kt",
            3,
            1,
            "Expecting member declaration",
        ),
        (
            "e: file:///C:/work/My%20App/File.kt:7:2 Unresolved reference 'bar'.",
            "C:/work/My App/File.kt",
            7,
            2,
            "Unresolved reference 'bar'.",
        ),
        (
            "[ERROR] /p/src/main/kotlin/A.kt: (12, 5) Unresolved reference: foo",
            "/p/src/main/kotlin/A.kt",
            12,
            5,
            "Unresolved reference: foo",
        ),
        (
            "[ERROR] file:///p/src/main/kotlin/A.kt:12:5 Unresolved reference: foo",
            "/p/src/main/kotlin/A.kt",
            12,
            5,
            "Unresolved reference: foo",
        ),
        (
            "hello.kt:2:5: error: unresolved reference: printn",
            "hello.kt",
            2,
            5,
            "unresolved reference: printn",
        ),
    ],
)
def test_located_errors(line, file, row, col, message):
    error = one(line)
    assert (error.file, error.line, error.column, error.message) == (file, row, col, message)
    assert error.tool == "kotlinc"
    assert error.category == "syntax"
    assert error.specificity == 10
    assert error.log_line == 0


def test_directory_named_like_kotlin_file_does_not_cut_the_path():
    error = one("e: /x/lib.ktx/src/File.kt: (1, 2): Unresolved reference: a")
    assert error.file == "/x/lib.ktx/src/File.kt"


def test_warnings_are_ignored():
    assert (
        parse(
            [
                "w: file:///a/B.kt:1:1 Variable 'x' is never used",
                "[WARNING] /a/B.kt: (1, 1) Parameter 'y' is never used",
                "B.kt:3:3: warning: unused",
            ]
        )
        == []
    )


def test_successful_build_has_no_errors():
    assert parse(["> Task :app:compileDebugKotlin", "BUILD SUCCESSFUL in 3s", "12 actionable tasks"]) == []


def test_kts_errors_are_configuration():
    error = one("e: file:///p/app/build.gradle.kts:12:5: Unresolved reference: implementatio")
    assert error.category == "configuration"
    assert error.file == "/p/app/build.gradle.kts"
    assert error.line == 12


def test_script_compilation_block_without_e_lines():
    errors = parse(
        [
            "* Where:",
            "Build file '/p/app/build.gradle.kts' line: 9",
            "",
            "* What went wrong:",
            "Script compilation error:",
            "",
            '  Line 9:     implementatio("a:b:1")',
            "              ^ Unresolved reference: implementatio",
            "",
            "1 error",
        ]
    )
    assert len(errors) == 1
    assert errors[0].file == "/p/app/build.gradle.kts"
    assert errors[0].line == 9
    assert errors[0].category == "configuration"
    assert errors[0].message == "Unresolved reference: implementatio"


def test_metadata_version_is_configuration():
    error = one(
        "e: /c/kotlin-stdlib-1.9.0.jar!/META-INF/kotlin-stdlib.kotlin_module: Module was compiled with an "
        "incompatible version of Kotlin. The binary version of its metadata is 1.9.0, expected "
        "version is 1.7.1."
    )
    assert error.category == "configuration"
    assert error.file is None
    assert "expected version is 1.7.1" in error.message


def test_supertypes_unresolved_with_continuation():
    errors = parse(
        [
            "e: Supertypes of the following classes cannot be resolved. Please make sure you have "
            "the required "
            "dependencies in the classpath:",
            "    class com.x.MainActivity, unresolved supertypes: androidx.core.app.ComponentActivity",
            "",
        ]
    )
    assert errors[0].category == "library_unavailable"
    assert "ComponentActivity" in errors[0].message


def test_kapt_and_java_stub_lines_are_left_to_android_parser():
    assert (
        parse(
            [
                "e: [kapt] An exception occurred: java.lang.IllegalAccessError",
                "e: /p/build/tmp/kapt3/stubs/debug/A.java:8: error: [Dagger/MissingBinding] X",
            ]
        )
        == []
    )


def test_duplicates_are_dropped():
    line = "e: file:///a/B.kt:1:2 Unresolved reference: c"
    assert len(parse([line, line])) == 1


def test_large_log_is_fast():
    lines = ["> Task :app:compileDebugKotlin", "w: file:///a/B.kt:1:1 unused", "e: " + "x" * 300] * 70_000
    lines.append("e: file:///a/B.kt:1:2 Unresolved reference: c")
    start = time.perf_counter()
    parse(lines)
    assert time.perf_counter() - start < 15  # linear: about 4 s alone; quadratic would take minutes
