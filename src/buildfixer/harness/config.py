"""The attempt's configuration, validated where it enters (a flag, a config file, a Python call).

A typo in any value is one clear error before any build starts, never a crash inside a worker.
The effective configuration (`describe`) is written next to results and into every trajectory,
so each number can be reproduced. pydantic is imported here, so this module is imported only
when a command runs, never at CLI start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    InstanceOf,
    field_validator,
    model_validator,
)

from buildfixer.agents.recipes import RECIPES
from buildfixer.agents.registry import get_agent
from buildfixer.agents.tool_loop import Budget
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.sandbox.backends import SANDBOXES
from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.checks import (
    MAX_CALLS,
    MAX_COST_USD,
    MAX_JDK,
    MAX_OUTPUT_TOKENS,
    MAX_SECONDS,
    MAX_SEED,
    MAX_TOKENS,
    number_problem,
)
from buildfixer.memory.trust import DEFAULT_TRUST, TRUST_LEVELS
from buildfixer.tools.presets import MASK_MODES, PRESETS


class ModelSettings(BaseModel):
    """Sampling settings passed to the provider; recorded with results (pass@k depends on them).

    Attributes:
        temperature: Sampling temperature (provider default when unset).
        max_output_tokens: Longest reply, in tokens (provider default when unset).
        seed: Sampling seed, for providers that honour one.
        timeout: Longest wait for one reply, in seconds (llm.litellm_model's default when unset);
            the time left of the attempt's budget bounds it too.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_output_tokens: int | None = Field(default=None, ge=1, le=MAX_OUTPUT_TOKENS, strict=True)
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED, strict=True)
    timeout: float | None = Field(default=None, gt=0.0, le=MAX_SECONDS)

    @field_validator("temperature", "timeout", mode="before")
    @classmethod
    def _not_a_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):  # pydantic would read `true` in a config file as 1.0
            raise ValueError(f"must be a number, got {value!r}")
        return value

    def model_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of llm.factory.make_model."""
        extra = {"max_tokens": self.max_output_tokens, "seed": self.seed}
        extra = {key: value for key, value in extra.items() if value is not None}
        kwargs: dict[str, Any] = {"extra": extra} if extra else {}
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if self.timeout is not None:
            kwargs["timeout_s"] = self.timeout
        return kwargs


class AttemptConfig(BaseModel):
    """Everything that defines an attempt.

    Attributes:
        agent: A registered agent (agents.registry): tool, recipes, coding-assistant, hierarchical,
            cascade, oracle, none.
        model: A litellm model string, "scripted:FILE", or "recipes" (which selects the recipes
            agent). For cascade: models separated by commas, cheapest first.
        toolset: Preset name (see tools.presets.PRESETS).
        mask: Masking of tool names/descriptions: none, names, descriptions, both.
        guidance: Add the tool usage guidance to the system prompt (the shell-agent variant).
        budget: Limits of the loop.
        build_output: What build tools return: "raw" (the study's choice) or "condensed".
        first_error: How the first message shows the current error: "condensed" or "raw".
        model_settings: Sampling settings passed to the provider.
        options: Build options (JDK, timeout, offline, cache).
        trajectory_path: Where the trajectory is saved after every step (None: not saved).
        frozen: Paths a repair may not change (a user's git-ignored files): their edits are
            undone before the verdict build.
        judge: Judge a resolved repair's patch (a step of the attempt, `attempt.judge_repair`);
            False: the verdict build alone decides (the training environment's `judge=False`).
        judge_tests: The judge also runs the project's tests before and after the patch, and the
            original tests against the patched code (judge.tests_run): three more builds.
        judge_model: A model that judges a resolved repair's patch besides the judge's rules
            (judge.llm_judge); None: the rules alone.
        memory_trust: Whose remembered fixes the attempt may replay or be shown (memory.trust):
            same (this repository's and the user's), user (the user's only) or any.
        memory_path: The fix memory read and written (None: the default one, in the cache).
        memory_domain: The trust domain of the repository repaired (memory.trust), what its
            repair is remembered under; None: unknown (only the user's entries are taken).
        triage: What the first build's failure is, before the agent (triage, docs/TRIAGE.md): "off";
            "log" (from its status and log alone, no build: the benchmark's), where an `infra`
            failure ends the attempt as `infra_error`; "full" (`fix`'s), which may also build again
            and build the base commit, and where a `flaky` failure ends it too, unpatched (`declined`).
        triage_builds: The builds "full" triage may run besides the first.
        triage_base: The base ref to compare with (None: found, see triage.base).
        triage_checkout: The user's checkout the base is found in (None: no base is compared).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    agent: str = "tool"
    model: str = RECIPES
    toolset: str = "gradlefixer"
    mask: str = "none"
    guidance: bool = False
    budget: InstanceOf[Budget] = Field(default_factory=Budget)
    build_output: Literal["raw", "condensed"] = "raw"
    first_error: Literal["condensed", "raw"] = "condensed"
    model_settings: ModelSettings = Field(default_factory=ModelSettings)
    # The same object the tools see: a JDK switch during the attempt shows in the result.
    options: InstanceOf[BuildOptions] = Field(default_factory=BuildOptions)
    trajectory_path: Path | None = None
    frozen: set[str] = Field(default_factory=set)
    judge: bool = True
    judge_tests: bool = False
    judge_model: str | None = None
    memory_trust: str = DEFAULT_TRUST
    memory_path: Path | None = None
    memory_domain: str | None = None
    triage: Literal["off", "log", "full"] = "off"
    triage_builds: int = Field(default=1, ge=0, le=10, strict=True)
    triage_base: str | None = None
    triage_checkout: Path | None = None

    @field_validator("memory_trust")
    @classmethod
    def _known_trust(cls, value: str) -> str:
        return _one_of("memory trust", value, TRUST_LEVELS)

    @field_validator("agent")
    @classmethod
    def _known_agent(cls, value: str) -> str:
        try:
            get_agent(value)
        except BuildfixerError as exc:  # as a validation error, so it names the field
            raise ValueError(str(exc)) from None
        return value

    @field_validator("toolset")
    @classmethod
    def _known_toolset(cls, value: str) -> str:
        return _one_of("toolset", value, PRESETS)

    @field_validator("mask")
    @classmethod
    def _known_mask(cls, value: str) -> str:
        return _one_of("mask", value, MASK_MODES)

    @field_validator("budget")
    @classmethod
    def _sane_budget(cls, budget: Budget) -> Budget:
        # A dataclass from a config file may hold any type: number_problem checks it before comparing.
        limits = (
            ("max_calls", True, MAX_CALLS), ("max_tokens", True, MAX_TOKENS),
            ("max_cost_usd", False, MAX_COST_USD), ("max_wall_s", False, MAX_SECONDS),
        )  # fmt: skip
        for name, whole, high in limits:
            value = getattr(budget, name)
            if value is None and name != "max_calls":
                continue
            problem = number_problem(value, whole=whole, low=1 if whole else 0, high=high, low_open=not whole)
            if problem:
                raise ValueError(f"{name} {problem}")
        return budget

    @field_validator("options")
    @classmethod
    def _sane_options(cls, options: BuildOptions) -> BuildOptions:
        if number_problem(options.timeout_s, whole=False, low=0, high=MAX_SECONDS, low_open=True):
            raise ValueError(
                f"the build timeout must be a positive number, got {options.timeout_s!r} "
                f"(seconds, at most {MAX_SECONDS:g})"
            )
        if options.jdk is not None and number_problem(options.jdk, whole=True, low=1, high=MAX_JDK):
            raise ValueError(f"no Java version {options.jdk}")
        _one_of("sandbox", options.sandbox, SANDBOXES)
        return options

    @model_validator(mode="after")
    def _pipeline_tools(self) -> AttemptConfig:
        # The repair loop works through the second study's ten tools unless told otherwise.
        if self.agent == "pipeline" and "toolset" not in self.model_fields_set:
            self.__dict__["toolset"] = "industrial"
        return self

    @model_validator(mode="after")
    def _model_given(self) -> AttemptConfig:
        if self.needs_model() and not self.model.strip():
            raise ValueError(f"the {self.agent} agent needs a model (e.g. openai/gpt-4.1 or scripted:FILE)")
        return self

    def agent_name(self) -> str:
        """The agent actually run: the model "recipes" means the recipes policy.

        Unless the agent takes the recipes as its own policy (the repair loop does).
        """
        if self.model == RECIPES and not getattr(get_agent(self.agent), "accepts_recipes", False):
            return RECIPES
        return self.agent

    def needs_model(self) -> bool:
        """Whether the agent run calls a model (the recipes as a loop's policy call none)."""
        return get_agent(self.agent_name()).uses_model and self.model != RECIPES

    def portable(self) -> dict[str, Any]:
        """What another process needs to run the same attempt on another project (see `from_portable`)."""
        return {
            "agent": self.agent, "model": self.model, "toolset": self.toolset, "mask": self.mask,
            "guidance": self.guidance, "build_output": self.build_output, "first_error": self.first_error,
            "budget": dict(self.budget.__dict__), "model_settings": self.model_settings.model_dump(),
            **({"judge": False} if not self.judge else {}),  # older runs have none of the three
            **({"judge_tests": True} if self.judge_tests else {}),
            **({"judge_model": self.judge_model} if self.judge_model else {}),
            **({"memory_trust": self.memory_trust} if self.memory_trust != DEFAULT_TRUST else {}),
        }  # fmt: skip

    @classmethod
    def from_portable(cls, data: dict[str, Any], **local: Any) -> AttemptConfig:
        """The attempt `portable` described, with this project's own settings (options, trajectory_path)."""
        return cls.model_validate({**data, "budget": Budget(**data["budget"]), **local})

    def describe(self) -> dict[str, Any]:
        """The effective configuration as recorded next to results and in trajectories."""
        return {**self.portable(), "agent": self.agent_name(), "build": describe_options(self.options)}


def describe_options(options: BuildOptions) -> dict[str, Any]:
    """The build options that change a result (not where caches or logs live)."""
    return {
        "jdk": options.jdk, "timeout_s": options.timeout_s, "offline": options.offline,
        "tasks": options.tasks, "warm": options.warm, "sandbox": options.sandbox, "as_of": options.as_of,
    }  # fmt: skip


def _one_of(what: str, value: str, known: Any) -> str:
    if value not in known:
        raise ValueError(f"unknown {what} {value!r} (known: {', '.join(known)})")
    return value
