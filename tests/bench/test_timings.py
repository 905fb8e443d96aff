"""Validation times: recorded per instance, read back for an estimate, packed onto workers."""

from __future__ import annotations

import json
from pathlib import Path

from buildfixer.bench import timings
from buildfixer.bench.data import BUNDLED_DATASET
from buildfixer.bench.dataset import Instance, load_dataset
from buildfixer.bench.executor import build_workers, default_workers

BUNDLED = {i.instance_id: i for i in load_dataset(BUNDLED_DATASET)}


def named(name: str, system: str = "maven") -> Instance:
    return BUNDLED["wordstats-top-min-count"].model_copy(update={"instance_id": name, "build_system": system})


def test_an_instance_never_timed_gets_its_build_systems_typical_time(tmp_path: Path) -> None:
    assert timings.load(tmp_path) == {}
    python, npm = named("a", "python"), named("b", "npm")
    assert timings.per_repeat(python, {}) == timings.TYPICAL_REPEAT_S["python"]
    assert timings.estimate_s([python, npm], 2, 1, {}) == 2 * (
        timings.TYPICAL_REPEAT_S["python"] + timings.TYPICAL_REPEAT_S["npm"]
    )


def test_recorded_times_win_and_survive_a_reload(tmp_path: Path) -> None:
    inst = named("x")
    timings.record(tmp_path, [(inst, 3.25)])
    timings.record(tmp_path, [(named("y"), 1.0)])
    times = timings.load(tmp_path)
    assert timings.per_repeat(inst, times) == 3.25 and len(times) == 2
    moved = inst.model_copy(update={"base_commit": "0" * 40})  # another state of the same id
    assert timings.per_repeat(moved, times) == timings.TYPICAL_REPEAT_S["maven"]
    assert [p.name for p in tmp_path.iterdir()] == [timings.TIMES_FILE]  # no temporary file left


def test_a_damaged_file_is_no_error(tmp_path: Path) -> None:
    (tmp_path / timings.TIMES_FILE).write_text('{"a@b": "fast", "c@d": -1, "e@f": 2')
    assert timings.load(tmp_path) == {}
    (tmp_path / timings.TIMES_FILE).write_text(json.dumps({"a@b": "fast", "c@d": -1, "e@f": 2}))
    assert timings.load(tmp_path) == {"e@f": 2.0}


def test_workers_pack_the_longest_first() -> None:
    times = {f"{n}@{BUNDLED['wordstats-top-min-count'].base_commit}": s for n, s in
             (("a", 30.0), ("b", 20.0), ("c", 10.0), ("d", 10.0))}  # fmt: skip
    jobs = [named(n) for n in "abcd"]
    assert timings.estimate_s(jobs, 1, 1, times) == 70.0
    assert timings.estimate_s(jobs, 1, 2, times) == 40.0  # a then d | b then c
    assert timings.estimate_s(jobs, 2, 4, times) == 60.0  # the longest alone, twice


def test_estimates_read_as_rounded_words() -> None:
    assert timings.in_words(3) == "about 5 s"
    assert timings.in_words(42) == "about 40 s"
    assert timings.in_words(682) == "about 11 min"
    assert timings.in_words(4830) == "about 1 h 20 min"


def test_build_only_work_uses_every_core_the_memory_allows() -> None:
    assert build_workers() >= default_workers() >= 1
