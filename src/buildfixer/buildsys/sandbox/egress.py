"""The only way out of a sandbox with network: a proxy that reaches the package registries only.

A sandbox never shares the host's network. One that may use the network joins a network
namespace shared by all such sandboxes (`buildsys.sandbox.netns`), where a forwarder on loopback at
`PROXY_PORT` passes each connection through a Unix socket to the proxy here, outside. The proxy
honours `CONNECT host:443` and plain `http://` requests for allowed hosts only (the registries
Gradle, Maven, pip and npm use, plus `BUILDFIXER_ALLOWED_HOSTS`), and answers anything else with
403 and a line saying how to allow a host. Raw sockets, other ports, DNS and SSH have no route.
Builds find the proxy through the variables `proxy_environment` sets (Java reads properties, not
variables, hence `GRADLE_OPTS`/`MAVEN_OPTS`); a build that drops them simply has no network.
The host's own proxy variables never reach them. buildfixer's own fetches outside a sandbox (the
version look-ups of `buildfixer.deps`, whose repository URLs a project's build files name) obey
the same rule, `destination`, through `checked_url`.
"""

from __future__ import annotations

import os
import re
import select
import socket
import socketserver
import threading
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from buildfixer.buildsys.sandbox.variables import PROXY_VARIABLES

# Loopback port of the forwarder in the shared network namespace.
PROXY_PORT = 39128
# Hosts of the public registries: Maven Central and its mirrors, Gradle's plugin portal and
# distributions, Google's Android repository, JitPack, PyPI, npm and Yarn.
REGISTRY_HOSTS = (
    "repo.maven.apache.org", "repo1.maven.org", "repo.maven.org", "central.sonatype.com",
    "oss.sonatype.org", "s01.oss.sonatype.org", "plugins.gradle.org", "plugins-artifacts.gradle.org",
    "services.gradle.org", "downloads.gradle.org", "downloads.gradle-dn.com", "dl.google.com",
    "maven.google.com", "jcenter.bintray.com", "jitpack.io", "repo.gradle.org",
    "pypi.org", "files.pythonhosted.org", "pypi.python.org",
    "registry.npmjs.org", "registry.yarnpkg.com", "repo.yarnpkg.com",
)  # fmt: skip
# The name under which a sandbox reaches a loopback service of buildfixer's own on the host (the
# dated package index), port by port as `expose_loopback` allows.
LOOPBACK_ALIAS = "buildfixer-host.internal"
_HEAD_LIMIT = 64 * 1024
_exposed: set[int] = set()


def allowed_hosts(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The registry hosts plus those in `BUILDFIXER_ALLOWED_HOSTS` (comma or space separated)."""
    extra = (environ if environ is not None else os.environ).get("BUILDFIXER_ALLOWED_HOSTS", "")
    added = [h.strip().lower().rstrip(".") for h in extra.replace(",", " ").split() if h.strip()]
    exposed = [f"{LOOPBACK_ALIAS}:{port}" for port in sorted(_exposed)]
    return tuple(dict.fromkeys([*REGISTRY_HOSTS, *added, *exposed]))


def expose_loopback(url: str) -> str:
    """`url` (a server of ours on 127.0.0.1) as sandboxes reach it through the proxy."""
    parts = urllib.parse.urlsplit(url)
    if parts.hostname != "127.0.0.1" or parts.port is None:
        raise ValueError(f"not a loopback URL with a port: {url}")
    _exposed.add(parts.port)
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{LOOPBACK_ALIAS}:{parts.port}"))


def host_allowed(host: str, allowed: Iterable[str]) -> bool:
    """Whether `host` is allowed: named exactly, or under a `.suffix` entry (`.example.com`)."""
    host = host.lower().rstrip(".")
    return any(host == a or (a.startswith(".") and host.endswith(a)) for a in allowed)


def destination(host: str, port: str | int, allowed: Iterable[str]) -> str | None:
    """Where a connection asked for `host:port` may go, by the proxy's rule; None when refused.

    An allowed host on port 80 or 443 goes to that host; `LOOPBACK_ALIAS` on a port that
    `expose_loopback` exposed goes to 127.0.0.1; anything else (another host or port, an IP
    literal or `localhost` not named in the allow-list) is refused.
    """
    allowed = tuple(allowed)
    if host.lower() == LOOPBACK_ALIAS and f"{LOOPBACK_ALIAS}:{port}" in allowed:
        return "127.0.0.1"  # a service of buildfixer's own, exposed port by port
    if str(port) in ("80", "443") and host_allowed(host, allowed):
        return host
    return None


class RefusedURL(ValueError):
    """A URL that buildfixer may not fetch outside a sandbox; the message says why."""


def checked_url(url: str, allowed: Iterable[str] | None = None) -> str:
    """`url` as a fetch outside a sandbox may request it, by the rule the proxy applies.

    Only `http` and `https`, no user info (`https://repo.maven.apache.org@127.0.0.1/` is refused,
    whatever a parser would make of it), a plain host name or address, and a destination
    `destination` allows on the scheme's port or the one written. A URL of a service of ours
    exposed under `LOOPBACK_ALIAS` comes back addressed to 127.0.0.1; any other comes back rebuilt
    from the parts checked, so what is fetched is what was checked.

    Args:
        url: The URL, from wherever (a project's build file, a redirect).
        allowed: The allow-list; `allowed_hosts()` when None.

    Raises:
        RefusedURL: the URL may not be fetched.
    """
    if not url.isprintable() or any(c.isspace() for c in url):
        raise RefusedURL(f"not fetched: {url!r} has spaces or control characters")
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise RefusedURL(f"not fetched: {url} is not http(s)")
    if "@" in parts.netloc:
        raise RefusedURL(f"not fetched: {url} has user info before its host")
    try:
        host, port = parts.hostname or "", parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise RefusedURL(f"not fetched: {url} has no valid port") from None
    literal = r"[0-9A-Fa-f:.]+" if parts.netloc.startswith("[") else r"[A-Za-z0-9.-]+"  # [IPv6] or a name
    if not re.fullmatch(literal, host):
        raise RefusedURL(f"not fetched: {url} has no plain host name")
    target = destination(host, port, allowed_hosts() if allowed is None else allowed)
    if target is None:
        why = f"the package registries only, not {host}:{port}; add a host with BUILDFIXER_ALLOWED_HOSTS"
        raise RefusedURL(f"not fetched: {url}: buildfixer fetches from {why}")
    netloc = f"[{target}]" if ":" in target else target
    if parts.port is not None or target != host:
        netloc += f":{port}"
    return urllib.parse.urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def proxy_environment(env: dict[str, str]) -> dict[str, str]:
    """`env` with the variables that send every build tool through the forwarder on loopback."""
    proxy = f"http://127.0.0.1:{PROXY_PORT}"
    java = " ".join(f"-D{scheme}.proxy{key}={value}" for scheme in ("http", "https")
                    for key, value in (("Host", "127.0.0.1"), ("Port", PROXY_PORT)))  # fmt: skip
    env = {name: value for name, value in env.items() if name not in PROXY_VARIABLES}  # the host's: never
    env.update(dict.fromkeys(("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"), proxy))
    env["no_proxy"] = env["NO_PROXY"] = "localhost,127.0.0.1,::1"
    for name in ("GRADLE_OPTS", "MAVEN_OPTS"):  # Java reads no proxy variables, only properties
        env[name] = f"{env.get(name, '')} {java}".strip()
    return env


def serve_proxy(path: Path, allowed: Callable[[], tuple[str, ...]]) -> socketserver.BaseServer:
    """Serve the proxy on a Unix socket at `path` (in a thread); `allowed` is asked per request."""
    server = _Server(str(path), _Handler)
    server.allowed = allowed
    threading.Thread(target=server.serve_forever, name="egress-proxy", daemon=True).start()
    return server


class _Handler(socketserver.BaseRequestHandler):
    """One connection from inside a sandbox: a CONNECT tunnel or a plain HTTP request."""

    server: _Server

    def handle(self) -> None:
        client: socket.socket = self.request
        client.settimeout(60)
        try:
            head = _read_head(client)
            method, target, version = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
        except (OSError, ValueError):
            return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            rest = b""
        elif target.startswith("http://"):
            authority, _, path = target.removeprefix("http://").partition("/")
            host, _, port = authority.rpartition(":") if ":" in authority else (authority, "", "80")
            rest = f"{method} /{path} {version}".encode() + head[head.index(b"\r\n") :]
        else:
            return _refuse(client, 400, "the sandbox's proxy takes CONNECT or http:// requests")
        host = host.strip("[]")
        reach = destination(host, port, self.server.allowed())
        if reach is None:
            why = f"the package registries only, not {host}:{port}; add a host with BUILDFIXER_ALLOWED_HOSTS"
            return _refuse(client, 403, f"buildfixer's sandbox allows network access to {why}")
        try:
            upstream = socket.create_connection((reach, int(port)), timeout=30)
        except OSError as exc:
            return _refuse(client, 502, f"cannot reach {host}:{port} ({exc})")
        with upstream:
            if method == "CONNECT":
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                upstream.sendall(rest)
            _relay(client, upstream)


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allowed: Callable[[], tuple[str, ...]]


def _read_head(sock: socket.socket) -> bytes:
    """The request line and headers, and whatever body bytes came with them."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk or len(data) > _HEAD_LIMIT:
            raise ValueError("no request head")
        data += chunk
    return data


def _refuse(client: socket.socket, status: int, why: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    body = (why + "\n").encode()
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
    client.sendall(head.encode() + b"Connection: close\r\n\r\n" + body)


def _relay(a: socket.socket, b: socket.socket) -> None:
    """Copy both ways until either side closes or nothing moves for five minutes."""
    a.setblocking(True)
    b.setblocking(True)
    peers = {a: b, b: a}
    while True:
        ready, _, _ = select.select(list(peers), [], [], 300)
        if not ready:
            return
        for sock in ready:
            try:
                data = sock.recv(65536)
                if not data:
                    return
                peers[sock].sendall(data)
            except OSError:
                return
