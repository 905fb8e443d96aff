"""Version strings of every ecosystem: order them, spot pre-releases, pick the nearest or newest.

Versions compare with `version_key`, a numeric-tuple order that also fits Maven and npm
versions; Python versions use `packaging.version` (`python_version_key`) when it is importable.
Pure functions of strings: nothing here reads a cache or the network (see `deps.registry`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from types import ModuleType
from typing import Any

_pep440: ModuleType | None
try:
    from packaging import version as _pep440
except ImportError:  # pragma: no cover - packaging is nearly always installed
    _pep440 = None

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


def python_version_key(version: str) -> tuple[Any, ...]:
    """PEP 440 order when `packaging` is there, else the generic one."""
    if _pep440 is None:  # pragma: no cover - packaging is nearly always installed
        return version_key(version)
    try:
        parsed = _pep440.Version(version)
    except _pep440.InvalidVersion:
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
    key = python_version_key if python else version_key
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
    key = python_version_key if python else version_key
    releases = [v for v in versions if not is_prerelease(v)] or versions
    return max(releases, key=key) if releases else None
