"""What `buildfixer mcp` does once its options are parsed (cli.mcp declares it; docs/MCP.md).

Imported when the command runs: the server and the `mcp` SDK under it (starlette, uvicorn,
pydantic) load with it, never for `buildfixer --help`.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path

import anyio

from buildfixer.buildsys.options import BuildOptions, project_domain
from buildfixer.buildsys.sandbox.backends import get_sandbox
from buildfixer.cli.settings import NO_SANDBOX_NOTE, with_sandbox
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.terminal import visible
from buildfixer.harness.checks import check_jdk, check_number, check_seconds
from buildfixer.mcp_server.project import ServedProject
from buildfixer.mcp_server.server import listening_socket, serve_http, serve_stdio


def serve_command(
    path: Path, http: int | None, toolset: str, mask: str, jdk: int | None, timeout: float, offline: bool,
    memory_trust: str, no_sandbox: bool,
) -> int:  # fmt: skip
    """Check everything, then serve until the client leaves (stdio) or the server is stopped (HTTP)."""
    check_seconds("--timeout", timeout)
    check_jdk(jdk)
    if http is not None:
        check_number("--http", http, whole=True, low=0, high=65535)
    options = BuildOptions(jdk=jdk, timeout_s=timeout, offline=offline, trust_domain=project_domain(path))
    with_sandbox(options, no_sandbox)
    get_sandbox(options.sandbox)  # a sandbox that cannot start is told now, not at the first build
    project = ServedProject(path, toolset, mask, options, memory_trust)
    # stdout is the protocol's in stdio mode: the SDK's and uvicorn's warnings go to stderr.
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="buildfixer mcp: %(name)s: %(message)s"
    )
    try:
        sock = None
        if http is not None:
            try:
                sock = listening_socket(http)
            except OSError as exc:
                raise BuildfixerError(f"cannot listen on 127.0.0.1:{http}: {exc.strerror or exc}") from None

        def stop(signum: int, frame: object) -> None:
            """SIGTERM or Ctrl-C: end the project's builds, then the process, at once.

            Unwinding would wait for the tool's thread, and in stdio mode for a thread reading a
            stdin the client may never close. The sandboxes die with the process anyway.
            """
            say("buildfixer mcp: stopped")
            project.close()
            os._exit(128 + signum)

        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, stop)
        names = ", ".join(tool.name for tool in project.tools)
        say(f"buildfixer mcp: {project.ctx.root} ({project.ctx.build_system}); tools: {names}")
        if no_sandbox:
            say(NO_SANDBOX_NOTE)
        if sock is None:
            anyio.run(serve_stdio, project)
        else:
            anyio.run(serve_http, project, sock, lambda url: say(f"buildfixer mcp: serving at {url}"))
    finally:
        project.close()
    return 0


def say(line: str) -> None:
    """A line for the person who started the server: on stderr, never on stdout."""
    print(visible(line), file=sys.stderr, flush=True)
