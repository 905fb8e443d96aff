"""A unified diff read into the changes the judge's rules look at (parsing by `unidiff`)."""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.file_kinds import language

_COMMENT = {"python": "#", "other": "#"}  # the rest of the languages the judge reads use //


@dataclass(frozen=True)
class Line:
    """One line of a hunk: its number (in the new file when added, the old one when removed) and text."""

    number: int
    text: str


@dataclass
class Hunk:
    """One hunk: where it sits, the lines it removed and added, and its context lines (new-file numbers).

    Its header `@@ -old_start,old_count +new_start,new_count @@`: `old_count` lines from line
    `old_start` of the old file became `new_count` lines from line `new_start` of the new file; a
    count of 0 is an insertion after (a cut after) that line. Hunks compare by where they sit: the
    lines are what one patch has there.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: list[Line] = field(default_factory=list, compare=False)
    added: list[Line] = field(default_factory=list, compare=False)
    context: list[Line] = field(default_factory=list, compare=False)

    def written(self) -> set[int]:
        """The new file's lines it wrote: the lines it spans there, or either side of a cut."""
        if self.new_count:
            return set(range(self.new_start, self.new_start + self.new_count))
        return {self.new_start, self.new_start + 1}


@dataclass
class FileChange:
    """What a patch does to one file."""

    path: str  # the new path (the old one when the file is deleted)
    old_path: str
    created: bool
    deleted: bool
    hunks: list[Hunk]

    @property
    def removed(self) -> list[Line]:
        """Every removed line of the file."""
        return [line for hunk in self.hunks for line in hunk.removed]

    @property
    def added(self) -> list[Line]:
        """Every added line of the file."""
        return [line for hunk in self.hunks for line in hunk.added]


def code_lines(lines: Iterable[Line], path: str) -> list[Line]:
    """The lines that are not comments, in `path`'s language (a commented-out `@Ignore` disables nothing)."""
    prefix = _COMMENT.get(language(path), "//")
    return [line for line in lines if not line.text.strip().startswith((prefix, "*", "/*"))]


def comment_prefix(path: str) -> str:
    """What starts a line comment in `path`'s language."""
    return _COMMENT.get(language(path), "//")


def parse_patch(text: str, *, moves: bool = True) -> list[FileChange]:
    """The file changes of a unified diff (git's or plain).

    Args:
        text: The diff.
        moves: Read a file deleted and one created with the same lines as the one rename it is
            (`_moves`); False: as the deletion and the creation the diff shows.

    Raises:
        BuildfixerError: the text is not a unified diff.
    """
    from unidiff import PatchSet  # small, but only the judge needs it
    from unidiff.errors import UnidiffParseError

    try:
        # Lines end at "\n" only: a CR, form feed or U+2028 a model wrote is part of its line
        # (str.splitlines would break the hunk there and call a valid patch malformed).
        lines = text.split("\n")
        patch = PatchSet([line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else []))
    except UnidiffParseError as exc:
        raise BuildfixerError(f"not a unified diff: {exc}") from None
    if not patch and text.strip():
        raise BuildfixerError("not a unified diff: no file headers (--- a/FILE, +++ b/FILE)")
    changes = []
    for patched in patch:
        old, new = _strip(patched.source_file), _strip(patched.target_file)
        deleted, created = patched.is_removed_file, patched.is_added_file
        hunks = []
        for hunk in patched:
            parsed = Hunk(hunk.source_start, hunk.source_length, hunk.target_start, hunk.target_length)
            for line in hunk:
                text_ = line.value.rstrip("\r\n")
                if line.is_removed:
                    parsed.removed.append(Line(line.source_line_no or 0, text_))
                elif line.is_added:
                    parsed.added.append(Line(line.target_line_no or 0, text_))
                elif line.is_context:
                    parsed.context.append(Line(line.target_line_no or 0, text_))
            hunks.append(parsed)
        changes.append(FileChange(old if deleted else new, old, created, deleted, hunks))
    return _moves(changes) if moves else changes


def select_files(text: str, keep: Callable[[str, str], bool]) -> str:
    """The part of a unified diff that changes the files `keep(old_path, new_path)` accepts."""
    from unidiff import PatchSet

    lines = text.split("\n")
    patch = PatchSet([line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else []))
    return "".join(
        str(patched) for patched in patch if keep(_strip(patched.source_file), _strip(patched.target_file))
    )


def _moves(changes: list[FileChange]) -> list[FileChange]:
    """A file deleted and one created with the same lines, as the one rename it is.

    Diffs made without rename detection (`git diff --no-renames`, as the harness makes them) show
    a moved file as a deletion and a creation; read that way, the deletion of a moved test or
    config would look like its removal.
    """
    created: dict[tuple[str, ...], FileChange] = {}
    for change in changes:
        if change.created:
            created.setdefault(tuple(line.text for line in change.added), change)
    folded: list[FileChange] = []
    moved: set[int] = set()
    for change in changes:
        if change.deleted and change.removed:
            twin = created.get(tuple(line.text for line in change.removed))
            if twin is not None and id(twin) not in moved:
                moved.add(id(twin))
                folded.append(FileChange(twin.path, change.path, False, False, []))
                continue
        folded.append(change)
    return [change for change in folded if id(change) not in moved]


def _strip(name: str) -> str:
    """A diff header's file name without git's a/ b/ prefix (git quotes unusual names C-style)."""
    if len(name) > 1 and name.startswith('"') and name.endswith('"'):
        with contextlib.suppress(ValueError, SyntaxError):  # not git's quoting: the name as it is
            name = bytes(ast.literal_eval(f"b{name}")).decode("utf-8", "replace")
    if name.startswith(("a/", "b/")):
        return name[2:]
    return name
