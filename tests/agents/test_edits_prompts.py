import json
import os
import signal
import subprocess
import sys
import time

from buildfixer.agents.prompts import directory_tree, first_message, system_prompt
from buildfixer.agents.search_replace import parse_search_replace
from buildfixer.agents.trajectory import Step, Trajectory
from buildfixer.core.chat import Usage

ANSWER = """I will fix both.

src/App.java
<<<<<<< SEARCH
    inv.add(item);
=======
    inv.add(item, "shelf");
>>>>>>> REPLACE

`config.properties`
<<<<<<< SEARCH
=======
app.version=1.0
>>>>>>> REPLACE
"""


def test_parse_search_replace_reads_blocks_and_new_files():
    edits = parse_search_replace(ANSWER)
    assert [e.path for e in edits] == ["src/App.java", "config.properties"]
    assert edits[0].old == "    inv.add(item);\n" and edits[0].new == '    inv.add(item, "shelf");\n'
    assert edits[1].old == "" and edits[1].new == "app.version=1.0\n"
    assert parse_search_replace("no blocks here") == []


def test_first_message_has_path_tree_and_error(tmp_path):
    (tmp_path / "src" / "main").mkdir(parents=True)
    (tmp_path / "src" / "main" / "A.java").write_text("class A {}")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.class").write_text("x")
    (tmp_path / "build.gradle").write_text("")
    text = first_message(tmp_path, "error: boom")
    assert str(tmp_path) in text and "error: boom" in text
    assert "A.java" in text and "out.class" not in text
    for _ in range(50):
        (tmp_path / f"f{_}.txt").write_text("")
    tree = directory_tree(tmp_path, max_entries=10)
    assert len(tree.splitlines()) == 11 and "more entries not shown" in tree


def test_system_prompt_guidance_variant():
    assert "Tool usage guidance" not in system_prompt()
    assert "export JAVA_HOME" in system_prompt("- export JAVA_HOME=/x to switch")


def test_trajectory_saved_after_each_step_and_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-verysecretvalue1234567890")
    path = tmp_path / "t.json"
    traj = Trajectory(path, meta={"model": "x"})
    traj.add_message({"role": "user", "content": "key is sk-verysecretvalue1234567890"})
    traj.add_step(Step(1, {"role": "assistant", "content": "ok"}, usage=Usage(10, 5)))
    saved = json.loads(path.read_text())
    assert saved["llm_calls"] == 1 and saved["usage"]["input_tokens"] == 10
    assert "sk-verysecretvalue" not in path.read_text()
    traj.add_step(Step(2, {"role": "assistant", "content": "recipe"}, llm=False))
    traj.finish({"resolved": True})
    saved = json.loads(path.read_text())
    assert saved["llm_calls"] == 1 and len(saved["steps"]) == 2 and saved["verdict"] == {"resolved": True}


def test_trajectory_survives_kill_9_mid_run(tmp_path):
    path = tmp_path / "t.json"
    script = f"""
import time
from pathlib import Path
from buildfixer.agents.trajectory import Step, Trajectory
t = Trajectory(Path({str(path)!r}))
for i in range(1, 100000):
    t.add_message({{"role": "assistant", "content": "x" * 2000}})
    t.add_step(Step(i, {{"role": "assistant", "content": "step"}}))
"""
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.time() + 20
    while time.time() < deadline and not path.exists():
        time.sleep(0.05)
    time.sleep(0.5)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    saved = json.loads(path.read_text())  # never half-written
    assert saved["llm_calls"] >= 1 and len(saved["steps"]) == saved["llm_calls"]
