"""javac, Gradle and Maven parsers on the shapes their tools print."""

from buildfixer.logs.parsers import gradle, javac, maven


def test_javac_error_with_caret_and_details():
    lines = [
        "/p/src/main/java/demo/App.java:8: error: cannot find symbol",
        '        String s = undefinedVar + "x";',
        "                   ^",
        "  symbol:   variable undefinedVar",
        "  location: class App",
        "/p/src/main/java/demo/App.java:9: warning: [rawtypes] found raw type: List",
        "1 error",
    ]
    errors = javac.parse(lines)
    assert len(errors) == 1
    error = errors[0]
    assert (error.file, error.line, error.column, error.tool) == (
        "/p/src/main/java/demo/App.java",
        8,
        20,
        "javac",
    )
    assert error.message == "cannot find symbol (symbol: variable undefinedVar; location: class App)"
    assert (error.category, error.log_line, error.specificity) == ("syntax", 0, 10)


def test_javac_header_glued_to_gradle4_task_name():
    errors = javac.parse([":app:compileJava/p/App.java:6: error: ';' expected", "  foo()", "       ^"])
    assert [(e.file, e.line) for e in errors] == [("/p/App.java", 6)]


def test_javac_windows_path():
    errors = javac.parse(["C:\\work\\app\\src\\App.java:3: error: package org.x does not exist"])
    assert errors[0].file == "C:\\work\\app\\src\\App.java"
    assert errors[0].category == "library_unavailable"


def test_maven_compiler_format_with_prefixed_details():
    lines = [
        "[ERROR] /p/src/main/java/demo/App.java:[9,46] cannot find symbol",
        "[ERROR]   symbol:   variable Locale",
        "[ERROR]   location: class demo.App",
        "[WARNING] /p/src/main/java/demo/B.java:[3,1] [deprecation] old() in A has been deprecated",
    ]
    (error,) = javac.parse(lines)
    assert (error.line, error.column) == (9, 46)
    assert error.message == "cannot find symbol (symbol: variable Locale; location: class demo.App)"


def test_javac_global_errors():
    errors = javac.parse(
        ["error: invalid source release: 21", "javac: invalid target release: 1.9", "error: x"]
    )
    assert [e.message for e in errors] == ["invalid source release: 21", "invalid target release: 1.9"]
    assert {e.category for e in errors} == {"configuration"}


def test_gradle_what_went_wrong_with_where():
    lines = [
        "* Where:",
        "Build file '/p/app/build.gradle' line: 12",
        "",
        "* What went wrong:",
        "A problem occurred evaluating project ':app'.",
        "> Could not get unknown property 'compileSdkVersin' for extension 'android'.",
        "",
        "* Try:",
    ]
    (error,) = gradle.parse(lines)
    assert (error.file, error.line, error.tool, error.category) == (
        "/p/app/build.gradle",
        12,
        "gradle",
        "configuration",
    )
    assert "Could not get unknown property 'compileSdkVersin'" in error.message
    assert error.log_line == 4


def test_gradle_compilation_failed_is_a_low_specificity_summary():
    lines = [
        "* What went wrong:",
        "Execution failed for task ':app:compileDebugJavaWithJavac'.",
        "> Compilation failed; see the compiler error output for details.",
        "",
        "* Try:",
    ]
    (error,) = gradle.parse(lines)
    assert error.specificity == 1
    assert ":app:compileDebugJavaWithJavac" in error.message


def test_gradle_one_error_per_missing_artifact():
    lines = [
        "* What went wrong:",
        "Could not resolve all files for configuration ':app:debugCompileClasspath'.",
        "> Could not find com.x:y:1.0.",
        "  Searched in the following locations:",
        "    - https://repo.maven.apache.org/maven2/com/x/y/1.0/y-1.0.pom",
        "  Required by:",
        "      project :app",
        "> Could not find org.z:w:2.0.",
        "",
        "* Try:",
    ]
    errors = gradle.parse(lines)
    assert [e.message.split(" (")[0] for e in errors] == [
        "Could not find com.x:y:1.0.",
        "Could not find org.z:w:2.0.",
    ]
    assert "project :app" in errors[0].message and "https://" not in errors[0].message
    assert all(e.category == "library_unavailable" and e.specificity == 8 for e in errors)


def test_gradle_groovy_script_syntax_error_position():
    lines = [
        "* What went wrong:",
        "Could not compile build file '/p/build.gradle'.",
        "> startup failed:",
        "  build file '/p/build.gradle': 7: unexpected token: } @ line 7, column 1.",
        "     }",
        "     ^",
        "  1 error",
        "",
        "* Try:",
    ]
    (error,) = gradle.parse(lines)
    assert (error.file, error.line, error.column, error.category) == (
        "/p/build.gradle",
        7,
        1,
        "configuration",
    )


def test_gradle_truncated_log_falls_back_to_failed_task():
    errors = gradle.parse(["> Task :app:mergeDebugResources FAILED", "[stderr] something"])
    assert [e.message for e in errors] == ["Task :app:mergeDebugResources FAILED"]
    assert gradle.parse(["BUILD FAILED in 3s"])[0].specificity == 0
    assert gradle.parse(["BUILD SUCCESSFUL in 3s"]) == []


def test_maven_goal_failures():
    lines = [
        "[ERROR] Failed to execute goal on project app: Could not resolve dependencies for project "
        "a:app:jar:1: Could not find artifact g:missing:jar:4.5 in central "
        "(https://repo.maven.apache.org/maven2) -> [Help 1]",
    ]
    (error,) = maven.parse(lines)
    assert error.category == "library_unavailable" and error.specificity == 8
    assert "-> [Help" not in error.message and "g:missing:jar:4.5" in error.message


def test_maven_fatal_error_compiling_is_a_javac_configuration_error():
    (error,) = maven.parse(
        [
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile "
            "(default-compile) on project x: Fatal error compiling: error: invalid target release: 21 "
            "-> [Help 1]"
        ]
    )
    assert (error.tool, error.category) == ("javac", "configuration")
    assert error.message.startswith("invalid target release: 21")


def test_maven_leaves_located_compiler_errors_to_javac():
    lines = [
        "[ERROR] COMPILATION ERROR : ",
        "[INFO] -------------------------------------------------------------",
        "[ERROR] /p/App.java:[11,33] ';' expected",
        "[INFO] 1 error",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.1:compile "
        "(default-compile) on project m1: Compilation failure",
        "[ERROR] /p/App.java:[11,33] ';' expected",
        "[ERROR] ",
        "[ERROR] -> [Help 1]",
        "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.",
    ]
    errors = maven.parse(lines)
    assert [(e.specificity, e.category) for e in errors] == [(1, "syntax")]


def test_maven_test_summary_without_per_test_report():
    lines = [
        "[ERROR] Failures: ",
        "[ERROR]   CalcTest.adds:5 expected:<5> but was:<-1>",
        "[ERROR] Errors: ",
        "[ERROR]   CalcTest.boom:9 » IllegalState boom",
        "[ERROR] Tests run: 2, Failures: 1, Errors: 1, Skipped: 0",
    ]
    errors = maven.parse(lines)
    specific = [e for e in errors if e.specificity > 2]
    assert [(e.file, e.line) for e in specific] == [("CalcTest.java", 5), ("CalcTest.java", 9)]
    assert all(e.category == "test_failure" for e in errors)


def test_parsers_ignore_unrelated_text():
    noise = ["hello", "", "[INFO] BUILD SUCCESS", "error: something from another tool", "> Task :a:b"]
    for module in (javac, gradle, maven):
        assert module.parse(noise) == []
