"""`buildfixer mcp` as an agent reaches it: the `mcp` SDK's own client over stdio or streamable HTTP.

`connect(transport, project, *options)` starts the server as a process (`python -m buildfixer mcp`)
and yields a connected `mcp.Client`; `undo_variant(example)` gives the edits that repair a bundled
example (its breaking patch taken back, hunk by hunk), for the client to make with `replace`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from unidiff import PatchSet

from buildfixer.examples import Example

URL = re.compile(r"http://127\.0\.0\.1:\d+/mcp")


def server_env() -> dict[str, str]:
    """What a client passes the server beyond its minimal default environment: buildfixer's settings.

    The SDK's stdio client gives a server only HOME, PATH, SHELL, TERM, USER and LOGNAME (an MCP
    client's configuration names the rest); the tests' cache settings are all it needs.
    """
    return {k: v for k, v in os.environ.items() if k.startswith("BUILDFIXER_")}


def command(project: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "buildfixer", "mcp", str(project), *options]


@contextmanager
def http_server(project: Path, *options: str, wait_s: float = 60.0) -> Iterator[tuple[str, list[str]]]:
    """`buildfixer mcp PROJECT --http 0` running: (its URL, the stderr lines so far, still filling)."""
    proc = subprocess.Popen(
        command(project, "--http", "0", *options),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **server_env()},
    )  # fmt: skip
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:  # drained to the end, so the server never blocks on a full pipe
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if URL.search(line):
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + wait_s
        while not found.wait(0.1):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no URL from the server (exit {proc.poll()}): {''.join(lines)}")
        url = next(m.group() for line in lines if (m := URL.search(line)))
        yield url, lines
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
        assert proc.stdout is not None
        assert proc.stdout.read() == "", "the server wrote to stdout"
        proc.stdout.close()


@asynccontextmanager
async def connect(transport: str, project: Path, *options: str, mode: str = "auto") -> AsyncIterator[Client]:
    """A client connected to `buildfixer mcp PROJECT` over "stdio" or "http" (a server of its own)."""
    if transport == "stdio":
        argv = command(project, *options)
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=server_env())
        async with Client(params, mode=mode) as client:
            yield client
    else:
        with http_server(project, *options) as (url, _):
            async with Client(url, mode=mode) as client:
                yield client


def undo_variant(example: Example) -> list[tuple[str, str, str]]:
    """(file, broken text, original text) per hunk of the example's breaking patch, context included."""
    edits = []
    for patched in PatchSet(example.patch_path.read_text(encoding="utf-8")):
        for hunk in patched:
            broken = "".join(line.value for line in hunk if not line.is_removed)
            original = "".join(line.value for line in hunk if not line.is_added)
            edits.append((patched.path, broken, original))
    return edits
