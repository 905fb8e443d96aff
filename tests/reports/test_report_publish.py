"""Reports worth publishing: short labels, intervals, per-instance rows, behaviour analyses, CSV and LaTeX."""

import csv
import io
import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from buildfixer.bench.progress_bar import attempt_line
from buildfixer.bench.rundir import model_name
from buildfixer.cli.main import app
from buildfixer.core.errors import BuildfixerError
from buildfixer.logs.keywords import keyword_category
from buildfixer.reports.compare import compare_command
from buildfixer.reports.formats import latex_escape, render_markdown
from buildfixer.reports.passk import bootstrap_ci, pass_at_k
from buildfixer.reports.plots import pass_at_k_svg
from buildfixer.reports.run_report import build_report, load_run, render, report_command
from buildfixer.reports.trajectory_stats import token_kinds, tool_sequence

LOG_SYNTAX = (
    "src/main/java/a/App.java:3: error: ';' expected\n        int x = 1\n                 ^\n1 error\n"
)
LOG_DEPS = "Could not resolve all dependencies for configuration ':app:compileClasspath'.\n"
INSTANCES = [
    {"instance_id": "p/one", "origin": "human", "category": "syntax", "lines_changed": 10,
     "error_log": LOG_SYNTAX},
    {"instance_id": "two", "origin": "dependency", "category": "library_unavailable", "lines_changed": 3,
     "error_log": LOG_DEPS},
]  # fmt: skip


def step(tool: str, arguments: str, output: str, seconds: float = 0.1, content: str | None = None) -> dict:
    reply = {"role": "assistant", "content": content, "tool_calls": [{"id": "c", "type": "function",
             "function": {"name": tool, "arguments": arguments}}]}  # fmt: skip
    return {"index": 1, "reply": reply, "tool_results": [{"id": "c", "name": tool, "arguments": arguments,
            "output": output, "error": False, "seconds": seconds}]}  # fmt: skip


def trajectory(tools: list[tuple[str, float]]) -> dict:
    steps = [step(name, '{"path": "build.gradle"}', "x" * 400, seconds) for name, seconds in tools]
    steps.append(
        {"index": len(steps) + 1, "reply": {"role": "assistant", "content": "done " * 20}, "tool_results": []}
    )
    messages = [{"role": "system", "content": "s" * 800}, {"role": "user", "content": "u" * 1200}]
    return {"format": 1, "messages": messages, "steps": steps}


def row(iid: str, sample: int, resolved: bool, model: str, stop: str, validation_s: float) -> dict:
    return {"instance_id": iid, "agent": "tool", "toolset": "gradlefixer", "model": model, "sample": sample,
            "resolved": resolved, "status": "success" if resolved else "failure", "stop": stop,
            "llm_calls": 3, "tool_counts": {}, "duration_s": 9.0, "patch": "", "validation_s": validation_s,
            "trajectory": f"trajectories/{iid.replace('/', '_')}__{sample}.json"}  # fmt: skip


def make_run(path: Path, model: str = "openai/gpt-4.1-mini") -> Path:
    (path / "trajectories").mkdir(parents=True)
    rows = [
        row("p/one", 0, True, model, "resolved", 4.0),
        row("p/one", 1, False, model, "budget_calls", 5.0),
        row("two", 0, False, model, "model_finished", 6.0),
        row("two", 1, False, model, "model_finished", 7.0),
    ]
    plans = [[("read_file", 0.0), ("replace", 0.0), ("run_build", 3.0)],
             [("read_file", 0.0), ("run_build", 5.0), ("read_file", 0.0), ("run_build", 8.0)],
             [("glob", 0.0)], [("glob", 0.0), ("read_file", 0.0)]]  # fmt: skip
    for r, plan in zip(rows, plans, strict=True):
        (path / r["trajectory"]).write_text(json.dumps(trajectory(plan)))
    (path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (path / "instances.jsonl").write_text("".join(json.dumps(i) + "\n" for i in INSTANCES))
    (path / "config.json").write_text(json.dumps({"agent": "tool", "model": model, "toolset": "gradlefixer",
                                                  "samples": 2}))  # fmt: skip
    return path


def test_short_labels_drop_provider_and_path() -> None:
    assert model_name("openai/gpt-4.1") == "gpt-4.1"
    assert model_name("scripted:src/buildfixer/bench/data/scripts") == "scripted:scripts"
    assert model_name("openai/gpt-4.1-mini,gemini/gemini-2.5-pro") == "gpt-4.1-mini,gemini-2.5-pro"
    assert model_name("recipes") == "recipes"


def test_report_sections(tmp_path: Path) -> None:
    report = build_report(load_run(make_run(tmp_path / "run")))
    config = report["configurations"][0]
    assert config["label"] == "tool/gradlefixer/gpt-4.1-mini"
    assert config["spec"] == "tool/gradlefixer/openai/gpt-4.1-mini"
    # Bootstrap over the two instances: pass@1 per instance is 0.5 and 0.0; resamples mean 0, .25 or .5.
    low, high = config["pass_at_k_ci"]["1"]
    assert (low, high) == (0.0, 0.5)
    rows = {r["instance_id"]: r for r in report["instances"]}
    cell = rows["p/one"]["configurations"]["tool/gradlefixer/gpt-4.1-mini"]
    assert (cell["attempts"], cell["resolved"], cell["stops"]) == (2, 1, ["resolved", "budget_calls"])
    assert rows["p/one"]["tier"] == "Trivial"  # 10 lines: the 1-10 tier, as in the histogram's bin
    stats = report["analyses"]["tool/gradlefixer/gpt-4.1-mini"]
    assert stats["trajectories"] == 4
    nxt = stats["transitions"]["next"]
    # read_file is followed by replace once, run_build twice, and ends one trajectory.
    assert nxt["read_file"] == {"run_build": 0.5, "replace": 0.25, "(end)": 0.25}
    assert nxt["(start)"] == {"glob": 0.5, "read_file": 0.5}
    assert stats["turns"]["success"]["n"] == 1 and stats["turns"]["success"]["mean"] == 4.0
    assert stats["turns"]["failure"]["mean"] == pytest.approx((5 + 2 + 3) / 3)
    assert stats["build_s"]["n"] == 3 and stats["build_s"]["max"] == 8.0
    assert stats["validation_s"]["median"] == 5.5
    assert sum(stats["tokens"]["all"].values()) == pytest.approx(1.0)
    taxonomy = report["keyword_taxonomy"]
    assert taxonomy["counts"]["library_unavailable"] == {"Dependency-Related": 1}
    assert taxonomy["counts"]["syntax"] == {"Other": 1}


def test_markdown_links_intervals_and_no_nan(tmp_path: Path) -> None:
    report = build_report(load_run(make_run(tmp_path / "run")), label="GF mini")
    md = render_markdown(report)
    assert md.startswith("# Benchmark report: GF mini")
    assert "[p/one](view/index.html#/instance/p%2Fone)" in md
    assert "| GF mini | 25.0 [0.0, 50.0] | 50.0 [0.0, 100.0] |" in md
    assert "| 1/2 (budget_calls) |" in md and "| 0/2 (model_finished) |" in md
    assert "## Next tool (%): GF mini" in md and "## Turns per trajectory" in md
    assert "## Tokens by kind (%)" in md and "| system_prompt |" in md
    assert "## Root errors: our taxonomy and the keyword taxonomy" in md
    assert "NaN" not in md


def test_csv_and_latex_written_and_announced(tmp_path: Path, capsys) -> None:
    run = make_run(tmp_path / "run")
    assert report_command(run, "csv") == 0
    out = capsys.readouterr().out
    assert out.startswith("wrote ") and str(run / "report-csv") in out and "<" not in out
    files = sorted((run / "report-csv").iterdir())
    instances = next(f for f in files if f.name.endswith("-instances.csv"))
    parsed = list(csv.reader(io.StringIO(instances.read_text())))
    assert parsed[0][:5] == ["Instance", "Origin", "Category", "Tier", "Lines"]
    assert [r[0] for r in parsed[1:]] == ["p/one", "two"]
    report_command(run, "csv")  # rewritten whole, never merged
    capsys.readouterr()
    assert sorted((run / "report-csv").iterdir()) == files
    assert not [p for p in run.iterdir() if p.name.startswith(".")]
    report_command(run, "latex")
    assert capsys.readouterr().out == f"wrote the latex report to {run / 'report.tex'}\n"
    tex = (run / "report.tex").read_text()
    assert tex.count("\\begin{tabular}") == len(files) and "\\toprule" in tex
    assert "budget\\_calls" in tex and "NaN" not in tex
    assert latex_escape("50% of $x_1 & {y}") == r"50\% of \$x\_1 \& \{y\}"


def test_html_report_prints_its_path_not_the_page(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    result = CliRunner().invoke(app, ["bench", "report", str(run), "--format", "html", "--label", "mini"])
    assert result.exit_code == 0
    assert result.stdout == f"wrote the html report to {run / 'report.html'}\n"
    page = (run / "report.html").read_text()
    assert '<a href="view/index.html#/instance/two">two</a>' in page and "Benchmark report: mini" in page
    assert 'style="background: rgba(37, 99, 235, 0.80)"' in page  # a transition taken every time: darkest


def test_compare_labels_formats(tmp_path: Path, capsys) -> None:
    first, second = make_run(tmp_path / "a"), make_run(tmp_path / "b", model="scripted:x/y/scripts")
    assert compare_command([first, second], "md", labels=["mini", "replay"]) == 0
    md = capsys.readouterr().out
    assert "| mini | 25.0 | 50.0 |" in md and "| replay | 25.0 | 50.0 |" in md
    with pytest.raises(BuildfixerError, match="give --out"):
        compare_command([first, second], "csv")
    with pytest.raises(BuildfixerError, match="3 labels for 2 run directories"):
        compare_command([first, second], "md", labels=["a", "b", "c"])
    assert compare_command([first, second], "csv", tmp_path) == 0
    assert (tmp_path / "compare-csv").is_dir() and "wrote the tables as CSV" in capsys.readouterr().out


def test_bootstrap_interval_holds_the_estimate() -> None:
    counts = {i: (4, i % 3) for i in range(60)}
    ci = bootstrap_ci(counts, [1, 2, 8])
    mean = sum(pass_at_k(n, c, 1) for n, c in counts.values()) / len(counts)
    low, high = ci[1]
    assert low < mean < high and high - low < 0.25
    assert ci[8] is None  # 4 attempts cannot estimate pass@8
    assert bootstrap_ci(counts, [1])[1] == ci[1]  # a fixed seed: the same report twice
    assert bootstrap_ci({}, [1]) == {1: None}
    assert not math.isnan(low)


def test_trajectory_pieces() -> None:
    traj = trajectory([("read_file", 0.0), ("run_build", 2.0)])
    assert tool_sequence(traj) == ["read_file", "run_build"]
    kinds = token_kinds(traj)
    assert kinds["system_prompt"] == 200 and kinds["user_prompt"] == 300
    assert kinds["read_file_response"] == 100 and kinds["tool_call:run_build"] > 0


def test_keyword_rules_first_match_wins() -> None:
    assert keyword_category("Could not resolve all dependencies for configuration") == "Dependency-Related"
    assert keyword_category("There were failing tests") == "Test"
    assert keyword_category("the latest release") == "Other"
    assert keyword_category("Permission denied") == "Permission"


def test_progress_line_names_the_stop_kind() -> None:
    line = attempt_line(
        {"instance_id": "x", "sample": 1, "resolved": False, "status": "failure", "stop": "budget_calls"}
    )
    assert "x #1 (failure, budget_calls)" in line
    done = {"instance_id": "y", "sample": 0, "resolved": True, "status": "success", "stop": "resolved"}
    assert attempt_line(done).endswith("y #0 (success)")


def test_bundled_dataset_by_name(tmp_path: Path) -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["bench", "datasets", "--json"])
    named = {entry["name"]: entry for entry in json.loads(listed.stdout)}
    assert Path(named["bundled"]["path"]).is_file() and named["bundled"]["instances"] >= 17
    assert Path(named["scripted:bundled"]["path"]).is_dir()
    # The name reaches the dataset (the refusal is about --only), a wrong name does not.
    found = runner.invoke(app, ["bench", "validate", "bundled", "--only", "no-such-*"])
    assert isinstance(found.exception, BuildfixerError) and "no instance matches" in str(found.exception)
    lost = runner.invoke(app, ["bench", "validate", "bundledx", "--only", "no-such-*"])
    assert "no such dataset: bundledx" in str(lost.exception)


def test_one_sample_plot_shows_each_estimate_with_its_interval() -> None:
    # k = 1 only: two configurations must not be drawn on top of each other, and each shows its interval.
    svg = pass_at_k_svg(
        {"a": {"1": 0.5}, "b": {"1": 0.5}}, intervals={"a": {"1": [0.25, 0.75]}, "b": {"1": None}}
    )
    xs = re.findall(r'<circle cx="([\d.]+)"', svg)
    assert len(xs) == 2 and xs[0] != xs[1]
    whiskers = re.findall(r'<line class="ci" x1="([\d.]+)" y1="([\d.]+)" x2="[\d.]+" y2="([\d.]+)"', svg)
    assert len(whiskers) == 1 and whiskers[0][0] == xs[0]
    assert float(whiskers[0][1]) > float(whiskers[0][2])  # low rate lower on the page


def test_reports_and_comparisons_name_no_path_of_this_machine(tmp_path: Path, capsys) -> None:
    local_model = f"openai/{Path.home()}/.cache/models/qwen-1.5b.gguf"  # a model served from a local file
    first, second = make_run(tmp_path / "a", model=local_model), make_run(tmp_path / "b")
    for fmt in ("md", "json", "html", "latex", "csv"):
        report_command(first, fmt)
    written = [first / name for name in ("report.md", "report.json", "report.html", "report.tex")]
    written += sorted((first / "report-csv").iterdir())
    compare_command([first, second], "json", tmp_path / "compare.json")
    written.append(tmp_path / "compare.json")
    for path in written:
        text = path.read_text()
        assert str(tmp_path) not in text and f"{Path.home()}/" not in text, path.name
    report = json.loads((first / "report.json").read_text())
    assert report["run_dir"] == "<tmp>/" + str(first.relative_to(tempfile.gettempdir()))
    shared_model = "openai/<home>/.cache/models/qwen-1.5b.gguf"
    assert report["config"]["model"] == shared_model
    assert report["configurations"][0]["spec"] == f"tool/gradlefixer/{shared_model}"
    # A placeholder shows as written: not a tag to Markdown, not "¡tmp¿" to LaTeX.
    assert "| Run directory | \\<tmp>/" in (first / "report.md").read_text()
    assert "Run directory & \\textless{}tmp\\textgreater{}/" in (first / "report.tex").read_text()
    assert "<td>&lt;tmp&gt;/" in (first / "report.html").read_text()
    capsys.readouterr()


def test_the_verdict_build_row_says_when_verdicts_were_reused(tmp_path: Path) -> None:
    # A result line records a verdict build of its own in validation_s; `bench run` writes none when
    # the attempt's last build stood as the verdict. An attempt that crashed reached no verdict.
    run = make_run(tmp_path / "run")
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    for row in rows[1:]:
        del row["validation_s"]
    rows[3]["stop"] = "crashed"
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = build_report(load_run(run))
    assert report["analyses"]["tool/gradlefixer/gpt-4.1-mini"]["verdicts_reused"] == 2
    assert "| tool/gradlefixer/gpt-4.1-mini | verdict build | 1 (2 reused) | 4.0 |" in render_markdown(report)
    rows[0]["verdict_reused"] = True  # a line that says so, with the reused build's time
    (run / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    md = render_markdown(build_report(load_run(run)))
    assert "| tool/gradlefixer/gpt-4.1-mini | verdict build | reused | – |" in md
    assert "reused: the attempt's last build was of the repair as it stands" in md


@pytest.mark.slow
def test_a_real_run_whose_verdict_was_the_agents_last_build_reports_it_reused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # The bundled script of this instance edits, runs the build, then finishes: that build is the verdict.
    run = [sys.executable, "-m", "buildfixer", "bench", "run", "bundled", "--agent", "tool",
           "--model", "scripted:bundled", "--only", "semverkit-elif-colon", "--out", str(out)]  # fmt: skip
    done = subprocess.run(run, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (row,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert row["verdict_reused"] is True and row["validation_s"] == 0 and row["build_s"] > 0  # recorded
    oracle = tmp_path / "oracle"  # applies the gold patch and builds nothing itself: the verdict is built
    command = [*run[:7], "oracle", "--only", "semverkit-elif-colon", "--out", str(oracle)]  # --agent oracle
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    (built,) = [json.loads(line) for line in (oracle / "results.jsonl").read_text().splitlines()]
    assert built["verdict_reused"] is False and built["validation_s"] > 0, done.stderr[-2000:]
    assert report_command(out, "md") == 0
    md = (out / "report.md").read_text()
    assert "| tool/gradlefixer/scripted:scripts | verdict build | reused |" in md
    assert "| tool/gradlefixer/scripted:scripts | builds by tools | 1 |" in md
    report = json.loads(render(build_report(load_run(out)), "json"))
    assert report["config"]["model"] == "scripted:<buildfixer>/bench/data/scripts"  # no path of this machine
    assert str(tmp_path) not in md + json.dumps(report)


def test_an_html_comparison_named_without_a_suffix_gets_html(tmp_path: Path) -> None:
    first, second = make_run(tmp_path / "a"), make_run(tmp_path / "b")
    compare = ["bench", "compare", str(first), str(second), "--format", "html", "--out"]
    result = CliRunner().invoke(app, [*compare, str(tmp_path / "comparison")])
    assert result.exit_code == 0
    assert result.stdout == f"wrote the html comparison to {tmp_path / 'comparison.html'}\n"
    assert (tmp_path / "comparison.html").read_text().startswith("<!DOCTYPE html>")
    assert not (tmp_path / "comparison").exists()
    assert CliRunner().invoke(app, [*compare, str(tmp_path / "named.htm")]).exit_code == 0  # a suffix: kept
    assert (tmp_path / "named.htm").is_file() and not (tmp_path / "named.htm.html").exists()
