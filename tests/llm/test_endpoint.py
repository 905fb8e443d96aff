"""A model endpoint that cannot answer is refused before any build, in one line naming it.

The endpoints are real sockets: a port nothing listens on, a host no resolver knows, the fake
OpenAI server with a key it refuses, and a plain HTTP server that only ever answers 503.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from buildfixer.llm.endpoint import EndpointUnreachable, check_reachable, shown_endpoint
from buildfixer.llm.factory import check_model

KEY = "sk-endpoint-0123456789abcdef"


def dead_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _Busy(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(503)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def busy_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Busy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_a_refused_connection_is_named_with_its_endpoint() -> None:
    base = f"http://127.0.0.1:{dead_port()}/v1"
    began = time.monotonic()
    with pytest.raises(EndpointUnreachable) as caught:
        check_reachable(base)
    assert str(caught.value) == f"model endpoint {base} cannot be reached: connection refused"
    assert time.monotonic() - began < 10


def test_an_unknown_host_is_named() -> None:
    with pytest.raises(EndpointUnreachable) as caught:
        check_reachable("http://no-such-host.invalid:8080/v1")
    assert "no-such-host.invalid:8080/v1 cannot be reached: unknown host" in str(caught.value)


def test_a_refused_key_is_a_setup_error_and_the_key_is_not_shown(serve: Any) -> None:
    server = serve([], api_key=KEY)
    with pytest.raises(EndpointUnreachable) as caught:
        check_reachable(server.base_url, "sk-wrong-key-zzzzzzzzzzzz")
    assert "refused the key (HTTP 401)" in str(caught.value)
    assert "sk-wrong" not in str(caught.value)
    check_reachable(server.base_url, KEY)  # the right key passes


def test_a_server_that_answers_even_503_is_there(busy_server: str) -> None:
    check_reachable(busy_server)  # a transient error is the calls' business, with their retries


def test_not_an_http_url() -> None:
    with pytest.raises(EndpointUnreachable, match="is not an http"):
        check_reachable("localhost:8080/v1")


def test_credentials_and_query_never_shown() -> None:
    shown = shown_endpoint("https://user:secret@example.com:8443/v1?api-key=abc\x1b[31m")
    assert shown == "https://example.com:8443/v1"


@pytest.mark.usefixtures("litellm_loaded")
def test_check_model_refuses_a_dead_api_base_and_a_local_server_not_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = f"http://127.0.0.1:{dead_port()}/v1"
    monkeypatch.setenv("BUILDFIXER_API_BASE", base)
    with pytest.raises(EndpointUnreachable, match="connection refused"):
        check_model("openai/local")
    monkeypatch.delenv("BUILDFIXER_API_BASE")
    # ollama's default endpoint (localhost:11434) has no server here: refused, named
    with pytest.raises(EndpointUnreachable, match=r"localhost:11434 cannot be reached"):
        check_model("ollama/qwen2.5-coder")


@pytest.mark.usefixtures("litellm_loaded")
def test_the_check_sends_the_key_the_calls_will_send(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve([], api_key=KEY)
    for name in ("BUILDFIXER_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BUILDFIXER_API_BASE", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the provider's own variable: litellm sends it
    check_model("openai/fake-model")
    monkeypatch.setenv("BUILDFIXER_API_KEY", "sk-not-the-one-0000000000")  # given: sent, and refused
    with pytest.raises(EndpointUnreachable, match=r"refused the key \(HTTP 401\)"):
        check_model("openai/fake-model")
    monkeypatch.delenv("BUILDFIXER_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")  # none at all: the calls would send the placeholder
    with pytest.raises(EndpointUnreachable, match="refused the key"):
        check_model("openai/fake-model")
