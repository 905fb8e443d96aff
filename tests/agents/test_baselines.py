"""The study's baselines end to end: real builds in a snapshot workspace, only the model scripted."""

import json
from pathlib import Path

import pytest

from buildfixer.agents.attempt_context import AgentSettings, AttemptContext
from buildfixer.agents.coding_assistant import CodingAssistantAgent
from buildfixer.agents.trajectory import Trajectory
from buildfixer.core.build_result import BuildResult
from buildfixer.delivery.fix import fix_project
from buildfixer.examples import get_example, materialize
from buildfixer.harness.attempt import AttemptConfig
from buildfixer.llm import factory
from buildfixer.llm.factory import make_model
from buildfixer.llm.scripted import ScriptedModel
from buildfixer.tools.presets import make_toolset
from support.model import replace, scripted
from support.tools import tool_context

APP = "src/main/java/com/example/inventory/App.java"
REPORT = "src/main/java/com/example/wordstats/Report.java"
BROKEN_CALL = "counter.top(topCount())"
FIXED_CALL = "counter.top(topCount(), 1)"
LOOP_HEAD = "        for (Map.Entry<String, Integer> entry : "


def tree(root: Path) -> dict[str, bytes]:
    """Every file under root, for comparing a project before and after."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"


def use(monkeypatch, model: ScriptedModel) -> None:
    """Make the agents use this model object whatever the spec (so its requests can be inspected)."""
    monkeypatch.setattr(factory, "make_model", lambda spec, **options: model)


def config(tmp_path: Path, **kw) -> AttemptConfig:
    """An attempt config; its model spec names a real (empty) script, the model used is `use`'s."""
    kw.setdefault("model", scripted(tmp_path / "placeholder.json", []))
    return AttemptConfig(trajectory_path=tmp_path / "trajectory.json", **kw)


@pytest.mark.slow
def test_coding_assistant_one_call_two_edits_repairs_gradle_app(tmp_path, monkeypatch):
    project = materialize(get_example("gradle-app/missing-parameter"), tmp_path / "project")
    source = (project / APP).read_text()
    answer = "Both callers need a location.\n\n" + block(
        APP,
        '        inventory.add(new Item("A-100", "bolt", 40, 25));',
        '        inventory.add(new Item("A-100", "bolt", 40, 25), "aisle-1");',
    ) + "\n" + block(
        APP,
        '        inventory.add(new Item("B-200", "nut", 100, 10));',
        '        inventory.add(new Item("B-200", "nut", 100, 10), "aisle-2");',
    )  # fmt: skip
    model = ScriptedModel([{"content": answer}])
    use(monkeypatch, model)
    outcome = fix_project(project, config(tmp_path, agent="coding-assistant"))

    assert outcome.attempt.resolved is True, outcome.attempt.stop_reason
    assert outcome.attempt.stop_reason == "coding assistant answered"
    assert outcome.attempt.llm_calls == 1 and len(model.requests) == 1
    messages, offered = model.requests[0]
    assert offered == []  # no tools: the answer is text
    assert messages[0]["role"] == "system" and "<<<<<<< SEARCH" in messages[0]["content"]
    prompt = messages[1]["content"]
    assert "cannot be applied to given types" in prompt
    assert source in prompt and APP in prompt  # the file the error points at, in full
    assert "build.gradle" in prompt
    assert outcome.applied and outcome.changed_files == [APP]
    assert '"aisle-1"' in outcome.patch and '"aisle-2"' in outcome.patch
    assert '"aisle-2");' in (project / APP).read_text()
    saved = json.loads(outcome.trajectory_path.read_text())
    assert saved["llm_calls"] == 1 and saved["tool_counts"] == {"search_replace": 1}
    assert saved["verdict"]["resolved"] is True
    assert saved["steps"][0]["tool_results"][0]["error"] is False


@pytest.mark.slow
def test_coding_assistant_whose_search_text_does_not_match(tmp_path, monkeypatch):
    project = materialize(get_example("maven-app/missing-parameter"), tmp_path / "project")
    before = tree(project)
    answer = block(REPORT, "        counter.top(topCount(), ANYTHING)", "        " + FIXED_CALL)
    use(monkeypatch, ScriptedModel([{"content": answer}, {"content": answer}]))  # told once, sent again
    outcome = fix_project(project, config(tmp_path, agent="coding-assistant"))

    assert outcome.attempt.resolved is False
    assert outcome.attempt.stop_reason == "coding assistant edits did not all apply"
    assert outcome.patch == "" and outcome.changed_files == [] and outcome.applied is False
    assert tree(project) == before
    saved = json.loads(outcome.trajectory_path.read_text())
    result = saved["steps"][0]["tool_results"][0]
    assert result["name"] == "search_replace"
    assert result["output"].startswith(f"edit of {REPORT} failed:")
    assert result["error"] is True
    assert saved["verdict"]["resolved"] is False and saved["llm_calls"] == 2
    assert saved["messages"][-2]["role"] == "user" and "copied exactly" in saved["messages"][-2]["content"]


@pytest.mark.slow
def test_hierarchical_planner_delegates_the_edit_to_the_coding_assistant(tmp_path, monkeypatch):
    project = materialize(get_example("maven-app/missing-parameter"), tmp_path / "project")
    instruction = "In Report.render pass 1 as the new minCount argument of counter.top."
    model = ScriptedModel([
        {"content": "Reading the caller.",
         "tool_calls": [{"name": "read_file", "arguments": {"path": REPORT}}]},
        {"tool_calls": [{"name": "request_code_change",
                         "arguments": {"instruction": instruction, "files": [REPORT]}}]},
        # The delegated coding-assistant call, answered by the same model.
        {"content": "Here is the change.\n\n"
                    + block(REPORT, f"{LOOP_HEAD}{BROKEN_CALL}) {{", f"{LOOP_HEAD}{FIXED_CALL}) {{")},
        {"content": "The caller now passes a minimum count."},
    ])  # fmt: skip
    use(monkeypatch, model)
    outcome = fix_project(project, config(tmp_path, agent="hierarchical"))

    assert outcome.attempt.resolved is True, outcome.attempt.stop_reason
    assert outcome.attempt.stop_reason == "model finished"
    assert model.finished and len(model.requests) == 4
    planner_tools = [t["function"]["name"] for t in model.requests[0][1]]
    assert planner_tools == [
        "list_directory",
        "glob",
        "search_file_content",
        "read_file",
        "request_code_change",
    ]
    delegated_messages, delegated_tools = model.requests[2]
    assert delegated_tools == []
    assert instruction in delegated_messages[1]["content"]
    assert "counter.top(topCount())" in delegated_messages[1]["content"]  # Report.java's content
    # The planner read the assistant's report as the tool's result.
    tool_msgs = [m for m in model.requests[3][0] if m["role"] == "tool"]
    assert "Report.java" in tool_msgs[-1]["content"] and "failed" not in tool_msgs[-1]["content"]
    # The delegated conversation is not spliced into the planner's.
    assert all(m["content"] != model.steps[2]["content"] for m in model.requests[3][0])
    assert outcome.changed_files == [REPORT] and FIXED_CALL in (project / REPORT).read_text()
    saved = json.loads(outcome.trajectory_path.read_text())
    assert saved["tool_counts"] == {"read_file": 1, "search_replace": 1, "request_code_change": 1}
    # The delegated call is on record and counted (calls, tokens), before the step that made it.
    assert outcome.attempt.llm_calls == 4 == saved["llm_calls"]
    assert [s["index"] for s in saved["steps"]] == [1, 2, 3, 4]
    assert [[r["name"] for r in s["tool_results"]] for s in saved["steps"]] == [
        ["read_file"],
        ["search_replace"],
        ["request_code_change"],
        [],
    ]
    assert saved["steps"][1]["usage"]["input_tokens"] > 0
    assert saved["usage"]["input_tokens"] == sum(s["usage"]["input_tokens"] for s in saved["steps"])


@pytest.mark.slow
def test_cascade_resets_the_workspace_before_the_next_model(tmp_path, monkeypatch):
    project = materialize(get_example("maven-app/missing-parameter"), tmp_path / "project")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    scripted(a, [
        {"tool_calls": [
            {"name": "replace",
             "arguments": {"file_path": "junk.txt", "old_string": "", "new_string": "junk\n"}},
            {"name": "replace", "arguments": {"file_path": REPORT, "old_string": BROKEN_CALL,
                                              "new_string": "counter.top(topCount(), \"junk\")"}},
        ]},
        {"content": "I cannot fix this."},
    ])  # fmt: skip
    # Matches only if a's edit of Report.java was undone.
    scripted(b, [replace(REPORT, BROKEN_CALL, FIXED_CALL), {"content": "Fixed."}])
    made: list[ScriptedModel] = []

    def recording(spec: str, **options) -> ScriptedModel:
        model = make_model(spec)
        assert isinstance(model, ScriptedModel)
        made.append(model)
        return model

    monkeypatch.setattr(factory, "make_model", recording)
    spec = f"scripted:{a}, scripted:{b}"
    outcome = fix_project(project, config(tmp_path, agent="cascade", model=spec))

    assert outcome.attempt.resolved is True, outcome.attempt.stop_reason
    made = [m for m in made if m.requests]  # the others only had their script checked up front
    assert [m.name for m in made] == [f"scripted:{a}", f"scripted:{b}"]
    assert all(m.finished for m in made)
    # b started from the original failure, in a fresh conversation.
    first_b = made[1].requests[0][0]
    assert [m["role"] for m in first_b] == ["system", "user"]
    assert "junk.txt" not in first_b[1]["content"]  # the directory tree no longer shows a's file
    saved = json.loads(outcome.trajectory_path.read_text())
    assert saved["meta"]["cascade"] == [f"scripted:{a}", f"scripted:{b}"]
    assert saved["llm_calls"] == 4 and saved["tool_counts"] == {"replace": 3}
    assert outcome.changed_files == [REPORT]
    assert "junk" not in outcome.patch and FIXED_CALL in outcome.patch
    assert not (project / "junk.txt").exists()


@pytest.mark.slow
def test_tool_agent_with_masked_names_and_descriptions(tmp_path, monkeypatch):
    project = materialize(get_example("maven-app/missing-parameter"), tmp_path / "project")
    ctx = tool_context(project, "maven")
    plain = make_toolset(ctx, "gradlefixer")
    masked = make_toolset(ctx, "gradlefixer", "both")
    label = {p.name: m.name for p, m in zip(plain, masked, strict=True)}
    args = {p.name: dict(zip(p.parameters["properties"], m.parameters["properties"], strict=True))
            for p, m in zip(plain, masked, strict=True)}  # fmt: skip
    replace, arg = label["replace"], args["replace"]
    assert replace.startswith("tool_") and label["run_build"].startswith("tool_")
    model = ScriptedModel([
        {"tool_calls": [{"name": replace, "arguments": {
            arg["file_path"]: REPORT, arg["old_string"]: BROKEN_CALL, arg["new_string"]: FIXED_CALL}}]},
        {"tool_calls": [{"name": label["run_build"], "arguments": {}}]},
        {"content": "Done."},
    ])  # fmt: skip
    use(monkeypatch, model)
    outcome = fix_project(project, config(tmp_path, agent="tool", mask="both"))

    assert outcome.attempt.resolved is True, outcome.attempt.stop_reason
    offered = [t["function"]["name"] for t in model.requests[0][1]]
    assert offered == [m.name for m in masked]
    offered_params = [list(t["function"]["parameters"]["properties"]) for t in model.requests[0][1]]
    assert all(p == [f"arg_{i}" for i in range(1, len(p) + 1)] for p in offered_params)
    assert all("[MASKED]" in t["function"]["description"] for t in model.requests[0][1])
    tool_msgs = [m for m in model.requests[2][0] if m["role"] == "tool"]
    assert not tool_msgs[0]["content"].startswith("Error")
    assert "BUILD SUCCESS" in tool_msgs[1]["content"]
    saved = json.loads(outcome.trajectory_path.read_text())
    assert saved["tool_counts"] == {replace: 1, label["run_build"]: 1}
    assert saved["meta"]["config"]["mask"] == "both"


@pytest.mark.parametrize(
    ("answer", "reason", "error"),
    [
        (block("src/failed_jobs/Job.java", "class Job {}", "class Job { }"),
         "coding assistant answered", False),
        ("I would change Job.java.", "coding assistant answered without edits", True),
        (block("src/failed_jobs/Job.java", "class Nope {}", "class Job { }"),
         "coding assistant edits did not all apply", True),
    ],
)  # fmt: skip
def test_coding_assistant_stop_reason_follows_what_applied(tmp_path, monkeypatch, answer, reason, error):
    """No build here: the verdict is not the point, the record of the edits is."""
    (tmp_path / "src/failed_jobs").mkdir(parents=True)
    (tmp_path / "src/failed_jobs/Job.java").write_text("class Job {}\n")
    log = tmp_path / "build.log"
    log.write_text("[ERROR] src/failed_jobs/Job.java:[1,1] something failed\n")
    initial = BuildResult("failure", 1, 0.1, "maven", ["mvn", "package"], None, str(log),
                          output_tail=log.read_text())  # fmt: skip
    ctx = tool_context(tmp_path, "maven")
    model = ScriptedModel([{"content": answer}, {"content": answer}])
    use(monkeypatch, model)
    trajectory = Trajectory(None)
    env = AttemptContext(ctx, AgentSettings(model="scripted:unused"), trajectory, initial, lambda: initial,
                     factory.make_model)  # fmt: skip
    got = CodingAssistantAgent().run(env)
    assert got.detail == reason and got.kind == "model_finished"
    assert trajectory.steps[0].tool_results[0].error is error
    # An answer whose edits could not be used is answered once with what went wrong, then it ends.
    assert trajectory.llm_calls() == (2 if error else 1)
    if error:
        retry = model.requests[1][0][-1]
        assert retry["role"] == "user" and ("no edits" in retry["content"] or "SEARCH" in retry["content"])
        assert trajectory.messages[-2] == retry
