"""The curation state file `<out>.state.jsonl` and the `duplicate` filter that works on it.

The file is append-only JSON lines, written under a lock (bench.run.ResultWriter). Each line is a
candidate's outcome (an Outcome as a dict, plus `repo`); the last line of a (repo, key) is its
standing. A candidate that passed every other filter keeps its `signature` and `instance` for
good, whatever its standing, so the `duplicate` filter can always be decided again from the file:
of the instances of one repository with the same signature, the earliest in history is kept,
every other one is rejected as `duplicate` of it. Earliest is by ancestry first (a commit before
its descendants: rebased commits share one timestamp), then, for commits on separate branches,
by `created_at` and key.

A new outcome that duplicates a known instance is written rejected at once; one that comes before
a known instance (finished earlier, in parallel or in an earlier run) makes that one a duplicate,
and a line restating it as rejected is appended. `restate_duplicates` restates every standing the file
contradicts, so a run killed between those two lines, or a state file written before duplicates
were recorded (their duplicates stand `accepted`), is made right by the next run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from buildfixer.bench.run import ResultWriter
from buildfixer.curate.filters import Outcome
from buildfixer.curate.summary import Summary

Row = dict[str, Any]
RowKey = tuple[str, str]  # (repo, candidate key)
Ancestry = Callable[[str, str], bool]  # whether the first commit is an ancestor of the second


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


def earlier(a: Row, b: Row, is_ancestor: Ancestry | None = None) -> bool:
    """Whether instance `a` comes before `b` in history: an ancestor first, else by `history_order`.

    Rows without their commit (written before it was recorded) are ordered by date alone.
    """
    old, new = a.get("commit"), b.get("commit")
    if is_ancestor is not None and old and new and old != new:
        if is_ancestor(old, new):
            return True
        if is_ancestor(new, old):
            return False
    return history_order(a) < history_order(b)


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


def firsts(rows: Iterable[Row], is_ancestor: Ancestry | None = None) -> dict[tuple[str, str], Row]:
    """The kept instance of each (repo, signature): the earliest in history (see `earlier`)."""
    found: dict[tuple[str, str], Row] = {}
    for row in rows:
        if is_instance(row):
            group = (row["repo"], row["signature"])
            if group not in found or earlier(row, found[group], is_ancestor):
                found[group] = row
    return found


def restate_duplicates(
    rows: dict[RowKey, Row], among: Iterable[Row] | None = None, is_ancestor: Ancestry | None = None
) -> list[Row]:
    """The lines to append so the instances of `among`'s signatures stand as `duplicate` says.

    `among` defaults to every row. `rows` holds every standing (it is read, not changed); a new
    outcome is restated by passing it alone in `among`, after putting it into `rows`.
    `is_ancestor` answers for commits of the repository (see `earlier`).
    """
    candidates = list(rows.values() if among is None else among)
    groups = {(r["repo"], r["signature"]) for r in candidates if is_instance(r)}
    chosen = (r for r in rows.values() if is_instance(r) and (r["repo"], r["signature"]) in groups)
    first = firsts(chosen, is_ancestor)
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
    """The state file's standings, kept in step with the file and with this run's summary.

    `is_ancestor` answers on this run's repository (`name`): duplicates of its instances are
    ordered by ancestry; those of other repositories in the file, whose commits it does not
    know, by date.
    """

    def __init__(
        self, out: Path, name: str, keys: set[str], summary: Summary, is_ancestor: Ancestry | None = None
    ) -> None:
        self.path = state_path(out)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.writer = ResultWriter(self.path)
        self.name, self.keys, self.summary = name, keys, summary
        self._is_ancestor = is_ancestor
        self._ancestry: dict[tuple[str, str], bool] = {}  # answers so far: a state restates often
        self.rows: dict[RowKey, Row] = {}
        self.reload()

    def is_ancestor(self, old: str, new: str) -> bool:
        """Whether commit `old` of this repository is an ancestor of `new` (asked once per pair)."""
        if self._is_ancestor is None:
            return False
        if (old, new) not in self._ancestry:
            self._ancestry[(old, new)] = self._is_ancestor(old, new)
        return self._ancestry[(old, new)]

    def reload(self) -> list[Row]:
        """Read the file again (other runs may append to it), its duplicates restated; the lines appended."""
        self.rows = read_state(self.path)
        self.summary.accepted, self.summary.rejected = 0, {}
        for row in self.rows.values():
            self.summary.tally(row if self.ours(row) else None, 1)
        return [self.put(row) for row in restate_duplicates(self.rows, is_ancestor=self.is_ancestor)]

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
        changed = {r["key"]: r for r in restate_duplicates(self.rows, [row], self.is_ancestor)}
        self.rows.pop((row["repo"], row["key"]))
        written = [self.put(changed.pop(row["key"], row))]
        return written + [self.put(r) for r in changed.values()]
