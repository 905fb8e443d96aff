"""What a pom inherits without writing it: its parents' <properties> and <dependencyManagement>.

A parent comes from the project (<relativePath>, by default ../pom.xml) when that file is the
parent, else from a local Maven repository by its coordinates. Both are read without following
a link out (the project and the repositories are written by builds, so by the sandbox); what is
read is only ever a value compared or copied into a build file, never a path that is followed.
A BOM imported into a <dependencyManagement> is read the same way, one level deep.
"""

from __future__ import annotations

import re
from pathlib import Path
from xml.sax.saxutils import unescape as xml_unescape

from buildfixer.core import confined
from buildfixer.deps.base import read
from buildfixer.deps.maven import mask_comments, tag

MAX_PARENTS = 8  # a chain longer than this is not a real project's
_COORDINATE = re.compile(r"[\w-]+(?:\.[\w-]+)*")
_REFERENCE = re.compile(r"\$\{([\w.-]+)\}")


def pom_properties(text: str, profiles: bool = True) -> dict[str, str]:
    """A pom's <properties> (with its profiles' when `profiles`); the first definition of each wins."""
    masked = mask_comments(text, *([] if profiles else [r"<profiles>.*?</profiles>"]))
    found: dict[str, str] = {}
    for block in re.finditer(r"<properties>(.*?)</properties>", masked, re.DOTALL):
        inner = block.group(1)  # comments blanked: a commented-out property defines nothing
        for entry in re.finditer(r"<([\w.-]+)\s*>([^<]*)</\1\s*>|<([\w.-]+)\s*/>", inner):
            key, value = (entry.group(1), entry.group(2).strip()) if entry.group(1) else (entry.group(3), "")
            found.setdefault(key, xml_unescape(value))
    return found


def _from_repositories(repositories: list[Path], group: str, artifact: str, version: str) -> str | None:
    """A pom's text from a local repository by its coordinates (None when no repository has it)."""
    if not all(_COORDINATE.fullmatch(part) for part in (group, artifact, version)):
        return None  # unresolved (`${revision}`), absent, or no coordinate at all (`../..`)
    rel = f"{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.pom"
    for repo in repositories:
        text = confined.try_read_text(repo, rel)
        if text:
            return text
    return None


def parent_of(pom: Path | None, text: str, repositories: list[Path]) -> tuple[Path | None, str] | None:
    """A pom's <parent>: (its path in the project, its text), or (None, its text) from a repository."""
    block = re.search(r"<parent>(.*?)</parent>", mask_comments(text), re.DOTALL)
    if block is None:
        return None
    coords = [tag(block.group(1), t) for t in ("groupId", "artifactId", "version")]
    group, artifact, version = (m.group(1) if m else "" for m in coords)
    relative = re.search(r"<relativePath\s*/>|<relativePath>\s*([^<]*?)\s*</relativePath>", block.group(1))
    where = "../pom.xml" if relative is None else relative.group(1) or ""
    if pom is not None and where:
        candidate = pom.parent / where
        candidate = candidate if candidate.name.endswith(".xml") else candidate / "pom.xml"
        parent_text = read(candidate)  # "" when missing or leading out of the project
        found = tag(mask_comments(parent_text, r"<parent>.*?</parent>"), "artifactId")
        if parent_text and found is not None and found.group(1) == artifact:
            return candidate, parent_text
    repo_text = _from_repositories(repositories, group, artifact, version)
    return (None, repo_text) if repo_text else None


def lineage(pom: Path, repositories: list[Path]) -> list[str]:
    """The pom's text and its parents', nearest first."""
    texts = [read(pom)]
    path: Path | None = pom
    for _level in range(MAX_PARENTS):
        parent = parent_of(path, texts[-1], repositories)
        if parent is None:
            break
        path, text = parent
        texts.append(text)
    return texts


def _merged_properties(texts: list[str], profiles: bool = True) -> dict[str, str]:
    """The properties of poms nearest first: the nearest definition of each wins."""
    found: dict[str, str] = {}
    for text in texts:
        for key, value in pom_properties(text, profiles).items():
            found.setdefault(key, value)
    return found


def inherited_properties(pom: Path, repositories: list[Path], profiles: bool = True) -> dict[str, str]:
    """The properties a pom has: its own, then its parents' (the nearest definition wins)."""
    return _merged_properties(lineage(pom, repositories), profiles)


def inherited_value(reference: str, pom: Path, repositories: list[Path]) -> str | None:
    """What a `${key}` reference written in `pom` stands for through its parents (None: undefined)."""
    return resolve(reference, inherited_properties(pom, repositories))


def resolve(value: str, properties: dict[str, str]) -> str | None:
    """A value with its `${key}` references replaced (None when one is not defined)."""
    for _depth in range(5):  # a property may be written through another
        if "${" not in value:
            return value
        missing = False

        def one(match: re.Match[str]) -> str:
            nonlocal missing
            if match.group(1) not in properties:
                missing = True
                return match.group(0)
            return properties[match.group(1)]

        value = _REFERENCE.sub(one, value)
        if missing:
            return None
    return None if "${" in value else value


def _management(text: str) -> list[tuple[str, str, str | None, str | None]]:
    """(group, artifact, version, scope) of a pom's <dependencyManagement> entries."""
    found: list[tuple[str, str, str | None, str | None]] = []
    masked = mask_comments(text)
    for section in re.finditer(r"<dependencyManagement>(.*?)</dependencyManagement>", masked, re.DOTALL):
        for block in re.finditer(r"<dependency>(.*?)</dependency>", section.group(1), re.DOTALL):
            head = re.split(r"<exclusions>", block.group(1))[0]
            group, artifact = tag(head, "groupId"), tag(head, "artifactId")
            version, scope = tag(head, "version"), tag(head, "scope")
            if group and artifact:
                written = version.group(1) if version else None
                found.append((group.group(1), artifact.group(1), written, scope.group(1) if scope else None))
    return found


def managed_version(pom: Path, repositories: list[Path], name: str) -> str | None:
    """The version a pom's own or inherited <dependencyManagement> gives group:artifact.

    A BOM it imports counts too. "" when it is managed at a version that does not resolve here;
    None when nothing manages it (a declaration then needs its own version).
    """
    group, _, artifact = name.partition(":")
    texts = lineage(pom, repositories)
    properties = _merged_properties(texts)
    imports: list[tuple[str, str, str]] = []
    for text in texts:
        for g, a, version, scope in _management(text):
            if (g, a) == (group, artifact) and scope != "import":
                return resolve(version, properties) or "" if version else ""
            if scope == "import" and version:
                imports.append((g, a, resolve(version, properties) or ""))
    for g, a, version in imports:
        bom = _from_repositories(repositories, g, a, version)
        if not bom:
            continue
        bom_properties = pom_properties(bom)
        for mg, ma, mversion, _scope in _management(bom):
            if (mg, ma) == (group, artifact):
                return resolve(mversion, bom_properties) or "" if mversion else ""
    return None
