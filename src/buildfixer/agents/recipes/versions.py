"""The "version that does not exist" recipe: move it to the nearest published version.

See `buildfixer.agents.recipes.diagnose` for the policy; `buildfixer.deps` plans the build-file
edits and `deps.registry` says which versions exist (local caches, then the registries).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from buildfixer.agents.recipes.base import JVM, Evidence, Repair, edit_calls, raw_version
from buildfixer.agents.recipes.history import past_jvm_declaration
from buildfixer.buildsys.index_pages import normalize_dist
from buildfixer.deps import manage as deps
from buildfixer.deps.caches import maven_repositories
from buildfixer.deps.maven_parents import inherited_value
from buildfixer.deps.registry import available_versions
from buildfixer.deps.versions import nearest_version

_COORD = r"([\w.-]+):([\w.-]+)"
_MISSING_JVM = [
    re.compile(rf"Could not find {_COORD}:([\w.+-]+?)\.?(?:\s|$|\))"),  # Gradle
    re.compile(rf"Could not find artifact {_COORD}:[\w-]+(?::[\w.-]+)?:([\w.+-]+)"),  # Maven
    re.compile(rf"Failure to find {_COORD}:[\w-]+(?::[\w.-]+)?:([\w.+-]+)"),
    re.compile(rf"{_COORD}:(?:jar|pom|aar|war|bundle|maven-plugin)(?::[\w.-]+)?:([\w.+-]+) was not found"),
    re.compile(rf"Plugin {_COORD}:([\w.+-]+) or one of its dependencies could not be resolved"),
]
# Maven 3.8+ names every artifact of a module at once; each is checked against the registries.
_MAVEN_UNRESOLVED = re.compile(
    r"The following artifacts could not be resolved: ((?:[\w.-]+(?::[\w.+-]+){3,4}(?:, )?)+)"
)
_MAVEN_ITEM = re.compile(r"([\w.-]+):([\w.-]+):[\w-]+(?::[\w.-]+)?:([\w.+-]+)$")
_MISSING_PLUGIN = re.compile(r"Plugin \[id: '([\w.-]+)', version: '([^']+)'")
_PIP_SPEC = r"((?:\s*(?:===|==|~=|>=|<=|!=|<|>)\s*[\w.*+!-]+\s*,?)+)"
_PIP_NAME = r"([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?"
_MISSING_PIP = [
    re.compile(rf"No matching distribution found for {_PIP_NAME}{_PIP_SPEC}"),
    re.compile(rf"Could not find a version that satisfies the requirement {_PIP_NAME}{_PIP_SPEC}"),
]
_PIP_LISTED = re.compile(r"\(from versions: ([^)]*)\)")
_MISSING_NPM = [
    re.compile(r"No matching version found for (@?[\w.-]+(?:/[\w.-]+)?)@(\S+?)\.?(?:\s|$)"),
    re.compile(
        r"Couldn't find any versions for \"(@?[\w.-]+(?:/[\w.-]+)?)\" that matches \"([^\"]+)\""
    ),  # yarn
]
# A simple npm range around one version: ^1.2.3, ~1.2.3, >=1.2.3, =1.2.3, v1.2.3, 1.2.3.
_NPM_SIMPLE = re.compile(r"(?:\^|~|>=|=)?v?(\d+(?:\.\d+)*(?:-[\w.]+)?)")


def _pip_lower_bound(spec: str) -> str | None:
    """The version a pip specifier asks for at least: `==2.1`, `>=2.1,<3` and `~=2.1` give 2.1."""
    found = re.findall(r"(===|==|~=|>=|>)\s*([\w.+!-]+)", spec)
    versions = {v for _op, v in found if "*" not in v}
    return versions.pop() if len(versions) == 1 else None


def _lock_version(project: Path, name: str) -> str | None:
    """The version package-lock.json resolved for a package."""
    try:
        lock = json.loads(deps.read(project / "package-lock.json"))  # "" (absent, or a link out)
    except ValueError:
        return None
    entry = lock.get("packages", {}).get(f"node_modules/{name}") or lock.get("dependencies", {}).get(name)
    version = entry.get("version") if isinstance(entry, dict) else None
    return str(version) if version else None


def _candidates(ev: Evidence) -> list[tuple[str, str, str, str]]:
    """(system, declared name, registry name, requested version) of every missing version named."""
    found: list[tuple[str, str, str, str]] = []
    if ev.system in JVM:
        for pattern in _MISSING_JVM:
            for match in pattern.finditer(ev.text):
                name = f"{match.group(1)}:{match.group(2)}"
                found.append((ev.system, name, name, match.group(3)))
        for match in _MAVEN_UNRESOLVED.finditer(ev.text):
            for item in match.group(1).split(", "):
                if found_item := _MAVEN_ITEM.match(item.strip()):
                    name = f"{found_item.group(1)}:{found_item.group(2)}"
                    found.append((ev.system, name, name, found_item.group(3)))
        for match in _MISSING_PLUGIN.finditer(ev.text):
            plugin = match.group(1)
            found.append((ev.system, plugin, f"{plugin}:{plugin}.gradle.plugin", match.group(2)))
    elif ev.system == "python":
        for pattern in _MISSING_PIP:
            for m in pattern.finditer(ev.text):
                if (version := _pip_lower_bound(m.group(2))) is not None:
                    found.append(("python", m.group(1), m.group(1), version))
    elif ev.system == "npm":
        for pattern in _MISSING_NPM:
            for m in pattern.finditer(ev.text):
                simple = _NPM_SIMPLE.fullmatch(m.group(2).strip())
                if simple:  # a complex range (1.x, >=1 <2, a tag) is not one missing version
                    found.append(("npm", m.group(1), m.group(1), simple.group(1)))
    # A -SNAPSHOT is an unpublished build (often the project's own module): never ours to move.
    return [c for c in dict.fromkeys(found) if "SNAPSHOT" not in c[3].upper()]


def _known_versions(ev: Evidence, system: str, registry_name: str, repos: list[str]) -> set[str]:
    known = set(available_versions(system, registry_name, ev.options, repos))
    if system == "python":  # pip lists what exists on the line naming the requirement
        wanted = normalize_dist(registry_name)
        for line in ev.text.splitlines():
            listed = _PIP_LISTED.search(line)
            named = re.search(r"satisfies the requirement ([A-Za-z0-9][\w.-]*)", line)
            if listed and named and normalize_dist(named.group(1)) == wanted:
                known |= {
                    v.strip() for v in listed.group(1).split(",") if v.strip() not in ("", "none", "...")
                }
    return known


_JVM_KINDS = ("gradle", "gradle-plugin", "catalog", "maven", "maven-plugin")


def _uses(text: str, name: str, raw: str) -> bool:
    """Whether a build file declares `name` with the version written `raw` ("${jackson.version}")."""
    group, _, artifact = name.partition(":")
    g, a, v = re.escape(group), re.escape(artifact), re.escape(raw)
    maven = rf"<artifactId>\s*{a}\s*</artifactId>(?:(?!</dependency>|</plugin>).)*?<version>\s*{v}\s*<"
    return bool(re.search(rf"['\"]{g}:{a}:{v}", text) or re.search(maven, text, re.DOTALL))


def _sharing(ev: Evidence, decl: deps.Declaration, name: str) -> list[str]:
    """Other dependencies whose version is the same literal (one property, one catalog entry)."""
    if decl.version_file is None or decl.kind not in _JVM_KINDS:
        return []
    if decl.version_file == decl.file and decl.version is not None and decl.version in decl.text:
        return []  # written in the declaration itself
    others = [n for n in deps.declared_jvm_names(ev.project) if n != name]
    raw = raw_version(decl)
    if raw is not None and "$" in raw:  # only the files that use the same variable can share it
        files = deps.find_build_files(ev.project, ("pom.xml", "*.gradle", "*.gradle.kts"))
        texts = [text for text in (deps.read(f) for f in files) if raw in text]
        others = [n for n in others if any(_uses(text, n, raw) for text in texts)]
    return [
        other
        for other in others
        if any(
            (d.version_file, d.version_start) == (decl.version_file, decl.version_start)
            for d in deps.find_declaration(ev.project, other)
        )
    ]


def _as_written_before(ev: Evidence, decl: deps.Declaration, name: str, requested: str, chosen: str) -> str:
    """`chosen`, or the parent POM's property the project wrote it through before, when that gives it.

    `${version.junit}` broken into `4.99.1` comes back as `${version.junit}` (4.13.2 from the
    parent) rather than as the literal: a later parent upgrade still applies.
    """
    if raw_version(decl) != requested or decl.version_file != decl.file:
        return chosen  # the broken version is not written in the declaration itself
    past = past_jvm_declaration(ev.histories(), [name], besides=requested)
    if past is None or not past[1].startswith("${"):
        return chosen
    pom = ev.project / decl.file
    return past[1] if inherited_value(past[1], pom, maven_repositories(ev.options)) == chosen else chosen


def _version_plan(
    ev: Evidence, system: str, name: str, registry_name: str, requested: str
) -> tuple[str, list[deps.Edit]] | None:
    """The version to ask for instead of a missing one, and the edits; None to decline."""
    declared = [d for d in deps.find_declaration(ev.project, name) if d.version == requested]
    if not declared:
        return None  # a transitive dependency, or a version spelled another way: not ours to edit
    repos = deps.declared_repositories(ev.project) if system in JVM else []
    available = _known_versions(ev, system, registry_name, repos)
    # The lockfile's version was resolved once, so it exists; it also keeps `npm ci` consistent.
    locked = _lock_version(ev.project, name) if system == "npm" else None
    if locked and locked != requested:
        available.add(locked)
    if requested in available or not available:
        return None  # it exists (the failure is something else), or nothing is known about it
    # A version shared through a property must exist for every dependency using it.
    for other in _sharing(ev, declared[0], name) if system in JVM else []:
        theirs = set(available_versions(system, other, ev.options, repos))
        if theirs:
            available &= theirs
    chosen = nearest_version(requested, available, python=system == "python")
    if locked and locked != requested and chosen and locked.split(".")[0] == chosen.split(".")[0]:
        chosen = locked
    if chosen is None:
        return None
    written = _as_written_before(ev, declared[0], name, requested, chosen) if system == "maven" else chosen
    edits = deps.set_version(ev.project, name, written, only_version=requested)
    shown = chosen if written == chosen else f"{written} = {chosen}"
    return (shown, edits) if edits else None


def missing_version(ev: Evidence) -> Repair | None:
    """Recipe 4: declared versions that do not exist -> the nearest published ones (all in one repair)."""
    done: list[str] = []
    with deps.staged(ev.project) as stage:
        for system, name, registry_name, requested in _candidates(ev):
            plan = _version_plan(ev, system, name, registry_name, requested)
            if plan is not None and stage.add(plan[1]):
                done.append(f"{name} {requested} does not exist; ask for {plan[0]}")
        edits = stage.edits()
    if not edits:
        return None
    where = ", ".join(sorted({e.file for e in edits}))
    summary = f"{'; '.join(done)}, the nearest published version ({where})."
    return Repair("missing-version", summary, edit_calls(edits))
