import json
import os
import stat
from pathlib import Path

import pytest

from buildfixer.tools.base import Tool, ToolError
from buildfixer.tools.files import MAX_MATCHES, MAX_PATHS, READ_MAX_CHARS, file_tools
from buildfixer.tools.patterns import expand_braces, glob_regex
from support.tools import tool_context, tools_by_name

SECRET = "TOP-SECRET sourceCompatibility\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text(SECRET)
    (path / "Leak.java").write_text("class Leak { int sourceCompatibility; }\n")
    return path


@pytest.fixture
def ws(tmp_path: Path, outside: Path) -> Path:
    root = tmp_path / "ws"
    (root / "app" / "src" / "main" / "java").mkdir(parents=True)
    (root / "app" / "build.gradle").write_text("plugins {\n    id 'java'\n}\nsourceCompatibility = 1.8\n")
    (root / "settings.gradle").write_text("include ':app'\n")
    (root / "app" / "src" / "main" / "java" / "Main.java").write_text(
        "class Main {\n    // SourceCompatibility check\n    int x = 1;\n}\n"
    )
    for skipped in ("build", "node_modules", ".git", "target", ".gradle"):
        (root / skipped).mkdir()
        (root / skipped / "Gen.java").write_text("class Gen { int sourceCompatibility; }\n")
    (root / "app" / "lib.jar").write_bytes(b"PK\x03\x04\x00\x00sourceCompatibility")
    os.symlink(outside, root / "outdir")  # a directory link pointing out
    os.symlink(outside / "secret.txt", root / "leak.txt")  # a file link pointing out
    return root


@pytest.fixture
def tools(ws: Path) -> dict[str, Tool]:
    return tools_by_name(tool_context(ws, "gradle"), file_tools)


def call(tools: dict[str, Tool], name: str, **args: object) -> str:
    return tools[name].call(args)


def error(tools: dict[str, Tool], name: str, **args: object) -> str:
    with pytest.raises(ToolError) as info:
        tools[name].call(args)
    return str(info.value)


# --- schemas ---------------------------------------------------------------------------------

EXPECTED = {
    "read_file": (["path", "offset", "limit"], ["path"]),
    "replace": (
        ["file_path", "old_string", "new_string", "expected_replacements"],
        ["file_path", "old_string", "new_string"],
    ),
    "search_file_content": (["pattern", "path", "include"], ["pattern"]),
    "glob": (["pattern", "path", "case_sensitive"], ["pattern"]),
    "list_directory": (["path", "ignore"], ["path"]),
    "write_file": (["path", "content"], ["path", "content"]),
    "find_files": (["pattern", "path"], ["pattern"]),
    "find_files_with_text": (["text", "path", "include"], ["text"]),
}

TYPES = {
    "path": "string",
    "file_path": "string",
    "old_string": "string",
    "new_string": "string",
    "pattern": "string",
    "include": "string",
    "content": "string",
    "text": "string",
    "offset": "integer",
    "limit": "integer",
    "expected_replacements": "integer",
    "case_sensitive": "boolean",
    "ignore": "array",
}


def test_tool_names_and_order(tools: dict[str, Tool]) -> None:
    assert list(tools) == list(EXPECTED)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_schema(tools: dict[str, Tool], name: str) -> None:
    params, required = EXPECTED[name]
    schema = tools[name].schema()
    assert schema["type"] == "function"
    function = schema["function"]
    assert function["name"] == name
    assert len(function["description"]) > 80
    assert "Args:" not in function["description"]
    props = function["parameters"]["properties"]
    assert list(props) == params
    assert function["parameters"]["required"] == required
    for param, spec in props.items():
        assert spec["type"] == TYPES[param]
        assert spec["description"]
    if name == "list_directory":
        assert props["ignore"]["items"] == {"type": "string"}
    json.dumps(schema)  # serializable as sent to the model


# --- read_file -------------------------------------------------------------------------------


def test_read_file(tools: dict[str, Tool]) -> None:
    assert call(tools, "read_file", path="app/build.gradle") == (
        "plugins {\n    id 'java'\n}\nsourceCompatibility = 1.8"
    )
    assert call(tools, "read_file", path="./app/../settings.gradle") == "include ':app'"


def test_read_file_offset_and_limit(tools: dict[str, Tool]) -> None:
    out = call(tools, "read_file", path="app/build.gradle", offset=1, limit=2)
    assert out == "[showing lines 2-3 of 4; use offset=3 to read more]\n    id 'java'\n}"
    out = call(tools, "read_file", path="app/build.gradle", offset=3)
    assert out == "[showing lines 4-4 of 4]\nsourceCompatibility = 1.8"


def test_read_file_default_chunk_and_next_offset(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 5322)))
    out = call(tools, "read_file", path="long.txt")
    lines = out.split("\n")
    assert lines[0] == "[showing lines 1-2000 of 5321; use offset=2000 to read more]"
    assert lines[1] == "line 1" and lines[-1] == "line 2000" and len(lines) == 2001
    out = call(tools, "read_file", path="long.txt", offset=2000)
    assert out.split("\n")[:2] == [
        "[showing lines 2001-4000 of 5321; use offset=4000 to read more]",
        "line 2001",
    ]
    out = call(tools, "read_file", path="long.txt", offset=4000)
    assert out.split("\n")[0] == "[showing lines 4001-5321 of 5321]"
    assert out.endswith("line 5321")


def test_read_file_character_budget(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "wide.txt").write_text("".join(f"{i:05d}" + "x" * 195 + "\n" for i in range(2000)))
    out = call(tools, "read_file", path="wide.txt")
    assert len(out) <= READ_MAX_CHARS + 200 <= tools["read_file"].output_limit
    assert "characters omitted" not in out  # stopped at a line boundary, not cut by the cap
    first = out.split("\n")[0]
    end = int(first.split("-")[1].split(" ")[0])
    assert first == f"[showing lines 1-{end} of 2000; use offset={end} to read more]"
    assert out.split("\n")[-1].startswith(f"{end - 1:05d}")
    assert (
        call(tools, "read_file", path="wide.txt", offset=end, limit=1).split("\n")[1].startswith(f"{end:05d}")
    )


def test_read_file_cuts_long_lines(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "min.js").write_text("a" * 5000 + "\nshort\n")
    out = call(tools, "read_file", path="min.js")
    lines = out.split("\n")
    assert lines[0] == "[lines longer than 2000 characters were shortened]"
    assert lines[1] == "a" * 2000 + " [... 3000 more characters]"
    assert lines[2] == "short"


def test_read_file_text_oddities(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    assert call(tools, "read_file", path="crlf.txt") == "one\ntwo"
    (ws / "latin1.txt").write_bytes(b"caf\xe9\n")
    assert call(tools, "read_file", path="latin1.txt") == "caf\ufffd"
    (ws / "empty.txt").write_text("")
    assert call(tools, "read_file", path="empty.txt") == "[empty.txt is empty]"


def test_read_file_errors(ws: Path, tools: dict[str, Tool]) -> None:
    assert "binary file" in error(tools, "read_file", path="app/lib.jar")
    assert "list_directory" in error(tools, "read_file", path="app")
    assert "no such file" in error(tools, "read_file", path="app/missing.gradle")
    assert "past the end" in error(tools, "read_file", path="settings.gradle", offset=5)
    assert "offset must be" in error(tools, "read_file", path="settings.gradle", offset=-1)
    assert "limit 1 or more" in error(tools, "read_file", path="settings.gradle", limit=0)
    os.mkfifo(ws / "pipe")
    assert "not a regular file" in error(tools, "read_file", path="pipe")


@pytest.mark.parametrize(
    "path", ["../outside/secret.txt", "app/../../outside/secret.txt", "leak.txt", "outdir/secret.txt", "~"]
)
def test_read_file_refuses_paths_outside(tools: dict[str, Tool], path: str) -> None:
    assert "outside the workspace" in error(tools, "read_file", path=path)


def test_read_file_refuses_absolute_path_outside(outside: Path, tools: dict[str, Tool]) -> None:
    message = error(tools, "read_file", path=str(outside / "secret.txt"))
    assert "outside the workspace" in message and "TOP-SECRET" not in message


def test_read_file_absolute_path_inside_and_inner_symlink(ws: Path, tools: dict[str, Tool]) -> None:
    assert call(tools, "read_file", path=str(ws / "settings.gradle")) == "include ':app'"
    os.symlink("app/build.gradle", ws / "alias.gradle")
    assert call(tools, "read_file", path="alias.gradle").endswith("sourceCompatibility = 1.8")


def test_raw_json_arguments(tools: dict[str, Tool]) -> None:
    read = tools["read_file"]
    assert read.call('{"path": "settings.gradle", "offset": null, "limit": 1}') == "include ':app'"
    with pytest.raises(ToolError, match="missing required parameter.*path"):
        read.call("{}")
    with pytest.raises(ToolError, match="offset must be integer"):
        read.call('{"path": "settings.gradle", "offset": "3"}')
    with pytest.raises(ToolError, match="path must be string"):
        read.call('{"path": 3}')
    with pytest.raises(ToolError, match="unknown parameter"):
        read.call('{"path": "settings.gradle", "file_path": "x"}')
    with pytest.raises(ToolError, match="not valid JSON"):
        read.call('{"path": ')
    with pytest.raises(ToolError, match="missing required parameter.*new_string"):
        tools["replace"].call('{"file_path": "settings.gradle", "old_string": "a"}')
    with pytest.raises(ToolError, match="expected_replacements must be integer"):
        tools["replace"].call(
            '{"file_path": "a", "old_string": "a", "new_string": "b", "expected_replacements": "2"}'
        )
    with pytest.raises(ToolError, match="case_sensitive must be boolean"):
        tools["glob"].call('{"pattern": "*", "case_sensitive": "yes"}')
    with pytest.raises(ToolError, match="ignore must be array"):
        tools["list_directory"].call('{"path": ".", "ignore": "*.class"}')
    with pytest.raises(ToolError, match=r"ignore\[\] must be string"):
        tools["list_directory"].call('{"path": ".", "ignore": [1]}')
    with pytest.raises(ToolError, match="missing required parameter.*content"):
        tools["write_file"].call('{"path": "a.txt"}')
    with pytest.raises(ToolError, match="missing required parameter.*pattern"):
        tools["search_file_content"].call('{"path": "."}')
    with pytest.raises(ToolError, match="text must be string"):
        tools["find_files_with_text"].call('{"text": ["a"]}')


# --- replace ---------------------------------------------------------------------------------


def test_replace(ws: Path, tools: dict[str, Tool]) -> None:
    out = tools["replace"].call(
        '{"file_path": "app/build.gradle", "old_string": "sourceCompatibility = 1.8", '
        '"new_string": "sourceCompatibility = 17"}'
    )
    assert out == "replaced 1 occurrence in app/build.gradle"
    assert (ws / "app/build.gradle").read_text().endswith("sourceCompatibility = 17\n")
    assert [p.name for p in (ws / "app").iterdir() if p.name.startswith(".")] == []  # no temp file left


def test_replace_count_mismatch(ws: Path, tools: dict[str, Tool]) -> None:
    path = ws / "deps.gradle"
    path.write_text("implementation 'a:b:1.0'\nimplementation 'c:d:1.0'\n")
    message = error(tools, "replace", file_path="deps.gradle", old_string=":1.0'", new_string=":2.0'")
    assert (
        "found 2 occurrences" in message
        and "expected 1" in message
        and "expected_replacements to 2" in message
    )
    assert path.read_text() == "implementation 'a:b:1.0'\nimplementation 'c:d:1.0'\n"
    message = error(
        tools,
        "replace",
        file_path="deps.gradle",
        old_string="'a:b:1.0'",
        new_string="x",
        expected_replacements=2,
    )
    assert "found 1 occurrence of" in message
    out = call(
        tools,
        "replace",
        file_path="deps.gradle",
        old_string=":1.0'",
        new_string=":2.0'",
        expected_replacements=2,
    )
    assert out == "replaced 2 occurrences in deps.gradle"
    assert path.read_text() == "implementation 'a:b:2.0'\nimplementation 'c:d:2.0'\n"
    assert "1 or more" in error(
        tools, "replace", file_path="deps.gradle", old_string="a", new_string="b", expected_replacements=0
    )


def test_replace_not_found_hints(ws: Path, tools: dict[str, Tool]) -> None:
    message = error(tools, "replace", file_path="app/build.gradle", old_string="id 'kotlin'", new_string="x")
    assert "not found in app/build.gradle" in message and "whitespace" in message and "read_file" in message
    message = error(
        tools, "replace", file_path="app/build.gradle", old_string="\tid 'java'\n", new_string="x"
    )
    assert "check indentation" in message  # "id 'java'" occurs, indented with spaces


def test_replace_other_errors(ws: Path, tools: dict[str, Tool]) -> None:
    assert "nothing would change" in error(
        tools, "replace", file_path="settings.gradle", old_string="a", new_string="a"
    )
    assert "already exists" in error(
        tools, "replace", file_path="settings.gradle", old_string="", new_string="x"
    )
    message = error(tools, "replace", file_path="nope.gradle", old_string="a", new_string="b")
    assert "no such file: nope.gradle" in message and "empty old_string" in message
    assert not (ws / "nope.gradle").exists()
    assert "binary file" in error(tools, "replace", file_path="app/lib.jar", old_string="PK", new_string="QK")
    assert "not a regular file" in error(tools, "replace", file_path="app", old_string="a", new_string="b")


def test_replace_creates_file(ws: Path, tools: dict[str, Tool]) -> None:
    out = call(
        tools, "replace", file_path="gradle/wrapper/new.properties", old_string="", new_string="a=1\nb=2\n"
    )
    assert out == "created gradle/wrapper/new.properties (2 lines)"
    assert (ws / "gradle/wrapper/new.properties").read_text() == "a=1\nb=2\n"


def test_replace_keeps_mode_line_endings_and_other_bytes(ws: Path, tools: dict[str, Tool]) -> None:
    script = ws / "gradlew"
    script.write_bytes(b"#!/bin/sh\r\n# caf\xe9\r\nJAVA_OPTS=-Xmx64m\r\nexec java\r\n")
    script.chmod(0o755)
    call(
        tools,
        "replace",
        file_path="gradlew",
        old_string="JAVA_OPTS=-Xmx64m\nexec",
        new_string="JAVA_OPTS=-Xmx1g\nexec",
    )
    assert script.read_bytes() == b"#!/bin/sh\r\n# caf\xe9\r\nJAVA_OPTS=-Xmx1g\r\nexec java\r\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755


def test_replace_through_inner_symlink_edits_the_target(ws: Path, tools: dict[str, Tool]) -> None:
    os.symlink("app/build.gradle", ws / "alias.gradle")
    call(tools, "replace", file_path="alias.gradle", old_string="1.8", new_string="11")
    assert (ws / "alias.gradle").is_symlink()
    assert (ws / "app/build.gradle").read_text().endswith("= 11\n")


@pytest.mark.parametrize("path", ["../outside/secret.txt", "leak.txt", "outdir/secret.txt", "outdir/new.txt"])
def test_replace_refuses_paths_outside(outside: Path, tools: dict[str, Tool], path: str) -> None:
    assert "outside the workspace" in error(
        tools, "replace", file_path=path, old_string="TOP", new_string="x"
    )
    assert "outside the workspace" in error(tools, "replace", file_path=path, old_string="", new_string="x")
    assert (outside / "secret.txt").read_text() == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["Leak.java", "secret.txt"]


def test_replace_refuses_absolute_path_outside(tmp_path: Path, outside: Path, tools: dict[str, Tool]) -> None:
    target = str(outside / "secret.txt")
    assert "outside the workspace" in error(
        tools, "replace", file_path=target, old_string="TOP", new_string="x"
    )
    created = str(tmp_path / "created.txt")
    assert "outside the workspace" in error(
        tools, "replace", file_path=created, old_string="", new_string="x"
    )
    assert not (tmp_path / "created.txt").exists()
    assert (outside / "secret.txt").read_text() == SECRET


# --- write_file ------------------------------------------------------------------------------


def test_write_file(ws: Path, tools: dict[str, Tool]) -> None:
    assert (
        call(tools, "write_file", path="new/dir/a.txt", content="one\ntwo")
        == "wrote 2 lines to new/dir/a.txt"
    )
    assert (ws / "new/dir/a.txt").read_bytes() == b"one\ntwo"
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE((ws / "new/dir/a.txt").stat().st_mode) == 0o666 & ~umask
    (ws / "gradlew").write_text("old\n")
    (ws / "gradlew").chmod(0o750)
    assert (
        call(tools, "write_file", path="gradlew", content="#!/bin/sh\r\nexec\r\n")
        == "wrote 2 lines to gradlew"
    )
    assert (ws / "gradlew").read_bytes() == b"#!/bin/sh\r\nexec\r\n"
    assert stat.S_IMODE((ws / "gradlew").stat().st_mode) == 0o750
    assert call(tools, "write_file", path="empty.txt", content="") == "wrote 0 lines to empty.txt"
    assert call(tools, "write_file", path="one.txt", content="x") == "wrote 1 line to one.txt"
    assert [p.name for p in ws.iterdir() if p.name.endswith(".tmp")] == []


def test_write_file_errors(ws: Path, tools: dict[str, Tool]) -> None:
    assert "not a regular file" in error(tools, "write_file", path="app", content="x")
    assert "cannot be written" in error(tools, "write_file", path="bad.txt", content="\ud800")
    assert not (ws / "bad.txt").exists()
    (ws / "afile").write_text("")
    # a parent that is a file: the OSError comes back as a ToolError
    error(tools, "write_file", path="afile/child.txt", content="x")


@pytest.mark.parametrize(
    "path", ["../outside/secret.txt", "../outside/new.txt", "leak.txt", "outdir/new.txt", "~/x"]
)
def test_write_file_refuses_paths_outside(outside: Path, tools: dict[str, Tool], path: str) -> None:
    assert "outside the workspace" in error(tools, "write_file", path=path, content="pwned")
    assert (outside / "secret.txt").read_text() == SECRET
    assert sorted(p.name for p in outside.iterdir()) == ["Leak.java", "secret.txt"]


def test_write_file_refuses_absolute_path_outside(outside: Path, tools: dict[str, Tool]) -> None:
    assert "outside the workspace" in error(tools, "write_file", path=str(outside / "x.txt"), content="x")
    assert not (outside / "x.txt").exists()


# --- search_file_content ---------------------------------------------------------------------


def test_search(tools: dict[str, Tool]) -> None:
    out = call(tools, "search_file_content", pattern=r"sourceCompat\w+")
    assert out.split("\n") == [
        "2 matches in 2 files for 'sourceCompat\\\\w+' in .:",
        "app/build.gradle:4: sourceCompatibility = 1.8",
        "app/src/main/java/Main.java:2:     // SourceCompatibility check",
    ]


def test_search_skips_generated_dirs_binaries_and_outside_links(tools: dict[str, Tool]) -> None:
    out = call(tools, "search_file_content", pattern="sourceCompatibility")
    for absent in ("Gen.java", "lib.jar", "outdir", "leak.txt", "Leak", "SECRET"):
        assert absent not in out
    assert "in 2 files" in out


def test_search_inside_a_skipped_dir_when_asked(tools: dict[str, Tool]) -> None:
    out = call(tools, "search_file_content", pattern="class Gen", path="build")
    assert out.split("\n")[1:] == ["build/Gen.java:1: class Gen { int sourceCompatibility; }"]


@pytest.mark.parametrize(
    ("include", "files"),
    [
        ("*.java", ["app/src/main/java/Main.java"]),
        ("**/*.gradle", ["app/build.gradle", "settings.gradle"]),
        ("*.{gradle,kts}", ["app/build.gradle", "settings.gradle"]),
        ("app/src/**/*.java", ["app/src/main/java/Main.java"]),
        ("*.kt", []),
    ],
)
def test_search_include(tools: dict[str, Tool], include: str, files: list[str]) -> None:
    out = call(tools, "search_file_content", pattern="a", include=include)
    found = sorted({line.split(":")[0] for line in out.split("\n")[1:]})
    assert found == files
    if not files:
        assert out == "no matches for 'a' in . (include *.kt)"


def test_search_path_dir_and_file(tools: dict[str, Tool]) -> None:
    out = call(tools, "search_file_content", pattern="class", path="app/src")
    assert out.split("\n")[1:] == ["app/src/main/java/Main.java:1: class Main {"]
    out = call(tools, "search_file_content", pattern="^include", path="settings.gradle")
    assert out.split("\n")[1:] == ["settings.gradle:1: include ':app'"]


def test_search_case_sensitive_inline_flag(tools: dict[str, Tool]) -> None:
    out = call(tools, "search_file_content", pattern="(?-i:SourceCompat)")
    assert out.split("\n")[1:] == ["app/src/main/java/Main.java:2:     // SourceCompatibility check"]


def test_search_no_match_and_errors(tools: dict[str, Tool]) -> None:
    assert call(tools, "search_file_content", pattern="kotlin") == "no matches for 'kotlin' in ."
    message = error(tools, "search_file_content", pattern="compile(Sdk")
    assert "invalid regular expression" in message and "missing ), unterminated subpattern" in message
    assert "pattern is empty" in error(tools, "search_file_content", pattern="")
    assert "no such file" in error(tools, "search_file_content", pattern="a", path="nope")


@pytest.mark.parametrize("path", ["..", "../outside", "outdir", "leak.txt", "/"])
def test_search_refuses_paths_outside(tools: dict[str, Tool], path: str) -> None:
    assert "outside the workspace" in error(tools, "search_file_content", pattern="SECRET", path=path)


def test_search_caps_matches(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "many.txt").write_text("hit\n" * 250)
    (ws / "zz.txt").write_text("hit\n")
    out = call(tools, "search_file_content", pattern="^hit$")
    lines = out.split("\n")
    assert lines[0] == "251 matches in 2 files for '^hit$' in .:"
    assert lines[1] == "many.txt:1: hit" and lines[MAX_MATCHES] == f"many.txt:{MAX_MATCHES}: hit"
    assert lines[-1] == "[... 51 more matches not shown; narrow the pattern, path or include]"
    assert len(lines) == MAX_MATCHES + 2


def test_search_long_lines_stay_under_the_output_limit(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "wide.txt").write_text(("hit " + "y" * 1000 + "\n") * 150)
    out = call(tools, "search_file_content", pattern="hit")
    assert len(out) < tools["search_file_content"].output_limit
    assert "characters omitted" not in out
    assert out.split("\n")[1].endswith("more characters]")
    assert out.split("\n")[-1].startswith("[... ") and "more matches not shown" in out


# --- glob ------------------------------------------------------------------------------------


def test_glob(ws: Path, tools: dict[str, Tool]) -> None:
    os.utime(ws / "settings.gradle", (1_000_000, 1_000_000))
    os.utime(ws / "app/build.gradle", (2_000_000, 2_000_000))
    out = call(tools, "glob", pattern="**/*.gradle")
    assert out.split("\n") == [
        "2 files match '**/*.gradle' in . (newest first):",
        "app/build.gradle",
        "settings.gradle",
    ]
    os.utime(ws / "settings.gradle", (3_000_000, 3_000_000))
    assert call(tools, "glob", pattern="**/*.gradle").split("\n")[1:] == [
        "settings.gradle",
        "app/build.gradle",
    ]
    assert call(tools, "glob", pattern="*.gradle").split("\n")[1:] == ["settings.gradle"]
    assert call(tools, "glob", pattern="*.gradle", path="app").split("\n")[1:] == ["app/build.gradle"]
    assert call(tools, "glob", pattern="src/**/*.{java,kt}", path="app").split("\n")[1:] == [
        "app/src/main/java/Main.java"
    ]
    assert call(tools, "glob", pattern="**").count("\n") == 4  # three text files and lib.jar


def test_glob_case(tools: dict[str, Tool]) -> None:
    assert call(tools, "glob", pattern="**/main.JAVA").split("\n")[1:] == ["app/src/main/java/Main.java"]
    out = call(tools, "glob", pattern="**/main.JAVA", case_sensitive=True)
    assert out == "no files match '**/main.JAVA' in ."
    assert call(tools, "glob", pattern="**/Main.java", case_sensitive=True).endswith(
        "\napp/src/main/java/Main.java"
    )


def test_glob_skips_generated_dirs_and_outside_links(ws: Path, outside: Path, tools: dict[str, Tool]) -> None:
    out = call(tools, "glob", pattern="**/*")
    for absent in (
        "build/",
        "node_modules",
        ".git/",
        "target",
        ".gradle/",
        "outdir",
        "leak.txt",
        "secret",
        "Leak",
    ):
        assert absent not in out
    assert call(tools, "glob", pattern="*.java", path="build").split("\n")[1:] == ["build/Gen.java"]


def test_glob_no_match_hint_and_errors(tools: dict[str, Tool]) -> None:
    assert call(tools, "glob", pattern="*.java") == (
        "no files match '*.java' in . (use **/*.java to search subdirectories too)"
    )
    assert "not a directory" in error(tools, "glob", pattern="*", path="settings.gradle")
    assert "not an absolute path" in error(tools, "glob", pattern="/etc/*")
    assert "pattern is empty" in error(tools, "glob", pattern=" ")
    assert call(tools, "glob", pattern="../outside/*").startswith("no files match")


@pytest.mark.parametrize("path", ["..", "../outside", "outdir", "/tmp"])
def test_glob_refuses_paths_outside(tools: dict[str, Tool], path: str) -> None:
    assert "outside the workspace" in error(tools, "glob", pattern="**/*", path=path)


def test_glob_caps_paths(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "gen").mkdir()
    for i in range(MAX_PATHS + 20):
        (ws / "gen" / f"f{i:04d}.txt").write_text("")
    out = call(tools, "glob", pattern="gen/*.txt")
    lines = out.split("\n")
    assert lines[0] == f"{MAX_PATHS + 20} files match 'gen/*.txt' in . (newest first):"
    assert lines[-1] == "[... 20 more files not shown; use a narrower pattern or path]"
    assert len(lines) == MAX_PATHS + 2
    assert len(out) < tools["glob"].output_limit


# --- list_directory --------------------------------------------------------------------------


def test_list_directory(ws: Path, tools: dict[str, Tool]) -> None:
    out = call(tools, "list_directory", path=".")
    assert out.split("\n") == [
        ".: 6 directories, 3 files",
        ".git/",
        ".gradle/",
        "app/",
        "build/",
        "node_modules/",
        "target/",
        "leak.txt -> (outside the workspace)",
        "outdir -> (outside the workspace)",
        "settings.gradle",
    ]


def test_list_directory_ignore_and_links(ws: Path, tools: dict[str, Tool]) -> None:
    os.symlink("app/build.gradle", ws / "alias.gradle")
    os.symlink("app", ws / "app-link")
    os.symlink("missing", ws / "dangling")
    out = call(
        tools, "list_directory", path=".", ignore=[".*", "build", "node_modules", "target", "*.txt", "outdir"]
    )
    assert out.split("\n") == [
        ".: 2 directories, 3 files",
        "app/",
        "app-link/ -> app",
        "alias.gradle -> app/build.gradle",
        "dangling -> (broken link)",
        "settings.gradle",
    ]
    assert call(tools, "list_directory", path="app", ignore=["*.jar"]).split("\n") == [
        "app: 1 directory, 1 file",
        "src/",
        "build.gradle",
    ]


def test_list_directory_empty_and_errors(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "empty").mkdir()
    assert call(tools, "list_directory", path="empty") == "empty is empty"
    assert call(tools, "list_directory", path="app", ignore=["*"]) == "app is empty (after ignore)"
    assert "not a directory" in error(tools, "list_directory", path="settings.gradle")
    assert "no such file" in error(tools, "list_directory", path="nope")


@pytest.mark.parametrize("path", ["..", "../outside", "outdir", "app/../..", "/", "~"])
def test_list_directory_refuses_paths_outside(tools: dict[str, Tool], path: str) -> None:
    assert "outside the workspace" in error(tools, "list_directory", path=path)


def test_list_directory_caps_entries(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "many").mkdir()
    for i in range(MAX_PATHS + 5):
        (ws / "many" / f"f{i:04d}").write_text("")
    lines = call(tools, "list_directory", path="many").split("\n")
    assert lines[1] == "f0000" and lines[-1] == "[... 5 more entries not shown; use ignore to leave some out]"


# --- find_files ------------------------------------------------------------------------------


def test_find_files(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "gradle/wrapper").mkdir(parents=True)
    (ws / "gradle/wrapper/gradle-wrapper.properties").write_text("distributionUrl=x\n")
    assert call(tools, "find_files", pattern="*.gradle").split("\n") == [
        "2 files named '*.gradle' in .:",
        "app/build.gradle",
        "settings.gradle",
    ]
    assert call(tools, "find_files", pattern="gradle-wrapper.properties").split("\n")[1:] == [
        "gradle/wrapper/gradle-wrapper.properties"
    ]
    assert call(tools, "find_files", pattern="MAIN.java").split("\n")[1:] == ["app/src/main/java/Main.java"]
    assert call(tools, "find_files", pattern="*.java", path="app/src").split("\n")[1:] == [
        "app/src/main/java/Main.java"
    ]
    assert call(tools, "find_files", pattern="**/main/*/*.java").split("\n")[1:] == [
        "app/src/main/java/Main.java"
    ]
    assert call(tools, "find_files", pattern="*.kt") == "no files named '*.kt' in ."


def test_find_files_skips_generated_dirs_and_outside_links(tools: dict[str, Tool]) -> None:
    out = call(tools, "find_files", pattern="*")
    for absent in ("Gen.java", "Leak.java", "secret.txt", "leak.txt"):
        assert absent not in out
    assert call(tools, "find_files", pattern="*.java", path="target").split("\n")[1:] == ["target/Gen.java"]


def test_find_files_errors(tools: dict[str, Tool]) -> None:
    assert "not a directory" in error(tools, "find_files", pattern="*", path="settings.gradle")
    assert "pattern is empty" in error(tools, "find_files", pattern="")
    for path in ("..", "outdir", "../outside"):
        assert "outside the workspace" in error(tools, "find_files", pattern="*", path=path)


def test_find_files_caps_paths(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "gen").mkdir()
    for i in range(MAX_PATHS + 1):
        (ws / "gen" / f"f{i:04d}.txt").write_text("")
    lines = call(tools, "find_files", pattern="*.txt").split("\n")
    assert lines[1] == "gen/f0000.txt" and lines[-1].startswith("[... 1 more files not shown")


# --- find_files_with_text --------------------------------------------------------------------


def test_find_files_with_text(ws: Path, tools: dict[str, Tool]) -> None:
    (ws / "notes.txt").write_text("a.b(c)\nno\nx a.b(c) again\n")
    assert call(tools, "find_files_with_text", text="a.b(c)").split("\n") == [
        "1 file contain 'a.b(c)' in .:",
        "notes.txt:1: a.b(c)",
    ]
    out = call(tools, "find_files_with_text", text="sourceCompatibility")
    assert out.split("\n") == [
        "1 file contain 'sourceCompatibility' in .:",
        "app/build.gradle:4: sourceCompatibility = 1.8",
    ]  # literal and case-sensitive: Main.java has SourceCompatibility; generated, binary, outside skipped
    out = call(tools, "find_files_with_text", text="class", include="*.java")
    assert out.split("\n")[1:] == ["app/src/main/java/Main.java:1: class Main {"]
    out = call(tools, "find_files_with_text", text="'java'\n}", path="app")
    assert out.split("\n")[1:] == ["app/build.gradle:2:     id 'java'"]
    out = call(tools, "find_files_with_text", text="class", path="app/src", include="main/**/*.java")
    assert out.split("\n")[1:] == ["app/src/main/java/Main.java:1: class Main {"]
    assert call(tools, "find_files_with_text", text="kotlin") == "no files contain 'kotlin' in ."
    assert call(tools, "find_files_with_text", text="class", include="*.kt") == (
        "no files contain 'class' in . (include *.kt)"
    )


def test_find_files_with_text_errors(tools: dict[str, Tool]) -> None:
    assert "text is empty" in error(tools, "find_files_with_text", text="")
    for path in ("..", "outdir", "leak.txt", "../outside"):
        assert "outside the workspace" in error(tools, "find_files_with_text", text="SECRET", path=path)


# --- glob patterns ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.java", "A.java", True),
        ("*.java", "src/A.java", False),
        ("**/*.java", "A.java", True),
        ("**/*.java", "a/b/c/A.java", True),
        ("src/**/*.kt", "src/A.kt", True),
        ("src/**/*.kt", "src/x/y/A.kt", True),
        ("src/**/*.kt", "test/A.kt", False),
        ("src/**", "src/x/y", True),
        ("*.{java,kt}", "A.kt", True),
        ("*.{java,kt}", "A.kts", False),
        ("{a,b{c,d}}.txt", "bd.txt", True),
        ("file?.txt", "file1.txt", True),
        ("file?.txt", "file/.txt", False),
        ("[ab]*.txt", "b1.txt", True),
        ("[!ab]*.txt", "b1.txt", False),
        ("[!ab]*.txt", "c1.txt", True),
        ("a[.txt", "a[.txt", True),
        ("{x}.txt", "{x}.txt", True),
        ("a+b(1).txt", "a+b(1).txt", True),
        ("./*.txt", "a.txt", True),
    ],
)
def test_glob_regex(pattern: str, path: str, matches: bool) -> None:
    assert (glob_regex(pattern).fullmatch(path) is not None) is matches


def test_expand_braces_is_bounded() -> None:
    assert expand_braces("a{b,c}d{e,f}") == ["abde", "abdf", "acde", "acdf"]
    many = expand_braces("{a,b}" * 40)
    assert len(many) == 256 and many[0] == "a" * 40 and many[-1] == "a" * 32 + "bbbbbbbb"
