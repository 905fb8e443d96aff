"""What the dependency planners share: planned edits, declarations, and reading build files.

`Edit` and `Declaration` are the vocabulary of `buildfixer.deps.manage` and of the per-system
planners (`deps.jvm`, `deps.maven`, `deps.python_requirements`, `deps.python_placement`,
`deps.npm_dependencies`); `find_build_files` finds the build files, `read` reads them (as the
edits planned so far leave them, inside `staged`), `span_edit` / `whole_file_edit` turn a change
of a file's text into an `Edit` whose old text is unique, and `item_span` is what removing one
item of a list takes.

Build files are read through `core.confined` (a project may hold `pom.xml -> /root/.ssh/id_rsa`):
inside `confined_to(project)` or `staged(project)` no link out of the project is followed, not
even through a linked directory; elsewhere the file itself must not lead out of its directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from buildfixer.core import confined

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


def find_build_files(project: Path, names: Iterable[str]) -> list[Path]:
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
# The project `read` is confined to (see `confined_to`).
_ROOT: ContextVar[Path | None] = ContextVar("confined_project", default=None)


@contextmanager
def confined_to(project: Path) -> Iterator[None]:
    """Inside, `read` (and so every planner here) follows no link out of `project`."""
    token = _ROOT.set(project)  # as given: `core.confined.relative` also tries it resolved
    try:
        yield
    finally:
        _ROOT.reset(token)


def _read_confined(path: Path) -> str:
    """The file's text through `core.confined` ("" when it is missing, leads out, or is no regular file)."""
    target = os.path.abspath(path)
    root = _ROOT.get()
    if root is None:  # no project known: the file itself must not lead out of its directory
        root = Path(target).parent
    return confined.try_read_text(root, target) or ""


def read(path: Path) -> str:
    """A build file's text ("" when unreadable: such a file declares nothing we can edit).

    Inside `staged`, the text as the edits planned so far leave it. Read through `core.confined`
    (see the module docstring): a link out of the project reads as "".
    """
    texts = _STAGED.get()
    if texts:
        try:
            staged_text = texts.get(str(path.resolve()))
        except OSError:
            staged_text = None
        if staged_text is not None:
            return staged_text
    return _read_confined(path)


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
                current = confined.try_read_text(self.project, edit.file) or ""
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
    """Plan several edits in sequence: inside, `read` (and so every planner here) sees `Stage.add`ed edits.

    Reads are confined to `project` as in `confined_to`.
    """
    stage = Stage(project.resolve())
    token = _STAGED.set(stage.texts)
    try:
        with confined_to(project):
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


def whole_file_edit(file: str, before: str, after: str) -> Edit:
    """The smallest unique-line Edit turning `before` into `after` (which differ in one region)."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end_b, end_a = len(before), len(after)
    while end_b > start and end_a > start and before[end_b - 1] == after[end_a - 1]:
        end_b, end_a = end_b - 1, end_a - 1
    return span_edit(file, before, start, end_b, after[start:end_a])


def item_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span removing one item of a JSON object or TOML/Python list with its comma and line."""
    comma_after = re.match(r"[ \t]*,", text[end:])
    if comma_after:
        end += comma_after.end()
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    own_line = text[line_start:start].strip() == "" and text[end:line_end].strip() == ""
    if own_line and comma_after:
        return line_start, min(line_end + 1, len(text))
    comma_before = re.search(r",\s*$", text[:start])
    if own_line:  # the last item: its line and the comma ending the line before go
        if comma_before:
            return comma_before.start(), line_end
        return line_start, min(line_end + 1, len(text))
    if not comma_after and comma_before:
        return comma_before.start(), end
    return start, end + len(re.match(r"[ \t]*", text[end:]).group(0))  # type: ignore[union-attr]
