"""`buildfixer view RUNDIR...`: the viewer served live from 127.0.0.1, reading the runs on every request.

The page is the one a bundle holds; only its data scripts differ: `data.js`, `attempt.js?run=&id=&sample=`,
`instance.js?id=` and `search.js` are built from a fresh read of the run directories, so attempts
finished since the last request appear on reload (the page also polls `data.js`), and a result line
being written (a torn last line) is skipped until it is whole. Like a bundle, they hold no local path
(`local_paths`).

The data scripts would let any web page the user visits read the runs by including them with a
script tag; requests are therefore served only to the viewer's own pages: the Host header must name
this server (no DNS rebinding) and a browser's `Origin` and `Sec-Fetch-Site` must not say another
site asked (`core.http_guard`, which `env serve` shares).
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from buildfixer.bench.rundir import Run
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.http_guard import refusal
from buildfixer.view.assets import CONTENT_TYPES, STATIC, data_script, failure_script, static_file
from buildfixer.view.attempt import attempt_page, search_text
from buildfixer.view.local_paths import machine_places
from buildfixer.view.runs import Source, attempts, find_attempt, index, instance_page, read_source, sources

_log = logging.getLogger(__name__)
HOST = "127.0.0.1"
_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class ViewServer(ThreadingHTTPServer):
    """An HTTP server over the given run directories (one thread per request)."""

    daemon_threads = True  # a slow request never keeps Ctrl-C waiting

    def __init__(self, runs: Sequence[Source], port: int) -> None:
        """Listen on 127.0.0.1:port (0: a free port)."""
        self.runs = list(runs)
        self.places = machine_places([source.path for source in runs])
        super().__init__((HOST, port), _Handler)

    @property
    def url(self) -> str:
        """The address to open."""
        return f"http://{HOST}:{self.server_address[1]}/"

    def read(self) -> list[tuple[Source, Run]]:
        """Every run, read afresh."""
        return [(source, read_source(source)) for source in self.runs]


def _attempt_link(row: dict[str, Any]) -> str:
    return "attempt.js?" + urlencode({"run": row["run"], "id": row["instance_id"], "sample": row["sample"]})


def _instance_link(instance_id: str) -> str:
    return "instance.js?" + urlencode({"id": instance_id})


class _Handler(BaseHTTPRequestHandler):
    server: ViewServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        _log.debug("%s %s", self.address_string(), format % args)

    def _send(self, status: int, body: str | bytes, content_type: str) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")  # the runs change while they are viewed
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", _CSP)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if refusal(self.headers, HOST, self.server.server_address[1]) is not None:
            self._send(403, "forbidden: only the viewer's own pages may read the runs\n", "text/plain")
            return
        url = urlsplit(self.path)
        name = url.path.lstrip("/") or "index.html"
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        if name in STATIC:
            self._send(200, static_file(name), CONTENT_TYPES[Path(name).suffix])
        elif name in _DATA:
            token, make = _DATA[name](query)
            self._send(200, _script(token, lambda: make(self.server), self.server), CONTENT_TYPES[".js"])
        else:
            self._send(404, f"not found: {url.path}\n", "text/plain")


def _script(token: str, make: Callable[[], Any], server: ViewServer) -> str:
    """The data script for `token`, or one that tells the page what went wrong."""
    try:
        return data_script(token, make(), server.places)
    except BuildfixerError as exc:
        if token == "index":  # the page shows it in place of the list
            empty = {"live": True, "runs": [], "attempts": [], "instances": {}}
            return data_script(token, {**empty, "error": str(exc)}, server.places)
        return failure_script(token, str(exc), server.places)
    except Exception:  # a bug must not stop the server: the page and stderr say what happened
        traceback.print_exc(file=sys.stderr)
        return failure_script(token, "the viewer failed to read this (see its terminal)", server.places)


def _index(query: dict[str, str]) -> tuple[str, Callable[[ViewServer], Any]]:
    return "index", lambda server: index(server.read(), _attempt_link, _instance_link, live=True)


def _attempt(query: dict[str, str]) -> tuple[str, Callable[[ViewServer], Any]]:
    run, instance_id, sample = query.get("run", ""), query.get("id", ""), query.get("sample", "")

    def make(server: ViewServer) -> Any:
        if not run.isdigit() or int(run) >= len(server.runs):
            raise BuildfixerError(f"no run {run!r}")
        source = server.runs[int(run)]
        loaded = read_source(source)
        row, result = find_attempt(source, loaded, instance_id, sample)
        return attempt_page(source, loaded, row, result)

    return f"attempt/{run}/{instance_id}/{sample}", make


def _instance(query: dict[str, str]) -> tuple[str, Callable[[ViewServer], Any]]:
    instance_id = query.get("id", "")
    return f"instance/{instance_id}", lambda server: instance_page(server.read(), instance_id)


def _search(query: dict[str, str]) -> tuple[str, Callable[[ViewServer], Any]]:
    def make(server: ViewServer) -> dict[str, str]:
        return {row["key"]: search_text(run, row, result)
                for source, run in server.read() for row, result in attempts(source, run)}  # fmt: skip

    return "search", make


_DATA = {"data.js": _index, "attempt.js": _attempt, "instance.js": _instance, "search.js": _search}


def open_server(paths: Sequence[Path], port: int) -> ViewServer:
    """Check the runs and start listening (not yet serving).

    Raises:
        BuildfixerError: A run is bad, or the port cannot be listened on.
    """
    runs = sources(paths)
    for source in runs:
        read_source(source)  # a corrupt run stops here, with its line number, before anything is served
    if not 0 <= port <= 65535:
        raise BuildfixerError(f"--port {port}: expected 0 (any free port) to 65535")
    try:
        return ViewServer(runs, port)
    except OSError as exc:
        raise BuildfixerError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}") from None


def serve(paths: Sequence[Path], port: int, say: Callable[[str], None]) -> None:
    """Serve the viewer until Ctrl-C (or SIGTERM), then close the socket.

    Args:
        paths: Run directories of `buildfixer bench run`, or trajectory files (run index 0 is the first).
        port: Port on 127.0.0.1; 0 picks a free one.
        say: Prints a line for the user (the URL, and that the server stopped).
    """
    server = open_server(paths, port)
    say(f"buildfixer view: serving {len(server.runs)} run(s) at {server.url} (Ctrl-C stops)")
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        say("buildfixer view: stopped")
    finally:
        server.server_close()
