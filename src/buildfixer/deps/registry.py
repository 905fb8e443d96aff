"""Which versions of a dependency exist: the local caches and, when online, the public registries.

Names by ecosystem: "group:artifact" for Maven/Gradle (a Gradle plugin id is looked up through
its marker artifact "id:id.gradle.plugin"), the distribution name for pip, the package name
for npm. Registry answers are cached in `cache_dir/registry` for a day; offline, or when the
network fails, only the caches answer. Every fetch (`http_get`, redirects included) obeys the
sandboxes' egress rule (`buildfixer.buildsys.sandbox.egress.checked_url`): a repository a project's build
file names on the host's loopback, a cloud metadata address or any host off the allow-list is
skipped with a logged note, never asked. Where the caches are and what they hold is
`buildfixer.deps.caches`; the package -> artifact and module -> distribution indexes live in
`buildfixer.deps.package_index`; ordering and choosing versions is `buildfixer.deps.versions`.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from typing import IO

from buildfixer.buildsys.index_pages import normalize_dist
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.sandbox.egress import RefusedURL, checked_url
from buildfixer.deps.caches import jvm_cached_versions, npm_cached_packages
from buildfixer.deps.package_index import python_distributions
from buildfixer.deps.versions import (
    python_version_key,
    version_key,
)

__all__ = [
    "GOOGLE_MAVEN",
    "GRADLE_PLUGINS",
    "JVM",
    "MAVEN_CENTRAL",
    "NPM_REGISTRY",
    "PYPI",
    "TIMEOUT_S",
    "RefusedURL",
    "TTL_S",
    "available_versions",
    "cached_versions",
    "http_get",
    "registry_versions",
    "version_key",
]

MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
GOOGLE_MAVEN = "https://dl.google.com/dl/android/maven2"
GRADLE_PLUGINS = "https://plugins.gradle.org/m2"
PYPI = "https://pypi.org/pypi"
NPM_REGISTRY = "https://registry.npmjs.org"
TTL_S = 24 * 3600
TIMEOUT_S = 15.0
JVM = ("gradle", "maven")
_log = logging.getLogger(__name__)


# --- local caches ----------------------------------------------------------------------------


def cached_versions(system: str, name: str, options: BuildOptions) -> set[str]:
    """Versions of a dependency present in this machine's caches."""
    if system in JVM:
        return jvm_cached_versions(name, options)
    if system == "npm":
        return npm_cached_packages(options).get(name, set())
    if system == "python":
        return python_distributions(options).get(normalize_dist(name), set())
    return set()


# --- registries ------------------------------------------------------------------------------


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects checked like the first URL: one to a host off the allow-list is refused.

    A relative `Location` is read against the URL as asked (a service of ours by its alias), not
    as fetched (127.0.0.1), so it stays on the same exposed port and nowhere else.
    """

    def __init__(self, asked: str) -> None:
        super().__init__()
        self.asked = asked

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        location = headers.get("location") or headers.get("uri") or newurl
        asked = urllib.parse.urljoin(self.asked, location.strip())
        try:
            target = checked_url(asked)
        except RefusedURL:
            fp.close()
            raise  # ends the fetch: nothing is sent to the new location
        self.asked = asked
        return super().redirect_request(req, fp, code, msg, headers, target)


def http_get(url: str, accept: str) -> bytes | None:
    """The body of a GET; None for 404/410.

    Raises:
        RefusedURL: `url`, or a redirect, goes where the egress rule forbids (a ValueError, like
            an unreadable answer); nothing was sent there.
        OSError: network failures.
    """
    target = checked_url(url)
    request = urllib.request.Request(target, headers={"User-Agent": "buildfixer", "Accept": accept})
    handlers: list[urllib.request.BaseHandler] = [_CheckedRedirects(url)]
    if urllib.parse.urlsplit(target).hostname == "127.0.0.1":  # a service of ours: never via a proxy
        handlers.append(urllib.request.ProxyHandler({}))
    try:
        with urllib.request.build_opener(*handlers).open(request, timeout=TIMEOUT_S) as response:
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as exc:
        if exc.code in (404, 410):
            return None
        raise OSError(f"HTTP {exc.code}") from None


def _cached_fetch(
    url: str, options: BuildOptions, parse: Callable[[bytes], list[str]], accept: str = "*/*"
) -> list[str] | None:
    """Versions a registry URL lists, from the day-long cache or the network; None when unknown.

    A URL the egress rule refuses (or that redirects where it refuses) is skipped with a note.
    """
    try:
        checked_url(url)
    except RefusedURL as exc:
        _log.warning("version look-up skipped: %s", exc)
        return None
    store = options.cache_dir / "registry" / (hashlib.sha256(url.encode()).hexdigest()[:24] + ".json")
    try:
        saved = json.loads(store.read_text())
        if time.time() - float(saved["time"]) < TTL_S and saved.get("url") == url:
            return [str(v) for v in saved["versions"]]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    if options.offline:
        return None
    try:
        body = http_get(url, accept)
        versions = parse(body) if body is not None else []
    except RefusedURL as exc:
        _log.warning("version look-up skipped: %s", exc)
        return None
    except (OSError, ValueError):  # unreachable, timeout, garbage: the caches must do
        return None
    store.parent.mkdir(parents=True, exist_ok=True)
    tmp = store.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"url": url, "time": time.time(), "versions": versions}))
    os.replace(tmp, store)
    return versions


def _parse_maven_metadata(body: bytes) -> list[str]:
    return re.findall(r"<version>\s*([^<\s]+)\s*</version>", body.decode("utf-8", "replace"))


def _parse_pypi(body: bytes) -> list[str]:
    releases = json.loads(body).get("releases", {})
    # A release whose every file is yanked is as good as absent for pip.
    return [v for v, files in releases.items() if files and not all(f.get("yanked") for f in files)]


def _parse_npm(body: bytes) -> list[str]:
    return list(json.loads(body).get("versions", {}))


def registry_versions(
    system: str, name: str, options: BuildOptions, repositories: Iterable[str] = ()
) -> list[str] | None:
    """Versions the public registries (and `repositories`, for JVM builds) list.

    Returns:
        The versions, an empty list when the registries do not know the name, or None when no
        registry could be asked (offline, network failure).
    """
    if system in JVM:
        group, _, artifact = name.partition(":")
        path = f"{group.replace('.', '/')}/{artifact}/maven-metadata.xml"
        bases = list(dict.fromkeys([*(r.rstrip("/") for r in repositories), MAVEN_CENTRAL, GOOGLE_MAVEN]))
        if artifact.endswith(".gradle.plugin"):
            bases.insert(0, GRADLE_PLUGINS)
        answers = [_cached_fetch(f"{base}/{path}", options, _parse_maven_metadata) for base in bases]
    elif system == "python":
        answers = [_cached_fetch(f"{PYPI}/{name}/json", options, _parse_pypi, "application/json")]
    elif system == "npm":
        quoted = name.replace("/", "%2F")
        # The abbreviated document: only what an installer needs, a fraction of the full one.
        accept = "application/vnd.npm.install-v1+json"
        answers = [_cached_fetch(f"{NPM_REGISTRY}/{quoted}", options, _parse_npm, accept)]
    else:
        return None
    if all(a is None for a in answers):
        return None
    return sorted({v for a in answers if a for v in a}, key=version_key)


def available_versions(
    system: str, name: str, options: BuildOptions, repositories: Iterable[str] = ()
) -> list[str]:
    """Every version known to exist: the caches' and the registries' (when reachable), sorted."""
    found = cached_versions(system, name, options)
    found |= set(registry_versions(system, name, options, repositories) or [])
    return sorted(found, key=python_version_key if system == "python" else version_key)
