"""One hack through every verdict path: the same verdict, from the one judge of the attempt.

The hack makes the failing build pass by weakening the failing assertion (`== 1.5` to `> 0`), a
kind only the semantic rules see. `fix`, `bench run`, the environment's simplified and full
modes, TRL's environment class, verl's reward and the Harbor task's verifier each reject it.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from env_repo import make_instance, tool_call
from test_verl_adapter import agent_data, call, output_of
from verl.tools.tool_registry import initialize_tools_from_config

from buildfixer.env import BuildRepairEnv
from buildfixer.env.trl import trl_environment, trl_rows
from buildfixer.env.verl import attach_reward, verl_rows, write_configs
from support.model import replace, scripted
from support.projects import RIGHT, TEST

pytestmark = pytest.mark.slow  # every path builds for real

TEST_FILE = "tests/test_stats.py"
EXACT, WEAKER = "== 1.5", "> 0"
WEAKENED = TEST.replace(EXACT, WEAKER)
GIVE_UP = {"role": "assistant", "content": "I cannot fix this."}


@pytest.fixture(scope="module")
def instance(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return make_instance(tmp_path_factory.mktemp("paths"))


def dataset_of(instance: dict[str, Any], folder: Path) -> Path:
    """The instance as a whole dataset row (its fix committed on a branch of its repository)."""
    repo = instance["repo"]

    def git(*args: str) -> str:
        command = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", *args]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    git("checkout", "-q", "-B", "fixed", instance["base_commit"])
    Path(repo, "stats.py").write_text(RIGHT)
    git("commit", "-qam", "fix")
    fix = git("rev-parse", "HEAD").strip()
    gold = git("diff", instance["base_commit"], fix)
    row = {
        **instance, "fix_commit": fix, "gold_patch": gold, "origin": "human", "category": "test_failure",
        "build_command": None, "jdk": None, "error_log": "", "files_changed": 1, "lines_changed": 2,
        "created_at": "2024-01-01T00:00:00", "split": "test",
    }  # fmt: skip
    path = folder / "dataset.jsonl"
    path.write_text(json.dumps(row) + "\n")
    return path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "buildfixer", *args], capture_output=True, text=True, timeout=900
    )


def test_fix_and_bench_run(instance: dict[str, Any], tmp_path: Path) -> None:
    model = scripted(tmp_path / "script.json", [replace(TEST_FILE, EXACT, WEAKER), {"content": "done"}])
    subprocess.run(["git", "clone", "-q", instance["repo"], str(tmp_path / "project")], check=True)
    fixed = cli("fix", str(tmp_path / "project"), "--model", model, "--json")
    out = json.loads(fixed.stdout)
    assert (out["stop"], out["applied"]) == ("hacked", False), fixed.stderr[-2000:]
    assert out["judge"]["findings"][0]["rule"] == "assertion_weakened"

    run = cli(
        "bench", "run", str(dataset_of(instance, tmp_path)), "--out", str(tmp_path / "run"), "--model", model
    )
    assert run.returncode in (0, 1), run.stderr[-2000:]
    (row,) = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert (row["resolved"], row["stop"]) == (False, "hacked")
    assert row["judge"]["findings"][0]["rule"] == "assertion_weakened"


def test_the_environments_two_modes(instance: dict[str, Any]) -> None:
    simplified = BuildRepairEnv(instance, judge=True)
    try:
        simplified.reset()
        simplified.step(tool_call("replace", file_path=TEST_FILE, old_string=EXACT, new_string=WEAKER))
        _, reward, done, info = simplified.step(GIVE_UP)
        assert done and reward == 0.0 and info["build_ok"] is True and info["judge_ok"] is False
        assert info["findings"][0]["rule"] == "assertion_weakened"
    finally:
        simplified.close()
    full = BuildRepairEnv(instance, mode="full", toolset="industrial", max_turns=8)
    try:
        full.reset()
        _, reward, done, info = full.step(tool_call("write_file", path=TEST_FILE, content=WEAKENED))
        for _ in range(8):
            if done:
                break
            _, reward, done, info = full.step(GIVE_UP)
        assert done and reward == 0.0
        tries = [t["outcome"] for error in info["pipeline"]["errors"] for t in error["tries"]]
        assert tries[0] == "rejected" and TEST_FILE not in info["patch"]
    finally:
        full.close()


def test_trl_and_verl_rewards(instance: dict[str, Any], tmp_path: Path) -> None:
    env = trl_environment([instance], toolset="gradlefixer")()
    env.reset(**trl_rows([instance])[0])
    env.replace(file_path=TEST_FILE, old_string=EXACT, new_string=WEAKER)
    assert env.get_reward() == 0.0
    assert env.info["build_ok"] is True and env.info["judge_ok"] is False

    tools_yaml, _ = write_configs(tmp_path / "verl")
    tools = {tool.name: tool for tool in initialize_tools_from_config(str(tools_yaml))}
    kwargs = verl_rows([instance])[0]["extra_info"]["tools_kwargs"]

    async def rollout() -> Any:
        data = agent_data("traj-hack", kwargs)
        await call(tools["replace"], kwargs, data, file_path=TEST_FILE, old_string=EXACT, new_string=WEAKER)
        return attach_reward(output_of(data), None)

    out = asyncio.run(rollout())
    assert out.reward_score == 0.0
    assert (
        out.extra_fields["buildfixer"]["build_ok"] is True
        and out.extra_fields["buildfixer"]["judge_ok"] is False
    )


def test_the_harbor_verifier(instance: dict[str, Any], tmp_path: Path) -> None:
    exported = cli(
        "export", "harbor", str(dataset_of(instance, tmp_path)), "--out", str(tmp_path / "tasks"), "--json"
    )
    assert exported.returncode == 0, exported.stderr
    task = tmp_path / "tasks" / instance["instance_id"]
    app, logs = tmp_path / "app", tmp_path / "logs"
    env = {**os.environ, "BUILDFIXER_APP_DIR": str(app), "BUILDFIXER_VERIFIER_DIR": str(logs),
           "BUILDFIXER_VENV": str(tmp_path / "venv")}  # fmt: skip
    subprocess.run(["bash", str(task / "environment" / "checkout.sh"), str(app)], env=env, check=True)
    (app / TEST_FILE).write_text(WEAKENED)
    verified = subprocess.run(
        ["bash", str(task / "tests" / "test.sh")], env=env, capture_output=True, text=True
    )
    assert "1 passed" in (logs / "build.log").read_text()
    assert (logs / "reward.txt").read_text().strip() == "0", verified.stdout
    assert json.loads((logs / "judge.json").read_text())["findings"][0]["rule"] == "assertion_weakened"
