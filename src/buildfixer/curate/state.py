"""The curation state file `<out>.state.jsonl` and the `duplicate` filter that works on it.

The file is append-only JSON lines, written under a lock (bench.run.ResultWriter). Each line is a
candidate's outcome (an Outcome as a dict, plus `repo`); the last line of a (repo, key) is its
standing. A candidate that passed every other filter keeps its `signature` and `instance` for
good, whatever its standing, so the `duplicate` filter can always be decided again from the file:
of the instances of one repository with the same signature, the earliest in history
(`created_at`, then key) is kept, every other one is rejected as `duplicate` of it.

A new outcome that duplicates a known instance is written rejected at once; one that comes before
a known instance (finished earlier, in parallel or in an earlier run) makes that one a duplicate,
and a line restating it as rejected is appended. `restate_duplicates` restates every standing the file
contradicts, so a run killed between those two lines, or a state file written before duplicates
were recorded (their duplicates stand `accepted`), is made right by the next run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from buildfixer.bench.run import ResultWriter
from buildfixer.curate.filters import Outcome
from buildfixer.curate.summary import Summary

Row = dict[str, Any]
RowKey = tuple[str, str]  # (repo, candidate key)


def state_path(out: Path) -> Path:
    """Where a dataset's curation state lives: next to it."""
    return out.with_name(out.name + ".state.jsonl")


def read_lines(path: Path) -> list[Row]:
    """Every complete line of a state file, in order (a torn last line, from a kill, is skipped)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def read_state(path: Path) -> dict[RowKey, Row]:
    """The standing of every candidate in a state file: its last complete line."""
    return {(row["repo"], row["key"]): row for row in read_lines(path) if "repo" in row and "key" in row}


def history_order(row: Row) -> tuple[str, str]:
    """Where an instance stands in history: its commit date, then its key."""
    return (row["instance"]["created_at"], row["key"])


def is_instance(row: Row) -> bool:
    """Whether the candidate passed every filter but `duplicate` (it has an instance and a signature)."""
    return bool(row.get("instance")) and bool(row.get("signature"))


def standing(row: Row, first: Row | None) -> Row:
    """`row` restated against `first`, the kept instance of its signature (None: `row` is kept)."""
    if first is None or first["key"] == row["key"]:
        return {**row, "accepted": True, "filter": None, "reason": "", "duplicate_of": None}
    reason = (
        f"same error at the same place as {first['instance']['instance_id']}, "
        f"earlier in history ({first['instance']['created_at']})"
    )
    return {**row, "accepted": False, "filter": "duplicate", "reason": reason, "duplicate_of": first["key"]}


def _same(a: Row, b: Row) -> bool:
    fields = ("accepted", "filter", "duplicate_of")
    return all(a.get(f) == b.get(f) for f in fields)


def firsts(rows: Iterable[Row]) -> dict[tuple[str, str], Row]:
    """The kept instance of each (repo, signature): the earliest in history."""
    found: dict[tuple[str, str], Row] = {}
    for row in rows:
        if is_instance(row):
            group = (row["repo"], row["signature"])
            if group not in found or history_order(row) < history_order(found[group]):
                found[group] = row
    return found


def restate_duplicates(rows: dict[RowKey, Row], among: Iterable[Row] | None = None) -> list[Row]:
    """The lines to append so the instances of `among`'s signatures stand as `duplicate` says.

    `among` defaults to every row. `rows` holds every standing (it is read, not changed); a new
    outcome is restated by passing it alone in `among`, after putting it into `rows`.
    """
    candidates = list(rows.values() if among is None else among)
    groups = {(r["repo"], r["signature"]) for r in candidates if is_instance(r)}
    first = firsts(r for r in rows.values() if is_instance(r) and (r["repo"], r["signature"]) in groups)
    changed = []
    for row in rows.values():
        if is_instance(row) and (row["repo"], row["signature"]) in groups:
            should = standing(row, first[(row["repo"], row["signature"])])
            if not _same(row, should):
                changed.append(should)
    return changed


def outcome_of(row: Row) -> Outcome:
    """The Outcome a state-file row stands for."""
    return Outcome(**{k: v for k, v in row.items() if k in Outcome.__dataclass_fields__})


class Standings:
    """The state file's standings, kept in step with the file and with this run's summary."""

    def __init__(self, out: Path, name: str, keys: set[str], summary: Summary) -> None:
        self.path = state_path(out)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.writer = ResultWriter(self.path)
        self.name, self.keys, self.summary = name, keys, summary
        self.rows: dict[RowKey, Row] = {}
        self.reload()

    def reload(self) -> list[Row]:
        """Read the file again (other runs may append to it), its duplicates restated; the lines appended."""
        self.rows = read_state(self.path)
        self.summary.accepted, self.summary.rejected = 0, {}
        for row in self.rows.values():
            self.summary.tally(row if self.ours(row) else None, 1)
        return [self.put(row) for row in restate_duplicates(self.rows)]

    def ours(self, row: Row) -> bool:
        """Whether the row is one of this run's candidates (counted in its summary)."""
        return row["repo"] == self.name and row["key"] in self.keys

    def done(self) -> set[str]:
        """Keys of this repository with an outcome already."""
        return {key for repo, key in self.rows if repo == self.name}

    def put(self, row: Row) -> Row:
        """Append `row` as its candidate's standing (and count it when it is this run's)."""
        self.writer.append(row)
        if self.ours(row):
            self.summary.tally(self.rows.get((row["repo"], row["key"])), -1)
            self.summary.tally(row, 1)
        self.rows[(row["repo"], row["key"])] = row
        return row

    def add(self, outcome: Outcome) -> list[Row]:
        """Record a new outcome, its duplicates restated against the known instances; the lines appended."""
        row = {**asdict(outcome), "repo": self.name}
        self.rows[(row["repo"], row["key"])] = row  # seen by restate_duplicates; counted by put
        changed = {r["key"]: r for r in restate_duplicates(self.rows, [row])}
        self.rows.pop((row["repo"], row["key"]))
        written = [self.put(changed.pop(row["key"], row))]
        return written + [self.put(r) for r in changed.values()]
