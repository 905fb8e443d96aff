"""Turn a model spec from the command line or a config into a `Model`.

- `scripted:PATH`: replay the JSON script at PATH (`buildfixer.llm.scripted`); in a benchmark run,
  `scripted:DIR` replays `DIR/<instance_id>.json` (else `DIR/default.json`) for each instance;
- anything else: a litellm model string ("openai/gpt-4.1", "anthropic/claude-sonnet-4-5",
  "ollama/qwen2.5-coder", "openai/my-model" with an API base...).

The API base and key come from the arguments, else from `BUILDFIXER_API_BASE` and
`BUILDFIXER_API_KEY`, else litellm uses the provider's usual variables (OPENAI_API_KEY...).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.protocols import Model
from buildfixer.llm.litellm_model import LiteLLMModel
from buildfixer.llm.scripted import ScriptedModel, load_script

SCRIPTED_PREFIX = "scripted:"
DEFAULT_SCRIPT = "default.json"
API_BASE_ENV = "BUILDFIXER_API_BASE"
API_KEY_ENV = "BUILDFIXER_API_KEY"


def make_model(spec: str, **kwargs: Any) -> Model:
    """Build the model a spec names.

    Args:
        spec: "scripted:PATH" or a litellm model string.
        **kwargs: Options of `LiteLLMModel` (api_base, api_key, temperature, max_retries, backoff_s,
            timeout_s, price_in_per_mtok, price_out_per_mtok, extra); None values mean "default".
            A scripted model ignores them.

    Returns:
        The model.

    Raises:
        BuildfixerError: Empty spec, unreadable script, or bad options.
    """
    spec = spec.strip()
    if not spec:
        raise BuildfixerError("no model given (e.g. --model openai/gpt-4.1 or --model scripted:steps.json)")
    if spec.startswith(SCRIPTED_PREFIX):
        path = spec[len(SCRIPTED_PREFIX) :]
        if not path:
            raise BuildfixerError("scripted: needs a script path, e.g. scripted:steps.json")
        if Path(path).is_dir():
            raise BuildfixerError(
                f"{spec} is a folder of per-instance scripts (<instance_id>.json), for `bench run`; "
                "to repair one project give a script file"
            )
        return ScriptedModel(load_script(path), name=spec)

    options = {key: value for key, value in kwargs.items() if value is not None}
    options["api_base"] = options.get("api_base") or os.environ.get(API_BASE_ENV) or None
    options["api_key"] = options.get("api_key") or os.environ.get(API_KEY_ENV) or None
    try:
        return LiteLLMModel(spec, **options)
    except TypeError as exc:
        raise BuildfixerError(f"bad model option: {exc}") from None


def check_model(spec: str, **kwargs: Any) -> None:
    """Refuse, before any build, a model that could not answer: every part of a cascade ("a,b") is checked.

    A script is read and checked (a `scripted:DIR` of per-instance scripts is left to
    `check_instance_models`); a litellm model must name a known provider and have its credentials
    (`LiteLLMModel.check_setup`, which imports litellm). `kwargs` are those of `make_model`.

    Raises:
        BuildfixerError: The first part that cannot work, in one line.
    """
    parts = [part.strip() for part in spec.split(",")]
    if not any(parts):
        raise BuildfixerError("no model given (e.g. --model openai/gpt-4.1 or --model scripted:steps.json)")
    for part in parts:
        folder = part[len(SCRIPTED_PREFIX) :] if part.startswith(SCRIPTED_PREFIX) else ""
        if folder and Path(folder).is_dir():
            continue
        model = make_model(part, **kwargs)
        if isinstance(model, LiteLLMModel):
            model.check_setup()


def model_for_instance(spec: str, instance_id: str) -> str:
    """The spec one benchmark instance uses: `scripted:DIR` becomes that instance's script in DIR.

    Every part of a cascade ("cheap,strong") is resolved; other specs are returned unchanged.

    Raises:
        BuildfixerError: DIR has neither `<instance_id>.json` nor `default.json`.
    """
    parts = []
    for part in spec.split(","):
        path = part.strip()[len(SCRIPTED_PREFIX) :] if part.strip().startswith(SCRIPTED_PREFIX) else ""
        if path and Path(path).is_dir():
            folder = Path(path)
            candidates = (folder / f"{instance_id}.json", folder / DEFAULT_SCRIPT)
            chosen = next((f for f in candidates if f.is_file()), None)
            if chosen is None:
                missing = f"no script for instance {instance_id!r} in {folder} (nor a {DEFAULT_SCRIPT})"
                raise BuildfixerError(missing)
            part = f"{SCRIPTED_PREFIX}{chosen}"
        parts.append(part)
    return ",".join(parts)


def check_instance_models(spec: str, instance_ids: list[str], **kwargs: Any) -> None:
    """Fail before a run starts when a model of the spec cannot work for some instance.

    A scripted model must have a well-formed script for every instance; any other model is checked
    once by `check_model` (provider, credentials). `kwargs` are those of `make_model`.

    Raises:
        BuildfixerError: Which instances have no script, which script is malformed, or what a
            model lacks.
    """
    check_model(spec, **kwargs)
    missing = []
    for instance_id in instance_ids:
        try:
            resolved = model_for_instance(spec, instance_id)
        except BuildfixerError:
            missing.append(instance_id)
            continue
        for part in resolved.split(","):
            if part.strip().startswith(SCRIPTED_PREFIX):
                make_model(part)  # reads and checks the script
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise BuildfixerError(f"the scripted model has no script for {len(missing)} instance(s): {shown}")
