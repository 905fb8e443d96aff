"""Model setup: refused before any build when it cannot work; what reaches the provider otherwise.

The provider side is the local fake OpenAI-compatible server, reached through the real litellm
client stack: the request body (max_tokens) and the Authorization header are what a real
provider would receive. The end-to-end cases run `buildfixer fix` on a small npm project whose
build fails in about a second.
"""

from __future__ import annotations

import base64
import io
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from buildfixer.cli.fix_render import ProgressPrinter
from buildfixer.core.chat import Usage
from buildfixer.core.errors import BuildfixerError
from buildfixer.harness.config import ModelSettings
from buildfixer.llm.factory import API_BASE_ENV, API_KEY_ENV, check_model, make_model
from buildfixer.llm.litellm_model import DEFAULT_MAX_TOKENS, PLACEHOLDER_API_KEY, LiteLLMModel

KEY = "sk-test-0123456789abcdefghijkl"
PROVIDER_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", API_KEY_ENV, API_BASE_ENV)
USER = [{"role": "user", "content": "The build fails, fix it."}]
# A package.json whose build fails at once (a script that exits 1): no dependency, no network.
PACKAGE = {"name": "tiny", "version": "1.0.0", "scripts": {"build": 'node -e "process.exit(1)"'}}
GIVE_UP = [{"content": "I cannot fix this."}]
pytestmark = pytest.mark.usefixtures("litellm_loaded")  # litellm imported once for the module


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROVIDER_KEYS:
        monkeypatch.delenv(name, raising=False)


# ---- what reaches the provider ------------------------------------------------------------------


def test_max_tokens_is_always_sent(serve: Any) -> None:
    server = serve([{"content": "a"}, {"content": "b"}, {"content": "c"}])
    LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key=KEY).complete(USER, [])
    settings = ModelSettings(max_output_tokens=321).model_kwargs()
    make_model("openai/fake-model", api_base=server.base_url, api_key=KEY, **settings).complete(USER, [])
    LiteLLMModel("openai/fake-model", api_base=server.base_url, api_key=KEY, max_tokens=77).complete(USER, [])
    assert [r["max_tokens"] for r in server.requests] == [DEFAULT_MAX_TOKENS, 321, 77]


def test_an_api_base_without_a_key_gets_the_placeholder(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve([{"content": "ok"}])
    monkeypatch.setenv(API_BASE_ENV, server.base_url)
    model = make_model("openai/fake-model")
    check_model("openai/fake-model")  # the user's own endpoint: no key needed
    assert model.complete(USER, []).content == "ok"
    assert server.headers[0]["authorization"] == f"Bearer {PLACEHOLDER_API_KEY}"


def test_a_known_key_is_sent_and_never_replaced_by_the_placeholder(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve([{"content": "one"}, {"content": "two"}], api_key=KEY)
    monkeypatch.setenv(API_BASE_ENV, server.base_url)
    monkeypatch.setenv(API_KEY_ENV, KEY)
    assert make_model("openai/fake-model").complete(USER, []).content == "one"
    monkeypatch.delenv(API_KEY_ENV)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the provider's own variable counts as a key too
    assert make_model("openai/fake-model").complete(USER, []).content == "two"
    assert [h["authorization"] for h in server.headers] == [f"Bearer {KEY}"] * 2


@pytest.mark.parametrize(
    ("spec", "env", "message"),
    [
        ("nosuchprovider/x", {}, "unknown model 'nosuchprovider/x'"),
        ("gpt-nonexistent-xyz", {}, "unknown model 'gpt-nonexistent-xyz'"),
        ("openai/gpt-4.1", {}, "no credentials: set OPENAI_API_KEY"),
        ("anthropic/claude-sonnet-4-5", {}, "no credentials: set ANTHROPIC_API_KEY"),
        ("scripted:x.json,openai/gpt-4.1", {}, "script not found"),
        ("openai/gpt-4.1,anthropic/claude-sonnet-4-5", {"OPENAI_API_KEY": KEY}, "set ANTHROPIC_API_KEY"),
        (" , ", {}, "no model given"),
    ],
    ids=["unknown-provider", "no-provider", "openai-no-key", "anthropic-no-key", "cascade-script",
         "cascade-second-no-key", "empty"],
)  # fmt: skip
def test_a_model_that_cannot_work_is_refused_in_one_line(
    spec: str, env: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(BuildfixerError) as caught:
        check_model(spec)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_credentials_given_or_local_pass_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    check_model("openai/gpt-4.1", api_key=KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    check_model("anthropic/claude-sonnet-4-5")


# ---- end to end: `buildfixer fix` ---------------------------------------------------------------


def _npm_project(root: Path) -> Path:
    project = root / "project"
    project.mkdir()
    (project / "package.json").write_text(json.dumps(PACKAGE))
    return project


def _fix(project: Path, cache: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in PROVIDER_KEYS}
    full = {**clean, "BUILDFIXER_CACHE_DIR": str(cache), **env}
    command = [sys.executable, "-m", "buildfixer", "fix", str(project), "--agent", "tool", *args]
    return subprocess.run(command, capture_output=True, text=True, env=full, timeout=300)


@pytest.mark.slow
def test_fix_sends_max_tokens_and_the_placeholder_to_a_local_server(tmp_path: Path, serve: Any) -> None:
    server = serve(GIVE_UP)
    project = _npm_project(tmp_path)
    proc = _fix(
        project, tmp_path / "cache", "--model", "openai/fake-model", "--max-output-tokens", "640", "--json",
        env={API_BASE_ENV: server.base_url},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # the model gave up: not resolved, but it was asked
    assert json.loads(proc.stdout)["llm_calls"] == 2  # giving up before acting is answered once
    assert [request["max_tokens"] for request in server.requests] == [640, 640]
    assert {h["authorization"] for h in server.headers} == {f"Bearer {PLACEHOLDER_API_KEY}"}


def _dead_base() -> str:
    with socket.socket() as sock:  # bound, then closed: nothing listens there
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


DEAD_BASE = _dead_base()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("model", "env", "message"),
    [
        ("openai/gpt-4.1", {}, "no credentials: set OPENAI_API_KEY"),
        ("nosuchprovider/x", {}, "unknown model"),
        ("openai/local", {API_BASE_ENV: DEAD_BASE}, f"{DEAD_BASE} cannot be reached: connection refused"),
    ],
    ids=["missing-key", "unknown-provider", "dead-endpoint"],
)  # fmt: skip
def test_fix_refuses_the_model_before_any_build(
    tmp_path: Path, model: str, env: dict[str, str], message: str
) -> None:
    project = _npm_project(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    began = time.monotonic()
    proc = _fix(project, cache, "--model", model, env=env)
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert message in lines[0] and proc.stdout == ""
    assert list(cache.iterdir()) == []  # no snapshot, no build state, no trajectory
    assert sorted(p.name for p in project.iterdir()) == ["package.json"]
    assert time.monotonic() - began < 120


# ---- the live progress line ----------------------------------------------------------------------


def _rendered(data: dict[str, Any]) -> str:
    printer = ProgressPrinter()
    buffer = io.StringIO()
    printer.console = Console(file=buffer, highlight=False, soft_wrap=True, no_color=True)
    printer("step", data)
    return buffer.getvalue().strip()


def test_progress_shows_the_steps_own_tokens_and_the_total() -> None:
    data = {"step": 3, "calls": 2, "usage": Usage(9000, 876), "step_usage": Usage(1200, 34)}
    assert _rendered(data) == "step 3 · 2 tool call(s) · 1,234 tokens this step · 9,876 total"


def test_progress_without_step_usage_shows_the_total() -> None:
    assert _rendered({"step": 1, "calls": 0, "usage": Usage(10, 5)}) == "step 1 · 0 tool call(s) · 15 tokens"


# ---- secrets: nothing of the caller's secrets in any file a command leaves ------------------------

# The build prints its whole environment, so a secret it were given would land in the build log.
PRINT_ENV = 'node -e "console.log(JSON.stringify(process.env)); process.exit(1)"'
LEAKY = {"name": "tiny", "version": "1.0.0", "scripts": {"build": PRINT_ENV}}


def _disguises(secret: str) -> list[bytes]:
    raw = secret.encode()
    return [raw, raw[::-1], raw.hex().encode(), base64.b64encode(raw).rstrip(b"=")]


@pytest.mark.slow
def test_no_secret_reaches_any_file_a_fix_leaves(tmp_path: Path, serve: Any) -> None:
    """Canary secrets (the API key, a database URL's password, an unknown variable) in the caller's
    environment; after a `fix` that built and sent the log to the model, no file under the cache,
    the project or the trajectory holds any of them, in the clear or disguised."""
    server = serve([{"tool_calls": [{"name": "run_build", "arguments": {}}]}, *GIVE_UP], api_key=KEY)
    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text(json.dumps(LEAKY))
    cache = tmp_path / "cache"
    password, other = "pw-canary-4f2a9c1e77", "tok-canary-9b8e7d6c55"
    trajectory = tmp_path / "trajectory.json"
    env = {API_BASE_ENV: server.base_url, API_KEY_ENV: KEY, "DATABASE_URL": f"postgres://app:{password}@db/app",
           "DEPLOY_TOKEN_X": other}  # fmt: skip
    model = ("--model", "openai/fake-model")
    proc = _fix(project, cache, *model, "--trajectory", str(trajectory), "--json", env=env)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["llm_calls"] == 2
    sent = json.dumps(server.requests[1]["messages"])
    assert "PATH" in sent  # the build's printed environment reached the model
    left = (*cache.rglob("*"), *project.rglob("*"), trajectory)
    files = [p for p in left if p.is_file() and not p.is_symlink()]
    assert len(files) > 3 and any(p.suffix == ".log" for p in files)
    for secret in (KEY, password, other):
        for disguise in _disguises(secret):
            leaked = [str(p) for p in files if disguise in p.read_bytes()]
            assert not leaked, (secret, leaked)
        assert secret not in proc.stdout + proc.stderr and secret not in sent
