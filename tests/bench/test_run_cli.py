"""`buildfixer bench run` as a user runs it: per-instance scripts, --only, kill -9 and rerun."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from buildfixer.bench.dataset import load_dataset
from buildfixer.bench.run import read_results
from buildfixer.llm.factory import check_instance_models, model_for_instance
from buildfixer.llm.scripted import load_script
from buildfixer.memory.store import FixMemory
from support.model import call, replace, scripted

CLI = [sys.executable, "-m", "buildfixer", "bench", "run"]
BUNDLED = Path(__file__).resolve().parents[2] / "src" / "buildfixer" / "bench" / "data"
INIT = "src/tinycalc/__init__.py"
FIX_COLON = [
    call("read_file", path=INIT),
    {"content": "The def line lacks its colon.", **replace(INIT, "def add(a, b)\n", "def add(a, b):\n")},
    call("run_build"),
    {"content": "Added the colon."},
]
GIVE_UP = [{"content": "I cannot fix this."}]


def _bench_run(
    dataset: Path | str, out: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [*CLI, str(dataset), "--out", str(out), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)


@pytest.fixture
def dataset_file(dataset, tmp_path):
    _, instances = dataset
    path = tmp_path / "instances.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in instances))
    return path


@pytest.fixture
def script_dir(tmp_path):
    folder = tmp_path / "scripts"
    scripted(folder / "tinycalc-0.json", FIX_COLON)
    return folder


def test_a_script_folder_gives_each_instance_its_own_script(script_dir):
    assert (
        model_for_instance(f"scripted:{script_dir}", "tinycalc-0") == f"scripted:{script_dir}/tinycalc-0.json"
    )
    cascade = model_for_instance(f"scripted:{script_dir},openai/gpt-4.1", "tinycalc-0")
    assert cascade == f"scripted:{script_dir}/tinycalc-0.json,openai/gpt-4.1"
    assert model_for_instance("openai/gpt-4.1", "tinycalc-0") == "openai/gpt-4.1"
    from buildfixer.core.errors import BuildfixerError

    with pytest.raises(BuildfixerError, match="no script for instance 'tinycalc-1'"):
        model_for_instance(f"scripted:{script_dir}", "tinycalc-1")
    scripted(script_dir / "default.json", GIVE_UP)
    assert model_for_instance(f"scripted:{script_dir}", "tinycalc-1").endswith("/default.json")
    (script_dir / "tinycalc-0.json").write_text('[{"tool_calls": "read_file"}]')
    with pytest.raises(BuildfixerError, match="tool_calls"):
        check_instance_models(f"scripted:{script_dir}", ["tinycalc-0"])


def test_every_bundled_instance_has_a_valid_script():
    ids = [i.instance_id for i in load_dataset(BUNDLED / "instances.jsonl")]
    assert len(ids) >= 12
    check_instance_models(f"scripted:{BUNDLED / 'scripts'}", ids)
    scripts = {p.stem for p in (BUNDLED / "scripts").glob("*.json")}
    assert scripts == set(ids)  # no stale script of a removed instance
    assert all(load_script(BUNDLED / "scripts" / f"{i}.json") for i in ids)


def test_missing_scripts_are_refused_before_anything_runs(dataset_file, script_dir, tmp_path):
    proc = _bench_run(dataset_file, tmp_path / "out", "--agent", "tool", "--model", f"scripted:{script_dir}")
    assert proc.returncode == 2, proc.stderr
    assert "no script for 1 instance(s): tinycalc-1" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_only_picks_instances_and_rejects_a_pattern_that_matches_none(dataset_file, tmp_path):
    proc = _bench_run(dataset_file, tmp_path / "out", "--agent", "none", "--only", "tinycalc-9*")
    assert proc.returncode == 2 and "no instance matches tinycalc-9*" in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_scripted_run_resolves_what_its_scripts_fix(dataset_file, script_dir, tmp_path):
    scripted(script_dir / "default.json", GIVE_UP)
    out = tmp_path / "out"
    model = f"scripted:{script_dir}"
    proc = _bench_run(dataset_file, out, "--agent", "tool", "--model", model, "--workers", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["resolved"] == 1
    rows = {r["instance_id"]: r for r in read_results(out / "results.jsonl")}
    assert rows["tinycalc-0"]["resolved"] and rows["tinycalc-0"]["status"] == "success"
    assert rows["tinycalc-0"]["tool_counts"] == {"read_file": 1, "replace": 1, "run_build": 1}
    assert rows["tinycalc-0"]["llm_calls"] == 4 and "def add(a, b):" in rows["tinycalc-0"]["patch"]
    assert not rows["tinycalc-1"]["resolved"] and rows["tinycalc-1"]["patch"] == ""
    trajectory = json.loads((out / rows["tinycalc-0"]["trajectory"]).read_text())
    assert trajectory["meta"]["instance_id"] == "tinycalc-0"


@pytest.mark.slow
def test_bundled_scripts_on_the_bundled_dataset(tmp_path):
    out = tmp_path / "out"
    only = "semverkit-elif-colon,semverkit-lexical-latest"
    # By name, as a user of the installed package gives them (no path into the source tree).
    proc = _bench_run("bundled", out, "--agent", "tool", "--model", "scripted:bundled", "--only", only)
    assert proc.returncode == 0, proc.stderr
    assert "semverkit-lexical-latest #0 (failure, model_finished)" in proc.stderr
    rows = {r["instance_id"]: r["resolved"] for r in read_results(out / "results.jsonl")}
    # The first script repairs the syntax error; the second edits the wrong spot (a failed repair).
    assert rows == {"semverkit-elif-colon": True, "semverkit-lexical-latest": False}


@pytest.mark.slow
def test_kill_9_mid_run_then_rerun_gives_the_lines_of_an_uninterrupted_run(dataset_file, tmp_path):
    args = ("--agent", "oracle", "--samples", "3", "--workers", "1")
    whole = _bench_run(dataset_file, tmp_path / "whole", *args)
    assert whole.returncode == 0, whole.stderr
    expected = (tmp_path / "whole" / "results.jsonl").read_text().splitlines()

    out = tmp_path / "killed"
    command = [*CLI, str(dataset_file), "--out", str(out), *args]
    proc = subprocess.Popen(
        command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 300
    while time.time() < deadline and len(read_results(out / "results.jsonl")) < 2:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(read_results(out / "results.jsonl"))
    assert 2 <= partial < len(expected)

    again = _bench_run(dataset_file, out, *args)
    assert again.returncode == 0, again.stderr
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == len(expected) == 6
    keys = [(json.loads(line)["instance_id"], json.loads(line)["sample"]) for line in lines]
    assert len(set(keys)) == len(keys)
    assert set(keys) == {(json.loads(line)["instance_id"], json.loads(line)["sample"]) for line in expected}
    assert all(json.loads(line)["resolved"] for line in lines)


@pytest.mark.slow
def test_ctrl_c_stops_at_once_leaves_no_worker_and_the_rerun_finishes(dataset_file, tmp_path):
    out = tmp_path / "out"
    args = ("--agent", "oracle", "--samples", "3", "--workers", "1")
    command = [*CLI, str(dataset_file), "--out", str(out), *args]
    proc = subprocess.Popen(
        command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.time() + 300
    while time.time() < deadline and not _workers_of(out):
        time.sleep(0.1)
    assert _workers_of(out), "no attempt started"
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130
    said = " ".join(stderr.decode().split())
    assert f"attempts are recorded in {out}; rerun the same command to resume" in said
    time.sleep(0.5)
    assert not _workers_of(out)
    again = _bench_run(dataset_file, out, *args)
    assert again.returncode == 0, again.stderr
    keys = [(r["instance_id"], r["sample"]) for r in read_results(out / "results.jsonl")]
    assert len(keys) == 6 == len(set(keys))


def _workers_of(out: Path) -> list[int]:
    """Pids of attempt worker processes writing trajectories into `out`."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"buildfixer.bench.worker" in argv and proc.name.isdigit():
            task = Path(argv[argv.index(b"buildfixer.bench.worker") + 1].decode())
            try:
                if str(out) in task.read_text():
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


@pytest.mark.slow
def test_the_runs_sandbox_reaches_every_attempt(tmp_path):
    from buildfixer.bench.run import RunConfig, run_benchmark
    from buildfixer.buildsys.options import BuildOptions
    from buildfixer.harness.config import AttemptConfig

    def sandbox_of_attempt(out: Path) -> str:
        row = read_results(out / "results.jsonl")[0]
        assert row["resolved"], row
        return json.loads((out / row["trajectory"]).read_text())["meta"]["config"]["build"]["sandbox"]

    only = ("--only", "cart-receipt-flag", "--agent", "oracle")
    proc = _bench_run(BUNDLED / "instances.jsonl", tmp_path / "open", *only, "--no-sandbox")
    assert proc.returncode == 0, proc.stderr
    recorded = json.loads((tmp_path / "open" / "config.json").read_text())["attempt"]["build"]
    assert recorded["sandbox"] == "none"
    assert sandbox_of_attempt(tmp_path / "open") == "none"
    # The run's choice travels to the worker process, whatever it is.
    instances = [i.to_dict() for i in load_dataset(BUNDLED / "instances.jsonl") if i.instance_id == only[1]]
    attempt = AttemptConfig(agent="oracle", model="none", options=BuildOptions(sandbox="bubblewrap"))
    run_benchmark(instances, BUNDLED, RunConfig(attempt=attempt), tmp_path / "confined")
    assert sandbox_of_attempt(tmp_path / "confined") == "bubblewrap"


@pytest.mark.slow
def test_two_workers_remember_every_repair(dataset_file, script_dir, tmp_path):
    fix_operator = [replace(INIT, "a +* b", "a + b"), {"content": "Fixed the operator."}]
    scripted(script_dir / "tinycalc-1.json", fix_operator)
    memory = tmp_path / "fixes.sqlite3"
    env = {**os.environ, "BUILDFIXER_MEMORY": str(tmp_path / "fix-memory.sqlite3")}
    args = ("--agent", "tool", "--model", f"scripted:{script_dir}", "--workers", "2", "--samples", "2",
            "--memory", str(memory))  # fmt: skip
    proc = _bench_run(dataset_file, tmp_path / "out", *args, env=env)
    assert proc.returncode == 0, proc.stderr
    rows = read_results(tmp_path / "out" / "results.jsonl")
    assert len(rows) == 4 and all(r["resolved"] and r["patch"] for r in rows)
    with FixMemory(memory) as fixes:
        entries = list(fixes.entries())
    # Four attempts written from two processes at once: each distinct repair is there once, with
    # its instance and split (identical repairs of one instance are one entry).
    assert {(e.instance_id, e.patch) for e in entries} == {(r["instance_id"], r["patch"]) for r in rows}
    assert len(entries) == 2 and all(e.split == "test" and e.resolved for e in entries)
    assert not (tmp_path / "fix-memory.sqlite3").exists()  # the memory `fix` reads: never written by a run
