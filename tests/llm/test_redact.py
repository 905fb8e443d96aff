import pytest

from buildfixer.llm.redact import REDACTED, redact, redact_obj


def test_env_secret_values_are_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_API_KEY", "plain-looking-value-123")
    monkeypatch.setenv("DB_PASSWORD", "hunter2hunter2")
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # too short to replace everywhere
    monkeypatch.setenv("GREETING", "plain-looking-value-789")  # builds never see it: it may be secret
    monkeypatch.setenv("LC_NAME", "plain-looking-value-456")  # allow-listed: builds see it anyway
    text = "connect with plain-looking-value-123 and hunter2hunter2; abc; plain-looking-value-456"
    assert redact(text) == f"connect with {REDACTED} and {REDACTED}; abc; plain-looking-value-456"
    assert redact("greeting plain-looking-value-789") == f"greeting {REDACTED}"


@pytest.mark.parametrize(
    "secret",
    [
        "sk-proj-abcdefghijklmnop1234567890",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv_-12",
        "AIzaSyA1234567890abcdefghijklmnopqrstu",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
        "AKIAIOSFODNN7EXAMPLE",
    ],
)
def test_known_key_shapes(secret: str) -> None:
    out = redact(f"error: key {secret} rejected")
    assert secret not in out and out == f"error: key {REDACTED} rejected"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc.def.ghi123", f"Authorization: Bearer {REDACTED}"),
        ("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='", f"curl -H 'Authorization: Basic {REDACTED}'"),
        ("https://x.test/v1?api_key=abcd1234&q=1", f"https://x.test/v1?api_key={REDACTED}&q=1"),
        ('{"api_key": "abcd1234efgh"}', f'{{"api_key": "{REDACTED}"}}'),
        ("export GITHUB_TOKEN=abcdefgh123", f"export GITHUB_TOKEN={REDACTED}"),
        ("password: s3cr3t-pw", f"password: {REDACTED}"),
    ],
)
def test_labelled_values(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens=4096 input_tokens: 12",
        "SyntaxError: Unexpected token: keyword (const)",
        "the bearer of bad news",
        "basic configuration of sk-learn",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0",
        "",
    ],
)
def test_ordinary_text_is_kept(text: str) -> None:
    assert redact(text) == text


def test_idempotent() -> None:
    once = redact("api_key=sk-abcdefghijklmnopqrstuvwxyz Authorization: Bearer tok123456789")
    assert redact(once) == once


def test_extra_secrets() -> None:
    assert redact("key is zzzz-my-literal-key", ["zzzz-my-literal-key", "", "short"]) == f"key is {REDACTED}"


def test_redact_obj_recurses_and_copies() -> None:
    data = {
        "messages": [{"role": "tool", "content": "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx"}],
        "usage": {"input_tokens": 12, "output_tokens": 3, "cost_known": True},
        "headers": {"Authorization": "whatever-it-is", "X-Request": "id-1"},
        "config": {"api_key": "k", "token": "t0k", "keys": ("sk-abcdefghijklmnopqrstuvwx", None, 1.5)},
    }
    out = redact_obj(data)
    assert out["messages"][0]["content"] == f"OPENAI_API_KEY={REDACTED}"
    assert out["usage"] == data["usage"]
    assert out["headers"] == {"Authorization": REDACTED, "X-Request": "id-1"}
    assert out["config"] == {"api_key": REDACTED, "token": REDACTED, "keys": (REDACTED, None, 1.5)}
    assert data["config"]["api_key"] == "k"  # input untouched
