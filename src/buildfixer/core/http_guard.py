"""Which HTTP requests buildfixer's own servers answer (the viewer's live server, `env serve`).

Both listen on 127.0.0.1 by default, where any web page the user visits can reach them: it can send
them a request from its own site (a cross-site POST needs no permission), or rebind a name of its own
to 127.0.0.1 (DNS rebinding) so the browser treats the server as that site. A request is therefore
served only when its Host header names this server (a name it listens on, never another site's) and
a browser, when one sent it, does not say another site asked (`Origin`, `Sec-Fetch-Site`). Clients
that are not browsers (a trainer's HTTP library, curl) send neither header and are not affected.
"""

from __future__ import annotations

import ipaddress
import socket
from email.message import Message

_LOOPBACK = frozenset({"127.0.0.1", "localhost", "[::1]"})
_WILDCARDS = frozenset({"", "0.0.0.0", "::"})
_SAME_SITE = frozenset({"same-origin", "none"})  # `none`: the user typed the address


def _spelled(host: str) -> str:
    """A host as a Host header names it: IPv6 addresses in brackets, lower case."""
    host = host.lower()
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def refusal(headers: Message, host: str, port: int) -> str | None:
    """Why a request to a server listening on `host`:`port` is refused, or None to serve it.

    The Host header must be `NAME:port` with NAME a loopback name (127.0.0.1, localhost, [::1]) or
    `host` as configured. A server put on every interface on purpose (`0.0.0.0`, `::`) is reached by
    the machine's addresses, so any IP address is a good NAME there, and so is the machine's host
    name; another DNS name is refused (it may be rebound), unless the server is started with it.
    Then a browser's `Origin`, when sent, must be this very server, and its `Sec-Fetch-Site`, when
    sent, `same-origin` or `none`: a request another site made is refused (403) whatever the Host.

    Args:
        headers: The request's headers.
        host: The address the server was told to listen on (as given: a name, an address, `0.0.0.0`).
        port: The port it listens on (the real one when it was told 0).
    """
    given = (headers.get("Host") or "").strip().lower()
    name, colon, asked_port = given.rpartition(":")
    everywhere = host in _WILDCARDS
    names = _LOOPBACK | {_spelled(socket.gethostname() if everywhere else host)}
    known = name in names or (everywhere and _is_address(name))
    if not colon or asked_port != str(port) or not known:
        return f"Host {given or '(none)'} does not name this server"
    origin = headers.get("Origin")
    if origin is not None and origin.lower() != f"http://{given}":
        return f"a cross-site request (from {origin})"
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site.lower() not in _SAME_SITE:
        return f"a cross-site request (Sec-Fetch-Site: {site})"
    return None
