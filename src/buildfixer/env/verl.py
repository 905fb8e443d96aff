"""The environment for verl: a `BaseTool` per buildfixer tool, their tool config, and an agent loop.

verl's tool agent loop calls a tool as `create` -> `execute` -> `release` for every call, so the
episode cannot live in a tool instance: it is kept per trajectory, keyed by the agent loop's
request id (`agent_data.request_id`, handed to `execute`), and started on the trajectory's first
call from the instance in the row's `tools_kwargs` (`create_kwargs: {"instance": ...}`). The
registered agent loop `buildfixer_agent` runs verl's own tool loop, then ends the episode: the
harness's verdict build and the judge give `reward_score` (a trajectory that called no tool is
still built and judged).

    tools: python -c "from buildfixer.env.verl import tool_config; print(tool_config())" > tools.yaml
    actor_rollout_ref.rollout.multi_turn.tool_config_path=tools.yaml
    data rows: verl_rows(instances) (agent_name "buildfixer_agent", tools_kwargs per tool)

Importing this module imports verl (it is not imported by `import buildfixer`).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from uuid import uuid4

import yaml
from verl.experimental.agent_loop.agent_loop import AgentLoopOutput, register
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
from verl.tools.base_tool import BaseTool
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.stops import StopKind
from buildfixer.env.episode import BuildRepairEnv, instance_of
from buildfixer.tools.presets import preset_schemas

AGENT_NAME = "buildfixer_agent"
_EPISODE_KEY = "buildfixer_episode"
PLACEHOLDER = "/workspace"


class Episodes:
    """The open episodes of this process, one per trajectory (request id)."""

    def __init__(self) -> None:
        self._open: dict[str, BuildRepairEnv] = {}
        self._lock = threading.Lock()

    def get(self, key: str, instance: dict[str, Any], settings: dict[str, Any]) -> BuildRepairEnv:
        """The trajectory's episode, started (reset) on first use."""
        with self._lock:
            env = self._open.get(key)
            if env is None:
                env = BuildRepairEnv(instance, **settings)
                self._open[key] = env
                env.reset()
            return env

    def finish(self, key: str) -> tuple[float, dict[str, Any]]:
        """End the trajectory's episode (verdict build, judge) and close it."""
        with self._lock:
            env = self._open.pop(key, None)
        if env is None:
            raise BuildfixerError(f"no open episode for {key}")
        try:
            reward, _, info = env.finish(StopKind.ROLLOUT_ENDED)
        finally:
            env.close()
        return reward, info


EPISODES = Episodes()


class BuildfixerTool(BaseTool):  # verl ships no type information: BaseTool is Any to mypy
    """One buildfixer tool; `config` may carry `toolset`, `judge` and `max_wall_s` for the episode."""

    def __init__(self, config: dict[str, Any], tool_schema: OpenAIFunctionToolSchema) -> None:
        super().__init__(config, tool_schema)
        self._settings = {
            "toolset": config.get("toolset", "gradlefixer"),
            "judge": bool(config.get("judge", True)),
            "max_wall_s": config.get("max_wall_s"),
        }
        self._instances: dict[str, dict[str, Any]] = {}
        self._episodes: dict[str, str] = {}

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolResponse]:
        """Register a call's instance (`create_kwargs: {"instance": row or its JSON}`)."""
        instance_id = instance_id or uuid4().hex
        self._instances[instance_id] = instance_of((kwargs.get("create_kwargs") or {}).get("instance"))
        return instance_id, ToolResponse()

    async def execute(
        self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
    ) -> tuple[ToolResponse, float, dict[str, Any]]:
        """Run the tool in the trajectory's episode (keyed by `agent_data.request_id`)."""
        agent_data = kwargs.get("agent_data")
        key = str(getattr(agent_data, "request_id", "") or instance_id)
        if agent_data is not None:
            agent_data.extra_fields[_EPISODE_KEY] = key
        env = await asyncio.to_thread(EPISODES.get, key, self._instances[instance_id], self._settings)
        self._episodes[instance_id] = key
        output = await asyncio.to_thread(env.call_tool, self.name, dict(parameters or {}))
        return ToolResponse(text=output), 0.0, {}

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """The episode's reward (it ends the episode; the agent loop does this itself)."""
        reward, _ = await asyncio.to_thread(EPISODES.finish, self._episodes[instance_id])
        return reward

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        """Forget the call (the episode stays open until the trajectory ends)."""
        self._instances.pop(instance_id, None)
        self._episodes.pop(instance_id, None)


@register(AGENT_NAME)
class BuildfixerAgentLoop(ToolAgentLoop):
    """verl's tool agent loop, then the episode's end: `reward_score` from the build and the judge."""

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        """Run the tool loop, then put the episode's reward into the trajectory's output."""
        output = await super().run(sampling_params, **kwargs)
        created = [v.get("create_kwargs") or {} for v in (kwargs.get("tools_kwargs") or {}).values()]
        instance = next((c["instance"] for c in created if "instance" in c), None)
        return await asyncio.to_thread(attach_reward, output, instance)


def attach_reward(
    output: AgentLoopOutput, instance: Any, settings: dict[str, Any] | None = None
) -> AgentLoopOutput:
    """Put the episode's reward into a finished trajectory's output.

    A trajectory that called no tool has no episode yet: one is started and built as it stands.
    """
    key = output.extra_fields.get(_EPISODE_KEY)
    if key is None:
        key = f"untouched-{uuid4().hex}"
        EPISODES.get(key, instance_of(instance), settings or {})
    reward, info = EPISODES.finish(str(key))
    output.reward_score = reward
    output.extra_fields["buildfixer"] = {k: info[k] for k in ("build_ok", "judge_ok", "stop", "status")}
    return output


def tool_config(
    toolset: str = "gradlefixer", build_systems: Iterable[str] = ("gradle", "maven", "npm", "python"),
    judge: bool = True,
) -> str:  # fmt: skip
    """Verl's tool config YAML: one `BuildfixerTool` per tool of the toolset, with its schema."""
    tools = [
        {
            "class_name": f"{__name__}.BuildfixerTool",
            "config": {"type": "native", "toolset": toolset, "judge": judge},
            "tool_schema": schema,
        }
        for schema in preset_schemas(toolset, list(build_systems))
    ]
    return yaml.safe_dump({"tools": tools}, sort_keys=False)


def agent_loop_config() -> str:
    """Verl's agent loop config YAML (for `agent_loop_config_path`), naming the loop above."""
    return yaml.safe_dump(
        [{"name": AGENT_NAME, "_target_": f"{__name__}.BuildfixerAgentLoop"}], sort_keys=False
    )


def verl_rows(instances: Iterable[dict[str, Any]], toolset: str = "gradlefixer") -> list[dict[str, Any]]:
    """Dataset rows for verl: the prompt, the agent loop, and each tool's `create_kwargs`.

    verl's prompts are fixed in the data, so each instance's failing build is run here, once, for
    its first message (the workspace's path in it reads `/workspace`; tools take relative paths).
    """
    rows = []
    for instance in instances:
        data = json.dumps(instance, sort_keys=True)
        system = str(instance.get("build_system") or "gradle")
        names = [schema["function"]["name"] for schema in preset_schemas(toolset, [system])]
        env = BuildRepairEnv(instance, toolset=toolset)
        try:
            prompt = env.reset()["messages"]
            root = str(env.workspace.root) if env.workspace else ""
        finally:
            env.close()
        prompt = [{**m, "content": str(m["content"]).replace(root, PLACEHOLDER)} for m in prompt]
        rows.append({
            "data_source": "buildfixer", "agent_name": AGENT_NAME, "prompt": prompt,
            "reward_model": {"style": "rule", "ground_truth": ""},
            "extra_info": {"instance_id": instance.get("instance_id"),
                           "tools_kwargs": {name: {"create_kwargs": {"instance": data}} for name in names}},
        })  # fmt: skip
    return rows


def write_configs(out: Path, toolset: str = "gradlefixer") -> tuple[Path, Path]:
    """Write `tools.yaml` and `agent_loops.yaml` into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    tools, loops = out / "tools.yaml", out / "agent_loops.yaml"
    tools.write_text(tool_config(toolset), encoding="utf-8")
    loops.write_text(agent_loop_config(), encoding="utf-8")
    return tools, loops
