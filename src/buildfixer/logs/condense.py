"""A prompt-ready view of an analyzed build log, within a token budget.

An agent needs the root error first, with enough surrounding log and source to
act on it, then a glimpse of the other errors and of how the log ended. The view
is built from sections of decreasing priority; when it exceeds the budget, the
lowest-priority sections shrink first (log tail, other errors, source excerpt,
log window), and the root error itself is never dropped.

The source lines come from the project's files as the caller hands them (`logs.source`): a
file an error names may be a link a build planted to a host secret, so the analyzer never
opens one itself.
"""

from __future__ import annotations

import re
from itertools import islice
from pathlib import PurePath, PurePosixPath

from buildfixer.core.build_result import BuildError
from buildfixer.core.chat import tokens_by_pieces
from buildfixer.logs.analyze import Analysis
from buildfixer.logs.source import ProjectFiles

# Lines without content (separators, bare `[INFO]`) are left out of the view.
_FILLER = re.compile(r"^\s*(?:\[[A-Z]+\]\s*)?(?:[-=*_]{3,}\s*)?$")
_MAX_LINE = 300
# Bounds the search for a source file in a large checkout.
_MAX_WALKED_FILES = 50_000
_SKIPPED_DIRS = {"build", "target", "node_modules", "out", "__pycache__", "dist"}
_MAX_MESSAGE = 1200
_MAX_SOURCE_BYTES = 2_000_000

# Degradation steps, richest first: (log window before, after, source context,
# other errors, tail lines). Each step shrinks one lower-priority part.
_STEPS: tuple[tuple[int, int, int, int, int], ...] = (
    (5, 15, 6, 10, 30),
    (5, 15, 6, 10, 15),
    (5, 15, 6, 6, 8),
    (4, 12, 4, 4, 0),
    (3, 8, 3, 2, 0),
    (2, 6, 2, 0, 0),
    (1, 4, 1, 0, 0),
    (0, 2, 0, 0, 0),
    (0, 0, 0, 0, 0),
)


def _clip(line: str, limit: int = _MAX_LINE) -> str:
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _describe(error: BuildError) -> str:
    where = f" at {error.location()}" if error.file else ""
    return f"[{error.tool}, {error.category}]{where}: {_clip(error.message, _MAX_MESSAGE)}"


def _source_file(error: BuildError, files: ProjectFiles | None) -> str | None:
    """The error's file in the project (relative), also when the log shows another machine's path."""
    if files is None or not error.file or error.line is None:
        return None
    parts = PurePath(error.file.replace("\\", "/")).parts
    # Try the path as given, then ever shorter suffixes of it (the build may have
    # run in /home/ci/work/repo while the project is checked out elsewhere).
    for start in range(len(parts)):
        suffix = PurePosixPath(*parts[start:])
        if suffix.is_absolute():
            continue
        if files.is_file(str(suffix)):
            return str(suffix)
    absolute = PurePath(error.file)
    if absolute.is_absolute() and absolute.is_relative_to(files.root):
        inside = absolute.relative_to(files.root).as_posix()
        if files.is_file(inside):
            return inside
    # Test reports name `demo/AppTest.java` while the file is in src/test/java/demo/.
    return _find_by_suffix(files, [p for p in parts if p not in ("/", "\\")][-3:])


def _skipped(name: str) -> bool:
    return name.startswith(".") or name in _SKIPPED_DIRS


def _find_by_suffix(files: ProjectFiles, suffix: list[str]) -> str | None:
    """Walk the project for a file whose path ends with `suffix`, skipping build output."""
    if not suffix:
        return None
    for rel in islice(files.files(_skipped), _MAX_WALKED_FILES):
        if rel.split("/")[-len(suffix) :] == suffix:
            return rel
    return None


def _source_lines(error: BuildError | None, files: ProjectFiles | None) -> list[str] | None:
    """The lines of the root error's file (its first 2 MB), read through `files`; None when not found."""
    rel = _source_file(error, files) if error is not None else None
    text = files.read_text(rel, _MAX_SOURCE_BYTES) if files is not None and rel is not None else None
    return None if text is None else text.splitlines()


def _source_excerpt(source: list[str], line: int, context: int) -> list[str]:
    if not 1 <= line <= len(source):
        return []
    first, last = max(1, line - context), min(len(source), line + context)
    width = len(str(last))
    return [
        f"{'>>' if n == line else '  '} {n:>{width}} | {_clip(source[n - 1])}" for n in range(first, last + 1)
    ]


def _content(lines: list[str]) -> list[str]:
    return [_clip(line) for line in lines if not _FILLER.match(line)]


def _log_window(lines: list[str], at: int, before: int, after: int) -> tuple[list[str], int]:
    """Up to `before` and `after` content lines around line `at`; also the index after the window."""
    head = _content(lines[max(0, at - 3 * before) : at])[-before:] if before else []
    end = min(len(lines), at + 1 + 3 * after)
    rest = _content(lines[at + 1 : end])[:after]
    # Find where the kept lines end, so the tail does not repeat them.
    shown = 0
    stop = at + 1
    while stop < end and shown < len(rest):
        if not _FILLER.match(lines[stop]):
            shown += 1
        stop += 1
    return [*head, _clip(lines[at]), *rest], stop


def _tail(lines: list[str], count: int, start: int) -> list[str]:
    """The last `count` content lines, from index `start` on."""
    if count <= 0:
        return []
    return _content(lines[max(start, len(lines) - 4 * count) :])[-count:]


def _render(analysis: Analysis, source: list[str] | None, step: tuple[int, int, int, int, int]) -> str:
    before, after, source_context, n_others, n_tail = step
    root = analysis.root
    parts = [f"Build system: {analysis.build_system or 'unknown'}; category: {analysis.category or 'none'}"]
    shown_until = 0
    if root is None:
        parts.append("No errors were recognised in the log.")
    else:
        parts.append(f"Root error {_describe(root)}")
        if root.log_line is not None and (before or after):
            window, shown_until = _log_window(analysis.lines, root.log_line, before, after)
            parts.append("Log around the root error:\n" + "\n".join(window))
        if source is not None and source_context and root.line is not None:
            excerpt = _source_excerpt(source, root.line, source_context)
            if excerpt:
                parts.append(f"Source {root.file} (>> marks line {root.line}):\n" + "\n".join(excerpt))
        others = analysis.errors[1:]
        if others and n_others:
            listed = [f"- {_describe(e)}" for e in others[:n_others]]
            if len(others) > n_others:
                listed.append(f"- ... and {len(others) - n_others} more")
            parts.append(f"Other errors ({len(others)}):\n" + "\n".join(listed))
    # Without a recognised error the end of the log is all there is to show.
    tail = _tail(analysis.lines, n_tail if root is not None else 2 * n_tail, shown_until)
    if tail:
        parts.append("End of the log:\n" + "\n".join(tail))
    return "\n\n".join(parts) + "\n"


def condense(analysis: Analysis, budget_tokens: int = 2000, files: ProjectFiles | None = None) -> str:
    """Render the analysis for a prompt, within `budget_tokens` where at all possible.

    Args:
        analysis: the analyzed log.
        budget_tokens: the most tokens (by `tokens_by_pieces`) the view may take.
        files: the project's files (`core.confined.WorkspaceFiles` for a workspace);
            when the root error's file is found among them, the source lines around
            the error are shown.

    Returns:
        The view. Only the header and the root error line are kept when even
        they exceed the budget, so the result can be longer than the budget then.
    """
    source = _source_lines(analysis.root, files)
    text = ""
    for step in _STEPS:
        text = _render(analysis, source, step)
        if tokens_by_pieces(text) <= budget_tokens:
            return text
    return text
