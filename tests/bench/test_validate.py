"""Validation of benchmark instances: real builds of bundled instances, invalid ones, the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from buildfixer.bench import timings
from buildfixer.bench.data import BUNDLED_DATASET, DATA_DIR
from buildfixer.bench.dataset import Instance, load_dataset, save_dataset
from buildfixer.bench.validate import (
    BuildObservation,
    ValidationResult,
    _judge,
    validate_dataset,
    validate_instance,
)
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.paths import cache_root

CLI = [sys.executable, "-m", "buildfixer"]
BUNDLED = {i.instance_id: i for i in load_dataset(BUNDLED_DATASET)}
HARMLESS = (
    "diff --git a/NOTES.md b/NOTES.md\nnew file mode 100644\n--- /dev/null\n+++ b/NOTES.md\n"
    "@@ -0,0 +1 @@\n+notes\n"
)


def options() -> BuildOptions:
    return BuildOptions(timeout_s=600)


def leftover_locks() -> list[Path]:
    """Workspace slots this process still holds (stale locks of killed runs, other runs' locks aside)."""
    held = []
    for lock in (cache_root() / "workspaces").glob("*/slot-*.lock"):
        try:
            holder = int(lock.read_text().strip() or "0")
        except (OSError, ValueError):
            continue  # released (or being written) meanwhile
        if holder == os.getpid():
            held.append(lock)
    return held


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=900)


def subset(tmp_path: Path, *instances: Instance) -> Path:
    """A dataset file of its own; absolute repo paths share the bundled repos' mirrors and venvs."""
    path = tmp_path / "subset.jsonl"
    save_dataset([i.model_copy(update={"repo": str(DATA_DIR / i.repo)}) for i in instances], path)
    return path


# --- verdicts from observations (no builds) ------------------------------------------------------


def judged(instance: Instance, *builds: BuildObservation, repeats: int = 2) -> ValidationResult:
    result = ValidationResult(instance.instance_id, valid=False, builds=list(builds))
    _judge(instance, result, repeats)
    return result


def obs(stage: str, repeat: int, status: str, category: str | None = None) -> BuildObservation:
    return BuildObservation(stage, repeat, status, category, 1.0, "boom" if category else None)


def test_judge_accepts_the_expected_verdicts() -> None:
    inst = BUNDLED["semverkit-elif-colon"]
    good = [obs("base", r, "failure", "syntax") for r in (0, 1)] + [obs("gold", r, "success") for r in (0, 1)]
    result = judged(inst, *good)
    assert result.valid and result.reasons == []
    assert result.statuses("base") == ["failure/syntax", "failure/syntax"]


def test_judge_flags_flaky_wrong_category_and_unfixed_builds() -> None:
    inst = BUNDLED["semverkit-elif-colon"]
    flaky = judged(
        inst,
        obs("base", 0, "failure", "syntax"),
        obs("gold", 0, "success"),
        obs("base", 1, "failure", "syntax"),
        obs("gold", 1, "failure", "test_failure"),
    )
    assert not flaky.valid
    assert flaky.reasons == ["flaky: gold build gave success then failure/test_failure in 2 repeats"]
    wrong = judged(inst, obs("base", 0, "failure", "configuration"), obs("gold", 0, "timeout"), repeats=1)
    assert wrong.reasons == [
        "base build fails as configuration, recorded syntax: boom",
        "build with the gold patch ends as timeout",
    ]
    builds = judged(inst, obs("base", 0, "success"), obs("gold", 0, "success"), repeats=1)
    assert builds.reasons == ["base build succeeds (it must fail)"]
    stopped = judged(inst, obs("base", 0, "failure", "syntax"), obs("gold", 0, "success"))
    assert stopped.reasons == ["validation stopped before every repeat ran"]
    timeout = judged(inst, obs("base", 0, "timeout"), obs("gold", 0, "success"), repeats=1)
    assert timeout.reasons == ["base build ended with status timeout"]
    setup = ValidationResult(inst.instance_id, valid=False, reasons=["patch does not apply"])
    setup.builds = [obs("base", 0, "failure", "syntax")]
    _judge(inst, setup, 2)
    assert setup.reasons == ["patch does not apply"] and not setup.valid  # no "stopped" on top


def test_progress_events_name_each_finished_instance(tmp_path: Path) -> None:
    missing = [
        BUNDLED[name].model_copy(update={"repo": "repos/missing.bundle"})
        for name in ("semverkit-elif-colon", "semverkit-rename-policy")
    ]
    events: list[tuple[str, dict]] = []
    results = validate_dataset(missing, tmp_path, options(), progress=lambda e, d: events.append((e, d)))
    assert [(e, d["done"], d["total"]) for e, d in events] == [("validated", 1, 2), ("validated", 2, 2)]
    assert sorted(d["result"].instance_id for _, d in events) == sorted(r.instance_id for r in results)
    assert validate_dataset(missing[:1], tmp_path, options(), progress=None)[0].valid is False


# --- real builds ---------------------------------------------------------------------------------


@pytest.mark.slow
# Two build systems with repeats; every instance once in test_the_whole_bundled_dataset_validates.
@pytest.mark.parametrize("instance_id", ["semverkit-rename-policy", "cart-receipt-flag"])
def test_bundled_instances_validate(instance_id: str, tmp_path: Path) -> None:
    inst = BUNDLED[instance_id]
    result = validate_instance(inst, DATA_DIR, options(), repeats=2, log_dir=tmp_path / "logs")
    assert result.valid, result.reasons
    assert result.gold_matches_fix is True and result.warnings == []
    assert [(b.stage, b.repeat) for b in result.builds] == [
        ("base", 0),
        ("gold", 0),
        ("base", 1),
        ("gold", 1),
    ]
    assert result.statuses("base") == [f"failure/{inst.category}"] * 2
    assert result.statuses("gold") == ["success"] * 2
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert logs == [f"{instance_id}-{stage}-{r}.log" for stage in ("base", "gold") for r in (0, 1)]
    assert not leftover_locks()
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data and data["valid"] is True


@pytest.mark.slow
def test_a_gold_patch_that_does_not_fix_is_invalid() -> None:
    inst = BUNDLED["semverkit-lexical-latest"].model_copy(update={"gold_patch": HARMLESS})
    result = validate_instance(inst, DATA_DIR, options(), repeats=1)
    assert not result.valid
    assert result.statuses("gold") == ["failure/test_failure"]
    assert result.reasons[0].startswith("build with the gold patch ends as failure/test_failure: ")
    assert result.gold_matches_fix is False
    assert result.warnings == [
        "gold_patch differs from the diff base_commit -> fix_commit in NOTES.md, src/semverkit/bump.py"
    ]


@pytest.mark.slow
def test_an_instance_whose_base_builds_is_invalid() -> None:
    fixed = BUNDLED["semverkit-lexical-latest"]
    inst = fixed.model_copy(update={"base_commit": fixed.fix_commit, "gold_patch": HARMLESS})
    result = validate_instance(inst, DATA_DIR, options(), repeats=1)
    assert not result.valid
    assert result.reasons == ["base build succeeds (it must fail)"]
    assert result.statuses("base") == ["success"] and result.statuses("gold") == ["success"]


def test_setup_problems_make_an_instance_invalid_without_raising(tmp_path: Path) -> None:
    inst = BUNDLED["semverkit-elif-colon"].model_copy(update={"repo": "repos/missing.bundle"})
    result = validate_instance(inst, tmp_path, options())
    assert not result.valid and result.builds == []
    assert result.reasons == [f"no such repository: {tmp_path / 'repos' / 'missing.bundle'}"]


@pytest.mark.slow
def test_a_gold_patch_that_does_not_apply_is_invalid() -> None:
    other = BUNDLED["semverkit-rename-policy"].gold_patch
    inst = BUNDLED["semverkit-lexical-latest"].model_copy(update={"gold_patch": other})
    result = validate_instance(inst, DATA_DIR, options(), repeats=2)
    assert not result.valid
    assert result.statuses("base") == ["failure/test_failure"] and result.statuses("gold") == []
    assert result.reasons[0].startswith("patch does not apply")


# --- the CLI ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_exit_0_when_all_valid_and_1_with_an_invalid_one(tmp_path: Path) -> None:
    good = subset(tmp_path / "good", BUNDLED["semverkit-rename-policy"], BUNDLED["semverkit-lexical-latest"])
    proc = run_cli("bench", "validate", str(good), "--repeats", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "✓ semverkit-rename-policy" in proc.stdout and "2/2 instances valid" in proc.stdout
    # how long it should take comes first; each line but the last says what is left
    first, *lines = proc.stdout.splitlines()
    upfront = r"validating 2 instance\(s\), .* 1 repeat\(s\), \d+ worker\(s\): about \d+ (s|min)"
    assert re.fullmatch(upfront, first), first
    assert re.search(r"^\[1/2\] ✓ .* · about \d+ (s|min) left$", lines[0])
    times = timings.load(cache_root())
    assert all(f"{name}@{BUNDLED[name].base_commit}" in times for name in ("semverkit-rename-policy",
               "semverkit-lexical-latest"))  # fmt: skip

    fixed = BUNDLED["semverkit-lexical-latest"]
    broken = fixed.model_copy(update={"instance_id": "already-fixed", "base_commit": fixed.fix_commit})
    bad = subset(tmp_path / "bad", BUNDLED["semverkit-rename-policy"], broken)
    proc = run_cli("bench", "validate", str(bad), "--repeats", "1", "--json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["valid"], report["total"]) == (1, 2)
    by_id = {r["instance_id"]: r for r in report["instances"]}
    assert by_id["already-fixed"]["valid"] is False
    assert "base build succeeds (it must fail)" in by_id["already-fixed"]["reasons"]
    assert {"instance_id", "valid", "reasons", "warnings", "builds", "duration_s"} <= set(
        by_id["already-fixed"]
    )

    proc = run_cli("bench", "validate", str(bad), "--repeats", "1", "--only", "already-fixed")
    assert proc.returncode == 1 and "✗ already-fixed" in proc.stdout and "0/1 instances valid" in proc.stdout


def assert_usage_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.mark.slow
def test_cli_exit_2_for_bad_input(tmp_path: Path) -> None:
    assert_usage_error(run_cli("bench", "validate", str(tmp_path / "nope.jsonl")), "no such dataset")
    bad = tmp_path / "bad.jsonl"
    first = json.dumps(BUNDLED["semverkit-elif-colon"].to_dict())
    bad.write_text(first + "\n{not json\n")
    assert_usage_error(run_cli("bench", "validate", str(bad)), f"{bad}:2: invalid JSON")
    good = subset(tmp_path / "one", BUNDLED["semverkit-elif-colon"])
    assert_usage_error(run_cli("bench", "validate", str(good), "--only", "nope"), "--only", "nope")
    assert_usage_error(run_cli("bench", "validate", str(good), "--repeats", "0"), "--repeats")


# --- the whole bundled dataset (the CI check) -------------------------------------------------------


@pytest.mark.slow
def test_the_whole_bundled_dataset_validates() -> None:
    instances = list(BUNDLED.values())
    started = time.monotonic()
    events: list[tuple[str, dict]] = []
    results = validate_dataset(
        instances,
        DATA_DIR,
        options(),
        repeats=1,
        workers=2,
        progress=lambda event, data: events.append((event, data)),
    )
    done = [data["result"].instance_id for event, data in events if event == "validated"]
    assert [data["done"] for _, data in events] == list(range(1, len(instances) + 1))
    assert {data["total"] for _, data in events} == {len(instances)}
    elapsed = time.monotonic() - started
    print(f"\nvalidated {len(results)} bundled instances (repeats=1, workers=2) in {elapsed:.0f} s")
    invalid = {r.instance_id: r.reasons for r in results if not r.valid}
    assert not invalid
    assert [r.instance_id for r in results] == [i.instance_id for i in instances]
    assert sorted(done) == sorted(BUNDLED)
    assert all(r.gold_matches_fix for r in results)
    assert not leftover_locks()
