"""The kinds the third round added: by kind, on messages in each tool's words, not on one log."""

import pytest

from buildfixer.logs.analyze import analyze_text
from buildfixer.logs.named_path import named_path
from buildfixer.logs.parsers.pytrace import exception_category
from buildfixer.logs.taxonomy import classify, toolchain_missing


@pytest.mark.parametrize(
    "message",
    [
        "error: can't find Rust compiler",
        "Cargo, the Rust package manager, is not installed or is not on PATH.",
        "error: linker `cc` not found",
        "unable to execute 'gcc': No such file or directory",
        "error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory",
        "CMake must be installed to build the following extensions: _pyarrow",
        "No CMAKE_CXX_COMPILER could be found.",
        "gyp ERR! find Python Python is not set from command line or npm configuration",
        "gyp ERR! stack Error: not found: make",
        "configure: error: no acceptable C compiler found in $PATH",
        "xcrun: error: invalid active developer path (/Library/Developer/CommandLineTools)",
        "Could not find `protoc` installation and this build crate cannot proceed without this knowledge.",
        "../meson.build:1:0: ERROR: Unknown compiler(s): [['cc'], ['gcc'], ['clang']]",
        "error: package `ruff v0.5.0` cannot be built because it requires rustc 1.74 or newer",
    ],
)
def test_a_missing_toolchain_of_any_backend_is_configuration(message: str):
    assert toolchain_missing(message)
    assert classify(message) == "configuration"


@pytest.mark.parametrize(
    "message",
    [
        "error: externally-managed-environment",
        "error: The interpreter at /usr is externally managed, and indicates the following:",
        "ERROR: Can not perform a '--user' install. User site-packages are not visible in this virtualenv.",
        "npm ERR! Error: EACCES: permission denied, mkdir '/usr/lib/node_modules/x'",
        'error ws@8.0.0: The engine "node" is incompatible with this module. Expected version ">=10".',
        "Configuration cache problems found in this build.",
        "invocation of 'Task.project' at execution time is unsupported.",
        "Task ':app:gen' is not compatible with the configuration cache",
        "Could not load entry 3f2a from remote build cache",
        "Process 'command 'node'' finished with non-zero exit value 137",
    ],
)
def test_environment_refusals_and_caches_are_configuration(message: str):
    assert classify(message) == "configuration"


def test_a_message_that_only_mentions_a_tool_is_not_a_missing_toolchain():
    assert not toolchain_missing("src/rust_bridge.c:3:1: error: expected ';' before 'int'")
    assert not toolchain_missing("Compiling with cmake 3.28 and gcc 13")


@pytest.mark.parametrize(
    "exc_type,message,category",
    [
        ("ImportError", "cannot import name 'A' from partially initialized module 'x.y' (most likely due "
         "to a circular import) (/src/x/y.py)", "syntax"),
        ("AttributeError", "partially initialized module 'random' has no attribute 'randint' (most likely "
         "due to a circular import)", "syntax"),
        ("ImportError", "cannot import name 'helper' from 'app.utils' (/home/u/proj/app/utils.py)", "syntax"),
        ("ImportError", "cannot import name 'soft_unicode' from 'markupsafe' "
         "(/venv/lib/python3.11/site-packages/markupsafe/__init__.py)", "library_unavailable"),
        ("ModuleNotFoundError", "No module named 'requests'", "library_unavailable"),
        ("ModuleNotFoundError", "No module named 'src'", "configuration"),
    ],
)  # fmt: skip
def test_an_import_error_is_told_apart_by_the_traces_own_words(exc_type: str, message: str, category: str):
    assert exception_category(exc_type, message) == category


@pytest.mark.parametrize(
    "message,found",
    [
        ("ENOENT: no such file or directory, open '/app/src/config.json'", ("/app/src/config.json", None)),
        ("Could not read script '/w/gradle/ci.gradle' as it does not exist.", ("/w/gradle/ci.gradle", None)),
        ("Build file 'app/build.gradle': line 23: external process started", ("app/build.gradle", 23)),
        ("Module parse failed: /home/u/a.ts Unexpected token (7:14)", ("/home/u/a.ts", 7)),
        ("unable to read C:\\proj\\res\\values.xml:12: bad value", ("C:\\proj\\res\\values.xml", 12)),
        ("See https://docs.gradle.org/8.5/userguide/upgrading.html for details", None),
        ("Directory '/usr/lib/jvm/java-17' does not exist", None),
        ("Could not find com.acme:core:1.0.", None),
        ("pnpm-lock.yaml is not up to date with <ROOT>/package.json", None),
        ("Transform failed with 1 error: src/index.ts:1:17: ERROR: Unexpected", ("src/index.ts", 1)),
        ("see https://example.org/docs/a.js:12 for details", None),
    ],
)
def test_a_path_named_in_prose(message: str, found):
    assert named_path(message) == found


def test_an_unclassified_failure_names_the_failed_step_and_the_first_error_line():
    log = "\n".join(
        [
            "  Building wheel for weirdpkg (pyproject.toml) ... error",
            "  error: subprocess-exited-with-error",
            "",
            "  × Building wheel for weirdpkg (pyproject.toml) did not run successfully.",
            "  │ exit code: 1",
            "  ╰─> [2 lines of output]",
            "      running bdist_wheel",
            "      frobnicator: the widget could not be folded",
            "      [end of output]",
        ]
    )
    analysis = analyze_text(log)
    assert analysis.category == "other"
    assert analysis.root.message.startswith("Building wheel for weirdpkg (pyproject.toml): ")
    assert "widget could not be folded" in analysis.root.message


@pytest.mark.parametrize(
    "message",
    [
        " ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with \"frozen-lockfile\" because pnpm-lock.yaml is not",
        "specifiers in the lockfile ({\"a\":\"1.0.0\"}) do not match specifiers in package.json",
        "npm ERR! `npm ci` can only install packages when your package.json and package-lock.json"
        " are in sync",
        "error Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`.",
    ],
)
def test_a_lockfile_out_of_step_with_the_declared_dependencies_is_a_dependency_problem(message: str):
    assert classify(message) == "library_unavailable"


def test_a_class_file_of_the_wrong_version_is_the_jdk_setup_not_the_code():
    log = "\n".join(
        [
            "[ERROR] /w/app/src/main/java/a/Util.java:[18,24] cannot access javax.lang.model.SourceVersion",
            "  bad class file: /modules/java.compiler/javax/lang/model/SourceVersion.class",
            "    class file has wrong version 61.0, should be 53.0",
            "[INFO] BUILD FAILURE",
        ]
    )
    analysis = analyze_text(log)
    assert analysis.category == "configuration"
    assert (analysis.root.file, analysis.root.line) == ("/w/app/src/main/java/a/Util.java", 18)
