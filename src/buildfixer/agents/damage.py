"""Damage a repair try did: whether a try broke a file it changed (the repair loop's `regression`).

Damage is no progress. A try that breaks what it touched gets errors that share no words with the
error it was for, so word overlap alone (the loop's `similar`) would keep it as a distinct, new
error: a small model replaced a `pom.xml` by a three-line fragment, the loop kept it and spent its
tries on "'modelVersion' is missing". So before the similarity rule, the try's own diff
(checkpoint -> now: the files it changed, the lines it wrote, `git diff -U0` read by
`judge.diff.parse_patch`) is held against the build after it. The try is a *regression*, and the
loop discards it like a try that left the same error, when
- a build file it changed that parsed before no longer parses (`unparsable`: `pom.xml`,
  `package.json`, `*.toml`, `setup.cfg`). The file is parsed here, from the edit ledger's git trees
  (a link never followed), so this holds when the log does not say where; unless the build's top
  error is located in another file of the project (the build got past it);
- or the build's top error is a syntax or configuration error located in a file the try changed,
  at a line it wrote (or next to one), where the build before the try had no error (an error of
  the same place, its line followed through the try's hunks, is one the try worked on).

Not caught: a Gradle script broken where the log gives no line, a syntax error reported far from
the line the try wrote; such a try is still progress. See docs/REPAIR_LOOP.md.
"""

from __future__ import annotations

import configparser
import json
import tomllib
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Collection

from buildfixer.core.build_result import BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.judge.diff import Hunk, parse_patch
from buildfixer.workspace.git import git, git_bytes
from buildfixer.workspace.ledger import EditLedger

# Categories of an error a try's own line can cause by being malformed (a compiler's or a build
# script's); a failing test or a missing library at a line it wrote is a wrong fix, not damage.
_MALFORMED = {"syntax", "configuration"}
_MAX_CHECKED = 2_000_000  # bytes of a build file parsed to see whether a try broke it


def regression_since(
    ledger: EditLedger | None, start: str | None, before: BuildResult, after: BuildResult
) -> str | None:
    """Why the try since the ledger's tree `start` broke a file it changed, or None (see `regression`).

    Args:
        ledger: The attempt's edit ledger; what the try left is its repair tree now (None: no
            ledger, no verdict).
        start: The tree the try started from, a checkpoint (None: no verdict).
        before: The build at `start`.
        after: The build after the try.
    """
    if ledger is None or start is None:
        return None
    try:
        now = ledger.repair_tree()  # what the try left (its edits were noted when it was built)
        changed = ledger.changed_between(start, now)
        if not changed:
            return None
        diff = git(
            "diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
            "--src-prefix=a/", "--dst-prefix=b/", start, now,
            cwd=ledger.root, git_dir=ledger.git_dir,
        )  # fmt: skip
    except BuildfixerError:  # no verdict on a try is no reason to stop repairing
        return None
    hunks: dict[str, list[Hunk]] = {path: [] for path in changed} | diff_hunks(diff)

    def texts(path: str) -> tuple[str | None, str | None]:
        return _blob(ledger, start, path), _blob(ledger, now, path)

    return regression(before, after, hunks, texts)


def regression(
    before: BuildResult,
    after: BuildResult,
    hunks: dict[str, list[Hunk]],
    texts: Callable[[str], tuple[str | None, str | None]],
) -> str | None:
    """Why a try's failed build is damage the try did to a file it changed, or None.

    Two cases, whatever the errors' words (a build file a try truncated fails with messages that
    share nothing with the error the try was for, so they read as a distinct, new error):
    - a build file the try changed that parsed before it no longer parses (`unparsable`: checked
      here, so also when the log does not say where), unless the build's top error is located in
      another file of the project (the build got past it);
    - the build's top error is a syntax or configuration error located in a file the try changed,
      at a line it wrote (or next to one), where the build before the try had no error (an error
      of the same place, its line moved by the try's edits above it, is one the try worked on).

    Args:
        before: The build the try started from.
        after: The build after the try.
        hunks: Per file the try changed (project-relative), its diff hunks.
        texts: A changed file's text before and after the try (None: it did not exist then).
    """
    top = after.errors[0] if after.errors else None
    where = changed_file(top.file, hunks) if top is not None and top.file else None
    # Located in another file of the project (a relative path): the build got past the build files.
    elsewhere = top is not None and bool(top.file) and where is None and not str(top.file).startswith("/")
    for path in sorted(hunks):
        if elsewhere or (where is not None and where != path) or not checkable(path):
            continue
        old, new = texts(path)
        why = unparsable(path, new) if new is not None else None
        if why is not None and (old is None or unparsable(path, old) is None):
            return f"regression: the try broke {path} ({why})"
    if top is None or where is None or top.line is None or top.category not in _MALFORMED:
        return None
    near = {top.line - 1, top.line, top.line + 1}
    if not any(near & hunk.written() for hunk in hunks[where]):
        return None
    failed_before = any(  # that place failed before the try too: the try worked on it
        near & moved(e.line, hunks[where])
        for e in before.errors
        if e.line is not None and e.file and changed_file(e.file, (where,)) == where
    )
    if failed_before:
        return None
    return f"regression: the try broke {where} (at line {top.line}, a line it wrote: {top.headline()[:200]})"


def moved(line: int, hunks: list[Hunk]) -> set[int]:
    """Where an old line is in the new file: shifted by the hunks above it, or what rewrote it."""
    shift = 0
    for hunk in hunks:
        if hunk.old_count and hunk.old_start <= line < hunk.old_start + hunk.old_count:
            return hunk.written()
        if hunk.old_start + max(hunk.old_count, 1) - 1 < line:
            shift += hunk.new_count - hunk.old_count
    return {line + shift}


def changed_file(reported: str, changed: Collection[str]) -> str | None:
    """The changed file (project-relative) an error's file names, or None.

    The analysis gives project-relative paths (`./src/a.py` too); an absolute one (a build that saw
    the project elsewhere) is the changed file whose path ends it, the longest.
    """
    name = reported.replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    if name in changed:
        return name
    if name.startswith("/"):
        ends = [path for path in changed if name.endswith("/" + path)]
        return max(ends, key=len) if ends else None
    return None


def checkable(path: str) -> bool:
    """Whether `unparsable` can tell for this file (the build files Python parses; not Gradle scripts)."""
    name = path.rsplit("/", 1)[-1]
    return name in ("pom.xml", "package.json", "setup.cfg") or name.endswith(".toml")


def unparsable(path: str, text: str) -> str | None:
    """Why a build file's text does not parse, in a few words; None when it does (or cannot be told).

    pom.xml: well-formed XML whose root is <project>; package.json: a JSON object; *.toml
    (pyproject.toml, gradle/libs.versions.toml): TOML; setup.cfg: INI sections.
    """
    name = path.rsplit("/", 1)[-1]
    try:
        if name == "pom.xml":
            root = ElementTree.fromstring(text)  # expat: no external entities, amplification refused
            tag = root.tag.rsplit("}", 1)[-1]
            return None if tag == "project" else f"its root element is <{tag}>, not <project>"
        if name == "package.json":
            data = json.loads(text)
            return None if isinstance(data, dict) else "not a JSON object"
        if name.endswith(".toml"):
            tomllib.loads(text)
        elif name == "setup.cfg":
            configparser.ConfigParser(interpolation=None, strict=False).read_string(text)
    except ElementTree.ParseError as exc:
        return f"not well-formed XML: {exc}"
    except json.JSONDecodeError as exc:
        return f"not valid JSON: {exc}"
    except tomllib.TOMLDecodeError as exc:
        return f"not valid TOML: {exc}"
    except configparser.Error as exc:
        return f"not valid INI: {str(exc).splitlines()[0]}"
    return None


def diff_hunks(diff: str) -> dict[str, list[Hunk]]:
    """Per file a `git diff -U0` leaves (its new path; not a deleted one), its hunks in order.

    A diff `parse_patch` cannot read gives none: no line is known to be the try's.
    """
    try:
        changes = parse_patch(diff, moves=False)  # a moved file's lines are lines the try wrote
    except BuildfixerError:
        return {}
    return {change.path: change.hunks for change in changes if change.hunks and not change.deleted}


def _blob(ledger: EditLedger, tree: str, path: str) -> str | None:
    """A file's text in one of the ledger's trees (a link: its target, never followed); None: no such file.

    Too large a file reads as None too: no verdict on it.
    """
    spec = f"{tree}:{path}"
    size = git("cat-file", "-s", spec, cwd=ledger.root, git_dir=ledger.git_dir, check=False).strip()
    if not size.isdigit() or int(size) > _MAX_CHECKED:
        return None
    data = git_bytes("cat-file", "blob", spec, cwd=ledger.root, git_dir=ledger.git_dir, check=False)
    return data.decode("utf-8", "replace")
