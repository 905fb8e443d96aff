"""Take off what renderers and CI runners put around a tool's own lines, without moving a line.

A log reaches the analyzer as some system showed it, not as the tool printed it:

- a CI runner stamps each line (GitHub Actions and Azure `2024-05-01T10:11:12.1234567Z ` and
  `##[error]`, GitLab `2024-03-14T09:12:10.345678Z 01O `, Buildkite `_bk;t=1700000000000`,
  Jenkins' Timestamper, TeamCity, Netlify, BuildKit's `#8 1.927 `);
- a wrapper labels each line with where it came from (docker compose `web_1  | `, craft tools'
  `:: `, stream labels such as `[stderr]`, `gh run view --log`'s job and step), or a comment
  quotes it in Markdown (`> ` before every line);
- a web page shows it as HTML (`<span style="color:red">`, `&gt;`, `&#39;`), or a copy lost the
  ESC byte of its colour codes and left `[31m` ... `[0m` in the text.

Every rule here rewrites within a line, so the parsers see the tool's own line starts and an
error's line number is the line of the log as given. The one exception is HTML that breaks lines
with `<br>` alone: there the rendered lines are the log's lines.

Each pass is guarded by a cheap test on the text, so a plain log costs a few substring searches.
"""

from __future__ import annotations

import html
import re

# What loggers, CI runners and wrappers put before each line: ISO timestamps, bare or bracketed
# (GitHub Actions, Jenkins), with GitLab's stream tag after them (`01O `, `00E+`), or after a tag
# (Taskcluster's `[task 2020-03-20T14:13:57.855Z] `), clock times with milliseconds (Gradle --debug,
# Maven with a timestamped logger, Vercel's `[10:27:33.031] `), Gradle's `[ERROR] [logger.Name]`,
# flutter --verbose's `[ +12 ms]`, stream labels (`[stderr]`: EAS, some CI runners), Jenkins'
# Timestamper (`14:58:51  `), TeamCity's `[12:00:01]W:\t [Step 2/4] `, Netlify's `7:20:54 PM: `,
# BuildKit's `#8 1.927 ` and its error summary's `0.415 `, Buildkite's `_bk;t=1700000000000` (its
# ESC and BEL are gone by now or never were) and the GitHub Actions / Azure Pipelines level and
# group marks (`##[error]`).
_LINE_PREFIX = re.compile(
    r"\n\ufeff?(?:"
    # `gh run view --log` and viewers built on it: job and step names before the timestamp.
    r"(?:[^\t\n|]{1,80}(?:\t| \| )){1,2}(?=\d{4}-\d\d-\d\dT\d\d:)"
    r"|\[?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]? (?:\d\d[OE]\+? )?"
    r"|\[?\d\d:\d\d:\d\d[.,]\d{3}\]? "
    r"|\d\d:\d\d:\d\d {1,2}"
    r"|\[(?:ERROR|WARN|INFO|LIFECYCLE|QUIET|DEBUG)\] \[[a-z][\w.$]*\] ?"
    r"|\[(?: {8}| *\+\d+ ms)\] "
    r"|\[std(?:out|err)\] ?"
    r"|\[\d\d:\d\d:\d\d\] ?[A-Za-z]?:\s+\[Step \d+/\d+\] ?"
    r"|\d{1,2}:\d\d:\d\d [AP]M: "
    r"|#\d+ \d+\.\d+ |\d{1,4}\.\d{3} "
    r"|\[[\w.-]+ \d{4}-\d\d-\d\dT[\d:.]+Z?\] "
    r"|_?bk;t=\d+\x07?"
    r"|##\[(?:error|warning|notice|debug|group|endgroup|section|command|info)\]"
    r")+"
)
# Marks that are only ever written by the runners above: when one occurs anywhere, strip.
_RUNNER_MARKS = ("\n[std", "##[", "bk;t=")
# Where a runner's stamp would show first: a log that has none in its head was not stamped.
_HEAD = 65536

# Maven logs downloaded from GitHub Actions show the level tags `[ERROR] ` and `[WARNING] ` as
# the runner's annotation prefixes; put back, so every Maven parser reads them as Maven wrote them.
_GITHUB_LEVELS = (("\nError:  ", "\n[ERROR] "), ("\nWarning:  ", "\n[WARNING] "))
# GitHub's workflow command for an annotation, `::error file=src/a.ts,line=3,col=5::message`, as
# a problem matcher or a step writes it; the location becomes the compilers' `file:line:col: `.
_WORKFLOW_COMMAND = re.compile(
    r"\n::(?P<level>error|warning|notice)(?: (?P<props>[^:\n]*))?::(?P<message>[^\n]*)"
)
_PROPERTY = re.compile(r"(\w+)=([^,\n]*)")

# Labels a wrapper puts before each line of what it runs: docker compose (`web_1  | `,
# `api-1  | `) and the craft tools (`:: `). Stripped only when most lines carry one.
_WRAPPER_LABEL = re.compile(r"\n(?:[\w.-]+[-_]\d+ +\| ?|:: ?)")
_WRAPPER_SHARE = 0.5
# A log quoted in Markdown (`> ` before every line of a comment): stripped one level when all but a
# few lines carry it (Gradle's own `> Task` lines are far fewer than that).
_QUOTE = re.compile(r"\n> ?")
_QUOTE_SHARE = 0.9

# Colour codes whose ESC byte a copy lost: `[31m`, `[1;33m`, `[0m`, `[m`, and the erase-line
# `[2K`/`[0K`. Only taken off when a reset (`[0m`, `[m`, `[39m`, `[22m`) shows the text has them:
# `[1m` alone could be a log's own text.
_BARE_SGR = re.compile(r"\[(?:\d{1,3}(?:;\d{1,3})*)?m|\[[0-2]?K")
_BARE_RESET = re.compile(r"\[(?:0|39|49|22|0;39)?m")
# GitLab's and Travis' collapsible sections and timers, left as text when their ESC and CR were lost.
_SECTION = re.compile(
    r"section_(?:start|end):\d+:[\w.-]+(?:\[[^\]\n]*\])?|travis_(?:fold|time):(?:start|end):[\w.:,=-]*"
)

# HTML as a browser page or a forum post holds a log: presentational tags only are removed (the
# log's own `<T>` generics and `<dependency>` XML stay), and entities are decoded.
_HTML_TAG = re.compile(
    r"</?(?:span|font|b|i|u|em|strong|pre|code|div|p|a|samp|kbd|tt|small|td|tr|table|tbody|li|ul|ol"
    r"|body|html|head)\b[^<>\n]*>",
    re.IGNORECASE,
)
_HTML_BREAK = re.compile(r"<br\s*/?>(\n?)", re.IGNORECASE)
_HTML_ENTITY = re.compile(r"&(?:[a-zA-Z]{2,8}|#\d{2,6}|#x[0-9a-fA-F]{2,5});")
# How many tags or entities make a log HTML rather than a log that mentions one.
_HTML_EVIDENCE = 3


def undecorate(body: str) -> str:
    """The log's lines as the tools printed them (see the module docstring).

    Args:
        body: the log with ANSI escapes already removed, each line preceded by a newline.

    Returns:
        The same lines with the decorations removed; no line is added or removed, except that
        HTML's bare `<br>` becomes a line break.
    """
    if "<" in body or "&" in body:
        body = _from_html(body)
    if "[" in body and _BARE_RESET.search(body):
        body = _BARE_SGR.sub("", body)
    if "section_" in body or "travis_" in body:
        body = _SECTION.sub("", body)
    if _LINE_PREFIX.search(body, 0, _HEAD) or any(mark in body for mark in _RUNNER_MARKS):
        body = _LINE_PREFIX.sub("\n", body)
    if "|" in body or "::" in body:
        body = _strip_wrapper_labels(body)
    if "\n>" in body:
        body = _strip_quote(body)
    if "\n::" in body:
        body = _WORKFLOW_COMMAND.sub(_workflow_command, body)
    if "\nError:  " in body and "\n[INFO] " in body:
        for runner_prefix, level in _GITHUB_LEVELS:
            body = body.replace(runner_prefix, level)
    return body


def _from_html(body: str) -> str:
    """Decode a log shown as HTML; any other text is returned as it is."""
    head = body[:_HEAD]
    evidence = len(_HTML_TAG.findall(head, 0, _HEAD)) + len(_HTML_ENTITY.findall(head)) + head.count("<br")
    if evidence < _HTML_EVIDENCE:
        return body
    body = _HTML_BREAK.sub("\n", body)  # `<br>\n` is one break, not two
    return html.unescape(_HTML_TAG.sub("", body)).replace("\xa0", " ")


def _strip_wrapper_labels(body: str) -> str:
    """Remove a wrapper's per-line label when most lines of the log carry it."""
    head = body[:_HEAD]
    labelled = len(_WRAPPER_LABEL.findall(head))
    if labelled < 3 or labelled < _WRAPPER_SHARE * head.count("\n"):
        return body
    return _WRAPPER_LABEL.sub("\n", body)


def _strip_quote(body: str) -> str:
    """Remove one level of Markdown quoting when (nearly) every non-empty line is quoted."""
    head = body[:_HEAD]
    quoted = len(_QUOTE.findall(head))
    lines = head.count("\n") - head.count("\n\n")
    if quoted < 3 or quoted < _QUOTE_SHARE * lines:
        return body
    return _QUOTE.sub("\n", body)


def _workflow_command(found: re.Match[str]) -> str:
    """`::error file=a.ts,line=3,col=5::msg` as `a.ts:3:5: error: msg` (the message alone without a file)."""
    props = dict(_PROPERTY.findall(found["props"] or ""))
    message = found["message"]
    if not props.get("file"):
        return f"\n{found['level']}: {message}"
    place = ":".join(props[key] for key in ("file", "line", "col") if props.get(key))
    return f"\n{place}: {found['level']}: {message}"
