"""The fake OpenAI server over plain HTTP (no litellm needed)."""

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from buildfixer.llm.fake_server import FakeOpenAIServer


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_completion_shape_and_usage() -> None:
    steps = [{"content": "hi", "tool_calls": [{"name": "run_build", "arguments": {"goal": "test"}}]}]
    with FakeOpenAIServer(steps) as server:
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
        body = {"model": "fake-model", "messages": [{"role": "user", "content": "x" * 100}]}
        status, raw = post(f"{server.base_url}/chat/completions", body)
    assert status == 200
    reply = json.loads(raw)
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] == "hi"
    assert choice["message"]["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "run_build", "arguments": '{"goal": "test"}'},
        }
    ]
    usage = reply["usage"]
    assert (
        usage["prompt_tokens"] > 25
        and usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    )
    assert server.requests == [body]


def test_script_end_error_steps_and_usage_override() -> None:
    steps = [{"error": 503}, {"content": "ok", "usage": {"prompt_tokens": 1, "completion_tokens": 2}}]
    with FakeOpenAIServer(steps) as server:
        url = f"{server.base_url}/chat/completions"
        status, raw = post(url, {"messages": []})
        assert status == 503 and json.loads(raw)["error"]["type"] == "server_error"
        status, raw = post(url, {"messages": []})
        assert json.loads(raw)["usage"] == {"prompt_tokens": 1, "completion_tokens": 2}
        assert server.remaining == 0
        status, raw = post(url, {"messages": []})
        finished = json.loads(raw)["choices"][0]
        assert finished["message"]["content"] == "(script finished)" and finished["finish_reason"] == "stop"
        assert len(server.requests) == 3


def test_bad_requests_and_routes() -> None:
    with FakeOpenAIServer([{"content": "kept"}], api_key="sk-good-0123456789") as server:
        assert post(f"{server.base_url}/chat/completions", b"{nope")[0] == 400
        assert post(f"{server.base_url}/embeddings", {})[0] == 404
        status, raw = post(
            f"{server.base_url}/chat/completions", {}, {"Authorization": "Bearer sk-bad-999999"}
        )
        assert status == 401 and "sk-bad-999999" in raw.decode()  # echoes it, like careless providers
        assert server.remaining == 1 and server.requests == []
        with pytest.raises(urllib.error.HTTPError) as refused:  # the listing wants the key too, as OpenAI's
            urllib.request.urlopen(f"{server.base_url}/models", timeout=10)
        assert refused.value.code == 401
        key = {"Authorization": "Bearer sk-good-0123456789"}
        keyed = urllib.request.Request(f"{server.base_url}/models", headers=key)
        with urllib.request.urlopen(keyed, timeout=10) as response:
            models = json.loads(response.read())
        assert models["object"] == "list" and models["data"][0]["id"] == "fake-model"


def test_streaming_answers_in_sse_chunks() -> None:
    steps = [{"content": "hi", "tool_calls": [{"name": "a", "arguments": {"x": 1}}]}]
    with FakeOpenAIServer(steps) as server:
        body = {"messages": [], "stream": True, "stream_options": {"include_usage": True}}
        status, raw = post(f"{server.base_url}/chat/completions", body)
    assert status == 200
    events = [line.removeprefix("data: ") for line in raw.decode().split("\n\n") if line]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": "hi"}
    call = chunks[1]["choices"][0]["delta"]["tool_calls"][0]
    assert call["index"] == 0 and call["function"]["arguments"] == '{"x": 1}'
    assert chunks[2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[3]["usage"]["prompt_tokens"] > 0


def test_stop_releases_and_restart_is_harmless() -> None:
    server = FakeOpenAIServer([])
    with pytest.raises(RuntimeError):
        _ = server.base_url
    server.start()
    assert server.start() is server
    server.stop()
    server.stop()


def test_command_line_serves_a_script(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"steps": [{"content": "from the CLI"}]}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "buildfixer.llm.fake_server", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        status, raw = post(f"{base_url}/chat/completions", {"messages": []})
        assert json.loads(raw)["choices"][0]["message"]["content"] == "from the CLI"
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=10)
    assert stderr == ""  # quiet: no request log


def test_command_line_bad_script(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "buildfixer.llm.fake_server", str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "script not found" in result.stderr
