"""Any provider litellm speaks (OpenAI, Anthropic, Gemini, Ollama, vLLM, ...) as a `Model`.

litellm takes seconds to import, so it is imported on the first real call, never at module
import. Transient failures (rate limits, timeouts, 5xx) are retried with exponential backoff and
jitter; authentication and request errors fail at once. API keys never reach our messages or
reprs: every provider message we pass on is redacted first.

Costs come from configured prices (arguments, else `BUILDFIXER_PRICE_IN` / `BUILDFIXER_PRICE_OUT`,
USD per million tokens), else from litellm's bundled price map. Local models (Ollama, vLLM, an
`openai/` model on a custom `api_base`) and models the map does not know get cost 0 with
`cost_known=False`: a lower bound, never an exact zero.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import random
import time
import uuid
from typing import Any

from buildfixer.core.chat import (
    CallLimits,
    Message,
    ModelError,
    ModelReply,
    ModelTimeout,
    ToolCall,
    Usage,
    tokens_by_length,
)
from buildfixer.core.errors import BuildfixerError
from buildfixer.llm.endpoint import check_reachable, shown_endpoint
from buildfixer.llm.redact import redact
from buildfixer.llm.text_calls import with_text_calls

PRICE_IN_ENV = "BUILDFIXER_PRICE_IN"
PRICE_OUT_ENV = "BUILDFIXER_PRICE_OUT"
# Providers that run on the user's own hardware: litellm's map lists some at price 0, which
# would read as an exact zero.
LOCAL_PROVIDERS = (
    "ollama/",
    "ollama_chat/",
    "hosted_vllm/",
    "vllm/",
    "lm_studio/",
    "llamafile/",
    "xinference/",
)
MAX_BACKOFF_S = 60.0
# The longest reply asked for unless the model settings say otherwise (--max-output-tokens): every
# provider accepts it, and without one some providers reserve the model's whole output window.
DEFAULT_MAX_TOKENS = 4096
# How long one call may take unless set (--model-timeout). A local model on a CPU reads a first
# request of a few thousand tokens in 30-150 s and may write for minutes more; a hosted one
# that has not answered in 5 minutes will not.
DEFAULT_TIMEOUT_S = 300.0
LOCAL_TIMEOUT_S = 900.0
# The window a local model is assumed to have unless told (llama.cpp's and ollama's servers are
# often started with less than the model could take; 32k is what benchmarks/local_model.py serves).
LOCAL_CONTEXT_WINDOW = 32_768
# Sent as the key to an API base of the user's (BUILDFIXER_API_BASE) when no key is known: local
# OpenAI-compatible servers need none, but the openai client refuses to send a request without one.
PLACEHOLDER_API_KEY = "no-key-needed"
# Kinds of errors, by litellm exception class name (litellm is not imported at module load).
_FATAL = {
    "AuthenticationError": "authentication failed: check the API key (BUILDFIXER_API_KEY or the provider's "
    "usual variable, e.g. OPENAI_API_KEY)",
    "PermissionDeniedError": "permission denied for this model or key",
    "NotFoundError": "model or endpoint not found: check the model name and the API base",
    "ContextWindowExceededError": "the conversation no longer fits the model's context window",
    "ContentPolicyViolationError": "the provider refused the request (content policy)",
    "PaymentRequiredError": "the provider requires payment (credits exhausted?)",
    "BadRequestError": "the provider rejected the request",
    "UnprocessableEntityError": "the provider rejected the request",
    "UnsupportedParamsError": "the provider does not support a parameter of the request",
}
_TRANSIENT = {
    "RateLimitError",
    "APIConnectionError",
    "Timeout",
    "APITimeoutError",
    "ServiceUnavailableError",
    "InternalServerError",
    "BadGatewayError",
}
_TRANSIENT_STATUSES = {408, 409, 425, 429}
_TIMEOUTS = {"Timeout", "APITimeoutError", "ReadTimeout", "TimeoutException"}

_litellm: Any = None
# litellm >= 1.92 imports its MCP-gateway handler (which needs the proxy extras: mcp, fastapi)
# whenever `tools` is passed, and fails without them. Plain function tools never use that
# gateway; litellm's own flag `_skip_mcp_handler` (popped before any provider sees it) skips it.
_skip_mcp_flag = False


def load_litellm() -> Any:
    """Import litellm once, offline-friendly and quiet (about 3.6 s the first time)."""
    global _litellm, _skip_mcp_flag
    if _litellm is None:
        # The price map ships with litellm: do not fetch it from the network on import.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        # lazy: litellm takes ~3.6 s to import; only a real call needs it.
        module: Any = importlib.import_module("litellm")
        module.drop_params = True  # a provider that lacks a parameter (temperature...) ignores it
        module.suppress_debug_info = True  # no "Give Feedback / Get Help" banners on stdout
        module.telemetry = False
        # Only versions that have the handler know the flag; older ones would send it to the provider.
        try:
            _skip_mcp_flag = (
                importlib.util.find_spec("litellm.responses.mcp.chat_completions_handler") is not None
            )
        except ImportError:  # the package exists but cannot load: completion() would fail importing it
            _skip_mcp_flag = True
        _litellm = module
    return _litellm


def _env_price(name: str) -> float | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        raise BuildfixerError(f"{name}={raw!r} is not a number (USD per million tokens)") from None


def _get(obj: Any, key: str) -> Any:
    """An attribute of a litellm object, or the same key of a plain dict."""
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _class_names(exc: BaseException) -> list[str]:
    return [cls.__name__ for cls in type(exc).__mro__]


class LiteLLMModel:
    """A model reached through `litellm.completion`.

    Attributes:
        name: litellm model string, e.g. "anthropic/claude-sonnet-4-5", "ollama/qwen2.5-coder".
        api_base: Endpoint override (local servers, proxies), or None for the provider default.
        temperature: Sampling temperature, or None for the provider default.
        max_retries: Retries after the first attempt, for transient errors only.
        backoff_s: First retry delay; doubles on each retry (plus up to 25 % jitter), capped at 60 s.
        timeout_s: Timeout of one call (DEFAULT_TIMEOUT_S, LOCAL_TIMEOUT_S for local models).
        price_in_per_mtok: Configured input price (USD per million tokens), or None.
        price_out_per_mtok: Configured output price, or None.
        max_tokens: Longest reply asked for, in tokens; always sent (`extra["max_tokens"]` wins).
        context_window: The model's window in tokens, when the agent must fit its conversation
            in it (LOCAL_CONTEXT_WINDOW for local models; None: the provider's, not managed).
        extra: Further keyword arguments for `litellm.completion` (e.g. {"seed": 7}).
    """

    def __init__(
        self,
        name: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        max_retries: int = 4,
        backoff_s: float = 1.0,
        timeout_s: float | None = None,
        price_in_per_mtok: float | None = None,
        price_out_per_mtok: float | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        context_window: int | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        if not name:
            raise BuildfixerError("no model name given")
        self.name = name
        self.api_base = api_base or None
        self._api_key = api_key or None  # private: never in repr, messages or trajectories
        self.temperature = temperature
        self.max_retries = max(0, max_retries)
        self.backoff_s = max(0.0, backoff_s)
        if timeout_s is not None and timeout_s <= 0:
            raise BuildfixerError(f"the model timeout must be positive, got {timeout_s:g}s")
        self.timeout_s = timeout_s or (LOCAL_TIMEOUT_S if self.is_local else DEFAULT_TIMEOUT_S)
        self.context_window = context_window or (LOCAL_CONTEXT_WINDOW if self.is_local else None)
        if price_in_per_mtok is None and price_out_per_mtok is None:
            price_in_per_mtok, price_out_per_mtok = _env_price(PRICE_IN_ENV), _env_price(PRICE_OUT_ENV)
        if (price_in_per_mtok is None) != (price_out_per_mtok is None):
            raise BuildfixerError(
                f"give both prices or neither (input and output, USD per million tokens; "
                f"or {PRICE_IN_ENV} and {PRICE_OUT_ENV})"
            )
        if (price_in_per_mtok or 0) < 0 or (price_out_per_mtok or 0) < 0:
            raise BuildfixerError("prices cannot be negative")
        self.price_in_per_mtok = price_in_per_mtok
        self.price_out_per_mtok = price_out_per_mtok
        self.max_tokens = max_tokens
        self.extra = dict(extra or {})
        if self.extra.get("stream"):
            raise BuildfixerError("streaming is not supported: remove 'stream' from the model options")
        self._sleep = time.sleep

    def __repr__(self) -> str:
        key = "set" if self._api_key else "unset"
        return f"LiteLLMModel(name={self.name!r}, api_base={self.api_base!r}, api_key=<{key}>)"

    @property
    def is_local(self) -> bool:
        """True for models served on the user's own hardware or an arbitrary OpenAI-compatible endpoint."""
        lowered = self.name.lower()
        return lowered.startswith(LOCAL_PROVIDERS) or (lowered.startswith("openai/") and bool(self.api_base))

    def check_setup(self) -> None:
        """Refuse a model that cannot answer: unknown provider, no credentials, or a dead endpoint.

        The endpoint is the user's own (API base, local server): it must accept a connection and
        the key. Run before any build, so a typo, a forgotten key or a server not started costs no build
        time. Imports litellm; asks the endpoint once (`llm.endpoint.check_reachable`, <= 5 s).

        Raises:
            BuildfixerError: One line naming the model and what to set.
        """
        litellm = load_litellm()
        try:
            litellm.get_llm_provider(self.name, api_base=self.api_base)
        except Exception:  # litellm raises its own BadRequestError for an unknown provider
            raise BuildfixerError(
                f"unknown model {self.name!r}: no provider of that name (write provider/model, e.g. "
                "openai/gpt-4.1, anthropic/claude-sonnet-4-5, ollama/qwen2.5-coder; or scripted:FILE)"
            ) from None
        endpoint = self.api_base or self._default_local_base(litellm)
        if endpoint:  # the user's own endpoint: a key is optional (see PLACEHOLDER_API_KEY)
            key, known = self._key_sent(litellm)
            check_reachable(endpoint, key, key_known=known)
            return
        if missing := self._missing_credentials(litellm):
            raise BuildfixerError(
                f"model {self.name}: no credentials: set {', '.join(missing)} (or BUILDFIXER_API_KEY); "
                "for a local server set BUILDFIXER_API_BASE"
            )

    def _key_sent(self, litellm: Any) -> tuple[str | None, bool]:
        """The key a call would send, and whether it is known (litellm may find one we cannot name).

        As `complete` does: the key given; else, with an API base and no credentials litellm can
        find, the placeholder; else the provider's usual variable (PROVIDER_API_KEY) when set.
        """
        if self._api_key:
            return self._api_key, True
        if not self._missing_credentials(litellm):
            variable = f"{self.name.split('/', 1)[0].upper()}_API_KEY"
            return os.environ.get(variable), variable in os.environ
        return (PLACEHOLDER_API_KEY if self.api_base else None), True

    def _default_local_base(self, litellm: Any) -> str | None:
        """Where litellm sends a local model given no API base (ollama: localhost:11434), if known."""
        if not self.is_local:
            return None
        try:
            return litellm.get_llm_provider(self.name)[3] or None
        except Exception:
            return None

    def _missing_credentials(self, litellm: Any) -> list[str]:
        """The provider's variables (keys, endpoints) that are neither set nor given; [] with a key."""
        if self._api_key:
            return []
        try:
            found = litellm.validate_environment(self.name, api_base=self.api_base)
        except Exception:  # an odd model string: the call itself will say what is wrong
            return []
        missing = [str(name) for name in found.get("missing_keys") or []]
        if self.is_local:  # local servers default to localhost: only keys would be missing
            missing = [name for name in missing if not name.endswith("_API_BASE")]
        return missing

    def complete(
        self, messages: list[Message], tools: list[dict[str, Any]], limits: CallLimits | None = None
    ) -> ModelReply:
        """One model call within `limits` (and the model's own timeout and reply length), with retries.

        Transient errors are retried; a timeout is not when the model is local (a single-slot
        server still busy with the first request would queue the copy behind it) or when the
        timeout was the budget's: the call then fails with `ModelTimeout`.

        Raises:
            ModelError: A non-transient error, retries exhausted, or an unusable reply.
        """
        litellm = load_litellm()
        limits = limits or CallLimits()
        timeout = min(self.timeout_s, limits.timeout_s) if limits.timeout_s is not None else self.timeout_s
        max_tokens = int(self.extra.get("max_tokens") or self.max_tokens)
        if limits.max_tokens is not None:
            max_tokens = max(1, min(max_tokens, limits.max_tokens))
        kwargs: dict[str, Any] = {
            "model": self.name,
            "messages": messages,
            "tools": tools or None,
            "num_retries": 0,  # we retry ourselves, with our backoff and our error handling
            **self.extra,
            "timeout": timeout,
            "max_tokens": max_tokens,
        }
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        elif self.api_base and self._missing_credentials(litellm):
            kwargs["api_key"] = PLACEHOLDER_API_KEY
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if tools and _skip_mcp_flag:
            kwargs.setdefault("_skip_mcp_handler", True)
        start = time.monotonic()
        retry_timeouts = not (self.is_local or timeout < self.timeout_s)
        response = self._call_with_retries(litellm, kwargs, retry_timeouts=retry_timeouts)
        reply = self._convert(litellm, response, messages, tools)
        reply.duration_s = time.monotonic() - start
        return reply

    def _call_with_retries(self, litellm: Any, kwargs: dict[str, Any], *, retry_timeouts: bool) -> Any:
        attempt = 0
        while True:
            try:
                return litellm.completion(**kwargs)
            except Exception as exc:  # litellm maps every provider failure onto its own classes
                if not retry_timeouts and _TIMEOUTS.intersection(_class_names(exc)):
                    raise ModelTimeout(
                        f"model {self.name}: no reply within {kwargs['timeout']:g}s; not sent again "
                        "(a local server may still be writing it); --model-timeout sets the limit"
                    ) from None
                transient = self._is_transient(exc)
                if not transient or attempt >= self.max_retries:
                    raise self._error(exc, attempts=attempt + 1, transient=transient) from None
                self._sleep(self._delay(attempt, exc))
                attempt += 1

    @staticmethod
    def _is_transient(exc: BaseException) -> bool:
        names = _class_names(exc)
        if any(name in _FATAL for name in names):
            return False
        if any(name in _TRANSIENT for name in names):
            return True
        status = getattr(exc, "status_code", None)
        return isinstance(status, int) and (status >= 500 or status in _TRANSIENT_STATUSES)

    def _delay(self, attempt: int, exc: BaseException) -> float:
        delay = self.backoff_s * (2**attempt) * (1 + random.uniform(0, 0.25))
        headers: Any = getattr(getattr(exc, "response", None), "headers", None)
        retry_after = headers.get("retry-after") if hasattr(headers, "get") else None
        try:
            if retry_after is not None and self.backoff_s > 0:
                delay = max(delay, float(retry_after))
        except (TypeError, ValueError):
            pass
        return min(delay, MAX_BACKOFF_S)

    def _error(self, exc: BaseException, *, attempts: int, transient: bool) -> ModelError:
        names = _class_names(exc)
        what = next((_FATAL[name] for name in names if name in _FATAL), None)
        status = getattr(exc, "status_code", None)
        detail = redact(str(getattr(exc, "message", None) or exc), [self._api_key] if self._api_key else None)
        if len(detail) > 600:
            detail = detail[:600] + " [...]"
        parts = [f"model {self.name}" + (f" at {shown_endpoint(self.api_base)}" if self.api_base else "")]
        if what is None:
            what = f"gave up after {attempts} attempts" if transient else "call failed"
        parts.append(what)
        kind = type(exc).__name__ + (f" (HTTP {status})" if isinstance(status, int) else "")
        return ModelError(f"{': '.join(parts)}: {kind}: {detail}")

    def _convert(
        self, litellm: Any, response: Any, messages: list[Message], tools: list[dict[str, Any]]
    ) -> ModelReply:
        choices = _get(response, "choices") or []
        if not choices:
            raise ModelError(f"model {self.name}: the reply has no choices")
        message = _get(choices[0], "message")
        if message is None:
            raise ModelError(f"model {self.name}: the reply has no message")
        content = _get(message, "content") or ""
        if not isinstance(content, str):  # some providers send a list of content parts
            content = "".join(str(_get(part, "text") or "") for part in content)
        calls: list[ToolCall] = []
        for raw in _get(message, "tool_calls") or []:
            function = _get(raw, "function")
            name = _get(function, "name") or ""
            arguments = _get(function, "arguments")
            if arguments is None or arguments == "":
                arguments = "{}"
            elif not isinstance(arguments, str):
                arguments = json.dumps(arguments)
            call_id = _get(raw, "id") or f"call_{uuid.uuid4().hex[:24]}"
            calls.append(ToolCall(id=str(call_id), name=str(name), arguments=arguments))
        usage = self._usage(litellm, response, messages, tools, content, calls)
        # A server that does not parse the model's calls leaves them in the text: run them too.
        return with_text_calls(ModelReply(content=content, tool_calls=calls, usage=usage), tools)

    def _usage(
        self,
        litellm: Any,
        response: Any,
        messages: list[Message],
        tools: list[dict[str, Any]],
        content: str,
        calls: list[ToolCall],
    ) -> Usage:
        reported = _get(response, "usage")
        input_tokens = int(_get(reported, "prompt_tokens") or 0) if reported is not None else 0
        output_tokens = int(_get(reported, "completion_tokens") or 0) if reported is not None else 0
        estimated = False
        if input_tokens <= 0:
            estimated = True
            try:
                counted = litellm.token_counter(model=self.name, messages=messages, tools=tools or None)
                input_tokens = int(counted)
            except Exception:
                input_tokens = tokens_by_length(json.dumps(messages, default=str) + json.dumps(tools))
        produced = content + "".join(c.name + c.arguments for c in calls)
        if output_tokens <= 0 and produced:
            estimated = True
            output_tokens = tokens_by_length(produced)
        cost, known = self._cost(litellm, response, input_tokens, output_tokens, estimated)
        return Usage(input_tokens, output_tokens, cost, known, estimated)

    def _cost(
        self, litellm: Any, response: Any, input_tokens: int, output_tokens: int, estimated: bool
    ) -> tuple[float, bool]:
        if self.price_in_per_mtok is not None and self.price_out_per_mtok is not None:
            cost = (input_tokens * self.price_in_per_mtok + output_tokens * self.price_out_per_mtok) / 1e6
            return cost, True
        if self.is_local:
            return 0.0, False
        try:
            if estimated:  # the response's own usage is empty: price our counts
                prompt_cost, completion_cost = litellm.cost_per_token(
                    model=self.name, prompt_tokens=input_tokens, completion_tokens=output_tokens
                )
                cost = float(prompt_cost) + float(completion_cost)
            else:
                cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # model not in litellm's price map
            return 0.0, False
        if cost <= 0 and input_tokens + output_tokens > 0:
            return 0.0, False  # a zero price for real tokens is a missing price, not a free model
        return cost, True
