import time

import pytest

from buildfixer.logs.parsers.android import parse


def one(*lines: str):
    errors = parse(list(lines))
    assert len(errors) == 1, errors
    return errors[0]


def test_aapt_resource_not_found():
    error = one(
        "ERROR: /p/app/src/main/res/layout/main.xml:12: AAPT: error: resource color/foo "
        "(aka com.x:color/foo) not found."
    )
    assert (error.tool, error.category, error.file, error.line) == (
        "aapt",
        "resource_missing",
        "/p/app/src/main/res/layout/main.xml",
        12,
    )
    assert error.message.startswith("resource color/foo")
    assert error.specificity >= 9


def test_aapt_windows_path_without_space_after_error():
    error = one(
        "ERROR:C:\\a b\\res\\values\\values.xml:5:5-30: AAPT: error: resource android:attr/lStar not found."
    )
    assert error.file == "C:\\a b\\res\\values\\values.xml"
    assert (error.line, error.column) == (5, 5)
    assert error.category == "configuration"  # platform attribute missing: compileSdk too low


def test_attribute_not_found_without_location():
    error = one("error: attribute android:foo not found.")
    assert error.tool == "aapt"


def test_manifest_merger_with_message_on_next_line():
    errors = parse(
        [
            "/p/app/src/main/AndroidManifest.xml:12:9-40 Error:",
            "\tAttribute application@appComponentFactory value=(a) from [x] is also present at [y] "
            "value=(b).",
            "\tSuggestion: add 'tools:replace=\"android:appComponentFactory\"' to <application> element.",
            "",
        ]
    )
    assert len(errors) == 1
    error = errors[0]
    assert (error.tool, error.category, error.file, error.line, error.column) == (
        "manifest-merger",
        "configuration",
        "/p/app/src/main/AndroidManifest.xml",
        12,
        9,
    )
    assert "appComponentFactory" in error.message


def test_manifest_merger_failed_summary():
    error = one(
        "> Manifest merger failed : Apps targeting Android 12 and higher are required to specify an "
        "explicit value for `android:exported`"
    )
    assert error.category == "configuration"
    assert "android:exported" in error.message


@pytest.mark.parametrize(
    ("line", "tool", "category", "needle"),
    [
        (
            "ERROR:D8: Invoke-customs are only supported starting with Android O (--min-api 26)",
            "d8",
            "configuration",
            "Invoke-customs",
        ),
        (
            "Type com.x.Y is defined multiple times: /a/classes.dex, /b/classes.dex",
            "d8",
            "configuration",
            "defined multiple times",
        ),
        ("ERROR: R8: Missing class com.x.Y (referenced from: void a.b())", "r8", "configuration", "com.x.Y"),
        (
            "> File google-services.json is missing. The Google Services Plugin cannot function without it.",
            "agp",
            "resource_missing",
            "google-services.json",
        ),
        (
            "> SDK location not found. Define a valid SDK location with an ANDROID_HOME environment "
            "variable or by "
            "setting the sdk.dir path in your project's local properties file",
            "agp",
            "configuration",
            "sdk.dir",
        ),
        (
            "   > Minimum supported Gradle version is 8.0. Current version is 7.5.",
            "agp",
            "configuration",
            "Current version is 7.5.",
        ),
        (
            "   > Android Gradle plugin requires Java 17 to run. You are currently using Java 11.",
            "agp",
            "configuration",
            "Java 17",
        ),
        (
            "> Failed to install the following Android SDK packages as some licences have not been accepted.",
            "agp",
            "configuration",
            "licences",
        ),
        (
            "   > Namespace not specified. Specify a namespace in the module's build file: "
            "/p/app/build.gradle. See x",
            "agp",
            "configuration",
            "Namespace",
        ),
        ("> Lint found errors in the project; aborting build.", "agp", "other", "Lint"),
        ("> NDK not configured. Download it with SDK manager.", "ndk", "ndk", "NDK"),
        (
            "> No version of NDK matched the requested version 21.0.6113669. Versions available "
            "locally: 25.1",
            "ndk",
            "ndk",
            "21.0.6113669",
        ),
        ("[CXX1101] NDK at /sdk/ndk/21 did not have a source.properties file", "ndk", "ndk", "CXX1101"),
        (
            "e: [kapt] An exception occurred: java.lang.IllegalAccessError: superclass access check failed",
            "kapt",
            "configuration",
            "IllegalAccessError",
        ),
        (
            "This version of the Android Support plugin for IntelliJ IDEA (or Android Studio) "
            "cannot open this "
            "project, please retry with version 2022.3 or newer.",
            "agp",
            "configuration",
            "cannot open",
        ),
    ],
)
def test_tool_errors(line, tool, category, needle):
    error = one(line)
    assert (error.tool, error.category) == (tool, category)
    assert needle in error.message


def test_namespace_names_build_file():
    error = one(
        "Namespace not specified. Specify a namespace in the module's build file: /p/my "
        "app/build.gradle.kts. "
        "See https://d.android.com/r/tools/upgrade-assistant/set-namespace"
    )
    assert error.file == "/p/my app/build.gradle.kts"


def test_minimum_gradle_names_wrapper_file():
    error = one(
        "> Minimum supported Gradle version is 8.0. Current version is 7.5. If using the gradle wrapper, try "
        "editing the distributionUrl in /p/gradle/wrapper/gradle-wrapper.properties to gradle-8.0-all.zip"
    )
    assert error.file == "/p/gradle/wrapper/gradle-wrapper.properties"


def test_kapt_dagger_error():
    error = one(
        "e: /p/build/tmp/kapt3/stubs/debug/com/x/AppComponent.java:8: error: [Dagger/MissingBinding] "
        "com.x.Dao cannot be provided without an @Provides-annotated method."
    )
    assert (error.tool, error.category, error.line) == ("kapt", "syntax", 8)
    assert error.file.endswith("AppComponent.java")


def test_ksp_error_with_location():
    error = one("e: [ksp] /p/app/src/main/java/com/x/NoteDao.kt:21: There is a problem with the query")
    assert (error.tool, error.file, error.line) == ("ksp", "/p/app/src/main/java/com/x/NoteDao.kt", 21)


def test_check_aar_metadata_wrapped_paragraph():
    errors = parse(
        [
            "   > 1 issue was found when checking AAR metadata:",
            "     ",
            "       1.  Dependency 'androidx.core:core:1.13.0' requires libraries and applications that",
            "           depend on it to compile against version 34 or later of the",
            "           Android APIs.",
            "     ",
            "           :app is currently compiled against android-33.",
        ]
    )
    assert len(errors) == 1
    assert errors[0].message == (
        "Dependency 'androidx.core:core:1.13.0' requires libraries and applications that "
        "depend on it to compile against version 34 or later of the Android APIs."
    )
    assert errors[0].category == "configuration"


def test_agpbi_json_message():
    error = one(
        'AGPBI: {"kind":"error","text":"Invoke-customs are only supported starting with Android O '
        '(--min-api 26)","sources":[{}],"tool":"D8"}'
    )
    assert (error.tool, error.category) == ("d8", "configuration")


def test_native_error_in_ndk_build():
    errors = parse(
        [
            "> Task :app:buildCMakeDebug[arm64-v8a] FAILED",
            "C/C++: /p/app/src/main/cpp/native-lib.cpp:12:5: error: use of undeclared identifier 'foo'",
        ]
    )
    assert len(errors) == 1
    assert (errors[0].tool, errors[0].category, errors[0].file, errors[0].line, errors[0].column) == (
        "ndk",
        "ndk",
        "/p/app/src/main/cpp/native-lib.cpp",
        12,
        5,
    )


def test_native_error_outside_android_is_not_ndk():
    assert parse(["src/ext.c:3:10: fatal error: Python.h: No such file or directory"]) == []


def test_cmake_error_with_location():
    errors = parse(
        [
            "C/C++: CMake Error at CMakeLists.txt:12 (add_library):",
            "  Cannot find source file:",
            "",
            "externalNativeBuild",
        ]
    )
    assert errors[0].file == "CMakeLists.txt"
    assert errors[0].line == 12
    assert "Cannot find source file" in errors[0].message


def test_warnings_are_not_errors():
    assert (
        parse(
            [
                "WARNING: R8: Missing class javax.annotation.Nullable (referenced from: "
                "okhttp3.internal.Util)",
                "w: [ksp] Schema export directory was not provided",
                "warning: unused variable [-Wunused-variable]",
                "WARNING:API 'variant.getJavaCompile()' is obsolete",
            ]
        )
        == []
    )


def test_successful_build_has_no_errors():
    assert (
        parse(
            [
                "> Task :app:processDebugResources",
                "> Task :app:mergeDexDebug",
                "BUILD SUCCESSFUL in 41s",
                "42 actionable tasks: 42 executed",
            ]
        )
        == []
    )


def test_repeated_error_reported_once():
    line = "ERROR: /p/res/layout/a.xml:3: AAPT: error: resource string/x (aka a:string/x) not found."
    assert len(parse([line, "     " + line])) == 1


def test_large_log_is_fast():
    lines = [
        "> Task :app:compileDebugKotlin",
        "AndroidManifest.xml merged",
        "x" * 400,
        "ERROR:D8" + "a" * 50,
        "12:34:56 D8: info",
    ] * 50_000
    start = time.perf_counter()
    parse(lines)
    assert time.perf_counter() - start < 15  # linear: about 4 s alone; quadratic would take minutes
