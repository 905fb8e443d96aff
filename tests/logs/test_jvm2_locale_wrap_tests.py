"""Locale-independent javac/kotlinc severities, console-wrapped rows, and JVM test-failure frames."""

import time

from buildfixer.logs.parsers import gradle, javac, jvmtest, kotlin, maven
from buildfixer.logs.text import clean_log
from buildfixer.logs.unwrap import unwrap

# --- javac in any locale ------------------------------------------------------------------


def test_javac_severity_word_in_any_language_is_an_error():
    for word in ("错误", "エラー", "Fehler", "erreur", "ошибка", "오류", "błąd", "error"):
        errors = javac.parse([f"/w/src/main/java/a/b/App.java:7: {word}: something is wrong"])
        assert [(e.file, e.line) for e in errors] == [("/w/src/main/java/a/b/App.java", 7)], word


def test_javac_warning_and_note_words_are_not_errors():
    for word in ("warning", "警告", "注", "Warnung", "Hinweis", "avertissement", "предупреждение", "경고"):
        assert javac.parse([f"/w/src/App.java:7: {word}: [deprecation] old() has been deprecated"]) == [], (
            word
        )


def test_javac_localized_detail_lines_are_kept_and_a_glued_header_cut_off():
    lines = [
        "D:\\w\\a\\App.java:3: 错误: 找不到符号",
        "import a.b.Missing;",
        "          ^",
        "  符号:   类 Missing",
        "  位置: 程序包 a.bD:\\w\\a\\Other.java:9: 错误: 找不到符号",
    ]
    errors = javac.parse(lines)
    assert errors[0].message == "找不到符号 (符号: 类 Missing; 位置: 程序包 a.b)"
    assert [(e.file, e.line) for e in errors] == [("D:\\w\\a\\App.java", 3), ("D:\\w\\a\\Other.java", 9)]


def test_maven_old_plugin_severity_prefix_is_stripped():
    errors = javac.parse(["[ERROR] /w/src/main/java/x/App.java:[4,1] error: ';' expected"])
    assert errors[0].message == "';' expected"


def test_missing_package_of_the_project_is_a_code_error():
    own = "/w/src/main/java/com/acme/shop/web/Cart.java:3: error: package com.acme.shop.util does not exist"
    sibling = "/w/dao/src/main/java/tally/dao/Repo.java:3: error: package tally.model does not exist"
    external = "/w/src/main/java/com/acme/shop/web/Cart.java:4: error: package com.google.gson does not exist"
    android = "/w/android/app/src/main/java/com/acme/Main.java:5: error: package android.text does not exist"
    categories = [javac.parse([line])[0].category for line in (own, sibling, external, android)]
    assert categories == ["syntax", "syntax", "library_unavailable", "library_unavailable"]


def test_missing_package_in_chinese_is_read_too():
    line = "[ERROR] /w/src/main/java/tally/dao/Repo.java:[5,20] 程序包org.joda.time不存在"
    assert javac.parse([line])[0].category == "library_unavailable"


def test_kotlinc_cli_severity_in_any_language():
    lines = [
        "src/Main.kt:3:5: warning: parameter 'x' is never used",
        "src/Main.kt:4:1: Fehler: unresolved reference: y",
    ]
    errors = kotlin.parse(lines)
    assert [(e.file, e.line, e.message) for e in errors] == [("src/Main.kt", 4, "unresolved reference: y")]


# --- console-wrapped rows -----------------------------------------------------------------

_ROW = "[ERROR] C:\\build\\workspace\\harbour-app\\src\\main\\java\\org\\harbour\\docks\\cranes\\Cr"


def test_a_path_cut_at_the_console_width_is_joined():
    assert len(_ROW) == 80
    lines = clean_log(f"[INFO] x\n{_ROW}\nane.java:[12,8] cannot find symbol\n[INFO] 1 error\n")
    assert lines.lines[1].endswith("\\cranes\\Crane.java:[12,8] cannot find symbol")
    assert lines.lines[2] == "[INFO] 1 error"
    assert lines.raw_index == [0, 1, 3]


def test_a_message_wrapped_on_after_the_path_is_joined_too():
    first = "[ERROR] /build/harbours/src/main/java/org/harbour/docks/cranes/heavy/lifting/Cra"
    second = "ne.java:[12,8] error: package org.harbour.docks.cranes.heavy.lifting.rigging.win"
    assert len(first) == len(second) == 80
    lines = clean_log(f"{first}\n{second}\nches does not exist\n[INFO] 1 error\n").lines
    assert lines[0].endswith("rigging.winches does not exist")
    assert lines[1] == "[INFO] 1 error"


def test_ordinary_lines_are_not_joined():
    wide = "x" * 71 + " /a/b/cd"
    assert len(wide) == 79
    texts = [
        f"{wide}\n/a/b/Cd.java:3: error: x\n",  # the next row starts a path of its own
        f"{wide}\n    Cd.java:3: error: x\n",  # indented
        f"{wide}\n[ERROR] Cd.java:[3,1] x\n",  # a tagged record
        f"{wide[:-1]}\nCd.java:3: error: x\n",  # not at a console width
        f"{'x' * 72} /a/b/c\nplain words after it\n",  # nothing completed
        f"{'x' * 66} /a/b/C.java:12\nmore.java:3: here\n",  # the row already had its position
    ]
    for text in texts:
        assert len(clean_log(text).lines) == 2, text


def test_a_compilers_source_echo_is_not_the_end_of_a_cut_word():
    # javac prints the source line below a long error row that ends in a letter ("does not exist").
    path = "/work/scratch/protocol31/hamcrest/hamcrest-core/src/test/java/org/hamcrest/BaseMatcherTest.java"
    for echo in ("import org.junit.Test;", "import static org.junit.Assert.assertEquals;", "new Foo() {"):
        text = f"{path}:3: error: package org.junit does not exist\n{echo}\n                ^\n"
        (error,) = [e for e in javac.parse(clean_log(text).lines) if e.line == 3]
        assert error.message == "package org.junit does not exist", echo
    # A row cut inside a word is still joined.
    cut = "ERROR:/a/res/values/values.xml:105:5-114:25: AAPT: error: resource android:attr/" + "x" * 30
    assert len(clean_log(f"{cut}\nce android:attr/lStar not found.\n").lines[0]) > len(cut)


def test_a_test_failure_message_on_the_lines_below_the_exception_is_kept():
    # AssertJ and JUnit 5 put the message below the exception's name; Surefire and a bare trace alike.
    body = (
        "org.opentest4j.AssertionFailedError: \n\nexpected: 0\n but was: -1\n"
        "\tat demo.UtilsTest.marksNull(UtilsTest.java:33)\n"
    )
    surefire = "[ERROR] demo.UtilsTest.marksNull -- Time elapsed: 0.024 s <<< FAILURE!\n" + body + "\n"
    (error,) = maven.parse(clean_log(surefire).lines)
    assert error.message.endswith("AssertionFailedError: expected: 0 but was: -1"), error.message
    assert not jvmtest.parse(clean_log(surefire).lines)  # the report above names it: no second error
    (bare,) = jvmtest.parse(clean_log("> Task :test\n" + body).lines)
    assert bare.message == "UtilsTest failed: org.opentest4j.AssertionFailedError: expected: 0 but was: -1"
    assert (bare.file, bare.line) == ("demo/UtilsTest.java", 33)


def test_unwrap_is_linear_on_long_rows():
    body = "\n" + ("a." * 200_000 + "\n") * 20
    start = time.perf_counter()
    assert unwrap(body, "\x00") == body
    assert time.perf_counter() - start < 2


# --- failed tests located at the test class's frame ----------------------------------------


def test_test_frame_prefers_the_named_class_and_skips_frameworks():
    trace = [
        "java.lang.AssertionError: boom",
        "\tat org.junit.Assert.fail(Assert.java:89)",
        "\tat org.assertj.core.api.AbstractAssert.isEqualTo(AbstractAssert.java:10)",
        "\tat com.acme.BaseTest.check(BaseTest.java:20)",
        "\tat com.acme.CartTest.adds(CartTest.java:33)",
    ]
    assert jvmtest.test_frame(trace, "com.acme.CartTest") == jvmtest.Frame(
        "com.acme.CartTest", "CartTest.java", 33
    )
    assert jvmtest.test_frame(trace) == jvmtest.Frame("com.acme.BaseTest", "BaseTest.java", 20)
    assert jvmtest.test_frame(trace[:3]) is None


def test_java_spec_classes_are_not_taken_for_tests():
    frame = jvmtest.parse_frame("\tat com.acme.repo.UserSpecification.toPredicate(UserSpecification.java:40)")
    assert frame is not None and not jvmtest.is_test_frame(frame)
    spock = jvmtest.parse_frame("\tat com.acme.CartSpec.adds two items(CartSpec.groovy:12)")
    assert spock == jvmtest.Frame("com.acme.CartSpec", "CartSpec.groovy", 12) and jvmtest.is_test_frame(spock)


def test_trace_after_a_named_test_is_left_to_its_reporter():
    lines = [
        "com.acme.CartTest > adds FAILED",
        "    java.lang.AssertionError: boom",
        "        at com.acme.CartTest.adds(CartTest.java:33)",
    ]
    assert jvmtest.parse(lines) == []


def test_gradle_test_names():
    assert gradle._test_name("com.acme.CartTest > adds() FAILED") == ("com.acme.CartTest", "adds()")
    assert gradle._test_name("CartTest > Empty > total() FAILED") == ("CartTest", "Empty > total()")
    assert gradle._test_name("Gradle suite > Gradle test > com.acme.CartTest.adds FAILED") == (
        "com.acme.CartTest",
        "adds",
    )
    assert gradle._test_name("Cart tests > adds two items FAILED") == (None, "Cart tests > adds two items")
    assert gradle._test_name("    at x > y FAILED") is None


def test_gradle_test_without_frames_names_the_class_file():
    errors = gradle.parse(["com.acme.CartTest > adds FAILED", "    java.lang.AssertionError", ""])
    assert (errors[0].file, errors[0].line, errors[0].category) == (
        "com/acme/CartTest.java",
        None,
        "test_failure",
    )


def test_surefire_summary_with_package_and_parameters():
    lines = [
        "[ERROR] Failures: ",
        "[ERROR]   com.acme.CartTest.adds:27 expected: <1> but was: <2>",
        "[ERROR]   PriceTest.rounds(double)[2]:41 expected: <1.0> but was: <0.9>",
    ]
    errors = maven.parse(lines)
    assert [(e.file, e.line) for e in errors] == [("com/acme/CartTest.java", 27), ("PriceTest.java", 41)]


def test_frame_scan_is_fast_on_a_big_trace():
    block = ["java.lang.IllegalStateException: x"]
    block += [f"\tat org.junit.runners.ParentRunner.run(ParentRunner.java:{n})" for n in range(40)]
    lines = block * 5000
    start = time.perf_counter()
    assert jvmtest.parse(lines) == []
    assert time.perf_counter() - start < 5  # linear: a fraction of a second
