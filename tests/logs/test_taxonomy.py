import pytest

from buildfixer.core.build_result import CATEGORIES
from buildfixer.logs.taxonomy import classify


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ("cannot find symbol (symbol: variable x; location: class App)", "syntax"),
        ("';' expected", "syntax"),
        ("incompatible types: String cannot be converted to int", "syntax"),
        ("method foo in class App cannot be applied to given types;", "syntax"),
        ("class, interface, enum, or record expected", "syntax"),
        ("Unresolved reference: foo", "syntax"),
        ("Could not find com.foo:bar:1.2.", "library_unavailable"),
        (
            "Could not resolve all files for configuration ':app:debugCompileClasspath'.",
            "library_unavailable",
        ),
        ("Could not resolve all dependencies for configuration ':classpath'.", "library_unavailable"),
        (
            "Plugin [id: 'com.android.application', version: '8.1.0'] was not found in any of the "
            "following sources:",
            "library_unavailable",
        ),
        ("package org.apache.commons.lang3 does not exist", "library_unavailable"),
        (
            "Could not find artifact com.x:y:jar:1.0 in central (https://repo.maven.apache.org/maven2)",
            "library_unavailable",
        ),
        ("Non-resolvable parent POM for a:b:1: Could not find artifact c:d:pom:9", "library_unavailable"),
        ("ModuleNotFoundError: No module named 'requests'", "library_unavailable"),
        ("File not found: /p/app/google-services.json", "resource_missing"),
        ("/p/keystore.properties (No such file or directory)", "resource_missing"),
        ("Could not read script '/p/gradle/common.gradle' as it does not exist.", "resource_missing"),
        ("invalid source release: 21", "configuration"),
        ("CompilerException: warning: source release 21 requires target release 21", "configuration"),
        ("Java compiler is not available. Check that /opt/jdk-17 is a full JDK.", "configuration"),
        ("Main class name has not been configured and it could not be resolved", "configuration"),
        ("error: Microsoft Visual C++ 14.0 or greater is required.", "configuration"),
        ("gyp ERR! stack Error: Could not find any Visual Studio installation to use", "configuration"),
        ("Error: error:0308010C:digital envelope routines::unsupported", "configuration"),
        (
            "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            "configuration",
        ),
        (
            "Could not transfer artifact org.acme:util:pom:1.0 from/to central: Connection timed out",
            "library_unavailable",
        ),
        ("Module not found: Error: Can't resolve 'left-pad' in '/w/src'", "library_unavailable"),
        ("Module not found: Error: Can't resolve './missing' in '/w/src'", "resource_missing"),
        ('Rollup failed to resolve import "chartkit" from "/w/src/a.ts"', "library_unavailable"),
        ('Rollup failed to resolve import "../b.vue" from "/w/src/a.ts"', "resource_missing"),
        ("Property 'total' does not exist on type '{}'.", "syntax"),
        ("release version 21 not supported", "configuration"),
        ("Unsupported class file major version 65", "configuration"),
        (
            "SDK location not found. Define a valid SDK location with an ANDROID_HOME environment variable",
            "configuration",
        ),
        ("Directory '/opt/proto/src' specified for property 'protoDir' does not exist.", "configuration"),
        ("Android Gradle plugin requires Java 17 to run. You are currently using Java 11.", "configuration"),
        ("Minimum supported Gradle version is 8.0. Current version is 7.5.", "configuration"),
        (
            "A problem occurred evaluating project ':app'. > Could not get unknown property 'x'",
            "configuration",
        ),
        ("Could not find method implementation() for arguments [x:y:1]", "configuration"),
        (
            "No matching variant of com.android.tools.build:gradle:8.1.0 was found. "
            "The consumer was configured "
            "to find a library compatible with Java 11",
            "configuration",
        ),
        ("There were failing tests. See the report at: file:///p/index.html", "test_failure"),
        ("Tests run: 3, Failures: 1, Errors: 0, Skipped: 0", "test_failure"),
        ("[CXX1101] NDK at /sdk/ndk/21.4 did not have a source.properties file", "ndk"),
        ("ninja: build stopped: subcommand failed.", "ndk"),
        ("Something odd happened", "other"),
    ],
)
def test_classify(message, category):
    assert classify(message) == category


def test_tool_decides_only_when_no_phrase_does():
    assert classify("some new compiler diagnostic", "javac") == "syntax"
    assert classify("some new failure", "pytest") == "test_failure"
    assert classify("Could not find com.x:y:1.0", "javac") == "library_unavailable"
    assert classify("whatever", "unknown-tool") == "other"


def test_tests_run_without_failures_is_not_a_test_failure():
    assert classify("Tests run: 3, Failures: 0, Errors: 0, Skipped: 0") == "other"


def test_always_a_known_category():
    for text in ["", "x" * 100_000, "\x00\ufffd"]:
        assert classify(text) in CATEGORIES
