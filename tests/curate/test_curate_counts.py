"""The progress line, the summary (text and JSON), the state file and the dataset agree, with a
planted duplicate; state counts match the build cache; a second pass and resumed runs count the same."""

import json
import os
import subprocess
import sys

import pytest
from python_repos import duplicate_repo

from buildfixer.bench.dataset import load_dataset
from buildfixer.curate.config import CurateConfig
from buildfixer.curate.run import curate
from buildfixer.curate.state import read_lines, read_state, state_path

pytestmark = pytest.mark.slow

CLI = [sys.executable, "-m", "buildfixer", "curate", "human"]


def cli(repo, out, cache, *extra):
    args = [*CLI, str(repo), "--out", str(out), "--build-cache", str(cache), "--no-as-of", *extra]
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr
    # stderr is a pipe: whole lines, none cut at 80 columns nor redrawn with carriage returns
    assert "…" not in proc.stderr and "\r" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture(scope="module")
def first(tmp_path_factory):
    """One curation of a branch with an instance and its duplicate, through the CLI, with fresh builds."""
    tmp = tmp_path_factory.mktemp("dup")
    planted = duplicate_repo(tmp / "calc")
    out, cache = tmp / "data" / "d.jsonl", tmp / "builds"
    proc = cli(planted["repo"], out, cache, "--workers", "2", "--json")
    (winner,) = planted["instances"]
    (duplicate,) = planted["rejected"]
    return {
        "tmp": tmp, "repo": planted["repo"], "out": out, "cache": cache, "proc": proc,
        "summary": json.loads(proc.stdout), "winner": f"human-{winner[:12]}",
        "duplicate": f"human-{duplicate[:12]}",
    }  # fmt: skip


def standing(out):
    """Kept instance ids and rejections by key, from the state file's last line per candidate."""
    rows = read_state(state_path(out)).values()
    kept = sorted(r["instance"]["instance_id"] for r in rows if r["accepted"])
    return kept, {r["key"]: (r["filter"], r.get("duplicate_of")) for r in rows if not r["accepted"]}


def test_progress_summary_state_and_dataset_agree(first):
    summary, out = first["summary"], first["out"]
    assert (summary["candidates"], summary["evaluated"], summary["resumed"]) == (2, 2, 0)
    assert summary["accepted"] == 1 and summary["rejected"] == {"duplicate": 1}
    assert summary["instances_in_file"] == 1

    # The state file says what the summary says: the duplicate is rejected there too, naming its original.
    kept, rejected = standing(out)
    assert kept == [i.instance_id for i in load_dataset(out)] == [f"calc-{first['winner']}"]
    assert rejected == {first["duplicate"]: ("duplicate", first["winner"])}
    row = read_state(state_path(out))[("calc", first["duplicate"])]
    assert f"calc-{first['winner']}" in row["reason"] and row["instance"]  # still decidable again

    # The progress line ends on the same counts; the duplicate is shown rejected.
    stderr = first["proc"].stderr
    assert "kept 1, rejected 1 (1 duplicate)" in stderr, stderr
    assert f"✗ duplicate: {first['duplicate']}" in stderr, stderr
    # A line per branch commit built, a failed one with how; the summary names the commonest way.
    built = [line for line in stderr.splitlines() if line.startswith(("built ", "failed "))]
    assert len(built) == 3 and sum(line.startswith("failed ") for line in built) == 2, stderr
    ((reason, count),) = summary["failures"].items()
    assert count == 2 and reason.split(":")[0] in ("syntax", "test_failure", "library_unavailable"), reason
    assert any(reason[:60] in line for line in built if line.startswith("failed ")), (reason, built)


def test_state_counts_are_the_builds_that_happened(first):
    """Every state built has one file in the (fresh) build cache; its records are the builds run."""
    summary = first["summary"]
    files = [json.loads(p.read_text())["builds"] for p in first["cache"].glob("*/*.json")]
    failed = [b for b in files if any(r["status"] != "success" for r in b)]
    assert summary["states_built"] == len(files) == 3  # the branch's three commits (not dated)
    assert summary["states_failed"] == len(failed) == 2  # the failing commit and its duplicate
    assert summary["states_succeeded"] == 1 and summary["states_cached"] == 0
    assert summary["builds_run"] == sum(len(b) for b in files) == 6  # built once, then a second time
    assert summary["hit_rate"] == 0.0


def test_second_pass_is_all_cached_and_printed_the_same_way(first):
    again = first["tmp"] / "again" / "d.jsonl"
    proc = cli(first["repo"], again, first["cache"], "--workers", "2")
    lines = proc.stdout.splitlines()
    assert lines[0] == "kept 1 of 2 candidate(s) (2 evaluated now, 0 resumed); rejected: duplicate 1", lines
    states = "states: 0 built (0 succeeded, 0 failed), 3 from cache (hit rate 100%); 0 build(s) run"
    assert lines[1].startswith(states), lines
    assert lines[2].startswith("2 of the 2 branch commit(s) that failed to build failed so: "), lines
    assert "kept 1, rejected 1 (1 duplicate) · states 0 built (0 failed), 3 from cache" in proc.stderr
    assert again.read_text() == first["out"].read_text()


def rerun(first, out):
    return curate(CurateConfig(mode="human", source=first["repo"], out=out, build_cache=first["cache"],
                               as_of=False, workers=2))  # fmt: skip


def copy_of(first, name, rows):
    out = first["tmp"] / name / "d.jsonl"
    out.parent.mkdir()
    state_path(out).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


def test_rerun_resumes_with_the_same_counts(first):
    out = first["tmp"] / "resume" / "d.jsonl"
    out.parent.mkdir()
    state_path(out).write_bytes(state_path(first["out"]).read_bytes())
    summary = rerun(first, out)
    assert (summary.evaluated, summary.resumed) == (0, 2)
    assert (summary.accepted, summary.rejected) == (1, {"duplicate": 1})
    assert summary.states_built == 0 and summary.states_cached == 3  # the branch commits, looked up again
    assert out.read_text() == first["out"].read_text()
    assert state_path(out).read_text() == state_path(first["out"]).read_text()  # nothing to restate


def test_a_state_left_unsettled_is_settled_by_the_next_run(first):
    """A kill between an outcome and the line restating a later one as duplicate, or a state file
    from before duplicates were recorded: both candidates stand accepted; the rerun corrects that."""
    rows = []
    for row in read_state(state_path(first["out"])).values():
        old = {k: v for k, v in row.items() if k != "duplicate_of"}
        old.update(accepted=True, filter=None, reason="", stats={"hits": 0, "misses": 2, "builds": 3})
        rows.append(old)
    out = copy_of(first, "unsettled", rows)
    summary = rerun(first, out)
    assert (summary.evaluated, summary.accepted, summary.rejected) == (0, 1, {"duplicate": 1})
    assert out.read_text() == first["out"].read_text()
    assert standing(out) == standing(first["out"])
    assert read_lines(state_path(out))[-1]["filter"] == "duplicate"  # appended, nothing rewritten


def test_a_killed_run_resumes_to_the_same_dataset_and_counts(first):
    """Only the first outcome made it to the state file: the rerun evaluates the other one."""
    out = copy_of(first, "killed", read_lines(state_path(first["out"]))[:1])
    summary = rerun(first, out)
    assert (summary.evaluated, summary.accepted, summary.rejected) == (1, 1, {"duplicate": 1})
    assert summary.states_built == 0  # every build is in the cache
    assert out.read_text() == first["out"].read_text()
    assert standing(out) == standing(first["out"])
