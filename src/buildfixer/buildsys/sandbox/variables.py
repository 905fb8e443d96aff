"""The environment builds and tools get: an allow-list of the caller's variables, never the rest.

A deny-list ("drop what looks like a key") lets through what it does not recognise, such as a
`DATABASE_URL` with a password in it; an allow-list passes only what builds need to find their
tools and speak the user's locale. What is withheld is exactly what redaction must look for
(`withheld_values`), since it may still reach a log through another way (a file, a message).

Credentials inside allow-listed values (`PIP_INDEX_URL=https://user:token@host/simple`,
`ALL_PROXY=http://user:password@proxy:3128`) are withheld too: a URL's user info
(`URL_USERINFO`, the one definition of a credential in a value) is cut out of what builds get, a
proxy variable that names one is left out whole (that proxy refuses the build without it), and
its secret part (`userinfo_secret`) is among `withheld_values`. An index keeps its URL without
credentials: a private index then answers 401, which says what is wrong, where PyPI instead might
serve a public package of the same name as a private one.
"""

from __future__ import annotations

import os
import re
import urllib.parse

# Variables passed on: where tools live, the locale, the terminal, package indexes and proxies
# (without credentials, see `passed_environment`) and the Android and JVM tool locations.
_ALLOWED = {
    "PATH", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "CI", "SOURCE_DATE_EPOCH",
    "JAVA_HOME", "ANDROID_HOME", "ANDROID_SDK_ROOT", "ANDROID_NDK_HOME", "ANDROID_NDK_ROOT",
    "GRADLE_HOME", "MAVEN_HOME", "M2_HOME", "NODE_OPTIONS", "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
    "PIP_TRUSTED_HOST", "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY",
    "NO_PROXY", "ALL_PROXY", "all_proxy", "LITELLM_LOCAL_MODEL_COST_MAP",
}  # fmt: skip
_ALLOWED_PREFIXES = ("LC_",)
# The host's proxies. Sandboxed builds go through buildfixer's egress proxy instead (see
# `buildsys.sandbox.egress.proxy_environment`); a proxy that needs a password is not passed at all.
PROXY_VARIABLES = frozenset(
    {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"}
)
# Values shorter than this are too likely to be ordinary words or numbers to hunt for in logs.
MIN_SECRET_LEN = 8
# A URL's user info, `scheme://user:password@` or `scheme://token@` (up to the authority's last
# `@`, as URL parsers read it): group 1 is the scheme and `//`, group 2 the user info.
URL_USERINFO = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://)([^\s/?#]*)@")


def allowed(name: str) -> bool:
    """Whether a variable of the caller's environment may reach builds and tools."""
    return name in _ALLOWED or name.startswith(_ALLOWED_PREFIXES)


def userinfo_secret(userinfo: str) -> str | None:
    """The secret of a URL's user info: its password, or a token standing alone as the user.

    A user name alone is a token when it is long enough (`https://<token>@host`); a short one is
    a plain account name (`ssh://git@host`). None when there is no secret.
    """
    user, colon, password = userinfo.partition(":")
    secret = password if colon else user
    return secret if secret and (colon or len(secret) >= MIN_SECRET_LEN) else None


def url_credentials(value: str) -> list[str]:
    """The secrets of the URLs' user info in `value`, as written and percent-decoded."""
    found: list[str] = []
    for match in URL_USERINFO.finditer(value):
        secret = userinfo_secret(match.group(2))
        if secret is not None:
            found += dict.fromkeys([secret, urllib.parse.unquote(secret)])
    return found


def without_credentials(value: str) -> str:
    """`value` with the user info that holds a secret cut out of its URLs (`https://u:p@host` -> `https://host`)."""
    return URL_USERINFO.sub(lambda m: m.group(1) if userinfo_secret(m.group(2)) else m.group(0), value)


def _without_credentials(env: dict[str, str]) -> dict[str, str]:
    """`env` without URL credentials: a proxy variable with some is dropped, other values are cut."""
    cut = {name: without_credentials(value) for name, value in env.items()}
    return {name: value for name, value in cut.items() if name not in PROXY_VARIABLES or value == env[name]}


def passed_environment() -> dict[str, str]:
    """The caller's variables that builds and tools may see, without the credentials in them."""
    return _without_credentials({name: value for name, value in os.environ.items() if allowed(name)})


# Messages in English whatever the caller's locale: compilers (javac, kapt, gcc) and build tools
# translate their diagnostics, and the analyzer's keywords, prompts and memory are English. The
# JVM derives user.language from LC_ALL, so this covers javac in a Gradle daemon too.
ENGLISH_MESSAGES = {"LC_ALL": "C.UTF-8"}


def build_environment(*layers: dict[str, str]) -> dict[str, str]:
    """The allow-listed caller environment, messages in English, `layers` (user extras, the plan's) on top.

    No value keeps a URL's credentials, the layers' included (`_without_credentials`).
    """
    env = passed_environment()
    env.pop("LANGUAGE", None)  # gettext's LANGUAGE would still pick a translation over LC_ALL
    env.update(ENGLISH_MESSAGES)
    for layer in layers:
        env.update(layer)
    return _without_credentials(env)


def withheld_values() -> list[str]:
    """Values of the caller's variables that builds never see, longest first: what redaction removes.

    Those of the variables not passed, and the URL credentials inside those passed. Paths and
    plain words are not secrets, and replacing them everywhere would garble logs, so only values
    that could be credentials count: long enough, and not a directory on this machine.
    """
    values = {
        value
        for name, value in os.environ.items()
        if not allowed(name) and len(value) >= MIN_SECRET_LEN and not _looks_harmless(value)
    }
    values |= {
        secret
        for name, value in os.environ.items()
        if allowed(name)
        for secret in url_credentials(value)
        if len(secret) >= MIN_SECRET_LEN
    }
    return sorted(values, key=len, reverse=True)


def _looks_harmless(value: str) -> bool:
    if value.startswith("/") and "@" not in value:
        return True  # a path or a path list (PWD, PYTHONPATH, LD_LIBRARY_PATH)
    return value.isalpha()  # a plain word (a desktop name, a shell option)
