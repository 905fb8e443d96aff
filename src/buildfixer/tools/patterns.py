"""Patterns of the file tools: globs on paths and regular expressions on lines.

Both run on RE2, whose time is linear in the text: `(a+)+$` on a long line, or a glob such as
`**/**/**/x` on a deep path, return at once instead of backtracking for ever. A search pattern
RE2 cannot run (backreferences, lookarounds) falls back to the `regex` module, whose matcher
stops itself at a timeout. Glob patterns support `*`, `?`, `[...]`, `{a,b}` and `**` (any number
of directories, including none).
"""

from __future__ import annotations

import re
import time
from typing import Any

import re2  # type: ignore[import-untyped]
import regex  # type: ignore[import-untyped]

from buildfixer.tools.base import ToolError

MAX_BRACE_ALTERNATIVES = 256
FALLBACK_BUDGET_S = 10.0  # time one search may spend in the backtracking fallback


def relative_to_base(rel: str, base: str) -> str:
    """`rel` relative to the walk's base (its name when the base is the file itself)."""
    if rel == base:
        return rel.rsplit("/", 1)[-1]
    return rel if base == "." else rel[len(base) + 1 :]


def _re2_options(case_sensitive: bool) -> Any:
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False  # errors come back to the model, not to our stderr
    return options


def _re2_reason(exc: Exception) -> str:
    reason = exc.args[0] if exc.args else exc
    return reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)


class LineSearch:
    """A case-insensitive search pattern in Python syntax, run on RE2 when it can be.

    Patterns RE2 refuses (backreferences, lookarounds, possessive quantifiers) run on `regex`
    with the time left of FALLBACK_BUDGET_S for the whole search; when that is spent the search
    ends with a ToolError instead of hanging.
    """

    def __init__(self, pattern: str) -> None:
        """Compile; ToolError for a pattern that is not a valid regular expression."""
        self.pattern = pattern
        self.fast: Any = None
        self.slow: Any = None
        try:
            self.fast = re2.compile(pattern, _re2_options(case_sensitive=False))
        except re2.error as exc:
            self.why = _re2_reason(exc)
            try:  # the message models know; compiling matches nothing, so it cannot backtrack
                re.compile(pattern, re.IGNORECASE)
                self.slow = regex.compile(pattern, regex.IGNORECASE | regex.V0)
            except (re.error, regex.error) as bad:
                raise ToolError(f"invalid regular expression {pattern!r}: {bad}") from None
        self.deadline = time.monotonic() + FALLBACK_BUDGET_S

    def search(self, line: str) -> bool:
        """Whether the pattern occurs in the line; ToolError when the fallback's time is spent."""
        if self.fast is not None:
            return self.fast.search(line) is not None
        left = self.deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            return self.slow.search(line, timeout=left) is not None
        except TimeoutError:
            raise ToolError(
                f"the regular expression {self.pattern!r} took more than {FALLBACK_BUDGET_S:g}s: it "
                f"needs backtracking (the linear-time engine refused it: {self.why}). Rewrite it "
                "without backreferences or lookarounds, or narrow path/include"
            ) from None


def expand_braces(pattern: str, limit: int = MAX_BRACE_ALTERNATIVES) -> list[str]:
    """`a.{java,kt}` -> [`a.java`, `a.kt`], at most `limit` patterns; unbalanced braces stay literal."""
    depth, start = 0, -1
    commas: list[int] = []
    for i, char in enumerate(pattern):
        if char == "{":
            if depth == 0:
                start, commas = i, []
            depth += 1
        elif char == "," and depth == 1:
            commas.append(i)
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0 and commas:  # "{x}" is literal
                bounds = [start, *commas, i]
                head, tail = pattern[:start], pattern[i + 1 :]
                out: list[str] = []
                for left, right in zip(bounds, bounds[1:], strict=False):
                    if len(out) >= limit:
                        break
                    out.extend(expand_braces(head + pattern[left + 1 : right] + tail, limit - len(out)))
                return out
    return [pattern]


def _translate(pattern: str) -> str:
    """Regex source of one brace-free glob pattern matched against a whole `/`-separated path."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            whole_segment = (i == 0 or pattern[i - 1] == "/") and j - i >= 2
            if whole_segment and j < n and pattern[j] == "/":
                out.append("(?:[^/]*/)*")  # `**/`: zero or more directories
                j += 1
            elif whole_segment and j == n:
                out.append(".*")  # trailing `**`: everything below
            else:
                out.append("[^/]*")
            i = j
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            j = i + 1
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:  # no closing bracket: a literal "["
                out.append(re2.escape(char))
                i += 1
                continue
            body = pattern[i + 1 : j]
            negate = body[:1] in ("!", "^")
            chars = "".join(c if c == "-" else re2.escape(c) for c in (body[1:] if negate else body))
            out.append(f"[^/{chars}]" if negate else f"[{chars}]")
            i = j + 1
        else:
            out.append(re2.escape(char))
            i += 1
    return "".join(out)


def glob_regex(pattern: str, case_sensitive: bool = True) -> Any:
    """A compiled RE2 regex that fullmatches the paths `pattern` matches (see the module docstring).

    RE2, not `re`: `**/**/**/...` translates to nested stars that make a backtracking engine
    exponential on deep paths.
    """
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    source = "|".join(f"(?:{_translate(p)})" for p in expand_braces(pattern))
    try:
        return re2.compile(source, _re2_options(case_sensitive))
    except re2.error as exc:  # a pattern too large for RE2's memory budget
        raise ToolError(f"the glob pattern {pattern!r} is too complex ({_re2_reason(exc)})") from None


class PathMatcher:
    """A glob matched against file names, or against paths below the base when it contains `/`."""

    def __init__(self, pattern: str, case_sensitive: bool = True) -> None:
        self.on_path = "/" in pattern.strip().removeprefix("./")
        self.regex = glob_regex(pattern, case_sensitive)

    def matches(self, rel: str, base: str) -> bool:
        """Whether the walked file `rel` (found below `base`; both relative to the root) matches."""
        subject = relative_to_base(rel, base) if self.on_path else rel.rsplit("/", 1)[-1]
        return self.regex.fullmatch(subject) is not None
