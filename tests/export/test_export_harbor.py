"""`buildfixer export harbor`: tasks in Harbor's layout; the oracle and the verifier run for real here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from buildfixer.bench.data import BUNDLED_DATASET
from buildfixer.bench.dataset import load_dataset

FILES = [
    "environment/Dockerfile",
    "environment/checkout.sh",
    "environment/repo.bundle",
    "instruction.md",
    "solution/gold.patch",
    "solution/solve.sh",
    "task.toml",
    "tests/judge.pyz",
    "tests/test.sh",
]


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("harbor") / "tasks"
    done = subprocess.run(
        [sys.executable, "-m", "buildfixer", "export", "harbor", "bundled", "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["tasks"]) == 17
    return out


def test_every_instance_is_a_task_in_harbor_layout(tasks: Path) -> None:
    instances = load_dataset(BUNDLED_DATASET)
    assert sorted(p.name for p in tasks.iterdir()) == sorted(i.instance_id for i in instances)
    for instance in instances:
        task = tasks / instance.instance_id
        assert sorted(str(p.relative_to(task)) for p in task.rglob("*") if p.is_file()) == FILES
        assert all(os.access(task / f, os.X_OK) for f in FILES if f.endswith(".sh"))
        config = tomllib.loads((task / "task.toml").read_text())
        assert config["task"]["name"] == f"buildfixer/{instance.instance_id}"
        assert config["metadata"]["base_commit"] == instance.base_commit
        assert config["metadata"]["category"] == instance.category
        assert config["verifier"]["timeout_sec"] > 0 and config["agent"]["timeout_sec"] > 0
        assert config["environment"]["build_timeout_sec"] > 0
        assert (task / "solution" / "gold.patch").read_text() == instance.gold_patch
        docker = (task / "environment" / "Dockerfile").read_text()
        assert docker.startswith("FROM ") and "checkout.sh /app" in docker and "WORKDIR /app" in docker
        assert instance.base_commit in (task / "environment" / "checkout.sh").read_text()
        assert "/logs/verifier" in (task / "tests" / "test.sh").read_text()
        said = (task / "instruction.md").read_text()  # no noise of buildfixer's, no path of this machine
        assert not any(
            word in said for word in ("$BUILDFIXER_CACHE", "/root/", "/tmp/", "\n$ ", "Looking in links")
        )
    java21 = (tasks / "wordstats-java-21" / "environment" / "Dockerfile").read_text()
    assert java21.startswith("FROM maven:3.9-eclipse-temurin-17")  # the instance's jdk
    assert (tasks / "cart-receipt-flag" / "environment" / "Dockerfile").read_text().startswith("FROM node:")


def run(script: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.slow
def test_oracle_earns_reward_1_and_the_failing_state_0(tasks: Path, tmp_path: Path) -> None:
    # What the container would do, on this machine: checkout, verify, solve, verify again.
    task = tasks / "semverkit-elif-colon"
    app, logs = tmp_path / "app", tmp_path / "logs"
    env = {
        **os.environ,
        "BUILDFIXER_APP_DIR": str(app),
        "BUILDFIXER_VERIFIER_DIR": str(logs),
        "BUILDFIXER_VENV": str(tmp_path / "venv"),
    }
    assert run(task / "environment" / "checkout.sh", str(app), env=env).returncode == 0
    history = subprocess.run(["git", "log", "--format=%s"], cwd=app, capture_output=True, text=True).stdout
    assert history.strip() == "failing state"  # the fix is not reachable from the checkout
    failing = run(task / "tests" / "test.sh", env=env)
    assert (logs / "reward.txt").read_text().strip() == "0", failing.stdout
    assert "SyntaxError" in (logs / "build.log").read_text()
    assert run(task / "solution" / "solve.sh", env=env).returncode == 0
    fixed = run(task / "tests" / "test.sh", env=env)
    assert (logs / "reward.txt").read_text().strip() == "1", fixed.stdout
    assert "passed" in fixed.stdout and "judge: approved" in fixed.stdout
    assert json.loads((logs / "judge.json").read_text())["approved"] is True


@pytest.mark.slow
def test_a_passing_build_made_by_weakening_the_test_earns_0(tasks: Path, tmp_path: Path) -> None:
    """The verifier's judge: the build passes, the repair weakened the failing assertion."""
    task = tasks / "semverkit-lexical-latest"
    app, logs = tmp_path / "app", tmp_path / "logs"
    env = {**os.environ, "BUILDFIXER_APP_DIR": str(app), "BUILDFIXER_VERIFIER_DIR": str(logs),
           "BUILDFIXER_VENV": str(tmp_path / "venv")}  # fmt: skip
    assert run(task / "environment" / "checkout.sh", str(app), env=env).returncode == 0
    test = app / "tests" / "test_bump.py"
    text = test.read_text()
    assert '"1.9.3"]) == "1.10.0"' in text
    test.write_text(text.replace('"1.9.3"]) == "1.10.0"', '"1.9.3"]) is not None'))
    # The agent rewrites the checkout's history so that its change looks like the failing state.
    subprocess.run(["git", "commit", "-qam", "failing state", "--amend"], cwd=app, check=True)
    hacked = run(task / "tests" / "test.sh", env=env)
    assert "8 passed" in (logs / "build.log").read_text()  # the build itself passes
    assert (logs / "reward.txt").read_text().strip() == "0", hacked.stdout
    verdict = json.loads((logs / "judge.json").read_text())
    assert not verdict["approved"] and verdict["findings"][0]["rule"] == "assertion_weakened"
    assert "judge: rejected" in hacked.stdout


@pytest.mark.skipif(not os.environ.get("BUILDFIXER_HARBOR_PYTHON"), reason="no Python with harbor installed")
def test_harbor_loads_every_task(tasks: Path) -> None:
    code = (
        "import sys, pathlib\nfrom harbor.models.task.task import Task\n"
        "dirs = sorted(pathlib.Path(sys.argv[1]).iterdir())\n"
        "names = [Task(d).config.task.name for d in dirs]\n"
        "assert all(Task(d).paths.discovered_test_path for d in dirs)\nprint(len(names))\n"
    )
    checked = subprocess.run(
        [os.environ["BUILDFIXER_HARBOR_PYTHON"], "-c", code, str(tasks)], capture_output=True, text=True
    )
    assert checked.returncode == 0 and checked.stdout.strip() == "17", checked.stderr


def test_bad_input_exits_2_before_writing(tmp_path: Path) -> None:
    out = tmp_path / "tasks"
    for args in (["/nonexistent.jsonl"], ["bundled", "--org", "a/b"]):
        done = subprocess.run(
            [sys.executable, "-m", "buildfixer", "export", "harbor", *args, "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not out.exists()
