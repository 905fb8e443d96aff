"""The attempt's configuration, validated where it enters (a flag, a config file, a Python call).

A typo in any value is one clear error before any build starts, never a crash inside a worker.
The effective configuration (`describe`) is written next to results and into every trajectory,
so each number can be reproduced. pydantic is imported here, so this module is imported only
when a command runs, never at CLI start-up.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    InstanceOf,
    ValidationError,
    field_validator,
    model_validator,
)

from buildfixer.agents.registry import get_agent
from buildfixer.agents.tool_loop import Budget
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.sandbox.backends import SANDBOXES
from buildfixer.core.errors import BuildfixerError
from buildfixer.memory.trust import DEFAULT_TRUST, TRUST_LEVELS
from buildfixer.tools.presets import MASK_MODES, PRESETS

Model = TypeVar("Model", bound=BaseModel)

# Upper limits of numbers a person may give: anything above is a typo, and would overflow timers
# (`--timeout 1e308`) or allocate without end (`--samples 1000000000000`).
MAX_SECONDS = 7 * 24 * 3600.0  # a week: timeouts and time budgets
MAX_CALLS = 100_000
MAX_TOKENS = 10**10  # an attempt's token budget
MAX_COST_USD = 1_000_000.0
MAX_OUTPUT_TOKENS = 1_000_000  # one reply
MAX_SEED = 2**63 - 1  # providers take a 64-bit seed
MAX_JDK = 99


def number_problem(value: Any, *, whole: bool, low: float, high: float, low_open: bool = False) -> str | None:
    """What is wrong with a number given for a setting (None when it is fine), as "must be ..." words.

    Args:
        value: The value as it came (a flag, a config file, a Python call): any type.
        whole: An int is required (never a bool); otherwise an int or a float, finite.
        low: The smallest value allowed.
        high: The largest value allowed.
        low_open: `low` itself is excluded ("must be positive" for 0).
    """
    if not _is_number(value, whole):
        return f"must be a {'whole ' if whole else ''}number, got {value!r}"
    if not math.isfinite(value):
        return f"must be a finite number, got {value}"
    if low_open and value <= low:
        return "must be positive" if low == 0 else f"must be above {low:g}"
    if value < low:
        return f"must be at least {low:g}, got {value:g}"
    if value > high:
        return f"must be at most {high:g}, got {value:g}"
    return None


def check_number(
    option: str, value: Any, *, whole: bool, low: float, high: float, low_open: bool = False
) -> None:
    """`number_problem` for a command-line option: a BuildfixerError (exit 2) naming it.

    Raises:
        BuildfixerError: "OPTION must be ...".
    """
    if problem := number_problem(value, whole=whole, low=low, high=high, low_open=low_open):
        raise BuildfixerError(f"{option} {problem}")


def check_output_path(option: str, path: Path, *, directory: bool) -> None:
    """Refuse, before anything is written, a place an output cannot go.

    A directory output may exist (as a directory) or not; a file output must not be a directory.
    Either way the nearest existing ancestor must be a directory (not a file), so the parents
    can be made.

    Raises:
        BuildfixerError: "OPTION PATH is ...".
    """
    if path.is_dir() and not directory:
        raise BuildfixerError(f"{option} {path} is a directory: give a file name")
    if path.exists() and not path.is_dir() and directory:
        raise BuildfixerError(f"{option} {path} is a file: give a directory")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise BuildfixerError(f"{option} {path} is under {parent}, which is not a directory")
            return


def check_seconds(option: str, value: Any) -> None:
    """A timeout or time limit: positive, finite, at most MAX_SECONDS.

    Raises:
        BuildfixerError: "OPTION must be ...".
    """
    check_number(option, value, whole=False, low=0, high=MAX_SECONDS, low_open=True)


class ModelSettings(BaseModel):
    """Sampling settings passed to the provider; recorded with results (pass@k depends on them).

    Attributes:
        temperature: Sampling temperature (provider default when unset).
        max_output_tokens: Longest reply, in tokens (provider default when unset).
        seed: Sampling seed, for providers that honour one.
    """

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_output_tokens: int | None = Field(default=None, ge=1, le=MAX_OUTPUT_TOKENS, strict=True)
    seed: int | None = Field(default=None, ge=0, le=MAX_SEED, strict=True)

    @field_validator("temperature", mode="before")
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
        judge_model: A model that judges a resolved repair's patch besides the judge's rules
            (judge.llm_judge); None: the rules alone.
        memory_trust: Whose remembered fixes the attempt may replay or be shown (memory.trust):
            same (this repository's and the user's), user (the user's only) or any.
        memory_path: The fix memory read and written (None: the default one, in the cache).
        memory_domain: The trust domain of the repository repaired (memory.trust), what its
            repair is remembered under; None: unknown (only the user's entries are taken).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    agent: str = "tool"
    model: str = "recipes"
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
    judge_model: str | None = None
    memory_trust: str = DEFAULT_TRUST
    memory_path: Path | None = None
    memory_domain: str | None = None

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
        if self.model == "recipes" and not getattr(get_agent(self.agent), "accepts_recipes", False):
            return "recipes"
        return self.agent

    def needs_model(self) -> bool:
        """Whether the agent run calls a model (the recipes as a loop's policy call none)."""
        return get_agent(self.agent_name()).uses_model and self.model != "recipes"

    def portable(self) -> dict[str, Any]:
        """What another process needs to run the same attempt on another project (see `from_portable`)."""
        return {
            "agent": self.agent, "model": self.model, "toolset": self.toolset, "mask": self.mask,
            "guidance": self.guidance, "build_output": self.build_output, "first_error": self.first_error,
            "budget": dict(self.budget.__dict__), "model_settings": self.model_settings.model_dump(),
            **({"judge_model": self.judge_model} if self.judge_model else {}),  # older runs have none
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


def _is_number(value: Any, whole: bool) -> bool:
    """True for an int (or, unless `whole`, a float); never for a bool."""
    return not isinstance(value, bool) and isinstance(value, int if whole else int | float)


def _one_of(what: str, value: str, known: Any) -> str:
    if value not in known:
        raise ValueError(f"unknown {what} {value!r} (known: {', '.join(known)})")
    return value


def validated(cls: type[Model], data: dict[str, Any]) -> Model:
    """`cls` built from `data`; the first problem as one BuildfixerError line (exit 2), naming the field."""
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise BuildfixerError(validation_message(exc)) from None


def validation_message(exc: ValidationError) -> str:
    """The first error of a ValidationError as one line: `field: what is wrong`."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "config"
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown setting"
    return f"{where}: {message}"


def read_config_file(path: Path) -> dict[str, Any]:
    """Settings from a TOML or YAML file (by suffix): a flat table of option names and values.

    Keys are the long command-line option names, with dashes or underscores (`max-calls`,
    `max_calls`); command-line flags override them.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BuildfixerError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".yaml", ".yml"):
        raise BuildfixerError(f"config file {path}: use .toml, .yaml or .yml")
    try:
        data = tomllib.loads(text) if suffix == ".toml" else (yaml.safe_load(text) or {})
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise BuildfixerError(f"config file {path}: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise BuildfixerError(f"config file {path}: expected a table of settings at the top")
    return {str(key).replace("-", "_"): value for key, value in data.items()}
