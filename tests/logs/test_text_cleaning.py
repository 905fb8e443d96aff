import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buildfixer.errors import BuildfixerError
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
