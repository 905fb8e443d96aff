"""The benchmark runner on a tiny real repository: oracle/none self-checks, resume after kill -9."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from buildfixer.bench.run import RunConfig, read_results, run_benchmark
from buildfixer.harness.config import AttemptConfig

pytestmark = pytest.mark.slow


def run_config(agent: str, **run) -> RunConfig:
    """A run of a self-check agent (no model)."""
    return RunConfig(attempt=AttemptConfig(agent=agent, model="none"), **run)


@pytest.mark.parametrize(("agent", "expected"), [("oracle", True), ("none", False)])
def test_self_check_agents(dataset, tmp_path, agent, expected):
    repo, instances = dataset
    rows = run_benchmark(
        instances, repo, run_config(agent, samples=2), tmp_path / "run", workers=2
    )
    assert len(rows) == 4 and {(r["instance_id"], r["sample"]) for r in rows} == {
        (i["instance_id"], s) for i in instances for s in range(2)
    }
    assert all(r["resolved"] is expected for r in rows), [r["stop_reason"] for r in rows]
    assert all(r["status"] == ("success" if expected else "failure") for r in rows)
    assert all((tmp_path / "run" / r["trajectory"]).exists() for r in rows)
    if agent == "oracle":
        assert all("a + b" in r["patch"] for r in rows)
    # A rerun finds nothing to do and changes nothing.
    again = run_benchmark(instances, repo, run_config(agent, samples=2), tmp_path / "run")
    assert again == rows


def test_resume_after_kill_9_gives_the_same_lines(dataset, tmp_path):
    repo, instances = dataset
    out = tmp_path / "run"
    script = (
        "import json, sys; from pathlib import Path;"
        "from buildfixer.bench.run import RunConfig, run_benchmark;"
        "from buildfixer.harness.config import AttemptConfig;"
        f"run_benchmark(json.loads(Path({str(tmp_path / 'i.json')!r}).read_text()), Path({str(repo)!r}),"
        f" RunConfig(attempt=AttemptConfig(agent='oracle', model='none'), samples=3),"
        f" Path({str(out)!r}), workers=1)"
    )
    (tmp_path / "i.json").write_text(json.dumps(instances))
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and len(read_results(out / "results.jsonl")) < 2:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = read_results(out / "results.jsonl")
    assert 2 <= len(partial) < 6
    with (out / "results.jsonl").open("a") as f:
        f.write('{"instance_id": "torn')  # what a kill in the middle of a write would leave
    rows = run_benchmark(instances, repo, run_config("oracle", samples=3), out, workers=2)
    keys = [(r["instance_id"], r["sample"]) for r in rows]
    assert len(keys) == 6 and len(set(keys)) == 6
    assert all(r["resolved"] for r in rows)
    assert rows[: len(partial)] == partial  # finished attempts were kept, not redone
    text = (out / "results.jsonl").read_text()
    assert text.endswith("\n") and "torn" not in text


def test_other_configuration_in_the_same_directory_is_refused(dataset, tmp_path):
    from buildfixer.core.errors import BuildfixerError

    repo, instances = dataset
    run_benchmark(instances[:1], repo, run_config("none"), tmp_path / "run")
    with pytest.raises(BuildfixerError, match="another configuration"):
        run_benchmark(instances[:1], repo, run_config("oracle"), tmp_path / "run")


def test_attempt_timeout_and_crash_are_recorded(dataset, tmp_path):
    repo, instances = dataset
    config = run_config("oracle", attempt_timeout_s=0.01)
    rows = run_benchmark(instances[:1], repo, config, tmp_path / "slow")
    assert rows[0]["status"] == "timeout" and rows[0]["resolved"] is False and rows[0]["stop"] == "timeout"
    broken = [{**instances[0], "repo": str(tmp_path / "no-such-repo")}]
    rows = run_benchmark(broken, repo, run_config("oracle"), tmp_path / "crash")
    assert rows[0]["status"] == "error" and "crashed" in rows[0]["stop_reason"]
    assert rows[0]["stop"] == "crashed"
    # The harness failed, not the agent: a rerun retries that attempt (and keeps one line for it).
    rows = run_benchmark(instances[:1], repo, run_config("oracle"), tmp_path / "crash")
    assert len(rows) == 1 and rows[0]["resolved"] is True and rows[0]["stop"] == "resolved"
    # A timeout is the agent's: it stands.
    rows = run_benchmark(instances[:1], repo, run_config("oracle"), tmp_path / "slow")
    assert len(rows) == 1 and rows[0]["stop"] == "timeout"


def test_ray_backend_runs_attempts_as_ray_tasks(dataset, tmp_path):
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    repo, instances = dataset
    try:
        config = run_config("oracle", samples=2)
        rows = run_benchmark(instances, repo, config, tmp_path / "run", backend="ray")
    finally:
        ray.shutdown()
    assert len(rows) == 4 and all(r["resolved"] for r in rows)
