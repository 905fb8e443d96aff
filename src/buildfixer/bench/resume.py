"""Resuming a run: which lines of `results.jsonl` stand, and setting aside those that cannot.

A line stands when it is a JSON object with the fields a resumed run and the reports rely on,
of the right types. Anything else (a torn last line from kill -9, a line edited by hand, one
without `resolved`) is moved to `results.rejected.jsonl` before the run resumes, its attempt
runs again, and the run says so in one line: nothing crashes on it, and nothing is lost.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from buildfixer.bench.rundir import write_atomic
from buildfixer.core.stops import EPISODE_ONLY, StopKind

REJECTED = "results.rejected.jsonl"
_KINDS = {kind.value for kind in StopKind if kind not in EPISODE_ONLY}  # how an attempt ends


def row_problem(row: Any) -> str | None:
    """What makes a parsed results line unusable, in words; None when it stands."""
    if not isinstance(row, dict):
        return "not a JSON object"
    if not isinstance(row.get("instance_id"), str) or not row["instance_id"]:
        return "no instance_id"
    sample = row.get("sample")
    if isinstance(sample, bool) or not isinstance(sample, int) or sample < 0:
        return "'sample' must be a whole number"
    if not isinstance(row.get("resolved"), bool):
        return "'resolved' must be true or false"
    if "stop" in row and row["stop"] not in _KINDS:
        return f"unknown stop {row['stop']!r}"
    cost = row.get("cost_usd", 0.0)
    if isinstance(cost, bool) or not isinstance(cost, int | float) or not math.isfinite(cost) or cost < 0:
        return "'cost_usd' must be a number"
    return None


def parse_results(text: str) -> tuple[list[dict[str, Any]], list[tuple[int, str, str]]]:
    """The standing rows of a results file's text, and every other line as (number, line, problem)."""
    rows: list[dict[str, Any]] = []
    rejected: list[tuple[int, str, str]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            rejected.append((number, line, "not complete JSON"))
            continue
        if problem := row_problem(row):
            rejected.append((number, line, problem))
        else:
            rows.append(row)
    return rows, rejected


def set_aside_rejected(path: Path) -> str | None:
    """Move the lines of `path` that do not stand to `results.rejected.jsonl` beside it.

    The caller holds the run's lock (bench.runlock), so no one appends meanwhile. The results file
    is rewritten in one step with the standing lines, in their order.

    Returns:
        One line saying what was set aside (None when every line stands).
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    rejected = parse_results(text)[1]
    if not rejected:
        return None
    with (path.parent / REJECTED).open("a", encoding="utf-8") as aside:
        aside.write("".join(line + "\n" for _, line, _ in rejected))
    numbers = {number for number, _, _ in rejected}
    lines = enumerate(text.split("\n"), start=1)
    standing = [line for number, line in lines if line.strip() and number not in numbers]
    write_atomic(path, "".join(line + "\n" for line in standing))
    shown = "; ".join(f"line {number}: {problem}" for number, _, problem in rejected[:3])
    more = f"; and {len(rejected) - 3} more" if len(rejected) > 3 else ""
    return (
        f"{path}: set aside {len(rejected)} unusable line(s) ({shown}{more}) in {REJECTED}; "
        "their attempts run again"
    )
