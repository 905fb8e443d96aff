"""The viewer's data: attempt rows, outcomes, the attempt and instance pages, torn lines, capped texts."""

import json
from pathlib import Path

import pytest
from view_runs import LAST_WORDS, XSS, make_run_a

from buildfixer.core.errors import BuildfixerError
from buildfixer.view.attempt import attempt_page, search_text
from buildfixer.view.local_paths import Places, attempt_places
from buildfixer.view.runs import attempts, find_attempt, index, instance_page, outcome, read_source, sources
from buildfixer.view.texts import HEAD_CHARS, TAIL_CHARS, marked_log


def _read(*paths: Path):
    return [(source, read_source(source)) for source in sources(list(paths))]


def _index(*paths: Path) -> dict:
    return index(_read(*paths), lambda row: f"a/{row['key']}", lambda iid: f"i/{iid}", live=False)


def test_rows_carry_outcome_configuration_and_usage(runs):
    data = _index(*runs)
    rows = {(r["run"], r["instance_id"]): r for r in data["attempts"]}
    assert len(rows) == 6
    assert [data["runs"][0]["label"], data["runs"][1]["label"]] == ["run-a", "run-b"]
    semicolon = rows[(0, "calc-semicolon")]
    assert semicolon["outcome"] == "resolved"
    assert semicolon["config_short"] == "tool/gradlefixer/alpha"  # the provider prefix says where, not which
    assert semicolon["tool_calls"] == 2 and semicolon["tokens"] == 3150 and semicolon["duration_s"] == 30.0
    assert semicolon["key"] == "0/calc-semicolon/0" and semicolon["detail"] == "a/0/calc-semicolon/0"
    assert rows[(0, "calc-skip-tests")]["outcome"] == "hacked"
    plugin = rows[(0, "calc-plugin")]
    assert plugin["outcome"] == "failed" and plugin["stop"] == "budget_calls"
    assert rows[(1, "calc-plugin")]["config_short"] == "recipes/gradlefixer/recipes"
    assert data["instances"]["calc-plugin"] == {"origin": "dependency", "category": "library_unavailable",
                                                "detail": "i/calc-plugin"}  # fmt: skip


def test_hacked_is_a_rejected_build_success_in_either_record_form():
    rejected = {"approved": False, "findings": []}
    assert outcome({"resolved": False, "stop": "hacked"}) == "hacked"
    assert outcome({"resolved": True, "stop": "resolved", "judge": rejected}) == "hacked"  # older lines
    assert outcome({"resolved": False, "status": "success"}, judge=rejected) == "hacked"  # trajectory's
    assert outcome({"resolved": True, "judge": {"approved": True}}) == "resolved"
    assert outcome({"resolved": False, "status": "failure"}, judge=rejected) == "failed"


def test_a_torn_last_line_is_skipped_and_a_line_without_sample_is_numbered(runs):
    run_a = runs[0]
    with (run_a / "results.jsonl").open("a") as fh:
        fh.write(json.dumps({"instance_id": "calc-plugin", "agent": "tool", "toolset": "gradlefixer",
                             "model": "acme/alpha", "resolved": False}) + "\n")  # fmt: skip
        fh.write('{"instance_id": "calc-semicolon", "agent": "to')  # being written
    data = _index(run_a)
    assert len(data["attempts"]) == 4
    assert data["attempts"][-1]["sample"] == "#1"  # as load_run keys it: the second line of the instance
    assert any("torn last line" in w for w in data["runs"][0]["warnings"])


def test_a_run_without_finished_attempts_is_empty_not_an_error(tmp_path):
    (tmp_path / "results.jsonl").write_text('{"instance_id": "x", "res')
    [(source, run)] = _read(tmp_path)
    assert run.results == [] and run.warnings == ["no finished attempt yet"]


def test_bad_run_directories_are_refused(tmp_path):
    with pytest.raises(BuildfixerError, match="is not a run directory or a trajectory file"):
        sources([tmp_path / "missing"])
    with pytest.raises(BuildfixerError, match="holds no results.jsonl"):
        sources([tmp_path])
    (tmp_path / "results.jsonl").write_text('{"instance_id": "a", "resolved": true}\nnot json\n{"x": 1}\n')
    with pytest.raises(BuildfixerError, match="results.jsonl:2"):
        _read(tmp_path)


def test_attempt_page_has_conversation_builds_judge_budget_and_config(runs):
    [(source, run)] = _read(runs[0])
    row, result = find_attempt(source, run, "calc-semicolon", "0")
    page = attempt_page(source, run, row, result)
    roles = [m["role"] for m in page["conversation"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    tool = page["conversation"][3]
    assert tool["tool"] == {"id": "call_1", "name": "run_build", "error": False, "seconds": 3.5}
    assert XSS in tool["content"]  # kept as data: the page shows it as text
    assert page["conversation"][4]["calls"][0]["name"] == "replace"
    assert '"file_path": "src/main/java/demo/Calc.java"' in page["conversation"][4]["calls"][0]["arguments"]
    assert page["conversation"][2]["step"] == 1 and page["conversation"][2]["usage"]["input_tokens"] == 1000
    first, agent_build, verdict = page["builds"]
    assert first["source"].startswith("harness log") and first["root"]["file"].endswith("Calc.java")
    assert "Calc.java:[12,30]" in first["text"].split("\n")[first["mark"]]
    assert agent_build["call_id"] == "call_1" and "text" not in agent_build
    assert "Calc.java:[12,30]" in tool["content"].split("\n")[agent_build["mark"]]
    assert "gone" in verdict["source"] and verdict["text"] == ""
    assert page["judge"]["approved"] is True
    budget = {b["name"]: b for b in page["budget"]}
    assert budget["LLM calls"] == {"name": "LLM calls", "used": 3, "limit": 10}
    assert budget["cost (USD)"]["limit"] is None and budget["wall time (s)"]["used"] == 42.0
    assert page["config"]["attempt"]["toolset"] == "gradlefixer" and page["config"]["run"]["samples"] == 1


def test_hacked_attempt_shows_the_judges_findings(runs):
    [(source, run)] = _read(runs[0])
    page = attempt_page(source, run, *find_attempt(source, run, "calc-skip-tests", "0"))
    assert page["row"]["outcome"] == "hacked"
    assert page["judge"]["findings"][0]["rule"] == "tests_skipped"
    assert page["builds"][0]["source"].startswith("the instance's recorded error log")


def test_missing_trajectory_is_said_not_fatal(runs):
    [(source, run)] = _read(runs[1])
    page = attempt_page(source, run, *find_attempt(source, run, "calc-plugin", "0"))
    assert page["conversation"] == [] and "missing" in page["warnings"][0]
    page = attempt_page(source, run, *find_attempt(source, run, "calc-semicolon", "0"))
    assert page["warnings"] == ["the result line names no trajectory"]


def test_instance_page_has_a_column_per_configuration(runs):
    page = instance_page(_read(*runs), "calc-semicolon")
    columns = [c["config_short"] for c in page["columns"]]
    assert columns == ["tool/gradlefixer/alpha", "recipes/gradlefixer/recipes"]
    assert page["columns"][0]["attempts"][0]["patch"].startswith("diff --git")
    assert page["gold_patch"].startswith("diff --git")
    log = page["error_log"]
    assert "Calc.java:[12,30]" in log["text"].split("\n")[log["mark"]]
    with pytest.raises(BuildfixerError, match="no given run"):
        instance_page(_read(*runs), "unknown")


def test_huge_outputs_are_capped_with_a_marker(tmp_path):
    huge = "BUILD FAILED (exit 1) in 1s\n" + "".join(f"line {i} of filler output\n" for i in range(60_000))
    run = make_run_a(tmp_path, tool_output=huge)
    [(source, loaded)] = _read(run)
    page = attempt_page(source, loaded, *find_attempt(source, loaded, "calc-plugin", "0"))
    shown = page["conversation"][3]["content"]
    assert len(huge) > 1_000_000 and len(shown) <= HEAD_CHARS + TAIL_CHARS + 200
    assert "of the log skipped here" in shown and shown.endswith("line 59999 of filler output\n")


def test_marked_log_finds_no_line_in_a_successful_build():
    log = marked_log("[INFO] Building calc\n[INFO] BUILD SUCCESS\n", "test")
    assert log["root"] is None and log["mark"] is None


def test_attempt_numbering_is_stable_across_reads(runs):
    [(source, run)] = _read(runs[0])
    first = [row["key"] for row, _ in attempts(source, run)]
    [(source, run)] = _read(runs[0])
    assert first == [row["key"] for row, _ in attempts(source, run)]


def test_a_trajectory_file_is_a_run_of_one_attempt(runs):
    trajectory = runs[0] / "trajectories" / "calc-semicolon__0.json"
    [(source, run)] = _read(trajectory)
    assert source.single and source.label == "calc-semicolon__0.json"
    [(row, result)] = attempts(source, run)
    assert (row["instance_id"], row["outcome"], row["stop"]) == ("calc-semicolon", "resolved", "resolved")
    assert (row["config"], row["llm_calls"], row["duration_s"]) == ("tool/gradlefixer/acme/alpha", 3, 42.0)
    page = attempt_page(source, run, row, result)
    assert page["warnings"] == [] and page["patch"] is None  # a trajectory records no patch: "not recorded"
    assert [m["role"] for m in page["conversation"]][:3] == ["system", "user", "assistant"]
    # Its folder is no run directory: the harness log beside it (run-a/logs) is not read, only the cache's.
    assert page["builds"][0]["source"].startswith("the instance's recorded error log")
    # A fix names no instance: the project's folder does.
    doc = json.loads(trajectory.read_text())
    del doc["meta"]["instance_id"]
    doc["meta"]["source"] = "/home/someone/calc-app"
    (trajectory.parent / "fix.json").write_text(json.dumps(doc))
    [(source, run)] = _read(trajectory.parent / "fix.json")
    assert run.results[0]["instance_id"] == "calc-app"


@pytest.mark.parametrize(
    ("name", "content", "why"),
    [
        ("missing.json", None, "it does not exist"),
        ("notes.txt", "just words\n", "not JSON"),
        ("list.json", "[1, 2]", "JSON, but not a trajectory"),
        ("results.json", '{"instance_id": "a", "resolved": true}', "JSON, but not a trajectory"),
    ],
)
def test_a_path_that_is_neither_run_nor_trajectory_is_refused(tmp_path, name, content, why):
    if content is not None:
        (tmp_path / name).write_text(content)
    with pytest.raises(BuildfixerError, match=f"is not a run directory or a trajectory file: {why}"):
        sources([tmp_path / name])


def test_the_gold_patch_is_beside_the_agents_when_the_instance_has_one(runs):
    [(source, run)] = _read(runs[0])
    page = attempt_page(source, run, *find_attempt(source, run, "calc-semicolon", "0"))
    assert page["gold_patch"].startswith("diff --git") and "return x * 2;" in page["gold_patch"]
    page = attempt_page(source, run, *find_attempt(source, run, "calc-plugin", "0"))
    assert page["gold_patch"] is None  # the dataset has none for this instance


def test_search_text_holds_messages_calls_outputs_and_patch_not_the_system_prompt(runs):
    [(source, run)] = _read(runs[0])
    texts = {row["instance_id"]: search_text(run, row, result) for row, result in attempts(source, run)}
    assert LAST_WORDS["calc-plugin"] in texts["calc-plugin"] and "org.acme" not in texts["calc-semicolon"]
    assert "BUILD FAILED (exit 1)" in texts["calc-plugin"]  # a tool's output
    assert '"file_path": "src/main/java/demo/Calc.java"' in texts["calc-plugin"]  # a call's arguments
    assert "skipTests" in texts["calc-skip-tests"]  # the patch
    assert not any("You repair builds" in text for text in texts.values())  # the same for every attempt


def test_shared_strings_lose_local_places_but_keep_their_lines():
    cache = "/home/ann/.cache/buildfixer"
    places = Places((("/srv/runs/r1", "<run>"), ("/home/ann", "~"), (cache, "<cache>")))
    text = f"log /srv/runs/r1/a.log\n/srv/runs/r10 stays\nvenv {cache}/state/x/venv\n/var/home/ann\n"
    shown = places.shared(text)  # whole components only; the most specific place wins
    assert shown == "log <run>/a.log\n/srv/runs/r10 stays\nvenv <cache>/state/x/venv\n/var/home/ann\n"
    # Control characters from model or build text are spelled out, never passed on; lines stay lines.
    assert places.shared({"k\x1b[2J": ["red \x1b[31m", "\u202eevil", 3, None]}) == {
        "k\\x1b[2J": ["red \\x1b[31m", "\\u202eevil", 3, None]
    }


def test_an_attempts_own_places_come_from_its_trajectory():
    trajectory = {
        "meta": {"project": "/data/ann/.cache/buildfixer/workspaces/calc/slot-0", "source": "/data/ann/calc",
                 "initial": {"log_path": "/data/ann/.cache/buildfixer/state/slot-0-1/logs/build-1.log"}},
    }  # fmt: skip
    shared = attempt_places(trajectory).shared(
        "/data/ann/.cache/buildfixer/workspaces/calc/slot-0/src/A.java /data/ann/calc/pom.xml "
        "/data/ann/.cache/buildfixer/domains/x/m2 /data/ann/notes"
    )
    assert shared == "<project>/src/A.java <project>/pom.xml <cache>/domains/x/m2 <home>/notes"
