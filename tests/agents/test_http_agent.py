"""The agent through the real litellm path, against a local OpenAI-compatible fake server."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from buildfixer.agents.tool_loop import Budget, ToolLoop
from buildfixer.agents.trajectory import Trajectory
from buildfixer.examples import get_example, materialize
from buildfixer.llm.factory import make_model
from buildfixer.llm.fake_server import FakeOpenAIServer
from buildfixer.tools.presets import PRESETS, make_toolset, tool_names
from support.tools import tool_context

API_KEY = "sk-fake-test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "build.gradle").write_text("apply plugin: 'java'\n")
    (root / "pom.xml").write_text("<project/>")
    return root


@pytest.mark.parametrize("system", ["gradle", "maven", "npm", "python"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("mask", ["none", "both"])
def test_each_preset_offers_exactly_its_tools_over_http(workspace, preset, system, mask):
    ctx = tool_context(workspace, system)
    tools = make_toolset(ctx, preset, mask)
    with FakeOpenAIServer([{"content": "nothing to do"}], api_key=API_KEY) as server:
        model = make_model("openai/fake-model", api_base=server.base_url, api_key=API_KEY, backoff_s=0.01)
        result = ToolLoop(model, tools, Budget(max_calls=3)).run(Trajectory(None), "system", "first")
    assert result.stop_reason == "model finished"
    offered = [t["function"]["name"] for t in server.requests[0]["tools"]]
    expected = tool_names(preset, system)
    if mask in ("names", "both"):
        assert offered == [f"tool_{chr(ord('A') + i)}" for i in range(len(expected))]
        described = " ".join(t["function"]["description"] for t in server.requests[0]["tools"])
        assert "gradle" not in described.lower() and "[MASKED]" in described
        schema_text = json.dumps(server.requests[0]["tools"])
        originals = [
            *expected,
            "old_string",
            "file_path",
            "gradle_command",
            "shell_command",
            "expected_replacements",
        ]
        assert not [name for name in originals if name in schema_text]  # no name spelled out anywhere
    else:
        assert offered == expected
    if system != "gradle":
        assert "run_gradle_command" not in offered and "upgrade_gradle" not in offered


def test_masked_names_still_call_the_right_tool(workspace):
    ctx = tool_context(workspace, "gradle")
    tools = make_toolset(ctx, "gradlefixer", "names")
    read = tools[tool_names("gradlefixer", "gradle").index("read_file")]
    assert read.name == "tool_D" and list(read.parameters["properties"]) == ["arg_1", "arg_2", "arg_3"]
    assert "apply plugin" in read.call({"arg_1": "build.gradle"})


def _repair_script():
    app = "src/main/java/com/example/inventory/App.java"
    return [
        {"content": "Reading the caller.", "tool_calls": [{"name": "read_file", "arguments": {"path": app}}]},
        {"tool_calls": [
            {"name": "replace", "arguments": {
                "file_path": app,
                "old_string": 'inventory.add(new Item("A-100", "bolt", 40, 25));',
                "new_string": 'inventory.add(new Item("A-100", "bolt", 40, 25), "aisle-1");'}},
            {"name": "replace", "arguments": {
                "file_path": app,
                "old_string": 'inventory.add(new Item("B-200", "nut", 100, 10));',
                "new_string": 'inventory.add(new Item("B-200", "nut", 100, 10), "aisle-2");'}},
        ]},
        {"tool_calls": [{"name": "run_build", "arguments": {}}]},
        {"content": "Both calls now pass a location; the build succeeds."},
    ]  # fmt: skip


@pytest.mark.slow
def test_scripted_multi_file_repair_over_http_ends_in_a_real_successful_build(tmp_path):
    project = materialize(get_example("gradle-app/missing-parameter"), tmp_path / "project")
    trajectory = tmp_path / "trajectory.json"
    with FakeOpenAIServer(_repair_script(), api_key=API_KEY) as server:
        env = {**os.environ, "BUILDFIXER_API_BASE": server.base_url, "BUILDFIXER_API_KEY": API_KEY}
        proc = subprocess.run(
            [sys.executable, "-m", "buildfixer", "fix", str(project), "--model", "openai/fake-model",
             "--trajectory", str(trajectory), "--json"],
            env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["resolved"] is True and out["llm_calls"] == 4 and out["applied"] is True
    assert '"aisle-1"' in out["patch"] and '"aisle-2"' in out["patch"]
    assert '"aisle-2"' in (project / "src/main/java/com/example/inventory/App.java").read_text()
    # The model saw the study's first message and the gradlefixer tools.
    first = server.requests[0]
    assert "Current State (Build Error)" in first["messages"][1]["content"]
    assert "cannot be applied to given types" in first["messages"][1]["content"]
    assert {t["function"]["name"] for t in first["tools"]} >= {"run_build", "run_gradle_command", "replace"}
    # The run_build result the model got says the build now succeeds.
    tool_msgs = [m for m in server.requests[3]["messages"] if m["role"] == "tool"]
    assert "BUILD SUCCESSFUL" in tool_msgs[-1]["content"]
    saved = json.loads(trajectory.read_text())
    assert saved["verdict"]["resolved"] is True and saved["tool_counts"]["replace"] == 2
    assert API_KEY not in trajectory.read_text()
    assert saved["usage"]["input_tokens"] > 0


@pytest.mark.slow
def test_failed_repair_leaves_the_project_untouched(tmp_path):
    project = materialize(get_example("gradle-app/missing-parameter"), tmp_path / "project")
    app = project / "src/main/java/com/example/inventory/App.java"
    before = app.read_text()
    script = _repair_script()[:2]  # fixes only the first call site, then stops
    script[1]["tool_calls"] = script[1]["tool_calls"][:1]
    script.append({"content": "done"})
    with FakeOpenAIServer(script, api_key=API_KEY) as server:
        env = {**os.environ, "BUILDFIXER_API_BASE": server.base_url, "BUILDFIXER_API_KEY": API_KEY}
        proc = subprocess.run(
            [sys.executable, "-m", "buildfixer", "fix", str(project), "--model", "openai/fake-model",
             "--json", "--trajectory", str(tmp_path / "t.json")],
            env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    assert proc.returncode == 1, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["resolved"] is False and out["applied"] is False and '"aisle-1"' in out["patch"]
    assert app.read_text() == before
    assert Path(out["trajectory"]).exists()
