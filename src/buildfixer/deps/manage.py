"""Dependency declarations in build files: find them, change their version, add and remove them.

Every function plans edits instead of writing: an `Edit` is a literal replacement of text that
occurs exactly once in its file (or, with empty `old_text`, the content of a new file), so the
agent layer can apply it through its file tools and show it. `apply_edits` writes them.

Names: "group:artifact" (or a Gradle plugin id) for Gradle and Maven, the distribution name for
pip, the package name for npm. The per-system work is in `deps_jvm` and `deps_other`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

# Directories never searched for build files: outputs, environments, vendored code.
SKIP_DIRS = {
    "node_modules",
    "build",
    "target",
    "dist",
    "out",
    "venv",
    "env",
    "__pycache__",
    "site-packages",
    "bin",
}
MAX_DEPTH = 4


@dataclass(frozen=True)
class Edit:
    """One planned change: replace `old_text` (unique in `file`) by `new_text`.

    Attributes:
        file: Path relative to the project root.
        old_text: Text to replace; empty when `file` is to be created with `new_text`.
        new_text: The replacement (or the new file's content).
    """

    file: str
    old_text: str
    new_text: str


@dataclass(frozen=True)
class Declaration:
    """A dependency declared in a build file.

    Attributes:
        file: Build file holding the declaration, relative to the project root.
        name: The dependency's name as declared ("group:artifact", plugin id, package).
        version: Its version as resolved (through a property or catalog entry); None when the
            declaration has none (managed by a BOM, unpinned requirement).
        text: The declaration as written, for messages.
        version_file: File holding the version literal (a properties block, gradle.properties,
            a version catalog), relative to the project root; None when there is no literal.
        version_start: Offset of the version literal in `version_file`.
        version_end: End offset of the version literal.
        kind: Which kind of declaration ("gradle", "gradle-plugin", "catalog", "maven",
            "maven-plugin", "python", "npm").
        managed: Only a managed version (Maven `<dependencyManagement>`/`<pluginManagement>`):
            it declares no dependency of its own.
    """

    file: str
    name: str
    version: str | None
    text: str
    version_file: str | None = None
    version_start: int = 0
    version_end: int = 0
    kind: str = ""
    managed: bool = False


def walk_files(project: Path, names: Iterable[str]) -> list[Path]:
    """Files of the given names (or `*suffix` patterns) in the project, shallow ones first."""
    wanted = set(names)
    found: list[Path] = []
    root = project.resolve()
    for dirpath, dirs, files in os.walk(root):
        depth = len(Path(dirpath).relative_to(root).parts)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS and depth < MAX_DEPTH
        )
        for name in sorted(files):
            if name in wanted or any(w.startswith("*") and name.endswith(w[1:]) for w in wanted):
                found.append(Path(dirpath) / name)
    return sorted(found, key=lambda p: (len(p.relative_to(root).parts), str(p)))


def rel(project: Path, path: Path) -> str:
    """A path relative to the project root, with forward slashes."""
    return path.resolve().relative_to(project.resolve()).as_posix()


# Texts of files changed by planned edits not yet written (see `staged`), by resolved path.
_STAGED: ContextVar[dict[str, str] | None] = ContextVar("staged_build_files", default=None)


def read(path: Path) -> str:
    """A build file's text ("" when unreadable: such a file declares nothing we can edit).

    Inside `staged`, the text as the edits planned so far leave it.
    """
    texts = _STAGED.get()
    if texts:
        try:
            staged_text = texts.get(str(path.resolve()))
        except OSError:
            staged_text = None
        if staged_text is not None:
            return staged_text
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


@dataclass
class Stage:
    """Edits planned one after another, each seeing the files as the ones before leave them.

    `add` applies a batch of edits to the staged texts (all or none); `edits` gives, per file,
    one edit from the file on disk to its staged text, so several changes of one file (two
    new dependencies in one `<dependencies>`) stay applicable together.
    """

    project: Path
    texts: dict[str, str] = field(default_factory=dict)
    originals: dict[str, tuple[str, str]] = field(default_factory=dict)  # resolved -> (rel, text)

    def add(self, edits: Iterable[Edit]) -> bool:
        """Apply edits to the staged texts; False (and nothing applied) when one does not apply."""
        pending: dict[str, str] = {}
        for edit in edits:
            path = (self.project / edit.file).resolve()
            key = str(path)
            current = pending.get(key, self.texts.get(key))
            if current is None:
                current = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
                self.originals.setdefault(key, (edit.file, current))
            if edit.old_text == "":
                if current.strip():
                    return False
                pending[key] = edit.new_text
            elif current.count(edit.old_text) != 1:
                return False
            else:
                pending[key] = current.replace(edit.old_text, edit.new_text, 1)
        self.texts.update(pending)
        return True

    def edits(self) -> list[Edit]:
        """One edit per changed file, from its text on disk to its staged text."""
        found: list[Edit] = []
        for key, (file, before) in self.originals.items():
            after = self.texts.get(key, before)
            if after == before:
                continue
            found.append(
                Edit(file, "", after) if not before.strip() else whole_file_edit(file, before, after)
            )
        return found


@contextmanager
def staged(project: Path) -> Iterator[Stage]:
    """Plan several edits in sequence: inside, `read` (and so every planner here) sees `Stage.add`ed edits."""
    stage = Stage(project.resolve())
    token = _STAGED.set(stage.texts)
    try:
        yield stage
    finally:
        _STAGED.reset(token)


def span_edit(file: str, text: str, start: int, end: int, replacement: str) -> Edit:
    """An Edit replacing text[start:end], widened to whole lines until its old text is unique."""
    line_start = text.rfind("\n", 0, start) + 1
    last = max(start, end - 1) if end > start else start
    line_end = text.find("\n", last)
    line_end = len(text) if line_end == -1 else line_end + 1
    if end > start and text[end - 1 : end] == "\n":
        line_end = end  # the span already ends with its line
    while True:
        old = text[line_start:line_end]
        if old and text.count(old) == 1:
            break
        if line_start == 0 and line_end >= len(text):
            break
        line_start = text.rfind("\n", 0, max(line_start - 1, 0)) + 1 if line_start > 0 else 0
        if line_end < len(text):
            nxt = text.find("\n", line_end)
            line_end = len(text) if nxt == -1 else nxt + 1
    old = text[line_start:line_end]
    new = text[line_start:start] + replacement + text[end:line_end]
    return Edit(file, old, new)


def find_declaration(project: Path, name: str) -> list[Declaration]:
    """Every declaration of a dependency in the project's build files (all build systems).

    Args:
        project: The project root.
        name: "group:artifact" or a Gradle plugin id for JVM builds, else the package name.

    Returns:
        The declarations, shallowest build file first; empty when it is not declared.
    """
    from buildfixer.deps import jvm as deps_jvm
    from buildfixer.deps import other as deps_other

    return deps_jvm.find(project, name) + deps_other.find(project, name)


def declared_jvm_names(project: Path) -> list[str]:
    """Every group:artifact the project's Gradle and Maven build files name."""
    from buildfixer.deps import jvm as deps_jvm

    return deps_jvm.names(project)


def declared_repositories(project: Path) -> list[str]:
    """Extra Maven repositories the Gradle and Maven build files declare (JitPack, a company's)."""
    from buildfixer.deps import jvm as deps_jvm

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
    from buildfixer.deps import other as deps_other

    edits: list[Edit] = []
    seen: set[tuple[str, int]] = set()
    for decl in find_declaration(project, name):
        if only_version is not None and decl.version != only_version:
            continue
        if decl.kind in ("python", "poetry", "npm"):
            edit = deps_other.version_edit(project, decl, version)
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


def whole_file_edit(file: str, before: str, after: str) -> Edit:
    """The smallest unique-line Edit turning `before` into `after` (which differ in one region)."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end_b, end_a = len(before), len(after)
    while end_b > start and end_a > start and before[end_b - 1] == after[end_a - 1]:
        end_b, end_a = end_b - 1, end_a - 1
    return span_edit(file, before, start, end_b, after[start:end_a])


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
    from buildfixer.deps import jvm as deps_jvm
    from buildfixer.deps import other as deps_other

    base = project / module if module else project
    if system in ("gradle", "maven"):
        return deps_jvm.add(project, base, system, name, version, test)
    return deps_other.add(project, base, system, name, version, test)


def remove_dependency(project: Path, name: str) -> list[Edit]:
    """Edits removing every declaration of `name` (the version property, if any, stays)."""
    from buildfixer.deps import jvm as deps_jvm
    from buildfixer.deps import other as deps_other

    edits = [
        deps_jvm.removal(project, d) or deps_other.removal(project, d)
        for d in find_declaration(project, name)
    ]
    return _merge(project, [e for e in edits if e is not None])


def apply_edits(project: Path, edits: Iterable[Edit]) -> list[str]:
    """Write planned edits (each file atomically); returns the files changed.

    Raises:
        ValueError: an edit's old text is no longer found exactly once, or a file to create
            already exists.
    """
    changed: list[str] = []
    for edit in edits:
        path = project / edit.file
        if edit.old_text == "":
            if path.exists() and read(path).strip():
                raise ValueError(f"{edit.file} already exists")
            text = edit.new_text
        else:
            before = path.read_text(encoding="utf-8")
            count = before.count(edit.old_text)
            if count != 1:
                raise ValueError(f"{edit.file}: the text to replace occurs {count} times (expected once)")
            text = before.replace(edit.old_text, edit.new_text, 1)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        changed.append(edit.file)
    return changed
