"""The environment for TRL's `GRPOTrainer(environment_factory=...)`: a class whose methods are the tools.

TRL probes one instance of the class and turns each public method into a tool schema from its
type hints and Google-style docstring; before a rollout it calls `reset(**row)` with the dataset
row (the string returned is appended to the row's last user message), runs the methods the model
calls, and scores the finished rollout with `get_reward()`. The methods are generated from
buildfixer's own tool schemas, so the model sees the same tools (names, parameters, descriptions)
as in `fix` and `bench run`; every call runs the real tool on the episode's workspace, and the
reward is the harness's verdict build and the judge (`BuildRepairEnv`).

Nothing here imports TRL: the class is plain Python, and the trainer's process imports it.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from buildfixer.agents.prompts import system_prompt
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.stops import StopKind
from buildfixer.env.episode import BuildRepairEnv, instance_of
from buildfixer.tools.presets import preset_schemas

# What the dataset row's user message says before `reset` appends the build's failure to it.
_INTRO = "The project's build fails. "
_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}


def trl_rows(instances: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Dataset rows for GRPOTrainer: a `prompt` (system prompt, user message) and the `instance` as JSON.

    The instance travels as one JSON string so rows of different shapes fit one dataset column.
    """
    rows = []
    for instance in instances:
        prompt = [{"role": "system", "content": system_prompt()}, {"role": "user", "content": _INTRO}]
        rows.append({"prompt": prompt, "instance": json.dumps(instance, sort_keys=True)})
    return rows


def trl_environment(
    instances: Iterable[dict[str, Any]], toolset: str = "gradlefixer", judge: bool = True,
    options: BuildOptions | None = None, dataset_dir: Path | None = None, max_wall_s: float | None = None,
) -> Callable[[], Any]:  # fmt: skip
    """A zero-argument factory for `environment_factory=`.

    The class offers the toolset's tools for every build system among `instances` (the command
    slot is `run_gradle_command` on Gradle, `run_maven_command` on Maven, ...); a call to one that
    does not fit the current instance's project says which one does.
    """
    systems = sorted({str(row.get("build_system") or "gradle") for row in instances})
    if not systems:
        raise BuildfixerError("trl_environment needs at least one instance")
    cls = environment_class(toolset, systems)
    return functools.partial(
        cls, judge=judge, options=options, dataset_dir=dataset_dir, max_wall_s=max_wall_s, toolset=toolset
    )


def environment_class(toolset: str, build_systems: Iterable[str]) -> type:
    """The environment class: `reset`, `get_reward`, and one method per tool of the toolset."""
    schemas = [schema["function"] for schema in preset_schemas(toolset, list(build_systems))]
    methods = {schema["name"]: _tool_method(schema) for schema in schemas}
    return type("BuildRepair", (_EpisodeAdapter,), {**methods, "__module__": __name__})


class _EpisodeAdapter:
    """What every generated class shares: one `BuildRepairEnv` per instance, reused across rollouts."""

    def __init__(
        self, judge: bool = True, options: BuildOptions | None = None, dataset_dir: Path | None = None,
        max_wall_s: float | None = None, toolset: str = "gradlefixer",
    ) -> None:  # fmt: skip
        self._judge, self._dataset_dir, self._max_wall_s = judge, dataset_dir, max_wall_s
        self._options, self._toolset = options, toolset
        self._env: BuildRepairEnv | None = None
        self._key: str | None = None
        self.info: dict[str, Any] = {}
        self.reward: float | None = None

    def reset(self, **row: Any) -> str:
        """Start a rollout on the row's instance; returns the build's failure for the user message."""
        if "instance" not in row:
            raise BuildfixerError("a row needs an `instance` (a dataset row, or its JSON)")
        instance = instance_of(row["instance"])
        key = json.dumps(instance, sort_keys=True)
        if key != self._key:
            self._close()
            options = dataclasses.replace(self._options) if self._options else None
            self._env = BuildRepairEnv(
                instance, judge=self._judge, toolset=self._toolset, max_wall_s=self._max_wall_s,
                options=options, dataset_dir=self._dataset_dir,
            )  # fmt: skip
            self._key = key
        assert self._env is not None
        first = self._env.reset()["messages"][-1]["content"]
        self.info, self.reward = {}, None
        return str(first)

    def get_reward(self) -> float:
        """The rollout's reward: 1.0 when the verdict build passes and the judge approves."""
        if self.reward is None:
            if self._env is None:
                raise BuildfixerError("get_reward() before reset()")
            self.reward, _, self.info = self._env.finish(StopKind.ROLLOUT_ENDED)
        return self.reward

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self._env is None:
            raise BuildfixerError(f"{name} called before reset()")
        if self.reward is not None:
            return "the rollout has ended; no more tool calls run"
        if name not in self._env.tool_names:
            fitting = ", ".join(self._env.tool_names)
            return f"Error: {name} does not apply to this project; its tools are: {fitting}"
        arguments = {key: value for key, value in arguments.items() if value is not None}
        return self._env.call_tool(name, arguments)

    # No public `close`: every public method is offered to the model as a tool. Sandbox sessions
    # end with the process, and the next run sweeps what a dead process left.
    def _close(self) -> None:
        if self._env is not None:
            self._env.close()
        self._env, self._key = None, None


def _tool_method(schema: dict[str, Any]) -> Callable[..., str]:
    """A method with the tool's typed signature and a Google-style docstring (TRL reads both)."""
    name = schema["name"]
    properties: dict[str, dict[str, Any]] = schema["parameters"].get("properties", {})
    required = set(schema["parameters"].get("required", []))

    def method(self: _EpisodeAdapter, **arguments: Any) -> str:
        return self._call(name, arguments)

    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    lines = [_one_line(schema.get("description", name)), "", "Args:"]
    for param, spec in properties.items():
        hint = _python_type(spec)
        default: Any = inspect.Parameter.empty
        if param not in required:
            hint, default = hint | None, None
        annotations[param] = hint
        keyword = inspect.Parameter.KEYWORD_ONLY  # any order of required and optional ones
        parameters.append(inspect.Parameter(param, keyword, default=default, annotation=hint))
        choices = f" (choices: {json.dumps(spec['enum'])})" if "enum" in spec else ""
        lines.append(f"    {param}: {_one_line(spec.get('description', param))}{choices}")
    if not properties:
        lines = lines[:-2]
    lines += ["", "Returns:", "    The tool's output, as the model reads it."]
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "\n".join(lines)
    method.__annotations__ = annotations
    method.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    return method


def _python_type(spec: dict[str, Any]) -> Any:
    if spec.get("type") == "array":
        item = _TYPES.get(str((spec.get("items") or {}).get("type")), str)
        return list[item]  # type: ignore[valid-type]
    return _TYPES.get(str(spec.get("type")), str)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
