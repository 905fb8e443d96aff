"""The verl adapter against verl's own classes: its tool registry loads our tool config, its
AgentData carries the trajectory, its agent-loop registry knows our loop, and the reward comes from
a real build. (verl's rollout itself needs a vLLM or SGLang server, which does not run here.)
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from env_repo import make_instance
from verl.experimental.agent_loop.agent_loop import AgentLoopMetrics, AgentLoopOutput, _agent_loop_registry
from verl.experimental.agent_loop.tool_agent_loop import AgentData
from verl.tools.tool_registry import initialize_tools_from_config

from buildfixer.env.verl import AGENT_NAME, BuildfixerTool, attach_reward, verl_rows, write_configs

pytestmark = pytest.mark.slow  # trajectories through real builds


def agent_data(request_id: str, tools_kwargs: dict[str, Any]) -> Any:
    return AgentData(
        messages=[], image_data=None, video_data=None, audio_data=None, mm_processor_kwargs=None, metrics={},
        request_id=request_id, tools_kwargs=tools_kwargs,
    )  # fmt: skip


def output_of(data: Any) -> Any:
    """What verl's tool loop returns at the end of a trajectory (tokens left out)."""
    return AgentLoopOutput(
        prompt_ids=[1], response_ids=[2], response_mask=[1], metrics=AgentLoopMetrics(),
        extra_fields=data.extra_fields,
    )  # fmt: skip


async def call(tool: Any, kwargs: dict[str, Any], data: Any, **parameters: Any) -> str:
    """A call as verl's ToolAgentLoop._call_tool makes it: create, execute, release."""
    instance_id, _ = await tool.create(create_kwargs=kwargs[tool.name]["create_kwargs"])
    try:
        response, reward, _ = await tool.execute(instance_id, parameters, agent_data=data)
    finally:
        await tool.release(instance_id)
    assert reward == 0.0  # no step reward: the trajectory's reward is the verdict's
    return str(response.text)


def test_a_trajectory_through_verls_tool_classes(tmp_path: Path) -> None:
    instance = make_instance(tmp_path)
    tools_yaml, loops_yaml = write_configs(tmp_path / "verl")
    tools = {tool.name: tool for tool in initialize_tools_from_config(str(tools_yaml))}
    assert all(isinstance(tool, BuildfixerTool) for tool in tools.values())
    assert {"replace", "run_build", "run_python_command", "run_gradle_command"} <= set(tools)
    assert "buildfixer.env.verl.BuildfixerAgentLoop" in loops_yaml.read_text()
    assert _agent_loop_registry[AGENT_NAME]["_target_"] == "buildfixer.env.verl.BuildfixerAgentLoop"

    row = verl_rows([instance])[0]
    assert row["agent_name"] == AGENT_NAME and row["prompt"][0]["role"] == "system"
    assert "assert 1 == 1.5" in row["prompt"][1]["content"] and "/workspace" in row["prompt"][1]["content"]
    kwargs = row["extra_info"]["tools_kwargs"]

    async def rollout(request_id: str, fix: bool) -> Any:
        data = agent_data(request_id, kwargs)
        out = await call(tools["read_file"], kwargs, data, path="stats.py")
        assert "return sum(values) // len(values)" in out
        if fix:
            out = await call(
                tools["replace"], kwargs, data, file_path="stats.py", old_string="//", new_string="/"
            )
            assert "replaced 1 occurrence" in out
        return attach_reward(output_of(data), None)

    fixed, untouched = asyncio.run(_both(rollout("traj-a", True), rollout("traj-b", False)))
    assert fixed.reward_score == 1.0 and fixed.extra_fields["buildfixer"]["judge_ok"] is True
    assert untouched.reward_score == 0.0 and untouched.extra_fields["buildfixer"]["build_ok"] is False


def test_a_trajectory_without_tool_calls_is_still_built(tmp_path: Path) -> None:
    instance = make_instance(tmp_path)
    data = agent_data("traj-silent", {})
    out = attach_reward(output_of(data), json.dumps(instance))
    assert out.reward_score == 0.0 and out.extra_fields["buildfixer"]["status"] == "failure"


async def _both(a: Any, b: Any) -> tuple[Any, Any]:
    """Two trajectories at once, as verl runs a batch: each keeps its own episode."""
    first, second = await asyncio.gather(a, b)
    return first, second
