"""A local "simple" package index that shows pip only the files uploaded before a cut-off.

pip's own date filter (`--uploaded-prior-to`, pip 26) reads upload times only from PEP 691 JSON,
which some PyPI mirrors do not serve, although their HTML pages often carry the times as
`data-upload-time` attributes. This proxy reads either, drops every file uploaded at or after
the cut-off and serves the rest as PEP 503 HTML or PEP 691 JSON, whichever the client asks for.
File URLs stay the upstream's absolute URLs: downloads go straight to the file host.

One server per process (127.0.0.1, an ephemeral port, a daemon thread) is started by the first
`index_url` call; its URLs are `/<site>/<cut-off>/simple/<project>/`. A site is an upstream
index and a cache directory, registered by `index_url` under an opaque id, so that credentials
in the upstream URL never appear in pip's output.

A page that gives no upload time for any of its files is served empty (pip then reports "from
versions: none") and logged: serving it whole would hand out today's files as if they were dated.
Within a page that has times, files without one are dropped too.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import logging
import os
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from buildfixer.buildsys.index_pages import (
    JSON_TYPE,
    JSON_TYPES,
    IndexFile,
    normalize_dist,
    parse_html,
    parse_json,
    render_index_html,
    render_index_json,
    wants_json,
)
from buildfixer.buildsys.options import parse_as_of

_log = logging.getLogger(__name__)

PYPI_SIMPLE = "https://pypi.org/simple/"
# Upstream pages are kept this long; a cut-off later than a page's fetch time refetches it.
MAX_AGE_S = 86400.0
# JSON first; some mirrors also add `data-upload-time` to their HTML only when asked like this.
_ACCEPT = f"{JSON_TYPE}, text/html;q=0.1"
_TOKEN = "%Y%m%dT%H%M%SZ"
_TIMEOUT_S = 120.0
_CACHE_VERSION = 1


class UpstreamError(Exception):
    """The upstream index could not be read; the message names it without credentials."""


def index_url(as_of: str, cache_dir: Path, upstream: str | None = None) -> str:
    """URL of a simple index with only the files uploaded before `as_of`, for pip's `--index-url`.

    Starts the process-wide server on first use.

    Args:
        as_of: The cut-off, an ISO 8601 timestamp (UTC when it has no zone).
        cache_dir: Upstream pages are cached under `cache_dir / "dated-index"`.
        upstream: The index to filter; `PIP_INDEX_URL`, else PyPI, when None.

    Raises:
        BuildfixerError: `as_of` is not an ISO 8601 timestamp.
    """
    token = parse_as_of(as_of).strftime(_TOKEN)
    upstream = upstream or os.environ.get("PIP_INDEX_URL") or PYPI_SIMPLE
    port, site = _PROXY.register(upstream.rstrip("/") + "/", cache_dir)
    return f"http://127.0.0.1:{port}/{site}/{token}/simple/"


def split_credentials(url: str) -> tuple[str, str | None]:
    """The URL without its `user:password@` part, and that part (None when there is none)."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, host = parts.netloc.rsplit("@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=host)), userinfo


# --- the server -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Site:
    upstream: str  # may hold credentials: never logged, never in a URL we hand out
    cache: Path


class _Proxy:
    """The process-wide server and the sites it serves; started lazily, thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._sites: dict[str, _Site] = {}
        self._fetching: dict[Path, threading.Lock] = {}
        self._pid = 0  # a forked child has the server object but not its thread: it starts its own

    def register(self, upstream: str, cache: Path) -> tuple[int, str]:
        """The server's port and the id of this site, starting the server if needed."""
        site = hashlib.sha256(f"{upstream}\0{cache.resolve()}".encode()).hexdigest()[:12]
        with self._lock:
            self._sites[site] = _Site(upstream, cache)
            if self._server is None or self._pid != os.getpid():
                self._server, self._pid = _Server(("127.0.0.1", 0), _Handler), os.getpid()
                self._server.proxy = self
                thread = threading.Thread(target=self._server.serve_forever, name="dated-index", daemon=True)
                thread.start()
            return self._server.server_address[1], site

    def respond(self, path: str, accept: str) -> tuple[int, str, bytes]:
        """Status, content type and body for a GET of `path`."""
        parts = [urllib.parse.unquote(p) for p in urllib.parse.urlsplit(path).path.split("/") if p]
        if len(parts) != 4 or parts[2] != "simple":
            return 404, "text/plain", b"only /<site>/<cut-off>/simple/<project>/ is served\n"
        site, cutoff = self._sites.get(parts[0]), _time(parts[1])
        if site is None or cutoff is None:
            return 404, "text/plain", b"unknown site or cut-off\n"
        project = normalize_dist(parts[3])
        if not re.fullmatch(r"[a-z0-9-]+", project):  # it names a cache file
            return 404, "text/plain", b"not a project name\n"
        try:
            files = self._files(site, project, cutoff)
        except UpstreamError as exc:
            _log.warning("dated index: %s", exc)
            return 502, "text/plain", f"{exc}\n".encode()
        if files is None:
            return 404, "text/plain", f"{project}: not on the upstream index\n".encode()
        # Links never carry the upstream's credentials: the pages are read by sandboxed builds.
        dated = _before(files, cutoff, project)
        if wants_json(accept):
            return 200, JSON_TYPE, render_index_json(project, dated)
        return 200, "text/html; charset=utf-8", render_index_html(project, dated)

    def _files(self, site: _Site, project: str, cutoff: datetime) -> list[IndexFile] | None:
        """The project's files on the upstream index (cached); None when it has no such project."""
        key = hashlib.sha256(split_credentials(site.upstream)[0].encode()).hexdigest()[:16]
        path = site.cache / "dated-index" / key / f"{project}.json"
        with self._lock:
            lock = self._fetching.setdefault(path, threading.Lock())
        with lock:  # pip retries a slow page: the retry waits for the first fetch, then reads the cache
            files = _read_cache(path, cutoff)
            if files is None:
                files = _fetch(site.upstream, project)
                if files is not None:
                    _write_cache(path, files)
            return files


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    proxy: _Proxy


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        try:
            status, content_type, body = self.server.proxy.respond(self.path, self.headers.get("Accept", ""))
        except Exception:  # a bug here must fail one request, not the server
            _log.exception("dated index: %s", self.path)
            status, content_type, body = 500, "text/plain", b"internal error of the dated index\n"
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        _log.debug("dated index: " + format, *args)


_PROXY = _Proxy()


# --- filtering --------------------------------------------------------------------------------


def _time(value: str | None) -> datetime | None:
    """An ISO 8601 time (UTC when it has no zone; a cut-off token too); None when absent or unreadable."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _before(files: list[IndexFile], cutoff: datetime, project: str) -> list[IndexFile]:
    """The files uploaded before the cut-off; none at all when the page gives no times."""
    times = [_time(f.upload_time) for f in files]
    if files and all(t is None for t in times):
        _log.warning(
            "dated index: the upstream page of %s gives no upload times; served without files "
            "(pip will find no versions) rather than with today's",
            project,
        )
        return []
    return [f for f, t in zip(files, times, strict=True) if t is not None and t < cutoff]


# --- upstream pages ---------------------------------------------------------------------------


def _fetch(upstream: str, project: str) -> list[IndexFile] | None:
    """Read the project's page from the upstream index; None on 404.

    Raises:
        UpstreamError: any other failure (network, HTTP status, unreadable page).
    """
    url, userinfo = split_credentials(urllib.parse.urljoin(upstream, f"{project}/"))
    headers = {"Accept": _ACCEPT, "User-Agent": "buildfixer-dated-index"}
    if userinfo is not None:
        # urllib does not send URL credentials by itself; pip would, so a private index works.
        user, _, password = userinfo.partition(":")
        login = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}"
        headers["Authorization"] = "Basic " + base64.b64encode(login.encode()).decode()
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers=headers), timeout=_TIMEOUT_S
        ) as answer:
            body, content_type, final = answer.read(), answer.headers.get_content_type(), answer.geturl()
            charset = answer.headers.get_content_charset() or "utf-8"
        if content_type in JSON_TYPES:
            return parse_json(json.loads(body), final)
        return parse_html(body.decode(charset, errors="replace"), final)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise UpstreamError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, http.client.HTTPException) as exc:
        # A network failure or a page we cannot read: pip gets a 502 and says so.
        raise UpstreamError(f"{url}: {exc}") from None


def _read_cache(path: Path, cutoff: datetime) -> list[IndexFile] | None:
    """Cached files when fresh and fetched after the cut-off (an older copy may lack later uploads)."""
    try:
        data = json.loads(path.read_text())
        fetched = data["fetched"]
        if data.get("version") != _CACHE_VERSION or fetched < max(
            time.time() - MAX_AGE_S, cutoff.timestamp()
        ):
            return None
        return [IndexFile(**item) for item in data["files"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_cache(path: Path, files: list[IndexFile]) -> None:
    """Write atomically (concurrent builds read the same cache); a failure only costs a refetch."""
    data = {"version": _CACHE_VERSION, "fetched": time.time(), "files": [asdict(f) for f in files]}
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)
    except OSError as exc:
        _log.warning("dated index: cannot cache %s: %s", path, exc)
        tmp.unlink(missing_ok=True)
