"""Every attempt and run setting is checked where it enters: one line, exit 2, before any build."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.config import AttemptConfig
from buildfixer.harness.config_files import read_config_file, validated

BUNDLED = Path(__file__).resolve().parents[2] / "src/buildfixer/bench/data/instances.jsonl"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"toolset": "typo"}, "toolset: unknown toolset 'typo'"),
        ({"mask": "bogus"}, "mask: unknown mask 'bogus'"),
        ({"agent": "tol"}, "agent: unknown agent 'tol'"),
        ({"build_output": "fancy"}, "build_output: Input should be 'raw' or 'condensed'"),
        ({"model_settings": {"temperature": 7}}, "model_settings.temperature"),
        ({"model_settings": {"max_output_tokens": 0}}, "model_settings.max_output_tokens"),
        ({"tolset": "gradlefixer"}, "tolset: unknown setting"),
        ({"agent": "tool", "model": " "}, "the tool agent needs a model"),
    ],
)
def test_a_bad_attempt_setting_is_one_line_naming_it(fields, message):
    with pytest.raises(BuildfixerError) as caught:
        validated(AttemptConfig, fields)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_budget_from_a_file_may_hold_any_type_and_is_still_one_line():
    from buildfixer.agents.tool_loop import Budget
    from buildfixer.buildsys.options import BuildOptions

    with pytest.raises(BuildfixerError, match="budget: max_calls must be a whole number, got 'lots'"):
        validated(AttemptConfig, {"budget": Budget("lots")})  # type: ignore[arg-type]
    with pytest.raises(BuildfixerError, match="budget: max_cost_usd must be positive"):
        validated(AttemptConfig, {"budget": Budget(max_cost_usd=-1)})
    with pytest.raises(BuildfixerError, match="build timeout must be a positive number, got 'x'"):
        validated(AttemptConfig, {"options": BuildOptions(timeout_s="x")})  # type: ignore[arg-type]


def test_python_callers_get_the_same_checks():
    """Not only the CLI: constructing the config in code refuses a typo too."""
    with pytest.raises(ValueError, match="unknown toolset"):
        AttemptConfig(toolset="typo")
    config = AttemptConfig(agent="tool", model="openai/gpt-4.1")
    with pytest.raises(ValueError, match="unknown mask"):
        config.mask = "bogus"


def test_portable_form_round_trips_and_records_model_settings():
    config = validated(AttemptConfig, {"agent": "cascade", "model": "a,b", "model_settings": {"seed": 7}})
    again = AttemptConfig.from_portable(json.loads(json.dumps(config.portable())))
    assert again.describe() == config.describe()
    assert again.model_settings.model_kwargs() == {"extra": {"seed": 7}}


def test_config_files_toml_and_yaml(tmp_path):
    (tmp_path / "a.toml").write_text('max-calls = 5\nagent = "tool"\n')
    (tmp_path / "a.yaml").write_text("max_calls: 5\nagent: tool\n")
    assert read_config_file(tmp_path / "a.toml") == read_config_file(tmp_path / "a.yaml") == {
        "max_calls": 5, "agent": "tool"}  # fmt: skip
    (tmp_path / "bad.toml").write_text("max-calls = = 5\n")
    with pytest.raises(BuildfixerError, match="bad.toml"):
        read_config_file(tmp_path / "bad.toml")
    (tmp_path / "list.yaml").write_text("- 1\n")
    with pytest.raises(BuildfixerError, match="expected a table"):
        read_config_file(tmp_path / "list.yaml")


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "buildfixer", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120, check=False)


BAD_RUNS = {
    "toolset": ["--agent", "tool", "--model", "x/y", "--toolset", "typo"],
    "mask": ["--agent", "tool", "--model", "x/y", "--mask", "bogus"],
    "agent": ["--agent", "tol"],
    "samples": ["--agent", "none", "--samples", "0"],
    "workers": ["--agent", "none", "--workers", "0"],
    "max-calls": ["--agent", "none", "--max-calls", "0"],
    "max-cost": ["--agent", "none", "--max-cost", "-1"],
    "temperature": ["--agent", "none", "--temperature", "9"],
    "attempt-timeout": ["--agent", "none", "--attempt-timeout", "0"],
    "backend": ["--agent", "none", "--backend", "cloud"],
    "config key": ["--agent", "none", "--config", "{dir}/bad-key.toml"],
    "config value": ["--agent", "none", "--config", "{dir}/bad-value.toml"],
    "config file": ["--agent", "none", "--config", "{dir}/missing.toml"],
}


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_bench_run_refuses_a_bad_value_before_any_build(tmp_path, case):
    (tmp_path / "bad-key.toml").write_text('tolset = "x"\n')
    (tmp_path / "bad-value.toml").write_text('toolset = "typo"\n')
    args = [a.replace("{dir}", str(tmp_path)) for a in BAD_RUNS[case]]
    proc = _run("bench", "run", str(BUNDLED), "--out", str(tmp_path / "out"), *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("buildfixer: error: "), proc.stderr
    assert not (tmp_path / "out").exists()  # nothing written, nothing built


@pytest.mark.slow
def test_a_flag_overrides_the_config_file_and_the_run_records_the_effective_config(tmp_path):
    (tmp_path / "run.toml").write_text('agent = "oracle"\nsamples = 1\ntoolset = "shell"\nseed = 3\n')
    out = tmp_path / "out"
    config = ["--config", str(tmp_path / "run.toml"), "--toolset", "noshell"]
    only = ["--only", "wordstats-top-min-count", "--json"]
    proc = _run("bench", "run", str(BUNDLED), "--out", str(out), *config, *only, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    saved = json.loads((out / "config.json").read_text())
    assert saved["agent"] == "oracle" and saved["attempt"]["toolset"] == "noshell"  # the flag won
    assert saved["attempt"]["model_settings"]["seed"] == 3  # the file's value stands
    row = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    assert row["stop"] == "resolved" and row["resolved"] is True
    trajectory = json.loads((out / row["trajectory"]).read_text())
    assert trajectory["meta"]["config"]["toolset"] == "noshell"
    assert trajectory["meta"]["config"]["model_settings"]["seed"] == 3
