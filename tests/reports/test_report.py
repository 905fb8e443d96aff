"""Reports and comparisons of synthetic run directories, every number checked by hand."""

import json
import logging
import math
import re
from pathlib import Path

import pytest

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.stops import StopKind
from buildfixer.reports.compare import compare_command, compare_runs, render_compare
from buildfixer.reports.plots import histogram_svg, pass_at_k_svg
from buildfixer.reports.run_report import (
    build_report,
    load_run,
    render_html,
    render_markdown,
    report_command,
    tier_of,
    write_report,
)

INSTANCES = [
    {"instance_id": "a", "origin": "human", "category": "syntax", "lines_changed": 5, "files_changed": 1},
    {"instance_id": "b", "origin": "llm", "category": "configuration", "lines_changed": 50,
     "files_changed": 3},
    {"instance_id": "c", "origin": "dependency", "category": "library_unavailable", "lines_changed": 2000,
     "files_changed": 20},
    {"instance_id": "d", "origin": "human", "category": "syntax", "lines_changed": 150, "files_changed": 4},
]  # fmt: skip
# (instance, sample) -> resolved; a: 2/2, b: 1/2, c: 0/2, d: 1/2
OUTCOMES = {("a", 0): True, ("a", 1): True, ("b", 0): True, ("b", 1): False,
            ("c", 0): False, ("c", 1): False, ("d", 0): False, ("d", 1): True}  # fmt: skip


def result(iid: str, sample: int, resolved: bool, model: str = "scripted", **extra: object) -> dict:
    row = {
        "instance_id": iid, "agent": "tool", "toolset": "gradlefixer", "model": model, "sample": sample,
        "resolved": resolved, "status": "success" if resolved else "failure",
        "llm_calls": 2 if resolved else 6, "input_tokens": 1000 if resolved else 4000,
        "output_tokens": 100 if resolved else 300, "cost_usd": 0.01 if resolved else 0.05,
        "tool_counts": {"run_build": 1, "replace": 1} if resolved
        else {"run_build": 2, "read_file": 2, "glob": 0},
        "duration_s": 10.0, "patch": "", "trajectory": f"trajectories/{iid}-{sample}.json",
    }  # fmt: skip
    row.update(extra)
    return row


def write_run(path: Path, rows: list[dict], instances: list[dict] | None = INSTANCES, tail: str = "",
              config: dict | None = None) -> Path:  # fmt: skip
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + tail)
    if instances is not None:
        (path / "instances.jsonl").write_text("".join(json.dumps(i) + "\n" for i in instances))
    if config is not None:
        (path / "config.json").write_text(json.dumps(config))
    return path


def standard_rows(model: str = "scripted") -> list[dict]:
    rows = []
    for (iid, sample), ok in OUTCOMES.items():
        extra: dict = {}
        if (iid, sample) == ("c", 1):
            extra = {"llm_calls": 10, "input_tokens": 8000, "cost_usd": 0.09, "status": "timeout"}
        rows.append(result(iid, sample, ok, model=model, **extra))
    return rows


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    rows = standard_rows()
    # An earlier, superseded line for (a, 0) and a torn last line from a kill.
    rows.insert(0, result("a", 0, False))
    config = {"agent": "tool", "model": "scripted", "toolset": "gradlefixer", "samples": 2, "mask": "none"}
    return write_run(tmp_path / "run", rows, tail='{"instance_id": "b", "sample": 2, "reso', config=config)


def test_load_run_keeps_last_duplicate_and_skips_torn_line(run_dir: Path, caplog) -> None:
    with caplog.at_level(logging.WARNING):
        run = load_run(run_dir)
    assert len(run.results) == 8
    assert next(r for r in run.results if (r["instance_id"], r["sample"]) == ("a", 0))["resolved"] is True
    assert any("torn last line 10" in w for w in run.warnings)
    assert any("1 duplicate" in w for w in run.warnings)
    assert "torn last line" in caplog.text and "duplicate" in caplog.text
    assert set(run.instances) == {"a", "b", "c", "d"} and run.config["samples"] == 2


def test_pass_at_k_sections(run_dir: Path) -> None:
    report = build_report(load_run(run_dir))
    assert report["n_instances"] == 4 and report["samples"] == 2 and report["ks"] == [1, 2]
    assert report["attempts"] == 8 and report["resolved_attempts"] == 4
    passk = report["pass_at_k"]
    # pass@1 per instance = c/n: 1, .5, 0, .5; pass@2 = 1, 1, 0, 1
    assert passk["overall"] == {"1": pytest.approx(0.5), "2": pytest.approx(0.75)}
    assert passk["by_origin"] == {
        "dependency": {"1": 0.0, "2": 0.0},
        "human": {"1": pytest.approx(0.75), "2": 1.0},
        "llm": {"1": pytest.approx(0.5), "2": 1.0},
    }
    assert passk["by_category"]["syntax"] == {"1": pytest.approx(0.75), "2": 1.0}
    assert passk["by_category"]["configuration"] == {"1": pytest.approx(0.5), "2": 1.0}
    assert passk["by_category"]["library_unavailable"] == {"1": 0.0, "2": 0.0}
    assert report["group_sizes"]["by_origin"] == {"dependency": 1, "human": 2, "llm": 1}
    [config] = report["configurations"]
    assert config["label"] == "tool/gradlefixer/scripted" and config["pass_at_k"] == passk


def test_tool_usage_success_and_change_size(run_dir: Path) -> None:
    report = build_report(load_run(run_dir))
    usage = report["tool_usage"]["tool/gradlefixer/scripted"]
    # 4 resolved attempts x (run_build 1, replace 1) + 4 failed x (run_build 2, read_file 2); glob 0 dropped
    assert usage["total_calls"] == 24
    assert usage["counts"] == {"run_build": 12, "read_file": 8, "replace": 4}
    assert usage["share"] == pytest.approx({"run_build": 0.5, "read_file": 1 / 3, "replace": 1 / 6})
    success = report["success_by_category"]
    assert success["syntax"] == {"attempts": 4, "resolved": 3, "success_rate": 0.75}
    assert success["configuration"]["success_rate"] == 0.5
    assert success["library_unavailable"]["success_rate"] == 0.0
    fixed, failed = report["change_size"]["fixed"], report["change_size"]["failed"]
    assert fixed["attempts"] == 4 and failed["attempts"] == 4
    # fixed attempts: a, a, b, d -> lines 5, 5, 50, 150 (mean 52.5; squared deviations sum 14025)
    assert fixed["lines_changed"]["median"] == 27.5
    assert fixed["lines_changed"]["sd"] == pytest.approx(math.sqrt(14025 / 3))
    assert fixed["files_changed"]["median"] == 2.0  # 1, 1, 3, 4
    # failed attempts: b, c, c, d -> lines 50, 2000, 2000, 150
    assert failed["lines_changed"]["median"] == 1075.0
    assert failed["files_changed"]["median"] == 12.0  # 3, 20, 20, 4


def test_cost_tiers_histogram_and_status(run_dir: Path) -> None:
    report = build_report(load_run(run_dir))
    resolved, failed, every = (report["usage"][k] for k in ("resolved", "failed", "all"))
    assert resolved["attempts"] == 4 and resolved["llm_calls"]["mean"] == 2.0
    assert failed["llm_calls"]["mean"] == 7.0 and failed["llm_calls"]["median"] == 6.0  # 6, 6, 10, 6
    assert failed["input_tokens"]["mean"] == 5000.0 and failed["input_tokens"]["median"] == 4000.0
    assert failed["output_tokens"]["median"] == 300.0
    assert failed["cost_usd"]["mean"] == pytest.approx(0.06)
    assert failed["cost_usd"]["total"] == pytest.approx(0.24)
    assert every["cost_usd"]["total"] == pytest.approx(0.28) and every["attempts"] == 8
    tiers = {t["tier"]: t for t in report["difficulty_tiers"]}
    assert list(tiers) == ["Trivial", "Small", "Medium", "Large"]
    assert [tiers[n]["instances"] for n in tiers] == [1, 1, 1, 1]
    assert tiers["Trivial"]["share"] == 0.25 and tiers["Trivial"]["lines"] == "1–10"
    assert [tiers[n]["resolve_rate"] for n in tiers] == [1.0, 0.5, 0.5, 0.0]
    assert tiers["Large"]["lines"] == ">1000" and tiers["Large"]["attempts"] == 2
    hist = report["change_size_histogram"]
    assert hist["edges"] == [1, 3, 10, 30, 100, 300, 1000, 3000]
    assert hist["labels"] == ["1–3", "4–10", "11–30", "31–100", "101–300", "301–1000", "1001–3000"]
    assert hist["resolved"] == [0, 1, 0, 1, 1, 0, 0]  # a (5), b (50), d (150)
    assert hist["unresolved"] == [0, 0, 0, 0, 0, 0, 1]  # c (2000)
    assert report["status_counts"] == {"success": 4, "failure": 3, "timeout": 1}


def test_tiers_and_histogram_bins_agree_at_the_limits(tmp_path: Path) -> None:
    """10 lines is Trivial and sits in the 4-10 bin; 100 is Small, in 31-100; 1000 Medium, in 301-1000."""
    sizes = {"t10": 10, "s11": 11, "s100": 100, "m1000": 1000}
    instances = [{"instance_id": iid, "origin": "human", "category": "syntax", "lines_changed": n,
                  "files_changed": 1} for iid, n in sizes.items()]  # fmt: skip
    rows = [result(iid, 0, iid == "t10") for iid in sizes]
    report = build_report(load_run(write_run(tmp_path / "run", rows, instances)))
    tiers = {t["tier"]: t["instances"] for t in report["difficulty_tiers"]}
    assert tiers == {"Trivial": 1, "Small": 2, "Medium": 1, "Large": 0}
    hist = report["change_size_histogram"]
    counts = [r + u for r, u in zip(hist["resolved"], hist["unresolved"], strict=True)]
    assert dict(zip(hist["labels"], counts, strict=True)) == {
        "1–3": 0, "4–10": 1, "11–30": 1, "31–100": 1, "101–300": 0, "301–1000": 1,
    }  # fmt: skip
    assert hist["resolved"][1] == 1  # t10, the resolved one, in 4-10
    assert "(4–10)" in render_html(report)


def test_attempts_by_stop_kind(tmp_path: Path) -> None:
    rows = standard_rows()
    # a0 a1 b0 resolved; b1 c0 c1 d0 not (c1: a line from before stop kinds were recorded); d1 resolved
    stops = ["resolved"] * 3 + ["budget_calls", "model_finished", None, "timeout", "resolved"]
    for row, stop in zip(rows, stops, strict=True):
        if stop is not None:
            row["stop"] = stop
    rows += [result("a", 0, False, model="other", stop="infra_error"), result("b", 0, False, model="other")]
    report = build_report(load_run(write_run(tmp_path / "run", rows)))
    by_stop = report["by_stop"]
    assert list(by_stop) == ["tool/gradlefixer/scripted", "tool/gradlefixer/other"]
    scripted, other = by_stop.values()
    assert list(scripted)[: len(StopKind)] == [kind.value for kind in StopKind]  # every kind, in order
    assert {k: n for k, n in scripted.items() if n} == {
        "resolved": 4, "model_finished": 1, "budget_calls": 1, "timeout": 1, "unknown": 1,
    }  # fmt: skip
    assert {k: n for k, n in other.items() if n} == {"infra_error": 1, "unknown": 1}
    assert "unknown" not in build_report(load_run(write_run(tmp_path / "all", rows[:5])))["by_stop"][
        "tool/gradlefixer/scripted"
    ]
    md = render_markdown(report)
    assert "## Attempts by stop kind" in md
    both = "tool/gradlefixer/scripted + tool/gradlefixer/other"
    assert f"| Stop kind | {both}: tool/gradlefixer/scripted | {both}: tool/gradlefixer/other |" in md
    assert "| resolved | 4 | 0 |" in md and "| infra_error | 0 | 1 |" in md and "| unknown | 1 | 1 |" in md
    assert "<h2>Attempts by stop kind</h2>" in render_html(report)
    assert json.loads(write_report(tmp_path / "run", "json"))["by_stop"] == by_stop
    comparison = compare_runs([tmp_path / "run", tmp_path / "all"])
    assert comparison["by_stop"][both] == by_stop
    assert "| budget_calls | 1 | 0 | 1 |" in render_compare(comparison, "md")


def test_empty_cells_show_a_dash_never_nan(tmp_path: Path) -> None:
    rows = [result(r["instance_id"], r["sample"], False) for r in standard_rows()]  # nothing resolved
    rows.append(result("e", 0, True))  # one fixed attempt: a median and no sd
    instances = [*INSTANCES, {"instance_id": "e", "origin": "human", "category": "syntax",
                              "lines_changed": 7, "files_changed": 1}]  # fmt: skip
    report = build_report(load_run(write_run(tmp_path / "run", rows[:-1], INSTANCES)))
    md = render_markdown(report)
    assert "NaN ± NaN" not in md and "NaN / NaN" not in md
    assert "| Lines changed, fixed (median ± sd) | – |" in md
    assert "| tool/gradlefixer/scripted | resolved | 0 | – | – | – | – | – | 0.0000 |" in md
    one = render_markdown(build_report(load_run(write_run(tmp_path / "one", rows, instances))))
    assert "| Lines changed, fixed (median ± sd) | 7.0 ± – |" in one
    assert "<td>NaN" not in render_html(report)


def test_tier_bounds() -> None:
    assert [tier_of(v) for v in (0, 1, 10, 11, 100, 101, 1000, 1001, 10**6)] == [
        "Trivial", "Trivial", "Trivial", "Small", "Small", "Medium", "Medium", "Large", "Large"]  # fmt: skip
    assert tier_of(None) == "unknown"


def test_fewer_samples_than_configured_give_null(tmp_path: Path) -> None:
    rows = standard_rows()
    path = write_run(tmp_path / "run", rows, config={"agent": "tool", "samples": 4})
    report = build_report(load_run(path))
    assert report["samples"] == 4 and report["ks"] == [1, 2, 4]
    assert report["pass_at_k"]["overall"]["4"] is None
    assert report["pass_at_k"]["by_origin"]["human"]["4"] is None
    assert any("fewer than 4 attempts" in w for w in report["warnings"])
    text = write_report(path, "json")
    assert '"4": null' in text and "NaN" not in text
    assert "| – |" in render_markdown(report) and "NaN" not in render_markdown(report)


def test_fallback_to_result_fields_without_instances_file(tmp_path: Path) -> None:
    rows = [result("x", 0, True, origin="human", category="syntax"), result("y", 0, False)]
    report = build_report(load_run(write_run(tmp_path / "run", rows, instances=None)))
    assert report["pass_at_k"]["by_origin"] == {"human": {"1": 1.0}, "unknown": {"1": 0.0}}
    assert report["pass_at_k"]["by_category"]["syntax"] == {"1": 1.0}
    assert [t["tier"] for t in report["difficulty_tiers"]][-1] == "unknown"
    assert report["change_size"]["fixed"]["lines_changed"]["median"] is None


def test_instances_without_attempts_are_left_out_with_a_warning(tmp_path: Path) -> None:
    rows = [r for r in standard_rows() if r["instance_id"] != "d"]
    report = build_report(load_run(write_run(tmp_path / "run", rows)))
    assert report["n_instances"] == 3 and report["n_dataset_instances"] == 4
    assert report["missing_instances"] == ["d"]
    assert any("no attempt yet" in w for w in report["warnings"])


def test_bad_directories(tmp_path: Path) -> None:
    with pytest.raises(BuildfixerError, match="not a run directory"):
        load_run(tmp_path / "absent")
    with pytest.raises(BuildfixerError, match="holds no results.jsonl"):
        load_run(tmp_path)
    (tmp_path / "results.jsonl").write_text("\n")
    with pytest.raises(BuildfixerError, match="no results yet"):
        load_run(tmp_path)
    torn_in_the_middle = '{"instance_id": "a", "sam\n' + json.dumps(result("a", 0, True)) + "\n"
    (tmp_path / "results.jsonl").write_text(torn_in_the_middle)
    with pytest.raises(BuildfixerError, match=r"results.jsonl:1: not valid JSON"):
        load_run(tmp_path)
    (tmp_path / "results.jsonl").write_text(json.dumps({"instance_id": "a", "resolved": "yes"}) + "\n")
    with pytest.raises(BuildfixerError, match="'resolved' must be true or false"):
        load_run(tmp_path)
    with pytest.raises(BuildfixerError, match="unknown report format"):
        write_report(write_run(tmp_path / "ok", standard_rows()), "pdf")


def test_write_report_files_and_command(run_dir: Path, capsys) -> None:
    for fmt in ("md", "json", "html"):
        text = write_report(run_dir, fmt)
        assert (run_dir / f"report.{fmt}").read_text() == text
    assert not [p for p in run_dir.iterdir() if p.name.endswith(".tmp")]
    data = json.loads((run_dir / "report.json").read_text())
    assert set(data["pass_at_k"]) >= {"overall", "by_origin", "by_category"}
    assert isinstance(data["n_instances"], int) and isinstance(data["samples"], int)
    assert report_command(run_dir, "md") == 0
    out = capsys.readouterr().out
    assert out.startswith("# Benchmark report: tool/gradlefixer/scripted")
    assert out == (run_dir / "report.md").read_text()


def test_markdown_tables(run_dir: Path) -> None:
    md = render_markdown(build_report(load_run(run_dir)))
    assert "| Configuration | Overall P@1 | Overall P@2 | dependency P@1 |" in md
    assert "| tool/gradlefixer/scripted | 50.0 | 75.0 | 0.0 | 0.0 | 75.0 | 100.0 | 50.0 | 100.0 |" in md
    assert "| run_build | 50.0 |" in md and "| Total calls | 24 |" in md
    assert "| Success rate: syntax (%) | 75.0 (3/4) |" in md
    assert "| Lines changed, fixed (median ± sd) | 27.5 ± 68.4 |" in md
    assert "| Trivial | 1–10 | 1 | 25.0 | 100.0 (2/2) |" in md
    assert "| tool/gradlefixer/scripted | failed | 4 | 7.0 / 6.0 |" in md
    assert "torn last line" in md


def test_html_is_self_contained_with_plots(tmp_path: Path) -> None:
    rows = standard_rows(model="m<script>x</script>")
    html = render_html(build_report(load_run(write_run(tmp_path / "run", rows))))
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") == 2
    assert "<script" not in html.lower()  # the model name is escaped, no scripts of our own
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", html)
    assert "http://" not in html and "https://" not in html
    assert "<polyline" in html and "<rect" in html and "<style>" in html


def test_plots_handle_missing_points_and_empty_bins() -> None:
    svg = pass_at_k_svg({"x": {"1": 0.5, "2": None, "4": 0.75}})
    assert svg.count("<circle") == 2 and "<polyline" not in svg  # the None breaks the line
    assert "pass@4 = 75.0%" in svg
    assert "<svg" in histogram_svg([1, 3], [("none", [0], "#000")], "t", "x")


def test_compare_two_runs(run_dir: Path, tmp_path: Path, capsys) -> None:
    rows = [result(r["instance_id"], r["sample"], False, model="other") for r in standard_rows()]
    other = write_run(tmp_path / "other", rows)
    comparison = compare_runs([run_dir, other])
    labels = [run["label"] for run in comparison["runs"]]
    assert labels == ["tool/gradlefixer/scripted", "tool/gradlefixer/other"]
    assert comparison["pass_at_k"]["tool/gradlefixer/scripted"]["overall"] == {"1": 0.5, "2": 0.75}
    assert comparison["pass_at_k"]["tool/gradlefixer/other"]["overall"] == {"1": 0.0, "2": 0.0}
    assert comparison["tool_usage"]["tool/gradlefixer/other"]["tool/gradlefixer/other"]["total_calls"] == 32
    assert comparison["cost"]["tool/gradlefixer/other"]["all"]["cost_usd"]["total"] == pytest.approx(0.4)
    md = render_compare(comparison, "md")
    assert "| tool/gradlefixer/scripted | 50.0 | 75.0 |" in md
    assert "| tool/gradlefixer/other | 0.0 | 0.0 |" in md
    assert "| Tool | tool/gradlefixer/scripted | tool/gradlefixer/other |" in md
    assert "| replace | 16.7 | – |" in md
    html = render_compare(comparison, "html")
    assert html.count("<polyline") == 2 and "http://" not in html
    json.loads(render_compare(comparison, "json"))
    out = tmp_path / "cmp.html"
    assert compare_command([run_dir, other], "html", out) == 0
    assert capsys.readouterr().out == f"wrote the html comparison to {out}\n"  # the path, not the page
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_compare_labels_and_instance_sets(run_dir: Path, tmp_path: Path) -> None:
    same = write_run(tmp_path / "again", [r for r in standard_rows() if r["instance_id"] != "a"])
    comparison = compare_runs([run_dir, same])
    assert [run["label"] for run in comparison["runs"]] == [
        "tool/gradlefixer/scripted [run]", "tool/gradlefixer/scripted [again]"]  # fmt: skip
    assert "cover different instances" in comparison["warnings"][0]
    with pytest.raises(BuildfixerError):
        compare_runs([])
