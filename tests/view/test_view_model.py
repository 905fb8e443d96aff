"""The viewer's data: attempt rows, outcomes, the attempt and instance pages, torn lines, capped texts."""

import json
from pathlib import Path

import pytest
from view_runs import XSS, make_run_a

from buildfixer.core.errors import BuildfixerError
from buildfixer.view.attempt import attempt_page
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
    with pytest.raises(BuildfixerError, match="not a run directory"):
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
