"""A local OpenAI-compatible server that replays a script: the real litellm path, without a provider.

Tests point `LiteLLMModel("openai/fake-model", api_base=server.base_url)` at it, so the whole
client stack (litellm, the openai SDK, HTTP) runs for real while the replies stay scripted.
Steps are those of `buildfixer.llm.scripted`, plus for this server:

- `{"error": 503}` answers one request with that HTTP status (and an OpenAI-style error body);
- `"usage": null` in a step leaves the usage block out, `"usage": {...}` sends that block as is;
- a tool call with `"id": null` is sent without an id (providers that omit ids exist);
- `"delay_s": N` answers after N seconds (a slow local model; a client that gave up sees nothing).

Run `python -m buildfixer.llm.fake_server SCRIPT.json [--port N]` for manual demos.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from buildfixer.core.chat import tokens_by_length
from buildfixer.core.errors import BuildfixerError
from buildfixer.llm.scripted import (
    SCRIPT_FINISHED,
    arguments_text,
    load_script,
    validate_steps,
)

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


class FakeOpenAIServer:
    """Serves scripted chat completions on 127.0.0.1; use as a context manager.

    Attributes:
        steps: The script being replayed.
        requests: Parsed JSON bodies of the chat-completion requests received, in order.
        headers: Headers of those requests (lower-cased names), in the same order.
        api_key: When set, requests must carry `Authorization: Bearer <api_key>`, else 401.
        model_id: Model name listed by `GET /v1/models`.
    """

    def __init__(
        self,
        steps: list[dict[str, Any]],
        *,
        port: int = 0,
        api_key: str | None = None,
        model_id: str = "fake-model",
    ) -> None:
        self.steps = validate_steps(steps)
        self.api_key = api_key
        self.model_id = model_id
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._port = port
        self._next = 0
        self._calls = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port served on (only once started)."""
        if self._httpd is None:
            raise RuntimeError("the fake server is not started")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The OpenAI base URL to give clients, e.g. "http://127.0.0.1:PORT/v1"."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def remaining(self) -> int:
        """Steps not replayed yet."""
        return max(0, len(self.steps) - self._next)

    def bind(self) -> FakeOpenAIServer:
        """Open the listening socket (so `base_url` is known) without serving yet."""
        if self._httpd is None:
            handler = type("_BoundHandler", (_Handler,), {"fake": self})
            self._httpd = ThreadingHTTPServer(("127.0.0.1", self._port), handler)
            self._httpd.daemon_threads = True
        return self

    def start(self) -> FakeOpenAIServer:
        """Bind and serve in a background thread."""
        if self._thread is not None:
            return self
        self.bind()
        assert self._httpd is not None
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (for the command line)."""
        self.bind()
        assert self._httpd is not None
        self._httpd.serve_forever()

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._httpd is None:
            return
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def next_step(self, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """Record a request and take the step that answers it (thread-safe)."""
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            if self._next >= len(self.steps):
                return {"content": SCRIPT_FINISHED}
            step = self.steps[self._next]
            self._next += 1
            return step

    def completion(self, body: dict[str, Any], step: dict[str, Any]) -> dict[str, Any]:
        """The OpenAI chat-completion object answering `body` with `step`."""
        with self._lock:
            call_ids = []
            for _ in step.get("tool_calls", []):
                self._calls += 1
                call_ids.append(f"call_{self._calls}")
        tool_calls = []
        for call_id, call in zip(call_ids, step.get("tool_calls", []), strict=True):
            entry: dict[str, Any] = {
                "type": "function",
                "function": {"name": call["name"], "arguments": arguments_text(call.get("arguments", {}))},
            }
            call_id = call.get("id", call_id)
            if call_id is not None:
                entry["id"] = call_id
            tool_calls.append(entry)
        content = step.get("content", "")
        message: dict[str, Any] = {"role": "assistant", "content": content or (None if tool_calls else "")}
        if tool_calls:
            message["tool_calls"] = tool_calls
        response: dict[str, Any] = {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model_id,
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}
            ],
        }
        if "usage" not in step:
            sent = json.dumps(body.get("messages", [])) + json.dumps(body.get("tools") or [])
            prompt = tokens_by_length(sent)
            completion = tokens_by_length(content + "".join(c["function"]["arguments"] for c in tool_calls))
            response["usage"] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
        elif step["usage"] is not None:
            response["usage"] = step["usage"]
        return response


def _chunks(response: dict[str, Any], include_usage: bool) -> Iterator[dict[str, Any]]:
    """The streaming form of a completion: role and content, one chunk per tool call, the finish."""
    base = {"id": response["id"], "object": "chat.completion.chunk", "created": response["created"]}
    base["model"] = response["model"]
    choice = response["choices"][0]
    message = choice["message"]
    first = {"role": "assistant", "content": message["content"] or ""}
    yield {**base, "choices": [{"index": 0, "delta": first}]}
    for index, call in enumerate(message.get("tool_calls", [])):
        delta = {"tool_calls": [{"index": index, **call}]}
        yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}
    if include_usage and "usage" in response:
        yield {**base, "choices": [], "usage": response["usage"]}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAIServer  # set on the per-server subclass
    server_version = "buildfixer-fake-openai/1"

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: tests and demos do not want a line per request on stderr."""

    def _key_refused(self) -> bool:
        """Answer 401 when a key is required and not the one sent (True: the request is answered)."""
        if self.fake.api_key is None:
            return False
        given = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        if given == self.fake.api_key:
            return False
        # Echo the key, as careless providers do: callers must keep it out of their errors.
        self._send_error(401, f"Incorrect API key provided: {given}")
        return True

    def do_GET(self) -> None:
        """List the one fake model."""
        if self._key_refused():
            return
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": self.fake.model_id, "object": "model", "created": 0, "owned_by": "buildfixer"}
            self._send_json(200, {"object": "list", "data": [model]})
        else:
            self._send_error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:
        """Answer a chat completion with the next step."""
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send_error(404, f"no route POST {self.path}")
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            self._send_error(400, f"request body is not JSON: {exc}")
            return
        if not isinstance(body, dict):
            self._send_error(400, "request body must be a JSON object")
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        if self._key_refused():
            return
        step = self.fake.next_step(body, headers)
        time.sleep(float(step.get("delay_s", 0)))
        if "error" in step:
            self._send_error(step["error"], step.get("message") or f"scripted error {step['error']}")
            return
        response = self.fake.completion(body, step)
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._send_stream(_chunks(response, include_usage))
        else:
            self._send_json(200, response)

    def _send_stream(self, chunks: Iterator[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped waiting (its timeout)
            pass

    def _send_error(self, status: int, message: str) -> None:
        kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
        self._send_json(status, {"error": {"message": message, "type": kind, "param": None, "code": status}})


def main(argv: list[str] | None = None) -> int:
    """Command line: serve a script until interrupted, printing the base URL first."""
    parser = argparse.ArgumentParser(
        prog="python -m buildfixer.llm.fake_server",
        description="Serve a scripted model over the OpenAI chat-completions API on 127.0.0.1.",
    )
    parser.add_argument("script", help='JSON script: a list of steps, or {"steps": [...]}')
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    args = parser.parse_args(argv)
    try:
        server = FakeOpenAIServer(load_script(args.script), port=args.port)
    except BuildfixerError as exc:
        parser.exit(2, f"error: {exc}\n")
    try:
        server.bind()
        print(server.base_url, flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
