"""The Model Context Protocol side: a low-level `mcp` SDK server over stdio or streamable HTTP.

Tools block (a build takes seconds to minutes): each call runs in a worker thread, off the event
loop, one at a time per project whichever client or session sends it (`ServedProject.call`). A
call the client cancels (or a server shutting down) stops waiting at once; the tool itself ends
in its thread, and the next call waits for it. While a call runs, a progress notification every
`HEARTBEAT_S` seconds keeps clients that wait on progress from timing out (only when the client
asked for progress).

Over HTTP the server listens on 127.0.0.1 only, and answers only requests whose Host (and Origin,
when there is one) names that address and port: a web page the user opens cannot reach it
through a DNS name rebound to 127.0.0.1 (421 for the Host, 403 for the Origin).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from buildfixer import __version__
from buildfixer.mcp_server.project import ServedProject

HOST = "127.0.0.1"
PATH = "/mcp"
HEARTBEAT_S = 10.0


def make_server(project: ServedProject) -> Server[Any]:
    """The low-level server: `tools/list` from the project's toolset, `tools/call` through `project.call`."""
    reads = types.ToolAnnotations(read_only_hint=True)
    listed = [
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=tool.parameters,
            annotations=reads if tool.name in project.read_only else None,
        )
        for tool in project.tools
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        async with anyio.create_task_group() as group:
            group.start_soon(_heartbeat, ctx, params.name)
            text, failed = await anyio.to_thread.run_sync(
                project.call, params.name, params.arguments, abandon_on_cancel=True
            )
            group.cancel_scope.cancel()
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=failed)

    return Server(
        "buildfixer", version=__version__, instructions=project.instructions(),
        on_list_tools=list_tools, on_call_tool=call_tool,
    )  # fmt: skip


async def _heartbeat(ctx: ServerRequestContext[Any], name: str) -> None:
    """Report progress every HEARTBEAT_S seconds while a tool runs (a no-op unless the client asked)."""
    began = time.monotonic()
    while True:
        await anyio.sleep(HEARTBEAT_S)
        elapsed = time.monotonic() - began
        try:
            await ctx.session.report_progress(elapsed, None, f"{name} running for {elapsed:.0f} s")
        except Exception:  # a client gone or a transport that cannot: the call itself goes on
            return


async def serve_stdio(project: ServedProject) -> None:
    """Serve one client over stdin and stdout until it closes them (stdout carries protocol only)."""
    server = make_server(project)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def listening_socket(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:`port` (0: a free port); connections queue until served."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def local_only(port: int) -> TransportSecuritySettings:
    """Requests must name this server itself: Host 127.0.0.1 or localhost at its port, Origin likewise."""
    hosts = [f"{HOST}:{port}", f"localhost:{port}"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{host}" for host in hosts],
    )


async def serve_http(project: ServedProject, sock: socket.socket, announce: Callable[[str], None]) -> None:
    """Serve streamable HTTP on the listening socket until interrupted; `announce(url)` once it listens."""
    port = sock.getsockname()[1]
    # No idle timeout: a client's session stays valid while its user is away (one user, one machine).
    app = make_server(project).streamable_http_app(
        streamable_http_path=PATH, host=HOST, transport_security=local_only(port), session_idle_timeout=None
    )
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, timeout_graceful_shutdown=5, lifespan="on"
    )
    announce(f"http://{HOST}:{port}{PATH}")
    await uvicorn.Server(config).serve(sockets=[sock])
