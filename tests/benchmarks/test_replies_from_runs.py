"""benchmarks/replies_from_runs.py: trajectories become replay fixtures holding what the server sent."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "replies_from_runs.py"


def load_script():
    spec = importlib.util.spec_from_file_location("replies_from_runs", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def call(call_id: str, name: str, arguments: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_a_text_call_is_stored_as_written_and_a_structured_call_as_sent(tmp_path: Path) -> None:
    root = "/tmp/buildfixer-ws-abc123/project"
    written = '```json\n{"name": "read_file", "arguments": {"path": "' + root + '/pom.xml"}}\n```'
    trajectory = {
        "meta": {"project": root, "build_system": "maven", "tools": [{"function": {"name": "read_file"}}]},
        "steps": [
            {
                "reply": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [call("textcall_1", "read_file", json.dumps({"path": f"{root}/pom.xml"}))],
                },
                "written": written,
                "tool_results": [{"id": "textcall_1"}],
            },
            {
                "reply": {
                    "role": "assistant",
                    "content": "Building.",
                    "tool_calls": [call("c2", "run_build", "{}")],
                },
                "tool_results": [{"id": "c2"}],
            },
            {"reply": {"role": "assistant", "content": ""}, "tool_results": []},
        ],
    }
    run = tmp_path / "run"
    (run / "trajectories").mkdir(parents=True)
    (run / "trajectories" / "a__0.json").write_text(json.dumps(trajectory))
    result = {
        "instance_id": "a",
        "resolved": True,
        "stop": "resolved",
        "trajectory": "trajectories/a__0.json",
    }
    (run / "results.jsonl").write_text(json.dumps(result) + "\n")
    (run / "config.json").write_text(json.dumps({"attempt": {"agent": "tool", "toolset": "gradlefixer"}}))
    out = tmp_path / "fixtures"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(run), "--out", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    fixture = json.loads((out / "run--a.json").read_text())
    first, second, third = fixture["steps"]
    assert "tool_calls" not in first and first["content"].startswith("```json")  # as the server sent it
    assert second == {"content": "Building.", "tool_calls": [{"name": "run_build", "arguments": "{}"}]}
    assert third == {"content": ""}
    assert fixture["recorded"] == {"resolved": True, "stop": "resolved", "llm_calls": 3, "executed_calls": 2}
    assert "/tmp/buildfixer" not in json.dumps(fixture) and "{workspace}/pom.xml" in first["content"]
    assert fixture["calls_read"][0] == [["read_file", json.dumps({"path": "{workspace}/pom.xml"})]]


def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2 and "not a bench run directory" in done.stderr
