"""`buildfixer curate` refuses bad input before building anything: one line on stderr, exit 2."""

import subprocess
import sys

from gitrepo import Repo

CLI = [sys.executable, "-m", "buildfixer", "curate"]


def run(*args):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300)


def assert_refused(proc, fragment):
    assert proc.returncode == 2, proc.stderr
    assert fragment in proc.stderr and "Traceback" not in proc.stderr


def test_bad_usage_is_refused(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.commit("one", {"pyproject.toml": "[project]\nname = 'x'\nversion = '0'\n"})
    out = tmp_path / "data" / "d.jsonl"
    assert_refused(
        run("human", str(repo.path), "--out", str(out), "--model", "openai/gpt-4.1"), "uses no model"
    )
    assert_refused(run("llm", str(repo.path), "--out", str(out)), "the llm mode needs --model")
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
