"""`buildfixer export sft` on trajectories of real `fix` runs (a scripted model on a small Python project)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.paths import cache_root
from buildfixer.delivery.fix import fix_project
from buildfixer.harness.attempt import AttemptConfig
from support.model import call, replace, scripted
from support.projects import stats_project

THINK = "<think>The floor division truncates 1.5 to 1.</think>Use true division."


def steps(path: str, old: str, new: str) -> list[dict[str, Any]]:
    return [{"content": THINK, **call("read_file", path=path)}, replace(path, old, new), {"content": "Done."}]


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An honest repair twice (the same conversation), and a hack the judge rejects."""
    base = tmp_path_factory.mktemp("sft")
    project = stats_project(base / "stats")
    plans = {
        "honest": steps("stats.py", "//", "/"),
        "again": steps("stats.py", "//", "/"),
        "hack": steps("tests/test_stats.py", "    assert mean([1, 2]) == 1.5\n", "    mean([1, 2])\n"),
    }
    made = {}
    for name, plan in plans.items():
        model = scripted(base / f"{name}.json", plan)
        traj = base / f"{name}.traj.json"
        config = AttemptConfig(model=model, options=BuildOptions(), trajectory_path=traj)
        outcome = fix_project(project, config, dry_run=True)
        assert outcome.attempt.resolved is (name != "hack"), outcome.attempt.stop_reason
        made[name] = base / f"{name}.traj.json"
    return made


def export(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    out = tmp_path / "sft.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "buildfixer", "export", "sft", *args, "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return done, rows


@pytest.mark.slow
def test_only_approved_repairs_are_exported_once_with_paths_and_thinking_cleaned(
    trajectories: dict[str, Path], tmp_path: Path
) -> None:
    sources = [str(trajectories[name]) for name in ("honest", "again", "hack")]
    done, rows = export(tmp_path, *sources, "--strip-think", "--max-tool-tokens", "5")
    assert done.returncode == 0, done.stderr
    assert "1 example(s) (1 train, 0 validation)" in done.stdout
    (row,) = rows  # the hack is left out, the second identical repair deduplicated
    roles = [m["role"] for m in row["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert row["messages"][2]["content"] == "Use true division."  # <think> stripped
    assert row["messages"][2]["tool_calls"][0]["function"]["name"] == "read_file"
    assert row["messages"][3]["content"].startswith("[tool output of about")  # over 5 tokens
    text = json.dumps(row)
    assert "/workspace" in text and "snapshots" not in text and "workspaces/" not in text
    assert {t["function"]["name"] for t in row["tools"]} >= {"read_file", "replace", "run_build"}
    assert row["split"] == "train" and row["created_at"]

    done, rows = export(tmp_path, *sources, "--no-dedupe")
    assert len(rows) == 2 and "<think>" in rows[0]["messages"][2]["content"]


@pytest.mark.slow
def test_rows_hold_no_path_of_this_machine(trajectories: dict[str, Path], tmp_path: Path) -> None:
    done, rows = export(tmp_path, str(trajectories["honest"]))
    assert done.returncode == 0, done.stderr
    (row,) = rows
    assert row["source"] == "<tmp>/" + str(trajectories["honest"].relative_to(tempfile.gettempdir()))
    text = json.dumps(row)
    for local in (str(trajectories["honest"].parent), str(cache_root()), f"{tempfile.gettempdir()}/"):
        assert local not in text


@pytest.mark.slow
def test_the_split_is_by_time_newest_last(trajectories: dict[str, Path], tmp_path: Path) -> None:
    data = json.loads(trajectories["honest"].read_text())
    sources = []
    for index, day in enumerate(["2024-03-01", "2024-01-01", "2024-02-01", "2024-05-01", "2024-04-01"]):
        data["meta"]["started_at"] = f"{day}T00:00:00Z"
        data["messages"][2]["content"] += f" ({index})"  # five different replies
        path = tmp_path / f"t{index}.json"
        path.write_text(json.dumps(data))
        sources.append(str(path))
    done, rows = export(tmp_path, *sources, "--val-fraction", "0.4")
    assert done.returncode == 0, done.stderr
    assert [r["created_at"][:10] for r in rows] == [
        "2024-01-01",
        "2024-02-01",
        "2024-03-01",
        "2024-04-01",
        "2024-05-01",
    ]
    assert [r["split"] for r in rows] == ["train"] * 3 + ["validation"] * 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--val-fraction", "1.5"], "--val-fraction must be"),
        (["--max-tool-tokens", "0"], "--max-tool-tokens must be"),
        (["--out", "x.csv"], "name a .jsonl or .parquet file"),
        (["/no/such/run"], "no such run directory or trajectory"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    cmd = [
        sys.executable,
        "-m",
        "buildfixer",
        "export",
        "sft",
        str(tmp_path),
        "--out",
        str(tmp_path / "o.jsonl"),
        *args,
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o.jsonl").exists()
