"""Turn a raw build log (bytes) into clean text lines the parsers can read.

Build logs are captured from terminals and CI systems, so they carry ANSI colour
and cursor codes, carriage-return progress bars, CI timestamps and megabytes of
download and progress chatter. All of that is removed here, once, so that every
parser sees the same plain lines and `BuildError.log_line` indexes into them.

Everything works line by line with a cheap substring guard before any regex,
because a 10 MB log (about 150,000 lines) must be cleaned in well under a second.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path

from buildfixer.core.errors import BuildfixerError
from buildfixer.logs.decoration import undecorate
from buildfixer.logs.unwrap import unwrap
from buildfixer.logs.window import cap_line, read_window

# Bytes examined to tell text from binary; the whole file is not needed to spot a
# binary (like git and grep, look at the head), and 64 KiB keeps the check cheap.
_SNIFF_BYTES = 64 * 1024
# Share of undecodable or control bytes in the head above which a file is not a log.
_MAX_BINARY_SHARE = 0.10
# Control characters that have no business in a text log (tab, LF, FF, CR, ESC and
# backspace do appear in terminal captures and are allowed).
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (8, 9, 10, 12, 13, 27))

# CSI sequences (colours, cursor moves, erase), OSC, APC, DCS and PM strings (window titles,
# hyperlinks, Buildkite's timestamps) and the two-byte escapes terminals also use.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]_P^][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# Cursor movements that make a rich console redraw its progress area in place:
# the text between them is a separate screen row, not part of one line.
_CURSOR_MOVE = re.compile(r"\x1b\[\d*[ABDGK]|\x1b\[2K")

# Lines that only report progress or downloads. Each alternative matches after a
# line's leading blanks; `[ \t]`, not `\s`, so that no pattern runs across lines.
# No two adjacent quantifiers may match the same characters (`\.{3}[\d%.]*`, not
# `\.{3,}[\d%.]*`): on a long line of such characters the regex would backtrack through
# every split, quadratic or worse in the line's length.
_NOISE_ALTERNATIVES = "|".join(
    [
        # Gradle's progress bar and idle workers: `<====---> 45% EXECUTING [3s]`, `> IDLE`.
        r"<[=\-]*> \d+% ",
        r"<[=\-]+> ?\d+%?[ \t]*$",
        r"> IDLE[ \t]*$",
        # The wrapper's distribution download: `.........10%..........20%`.
        r"\.{3}[\d%.]*$",
        # Gradle 4 dependency downloads: `Download https://...`.
        r"Download(?:ing)? https?://\S+[ \t]*$",
        # Maven transfers: `[INFO] Downloading from central: https://...`, `Progress (1): 4/8 kB`.
        r"(?:\[INFO\] )?(?:Downloading|Downloaded|Uploading|Uploaded)(?: from| to)? [\w.-]*:? ?https?://",
        r"(?:\[INFO\] )?Progress \(\d+\)",
        r"\d+(?:\.\d+)?/\d+(?:\.\d+)? ?[kKMG]?B[ \t]*$",
        # npm spinners (braille frames or |/-\\) and the `[####.....] / fetchMetadata` bar.
        r"[\u2800-\u28ff|/\\-][ \t]*$",
        r"[\u2800-\u28ff][ \t]+\S*[ \t]*$",
        r"[\[(][#.\u2802 \t]+[\])][ \t]+[\u2800-\u28ff|/\\-][ \t]",
        # pip bars, old (`|█████| 1.2 MB 3.4 MB/s`) and rich (`━━━━ 1.2/1.2 MB 3.4 MB/s eta 0:00:00`).
        r"\|?[\u2500-\u259f][\u2500-\u259f ]{2}[^\n]*(?:B/s|eta|\d%)",
    ]
)
# The characters a noise line can start with (after blanks). The lookahead on
# them lets the ~95% of lines that are not noise fail after one character test
# instead of trying every alternative.
_NOISE_FIRST = r"(?=[<>.D\[(P\d|/\\\-\u2800-\u28ff\u2500-\u259f])"
_NOISE_LINE = re.compile(f"[ \\t]*{_NOISE_FIRST}(?:{_NOISE_ALTERNATIVES})", re.MULTILINE)
# The same, searched through the whole text at once: the leading newline is a
# literal prefix the regex engine can skip to, which is what makes this fast.
_NOISE_IN_TEXT = re.compile(f"\\n[ \\t]*{_NOISE_FIRST}(?:{_NOISE_ALTERNATIVES})[^\\n]*", re.MULTILINE)
# Worker status rows of the rich console (`> :app:compileJava > Resolve files`);
# only dropped inside a cursor-redrawn line, where real `> cause` lines never are.
_GRADLE_STATUS_ROW = re.compile(
    r"^\s*> (?:IDLE|:\S+|Starting Daemon|Connecting to Daemon|settings|loading|root project|project :"
    r"|Resolv|Download|Fetch|Configure project|Evaluat|Initializ)"
)
# Any line starting in column 0; a log without one was pasted indented as a whole.
_UNINDENTED = re.compile(r"\n[^\s]")
_INDENT = re.compile(r"\n([ \t]+)\S")

# The Debian build of Gradle 4.4.1 tries to load a Maven hook that is not installed
# and prints a stack trace for it, sometimes many times; none of it is the user's error.
# A block is the line naming the hook and the stack lines after it.
_DEBIAN_HOOK = "MavenResolverHook"
# Stack lines (`\tat x.y(Z.java:1)`, `Caused by: ...`, `... 12 more`) after the hook's line.
_STACK_LINE = re.compile(r"[ \t]+at \S|[ \t]*Caused by: |[ \t]*\.\.\. \d+ more")
# Marks a dropped line until the final split, so that raw line numbers survive.
_DROPPED = "\x00"


class CleanLog:
    """The cleaned lines of a log and, for each, the index of its raw line.

    `raw_index[i]` is the 0-based line number, in the original log, of cleaned
    line `i`, so an error found on a cleaned line can be shown in the raw file.
    It is computed on first use: most callers never need it.
    """

    def __init__(self, marked: list[str]) -> None:
        """Build from the raw lines, with dropped ones replaced by the drop marker."""
        self._marked = marked
        self.lines = [cap_line(line.rstrip()) for line in marked if line != _DROPPED]

    @cached_property
    def raw_index(self) -> list[int]:
        """Raw line number of every cleaned line."""
        return [number for number, line in enumerate(self._marked) if line != _DROPPED]


def read_log(path: str | Path, *, strict: bool = True) -> str:
    """Read a build log from disk as text; a huge one as its head and tail (see logs.window).

    Args:
        path: the log file.
        strict: reject a file that does not look like a text log (a file a user names);
            False for a build's own output, which is read whatever bytes it holds.

    Returns:
        The decoded text (UTF-8, undecodable bytes replaced; UTF-16 when the file
        starts with a UTF-16 byte-order mark, as PowerShell redirection writes).

    Raises:
        BuildfixerError: the file is missing, unreadable, or (strict) not a text log.
    """
    p = Path(path)
    try:
        data = read_window(p)
    except FileNotFoundError:
        raise BuildfixerError(f"log file not found: {p}") from None
    except IsADirectoryError:
        raise BuildfixerError(f"log path is a directory, not a file: {p}") from None
    except OSError as exc:
        raise BuildfixerError(f"cannot read log file {p}: {exc.strerror or exc}") from None
    return decode_log(data, source=str(p)) if strict else decode_output(data)


def decode_log(data: bytes, source: str = "log") -> str:
    """Decode log bytes, rejecting binary or corrupt content.

    Args:
        data: the raw bytes.
        source: how to name the input in an error message.

    Returns:
        The text, with a leading byte-order mark removed.

    Raises:
        BuildfixerError: the bytes look binary (NUL bytes, or a high share of
            control or undecodable bytes) rather than a text log.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16").lstrip("\ufeff")
        except UnicodeDecodeError:
            raise BuildfixerError(f"{source}: corrupt UTF-16 text, not a readable build log") from None
    head = data[:_SNIFF_BYTES]
    if b"\x00" in head or data.count(b"\x00") > len(data) // 1000:
        raise BuildfixerError(f"{source}: binary file (contains NUL bytes), not a text build log")
    text = data.decode("utf-8", errors="replace")
    if head:
        sample = head.decode("utf-8", errors="replace")
        bad = sample.count("\ufffd") + len(head) - len(head.translate(None, _CONTROL_BYTES))
        if bad > _MAX_BINARY_SHARE * len(sample):
            raise BuildfixerError(
                f"{source}: {bad * 100 // max(len(sample), 1)}% of the first bytes are not text; "
                "not a readable build log"
            )
    return text.lstrip("\ufeff")


def decode_output(data: bytes) -> str:
    """Decode a build's output leniently: binary garbage a build printed becomes replacement characters."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace").lstrip("\ufeff")
    return data.decode("utf-8", errors="replace").lstrip("\ufeff")


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (colours, cursor movement, titles)."""
    # A stray ESC left over (a sequence cut off at a buffer boundary) goes too.
    return _ANSI.sub("", text).replace("\x1b", "") if "\x1b" in text else text


def _resolve_overwrites(line: str) -> str:
    r"""Collapse what a terminal would show for a line rewritten in place.

    A carriage return moves the cursor back to column 0, so only the text after
    the last non-empty `\r` segment stays visible; rich consoles move the cursor
    up and down instead, and the text between those moves belongs to separate
    screen rows, of which the progress rows are dropped.
    """
    if "\x1b" in line and _CURSOR_MOVE.search(line):
        rows = [strip_ansi(r) for r in _CURSOR_MOVE.split(line)]
        line = "".join(
            r for r in rows if r.strip() and not _is_noise(r.strip("\r")) and not _GRADLE_STATUS_ROW.match(r)
        )
    if "\r" in line:
        segments = [s for s in line.split("\r") if s.strip()]
        line = segments[-1] if segments else ""
    return strip_ansi(line)


def _is_noise(line: str) -> bool:
    """True for a line that only reports progress or downloads."""
    return _NOISE_LINE.match(line) is not None


def _rewrite_lines(text: str, positions: Iterable[int], rewrite: Callable[[str], str]) -> str:
    """Apply `rewrite` to each line that contains one of `positions` (in increasing order).

    `rewrite` must not add or remove line breaks, so line numbers stay valid.
    """
    parts: list[str] = []
    done = 0
    for position in positions:
        if position < done:
            continue  # another hit on a line already rewritten
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        parts += [text[done:start], rewrite(text[start:end])]
        done = end
    parts.append(text[done:])
    return "".join(parts)


def clean_log(text: str) -> CleanLog:
    """Split a log into clean lines: no ANSI codes, progress redraws or noise.

    Whole-text regex passes do the bulk of the work (a Python loop over 150,000
    lines costs a good part of the 0.5 s a 10 MB log may take); only lines with
    carriage returns or cursor movements are handled one by one.

    Args:
        text: the decoded log.

    Returns:
        The kept lines (trailing whitespace removed) and their raw line numbers.
    """
    if _DROPPED in text:
        text = text.replace(_DROPPED, "")
    # Lines are split on "\n" only, never splitlines(): a bare "\r" is an
    # in-place overwrite, not a line break.
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if "\u241b" in text:
        text = text.replace("\u241b", "\x1b")  # ESC shown as its picture, as some log viewers do
    if "\x1b" in text:
        moves = (m.start() for m in _CURSOR_MOVE.finditer(text))
        text = strip_ansi(_rewrite_lines(text, moves, _resolve_overwrites))
    if "\r" in text:
        returns = (m.start() for m in re.finditer("\r", text))
        text = _rewrite_lines(text, returns, _resolve_overwrites)
    body = "\n" + text.removesuffix("\n")
    body = undecorate(body)  # CI stamps, wrapper labels, HTML, colour codes without their ESC
    if len(body) > 1 and not _UNINDENTED.search(body):
        body = _dedent(body)
    if _DEBIAN_HOOK in body:
        body = _drop_hook_traces(body)
    body = _NOISE_IN_TEXT.sub("\n" + _DROPPED, body)
    body = unwrap(body, _DROPPED)  # rows a console cut at its width
    return CleanLog(body[1:].split("\n") if len(body) > 1 else [])


def _dedent(body: str) -> str:
    """Remove the indentation every line shares (a log pasted indented as a whole)."""
    indents = {m.group(1) for m in _INDENT.finditer(body)}
    if not indents:
        return body
    common = min(indents, key=len)
    for indent in indents:
        while not indent.startswith(common):
            common = common[:-1]
    return body.replace("\n" + common, "\n") if common else body


def _drop_hook_traces(body: str) -> str:
    """Replace each line naming the Debian hook, and the stack lines below it, by drop markers."""
    parts: list[str] = []
    done = 0
    position = body.find(_DEBIAN_HOOK)
    while position >= 0:
        start = body.rfind("\n", 0, position)
        end = body.find("\n", position)
        end = len(body) if end < 0 else end
        count = 1
        while end < len(body) and _STACK_LINE.match(body, end + 1):
            following = body.find("\n", end + 1)
            end = len(body) if following < 0 else following
            count += 1
        parts += [body[done:start], ("\n" + _DROPPED) * count]
        done = end
        position = body.find(_DEBIAN_HOOK, end)
    parts.append(body[done:])
    return "".join(parts)


def clean_lines(text: str) -> list[str]:
    """The cleaned lines of a log (see `clean_log`)."""
    return clean_log(text).lines
