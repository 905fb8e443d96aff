"""Strip secrets (API keys, tokens, passwords) from text before it is logged or saved.

Trajectories hold everything the model and the tools saw: environment dumps, build logs and
error messages can all carry a key. `redact` replaces with "[REDACTED]":
- the value of every caller variable that builds are not given (`buildsys.sandbox.variables`: an
  allow-list), the URL credentials inside those they are given (an index's or a proxy's password),
  and the values of secret-looking ones, plus literals the caller names (a key from a flag);
- copies of those values in the usual disguises: reversed, upper or lower case, percent-encoded,
  hex, and base64 (at each of the three alignments, so a value inside a longer base64 text is found);
- the secret of a URL's user info (`scheme://user:password@host`, `scheme://token@host`), whatever
  its value, as `buildsys.sandbox.variables.userinfo_secret` defines it;
- well-known key shapes, and values after "Authorization", "Bearer", "password=" and the like.
"""

from __future__ import annotations

import base64
import os
import re
import urllib.parse
from functools import lru_cache
from typing import Any

from buildfixer.buildsys.sandbox.variables import URL_USERINFO, userinfo_secret, withheld_values

REDACTED = "[REDACTED]"

# Environment variables whose values are secrets (matched on the upper-cased name).
_SECRET_ENV = re.compile(r"(_KEY|_TOKEN|_SECRET|PASSWORD|_PASS|_PASSWD)$")
# Shorter values are too likely to be ordinary words ("true", "1234") to replace everywhere.
_MIN_ENV_SECRET_LEN = 8

# Well-known shapes of keys and tokens, replaced wholesale.
_PATTERNS = [
    re.compile(r"sk-[A-Za-z0-9_-]{16,}"),  # OpenAI, Anthropic (sk-ant-...), DeepSeek, OpenRouter (sk-or-...)
    re.compile(r"AIza[0-9A-Za-z_-]{30,}"),  # Google API keys
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),  # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"),  # GitLab
    re.compile(r"\bhf_[A-Za-z0-9]{30,}"),  # Hugging Face
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),  # Slack
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(r"\bgsk_[A-Za-z0-9]{20,}"),  # Groq
]
# Keep the label, replace the value.
# "Bearer" then a token with a digit in it ("bearer of bad news" stays).
_BEARER = re.compile(r"(?i)\b(bearer\s+)(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}")
_AUTH_HEADER = re.compile(
    r"(?i)\b(authorization\"?\s*[=:]\s*\"?(?:bearer|basic|token)?\s*)(?!\[REDACTED\])[^\s\"']{8,}"
)
_ASSIGNMENT = re.compile(
    r"(?i)\b([a-z0-9_.-]*?(?:api[_-]?key|access[_-]?token|auth[_-]?token|[_-]token|[_-]secret|secret[_-]?key"
    r"|client[_-]?secret|password|passwd))(\"?'?\s*[=:]\s*\"?'?)(?!\[REDACTED\])([^\s\"'&,;}{)\]]{4,})"
)
# Dict keys whose string values are secrets whatever they look like ("input_tokens" is not one).
_SECRET_KEY = re.compile(
    r"(?i)^(?:.*[_-])?(?:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|token|secret|password|passwd"
    r"|authorization|credentials?)$"
)


def _env_secrets() -> list[str]:
    values = set(withheld_values()) | {
        value
        for name, value in os.environ.items()
        if _SECRET_ENV.search(name.upper()) and len(value) >= _MIN_ENV_SECRET_LEN
    }
    # Longest first, so a secret containing another is replaced whole.
    return sorted(values, key=len, reverse=True)


@lru_cache(maxsize=256)
def disguises(secret: str) -> tuple[str, ...]:
    """The secret and the forms a copy of it may take in a log or a message."""
    raw = secret.encode()
    forms = {secret, secret[::-1], secret.upper(), secret.lower(), urllib.parse.quote(secret, safe=""),
             raw.hex(), raw.hex().upper()}  # fmt: skip
    for pad in range(3):  # inside a longer base64 text the secret starts at any of 3 alignments
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(b"\0" * pad + raw).decode().rstrip("=")
            # Drop the characters that mix in bits of the bytes before or after the secret.
            core = encoded[(0, 2, 3)[pad] : len(encoded) - 3]
            if len(core) >= _MIN_ENV_SECRET_LEN:
                forms.add(core)
    return tuple(sorted((f for f in forms if len(f) >= _MIN_ENV_SECRET_LEN), key=len, reverse=True))


def redact(text: str, extra_secrets: list[str] | None = None) -> str:
    """Replace secrets in a text with "[REDACTED]".

    Args:
        text: Any text (a log, an error message, a message sent to or from a model).
        extra_secrets: Further literal values to remove (e.g. a key passed on the command line,
            which is in no environment variable); values shorter than 8 characters are ignored.

    Returns:
        The text with every secret replaced.
    """
    if not text:
        return text
    literals = _env_secrets()
    if extra_secrets:
        literals = sorted(
            set(literals) | {s for s in extra_secrets if s and len(s) >= _MIN_ENV_SECRET_LEN},
            key=len,
            reverse=True,
        )
    for secret in literals:
        for form in disguises(secret):
            if form in text:
                text = text.replace(form, REDACTED)
    text = URL_USERINFO.sub(_redact_userinfo, text)
    for pattern in _PATTERNS:
        text = pattern.sub(REDACTED, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    text = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
    return _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)


def _redact_userinfo(match: re.Match[str]) -> str:
    """A URL's `scheme://user:password@` with the password replaced (a token standing alone: it)."""
    scheme, userinfo = match.group(1), match.group(2)
    secret = userinfo_secret(userinfo)
    if secret is None or secret == REDACTED:
        return match.group(0)
    user, colon, _ = userinfo.partition(":")
    return f"{scheme}{user}:{REDACTED}@" if colon else f"{scheme}{REDACTED}@"


def redact_obj(obj: Any, extra_secrets: list[str] | None = None) -> Any:
    """Redact every string inside a JSON-like value (dicts, lists, tuples), returning a copy.

    String values under secret-looking keys ("api_key", "Authorization", "GITHUB_TOKEN") are
    replaced whole; other values are redacted as text. Keys and non-string scalars are kept.

    Args:
        obj: The value to clean.
        extra_secrets: Further literal values to remove, as for `redact`.

    Returns:
        A redacted copy (the input is not modified).
    """
    if isinstance(obj, str):
        return redact(obj, extra_secrets)
    if isinstance(obj, dict):
        out: dict[Any, Any] = {}
        for key, value in obj.items():
            if isinstance(key, str) and isinstance(value, str) and value and _SECRET_KEY.match(key):
                out[key] = REDACTED
            else:
                out[key] = redact_obj(value, extra_secrets)
        return out
    if isinstance(obj, list):
        return [redact_obj(item, extra_secrets) for item in obj]
    if isinstance(obj, tuple):
        return tuple(redact_obj(item, extra_secrets) for item in obj)
    return obj
