"""A build log as a dataset stores it: no machine-specific paths or timings, long ones cut in the middle."""

from __future__ import annotations

import re
from pathlib import Path

from buildfixer.logs.text import clean_lines

_LOG_HEAD, _LOG_TAIL = 4_000, 16_000  # characters of a long log kept from its start and its end
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_TIMINGS = (
    (re.compile(r"Total time: .*"), "Total time: <elapsed>"),
    (re.compile(r"Finished at: .*"), "Finished at: <time>"),
    (re.compile(r"BUILD (FAILED|SUCCESSFUL) in \S+"), r"BUILD \1 in <elapsed>"),
    (re.compile(r"\bin \d+(\.\d+)?s\b"), "in <elapsed>"),
    (re.compile(r"duration_ms:? [\d.]+"), "duration_ms <elapsed>"),
    (re.compile(r"Time elapsed: [\d.]+ s"), "Time elapsed: <elapsed> s"),
    (re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[.\d]*Z\b"), "<time>"),
)


def normalize_log(text: str, root: Path, cache_dir: Path) -> str:
    """A build log without machine-specific paths or timings, long ones cut in the middle."""
    text = _ANSI.sub("", text)
    text = (
        text.replace(str(root) + "/", "").replace(str(root), ".").replace(str(cache_dir), "$BUILDFIXER_CACHE")
    )
    for pattern, replacement in _TIMINGS:
        text = pattern.sub(replacement, text)
    if len(text) > _LOG_HEAD + _LOG_TAIL:
        head = text[:_LOG_HEAD].rsplit("\n", 1)[0]
        tail = text[-_LOG_TAIL:].split("\n", 1)[-1]
        omitted = text.count("\n") - head.count("\n") - tail.count("\n")
        text = f"{head}\n[... {omitted} lines omitted ...]\n{tail}"
    return text


def log_excerpt(text: str, root: Path, cache_dir: Path) -> str:
    """`normalize_log` of the cleaned log (no ANSI codes, progress redraws or tool noise)."""
    return normalize_log("\n".join(clean_lines(text)), root, cache_dir)
