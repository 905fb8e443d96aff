"""Is a model endpoint there at all? One short request before any build, so a dead URL costs seconds.

A refused connection, an unknown host, a URL that is no HTTP endpoint or a refused key cannot
heal by retrying: they are setup errors, told in one line naming the endpoint. Anything else the
server answers (404 on a path it lacks, 429, 5xx, a slow reply) means it is there: those are the
calls' business, with their retries.
"""

from __future__ import annotations

import errno
import socket
import urllib.parse

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.terminal import visible

# A reachable server answers a listing within this; a local server busy writing a reply may take
# longer to answer, but it has accepted the connection, which is all that is asked.
PROBE_TIMEOUT_S = 5.0


class EndpointUnreachable(BuildfixerError):
    """The model endpoint refused the connection, does not exist, or refused the key."""


def shown_endpoint(url: str) -> str:
    """The endpoint as it may be printed: no user:password, no query (keys travel there), no controls."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return visible(url[:200])
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        port = ""
    return visible(urllib.parse.urlunsplit((parts.scheme, host + port, parts.path, "", ""))[:200])


def _cause(exc: BaseException) -> str:
    """Why a connection failed, in words: the OS error under httpx's wrapper when there is one."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, socket.gaierror):
            return "unknown host"
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused"
        if isinstance(seen, OSError) and seen.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "network unreachable"
        seen = seen.__cause__ or seen.__context__
    text = str(exc).lower()
    for needle, cause in (
        ("name or service not known", "unknown host"),
        ("temporary failure in name resolution", "unknown host"),
        ("nodename nor servname", "unknown host"),
        ("connection refused", "connection refused"),
        ("unreachable", "network unreachable"),
    ):
        if needle in text:
            return cause
    return visible(str(exc).splitlines()[0][:160]) if str(exc) else type(exc).__name__


def check_reachable(
    base_url: str, api_key: str | None = None, *, key_known: bool = True, timeout_s: float = PROBE_TIMEOUT_S
) -> None:
    """Ask `base_url`/models once; raise when the endpoint cannot be used at all.

    `api_key` is the key the calls will send; `key_known` false means they may send another one
    (found by litellm where we cannot see it), so a refusal of ours proves nothing: the first call
    will say.

    Raises:
        EndpointUnreachable: One line naming the endpoint and the cause: connection refused,
            unknown host, no answer to a connection within `timeout_s`, not an HTTP URL, or the
            key refused (HTTP 401/403).
    """
    import httpx  # lazy: a litellm dependency, needed only when a model is about to be used

    shown = shown_endpoint(base_url)
    url = base_url.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = httpx.get(url, headers=headers, timeout=timeout_s, follow_redirects=False)
    except (httpx.UnsupportedProtocol, httpx.InvalidURL):
        raise EndpointUnreachable(
            f"model endpoint {shown} is not an http(s) URL: set BUILDFIXER_API_BASE to e.g. "
            " http://127.0.0.1:8080/v1"
        ) from None
    except httpx.ConnectTimeout:
        raise EndpointUnreachable(
            f"model endpoint {shown} cannot be reached: no connection within {timeout_s:g}s"
        ) from None
    except (httpx.ConnectError, httpx.NetworkError) as exc:
        raise EndpointUnreachable(f"model endpoint {shown} cannot be reached: {_cause(exc)}") from None
    except httpx.HTTPError:  # a read timeout or a broken reply: something is listening there
        return
    if response.status_code in (401, 403) and key_known:
        raise EndpointUnreachable(
            f"model endpoint {shown} refused the key (HTTP {response.status_code}): set BUILDFIXER_API_KEY "
            "(or the provider's usual variable) to a key it accepts"
        )
