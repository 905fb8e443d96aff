"""Turn a model spec from the command line or a config into a `Model`.

- `scripted:PATH`: replay the JSON script at PATH (`buildfixer.llm.scripted`);
- anything else: a litellm model string ("openai/gpt-4.1", "anthropic/claude-sonnet-4-5",
  "ollama/qwen2.5-coder", "openai/my-model" with an API base...).

The API base and key come from the arguments, else from `BUILDFIXER_API_BASE` and
`BUILDFIXER_API_KEY`, else litellm uses the provider's usual variables (OPENAI_API_KEY...).
"""

from __future__ import annotations

import os
from typing import Any

from buildfixer.errors import BuildfixerError
from buildfixer.llm.base import Model

SCRIPTED_PREFIX = "scripted:"
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
        from buildfixer.llm.scripted import ScriptedModel, load_script

        path = spec[len(SCRIPTED_PREFIX) :]
        if not path:
            raise BuildfixerError("scripted: needs a script path, e.g. scripted:steps.json")
        return ScriptedModel(load_script(path), name=spec)

    from buildfixer.llm.litellm_model import LiteLLMModel

    options = {key: value for key, value in kwargs.items() if value is not None}
    options["api_base"] = options.get("api_base") or os.environ.get(API_BASE_ENV) or None
    options["api_key"] = options.get("api_key") or os.environ.get(API_KEY_ENV) or None
    try:
        return LiteLLMModel(spec, **options)
    except TypeError as exc:
        raise BuildfixerError(f"bad model option: {exc}") from None
