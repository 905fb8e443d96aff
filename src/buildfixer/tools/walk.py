"""Filesystem helpers of the file tools: walks, glob patterns, binary files, atomic writes.

Walks never follow symlinked directories (no loops, no escapes) and drop symlinked files whose
target lies outside the workspace. Glob patterns support `*`, `?`, `[...]`, `{a,b}` and `**`
(any number of directories, including none).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from buildfixer.tools.base import ToolError
from buildfixer.tools.context import ToolContext

# Dependency caches, build outputs and VCS data: huge, generated, rarely what a fix needs.
SKIP_DIRS = frozenset({".git", "node_modules", "build", "target", ".gradle", "__pycache__", ".venv"})
SKIPPED = ", ".join(sorted(SKIP_DIRS))

BINARY_PROBE_BYTES = 8192
MAX_BRACE_ALTERNATIVES = 256


def is_binary(path: Path) -> bool:
    """Whether the file looks binary: a NUL byte in its first 8 KB."""
    with path.open("rb") as fh:
        return b"\0" in fh.read(BINARY_PROBE_BYTES)


def walk_files(ctx: ToolContext, base: Path) -> Iterator[Path]:
    """Regular files under `base` (a resolved path inside the workspace), skipping SKIP_DIRS.

    `base` itself may be a file. Symlinked directories are not entered; symlinked files are
    kept only when their target is a regular file inside the workspace.
    """
    if not base.is_dir():
        if base.is_file():
            yield base
        return
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath, name)
            if path.is_symlink() and not ctx.inside(path):
                continue
            if path.is_file():  # drops broken links, fifos, sockets
                yield path


def shown(ctx: ToolContext, path: Path) -> str:
    """A walked path as the model sees it: relative to the root, where the walk found it."""
    try:
        return path.relative_to(ctx.root).as_posix() or "."
    except ValueError:
        return ctx.relative(path)


def relative_to_base(path: Path, base: Path) -> str:
    """`path` relative to the walk's base (its name when the base is the file itself)."""
    return path.name if path == base else path.relative_to(base).as_posix()


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
                out.append(re.escape(char))
                i += 1
                continue
            body = pattern[i + 1 : j]
            negate = body[:1] in ("!", "^")
            chars = "".join(c if c == "-" else re.escape(c) for c in (body[1:] if negate else body))
            out.append(f"[^/{chars}]" if negate else f"[{chars}]")
            i = j + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def glob_regex(pattern: str, case_sensitive: bool = True) -> re.Pattern[str]:
    """A compiled regex that fullmatches the paths `pattern` matches (see the module docstring)."""
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    source = "|".join(f"(?:{_translate(p)})" for p in expand_braces(pattern))
    return re.compile(source, 0 if case_sensitive else re.IGNORECASE)


class PathMatcher:
    """A glob matched against file names, or against paths below the base when it contains `/`."""

    def __init__(self, pattern: str, case_sensitive: bool = True) -> None:
        self.on_path = "/" in pattern.strip().removeprefix("./")
        self.regex = glob_regex(pattern, case_sensitive)

    def matches(self, path: Path, base: Path) -> bool:
        """Whether the walked `path` (found below `base`) matches."""
        subject = relative_to_base(path, base) if self.on_path else path.name
        return self.regex.fullmatch(subject) is not None


def _umask() -> int:
    """The process umask (for the mode of new files), read without changing it where possible."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    old = os.umask(0o022)
    os.umask(old)
    return old


def encode(text: str) -> bytes:
    """UTF-8 bytes of text (undecodable bytes read with surrogateescape go back unchanged)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise ToolError(f"text contains characters that cannot be written as UTF-8 ({exc.reason})") from None


def atomic_write(target: Path, data: bytes) -> None:
    """Replace target's content in one step (temp file + rename), keeping an existing file's mode."""
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
