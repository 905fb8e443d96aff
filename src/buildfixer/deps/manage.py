"""Dependency declarations in build files: find them, change their version, add and remove them.

Every function plans edits instead of writing: an `Edit` is a literal replacement of text that
occurs exactly once in its file (or, with empty `old_text`, the content of a new file), so the
agent layer can apply it through its file tools and show it. `apply_edits` writes them.

Names: "group:artifact" (or a Gradle plugin id) for Gradle and Maven, the distribution name for
pip, the package name for npm. The per-system work is in `deps.jvm` (Gradle, and Maven through
`deps.maven`), `deps.python_requirements` (with `deps.python_placement`) and `deps.npm_dependencies`;
the types and helpers they share are in `deps.base`, and are re-exported here, the package's public face
(`from buildfixer.deps import manage as deps; deps.Edit, deps.read, deps.staged...`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from buildfixer.core import confined
from buildfixer.deps import jvm as deps_jvm
from buildfixer.deps import npm_dependencies, python_requirements
from buildfixer.deps.base import (
    MAX_DEPTH,
    SKIP_DIRS,
    Declaration,
    Edit,
    Stage,
    confined_to,
    find_build_files,
    read,
    rel,
    span_edit,
    staged,
    whole_file_edit,
)

__all__ = [
    "MAX_DEPTH",
    "SKIP_DIRS",
    "Declaration",
    "Edit",
    "Stage",
    "add_dependency",
    "apply_edits",
    "confined_to",
    "declared_jvm_names",
    "declared_repositories",
    "find_build_files",
    "find_declaration",
    "read",
    "rel",
    "remove_dependency",
    "set_version",
    "span_edit",
    "staged",
    "whole_file_edit",
]


def find_declaration(project: Path, name: str) -> list[Declaration]:
    """Every declaration of a dependency in the project's build files (all build systems).

    Args:
        project: The project root.
        name: "group:artifact" or a Gradle plugin id for JVM builds, else the package name.

    Returns:
        The declarations, shallowest build file first; empty when it is not declared.
    """
    return (
        deps_jvm.find(project, name)
        + python_requirements.find(project, name)
        + npm_dependencies.find(project, name)
    )


def declared_jvm_names(project: Path) -> list[str]:
    """Every group:artifact the project's Gradle and Maven build files name."""
    return deps_jvm.names(project)


def declared_repositories(project: Path) -> list[str]:
    """Extra Maven repositories the Gradle and Maven build files declare (JitPack, a company's)."""
    return deps_jvm.repositories(project)


def set_version(project: Path, name: str, version: str, only_version: str | None = None) -> list[Edit]:
    """Edits that make every declaration of `name` ask for `version`.

    A version held in a property (`${kotlin.version}`, `$gsonVersion`, a catalog entry) is
    changed where it is defined, once. Python requirements keep their operator when it has a
    single clause (`>=1.0` -> `>=2.0`); npm ranges keep their `^`/`~`.

    Args:
        project: The project root.
        name: The dependency (see `find_declaration`).
        version: The version to ask for.
        only_version: Change only declarations that currently ask for this version.

    Returns:
        The edits (empty when nothing declares it or it already asks for `version`).
    """
    edits: list[Edit] = []
    seen: set[tuple[str, int]] = set()
    for decl in find_declaration(project, name):
        if only_version is not None and decl.version != only_version:
            continue
        if decl.kind in ("python", "poetry", "npm"):
            planner = npm_dependencies if decl.kind == "npm" else python_requirements
            edit = planner.version_edit(project, decl, version)
            if edit is not None and edit not in edits:
                edits.append(edit)
            continue
        if decl.version_file is None or decl.version == version:
            continue
        key = (decl.version_file, decl.version_start)
        if key in seen:
            continue
        seen.add(key)
        text = read(project / decl.version_file)
        edits.append(span_edit(decl.version_file, text, decl.version_start, decl.version_end, version))
    return _merge(project, edits)


def _merge(project: Path, edits: list[Edit]) -> list[Edit]:
    """Combine edits of the same file whose old texts overlap into one, so all stay applicable."""
    merged: list[Edit] = []
    for edit in edits:
        clash = next(
            (
                m
                for m in merged
                if m.file == edit.file and (edit.old_text in m.old_text or m.old_text in edit.old_text)
            ),
            None,
        )
        if clash is None:
            merged.append(edit)
            continue
        # Apply both to the file's text and re-derive one edit spanning the two.
        text = read(project / edit.file)
        after = text.replace(clash.old_text, clash.new_text, 1)
        after = after.replace(edit.old_text, edit.new_text, 1) if edit.old_text in after else after
        merged[merged.index(clash)] = whole_file_edit(edit.file, text, after)
    return merged


def add_dependency(
    project: Path, system: str, name: str, version: str | None, test: bool = False, module: str = ""
) -> Edit | None:
    """The edit declaring a new dependency in the project's (or a module's) main build file.

    Gradle uses `compile` when the build file's dependencies already do (Gradle 4 and older),
    else `implementation` (`testCompile`/`testImplementation` for test code); Maven adds a
    `<dependency>` to the project's `<dependencies>` (created when absent); Python adds to
    `[project].dependencies`, Poetry, setup.cfg, setup.py or requirements.txt, wherever the
    dependencies live; npm adds to `dependencies` of package.json.

    Args:
        project: The project root.
        system: gradle, maven, python or npm.
        name: "group:artifact" for Gradle/Maven, else the package name.
        version: The version to declare; None declares it without one (Python: unpinned;
            Gradle and Maven: when a `<dependencyManagement>`, a BOM or a platform gives it).
        test: Only test code needs it.
        module: Directory of the module (relative to the root) whose build file gets it.

    Returns:
        The edit, or None when there is no build file to put it in.
    """
    base = project / module if module else project
    if system in ("gradle", "maven"):
        return deps_jvm.add(project, base, system, name, version, test)
    if system == "npm":
        return npm_dependencies.add(project, base, name, version, test)
    if system == "python":
        return python_requirements.add(project, base, name, version, test)
    return None


def remove_dependency(project: Path, name: str) -> list[Edit]:
    """Edits removing every declaration of `name` (the version property, if any, stays)."""
    edits = [
        deps_jvm.removal(project, d)
        or python_requirements.removal(project, d)
        or npm_dependencies.removal(project, d)
        for d in find_declaration(project, name)
    ]
    return _merge(project, [e for e in edits if e is not None])


def apply_edits(project: Path, edits: Iterable[Edit]) -> list[str]:
    """Write planned edits (each file atomically, through `core.confined`); returns the files changed.

    Raises:
        ValueError: an edit's old text is no longer found exactly once, or a file to create
            already exists.
        ToolError: a file leads out of the project (a link), into `.git`, or is no regular file.
    """
    changed: list[str] = []
    for edit in edits:

        def change(before: str | None, edit: Edit = edit) -> str:
            if edit.old_text == "":
                if before is not None and before.strip():
                    raise ValueError(f"{edit.file} already exists")
                return edit.new_text
            count = (before or "").count(edit.old_text)
            if before is None or count != 1:
                raise ValueError(f"{edit.file}: the text to replace occurs {count} times (expected once)")
            return before.replace(edit.old_text, edit.new_text, 1)

        confined.rewrite(project, edit.file, change)
        changed.append(edit.file)
    return changed
