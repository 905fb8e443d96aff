"""`buildfixer export atif`: trajectories of real attempts as ATIF documents, checked against the spec."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from atif_spec_check import problems

from buildfixer.agents.trajectory import Step, ToolResult, Trajectory
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.paths import cache_root
from buildfixer.delivery.fix import fix_project
from buildfixer.export.atif import SCHEMA_VERSION, to_atif
from buildfixer.harness.attempt import AttemptConfig
from support.model import call, replace, scripted
from support.projects import stats_project

KEY = "sk-" + "q7" * 12  # shaped like an API key: the export must never carry it


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory: a real scripted repair, a recipes-like step without a model, an empty attempt."""
    base = tmp_path_factory.mktemp("atif")
    project = stats_project(base / "stats")
    plan = [
        {"content": "Look first.", **call("read_file", path="stats.py")},
        replace("stats.py", "//", "/"),
        {"content": "Done."},
    ]
    trajectories = base / "run" / "trajectories"
    config = AttemptConfig(
        model=scripted(base / "plan.json", plan),
        options=BuildOptions(),
        trajectory_path=trajectories / "real__0.json",
    )
    assert fix_project(project, config, dry_run=True).attempt.resolved
    policy = Trajectory(trajectories / "policy__0.json", meta={"agent": "recipes", "project": str(project)})
    reply = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "r1", "type": "function", "function": {"name": "run_build", "arguments": "{"}}],
    }
    policy.add_step(Step(0, reply, [ToolResult("r1", "run_build", "{", "BUILD OK", False, 1.5)], llm=False))
    policy.finish({"resolved": True, "stop": "resolved"})  # fmt: skip
    empty = {"format": 1, "meta": {"agent": "pipeline", "instance_id": "x"}, "messages": [], "steps": [],
             "verdict": {"resolved": True, "stop_reason": f"replayed from memory, key {KEY}"}}  # fmt: skip
    (trajectories / "empty__0.json").write_text(json.dumps(empty))  # written raw: not redacted yet
    return base / "run"


def export(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "buildfixer", "export", "atif", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_every_attempt_becomes_a_valid_atif_file(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "atif"
    done = export(str(run_dir), "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["trajectories"] == 3
    docs = {p.stem: json.loads(p.read_text()) for p in (out / "run").glob("*.json")}
    assert sorted(docs) == ["empty__0", "policy__0", "real__0"]
    for name, doc in docs.items():
        assert problems(doc) == [], name
        assert doc["schema_version"] == SCHEMA_VERSION and doc["session_id"] == f"run/{name}"
    real = docs["real__0"]
    assert [s["source"] for s in real["steps"]] == ["system", "user", "agent", "agent", "agent"]
    first = real["steps"][2]
    assert first["message"] == "Look first." and first["llm_call_count"] == 1
    assert first["tool_calls"][0]["function_name"] == "read_file"
    assert first["tool_calls"][0]["arguments"] == {"path": "stats.py"}
    assert first["observation"]["results"][0]["source_call_id"] == first["tool_calls"][0]["tool_call_id"]
    assert "return sum(values)" in first["observation"]["results"][0]["content"]
    assert first["metrics"]["prompt_tokens"] > 0
    assert real["agent"]["name"] == "buildfixer-tool" and real["agent"]["tool_definitions"]
    assert real["final_metrics"]["total_steps"] == 5 and real["extra"]["verdict"]["resolved"] is True
    assert "/workspace" in real["steps"][1]["message"]  # the machine's path replaced
    policy = docs["policy__0"]["steps"][0]
    assert policy["llm_call_count"] == 0 and "metrics" not in policy
    assert policy["tool_calls"][0]["arguments"] == {}  # "{" is no JSON object: kept aside
    assert policy["tool_calls"][0]["extra"] == {"unparsed_arguments": "{"}
    empty = docs["empty__0"]["steps"]
    assert len(empty) == 1 and empty[0]["source"] == "system"
    assert KEY not in (out / "run" / "empty__0.json").read_text()


@pytest.mark.slow
def test_no_path_of_this_machine_is_exported(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "atif"
    assert export(str(run_dir), "--out", str(out)).returncode == 0
    agent = json.loads((out / "run" / "real__0.json").read_text())["agent"]
    # The scripted model is a file in the test's temporary folder: the spec names it from <tmp>.
    model = agent["model_name"]
    assert model.startswith("scripted:<tmp>/") and model.endswith("/plan.json")
    assert agent["extra"]["config"]["model"] == model
    text = "".join(path.read_text() for path in (out / "run").glob("*.json"))
    assert "<cache>/" in text  # the build's own caches, in its output
    for local in (str(run_dir.parent), str(cache_root()), f"{tempfile.gettempdir()}/", f"{Path.home()}/"):
        assert local not in text


def test_the_spec_check_catches_what_atif_forbids() -> None:
    doc = to_atif({"messages": [{"role": "user", "content": "hi"}]}, "s")
    assert problems(doc) == []
    doc["steps"][0]["tool_calls"] = []  # agent-only field on a user step
    doc["steps"].append({"step_id": 5, "source": "robot", "message": "", "oops": 1})
    found = " ".join(problems(doc))
    assert "only for agent steps" in found and "is not 2" in found and "robot" in found and "unknown" in found


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("BUILDFIXER_HARBOR_PYTHON"), reason="no Python with harbor installed")
def test_harbor_own_validator_accepts_the_export(run_dir: Path, tmp_path: Path) -> None:
    # harbor needs Python 3.12+: BUILDFIXER_HARBOR_PYTHON names an interpreter that has it.
    out = tmp_path / "atif"
    assert export(str(run_dir), "--out", str(out)).returncode == 0
    code = (
        "import sys, pathlib\nfrom harbor.utils.trajectory_validator import TrajectoryValidator\n"
        "files = sorted(pathlib.Path(sys.argv[1]).rglob('*.json'))\nbad = []\n"
        "for p in files:\n    v = TrajectoryValidator()\n"
        "    v.validate(p) or bad.append((p.name, v.errors))\n"
        "print(len(files), bad)\nsys.exit(1 if bad or not files else 0)\n"
    )
    checked = subprocess.run(
        [os.environ["BUILDFIXER_HARBOR_PYTHON"], "-c", code, str(out)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("3 ")


def test_bad_sources_exit_2_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "atif"
    done = export(str(tmp_path / "missing"), "--out", str(out))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    (tmp_path / "norun").mkdir()
    assert export(str(tmp_path / "norun"), "--out", str(out)).returncode == 2
    assert not out.exists()
