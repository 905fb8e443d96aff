"""C and C++ compiler and linker errors outside Android native builds.

Python extension builds (pip, setup.py), node-gyp addons and plain make/CMake
projects print gcc/clang diagnostics (`src/x.c:19:20: fatal error: Python.h: No such
file or directory`) and linker failures (`/usr/bin/ld: cannot find -lcuda`). In an
Android native build the Android parser reports the same lines as NDK errors; here
they are classified by what they need: a missing system header or library is a
dependency to install, anything else is an error in the code being compiled.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser
from buildfixer.logs.parsers.android import NATIVE_CONTEXT
from buildfixer.logs.parsers.android_rules import MISSING_INPUT, NATIVE
from buildfixer.logs.taxonomy import classify

_COMPILER = re.compile(NATIVE + r":(?P<line>\d+):(?:(?P<col>\d+):)? (?:fatal )?error: (?P<msg>.+)")
_LINKER = re.compile(
    r"\bld(?:\.\w+)?(?:\.exe)?: (?:error: )?(?P<msg>cannot find -l\S+|undefined reference to .+)"
)
# A cheap test for a C/C++ source location before the full pattern runs.
_NATIVE_LOCATION = re.compile(r"\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|inl|mm?|S|s):\d")
_UNDEFINED = re.compile(r"(?P<msg>undefined reference to .+)")
# A header or library of the system (or another package) that is not installed.
_MISSING_DEPENDENCY = re.compile(r"^[\w/.+-]+\.h(?:pp|h|xx)?: No such file|^cannot find -l")

_MISSING_INPUT = re.compile(MISSING_INPUT)

_MAX_MESSAGE = 600


def _category(message: str) -> str:
    return "library_unavailable" if _MISSING_DEPENDENCY.search(message) else "syntax"


def parse(lines: list[str]) -> list[BuildError]:
    """Find C/C++ compiler and linker errors in a log that is not an Android native build.

    Args:
        lines: the cleaned log.

    Returns:
        The errors in log order, tool "cc" (compiler) or "ld" (linker).
    """
    errors: list[BuildError] = []
    seen: set[tuple[str | None, str]] = set()
    for index, text in enumerate(lines):
        if "error: " in text and _NATIVE_LOCATION.search(text) and (found := _COMPILER.search(text)):
            message = found["msg"].strip()[:_MAX_MESSAGE]
            key: tuple[str | None, str] = (found["file"], message)
            if key in seen:
                continue
            seen.add(key)
            errors.append(
                BuildError(
                    message=message,
                    category=_category(message),
                    tool="cc",
                    file=found["file"].strip(),
                    line=int(found["line"]),
                    column=int(found["col"]) if found["col"] else None,
                    log_line=index,
                    specificity=10,
                )
            )
        elif "rule to make" in text and (found := _MISSING_INPUT.search(text)):
            # The file a step needs; ninja's words make it native code's (ndk), make's a missing file.
            message = found["msg"].strip()[:_MAX_MESSAGE]
            tool = "make" if "make" in message[:8] else "ninja"
            errors.append(BuildError(message, classify(message), tool,
                                     file=found["file"], log_line=index, specificity=9))  # fmt: skip
        elif ("ld" in text and "cannot find -l" in text) or "undefined reference to" in text:
            linked = _LINKER.search(text) or _UNDEFINED.search(text)
            if linked and (None, linked["msg"]) not in seen:
                seen.add((None, linked["msg"]))
                message = linked["msg"].strip()[:_MAX_MESSAGE]
                errors.append(BuildError(message, _category(message), "ld", log_line=index, specificity=8))
    if errors and NATIVE_CONTEXT.search("\n".join(lines)):
        return []  # the Android parser reports these as NDK errors
    return errors


PARSER = Parser(
    name="native",
    triggers=(": error: ", ": fatal error: ", "cannot find -l", "undefined reference to", "No rule to make"),
    parse=parse,
)
