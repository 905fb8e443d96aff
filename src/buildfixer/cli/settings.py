"""The attempt options shared by `fix` and `bench run`: one name, one meaning, one check, a config file.

Both commands declare these options with the same types and help; a `--config FILE` (TOML or
YAML, keys = the long option names) supplies any of them, and a flag given on the command line
overrides the file. Everything is validated before any build starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from click.core import ParameterSource

from buildfixer.buildsys.sandbox.identity import check_sandbox_settings
from buildfixer.core.errors import BuildfixerError

if TYPE_CHECKING:  # the build layer is imported when a command runs, not at start-up
    from buildfixer.buildsys.options import BuildOptions

ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", help="TOML or YAML file of these options (flags given here override it)."),
]
AgentOpt = Annotated[
    str, typer.Option(help="tool, recipes, coding-assistant, hierarchical, cascade (models comma-separated).")
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
MAX_REPEATS = 100  # builds of one state (validation, curation): more only makes a run endless
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

# Options of the attempt itself, by parameter name (what a config file may hold besides a
# command's own options).
ATTEMPT_OPTIONS = (
    "agent", "model", "toolset", "mask", "guidance", "max_calls", "max_tokens", "max_cost", "max_time",
    "temperature", "max_output_tokens", "seed", "judge_model", "memory_trust",
)  # fmt: skip


def merged(ctx: typer.Context, config_file: Path | None, flags: dict[str, Any]) -> dict[str, Any]:
    """The command's options: the file's values, then every flag given on the command line.

    Raises:
        BuildfixerError: An unreadable file, or a key no option of this command has.
    """
    # lazy: pydantic and yaml, only when a command runs
    from buildfixer.harness.config import read_config_file

    values = dict(flags)
    if config_file is None:
        return values
    data = read_config_file(config_file)
    if unknown := sorted(set(data) - set(flags)):
        raise BuildfixerError(f"config file {config_file}: unknown setting {unknown[0]!r}")
    for name, value in data.items():
        if ctx.get_parameter_source(name) in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP):
            values[name] = value
    return values


def attempt_config(values: dict[str, Any], **local: Any) -> Any:
    """The validated AttemptConfig of these option values (plus project-local fields such as options).

    Raises:
        BuildfixerError: The first bad value, as one line naming the option.
    """
    from buildfixer.agents.tool_loop import Budget  # lazy: the agents import the tools and the build layer
    from buildfixer.harness.config import AttemptConfig, validated  # lazy: pydantic

    data = {
        **{
            key: values[key]
            for key in ("agent", "model", "toolset", "mask", "guidance")
            if values[key] is not None  # an unset toolset: the agent's default
        },
        "budget": Budget(values["max_calls"], values["max_tokens"], values["max_cost"], values["max_time"]),
        "model_settings": {key: values[key] for key in ("temperature", "max_output_tokens", "seed")},
        "judge_model": values.get("judge_model"),
        **({"memory_trust": values["memory_trust"]} if values.get("memory_trust") is not None else {}),
        **local,
    }  # fmt: skip
    return validated(AttemptConfig, data)
