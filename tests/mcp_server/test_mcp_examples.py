"""An agent's session with `buildfixer mcp` on each build system's bundled broken example, for real.

The SDK's client starts the server as a process (stdio for two build systems, streamable HTTP
for the other two: both transports carry real builds), lists the tools, builds (the analyzed
failure: category, root error at its file and line), reads the file and repairs it with
`replace`, builds again (success), and has the change judged against HEAD. The example is a
committed git checkout with a git-ignored file of the user's, which stays as it was. No model:
the client makes the edits an agent would.
"""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest
from mcp import Client

from buildfixer.examples import Example, get_example, materialize
from buildfixer.tools.presets import tool_names
from support.git import Repo, git
from support.mcp_clients import connect, undo_variant

SESSIONS = [
    ("gradle-app/syntax-error", "stdio"),
    ("maven-app/missing-parameter", "http"),
    ("python-app/syntax-error", "http"),
    ("npm-app/syntax-error", "stdio"),
]
USER_FILE = ("user.env", "TOKEN=the-users-own\n")


def user_checkout(example: Example, dest: Path) -> Path:
    """The broken example as a user has it: committed, with a git-ignored file of their own."""
    root = materialize(example, dest)
    with (root / ".gitignore").open("a") as ignore:
        ignore.write(f"\n{USER_FILE[0]}\n")
    Repo(root).commit("broken")
    (root / USER_FILE[0]).write_text(USER_FILE[1])
    return root


async def text_of(client: Client, name: str, **arguments: object) -> str:
    result = await client.call_tool(name, arguments)
    (content,) = result.content
    assert content.type == "text"
    assert not result.is_error, f"{name} failed: {content.text}"
    return content.text


@pytest.mark.slow
@pytest.mark.parametrize("name, transport", SESSIONS, ids=[name.split("/")[0] for name, _ in SESSIONS])
def test_list_build_edit_rebuild_to_green(tmp_path: Path, name: str, transport: str) -> None:
    example = get_example(name)
    project = user_checkout(example, tmp_path / example.project)

    async def session() -> dict[str, object]:
        async with connect(transport, project) as client:
            seen: dict[str, object] = {"tools": [tool.name for tool in (await client.list_tools()).tools]}
            seen["failed"] = await text_of(client, "run_build")
            for file, broken, original in undo_variant(example):
                assert broken.strip() in await text_of(client, "read_file", path=file)
                await text_of(client, "replace", file_path=file, old_string=broken, new_string=original)
            seen["built"] = await text_of(client, "run_build")
            seen["judged"] = await text_of(client, "judge")
            return seen

    seen = anyio.run(session)
    assert seen["tools"] == [*tool_names("mcp", example.build_system), "judge"]
    failed = str(seen["failed"])
    assert failed.startswith("BUILD FAILED"), failed
    assert f"category: {example.category}" in failed
    where = f"{example.root_file}:{example.root_line}" if example.root_line else str(example.root_file)
    root_error = re.search(r"^Root error \[.*$", failed, re.M)
    assert root_error and where in root_error.group() and example.message_contains in failed, failed
    assert str(seen["built"]).startswith("BUILD SUCCESSFUL"), seen["built"]
    assert str(seen["judged"]).startswith("APPROVED: no finding in the change to"), seen["judged"]
    assert (project / USER_FILE[0]).read_text() == USER_FILE[1]
    edited = sorted({file for file, _, _ in undo_variant(example)})
    assert git(project, "status", "--porcelain", raw=True).splitlines() == [f" M {file}" for file in edited]
