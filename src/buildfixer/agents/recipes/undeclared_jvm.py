"""The "undeclared dependency" recipe for JVM builds: declare the artifact a local cache has for an import.

`deps.package_index` says which cached jar provides an imported package or a JPMS module
(`module not found: org.slf4j`); `buildfixer.deps` plans the build-file edits (Gradle, Maven).
A dependency the project declared before (git history) comes back as that artifact, at the
version the project's other build files use, else its Gradle lockfile's, else the newest its
history declared, never lower than any of these; one that a planned artifact already brings
transitively is not added. In Maven, one a parent POM (or a BOM it imports) manages is declared
without a version, and one the history wrote through a parent's property comes back through it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from buildfixer.agents.recipes.base import Evidence, Repair, error_path, raw_version, undeclared_repair
from buildfixer.agents.recipes.history import locked_gradle_version, past_jvm_declaration
from buildfixer.core.file_kinds import is_test
from buildfixer.deps import manage as deps
from buildfixer.deps.caches import maven_repositories
from buildfixer.deps.jars import pom_dependencies
from buildfixer.deps.maven_parents import inherited_value, managed_version
from buildfixer.deps.package_index import (
    Artifact,
    artifact_for_module,
    artifact_for_package,
    jar_has_class,
    jvm_index,
    jvm_modules,
)
from buildfixer.deps.versions import is_prerelease, version_key

_JAVA_PACKAGE = re.compile(r"package ([a-zA-Z_][\w]*(?:\.[a-zA-Z_]\w*)+) does not exist")
_UNRESOLVED = re.compile(r"Unresolved reference:? '?(\w+)'?|cannot find symbol")
_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?\s*(?:;|\s+as\s+\w+)?\s*$")
# javac on a module-info.java whose `requires` names a module nothing provides.
_JPMS_MODULE = re.compile(r"module not found: ([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)")
# The same in the log, with its file: javac's `module-info.java:2: error: module not found: x`,
# Maven's `module-info.java:[2,20] module not found: x` (for when the parsed errors lack it).
_JPMS_LOG = re.compile(
    r"([^\s\[]*module-info\.java)[:\[\],\d\s]*(?:error:\s*)?module not found: ([A-Za-z_][\w.]*\w)"
)
_JVM_BUILD_FILES = ("build.gradle", "build.gradle.kts", "pom.xml")


def _module_dir(ev: Evidence, source: Path | None, markers: tuple[str, ...]) -> str:
    """The directory of the module owning a source file: its nearest build-file ancestor."""
    directory = source.parent if source else ev.project
    while directory.is_relative_to(ev.project):
        if any((directory / m).is_file() for m in markers):
            return directory.relative_to(ev.project).as_posix() if directory != ev.project else ""
        directory = directory.parent
    return ""


def _project_has_package(project: Path, package: str) -> bool:
    """Whether the project's own sources define a package (a module dependency, not a library)."""
    tail = "/" + package.replace(".", "/")
    for dirpath, dirs, _files in os.walk(project):
        if Path(dirpath).as_posix().endswith(tail):
            return True
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in deps.SKIP_DIRS]
    return False


def _in_named_module(ev: Evidence, source: Path | None) -> bool:
    """Whether a source file belongs to a JPMS module (a module-info.java above it in its module)."""
    if source is None:
        return False
    directory = source.parent
    while directory.is_relative_to(ev.project) and directory != ev.project:
        if (directory / "module-info.java").is_file():
            return True
        if any((directory / m).is_file() for m in _JVM_BUILD_FILES):
            return False
        directory = directory.parent
    return False


@dataclass(frozen=True)
class _Import:
    """An import the compiler could not resolve: packages to try (longest first), its class, its file."""

    packages: tuple[str, ...]
    class_name: str | None
    file: str | None


def _import_of(ev: Evidence, file: str | None, line_no: int | None) -> str | None:
    source = ev.source(file)
    if source is None or line_no is None:
        return None
    lines = deps.read(source).splitlines()
    imported = _IMPORT.match(lines[line_no - 1]) if 0 < line_no <= len(lines) else None
    return imported.group(1) if imported else None


def _from_import(name: str, file: str | None) -> _Import:
    """org.hamcrest.Matchers.containsString -> package org.hamcrest, class org.hamcrest.Matchers."""
    parts = name.split(".")
    first_class = next((i for i, p in enumerate(parts) if p[:1].isupper()), None)
    if first_class is not None and first_class >= 2:
        package = ".".join(parts[:first_class])
        return _Import((package,), ".".join(parts[: first_class + 1]), file)
    # No class named (a package import, a Kotlin top-level function): the longest known package.
    return _Import(tuple(".".join(parts[:n]) for n in range(len(parts), 1, -1)), None, file)


def _jvm_imports(ev: Evidence) -> list[_Import]:
    """Every unresolvable import, once."""
    found: list[_Import] = []
    for error, match in ev.errors_matching(_JAVA_PACKAGE):
        imported = _import_of(ev, error.file, error.line)
        if imported is not None and imported.startswith(match.group(1) + "."):
            found.append(_from_import(imported, error.file))
            continue
        package = match.group(1)
        parent = package.rsplit(".", 1)[0]
        packages = (package, parent) if package.split(".")[-1][:1].isupper() else (package,)
        found.append(_Import(packages, None, error.file))
    for error, _match in ev.errors_matching(_UNRESOLVED):
        imported = _import_of(ev, error.file, error.line)
        if imported is not None:
            found.append(_from_import(imported, error.file))
    return list(dict.fromkeys(found))


def _visible_from(ev: Evidence, decl: deps.Declaration, module: str) -> bool:
    """Whether a declaration's version variable is defined where `module`'s build file sees it.

    That is the root build file, gradle.properties, a Maven parent (an ancestor directory) or
    the module itself.
    """
    where = decl.version_file
    if where is None:
        return False
    directory = Path(where).parent.as_posix()
    directory = "" if directory == "." else directory
    return directory == "" or directory == module or module.startswith(directory + "/")


def _declared_version(
    ev: Evidence, module: str, decls: list[deps.Declaration]
) -> tuple[str, str, str] | None:
    """(version, as written, why) of the highest version the project's other build files declare.

    A Maven module, a Gradle script or a version catalog; written through the same variable
    when `module` sees it, else as the literal.
    """
    # A Kotlin script sees another script's variable only through `by project`: the literal.
    kts = (ev.project / module / "build.gradle.kts").is_file()
    found: list[tuple[str, str, str]] = []
    for decl in decls:
        if decl.managed or decl.version is None or "$" in decl.version:
            continue
        raw = raw_version(decl)
        visible = raw is not None and "$" in raw and not kts and _visible_from(ev, decl, module)
        found.append((decl.version, raw if visible and raw else decl.version, f"as {decl.file} does"))
    return max(found, key=lambda f: version_key(f[0])) if found else None


def _jvm_version(
    ev: Evidence, name: str, module: str, decls: list[deps.Declaration], cached: list[Artifact],
    past: str | None = None,
) -> tuple[str | None, str]:  # fmt: skip
    """The version to declare in `module` (None: a dependencyManagement or BOM gives it) and why.

    The version the project's other build files use, else its Gradle lockfile's, else `past`
    (the newest its git history declared); never lower than any of these (a restored dependency
    is never a downgrade). A managed version is the project's single choice: none is written.
    """
    if ev.system == "maven" and any(d.managed and d.kind == "maven" for d in decls):
        return None, "its version is managed"
    pom = ev.project / module / "pom.xml"
    repositories = maven_repositories(ev.options) if ev.system == "maven" else []
    if ev.system == "maven" and managed_version(pom, repositories, name) is not None:
        return None, "its version is managed by a parent POM"
    if any(
        d.version is None and raw_version(d) is None and not d.managed and d.kind in ("maven", "gradle")
        for d in decls
    ):
        # Another module declares it without a version: a BOM, a parent or a platform gives it.
        return None, "its version is managed, as where it is declared already"
    sources = [found] if (found := _declared_version(ev, module, decls)) else []
    if (locked := locked_gradle_version(ev.project, name)) is not None:
        sources.append((locked, locked, "as the Gradle lockfile has it"))
    if past is not None and past.startswith("${") and ev.system == "maven":
        # Written through a property a parent defines: the same reference, when it still resolves.
        value = inherited_value(past, pom, repositories)
        if value is not None:
            sources.append((value, past, f"as the project's git history wrote it ({past} = {value})"))
    elif past is not None and "$" not in past:
        sources.append((past, past, "the newest version the project's git history declared"))
    if sources:
        highest = max(sources, key=lambda s: version_key(s[0]))
        chosen = sources[0] if version_key(sources[0][0]) >= version_key(highest[0]) else highest
        return chosen[1], chosen[2]
    # The version other artifacts of its group are declared at (jackson-core 2.16.1 -> databind 2.16.1).
    group = name.split(":")[0]
    versions = {a.version for a in cached}
    for other in deps.declared_jvm_names(ev.project):
        if other.split(":")[0] != group or other == name:
            continue
        for decl in deps.find_declaration(ev.project, other):
            if decl.version in versions:
                return decl.version, f"the version of {other}"
    releases = [v for v in versions if not is_prerelease(v)] or list(versions)
    return max(releases, key=version_key), "its newest cached release"


def _covers_module(ev: Evidence, decl: deps.Declaration, module_file: str) -> bool:
    """Whether a declaration applies to the module: in its own build file, or a root block for all."""
    if decl.managed:
        return False
    if decl.file == module_file:
        return True
    text = deps.read(ev.project / decl.file)
    root_file = "/" not in decl.file and decl.file in ("build.gradle", "build.gradle.kts")
    return root_file and re.search(r"\b(?:subprojects|allprojects)\s*\{", text) is not None


@dataclass
class _Need:
    """A package or JPMS module the code needs, the artifacts that provide it, and the one chosen."""

    what: str  # "imports org.slf4j" / "requires the module org.slf4j"
    key: str  # the package or module name, for the index of cached versions
    file: str | None
    test: bool
    candidates: list[Artifact]
    chosen: Artifact | None
    past: str | None = None  # the newest version git history declared it at, as written there


def _needs(ev: Evidence) -> list[_Need]:
    """What the failure says is missing: imported packages, and modules module-info.java requires."""
    found: list[_Need] = []
    missing = {m.group(1): e.file for e, m in ev.errors_matching(_JPMS_MODULE)}
    for match in _JPMS_LOG.finditer(ev.log):
        missing[match.group(2)] = missing.get(match.group(2)) or match.group(1)
    modules = jvm_modules(ev.options) if missing else {}
    for module, file in missing.items():
        found.append(
            _Need(f"requires the module {module}", module, file, False,
                  modules.get(module, []), artifact_for_module(module, ev.options))
        )  # fmt: skip
    index = jvm_index(ev.options)
    for imp in _jvm_imports(ev):
        if any(_project_has_package(ev.project, p) for p in imp.packages[:2]):
            continue  # the project's own code (another module): not a library
        test = is_test(error_path(ev, imp.file))
        if not test and _in_named_module(ev, ev.source(imp.file)):
            continue  # a JPMS module also needs `requires` in module-info.java: source code, not ours
        for package in imp.packages:
            candidates = index.get(package, [])
            if imp.class_name is not None:
                candidates = [a for a in candidates if jar_has_class(a, imp.class_name)]
            if candidates:
                chosen = artifact_for_package(package, ev.options, imp.class_name)
                found.append(_Need(f"imports {package}", package, imp.file, test, candidates, chosen))
                break
    return found


def _from_history(ev: Evidence, need: _Need) -> None:
    """Use the artifact a past commit declared for what is needed, and note its version then."""
    names = list(dict.fromkeys(f"{a.group}:{a.artifact}" for a in need.candidates))
    past = past_jvm_declaration(ev.histories(), names)
    if past is None:
        return
    name, version = past
    group, _, artifact = name.partition(":")
    same = [a for a in need.candidates if (a.group, a.artifact) == (group, artifact)]
    need.chosen = next((a for a in same if a.version == version), same[0])  # `${v}`, "": any of them
    need.past = version


def _brought_by(
    chosen: list[Artifact], target: Artifact, jars: dict[tuple[str, str], str]
) -> Artifact | None:
    """Another chosen artifact whose POM brings `target` along (transitively, through cached POMs)."""
    goal = (target.group, target.artifact)
    for other in chosen:
        if (other.group, other.artifact) == goal:
            continue
        seen: set[tuple[str, str]] = set()
        frontier = [Path(other.jar)]
        for _depth in range(4):
            following: list[Path] = []
            for jar in frontier:
                for coordinate in pom_dependencies(jar):
                    if coordinate == goal:
                        return other
                    if coordinate not in seen and coordinate in jars:
                        seen.add(coordinate)
                        following.append(Path(jars[coordinate]))
            frontier = following
    return None


def jvm_dependency(ev: Evidence) -> Repair | None:
    """Declare the artifacts that provide the packages and modules a Gradle or Maven build could not find."""
    needs = [n for n in _needs(ev) if n.candidates]
    for need in needs:
        _from_history(ev, need)
    # Main code first: a package both main and test code import is a main dependency, which
    # then covers the tests too.
    needs = sorted((n for n in needs if n.chosen is not None), key=lambda n: n.test)
    jars = {(a.group, a.artifact): a.jar for arts in jvm_index(ev.options).values() for a in arts}
    notes: list[str] = []
    planned: set[tuple[str, str]] = set()
    dropped: list[Artifact] = []
    with deps.staged(ev.project) as stage:
        for need in needs:
            artifact = need.chosen
            assert artifact is not None
            name = f"{artifact.group}:{artifact.artifact}"
            # Test code sees main dependencies, not the other way round.
            bringers = [
                n.chosen for n in needs if n.chosen and n.chosen not in dropped and n.test <= need.test
            ]
            if (bringer := _brought_by(bringers, artifact, jars)) is not None:
                dropped.append(artifact)  # two that bring each other: the first goes, the second stays
                notes.append(f"{name} comes with {bringer.group}:{bringer.artifact}")
                continue  # a sibling the other brings: the project never declared it either
            module = _module_dir(ev, ev.source(need.file), _JVM_BUILD_FILES)
            base = ev.project / module if module else ev.project
            module_file = next(
                (f"{module}/{f}".lstrip("/") for f in _JVM_BUILD_FILES if (base / f).is_file()), None
            )
            if module_file is None or (name, module) in planned:
                continue
            decls = deps.find_declaration(ev.project, name)
            if any(_covers_module(ev, d, module_file) for d in decls):
                continue  # declared for this module (another scope?): adding a copy is not the fix
            cached = [a for a in need.candidates if f"{a.group}:{a.artifact}" == name]
            version, why = _jvm_version(ev, name, module, decls, cached or [artifact], need.past)
            edit = deps.add_dependency(ev.project, ev.system, name, version, need.test, module)
            if edit is None or not stage.add([edit]):
                continue
            planned.add((name, module))
            shown = f"{name}:{version}" if version else name
            notes.append(
                f"{error_path(ev, need.file) or 'the code'} {need.what}, provided by {shown} ({why}): "
                f"declare it in {edit.file}"
            )
        edits = stage.edits()
    return undeclared_repair(edits, notes)
