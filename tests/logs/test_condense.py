from big_logs import big_gradle_log  # tests/logs is on sys.path (pytest rootdir-less import)

from buildfixer.core.chat import tokens_by_pieces
from buildfixer.core.confined import WorkspaceFiles
from buildfixer.logs.analyze import analyze_text
from buildfixer.logs.condense import condense

GRADLE_LOG = """> Task :app:compileJava FAILED
/ci/build/repo/src/main/java/demo/App.java:5: error: cannot find symbol
        System.out.println(s.lenght());
                            ^
  symbol:   method lenght()
  location: variable s of type String
/ci/build/repo/src/main/java/demo/App.java:7: error: ';' expected
        return x
                ^
2 errors

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':app:compileJava'.
> Compilation failed; see the compiler error output for details.

BUILD FAILED in 2s
"""


def test_tokens_by_pieces_is_conservative_and_cheap():
    assert tokens_by_pieces("") == 0
    assert tokens_by_pieces("cannot find symbol") == 5  # can, not, find, sym-bol
    assert tokens_by_pieces("a.b(c);") == 7
    assert tokens_by_pieces("-" * 72) == 18  # a separator costs a few tokens, not 72
    assert tokens_by_pieces("word " * 1000) >= 1000


def test_view_has_header_root_with_location_window_others_and_tail():
    view = condense(analyze_text(GRADLE_LOG))
    assert view.startswith("Build system: gradle; category: syntax")
    root_at = view.index("Root error [javac, syntax] at /ci/build/repo/src/main/java/demo/App.java:5:")
    assert view.index("Other errors (1):") > root_at
    assert "System.out.println(s.lenght());" in view
    assert "BUILD FAILED in 2s" in view


def test_source_excerpt_marks_the_error_line(tmp_path):
    source = tmp_path / "src" / "main" / "java" / "demo" / "App.java"
    source.parent.mkdir(parents=True)
    source.write_text("\n".join(f"code {n}" for n in range(1, 31)) + "\n")
    view = condense(analyze_text(GRADLE_LOG), files=WorkspaceFiles(tmp_path))
    assert ">>  5 | code 5" in view
    assert "    4 | code 4" in view
    assert "code 20" not in view  # a window, not the whole file


def test_source_outside_project_is_not_read(tmp_path):
    outside = tmp_path / "secret.java"
    outside.write_text("top secret\n")
    project = tmp_path / "project"
    project.mkdir()
    log = f"{outside}:1: error: cannot find symbol\n"
    assert "top secret" not in condense(analyze_text(log), files=WorkspaceFiles(project))


def test_budget_is_respected_by_trimming_lower_priority_parts():
    analysis = analyze_text(GRADLE_LOG)
    for budget in (90, 150, 400, 2000):
        view = condense(analysis, budget_tokens=budget)
        assert tokens_by_pieces(view) <= budget, (budget, view)
        assert "cannot find symbol" in view


def test_root_error_is_never_dropped_even_below_the_budget():
    view = condense(analyze_text(GRADLE_LOG), budget_tokens=5)
    assert "cannot find symbol" in view and "App.java:5" in view


def test_big_log_view_fits_and_keeps_root():
    view = condense(analyze_text(big_gradle_log(2 * 1024 * 1024)), budget_tokens=1500)
    assert tokens_by_pieces(view) <= 1500
    assert "Service.java:88" in view and "findAllActive" in view


def test_no_errors_shows_the_end_of_the_log():
    view = condense(analyze_text("compiling\nsomething odd\nexit 3\n"))
    assert "No errors were recognised" in view and "exit 3" in view
