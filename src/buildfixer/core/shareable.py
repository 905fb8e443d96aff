"""Text fit to share: this machine's paths made relative to the project or replaced by placeholders.

Reports, exports, commit messages and pull requests leave the machine that wrote them. What they
quote (a model spec naming a local file, a build command, an error) holds paths that say where
things are here: the workspace, the caches, a virtual environment, a JDK, the temporary folder,
the user's home. `shareable_text` rewrites them, the most specific first, keeping the rest of
each path (the part that means something anywhere):

| path | becomes |
|---|---|
| the project given, and the current directory | relative to it (`.` for the folder itself) |
| buildfixer's own package folder | `<buildfixer>` |
| a virtual environment (this interpreter's, any `.../venv` or `.../.venv`) | `<venv>` |
| the value of a model endpoint variable (`BUILDFIXER_API_BASE`, `OPENAI_API_BASE`, ...) | `$NAME` |
| a JDK's home (`JAVA_HOME`, `/usr/lib/jvm/X`, SDKMAN, `~/.jdks/X`, ...) | `$JAVA_HOME` |
| buildfixer's cache (`core.paths.cache_root`, `$BUILDFIXER_CACHE` as datasets write it) | `<cache>` |
| the temporary folder (`/tmp`, `/var/tmp`, `$TMPDIR`) | `<tmp>` |
| a home folder (`~`, `/root`, `/home/NAME`, `/Users/NAME`) | `<home>` |

Secrets are another matter (`llm.redact`); a text to publish goes through both.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from buildfixer.core.paths import cache_root

# A path starts where no name does (not inside "a/tmp" or "x.root"), and not as the "//" of a URL.
_START = r"(?<![\w.\-])(?<!:/)(?!//)"
# One path component, and the end of a prefix (no more name characters right after it).
_PART = r"[^/\s'\"`<>|;:,=()\[\]{}]+"
_END = r"(?![\w.\-])"
_HOMES = rf"(?:/root|/home/{_PART}|/Users/{_PART})"
_JDK_PLACES = (
    rf"/usr/lib/jvm/{_PART}", rf"/usr/java/{_PART}", rf"/opt/java/{_PART}",
    rf"/Library/Java/JavaVirtualMachines/{_PART}(?:/Contents/Home)?",
    rf"{_HOMES}/(?:\.sdkman/candidates/java|\.jdks|\.asdf/installs/java|\.local/share/mise/installs/java)/{_PART}",
    rf"/opt/hostedtoolcache/Java_{_PART}/{_PART}/{_PART}",  # GitHub's runners
)  # fmt: skip
_VENV = rf"/(?:{_PART}/)*?\.?venv(?=/)"
_ENDPOINT_VARIABLE = re.compile(r"_(?:API_BASE|BASE_URL)$")
_PACKAGE = Path(__file__).resolve().parent.parent


def shareable_text(text: str, project: str | Path | None = None) -> str:
    """`text` with this machine's paths made relative to `project` or replaced by placeholders.

    See the module's table for what becomes what. Only absolute paths are touched, each at a
    path boundary (`/tmpfile` and `a/tmp` stay), so relative paths and ordinary words are kept.

    Args:
        text: Any text meant to be shared (a model spec, a command, a message, a log).
        project: The folder the text is about (a workspace, a project): its paths become relative
            to it, before any other rule.

    Returns:
        The text to write into a shared output.
    """
    return sharing(project).apply(text) if text else text


def shareable_data(data: Any, project: str | Path | None = None) -> Any:
    """`shareable_text` of every string inside a JSON-like value (dict keys included); a copy."""
    return sharing(project).walk(data)


def sharing(
    project: str | Path | None = None, places: Sequence[tuple[str, str]] = (), *, machine: bool = True
) -> Sharing:
    """The rules for many texts at once (compiled once); `places` first: (path, placeholder) pairs.

    `places` name what only the caller knows, e.g. the viewer's run directories (`<run>`) or the
    workspace an attempt ran in (`<project>`); the longer of two nested ones wins. `machine=False`
    leaves this machine's places for a later pass (one that knows more places of its own).
    """
    extra = tuple((str(path), shown) for path, shown in places if path)
    if not machine:
        return _rules("", "", "", "", (), (), extra, machine=False)
    return _rules(*_setting(project), extra)


@dataclass(frozen=True)
class Sharing:
    """Compiled rules: `apply` to a text, `walk` a JSON-like value."""

    pattern: re.Pattern[str]
    replacements: tuple[str | None, ...]  # per group; None: relative (the prefix and its "/" dropped)

    def apply(self, text: str) -> str:
        """The text with every local path replaced."""
        return self.pattern.sub(self._replace, text)

    def walk(self, data: Any) -> Any:
        """A copy of `data` with `apply` done to every string in it, dict keys included."""
        if isinstance(data, str):
            return self.apply(data) if data else data
        if isinstance(data, dict):
            return {self.walk(key): self.walk(value) for key, value in data.items()}
        if isinstance(data, list | tuple):
            return type(data)(self.walk(item) for item in data)
        return data

    def _replace(self, match: re.Match[str]) -> str:
        placeholder = self.replacements[(match.lastindex or 1) - 1]
        if placeholder is not None:
            return placeholder
        return "" if match.group(0).endswith("/") else "."


def _setting(project: str | Path | None) -> tuple[Any, ...]:
    """What the rules depend on, read afresh each call (the environment may change in a process)."""
    endpoints = tuple(sorted(
        (name, value.rstrip("/")) for name, value in os.environ.items()
        if _ENDPOINT_VARIABLE.search(name) and "://" in value and len(value) > 10
    ))  # fmt: skip
    jdks = tuple(
        value for name, value in sorted(os.environ.items())
        if (name == "JAVA_HOME" or name.startswith("JAVA_HOME_")) and value.startswith("/")
    )  # fmt: skip
    try:
        here = os.getcwd()
    except OSError:  # the current directory was removed
        here = ""
    return str(project or ""), here, str(cache_root()), str(Path.home()), endpoints, jdks


@lru_cache(maxsize=16)
def _rules(
    project: str,
    here: str,
    cache: str,
    home: str,
    endpoints: tuple[tuple[str, str], ...],
    jdks: tuple[str, ...],
    places: tuple[tuple[str, str], ...] = (),
    *,
    machine: bool = True,
) -> Sharing:
    """The rules as one pattern: at each place the first alternative that matches wins."""
    alternatives: list[tuple[str, str | None]] = []
    spelled: dict[str, str] = {}
    for path, shown in places:  # the first pair naming a path wins
        for spelling in _spellings(path):
            if spelling != "/":  # every path is under "/"
                spelled.setdefault(spelling, shown)
    for path in sorted(spelled, key=len, reverse=True):
        alternatives.append((re.escape(path) + _END, spelled[path]))
    if not machine:
        return _compiled(alternatives)

    def relative(folder: str) -> None:
        for path in _spellings(folder):
            if path != "/":  # every path is under "/": nothing would be left
                alternatives.append((re.escape(path) + r"/(?=[^\s/])", None))
                alternatives.append((re.escape(path) + _END, None))

    def literal(paths: list[str], placeholder: str) -> None:
        spelled = {spelling for path in paths for spelling in _spellings(path)}
        for path in sorted(spelled, key=len, reverse=True):  # the longer first: "/tmp/x" before "/tmp"
            alternatives.append((re.escape(path) + _END, placeholder))

    if project:
        relative(project)
    literal([str(_PACKAGE)], "<buildfixer>")
    if sys.prefix != sys.base_prefix:
        literal([sys.prefix], "<venv>")
    alternatives.append((_VENV, "<venv>"))
    for name, value in sorted(endpoints, key=lambda item: len(item[1]), reverse=True):
        alternatives.append((re.escape(value) + _END, f"${name}"))
    literal(list(jdks), "$JAVA_HOME")
    alternatives += [(place + _END, "$JAVA_HOME") for place in _JDK_PLACES]
    literal([cache], "<cache>")
    alternatives.append((re.escape("$BUILDFIXER_CACHE") + _END, "<cache>"))
    relative(here)
    literal([tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"], "<tmp>")
    literal([home], "<home>")
    alternatives.append((_HOMES + _END, "<home>"))
    return _compiled(alternatives)


def _compiled(alternatives: list[tuple[str, str | None]]) -> Sharing:
    if not alternatives:  # nothing to replace: a pattern that never matches
        return Sharing(re.compile(r"(?!)"), ())
    pattern = _START + "(?:" + "|".join(f"({regex})" for regex, _ in alternatives) + ")"
    return Sharing(re.compile(pattern), tuple(placeholder for _, placeholder in alternatives))


def _spellings(path: str) -> list[str]:
    """A path made absolute, as written and with its links resolved (`/tmp` may be `/private/tmp`)."""
    if not path:
        return []
    written = os.path.abspath(os.path.expanduser(path))
    return list(dict.fromkeys([written, os.path.realpath(written)]))
