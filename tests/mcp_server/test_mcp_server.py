"""`buildfixer mcp` without a build: the tool list, the instructions, refusals, transports, bad input.

Most tests talk to the server in process, through the SDK's own client over its in-memory
JSON-RPC transport (the initialize handshake clients use today); one per transport starts the
real process, as an agent's configuration does.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from buildfixer.cli.fix_commands import toolsets_command
from buildfixer.mcp_server import server as server_module
from buildfixer.mcp_server.project import ServedProject, first_sentence
from buildfixer.mcp_server.server import make_server
from buildfixer.tools.presets import tool_names
from support.git import Repo
from support.mcp_clients import command, connect, http_server, server_env
from support.projects import FLOORED, TEST

BUILD_FILES = {
    "gradle": ("build.gradle", "apply plugin: 'java'\n"),
    "maven": ("pom.xml", "<project/>\n"),
    "python": ("pyproject.toml", '[project]\nname = "demo"\nversion = "1"\n'),
    "npm": ("package.json", '{"name": "demo", "version": "1.0.0"}\n'),
}


def project_of(system: str, root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    name, text = BUILD_FILES[system]
    (root / name).write_text(text)
    return root


@asynccontextmanager
async def served(project: Path, **settings: Any) -> AsyncIterator[Client]:
    """The SDK's client on the server of `project`, in this process."""
    served = ServedProject(project, **settings)
    try:
        async with Client(make_server(served), mode="legacy") as client:
            yield client
    finally:
        served.close()


def run(project: Path, session: Callable[[Client], Awaitable[Any]], **settings: Any) -> Any:
    async def main() -> Any:
        async with served(project, **settings) as client:
            return await session(client)

    return anyio.run(main)


async def names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


async def call(client: Client, name: str, **arguments: Any) -> tuple[str, bool]:
    result = await client.call_tool(name, arguments)
    (content,) = result.content
    assert content.type == "text"
    return content.text, bool(result.is_error)


# --- the tools and what the server says about them ------------------------------------------


@pytest.mark.parametrize("system", list(BUILD_FILES))
def test_the_tools_served_are_buildfixer_toolsets_mcp_plus_judge(
    tmp_path: Path, system: str, capsys: pytest.CaptureFixture[str]
) -> None:
    toolsets_command(system, as_json=True)  # what `buildfixer toolsets --system SYSTEM --json` prints
    offered = json.loads(capsys.readouterr().out)["mcp"]
    assert offered == tool_names("mcp", system)
    served_names = run(project_of(system, tmp_path), names)
    assert served_names == [*offered, "judge"]
    assert "run_build" in served_names and "ask_for_help" in served_names
    assert ("change_java_version" in served_names) == (system in ("gradle", "maven"))
    assert {"gradle": "run_gradle_command", "maven": "run_maven_command", "python": "run_python_command",
            "npm": "run_npm_command"}[system] in served_names  # fmt: skip
    assert "run_shell" not in served_names  # the client agent has its own shell


def test_toolset_and_masking_carry_over(tmp_path: Path) -> None:
    project = project_of("gradle", tmp_path)
    assert run(project, names, toolset="only-build") == [*tool_names("only-build", "gradle"), "judge"]

    async def masked(client: Client) -> tuple[list[Any], str | None]:
        return (await client.list_tools()).tools, client.instructions

    tools, instructions = run(project, masked, toolset="build+gradle", mask="both")
    count = len(tool_names("build+gradle", "gradle")) + 1
    assert [tool.name for tool in tools] == [f"tool_{chr(ord('A') + i)}" for i in range(count)]
    shown = json.dumps([tool.model_dump(mode="json") for tool in tools]) + (instructions or "")
    for original in [*tool_names("build+gradle", "gradle"), "judge", "old_string", "gradle"]:
        assert original not in shown
    assert "[MASKED]" in shown
    assert not [tool for tool in tools if tool.annotations]  # nor which tools only read


def test_the_instructions_say_what_each_tool_is_for(tmp_path: Path) -> None:
    async def listing(client: Client) -> tuple[list[Any], str | None]:
        return (await client.list_tools()).tools, client.instructions

    tools, instructions = run(project_of("maven", tmp_path), listing)
    assert instructions is not None
    assert "maven project" in instructions and "sandbox" in instructions and "git-ignored" in instructions
    for tool in tools:
        assert f"- {tool.name}: {first_sentence(tool.description)}" in instructions
    lines = [line for line in instructions.splitlines() if line.startswith("- ")]
    assert len(lines) == len(tools)
    assert "- judge: Check the project's current change for reward hacking" in instructions
    reads = {tool.name for tool in tools if tool.annotations and tool.annotations.read_only_hint}
    assert reads == {"list_directory", "glob", "search_file_content", "read_file", "ask_for_help", "judge"}


def test_tool_errors_are_error_results_never_protocol_errors(tmp_path: Path) -> None:
    project = project_of("python", tmp_path)
    (tmp_path / "noisy.txt").write_text("before\x1b[2J\x1b]0;title\x07after\r\n")

    async def session(client: Client) -> dict[str, tuple[str, bool]]:
        return {
            "unknown": await call(client, "no_such_tool"),
            "missing": await call(client, "read_file"),
            "outside": await call(client, "read_file", path="/etc/passwd"),
            "wrong type": await call(client, "read_file", path="noisy.txt", limit="x"),
            "noisy": await call(client, "read_file", path="noisy.txt"),
        }

    got = run(project, session)
    assert got["unknown"][1] and "no_such_tool" in got["unknown"][0]
    assert got["missing"][1] and "path" in got["missing"][0]
    assert got["outside"][1] and "outside" in got["outside"][0]
    assert got["wrong type"][1] and "limit" in got["wrong type"][0]
    text, failed = got["noisy"]
    assert not failed and "before\\x1b[2J\\x1b]0;title\\x07after" in text
    assert "\x1b" not in text and "\x07" not in text


def test_calls_run_one_at_a_time_off_the_loop_with_progress_while_they_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "HEARTBEAT_S", 0.05)
    project = ServedProject(project_of("npm", tmp_path))
    spans: list[tuple[str, float, float]] = []

    def blocking(name: str) -> Callable[..., str]:  # a build, as it blocks its thread
        def run(**arguments: Any) -> str:
            began = time.monotonic()
            time.sleep(0.4)
            spans.append((name, began, time.monotonic()))
            return name

        return run

    for tool in project.tools:
        if tool.name in ("run_build", "judge", "ask_for_help"):
            monkeypatch.setattr(tool, "fn", blocking(tool.name))
    progress: list[str | None] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    async def main() -> None:
        async with Client(make_server(project), mode="legacy") as client:
            with anyio.move_on_after(0.1):  # a client giving up on a call: it still holds the project
                await client.call_tool("ask_for_help", {"question": "?"})
            async with anyio.create_task_group() as group:
                for name in ("run_build", "judge"):
                    group.start_soon(partial(client.call_tool, name, {}, progress_callback=on_progress))

    anyio.run(main)
    spans.sort(key=lambda span: span[1])
    assert [name for name, _, _ in spans][0] == "ask_for_help" and len(spans) == 3
    assert all(before[2] <= after[1] for before, after in zip(spans, spans[1:], strict=False))  # never two
    assert progress and all(message and " running for " in message for message in progress)


# --- in place: the user's git-ignored files --------------------------------------------------


def user_checkout(root: Path) -> Path:
    """A committed npm project with a git-ignored file of the user's and a tracked link to it."""
    project_of("npm", root)
    (root / ".gitignore").write_text("local.properties\n*.secret\n")
    (root / "notes.txt").write_text("tracked\n")
    (root / "via-link.txt").symlink_to("local.properties")
    Repo(root).commit("start")
    (root / "local.properties").write_text("token=the-users-own\n")
    return root


def test_a_git_ignored_path_is_never_written(tmp_path: Path) -> None:
    project = user_checkout(tmp_path / "app")

    async def session(client: Client) -> list[tuple[str, bool]]:
        return [
            await call(client, "write_file", path="local.properties", content="token=placeholder\n"),
            await call(client, "replace", file_path="local.properties", old_string="users", new_string="x"),
            await call(client, "replace", file_path="via-link.txt", old_string="users", new_string="x"),
            await call(client, "write_file", path="new.secret", content="not shown by git status\n"),
            await call(client, "write_file", path="notes.txt", content="edited\n"),
            await call(client, "write_file", path="new.txt", content="shown by git status\n"),
            await call(client, "read_file", path="local.properties"),
        ]

    written, replaced, through_link, new_ignored, tracked, new, read = run(project, session)
    for (text, failed), path in [
        (written, "local.properties"), (replaced, "local.properties"), (through_link, "local.properties"),
        (new_ignored, "new.secret"),
    ]:  # fmt: skip
        assert failed and text.startswith(f"refusing to write {path}: it is git-ignored"), text
    assert (project / "local.properties").read_text() == "token=the-users-own\n"
    assert not (project / "new.secret").exists()
    assert tracked == ("wrote 1 line to notes.txt", False) and new == ("wrote 1 line to new.txt", False)
    assert read == ("token=the-users-own", False)  # reading it is fine


def test_outside_a_repository_nothing_counts_as_ignored(tmp_path: Path) -> None:
    project = project_of("npm", tmp_path)
    (tmp_path / ".gitignore").write_text("local.properties\n")
    (tmp_path / "local.properties").write_text("a=1\n")
    _, failed = run(project, lambda client: call(client, "write_file", path="local.properties", content="2"))
    assert not failed and (tmp_path / "local.properties").read_text() == "2"


# --- judge -----------------------------------------------------------------------------------


def test_judge_reads_the_change_against_head(tmp_path: Path) -> None:
    project = project_of("python", tmp_path / "stats")
    repo = Repo(project)
    repo.commit("start", {"stats.py": FLOORED, "tests/test_stats.py": TEST})

    async def session(client: Client) -> list[tuple[str, bool]]:
        unchanged = await call(client, "judge")
        await call(client, "replace", file_path="stats.py", old_string="//", new_string="/")
        await call(client, "write_file", path="NOTES.md", content="why the mean changed\n")  # new, untracked
        fixed = await call(client, "judge")
        await call(client, "replace", file_path="tests/test_stats.py",
                   old_string="    assert mean([1, 2]) == 1.5\n", new_string="    pass\n")  # fmt: skip
        hacked = await call(client, "judge")
        return [unchanged, fixed, hacked]

    unchanged, fixed, hacked = run(project, session)
    head = repo.head()[:12]
    assert unchanged == (f"nothing to judge: the project has no change against HEAD ({head})", False)
    assert fixed == (f"APPROVED: no finding in the change to 2 files against HEAD ({head}).", False)
    text, failed = hacked
    assert not failed and text.startswith("REJECTED: ") and "tests/test_stats.py" in text
    assert repo.git("diff", "--cached", "--name-only") == ""  # the user's index as it was
    assert "?? NOTES.md" in repo.git("status", "--porcelain")


def test_judge_outside_a_repository_says_why(tmp_path: Path) -> None:
    text, failed = run(project_of("npm", tmp_path), lambda client: call(client, "judge"))
    assert failed and text.startswith("the project is not in a git repository: the judge reads the change")


# --- the real process, over each transport ---------------------------------------------------


def test_stdio_serves_a_real_client_and_nothing_else_reaches_stdout(tmp_path: Path) -> None:
    project = project_of("npm", tmp_path)
    (tmp_path / "app.js").write_text("console.log('hi')\n")

    async def main() -> tuple[list[str], tuple[str, bool], str | None]:
        async with connect("stdio", project, mode="legacy") as client:  # as Claude Code connects today
            return await names(client), await call(client, "read_file", path="app.js"), client.instructions

    listed, read, instructions = anyio.run(main)
    assert listed == [*tool_names("mcp", "npm"), "judge"]
    assert read == ("console.log('hi')", False)
    assert instructions and "npm project" in instructions


CLIENT = {"name": "t", "version": "1"}


def test_http_listens_on_loopback_and_refuses_foreign_hosts_and_origins(tmp_path: Path) -> None:
    project = project_of("python", tmp_path)
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT},
    }  # fmt: skip
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with http_server(project) as (url, lines):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        statuses = {}
        for case, extra in {
            "own": {},
            "own origin": {"Origin": f"http://localhost:{port}"},
            "rebound name": {"Host": f"evil.example:{port}"},
            "name starting like a local one": {"Host": f"localhost.evil.example:{port}"},
            "another port": {"Host": f"127.0.0.1:{port + 1}"},
            "another site's page": {"Origin": "http://evil.example"},
            "a file:// page": {"Origin": "null"},
        }.items():
            answer = httpx.post(url, json=initialize, headers={**headers, **extra}, timeout=30)
            statuses[case] = answer.status_code

        async def main() -> list[str]:
            async with Client(url) as client:
                return await names(client)

        listed = anyio.run(main)
    assert statuses == {
        "own": 200, "own origin": 200, "rebound name": 421, "name starting like a local one": 421,
        "another port": 421, "another site's page": 403, "a file:// page": 403,
    }  # fmt: skip
    assert listed == [*tool_names("mcp", "python"), "judge"]
    assert url.startswith("http://127.0.0.1:") and any(f"serving at {url}" in line for line in lines)


def test_a_port_in_use_is_one_line_on_stderr_and_exit_2(tmp_path: Path) -> None:
    # Every other kind of bad input, in process: tests/security/test_sec_bad_inputs.py ("mcp: ...").
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = command(project_of("npm", tmp_path), "--http", str(port))
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                              env={**server_env(), "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"buildfixer: error: cannot listen on 127.0.0.1:{port}: ")
    assert done.stderr.count("\n") == 1
