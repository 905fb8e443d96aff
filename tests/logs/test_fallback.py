"""The last-resort scan for logs (or fragments of logs) no parser recognises."""

from buildfixer.logs.analyze import analyze_text
from buildfixer.logs.fallback import scan


def test_scan_prefers_a_classified_marked_error_over_wrappers_and_summaries():
    lines = [
        "Error while executing process /sdk/cmake/bin/ninja with arguments {-C build}",
        "ninja: error: 'src/a.cpp', needed by 'a.o', missing and no known rule to make it",
        "BUILD FAILED in 3s",
    ]
    errors = scan(lines, None)
    best = max(errors, key=lambda e: e.specificity)
    assert best.message.startswith("ninja: error:")
    assert best.category == "ndk"
    assert all(e.specificity <= 5 for e in errors)


def test_scan_skips_notes_warnings_and_stack_frames():
    lines = [
        "note: This error originates from a subprocess, and is likely not a problem with pip.",
        "WARNING: the cache is unreachable",
        "    at org.x.Failure.run(Failure.java:3)",
    ]
    assert scan(lines, "python") == []


def test_a_fragment_without_any_framing_still_gets_a_root():
    analysis = analyze_text(
        "Could not find com.acme.tools:lint-rules:1.4.0.\nRequired by:\n    project :app\n"
    )
    assert analysis.root is not None
    assert analysis.category == "library_unavailable"
    assert "com.acme.tools:lint-rules:1.4.0" in analysis.root.message


def test_a_known_parser_error_is_never_replaced_by_the_scan():
    log = "src/Main.java:3: error: cannot find symbol\n        Foo.bar();\n        ^\nBUILD FAILED\n"
    analysis = analyze_text(log)
    assert analysis.root is not None and analysis.root.tool == "javac"
    assert all(e.tool != "build" for e in analysis.errors)


def test_the_scan_adds_the_cause_when_gradle_only_reports_a_failed_process():
    log = (
        "error Unable to resolve module ./theme/colors from /app/src/App.tsx\n"
        "* What went wrong:\n"
        "Execution failed for task ':app:createBundleDebugJsAndAssets'.\n"
        "> Process 'command 'node'' finished with non-zero exit value 1\n"
    )
    analysis = analyze_text(log)
    assert analysis.root is not None
    assert "Unable to resolve module ./theme/colors" in analysis.root.message
    assert analysis.category == "resource_missing"


def test_passing_checks_warnings_and_step_headers_are_not_errors() -> None:
    from buildfixer.logs.analyze import analyze_text

    log = "\n".join(
        [
            "$ /usr/bin/npm test --cache /tmp/failure-cache",
            " WARN  Unsupported engine: wanted node >=26 (current 20)",
            "  ✔ shows an error on unknown argument (3ms)",
            "ℹ fail 0",
            "  Package size limit has exceeded by 2 B",
        ]
    )
    messages = [e.message for e in analyze_text(log).errors]
    assert messages and "exceeded by 2 B" in messages[0]
    assert not any("✔" in m or "WARN" in m or "fail 0" in m or m.startswith("$") for m in messages)
