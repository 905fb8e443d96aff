"""Android-specific build errors: AAPT2, manifest merger, kapt/KSP, D8/R8, AGP, SDK and NDK.

Gradle wraps most of these in a generic `* What went wrong:` block (the Gradle parser reports
that one); here we report the specific tool's own words, with higher specificity, so ranking
prefers them. The parser is table-driven: each `_Rule` names a cheap substring (`needle`) that
must occur before its regex runs, which keeps a 10 MB log fast. The first matching rule wins
for a line, so rules are ordered from the most to the least specific.
"""

from __future__ import annotations

import json
import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser
from buildfixer.logs.parsers.android_rules import (
    LEAD,
    MAX_MESSAGE,
    RULES,
    Rule,
    aapt_category,
    databinding_category,
    dex_category,
)
from buildfixer.logs.parsers.gradle import where_spans
from buildfixer.logs.parsers.javac import NOT_ERROR_WORDS
from buildfixer.logs.taxonomy import classify

# An Android native build says so (the NDK, AGP's `C/C++:` and `[CXX1234]` tags); CMake and `.so`
# files alone are any native build (a Python extension, a plain CMake project).
NATIVE_CONTEXT = re.compile(r"ndk|externalNativeBuild|C/C\+\+:|CXX\d{4}|android", re.IGNORECASE)
# checkAarMetadata prints a numbered, word-wrapped paragraph per dependency.
_AAR_PARAGRAPH = re.compile(r"^\s*(?:\d+\.\s+)?Dependency '[^']+' requires\b")
# The Google Services plugin's list of the places it looked for its file (one per variant folder).
_SEARCHED_LINES = 20
# AGP's machine-readable error messages: `AGPBI: {"kind":"error","text":...,"tool":"D8"}`.
_AGPBI = re.compile(r"AGPBI: (?P<json>\{.*\})\s*$")
# Warnings share wording with errors (`WARNING: R8: Missing class ...`); never report them.
_WARNING = re.compile(r"^\s*(?:>\s*)?(?:WARNING|Warning|warning|w)\s*:")
# AGP names the build file in some messages ("Specify a namespace in the module's build file: /x/b.gradle.").
_BUILD_FILE = re.compile(r"build file: (?P<file>.+?\.gradle(?:\.kts)?)(?=\.?(?:\s|$))")
# The data binding compiler's errors, machine-readable since AGP 3.2 (`[databinding] {"msg":...,
# "file":...,"pos":[{"line0":36,"col0":28,...}]}`) and in the older human-readable frame (`****/ data
# binding error ****msg:... file:/p/res/layout/x.xml loc:36:28 - 36:32 ****\\ data binding error ****`,
# often wrapped over several lines). Both count lines and columns from 0 (its Location class).
_DATABINDING_JSON = re.compile(r"\[databinding\] (?P<json>\{.*\})\s*$")
_DATABINDING_OPEN = "data binding error ****msg:"
_DATABINDING_CLOSE = "\\ data binding error *"
_DATABINDING_FRAME = re.compile(
    r"(?P<msg>.*?)\s+file:(?P<file>.+?)"
    r"(?:\s+loc:(?P<line>\d+):(?P<col>\d+)(?: - \d+:\d+)?)?\s*(?:\*{3,}\\ data binding error|$)"
)
# A JSON payload longer than this is not a tool message (a pasted dump): not parsed.
_MAX_JSON = 64 * 1024
# Data binding writes the Java sources javac then compiles; when it names the layout it failed on,
# that layout is the place to fix, not the generated `...BindingImpl.java` javac complains about
# (which may sit earlier in the log): ranked above any compiler error.
_SOURCE_OF_GENERATED = 11
# Failures of a build script's evaluation that Gradle's `* Where:` may locate.
_WHERE_CATEGORIES = ("configuration", "ndk", "resource_missing")
# Android Studio's "Messages" view (before 3.1), pasted: a line holding only a source's path, then
# its diagnostics, `Error:(14, 6) error: cannot find symbol class Foo` (line, column), the compiler's
# severity word in the build machine's language (`Error:(14, 6) 错误: ...`).
_STUDIO_ERROR = re.compile(r"^\s*Error:\((?P<line>\d+), ?(?P<col>\d+)\) (?P<msg>.*\S)")
_STUDIO_PATH = re.compile(r"^\s*(?P<file>(?:[A-Za-z]:[\\/]|/)[^:]*\.(?P<ext>\w{1,10}))\s*$")
_STUDIO_SEVERITY = re.compile(r"^([^\W\d_]{1,24}): ")
_STUDIO_ENTRY = ("Error:(", "Warning:(", "Information:")
_STUDIO_TOOLS = {"java": "javac", "kt": "kotlinc", "xml": "aapt"}
_STUDIO_LOOKBACK = 40
_AGPBI_TOOLS = {"d8": "d8", "r8": "r8", "aapt": "aapt", "aapt2": "aapt", "manifest merger": "manifest-merger"}


def _clean(message: str) -> str:
    """Strip Gradle's `> ` / `ERROR:` lead, collapse whitespace, cap the length."""
    message = " ".join(LEAD.sub("", message, count=1).split())
    return message[:MAX_MESSAGE]


def _follow_up(lines: list[str], index: int, need_text: bool) -> list[str]:
    """Up to three indented lines after `index` (or the next line when the match had no text)."""
    extra: list[str] = []
    for text in lines[index + 1 : index + 4]:
        if not text.strip():
            if extra or not need_text:
                break
            continue
        if not text[:1].isspace() and not (need_text and not extra):
            break
        extra.append(text.strip())
    return extra


def _from_rule(rule: Rule, match: re.Match[str], lines: list[str], index: int) -> BuildError:
    groups = match.groupdict()
    message = groups.get("msg") or ""
    if rule.continues:
        message = " ".join([message.strip(), *_follow_up(lines, index, need_text=not message.strip())])
    message = _clean(message or match.group(0))
    tool = rule.tool
    if groups.get("tool"):
        tool = groups["tool"].lower()
    category = rule.category if isinstance(rule.category, str) else rule.category(message)
    file = groups.get("file")
    if file and file.startswith("//"):
        # `file:///x` URIs: the regexes start the path after `file:`; drop the extra slashes.
        file = file.lstrip("/")
        file = file if re.match(r"[A-Za-z]:", file) else "/" + file
    if not file and (named := _BUILD_FILE.search(match.string)):
        file = named["file"]
    return BuildError(
        message=message,
        category=category,
        tool=tool,
        file=file.strip() if file else None,
        line=int(groups["line"]) if groups.get("line") else None,
        column=int(groups["col"]) if groups.get("col") else None,
        log_line=index,
        specificity=rule.specificity,
    )


def _aar_paragraph(lines: list[str], index: int) -> BuildError:
    """Join checkAarMetadata's wrapped paragraph into one message."""
    parts: list[str] = []
    for text in lines[index : index + 8]:
        if not text.strip() or (parts and re.match(r"^\s*\d+\.\s", text)):
            break
        parts.append(text.strip())
    message = " ".join(" ".join(parts).split())
    message = re.sub(r"^\d+\.\s+", "", message)
    # Keep the requirement itself; AGP's advice that follows is the same for every dependency.
    first = re.match(r".*?(?:Android APIs|higher|later)\.", message)
    return BuildError(
        message=_clean(first.group(0) if first else message),
        category="configuration",
        tool="agp",
        log_line=index,
        specificity=10,
    )


def _agpbi(match: re.Match[str], index: int) -> BuildError | None:
    """One AGPBI JSON message, when it is an error."""
    try:
        data = json.loads(match["json"])
    except ValueError:
        return None
    if not isinstance(data, dict) or str(data.get("kind", "")).lower() != "error":
        return None
    message = _clean(str(data.get("text", "")).splitlines()[0] if data.get("text") else "")
    tool = _AGPBI_TOOLS.get(str(data.get("tool", "")).lower(), "agp")
    file = line = column = None
    sources = data.get("sources") or []
    if sources and isinstance(sources[0], dict):
        file = sources[0].get("file")
        start = (sources[0].get("position") or {}).get("startLine")
        line = start + 1 if isinstance(start, int) else None  # AGPBI lines are 0-based
        start_col = (sources[0].get("position") or {}).get("startColumn")
        column = start_col + 1 if isinstance(start_col, int) else None
    category = {"d8": dex_category, "r8": dex_category, "aapt": aapt_category}.get(tool)
    return BuildError(
        message=message,
        category=category(message) if category else "configuration",
        tool=tool,
        file=file,
        line=line if file else None,
        column=column if file else None,
        log_line=index,
        specificity=9 if file else 8,
    )


def _studio_message(lines: list[str], index: int, match: re.Match[str]) -> BuildError | None:
    """One `Error:(line, col) message` of Android Studio's Messages view, at the path above it.

    The path line heads the diagnostics of its file: the lines between are other entries of the
    same file (or their indented continuation). A compiler warning shown as an error entry is none.
    """
    message = match["msg"]
    severity = _STUDIO_SEVERITY.match(message)
    if severity:
        if severity.group(1).casefold() in NOT_ERROR_WORDS:
            return None
        message = message[severity.end() :]
    path = None
    for j in range(index - 1, max(-1, index - 1 - _STUDIO_LOOKBACK), -1):
        text = lines[j]
        if not text.strip() or text[:1].isspace() or text.startswith(_STUDIO_ENTRY):
            continue
        path = _STUDIO_PATH.match(text)
        break
    tool = _STUDIO_TOOLS.get(path["ext"].lower(), "agp") if path else "agp"
    message = _clean(message)
    return BuildError(
        message=message,
        category=aapt_category(message) if tool == "aapt" else classify(message, tool),
        tool=tool,
        file=path["file"] if path else None,
        line=int(match["line"]) if path else None,
        column=int(match["col"]) if path else None,
        log_line=index,
        specificity=10 if path else 6,
    )


def _databinding(message: str, file: object, line0: object, col0: object, index: int) -> BuildError:
    """A data binding error; `line0`/`col0` are 0-based (None or garbage: no position)."""
    message = _clean(message)
    path = file.strip() if isinstance(file, str) and file.strip() else None
    line = line0 + 1 if isinstance(line0, int) and line0 >= 0 and path else None
    column = col0 + 1 if isinstance(col0, int) and col0 >= 0 and line else None
    return BuildError(
        message=message,
        category=databinding_category(message),
        tool="databinding",
        file=path.removeprefix("file:") if path else None,
        line=line,
        column=column,
        log_line=index,
        specificity=_SOURCE_OF_GENERATED if path else 8,
    )


def _databinding_json(match: re.Match[str], index: int) -> BuildError | None:
    """One `[databinding] {...}` payload: its message, layout file and first position."""
    if len(match["json"]) > _MAX_JSON:
        return None
    try:
        data = json.loads(match["json"])
    except ValueError:
        return None
    if not isinstance(data, dict) or not data.get("msg"):
        return None
    positions = data.get("pos")
    first = (
        positions[0] if isinstance(positions, list) and positions and isinstance(positions[0], dict) else {}
    )
    return _databinding(str(data["msg"]), data.get("file"), first.get("line0"), first.get("col0"), index)


def _databinding_frame(lines: list[str], index: int) -> BuildError | None:
    """The legacy `****/ data binding error ****msg:...` frame, joined from up to six lines.

    The frame ends at its closing marker, a blank line or the next frame; the pattern is tried
    at the frame's first `msg:` only, so a line of many frames costs one scan, not one per frame.
    """
    parts = [lines[index].strip()]
    for text in lines[index + 1 : index + 6]:
        if _DATABINDING_CLOSE in parts[-1] or not text.strip() or _DATABINDING_OPEN in text:
            break
        parts.append(text.strip())
    joined = " ".join(parts)
    found = _DATABINDING_FRAME.match(joined, joined.find(_DATABINDING_OPEN) + len(_DATABINDING_OPEN))
    if not found:
        return None
    line, col = found["line"], found["col"]
    return _databinding(
        found["msg"], found["file"], int(line) if line else None, int(col) if col else None, index
    )


def _match_line(lines: list[str], index: int) -> tuple[BuildError, bool] | None:
    """The error starting at `index` and whether it only counts in native builds, or None."""
    text = lines[index]
    if _WARNING.match(text):
        return None
    if "AGPBI: {" in text and (agpbi := _AGPBI.search(text)):
        found = _agpbi(agpbi, index)
        return (found, False) if found else None
    if "[databinding] {" in text and (payload := _DATABINDING_JSON.search(text)):
        found = _databinding_json(payload, index)
        return (found, False) if found else None
    if _DATABINDING_OPEN in text and (found := _databinding_frame(lines, index)):
        return found, False
    if "Error:(" in text and (studio := _STUDIO_ERROR.match(text)):
        found = _studio_message(lines, index, studio)
        return (found, False) if found else None
    if "Dependency '" in text and _AAR_PARAGRAPH.match(text):
        return _aar_paragraph(lines, index), False
    for rule in RULES:
        if rule.needle in text and (match := rule.pattern.search(text)):
            error = _from_rule(rule, match, lines, index)
            if "google-services.json is missing" in text and not error.file:
                error.file = _google_services_place(lines, index)
            return error, rule.native_only
    return None


def _google_services_place(lines: list[str], index: int) -> str | None:
    """Where google-services.json belongs: the shortest of the plugin's searched locations.

    The Google Services plugin lists every folder it looked in, variant folders first and the
    module's root last; the module's root (the shortest path) is where the file normally goes.
    """
    below = (t.strip() for t in lines[index + 1 : index + _SEARCHED_LINES])
    found = [t for t in below if t.endswith("google-services.json")]
    return min(found, key=len) if found else None


def parse(lines: list[str]) -> list[BuildError]:
    """Find Android build-tool errors in a cleaned Gradle log.

    Args:
        lines: The cleaned log, one entry per line.

    Returns:
        The errors in log order. A message repeated later (Gradle echoes tool errors in its
        `* What went wrong:` section and again for each variant) is kept once, at first sight.
    """
    errors: list[BuildError] = []
    native: list[BuildError] = []
    seen: set[tuple[str, str | None, int | None, str]] = set()
    for index in range(len(lines)):
        found = _match_line(lines, index)
        if found is None:
            continue
        error, native_only = found
        key = (error.tool, error.file, error.line, error.message)
        if key in seen:
            continue
        seen.add(key)
        if native_only:
            native.append(error)
        else:
            errors.append(error)
    if native and NATIVE_CONTEXT.search("\n".join(lines)):
        errors.extend(native)
        errors.sort(key=lambda e: e.log_line or 0)
    _locate_by_where(lines, errors)
    return errors


def _locate_by_where(lines: list[str], errors: list[BuildError]) -> None:
    """Give a settings or NDK error without a position the build-script line Gradle's `* Where:` names.

    AGP reports `[CXX1101] NDK at ... did not have a source.properties file` or an SDK directory
    that does not exist while Gradle evaluates a build script; Gradle's report around it says
    which line (`Build file '/p/app/build.gradle.kts' line: 16`).
    """
    unplaced = [e for e in errors if e.file is None and e.category in _WHERE_CATEGORIES]
    if not unplaced:
        return
    spans = where_spans(lines)
    for error in unplaced:
        at = error.log_line if error.log_line is not None else -1
        span = next((s for s in spans if s[0] < at < s[1]), None)
        if span:
            error.file, error.line = span[2], span[3]


PARSER = Parser(
    name="android",
    triggers=(
        "AAPT",
        "Android",
        "android",
        "AndroidManifest",
        "Manifest merger",
        "D8",
        "R8",
        "[kapt]",
        "[ksp]",
        "Dagger",
        "google-services",
        "SDK",
        "NDK",
        "CMake",
        "ndk-build",
        "[CXX",
        "Namespace not",
        "Lint found",
        "Duplicate class",
        "Missing class",
        "data binding error",
        "[databinding]",
        "Error:(",
        "Program type already present",
    ),
    parse=parse,
)
