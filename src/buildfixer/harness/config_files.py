"""Config files and models read from a person's settings: one BuildfixerError line for any problem.

Reads TOML or YAML files of command-line settings and builds pydantic models from settings,
turning a pydantic error into one line naming the field (exit 2 before any build starts).
pydantic and PyYAML are imported here, so only the commands that take such settings pay for them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from buildfixer.core.errors import BuildfixerError

Model = TypeVar("Model", bound=BaseModel)


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
