import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buildfixer.core.errors import BuildfixerError
from buildfixer.logs.text import clean_lines, clean_log, decode_log, read_log, strip_ansi


def test_strips_ansi_colours_and_cursor_codes():
    assert (
        strip_ansi("\x1b[31;1m> Task :compileJava\x1b[0;39m\x1b[31m FAILED\x1b[39m")
        == "> Task :compileJava FAILED"
    )
    assert clean_lines("\x1b]0;title\x07BUILD FAILED in 3s\n") == ["BUILD FAILED in 3s"]


def test_carriage_return_keeps_what_the_terminal_shows():
    assert clean_lines("Progress 10%\rProgress 100%\rdone\r\n") == ["done"]
    assert clean_lines("line one\r\nline two\r\n") == ["line one", "line two"]


def test_rich_console_redraw_rows_are_dropped():
    raw = (
        "\x1b[2A\x1b[1m<\x1b[0;32;1;0;39;1m-------------> 0% EXECUTING [4s]\x1b[m\x1b[33D\x1b[1B"
        "\x1b[1m> :compileJava\x1b[m\x1b[14D\x1b[1B\x1b[2A\x1b[0K\n"
        "\x1b[31;1m> Task :compileJava\x1b[0;39m\x1b[31m FAILED\x1b[39m\x1b[0K\n"
    )
    assert clean_lines(raw) == ["", "> Task :compileJava FAILED"]


@pytest.mark.parametrize(
    "noise",
    [
        "<=====--------> 42% EXECUTING [3s]",
        "> IDLE",
        "Download https://repo.maven.apache.org/maven2/junit/junit/4.12/junit-4.12.pom",
        "Downloading from central: https://repo.maven.apache.org/maven2/x/y/1/y-1.pom",
        "Downloaded from central: https://repo.maven.apache.org/maven2/x/y/1/y-1.pom (2.1 kB at 9 kB/s)",
        "[INFO] Downloading from central: https://repo.maven.apache.org/maven2/x/y/1/y-1.pom",
        "Progress (1): 4.1/8.1 kB",
        "⠙",
        "[##########........] / fetchMetadata: sill resolveWithNewModule lodash@4.17.21",
        "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 62.6/62.6 kB 92.6 MB/s eta 0:00:00",
        "     |████████████████████████████████| 1.2 MB 3.4 MB/s",
        "............10%.............20%............30%",
    ],
)
def test_progress_and_download_noise_is_dropped(noise):
    assert clean_lines(f"before\n{noise}\nafter\n") == ["before", "after"]


def test_debian_maven_resolver_hook_spam_is_dropped_with_its_stack():
    raw = (
        "Starting build\n"
        "java.lang.ClassNotFoundException: org.debian.gradle.plugin.MavenResolverHook\n"
        "\tat java.base/jdk.internal.loader.BuiltinClassLoader.loadClass(BuiltinClassLoader.java:641)\n"
        "Caused by: java.lang.NoClassDefFoundError: org/debian/Foo\n"
        "\t... 12 more\n"
        ":compileJava\n"
        "\tat this.is.kept(Because.java:1)\n"
    )
    assert clean_lines(raw) == ["Starting build", ":compileJava", "\tat this.is.kept(Because.java:1)"]


def test_real_errors_survive_cleaning():
    lines = [
        "> Could not find com.example:lib:1.0.",
        "[ERROR] /p/App.java:[12,5] cannot find symbol",
        "  symbol:   variable x",
        "-----",
        "> There were failing tests. See the report at: file:///p/build/reports/tests/test/index.html",
    ]
    assert clean_lines("\n".join(lines)) == lines


def test_ci_timestamps_are_removed_and_raw_lines_mapped():
    log = clean_log(
        "2024-03-18T09:12:01.1234567Z hello\n<==> 10% EXECUTING [1s]\n2024-03-18T09:12:02Z world\n"
    )
    assert log.lines == ["hello", "world"]
    assert log.raw_index == [0, 2]


def test_decode_rejects_binary():
    with pytest.raises(BuildfixerError, match="binary"):
        decode_log(b"\x7fELF\x02\x01\x01\x00\x00\x00" * 100)
    with pytest.raises(BuildfixerError, match="not text"):
        decode_log(bytes(range(128, 256)) * 40)


def test_decode_accepts_latin1_noise_and_utf16_bom():
    assert "caf" in decode_log("café build ok\n".encode("latin-1"))
    assert decode_log("BUILD FAILED\n".encode("utf-16")) == "BUILD FAILED\n"
    assert decode_log(b"") == ""


def test_read_log_errors_are_buildfixer_errors(tmp_path):
    with pytest.raises(BuildfixerError, match="not found"):
        read_log(tmp_path / "missing.log")
    with pytest.raises(BuildfixerError, match="directory"):
        read_log(tmp_path)
    (tmp_path / "x.bin").write_bytes(b"\x00\x01\x02" * 1000)
    with pytest.raises(BuildfixerError) as info:
        read_log(tmp_path / "x.bin")
    assert "\n" not in str(info.value)


@settings(max_examples=200, deadline=None, database=None)
@given(st.text())
def test_cleaning_never_crashes(text):
    log = clean_log(text)
    assert len(log.lines) == len(log.raw_index)
    assert all("\x1b" not in line and "\n" not in line for line in log.lines)


@pytest.mark.parametrize(
    "prefix",
    [
        "[2024-06-03T09:41:12.903Z] ",  # Jenkins timestamper
        "2024-02-11T08:15:02.121+0000 [ERROR] [org.gradle.internal.buildevents.BuildExceptionReporter] ",
        "12:01:02.345 [ERROR] [org.gradle.BuildExceptionReporter] ",  # gradle --debug
        "08:34:36,800 ",  # a timestamped Maven logger
        "[  +12 ms] ",  # flutter --verbose
        "[        ] ",
        "[stderr] ",  # EAS and other CI stream labels
    ],
)
def test_logger_and_ci_line_prefixes_are_removed(prefix):
    raw = f"{prefix}* What went wrong:\n{prefix}Execution failed for task ':app:lint'.\n"
    assert clean_lines(raw)[:2] == ["* What went wrong:", "Execution failed for task ':app:lint'."]


def test_stream_labels_are_removed_even_when_they_start_late():
    raw = "line\n" * 5000 + "[stderr] FAILURE: Build failed with an exception.\n"
    assert clean_lines(raw)[-1] == "FAILURE: Build failed with an exception."


def test_a_log_pasted_indented_as_a_whole_is_dedented():
    raw = "    FAILED tests/test_a.py::test_x - assert 1 == 2\n      detail\n\n    2 failed in 0.1s\n"
    assert clean_lines(raw) == [
        "FAILED tests/test_a.py::test_x - assert 1 == 2",
        "  detail",
        "",
        "2 failed in 0.1s",
    ]


def test_logs_with_a_line_in_column_zero_keep_their_indentation():
    raw = "    at org.x.A.run(A.java:3)\nCaused by: boom\n"
    assert clean_lines(raw)[0] == "    at org.x.A.run(A.java:3)"
