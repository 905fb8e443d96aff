"""A prompt-ready view of an analyzed build log, within a token budget.

An agent needs the root error first, with enough surrounding log and source to
act on it, then a glimpse of the other errors and of how the log ended. The view
is built from sections of decreasing priority; when it exceeds the budget, the
lowest-priority sections shrink first (log tail, other errors, source excerpt,
log window), and the root error itself is never dropped.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from buildfixer.core.build_result import BuildError
from buildfixer.logs.analyze import Analysis

# Word pieces and single punctuation marks. Tokenizers (tiktoken's cl100k and
# its kin) need about one token per short word and one per punctuation mark, and
# split long identifiers and numbers into pieces of roughly four characters;
# counting ceil(len/4) per word overestimates slightly, which is the safe side
# for a budget. No network is needed, unlike tiktoken's encoding download.
_PIECE = re.compile(r"\w+|([^\w\s])\1*")
# Lines without content (separators, bare `[INFO]`) are left out of the view.
_FILLER = re.compile(r"^\s*(?:\[[A-Z]+\]\s*)?(?:[-=*_]{3,}\s*)?$")
_MAX_LINE = 300
# Bounds the search for a source file in a large checkout.
_MAX_WALKED_FILES = 50_000
_SKIPPED_DIRS = {"build", "target", "node_modules", "out", "__pycache__", "dist"}
_MAX_MESSAGE = 1200

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


def estimate_tokens(text: str) -> int:
    """Estimate how many LLM tokens a text takes, erring high.

    Args:
        text: any text.

    Returns:
        One token per started four characters of every run of word characters
        or of one repeated punctuation mark (`----`), at least one per run.
    """
    return sum(math.ceil(len(match.group()) / 4) for match in _PIECE.finditer(text))


def _clip(line: str, limit: int = _MAX_LINE) -> str:
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _describe(error: BuildError) -> str:
    where = f" at {error.location()}" if error.file else ""
    return f"[{error.tool}, {error.category}]{where}: {_clip(error.message, _MAX_MESSAGE)}"


def _source_file(error: BuildError, project_dir: Path | None) -> Path | None:
    """Find the error's file under `project_dir`, also when the log shows another machine's path."""
    if project_dir is None or not error.file or error.line is None:
        return None
    root = project_dir.resolve()
    parts = Path(error.file.replace("\\", "/")).parts
    # Try the path as given, then ever shorter suffixes of it (the build may have
    # run in /home/ci/work/repo while the project is checked out elsewhere).
    for start in range(len(parts)):
        suffix = Path(*parts[start:])
        if suffix.is_absolute():
            continue
        candidate = (root / suffix).resolve()
        if candidate.is_file() and candidate.is_relative_to(root):
            return candidate
    absolute = Path(error.file)
    if absolute.is_absolute() and absolute.is_file() and absolute.resolve().is_relative_to(root):
        return absolute.resolve()
    # Test reports name `demo/AppTest.java` while the file is in src/test/java/demo/.
    return _find_by_suffix(root, [p for p in parts if p not in ("/", "\\")][-3:])


def _find_by_suffix(root: Path, suffix: list[str]) -> Path | None:
    """Walk the project for a file whose path ends with `suffix`, skipping build output."""
    if not suffix:
        return None
    budget = _MAX_WALKED_FILES
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if not d.startswith(".") and d not in _SKIPPED_DIRS]
        if suffix[-1] in files:
            candidate = Path(directory, suffix[-1])
            if list(candidate.relative_to(root).parts[-len(suffix) :]) == suffix:
                return candidate
        budget -= len(files)
        if budget <= 0:
            break
    return None


def _source_excerpt(path: Path, line: int, context: int) -> list[str]:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            source = handle.read(2_000_000).splitlines()
    except OSError:
        return []
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


def _render(analysis: Analysis, project_dir: Path | None, step: tuple[int, int, int, int, int]) -> str:
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
        path = _source_file(root, project_dir) if source_context else None
        if path is not None and root.line is not None:
            excerpt = _source_excerpt(path, root.line, source_context)
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


def condense(analysis: Analysis, budget_tokens: int = 2000, project_dir: str | Path | None = None) -> str:
    """Render the analysis for a prompt, within `budget_tokens` where at all possible.

    Args:
        analysis: the analyzed log.
        budget_tokens: the most tokens (by `estimate_tokens`) the view may take.
        project_dir: the project checkout; when the root error's file is found
            under it, the source lines around the error are shown.

    Returns:
        The view. Only the header and the root error line are kept when even
        they exceed the budget, so the result can be longer than the budget then.
    """
    directory = Path(project_dir) if project_dir is not None else None
    text = ""
    for step in _STEPS:
        text = _render(analysis, directory, step)
        if estimate_tokens(text) <= budget_tokens:
            return text
    return text
