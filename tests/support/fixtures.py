"""Fixtures any test may ask for (a pytest plugin: tests/conftest.py names it in `pytest_plugins`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's ~/.m2 and ~/.gradle caches stay out of sight."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRADLE_USER_HOME", raising=False)


@pytest.fixture(scope="module")
def litellm_loaded() -> Any:
    """Import litellm once for the module (seconds)."""
    from buildfixer.llm.litellm_model import load_litellm

    return load_litellm()


@pytest.fixture
def serve() -> Iterator[Callable[..., Any]]:
    """Start fake OpenAI-compatible servers replaying scripted replies: `serve(steps, **options)`.

    Every server started is stopped after the test.
    """
    from buildfixer.llm.fake_server import FakeOpenAIServer

    servers: list[FakeOpenAIServer] = []

    def start(steps: list[dict[str, Any]], **kwargs: Any) -> FakeOpenAIServer:
        server = FakeOpenAIServer(steps, **kwargs).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
