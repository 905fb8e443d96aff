"""`buildfixer curate` refuses bad input before building anything: one line on stderr, exit 2."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from python_repos import branches_repo

from buildfixer.bench.dataset import load_dataset
from buildfixer.curate.state import read_lines
from support.git import Repo

CLI = [sys.executable, "-m", "buildfixer", "curate"]


def run(*args):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300)


def assert_refused(proc, fragment):
    assert proc.returncode == 2, proc.stderr
    assert fragment in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_bad_usage_is_refused(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.commit("one", {"pyproject.toml": "[project]\nname = 'x'\nversion = '0'\n"})
    out = tmp_path / "data" / "d.jsonl"
    # Each mode declares only its own options: --model is the llm mode's, and there it is required.
    assert_refused(run("human", str(repo.path), "--out", str(out), "--model", "openai/gpt-4.1"), "--model")
    assert_refused(run("llm", str(repo.path), "--out", str(out)), "Missing option '--model'")
    assert "--model" not in run("dependency", "--help").stdout
    assert "--ranges" not in run("llm", "--help").stdout
    missing = tmp_path / "missing.json"
    assert_refused(
        run("llm", str(repo.path), "--out", str(out), "--model", f"scripted:{missing}"), "not found"
    )
    assert_refused(run("human", str(tmp_path / "nope"), "--out", str(out)), "no such repository")
    assert_refused(run("human", str(repo.path), "--out", str(out), "--rev", "v9"), "no commit 'v9'")
    ranges = tmp_path / "prs.txt"
    ranges.write_text("not-a-range\n")
    assert_refused(run("human", str(repo.path), "--out", str(out), "--ranges", str(ranges)), "prs.txt:1")
    assert_refused(run("dependency", str(repo.path), "--out", str(out), "--repeats", "0"), "at least 1")
    assert not out.parent.exists()  # nothing written


def test_split_refuses_bad_shares_and_a_missing_dataset(tmp_path):
    assert_refused(run("split", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "s")), "none.jsonl")


@pytest.mark.slow
def test_kill_9_then_rerun_gives_the_dataset_of_an_uninterrupted_run(tmp_path):
    planted = branches_repo(tmp_path / "calc", 4)
    common = ["human", str(planted["repo"]), "--no-as-of", "--workers", "1"]
    # Both datasets are named d.jsonl (their instances name the bundle `repos/d.jsonl/calc.bundle`).
    whole = tmp_path / "whole" / "d.jsonl"
    done = run(*common, "--out", str(whole), "--build-cache", str(tmp_path / "b1"))
    assert done.returncode == 0, done.stderr

    out = tmp_path / "killed" / "d.jsonl"
    args = [*CLI, *common, "--out", str(out), "--build-cache", str(tmp_path / "b2")]
    proc = subprocess.Popen(
        args, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    state = tmp_path / "killed" / "d.jsonl.state.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline and len(read_lines(state)) < 1:
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 1 <= len(read_lines(state)) < 4
    # The instances kept before the kill are in the dataset already, as the uninterrupted run wrote them.
    written = out.read_text().splitlines() if out.exists() else []
    assert set(written) <= set(whole.read_text().splitlines())
    again = run(*common, "--out", str(out), "--build-cache", str(tmp_path / "b2"), "--json")
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["evaluated"] < 4  # the outcomes written before the kill were kept
    keys = [json.loads(line)["key"] for line in state.read_text().splitlines()]
    assert len(keys) == len(set(keys)) == 4
    assert out.read_text() == whole.read_text()
    assert len(load_dataset(out)) == 4
