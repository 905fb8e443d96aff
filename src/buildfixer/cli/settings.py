"""The attempt options shared by `fix` and `bench run`: one name, one meaning, one check, a config file.

Both commands declare these options with the same types and help; a `--config FILE` (TOML or
YAML, keys = the long option names) supplies any of them, and a flag given on the command line
overrides the file. The command's values travel as one typed object (`FixSettings`,
`RunSettings`) to its body, which validates them (`AttemptSettings.attempt_config`) before any
build starts.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from click.core import ParameterSource

from buildfixer.buildsys.sandbox.identity import check_sandbox_settings
from buildfixer.core.errors import BuildfixerError

if TYPE_CHECKING:  # the build layer and the harness are imported when a command runs, not at start-up
    from buildfixer.buildsys.options import BuildOptions
    from buildfixer.harness.config import AttemptConfig

ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", help="TOML or YAML file of these options (flags given here override it)."),
]
AgentOpt = Annotated[
    str,
    typer.Option(
        help="tool, recipes, coding-assistant, hierarchical, cascade (models comma-separated), pipeline "
        "(the repair loop), oracle (the gold patch), none (build only)."
    ),
]
ModelOpt = Annotated[
    str, typer.Option(help="litellm model (e.g. openai/gpt-4.1), scripted:FILE, or recipes (offline).")
]
JudgeModelOpt = Annotated[
    str | None,
    typer.Option(
        help="A model that also judges the repair's patch (an LLM judge beside the rules).",
        show_default=False,
    ),
]
ToolsetOpt = Annotated[
    str | None,
    typer.Option(
        help="Tool preset (see `buildfixer toolsets`); default: industrial for the pipeline agent, "
        "gradlefixer for the others.",
        show_default=False,
    ),
]
MaskOpt = Annotated[str, typer.Option(help="Mask tool names, descriptions, both, or none.")]
GuidanceOpt = Annotated[bool, typer.Option(help="Add tool usage guidance to the prompt.")]
MaxCallsOpt = Annotated[int, typer.Option(help="LLM call budget per attempt.")]
MaxTokensOpt = Annotated[int | None, typer.Option(help="Token budget per attempt (input + output).")]
MaxCostOpt = Annotated[float | None, typer.Option(help="Cost budget per attempt, in USD.")]
MaxTimeOpt = Annotated[float | None, typer.Option(help="Wall-time budget per attempt, in seconds.")]
TemperatureOpt = Annotated[float | None, typer.Option(help="Sampling temperature.")]
MaxOutputOpt = Annotated[int | None, typer.Option(help="Longest model reply, in tokens.")]
ModelTimeoutOpt = Annotated[
    float | None,
    typer.Option(help="Longest wait for one model reply, in seconds (default 300; 900 for local models)."),
]
SeedOpt = Annotated[int | None, typer.Option(help="Sampling seed, for providers that honour one.")]
MemoryTrustOpt = Annotated[
    str,
    typer.Option(
        help="Whose remembered fixes may be replayed or shown to the model: same (this repository's "
        "and those you added with `memory add`/`memory import`), user (only yours) or any (also other "
        "projects': a fix learned on a hostile project would be replayed here).",
    ),
]
OnlyOpt = Annotated[
    list[str] | None,
    typer.Option("--only", help="Only these instances: ids or globs, comma-separated or repeated."),
]
WorkersOpt = Annotated[int | None, typer.Option(help="Instances at once (default: one per 2 cores).")]
NoSandboxOpt = Annotated[
    bool,
    typer.Option(
        "--no-sandbox", help="Run builds unconfined on this machine (default: in a bubblewrap sandbox)."
    ),
]
# Said with every result of a build that ran unconfined, so nobody mistakes it for a contained one.
NO_SANDBOX_NOTE = "sandbox: none (--no-sandbox): the build ran unconfined on this machine"


def with_sandbox(options: BuildOptions, no_sandbox: Any) -> BuildOptions:
    """`options` with --no-sandbox applied: sandbox "none"; without it, BuildOptions' default stands.

    Raises:
        BuildfixerError: A value that is not true or false (from a config file).
    """
    check_flag("no_sandbox", no_sandbox)
    if no_sandbox:
        options.sandbox = "none"
    else:
        check_sandbox_settings()  # bad limits or sandbox uid: one line, exit 2, before any build
    return options


def check_flag(name: str, value: Any) -> None:
    """A yes/no setting from a config file must be true or false (a string "false" would read as yes).

    Raises:
        BuildfixerError: One line naming the setting.
    """
    if not isinstance(value, bool):
        raise BuildfixerError(f"{name} must be true or false, got {value!r}")


def only_patterns(only: list[str] | None) -> str | None:
    """Repeated --only values as the one comma-separated selection bench.dataset.select_instances reads."""
    return ",".join(only) if only else None


@dataclass(frozen=True, kw_only=True)
class AttemptSettings:
    """The options of the attempt itself, shared by `fix` and `bench run`, by their parameter names.

    The names are also the keys of a config file. Each value is the command line's, else the config
    file's (`with_config_file`), which may be of any type: `attempt_config` checks every one.
    """

    agent: str
    model: str
    toolset: str | None  # None: the agent's default
    mask: str
    guidance: bool
    max_calls: int
    max_tokens: int | None
    max_cost: float | None
    max_time: float | None
    temperature: float | None
    max_output_tokens: int | None
    seed: int | None
    model_timeout: float | None
    judge_model: str | None
    memory_trust: str

    def attempt_config(self, **local: Any) -> AttemptConfig:
        """The validated AttemptConfig of these settings (plus project-local fields such as options).

        Raises:
            BuildfixerError: The first bad value, as one line naming the option.
        """
        # lazy: the agents import the tools and the build layer; the harness imports pydantic
        from buildfixer.agents.tool_loop import Budget
        from buildfixer.harness import config, config_files

        chosen = {"agent": self.agent, "model": self.model, "toolset": self.toolset, "mask": self.mask,
                  "guidance": self.guidance}  # fmt: skip
        data = {
            **{key: value for key, value in chosen.items() if value is not None},  # unset: the default
            "budget": Budget(self.max_calls, self.max_tokens, self.max_cost, self.max_time),
            "model_settings": {"temperature": self.temperature, "max_output_tokens": self.max_output_tokens,
                               "seed": self.seed, "timeout": self.model_timeout},
            "judge_model": self.judge_model,
            **({"memory_trust": self.memory_trust} if self.memory_trust is not None else {}),
            **local,
        }  # fmt: skip
        return config_files.validated(config.AttemptConfig, data)


@dataclass(frozen=True, kw_only=True)
class FixSettings(AttemptSettings):
    """`buildfixer fix`'s settings: the attempt's, and how each of its builds runs."""

    jdk: int | None
    timeout: float  # of each build, in seconds
    offline: bool
    no_sandbox: bool
    no_triage: bool = False  # repair whatever the first build's failure is (docs/TRIAGE.md)
    base: str | None = None  # the base ref triage compares with (None: found)
    system: str | None = None  # the build of a project that has two (None: the first found)


@dataclass(frozen=True, kw_only=True)
class RunSettings(AttemptSettings):
    """`buildfixer bench run`'s settings: the attempt's, and how the run goes (bench.run.RunConfig)."""

    memory: Path | None
    samples: int
    workers: int | None
    attempt_timeout: float
    build_timeout: float
    backend: str
    no_sandbox: bool


Settings = TypeVar("Settings", bound=AttemptSettings)


def with_config_file(ctx: typer.Context, config_file: Path | None, settings: Settings) -> Settings:
    """The command's settings: the file's values, then every flag given on the command line.

    Raises:
        BuildfixerError: An unreadable file, or a key no option of this command has.
    """
    # lazy: pydantic and yaml, only when a command runs
    from buildfixer.harness.config_files import read_config_file

    if config_file is None:
        return settings
    data = read_config_file(config_file)
    if unknown := sorted(set(data) - {field.name for field in fields(settings)}):
        raise BuildfixerError(f"config file {config_file}: unknown setting {unknown[0]!r}")
    defaults = (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)
    return replace(settings, **{
        name: value for name, value in data.items() if ctx.get_parameter_source(name) in defaults
    })  # fmt: skip
