"""The file an error message names in prose, for an error no parser could place.

Many messages say where the problem is in words rather than as `file:line`: `ENOENT: no such
file or directory, open '/app/src/config.json'`, `Could not read script '/w/gradle/ci.gradle' as
it does not exist`, `Cannot find source file: src/codec.c`, `Module parse failed: /abs/a.ts
Unexpected token (7:14)`. The path named is the place to look. Only a path to a file of a kind a
project holds (source, resource, build or settings file) counts, quoted or absolute: a URL, a
directory, a JDK home or a Maven coordinate is not a place in the project.
"""

from __future__ import annotations

import re

# Kinds of files a project holds and a build reads.
_EXTENSIONS = (
    "java|kt|kts|groovy|gradle|scala|xml|json|jsonc|properties|toml|ya?ml|txt|cfg|ini|conf|lock|py|pyi"
    "|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|vue|svelte|css|scss|sass|less|html?|c|cc|cpp|cxx|h|hh|hpp|m|mm"
    "|swift|rs|go|cmake|mk|pro|jks|keystore|so|a|dylib|dll|aidl|proto"
)
_QUOTED = re.compile(
    r"(?P<q>['\"`‘“])(?P<path>(?:[A-Za-z]:)?[^'\"`’”\s<>|]*?\.(?:" + _EXTENSIONS + r"))(?:'|\"|`|’|”)"
)
_ABSOLUTE = re.compile(
    r"(?<![\w.:/\\>})\]-])(?P<path>(?:[A-Za-z]:[\\/]|/)[^'\"`\s<>|:()]*\.(?:" + _EXTENSIONS + r"))(?![\w/\\])"
)
# A relative path with its place, unquoted, that no parser read: `src/index.ts:1:17`.
_RELATIVE_PLACED = re.compile(
    r"(?<![\w./\\>})\]-])(?P<path>[\w.-]+(?:/[\w.-]+)*\.(?:" + _EXTENSIONS + r")):(?P<line>\d+)\b"
)
# A place after the path: `:12`, `:12:5`, ` (12:5)`, `, line 12`; or, further on in the same
# message, the `(12:5)` of a parser (`/abs/a.ts Unexpected token (7:14)`).
_PLACE_AFTER = re.compile(r"^(?::(?P<a>\d+)(?::\d+)?|\s*\((?P<b>\d+):\d+\)|[,:]? line (?P<c>\d+))")
_PLACE_LATER = re.compile(r"^[^'\"`()/\\]{0,80}?\((?P<d>\d+):\d+\)")
_MAX_SEARCHED = 1000


def named_path(message: str) -> tuple[str, int | None] | None:
    """The project file a message names in prose and the line it gives, or None.

    Args:
        message: an error message.

    Returns:
        (path as written, line or None); the first quoted path wins over an unquoted absolute one.
    """
    text = message[:_MAX_SEARCHED]
    found = _QUOTED.search(text) or _ABSOLUTE.search(text)
    if not found and (placed := _RELATIVE_PLACED.search(text)) and "://" not in text[: placed.start()][-8:]:
        return placed["path"], int(placed["line"])
    if not found or "://" in text[max(0, found.start("path") - 8) : found.start("path")]:
        return None
    rest = text[found.end() :] if found.re is _QUOTED else text[found.end("path") :]
    place = _PLACE_AFTER.match(rest) or _PLACE_LATER.match(rest)
    line = next((int(v) for v in (place.groups() if place else ()) if v), None)
    return found["path"], line
