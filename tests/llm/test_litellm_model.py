"""The real litellm path (litellm, openai SDK, HTTP) against the local scripted server."""

import json
import time
from typing import Any

import pytest

from buildfixer.core.chat import CallLimits, ModelError, ModelTimeout
from buildfixer.core.errors import BuildfixerError
from buildfixer.llm.fake_server import FakeOpenAIServer
from buildfixer.llm.litellm_model import (
    DEFAULT_TIMEOUT_S,
    LOCAL_TIMEOUT_S,
    PRICE_IN_ENV,
    PRICE_OUT_ENV,
    LiteLLMModel,
)

KEY = "sk-test-0123456789abcdefghijkl"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file of the project.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {"name": "run_build", "description": "Run the build.", "parameters": {"type": "object"}},
    },
]
USER = [{"role": "user", "content": "The build fails, fix it."}]
pytestmark = pytest.mark.usefixtures("litellm_loaded")  # litellm imported once for the module (about 3.6 s)


@pytest.fixture(autouse=True)
def no_env_prices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PRICE_IN_ENV, raising=False)
    monkeypatch.delenv(PRICE_OUT_ENV, raising=False)


def model_for(server: FakeOpenAIServer, **kwargs: Any) -> LiteLLMModel:
    kwargs.setdefault("backoff_s", 0.001)
    return LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key=KEY, **kwargs)


def test_tool_calls_usage_and_request_body(serve: Any) -> None:
    server = serve(
        [
            {
                "content": "Reading the build file.",
                "tool_calls": [
                    {"name": "read_file", "arguments": {"path": "pom.xml"}},
                    {"name": "run_build", "arguments": "{}"},
                ],
            }
        ]
    )
    reply = model_for(server, temperature=0.0).complete(USER, TOOLS)
    assert reply.content == "Reading the build file."
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_1", "read_file", '{"path": "pom.xml"}'),
        ("call_2", "run_build", "{}"),
    ]
    assert json.loads(reply.tool_calls[0].arguments) == {"path": "pom.xml"}
    # Tokens are those of the server's usage block, not estimates.
    body = server.requests[0]
    expected_in = (len(json.dumps(body["messages"]) + json.dumps(body["tools"])) + 3) // 4
    assert reply.usage.input_tokens == expected_in
    assert reply.usage.output_tokens > 0
    assert not reply.usage.estimated
    assert reply.duration_s > 0
    # The server saw exactly the offered tools, the conversation and our options.
    assert len(server.requests) == 1
    assert body["tools"] == TOOLS
    assert body["messages"] == USER
    assert body["model"] == "fake-model"
    assert body["temperature"] == 0.0
    assert "_skip_mcp_handler" not in body
    assert server.headers[0]["authorization"] == f"Bearer {KEY}"


def test_no_tools_offered_means_no_tools_field(serve: Any) -> None:
    server = serve([{"content": "plain answer"}])
    reply = model_for(server).complete(USER, [])
    assert reply.content == "plain answer" and reply.tool_calls == []
    assert "tools" not in server.requests[0]


def test_conversation_with_tool_results_round_trips(serve: Any) -> None:
    server = serve([{"tool_calls": [{"name": "run_build", "arguments": {}}]}, {"content": "Fixed."}])
    model = model_for(server)
    first = model.complete(USER, TOOLS)
    messages = [
        *USER,
        first.message(),
        {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "OK"},
    ]
    assert model.complete(messages, TOOLS).content == "Fixed."
    sent = server.requests[1]["messages"]
    assert sent[1]["tool_calls"][0]["id"] == "call_1"
    assert sent[2] == {"role": "tool", "tool_call_id": "call_1", "content": "OK"}


def test_transient_error_is_retried(serve: Any) -> None:
    server = serve([{"error": 503}, {"error": 429}, {"content": "finally"}])
    model = model_for(server, backoff_s=0.01)
    delays: list[float] = []
    model._sleep = delays.append
    assert model.complete(USER, TOOLS).content == "finally"
    assert len(server.requests) == 3
    assert server.requests[0] == server.requests[2]
    assert len(delays) == 2 and 0.01 <= delays[0] <= 0.0125 and 0.02 <= delays[1] <= 0.025


def test_retries_exhausted(serve: Any) -> None:
    server = serve([{"error": 500}, {"error": 502}, {"content": "too late"}])
    with pytest.raises(ModelError, match="gave up after 2 attempts") as info:
        model_for(server, max_retries=1).complete(USER, TOOLS)
    assert server.remaining == 1
    assert info.value.__cause__ is None and info.value.__suppress_context__


@pytest.mark.parametrize(
    ("status", "message"),
    [(401, "authentication failed"), (400, "rejected the request"), (404, "not found")],
)
def test_fatal_errors_are_not_retried(serve: Any, status: int, message: str) -> None:
    server = serve([{"error": status, "message": f"nope, key {KEY} is wrong"}, {"content": "never"}])
    model = model_for(server)
    with pytest.raises(ModelError, match=message) as info:
        model.complete(USER, TOOLS)
    assert len(server.requests) == 1 and server.remaining == 1
    assert KEY not in str(info.value) and KEY not in repr(info.value)


def test_wrong_key_echoed_by_server_stays_out_of_the_error(serve: Any) -> None:
    server = serve([{"content": "never"}], api_key="sk-the-right-key-0123456789")
    model = model_for(server)
    with pytest.raises(ModelError, match="authentication failed") as info:
        model.complete(USER, TOOLS)
    assert KEY not in str(info.value)
    assert "[REDACTED]" in str(info.value)
    assert KEY not in repr(model) and "api_key=<set>" in repr(model)


def test_connection_refused_is_transient_then_fails() -> None:
    server = FakeOpenAIServer([]).start()
    base = server.base_url
    server.stop()  # nothing listens there any more
    model = LiteLLMModel("openai/fake-model", api_base=base, api_key=KEY, max_retries=1, backoff_s=0.001)
    with pytest.raises(ModelError, match="gave up after 2 attempts"):
        model.complete(USER, [])


def test_missing_usage_is_estimated(serve: Any) -> None:
    server = serve([{"content": "x" * 400, "usage": None}])
    usage = model_for(server).complete(USER, TOOLS).usage
    assert usage.estimated
    assert usage.input_tokens > 0 and 90 <= usage.output_tokens <= 110


def test_provider_without_call_ids_gets_generated_ones(serve: Any) -> None:
    server = serve([{"tool_calls": [{"name": "run_build", "arguments": {}, "id": None}] * 2}])
    calls = model_for(server).complete(USER, TOOLS).tool_calls
    assert all(c.id for c in calls) and calls[0].id != calls[1].id


def test_unknown_model_cost_is_not_presented_as_exact(serve: Any) -> None:
    server = serve([{"content": "a"}, {"content": "b"}])
    usage = model_for(server).complete(USER, TOOLS).usage
    assert usage.cost_usd == 0 and not usage.cost_known
    # A provider litellm knows, on a name its price map lacks: still unknown, not 0.
    other = LiteLLMModel("deepseek/no-such-model-zz", api_base=server.base_url, api_key=KEY)
    usage = other.complete(USER, []).usage
    assert usage.cost_usd == 0 and not usage.cost_known


def test_local_providers_have_unknown_cost(serve: Any) -> None:
    server = serve([{"content": "a"}])
    model = LiteLLMModel("hosted_vllm/qwen-coder", api_base=server.base_url, api_key=KEY)
    assert model.is_local
    usage = model.complete(USER, []).usage
    assert usage.cost_usd == 0 and not usage.cost_known
    assert LiteLLMModel("ollama/llama3").is_local and not LiteLLMModel("openai/gpt-4.1").is_local


def test_known_model_is_priced_from_litellm_map(serve: Any, litellm_loaded: Any) -> None:
    server = serve([{"content": "a"}])
    usage = (
        LiteLLMModel("deepseek/deepseek-chat", api_base=server.base_url, api_key=KEY).complete(USER, []).usage
    )
    info = litellm_loaded.model_cost["deepseek/deepseek-chat"]
    expected = (
        usage.input_tokens * info["input_cost_per_token"]
        + usage.output_tokens * info["output_cost_per_token"]
    )
    assert usage.cost_known and usage.cost_usd == pytest.approx(expected)


def test_configured_prices(serve: Any) -> None:
    server = serve([{"content": "hello"}])
    usage = model_for(server, price_in_per_mtok=3.0, price_out_per_mtok=15.0).complete(USER, TOOLS).usage
    assert usage.cost_known
    assert usage.cost_usd == pytest.approx((usage.input_tokens * 3.0 + usage.output_tokens * 15.0) / 1e6)


def test_env_prices(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PRICE_IN_ENV, "1")
    monkeypatch.setenv(PRICE_OUT_ENV, "2")
    server = serve([{"content": "hello"}])
    model = model_for(server)
    assert (model.price_in_per_mtok, model.price_out_per_mtok) == (1.0, 2.0)
    usage = model.complete(USER, []).usage
    assert usage.cost_known
    assert usage.cost_usd == pytest.approx((usage.input_tokens + 2 * usage.output_tokens) / 1e6)
    # Arguments win over the environment.
    assert LiteLLMModel("x/y", price_in_per_mtok=5, price_out_per_mtok=6).price_in_per_mtok == 5


def test_bad_price_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(BuildfixerError, match="both prices"):
        LiteLLMModel("x/y", price_in_per_mtok=1.0)
    with pytest.raises(BuildfixerError, match="negative"):
        LiteLLMModel("x/y", price_in_per_mtok=-1.0, price_out_per_mtok=1.0)
    monkeypatch.setenv(PRICE_IN_ENV, "cheap")
    monkeypatch.setenv(PRICE_OUT_ENV, "1")
    with pytest.raises(BuildfixerError, match=PRICE_IN_ENV):
        LiteLLMModel("x/y")


def test_convert_dict_arguments_and_odd_replies(litellm_loaded: Any) -> None:
    model = LiteLLMModel("openai/fake-model", api_base="http://127.0.0.1:9/v1")
    response = {
        "choices": [
            {
                "message": {
                    "content": [{"type": "text", "text": "part one, "}, {"type": "text", "text": "part two"}],
                    "tool_calls": [
                        {"function": {"name": "read_file", "arguments": {"path": "a.txt"}}},
                        {"id": "c9", "function": {"name": "run_build", "arguments": None}},
                    ],
                }
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7},
    }
    reply = model._convert(litellm_loaded, response, USER, TOOLS)
    assert reply.content == "part one, part two"
    assert reply.tool_calls[0].arguments == '{"path": "a.txt"}' and reply.tool_calls[0].id.startswith("call_")
    assert (reply.tool_calls[1].id, reply.tool_calls[1].arguments) == ("c9", "{}")
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.estimated) == (11, 7, False)
    with pytest.raises(ModelError, match="no choices"):
        model._convert(litellm_loaded, {"choices": []}, USER, TOOLS)


def test_retry_delay_honours_retry_after_and_is_capped() -> None:
    class Throttled(Exception):
        status_code = 429

        def __init__(self, retry_after: str) -> None:
            super().__init__("slow down")
            self.response = type("R", (), {"headers": {"retry-after": retry_after}})()

    model = LiteLLMModel("x/y", backoff_s=0.5)
    assert model._is_transient(Throttled("1"))
    assert model._delay(0, Throttled("3")) == 3.0
    assert 0.5 <= model._delay(0, Throttled("soon")) <= 0.625
    assert model._delay(10, Throttled("0")) == 60.0


def test_transient_classification(litellm_loaded: Any) -> None:
    lm = litellm_loaded
    transient = [
        lm.RateLimitError("r", llm_provider="openai", model="m"),
        lm.Timeout("t", model="m", llm_provider="openai"),
        lm.APIConnectionError("c", llm_provider="openai", model="m"),
        lm.ServiceUnavailableError("s", llm_provider="openai", model="m"),
        lm.InternalServerError("i", llm_provider="openai", model="m"),
    ]
    fatal = [
        lm.AuthenticationError("a", llm_provider="openai", model="m"),
        lm.BadRequestError("b", model="m", llm_provider="openai"),
        lm.NotFoundError("n", model="m", llm_provider="openai"),
        lm.ContextWindowExceededError("w", model="m", llm_provider="openai"),
    ]
    assert all(LiteLLMModel._is_transient(e) for e in transient)
    assert not any(LiteLLMModel._is_transient(e) for e in fatal)
    assert not LiteLLMModel._is_transient(ValueError("bug"))


def test_calls_written_as_text_are_run_when_the_server_parses_none(serve: Any) -> None:
    qwen = '<tool_call>\n{"name": "read_file", "arguments": {"path": "pom.xml"}}\n</tool_call>'
    structured = [{"name": "read_file", "arguments": {}}]
    both = {"content": '{"name": "run_build", "arguments": {}}', "tool_calls": structured}
    server = serve([{"content": qwen}, both, {"content": '{"name": "rm_rf", "arguments": {}}'}])
    model = model_for(server)
    reply = model.complete(USER, TOOLS)
    (call,) = reply.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("read_file", {"path": "pom.xml"})
    assert call.id.startswith("textcall_") and reply.written == qwen  # marked, and the text kept as written
    assert reply.content == ""  # the conversation holds the call once: in tool_calls, not also as text
    assert [c.name for c in model.complete(USER, TOOLS).tool_calls] == ["read_file"]  # structured calls win
    assert model.complete(USER, TOOLS).tool_calls == []  # a tool that was not offered is no call


def test_a_timed_out_call_is_not_sent_again_to_a_local_server(serve: Any) -> None:
    """A single-slot server still writing the first reply would queue the copy behind it."""
    server = serve([{"content": "late", "delay_s": 3}, {"content": "second"}])
    model = model_for(server, timeout_s=0.5)  # an openai/ model on a custom api_base: local
    assert model.is_local
    began = time.monotonic()
    with pytest.raises(ModelTimeout, match=r"no reply within 0\.5s; not sent again"):
        model.complete(USER, TOOLS)
    assert time.monotonic() - began < 2.5
    assert len(server.requests) == 1


def test_call_limits_bound_the_timeout_and_the_reply_length(serve: Any) -> None:
    server = serve([{"content": "ok"}, {"content": "late", "delay_s": 3}])
    model = model_for(server, max_tokens=4096, timeout_s=60)
    model.complete(USER, TOOLS, CallLimits(timeout_s=30, max_tokens=300))
    assert server.requests[0]["max_tokens"] == 300
    with pytest.raises(ModelTimeout):  # the budget's 0.5 s, not the model's 60 s
        model.complete(USER, TOOLS, CallLimits(timeout_s=0.5))
    assert len(server.requests) == 2


def test_model_timeout_defaults_by_where_the_model_runs() -> None:
    assert LiteLLMModel("openai/local", api_base="http://127.0.0.1:1/v1").timeout_s == LOCAL_TIMEOUT_S
    assert LiteLLMModel("openai/gpt-4.1").timeout_s == DEFAULT_TIMEOUT_S
    with pytest.raises(BuildfixerError, match="must be positive"):
        LiteLLMModel("openai/gpt-4.1", timeout_s=0)
