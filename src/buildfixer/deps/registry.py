"""Which versions of a dependency exist: the local caches and, when online, the public registries.

Names by ecosystem: "group:artifact" for Maven/Gradle (a Gradle plugin id is looked up through
its marker artifact "id:id.gradle.plugin"), the distribution name for pip, the package name
for npm. Registry answers are cached in `cache_dir/registry` for a day; offline, or when the
network fails, only the caches answer. The package -> artifact and module -> distribution
indexes live in `buildfixer.deps.package_index`.

Versions compare with `version_key`, a numeric-tuple order that also fits Maven and npm
versions; Python versions use `packaging.version` when it is importable.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from buildfixer.buildsys.options import BuildOptions

MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
GOOGLE_MAVEN = "https://dl.google.com/dl/android/maven2"
GRADLE_PLUGINS = "https://plugins.gradle.org/m2"
PYPI = "https://pypi.org/pypi"
NPM_REGISTRY = "https://registry.npmjs.org"
TTL_S = 24 * 3600
TIMEOUT_S = 15.0
JVM = ("gradle", "maven")

# Markers of a pre-release in any ecosystem: 1.0-beta-2, 2.0.0-RC1, 3.0.0-M5, 23.0rc1, 1.0a1,
# 5.5.0-dev.2024. "-jre" / ".Final" / ".RELEASE" are releases.
_PRE = re.compile(
    r"(?:^|[.\-_+\d])(?:alpha|beta|rc|cr|snapshot|dev|pre|preview|eap|ea|milestone|nightly|canary|next|"
    r"insiders|experimental|m\d+|a\d+|b\d+)(?:[.\-_+\d]|$)",
    re.IGNORECASE,
)
_LEADING = re.compile(r"v?(\d+(?:\.\d+)*)(.*)$", re.IGNORECASE)


def is_prerelease(version: str) -> bool:
    """Whether a version string is a pre-release (alpha, beta, rc, milestone, snapshot, dev...)."""
    return bool(_PRE.search(version.strip()))


def version_key(version: str) -> tuple[Any, ...]:
    """Sort key of a Maven/npm/pip-like version: numbers first, a pre-release before its release.

    "1.0" and "1.0.0" are equal; unparseable strings sort before every version.
    """
    match = _LEADING.match(version.strip())
    if not match:
        return ((-1,), 0, ())
    numbers = [int(part) for part in match.group(1).split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    rest = tuple(
        (0, int(tok), "") if tok.isdigit() else (1, 0, tok.lower())
        for tok in re.findall(r"\d+|[A-Za-z]+", match.group(2))
    )
    return (tuple(numbers), 0 if is_prerelease(version) else 1, rest)


def _python_key(version: str) -> tuple[Any, ...]:
    """PEP 440 order when `packaging` is there, else the generic one."""
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:  # pragma: no cover - packaging is nearly always installed
        return version_key(version)
    try:
        parsed = Version(version)
    except InvalidVersion:
        return ((-1,), 0, ())
    release = list(parsed.release)
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    # The second element must sort a pre-release before its release, like version_key does.
    return (tuple(release), 0 if parsed.is_prerelease else 1, (parsed,))


def _flavor(version: str) -> str:
    """The non-pre-release qualifier of a version: "jre" of guava's "31.1-jre", else ""."""
    match = _LEADING.match(version.strip())
    tail = match.group(2) if match else ""
    if is_prerelease(version):
        return ""
    return "".join(re.findall(r"[A-Za-z]+", tail)).lower()


def nearest_version(requested: str, available: Iterable[str], python: bool = False) -> str | None:
    """The published version closest to one that does not exist.

    Preference, first that has a candidate wins:

    1. a re-release of the exact requested version: 6.9.13 -> 6.9.13.6 (Maven re-releases with a
       fourth number), 6.9.13-1 (a build number), 6.9.13.post1 (a PEP 440 post-release); the
       newest of them, as re-releases fix packaging only. A fourth number counts as a re-release
       only for a major.minor.patch request (1.2 -> 1.2.1 is a patch, see 2);
    2. the same major.minor: the nearest newer patch when one exists (a patch release fixes bugs
       without changing the API, and the newer side also keeps every fix the requested version
       had), else the nearest older patch;
    3. the same major: the highest version below, else the lowest above.

    Never another major version: that changes the API, which is no repair a recipe may guess.

    Never a pre-release (even when `requested` is one), and versions of the same flavor ("-jre",
    "-android") when there are any. Below 1.0 the minor version is the major one (0.4 -> 0.5
    breaks, as semantic versioning has it): 0.4.9 prefers 0.4.x, then 0.x.

    Args:
        requested: The version that could not be found.
        available: Versions known to exist.
        python: Compare as PEP 440 versions.

    Returns:
        The chosen version, or None when there is no release to take.
    """
    key = _python_key if python else version_key
    wanted = key(requested)
    if wanted[0] == (-1,):
        return None
    candidates = {v for v in available if v != requested and not is_prerelease(v) and key(v)[0] != (-1,)}
    # Before the flavor filter: ".post1" or "-r1" would read as a flavor of their own.
    rereleases = [v for v in candidates if _is_rerelease(requested, v)]
    if rereleases:
        return max(rereleases, key=key)
    flavor = _flavor(requested)
    if any(_flavor(v) == flavor for v in candidates):
        candidates = {v for v in candidates if _flavor(v) == flavor}
    if not candidates:
        return None
    numbers = _numbers(requested)
    major = _major_part(numbers)
    minor = _prefix(numbers, 2)  # (6, 9) of 6.9.13, (0, 4) of 0.4.9
    same_minor = [v for v in candidates if _prefix(_numbers(v), len(minor)) == minor]
    if same_minor:
        newer = [v for v in same_minor if key(v) > wanted]
        return min(newer, key=key) if newer else max(same_minor, key=key)
    same_major = [v for v in candidates if _major_part(_numbers(v)) == major]
    below = [v for v in same_major if key(v) <= wanted]
    if below:
        return max(below, key=key)
    above = [v for v in same_major if key(v) > wanted]
    return min(above, key=key) if above else None


def _numbers(version: str) -> tuple[int, ...]:
    """The leading numbers of a version as written ("6.9.13.1" -> (6, 9, 13, 1)), zeros kept."""
    match = _LEADING.match(version.strip())
    return tuple(int(p) for p in match.group(1).split(".")) if match else ()


def _prefix(numbers: tuple[int, ...], length: int) -> tuple[int, ...]:
    return (*numbers, *(0,) * length)[:length]


# What may follow a version in a re-release of it: .1 / -1 / _1, .post1 / -r1 / .sp1.
_RERELEASE_TAIL = re.compile(r"(?:[.\-_](?:post|rev|r|sp)?|(?:post|rev|r|sp))\d+", re.IGNORECASE)


def _is_rerelease(requested: str, candidate: str) -> bool:
    """Whether `candidate` re-publishes exactly `requested`: 6.9.13.2, 6.9.13-1, 6.9.13.post1."""
    base, cand = requested.strip().lower().lstrip("v"), candidate.strip().lower().lstrip("v")
    if not cand.startswith(base) or cand == base:
        return False
    tail = cand[len(base) :]
    if not _RERELEASE_TAIL.fullmatch(tail):
        return False
    # A fourth number re-releases a major.minor.patch only: 1.2 -> 1.2.1 is a patch release.
    return not (tail[0] == "." and tail[1:].isdigit() and len(_numbers(base)) < 3)


def _major_part(numbers: tuple[int, ...]) -> tuple[int, ...]:
    """The components that make a major version: the first, or the first two of a 0.x version."""
    padded = (*numbers, 0)
    return padded[:2] if padded[0] == 0 else padded[:1]


def newest_version(available: Iterable[str], python: bool = False) -> str | None:
    """The highest release (pre-releases only when there is nothing else)."""
    versions = list(available)
    key = _python_key if python else version_key
    releases = [v for v in versions if not is_prerelease(v)] or versions
    return max(releases, key=key) if releases else None


# --- local caches ----------------------------------------------------------------------------


def gradle_homes(options: BuildOptions) -> list[Path]:
    """Gradle user homes whose caches may hold artifacts: ours, GRADLE_USER_HOME, ~/.gradle."""
    homes = [options.cache_dir / "gradle"]
    if os.environ.get("GRADLE_USER_HOME"):
        homes.append(Path(os.environ["GRADLE_USER_HOME"]))
    homes.append(Path.home() / ".gradle")
    return _unique_dirs(homes)


def maven_repositories(options: BuildOptions) -> list[Path]:
    """Local Maven repositories: ours and ~/.m2/repository."""
    return _unique_dirs([options.cache_dir / "m2" / "repository", Path.home() / ".m2" / "repository"])


def npm_caches(options: BuildOptions) -> list[Path]:
    """Npm caches (content-addressed `_cacache` directories): ours and ~/.npm."""
    return _unique_dirs([options.cache_dir / "npm" / "_cacache", Path.home() / ".npm" / "_cacache"])


def _unique_dirs(paths: list[Path]) -> list[Path]:
    seen: dict[str, Path] = {}
    for path in paths:
        if path.is_dir():
            seen.setdefault(str(path.resolve()), path)
    return list(seen.values())


def _jvm_cached(name: str, options: BuildOptions) -> set[str]:
    """Versions of group:artifact with a downloaded jar or pom in a Gradle or Maven cache."""
    group, _, artifact = name.partition(":")
    found: set[str] = set()
    for home in gradle_homes(options):
        base = home / "caches" / "modules-2" / "files-2.1" / group / artifact
        if base.is_dir():
            found |= {d.name for d in base.iterdir() if d.is_dir() and any(d.iterdir())}
    for repo in maven_repositories(options):
        base = repo.joinpath(*group.split("."), artifact)
        if not base.is_dir():
            continue
        for version_dir in base.iterdir():
            # A failed download leaves only `*.lastUpdated` markers: that version does not exist.
            if version_dir.is_dir() and any(
                p.suffix in (".jar", ".pom", ".aar") for p in version_dir.iterdir()
            ):
                found.add(version_dir.name)
    return found


_NPM_TARBALL = re.compile(r'"key":"pacote:tarball:(@?[^"@]+)@([^"@]+)"')
_NPM_URL = re.compile(
    r'"key":"make-fetch-happen:request-cache:https?://[^/"]+/(.+?)/-/[^"/]+?-(\d[^"/]*)\.tgz"'
)


def npm_cached_packages(options: BuildOptions) -> dict[str, set[str]]:
    """Package name -> versions whose tarballs are in an npm cache."""
    found: dict[str, set[str]] = {}
    for cache in npm_caches(options):
        index = cache / "index-v5"
        for path in index.rglob("*") if index.is_dir() else []:
            if not path.is_file():
                continue
            try:
                text = path.read_text(errors="replace")
            except OSError:
                continue
            for name, version in _NPM_TARBALL.findall(text) + _NPM_URL.findall(text):
                found.setdefault(name.replace("%2f", "/").replace("%2F", "/"), set()).add(version)
    return found


def cached_versions(system: str, name: str, options: BuildOptions) -> set[str]:
    """Versions of a dependency present in this machine's caches."""
    if system in JVM:
        return _jvm_cached(name, options)
    if system == "npm":
        return npm_cached_packages(options).get(name, set())
    if system == "python":
        from buildfixer.deps.package_index import normalize_dist, python_distributions

        return python_distributions(options).get(normalize_dist(name), set())
    return set()


# --- registries ------------------------------------------------------------------------------


def _http_get(url: str, accept: str) -> bytes | None:
    """The body of a GET; None for 404/410; raises OSError for network failures."""
    request = urllib.request.Request(url, headers={"User-Agent": "buildfixer", "Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as exc:
        if exc.code in (404, 410):
            return None
        raise OSError(f"HTTP {exc.code}") from None


def _cached_fetch(
    url: str, options: BuildOptions, parse: Callable[[bytes], list[str]], accept: str = "*/*"
) -> list[str] | None:
    """Versions a registry URL lists, from the day-long cache or the network; None when unknown."""
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
        body = _http_get(url, accept)
        versions = parse(body) if body is not None else []
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
    return sorted(found, key=_python_key if system == "python" else version_key)
