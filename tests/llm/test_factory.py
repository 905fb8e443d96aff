import json
from pathlib import Path

import pytest

from buildfixer.core.errors import BuildfixerError
from buildfixer.llm.factory import API_BASE_ENV, API_KEY_ENV, make_model
from buildfixer.llm.litellm_model import LiteLLMModel
from buildfixer.llm.scripted import ScriptedModel


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (API_BASE_ENV, API_KEY_ENV, "BUILDFIXER_PRICE_IN", "BUILDFIXER_PRICE_OUT"):
        monkeypatch.delenv(name, raising=False)


def test_scripted_spec(tmp_path: Path) -> None:
    path = tmp_path / "steps.json"
    path.write_text(json.dumps([{"content": "hello"}]))
    model = make_model(f"scripted:{path}", temperature=0.2)
    assert isinstance(model, ScriptedModel)
    assert model.name == f"scripted:{path}"
    assert model.complete([], []).content == "hello"


def test_scripted_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(BuildfixerError, match="script not found"):
        make_model(f"scripted:{tmp_path / 'none.json'}")
    with pytest.raises(BuildfixerError, match="needs a script path"):
        make_model("scripted:")
    with pytest.raises(BuildfixerError, match="no model given"):
        make_model("  ")


def test_litellm_spec_takes_base_and_key_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_BASE_ENV, "http://127.0.0.1:8000/v1")
    monkeypatch.setenv(API_KEY_ENV, "sk-from-env-0123456789")
    model = make_model("openai/local", temperature=None, max_retries=2)
    assert isinstance(model, LiteLLMModel)
    assert (model.name, model.api_base, model.max_retries, model.temperature) == (
        "openai/local",
        "http://127.0.0.1:8000/v1",
        2,
        None,
    )
    assert model._api_key == "sk-from-env-0123456789"
    assert "sk-from-env" not in repr(model)


def test_arguments_win_over_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_BASE_ENV, "http://env/v1")
    monkeypatch.setenv(API_KEY_ENV, "sk-env-0123456789")
    model = make_model("anthropic/claude-x", api_base="http://arg/v1", api_key="sk-arg-0123456789")
    assert isinstance(model, LiteLLMModel)
    assert model.api_base == "http://arg/v1" and model._api_key == "sk-arg-0123456789"


def test_no_key_anywhere_leaves_it_to_litellm() -> None:
    model = make_model("openai/gpt-4.1")
    assert isinstance(model, LiteLLMModel)
    assert model._api_key is None and model.api_base is None and "api_key=<unset>" in repr(model)


def test_unknown_option() -> None:
    with pytest.raises(BuildfixerError, match="bad model option"):
        make_model("openai/gpt-4.1", colour="blue")
