"""Training through TRL's own trainers on CPU, with rewards and data from real builds.

These check the plumbing (the trainer drives our environment, parses and runs tool calls, gets
rewards from the harness's build and the judge; SFT trains on what `export sft` wrote), not
learning: the models are tiny (tests/env/tiny_model.py).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tiny_model import build_tiny_model, wire_policy

from buildfixer.agents.prompts import system_prompt
from buildfixer.env.episode import BuildRepairEnv
from buildfixer.env.trl import environment_class, trl_environment, trl_rows
from buildfixer.tools.presets import make_toolset
from support.tools import tool_context

os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"  # environment_factory is marked experimental
BUNDLED = Path(__file__).resolve().parents[2] / "src" / "buildfixer" / "bench" / "data"
# The repair of semverkit-elif-colon (a colon missing after `elif`), as one `replace` call.
FIX = {"file_path": "src/semverkit/bump.py", "old_string": '    elif part == "minor"\n',
       "new_string": '    elif part == "minor":\n'}  # fmt: skip


def bundled(*ids: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (BUNDLED / "instances.jsonl").read_text().splitlines() if line]
    return [row for row in rows if row["instance_id"] in ids]


def test_trl_reads_the_same_tool_schemas_buildfixer_gives_models() -> None:
    from transformers.utils import get_json_schema

    cls = environment_class("gradlefixer", ["gradle"])
    env = cls()
    for tool in make_toolset(tool_context(Path("/"), "gradle"), "gradlefixer"):
        ours = tool.schema()["function"]
        theirs = get_json_schema(getattr(env, tool.name))["function"]
        assert theirs["name"] == ours["name"]
        assert " ".join(theirs["description"].split()) == " ".join(ours["description"].split())
        params, expected = theirs["parameters"], ours["parameters"]
        assert set(params["properties"]) == set(expected["properties"]), tool.name
        assert set(params.get("required", [])) == set(expected.get("required", [])), tool.name
        for name, spec in expected["properties"].items():
            assert params["properties"][name]["type"] == spec["type"], (tool.name, name)
            assert params["properties"][name].get("enum") == spec.get("enum"), (tool.name, name)


@pytest.mark.slow
def test_grpo_two_steps_on_two_bundled_instances(tmp_path: Path) -> None:
    """GRPOTrainer with our environment_factory: a model that always calls `replace` with the fix of
    one instance. Its rollouts on that instance build and are rewarded 1, on the other 0."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    instances = bundled("semverkit-elif-colon", "semverkit-lexical-latest")
    reply = "<tool_call>\n" + json.dumps({"name": "replace", "arguments": FIX}) + "\n</tool_call>"
    model, tokenizer = build_tiny_model(tmp_path / "tiny", [system_prompt(), reply])
    model = wire_policy(model, tokenizer, reply)
    config = GRPOConfig(
        output_dir=str(tmp_path / "grpo"), use_cpu=True, per_device_train_batch_size=2, num_generations=2,
        max_completion_length=64, max_steps=2, max_tool_calling_iterations=1, logging_steps=1,
        report_to=[], save_strategy="no", bf16=False, seed=0, disable_tqdm=True,
    )  # fmt: skip
    rows = Dataset.from_list(trl_rows(instances))
    trainer = GRPOTrainer(
        model=model, processing_class=tokenizer, args=config, train_dataset=rows,
        environment_factory=trl_environment(instances),
    )  # fmt: skip
    trainer.train()
    steps = [entry for entry in trainer.state.log_history if "rewards/BuildRepair/mean" in entry]
    assert len(steps) == 2
    assert sorted(entry["rewards/BuildRepair/mean"] for entry in steps) == [0.0, 1.0]
    assert all(
        entry["tools/call_frequency"] == 1.0 and entry["tools/failure_frequency"] == 0.0 for entry in steps
    )
    # The rewards came from real verdict builds: each rollout's environment built its workspace.
    infos = [env.info for env in trainer._environment_pool[None]]
    assert infos and all(
        info["build_seconds"] > 0 and info["status"] in ("success", "failure") for info in infos
    )
    passed = [info for info in infos if info["build_ok"]]
    assert all(info["judge_ok"] is True and 'elif part == "minor":' in info["patch"] for info in passed)


@pytest.mark.slow
def test_sft_one_step_on_the_exported_file_with_assistant_only_loss(tmp_path: Path) -> None:
    """A repair episode of the environment, saved, exported by `buildfixer export sft`, trained on
    by SFTTrainer for one step, the loss only on what the assistant said."""
    from datasets import load_dataset
    from trl import SFTConfig, SFTTrainer

    env = BuildRepairEnv(bundled("semverkit-elif-colon")[0])
    env.reset()
    call = {"id": "c1", "type": "function", "function": {"name": "replace", "arguments": json.dumps(FIX)}}
    env.step({"role": "assistant", "content": "", "tool_calls": [call]})
    done = "The colon after elif is back."
    reward, finished, _ = env.step({"role": "assistant", "content": done})[1:]
    assert finished and reward == 1.0
    env.save_trajectory(tmp_path / "episode.json")
    env.close()
    out = tmp_path / "sft.jsonl"
    export = [
        sys.executable,
        "-m",
        "buildfixer",
        "export",
        "sft",
        str(tmp_path / "episode.json"),
        "--out",
        str(out),
    ]
    subprocess.run(export, check=True, capture_output=True, timeout=120)
    dataset = load_dataset("json", data_files=str(out), split="train")
    assert dataset.num_rows == 1 and "/workspace" in json.dumps(dataset[0]["messages"])
    model, tokenizer = build_tiny_model(tmp_path / "tiny", [system_prompt(), out.read_text()])
    config = SFTConfig(
        output_dir=str(tmp_path / "sft"), use_cpu=True, per_device_train_batch_size=1, max_steps=1,
        assistant_only_loss=True, max_length=None, report_to=[], save_strategy="no", logging_steps=1,
        bf16=False, disable_tqdm=True,
    )  # fmt: skip
    trainer = SFTTrainer(model=model, processing_class=tokenizer, args=config, train_dataset=dataset)
    batch = next(iter(trainer.get_train_dataloader()))
    supervised = batch["labels"][0][batch["labels"][0] != -100]
    text = tokenizer.decode(supervised)
    assert "replace" in text and done in text  # the assistant's call and its last words
    assert (
        "Current State" not in text and "replaced 1 occurrence" not in text
    )  # not the prompt, not tool output
    assert 0 < len(supervised) < 0.1 * batch["labels"].shape[1]
    before = [p.detach().clone() for p in model.parameters()]
    trainer.train()
    loss = trainer.state.log_history[0]["loss"]
    assert math.isfinite(loss) and loss > 0
    assert any(
        (a != b.detach()).any() for a, b in zip(before, model.parameters(), strict=True)
    )  # a real step


@pytest.fixture(autouse=True)
def _quiet_tokenizers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")  # no fork warning from the trainers' workers
