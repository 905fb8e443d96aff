"""Decorated logs read as the plain ones: same root error, same place, same raw line.

Every fixture with a located root error is decorated the ways CI runners, wrappers and web pages
decorate logs; the analysis must not change, and the root's line in the decorated log must be the
line it is on in the plain one (positions do not move).
"""

import html
import json
from pathlib import Path

import pytest

from buildfixer.logs.analyze import analyze_text
from buildfixer.logs.decoration import undecorate
from buildfixer.logs.text import clean_log

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"


def _located_fixtures() -> list[Path]:
    found = []
    for sidecar in sorted(FIXTURES.glob("*.expected.json")):
        root = json.loads(sidecar.read_text()).get("root") or {}
        log = sidecar.with_name(sidecar.name.removesuffix(".expected.json") + ".log")
        text = log.read_text(errors="replace")
        # Plain logs only: one already decorated would be decorated twice.
        decorated = "\x1b" in text or "\r" in text or undecorate("\n" + text) != "\n" + text
        if root.get("line") and not decorated:
            found.append(log)
    return found[::6]  # every sixth: all families, a bounded test time


def _github(line: str, n: int) -> str:
    return f"2024-05-02T10:01:{n % 60:02d}.1234567Z {line}"


def _gitlab(line: str, n: int) -> str:
    return f"2024-03-14T09:12:{n % 60:02d}.345678Z 01{'E' if n % 3 else 'O'} {line}"


def _buildkite(line: str, n: int) -> str:
    return f"\x1b_bk;t={1700000000000 + n}\x07{line}"


def _compose(line: str, n: int) -> str:
    return f"web_1  | {line}"


def _craft(line: str, n: int) -> str:
    return f":: {line}"


def _quoted(line: str, n: int) -> str:
    return f"> {line}"


def _gh_run_view(line: str, n: int) -> str:
    return f"build\tRun tests\t2025-02-11T08:00:{n % 60:02d}.0000000Z {line}"


def _ansi(line: str, n: int) -> str:
    return f"\x1b[31m{line}\x1b[0m" if n % 2 else line


def _ansi_without_esc(line: str, n: int) -> str:
    return f"[1;31m{line}[0m" if n % 2 else line


def _html(line: str, n: int) -> str:
    return f'<span style="color:#bb0000">{html.escape(line)}</span>' if n % 2 else html.escape(line)


DECORATIONS = [
    _github, _gitlab, _gh_run_view, _buildkite, _compose, _craft, _quoted, _ansi, _ansi_without_esc, _html
]  # fmt: skip


@pytest.mark.parametrize("decorate", DECORATIONS, ids=lambda d: d.__name__.strip("_"))
@pytest.mark.parametrize("log", _located_fixtures(), ids=lambda p: p.stem)
def test_a_decorated_log_reads_as_the_plain_one(log: Path, decorate):
    plain = log.read_text(errors="replace")
    lines = plain.split("\n")
    decorated = "\n".join(decorate(line, n) for n, line in enumerate(lines))
    if decorate is _html:
        decorated = f"<pre>{decorated}</pre>"

    want, got = analyze_text(plain), analyze_text(decorated)

    assert got.category == want.category
    place = (want.root.file, want.root.line, want.root.column)
    assert (got.root.file, got.root.line, got.root.column) == place
    assert got.root.message == want.root.message
    # The root error sits on the same line of the decorated log as of the plain one.
    raw_want = clean_log(plain).raw_index[want.root.log_line]
    raw_got = clean_log(decorated).raw_index[got.root.log_line]
    assert raw_got == raw_want


def test_fixtures_to_decorate_were_found():
    assert len(_located_fixtures()) >= 15


@pytest.mark.parametrize(
    "line",
    [
        "List<String> names = new ArrayList<>();",
        "<dependency><groupId>a</groupId></dependency>",
        "if (a && b) { return x & 0xff; }",
        "Tests run: 3 [1m bold",
        "status | exit code",
        "std::vector<int> v;",
    ],
)
def test_text_that_only_looks_decorated_is_left_alone(line: str):
    body = "\n" + "\n".join([line] * 5)
    assert undecorate(body) == body


def test_github_annotation_becomes_a_located_error():
    log = "::error file=src/a.ts,line=3,col=5::Type 'string' is not assignable\n"
    assert undecorate("\n" + log) == "\nsrc/a.ts:3:5: error: Type 'string' is not assignable\n"


def test_html_bare_breaks_become_lines_and_entities_are_decoded():
    body = "\n<pre>a &gt; b<br>c &amp; d<br>\ne &#39;f&#39;</pre>"
    assert undecorate(body) == "\na > b\nc & d\ne 'f'"
