"""Maven and Gradle dependencies as they were at a date: find dynamic versions, pin them.

A build of an old commit resolves `[1.0,2.0)`, `1.+`, `latest.release`, `LATEST` or `RELEASE`
to today's newest version, which may not have existed at the commit date. `pin_dynamic_versions`
rewrites each such literal in place to the newest release Maven Central had published on or
before that date. Publication dates come from Central's directory listing of the artifact
(`<base>/<group path>/<artifact>/`, one dated line per version directory), cached on disk for a
day. A `-SNAPSHOT` of another project cannot be replayed: it is reported as unpinnable, as is
anything the listing cannot answer (network failure, an artifact not on Central).

Declarations are read with `buildfixer.deps.manage`: versions held in Maven `<properties>`,
Gradle variables, `gradle.properties` or a version catalog are found (and rewritten) where the
literal is. Gradle plugin ids (`id 'x' version '1.+'`), a `<parent>` and the project's own
`<version>` are left alone, and so are dependencies on the project's own modules.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from buildfixer.buildsys.options import parse_as_of
from buildfixer.core import confined
from buildfixer.core.errors import ToolError
from buildfixer.deps import manage as deps
from buildfixer.deps.registry import MAVEN_CENTRAL, http_get
from buildfixer.deps.versions import is_prerelease, version_key

Kind = Literal["range", "latest", "snapshot", "prefix"]
LISTING_TTL_S = 24 * 3600
_JVM_KINDS = ("gradle", "catalog", "maven", "maven-plugin")
_GRADLE_SCRIPTS = ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts")
_LATEST = {"latest", "release", "latest.release", "latest.integration", "latest.milestone"}
# One interval of a Maven or Gradle range: [1.0,2.0) (,1.5] ]1.0,2.0[ (a single [1.0] is exact).
_BOUND = r"\s*([^,\[\]()]*?)\s*"
_INTERVAL = re.compile(rf"([\[\]()]){_BOUND}(?:,{_BOUND})?([\[\]()])")
# A listing line: <a href="4.10/" ...>4.10/</a>   2011-09-29 19:21   -   (or 29-Sep-2011 19:21).
_ENTRY = re.compile(
    r"<a\s[^>]*href=\"([^\"?#]+)/\"[^>]*>.*?</a>\s*"
    r"(\d{4}-\d{2}-\d{2}|\d{1,2}-[A-Za-z]{3}-\d{4})[ T](\d{2}:\d{2}(?::\d{2})?)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DynamicVersion:
    """A dependency version that resolves to whatever is newest when the build runs.

    Attributes:
        file: File holding the version literal (a pom's `<properties>`, gradle.properties, a
            version catalog, or the declaration's own file), relative to the project root.
        line: 1-based line of the literal in `file`.
        group: Maven group id.
        artifact: Maven artifact id.
        spec: The version as written: "[4.0,5.0)", "2.+", "latest.release", "1.0-SNAPSHOT".
        kind: "range", "latest" (LATEST, RELEASE, latest.*), "snapshot" or "prefix" (`1.+`, `+`).
        declared_in: File of the declaration that uses the literal.
        start: Offset of the literal in `file`.
        end: End offset of the literal in `file`.
    """

    file: str
    line: int
    group: str
    artifact: str
    spec: str
    kind: Kind
    declared_in: str = ""
    start: int = field(default=0, repr=False)
    end: int = field(default=0, repr=False)


@dataclass
class PinReport:
    """What `pin_dynamic_versions` did.

    Attributes:
        pinned: Each dynamic version rewritten, with the version written in its place.
        unpinnable: Each dynamic version left as it was, with the reason.
    """

    pinned: list[tuple[DynamicVersion, str]] = field(default_factory=list)
    unpinnable: list[tuple[DynamicVersion, str]] = field(default_factory=list)


def dynamic_kind(spec: str) -> Kind | None:
    """The kind of dynamic version `spec` is, or None for a fixed version (`[1.0]` included)."""
    text = spec.strip()
    if text.lower() in _LATEST:
        return "latest"
    if text[:1] in "[]()" and text[-1:] in "[]()" and "," in text:
        return "range"
    if text.endswith("+"):
        return "prefix"
    if text.upper().endswith("-SNAPSHOT"):
        return "snapshot"
    return None


def find_dynamic_versions(project: Path) -> list[DynamicVersion]:
    """Dynamic versions in the project's pom.xml, build.gradle[.kts] and version catalog files.

    Maven dependencies, plugins, extensions and `<dependencyManagement>` entries count, with
    `${property}` versions followed to their `<properties>`; Gradle string and map notations,
    variables and catalog entries likewise. A literal shared by several dependencies (one
    property) is listed once per dependency, with the same location.

    Args:
        project: The project root.

    Returns:
        The dynamic versions, shallowest file first.
    """
    internal = _own_modules(project)
    found: list[DynamicVersion] = []
    for name in deps.declared_jvm_names(project):
        group, _, artifact = name.partition(":")
        if (group, artifact) in internal:
            continue  # the reactor or the multi-project build provides it
        for decl in deps.find_declaration(project, name):
            if decl.kind not in _JVM_KINDS or decl.version is None or decl.version_file is None:
                continue
            if decl.text.lstrip().startswith("<parent"):
                continue
            kind = dynamic_kind(decl.version)
            if kind is None:
                continue
            text = deps.read(project / decl.version_file)
            line = text.count("\n", 0, decl.version_start) + 1
            item = DynamicVersion(
                decl.version_file,
                line,
                group,
                artifact,
                decl.version,
                kind,
                decl.file,
                decl.version_start,
                decl.version_end,
            )
            if item not in found:
                found.append(item)
    return sorted(found, key=lambda d: (d.file.count("/"), d.file, d.line, d.group, d.artifact))


def pin_dynamic_versions(
    project: Path, as_of: str, cache_dir: Path, base_url: str = MAVEN_CENTRAL
) -> PinReport:
    """Rewrite every dynamic version to the newest release published on or before `as_of`.

    Ranges and `1.+` prefixes choose among the versions they admit, `latest`/`RELEASE` among all;
    pre-releases only when the spec names one. Nothing raises for the network: a listing that
    cannot be fetched makes its dependencies unpinnable, with the reason.

    Args:
        project: The project root; its build files are edited in place.
        as_of: ISO 8601 UTC timestamp ("2012-01-01T00:00:00Z").
        cache_dir: Where listings are cached (`<cache_dir>/asof/maven-listings`).
        base_url: The Maven repository whose directory listings date the versions.

    Returns:
        What was pinned to which version, and what could not be, and why.

    Raises:
        BuildfixerError: `as_of` is not an ISO 8601 timestamp.
    """
    moment = parse_as_of(as_of)
    report = PinReport()
    listings: dict[tuple[str, str], dict[str, datetime] | str] = {}
    chosen_at: dict[tuple[str, int, int], tuple[str | None, str]] = {}
    for item in find_dynamic_versions(project):
        location = (item.file, item.start, item.end)
        if location not in chosen_at:
            chosen_at[location] = _choose_for(item, moment, cache_dir, base_url, listings)
        version, reason = chosen_at[location]
        if version is None:
            report.unpinnable.append((item, reason))
        else:
            report.pinned.append((item, version))
    missed = _rewrite(project, report.pinned)
    report.unpinnable += [
        (d, "its text moved before it could be rewritten") for d, _ in report.pinned if d in missed
    ]
    report.pinned = [(d, v) for d, v in report.pinned if d not in missed]
    return report


def _choose_for(
    item: DynamicVersion,
    moment: datetime,
    cache_dir: Path,
    base_url: str,
    listings: dict[tuple[str, str], dict[str, datetime] | str],
) -> tuple[str | None, str]:
    """(version, "") for a dynamic version, or (None, why not)."""
    if item.kind == "snapshot":
        return None, "a SNAPSHOT of another project: its state at that date is not published anywhere"
    coordinate = (item.group, item.artifact)
    if coordinate not in listings:
        listings[coordinate] = published_versions(item.group, item.artifact, cache_dir, base_url)
    listing = listings[coordinate]
    if isinstance(listing, str):
        return None, listing
    version = choose(item.spec, listing, moment)
    if version is None:
        day = moment.strftime("%Y-%m-%d %H:%M")
        return None, f"no release matching {item.spec} was published on or before {day} UTC"
    return version, ""


def choose(spec: str, published: dict[str, datetime], moment: datetime) -> str | None:
    """The newest version `spec` admits among those published on or before `moment`.

    Args:
        spec: A dynamic version (see `dynamic_kind`).
        published: Version -> publication time (aware, UTC).
        moment: The date of the build being replayed.

    Returns:
        The version, or None when none qualifies (or `spec` is no range, prefix or latest).
    """
    kind = dynamic_kind(spec)
    if kind is None or kind == "snapshot":
        return None
    prefix = spec.strip()[:-1] if kind == "prefix" else ""  # "1." of "1.+"; "" admits all
    intervals = _intervals(spec) if kind == "range" else []
    bounds = [b for low, _, high, _ in intervals for b in (low, high) if b] + [prefix]
    allow_pre = any(is_prerelease(b) for b in bounds if b)
    candidates = [
        version
        for version, when in published.items()
        if when <= moment
        and (allow_pre or not is_prerelease(version))
        and (_in_range(version, intervals) if intervals else version.startswith(prefix))
    ]
    return max(candidates, key=version_key, default=None)


def _intervals(spec: str) -> list[tuple[str, bool, str, bool]]:
    """(lower, inclusive, upper, inclusive) of each interval of a range; "" is unbounded."""
    found = []
    for match in _INTERVAL.finditer(spec):
        opening, low, high, closing = match.groups()
        high = low if high is None else high  # [1.0] inside a union: exactly 1.0
        found.append((low, opening == "[", high, closing == "]"))
    return found


def _in_range(version: str, intervals: list[tuple[str, bool, str, bool]]) -> bool:
    key = version_key(version)
    for low, low_inclusive, high, high_inclusive in intervals:
        if low and (key < version_key(low) or (key == version_key(low) and not low_inclusive)):
            continue
        if high and (key > version_key(high) or (key == version_key(high) and not high_inclusive)):
            continue
        return True
    return False


def parse_listing(html: str) -> dict[str, datetime]:
    """Version -> date of a Maven repository directory listing (dates taken as UTC).

    Reads Central's `<a href="4.10/" title="4.10/">4.10/</a>  2011-09-29 19:21  -` lines and
    the Apache/nginx `29-Sep-2011 19:21` form; files (maven-metadata.xml) and `../` are skipped.
    """
    found: dict[str, datetime] = {}
    for match in _ENTRY.finditer(html):
        name = match.group(1).rstrip("/").rsplit("/", 1)[-1]
        if not name or name in (".", ".."):
            continue
        day, clock = match.group(2), match.group(3)
        stamp = f"{day} {clock}"
        layout = "%Y-%m-%d %H:%M" if day[:4].isdigit() else "%d-%b-%Y %H:%M"
        if stamp.count(":") == 2:
            layout += ":%S"
        try:
            found[name] = datetime.strptime(stamp, layout).replace(tzinfo=UTC)
        except ValueError:
            continue
    return found


def published_versions(
    group: str, artifact: str, cache_dir: Path, base_url: str = MAVEN_CENTRAL
) -> dict[str, datetime] | str:
    """Version -> publication time of an artifact, from its (day-long cached) directory listing.

    Returns:
        The versions, or the reason they are unknown (unreachable, not listed, no dates).
    """
    url = f"{base_url.rstrip('/')}/{group.replace('.', '/')}/{artifact}/"
    store = cache_dir / "asof" / "maven-listings" / f"{hashlib.sha256(url.encode()).hexdigest()[:24]}.json"
    try:
        saved = json.loads(store.read_text())
        if saved.get("url") == url and time.time() - float(saved["time"]) < LISTING_TTL_S:
            return {v: datetime.fromisoformat(when) for v, when in saved["versions"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    try:
        body = http_get(url, "text/html")
    except (OSError, ValueError) as exc:  # DNS, refused, timeout, HTTP 5xx, a malformed URL
        return f"cannot read {url}: {getattr(exc, 'reason', None) or exc}"
    if body is None:
        return f"no listing at {url} (HTTP 404): not on this repository, or it serves no directory listings"
    versions = parse_listing(body.decode("utf-8", "replace"))
    if not versions:
        return f"the listing at {url} shows no dated versions"
    store.parent.mkdir(parents=True, exist_ok=True)
    tmp = store.with_name(f"{store.name}.{os.getpid()}.tmp")
    data = {v: when.isoformat() for v, when in versions.items()}
    tmp.write_text(json.dumps({"url": url, "time": time.time(), "versions": data}))
    os.replace(tmp, store)
    return versions


def _rewrite(project: Path, pinned: list[tuple[DynamicVersion, str]]) -> list[DynamicVersion]:
    """Replace each pinned literal (each location once), files written atomically; returns the missed."""
    by_file: dict[str, list[tuple[DynamicVersion, str]]] = {}
    for item, version in pinned:
        by_file.setdefault(item.file, []).append((item, version))
    missed: list[DynamicVersion] = []
    for file, items in by_file.items():

        def pin(before: str | None, items: list[tuple[DynamicVersion, str]] = items) -> str | None:
            if before is None:
                missed.extend(item for item, _ in items)
                return None
            text = before
            done: set[tuple[int, int]] = set()
            for item, version in sorted(items, key=lambda pair: pair[0].start, reverse=True):
                if (item.start, item.end) in done:
                    continue
                if text[item.start : item.end] != item.spec:
                    missed.append(item)
                    continue
                text = text[: item.start] + version + text[item.end :]
                done.add((item.start, item.end))
            return text

        try:  # no link out of the project read or written through
            confined.rewrite(project, file, pin)
        except ToolError:  # leads out, or no regular file: not pinned here
            missed.extend(item for item, _ in items if item not in missed)
    return missed


def _own_modules(project: Path) -> set[tuple[str, str]]:
    """(group, artifact) of the project's own modules: Maven poms, Gradle (sub)projects."""
    own: set[tuple[str, str]] = set()
    for pom in deps.find_build_files(project, ["pom.xml"]):
        try:
            root = ET.fromstring(deps.read(pom))
        except ET.ParseError:
            continue
        values = {child.tag.rsplit("}", 1)[-1]: (child.text or "").strip() for child in root}
        parent = next((child for child in root if child.tag.endswith("parent")), None)
        group = values.get("groupId") or (_child_text(parent, "groupId") if parent is not None else "")
        if values.get("artifactId"):
            own.add((group, values["artifactId"]))
    gradle_files = [
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "gradle.properties",
    ]
    scripts = deps.find_build_files(project, gradle_files)
    groups: set[str] = set()
    names = {project.resolve().name}
    for script in scripts:
        text = deps.read(script)
        if script.name == "gradle.properties":
            groups.update(re.findall(r"^\s*group\s*[=:]\s*(\S+)", text, re.MULTILINE))
        elif script.name.startswith("settings.gradle"):
            names.update(re.findall(r"rootProject\.name\s*=\s*['\"]([^'\"]+)['\"]", text))
        elif script.name.startswith("build.gradle"):
            groups.update(re.findall(r"^\s*group\s*=\s*['\"]([^'\"]+)['\"]", text, re.MULTILINE))
            names.add(script.parent.name)
    own.update((group, name) for group in groups for name in names)
    return own


def _child_text(element: ET.Element, tag: str) -> str:
    found = next((child for child in element if child.tag.rsplit("}", 1)[-1] == tag), None)
    return (found.text or "").strip() if found is not None else ""
