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
from collections.abc import Callable
from dataclasses import dataclass

from buildfixer.logs.parsers import Parser
from buildfixer.records import BuildError

# Longest message we keep; tool output such as dex file lists can be very long.
_MAX_MESSAGE = 600
# Prefixes Gradle and the tools put before the text that matters.
_LEAD = re.compile(r"^\s*(?:>\s*)*(?:ERROR:\s*|Error:\s*|e:\s*)?")


def _aapt_category(message: str) -> str:
    """Missing app resources are resource_missing; unknown platform attributes mean compileSdk."""
    if re.search(r"android:attr/|attribute android:", message):
        # `android:attr/lStar not found` and friends: compileSdk is older than the library needs.
        return "configuration"
    if "not found" in message or "No resource found" in message:
        return "resource_missing"
    if "not well-formed" in message or "Duplicate" in message or "duplicate" in message:
        return "syntax"
    return "other"


def _dex_category(message: str) -> str:
    """D8/R8 failures are nearly all settings problems: minSdk, multidex, keep rules, dupes."""
    hints = (
        "only supported starting with Android",
        "defined multiple times",
        "Missing class",
        "Cannot fit requested classes",
        "Unsupported class file major version",
        "--min-api",
        "missing_rules",
    )
    return "configuration" if any(h in message for h in hints) else "other"


def _kapt_category(message: str) -> str:
    """Kapt crashes on new JDKs are configuration; processor complaints are code errors."""
    if re.search(r"IllegalAccessError|superclass access check failed|does not export|JDK|jvmTarget", message):
        return "configuration"
    return "syntax" if re.match(r"\[\w+(?:/\w+)?\]", message) else "other"


def _ksp_category(message: str) -> str:
    """A KSP error with a source location is a code error; a version mismatch is a setting."""
    if re.search(r"too old|version|incompatible", message, re.IGNORECASE):
        return "configuration"
    return "syntax"


@dataclass(frozen=True)
class _Rule:
    """One kind of error line: where to look (`needle`), what to match, how to classify."""

    needle: str
    pattern: re.Pattern[str]
    tool: str
    category: str | Callable[[str], str]
    specificity: int
    # Take indented follow-up lines (or the next line when the match has no text) as message.
    continues: bool = False
    # Only reported when the log is an Android native build: a C compiler error in a Python
    # extension build must not become an NDK problem.
    native_only: bool = False


def _rule(
    needle: str,
    pattern: str,
    tool: str,
    category: str | Callable[[str], str],
    specificity: int,
    continues: bool = False,
    native_only: bool = False,
) -> _Rule:
    return _Rule(needle, re.compile(pattern), tool, category, specificity, continues, native_only)


# A path: an optional drive letter (not the end of a word such as `ERROR:`), then no colons.
# Lazy, and anchored by the extension that follows, so spaces in directory names are fine.
_PATH = r"(?:(?<![A-Za-z])[A-Za-z]:)?[^\s:][^:]*?"
_XML = r"(?P<file>" + _PATH + r"\.xml)"
_NATIVE = r"(?P<file>" + _PATH + r"\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|inl|mm?|S|s))"
_SOURCE = r"(?P<file>" + _PATH + r"\.(?:kt|java|kts|gradle|xml))"

_RULES: tuple[_Rule, ...] = (
    # --- AAPT2 ---------------------------------------------------------------------------
    _rule(
        "AAPT: error:",
        _XML + r":(?P<line>\d+)(?::(?P<col>\d+)(?:-\d+)?)?: AAPT: error: (?P<msg>.+)",
        "aapt",
        _aapt_category,
        10,
    ),
    _rule("AAPT: error:", r"AAPT: error: (?P<msg>.+)", "aapt", _aapt_category, 8),
    _rule(
        ": error: ",
        _XML + r":(?P<line>\d+)(?::(?P<col>\d+)(?:-\d+)?)?: error: (?P<msg>.+)",
        "aapt",
        _aapt_category,
        10,
    ),
    _rule(
        "not found",
        r"^\s*(?:ERROR:\s*)?error: (?P<msg>(?:resource|attribute|style attribute) \S+.* not found\.?)",
        "aapt",
        _aapt_category,
        8,
    ),
    _rule("Duplicate resources", r"(?P<msg>.*Duplicate resources.*)", "aapt", "configuration", 8),
    _rule("resource linking failed", r"(?P<msg>Android resource linking failed.*)", "aapt", "other", 3),
    _rule(
        "resource compilation failed", r"(?P<msg>Android resource compilation failed.*)", "aapt", "syntax", 3
    ),
    # --- Manifest merger ------------------------------------------------------------------
    _rule(
        "AndroidManifest.xml",
        r"(?P<file>" + _PATH + r"AndroidManifest\.xml)"
        r"(?::(?P<line>\d+):(?P<col>\d+)(?:-\d+(?::\d+)?)?)? Error:\s*(?P<msg>.*)",
        "manifest-merger",
        "configuration",
        9,
        continues=True,
    ),
    _rule(
        "Manifest merger failed",
        r"Manifest merger failed(?: with multiple errors)?\s*:?\s*(?P<msg>.*)",
        "manifest-merger",
        "configuration",
        6,
    ),
    _rule(
        "Incorrect package=",
        r"(?P<msg>Incorrect package=.*?found in source AndroidManifest\.xml: "
        r"(?P<file>.+?AndroidManifest\.xml).*)",
        "agp",
        "configuration",
        9,
    ),
    # --- kapt / KSP / annotation processors -----------------------------------------------
    _rule(
        ": error: ",
        r"^\s*(?:e: )?(?P<file>" + _PATH + r"\.java):(?P<line>\d+): error: "
        r"(?P<msg>\[(?:Dagger|Hilt|Room|kapt|ksp)[^\]]*\].*)",
        "kapt",
        "syntax",
        10,
    ),
    _rule(
        "e: ",
        r"^\s*e: (?P<file>" + _PATH + r"\.java):(?P<line>\d+): error: (?P<msg>.+)",
        "kapt",
        "syntax",
        10,
    ),
    _rule("[kapt]", r"\[kapt\] (?P<msg>.+)", "kapt", _kapt_category, 6),
    _rule(
        "[ksp]",
        r"\[ksp\] " + _SOURCE + r":(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.+)",
        "ksp",
        _ksp_category,
        10,
    ),
    _rule("[ksp]", r"^\s*(?:e: )?\[ksp\] (?P<msg>.+)", "ksp", _ksp_category, 6),
    # --- D8 / R8 --------------------------------------------------------------------------
    _rule("8:", r"(?:^\s*|ERROR:(?:[^ ]*: )?\s*)(?P<tool>[DR]8): (?P<msg>.+)", "d8", _dex_category, 8),
    _rule(
        "defined multiple times", r"(?P<msg>Type \S+ is defined multiple times.*)", "d8", "configuration", 9
    ),
    _rule("Missing class", r"(?P<msg>Missing class \S+.*)", "r8", "configuration", 9),
    _rule(
        "Missing classes detected",
        r"(?P<msg>Missing classes detected while running R8.*)",
        "r8",
        "configuration",
        7,
    ),
    _rule("Duplicate class", r"(?P<msg>Duplicate class \S+ found in modules .*)", "agp", "configuration", 9),
    _rule(
        "Cannot fit requested classes",
        r"(?P<msg>Cannot fit requested classes in a single dex file.*)",
        "d8",
        "configuration",
        9,
    ),
    # --- SDK, AGP, Gradle and JDK requirements ---------------------------------------------
    _rule(
        "google-services.json",
        r"(?P<msg>File google-services\.json is missing.*)",
        "agp",
        "resource_missing",
        8,
    ),
    _rule(
        "No matching client found for package",
        r"(?P<msg>No matching client found for package name.*)",
        "agp",
        "configuration",
        8,
    ),
    _rule("SDK location not found", r"(?P<msg>SDK location not found.*)", "agp", "configuration", 8),
    _rule(
        "licences have not been accepted",
        r"(?P<msg>Failed to install the following Android SDK packages.*)",
        "agp",
        "configuration",
        8,
    ),
    _rule(
        "not accepted the license",
        r"(?P<msg>You have not accepted the license agreements.*)",
        "agp",
        "configuration",
        8,
    ),
    _rule(
        "Failed to find",
        r"(?P<msg>Failed to find (?:target with hash string|Build Tools revision|"
        r"Platform SDK).*)",
        "agp",
        "configuration",
        8,
    ),
    _rule(
        "Minimum supported Gradle version",
        r"(?P<msg>Minimum supported Gradle version is [\w.-]+\. "
        r"Current version is [\w.-]+\.)(?:.*?distributionUrl in (?P<file>.+?gradle-wrapper\.properties))?",
        "agp",
        "configuration",
        10,
    ),
    _rule(
        "requires Java",
        r"(?P<msg>Android Gradle plugin requires Java \d+ to run\..*)",
        "agp",
        "configuration",
        10,
    ),
    _rule(
        "cannot open this project",
        r"(?P<msg>This version of the Android Support plugin.*cannot open "
        r"this project.*)",
        "agp",
        "configuration",
        7,
    ),
    _rule(
        "incompatible version (AGP",
        r"(?P<msg>The project is using an incompatible version \(AGP.*)",
        "agp",
        "configuration",
        8,
    ),
    _rule("minCompileSdk", r"(?P<msg>.*minCompileSdk.*)", "agp", "configuration", 10),
    _rule("Namespace not specified", r"(?P<msg>Namespace not specified\..*)", "agp", "configuration", 10),
    _rule(
        "compileSdkVersion is not specified",
        r"(?P<msg>compileSdkVersion is not specified.*)",
        "agp",
        "configuration",
        8,
    ),
    _rule(
        "Unsupported class file major version",
        r"(?P<msg>Unsupported class file major version \d+.*)",
        "agp",
        "configuration",
        7,
    ),
    _rule(
        "Build Tools revision",
        r"(?P<msg>Installed Build Tools revision .* is corrupted.*)",
        "agp",
        "configuration",
        8,
    ),
    _rule("Lint found", r"(?P<msg>Lint found (?:\d+ )?errors.*)", "agp", "other", 4),
    _rule(": Error: ", _SOURCE + r":(?P<line>\d+): Error: (?P<msg>.+\[\w+\])\s*$", "agp", "other", 7),
    # --- NDK, CMake, ndk-build, native compilers -------------------------------------------
    _rule("NDK not configured", r"(?P<msg>NDK not configured.*)", "ndk", "ndk", 8),
    _rule(
        "No version of NDK matched",
        r"(?P<msg>No version of NDK matched the requested version.*)",
        "ndk",
        "ndk",
        9,
    ),
    _rule("[CXX", r"(?P<msg>\[CXX\d{4}\].*)", "ndk", "ndk", 8),
    _rule(
        "NDK",
        r"(?P<msg>(?:NDK is missing|NDK at \S.* did not have|Specified android\.ndkVersion|"
        r"NDK from ndk\.dir).*)",
        "ndk",
        "ndk",
        8,
    ),
    _rule("was not found in SDK", r"(?P<msg>CMake '[\w.]+' was not found in SDK.*)", "ndk", "ndk", 8),
    _rule(
        "CMake Error at",
        r"CMake Error at (?P<file>.+?):(?P<line>\d+) \((?P<cmd>\w+)\):\s*(?P<msg>.*)",
        "ndk",
        "ndk",
        9,
        continues=True,
        native_only=True,
    ),
    _rule("CMake Error", r"CMake Error:?\s*(?P<msg>.*)", "ndk", "ndk", 6, continues=True, native_only=True),
    _rule(
        "Android NDK: ",
        r"Android NDK: (?:ERROR:?\s*)?(?P<msg>.*(?:ERROR|missing|not found|Aborting|"
        r"points to|unknown).*)",
        "ndk",
        "ndk",
        8,
    ),
    _rule(
        "error: ",
        _NATIVE + r":(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.+)",
        "ndk",
        "ndk",
        10,
        native_only=True,
    ),
    _rule("error: ", r"(?P<msg>\bld(?:\.lld)?: error: .+)", "ndk", "ndk", 8, native_only=True),
    _rule(
        "undefined reference to", r"(?P<msg>.*undefined reference to .+)", "ndk", "ndk", 7, native_only=True
    ),
    _rule("Build command failed", r"(?P<msg>Build command failed\..*)", "ndk", "ndk", 3),
    _rule("ndk-build", r"(?P<msg>.*ndk-build.*(?:failed|Error \d+).*)", "ndk", "ndk", 3),
)

_NATIVE_CONTEXT = re.compile(r"ndk|externalNativeBuild|cmake|C/C\+\+:|CXX\d{4}|\.so\b|android", re.IGNORECASE)
# checkAarMetadata prints a numbered, word-wrapped paragraph per dependency.
_AAR_PARAGRAPH = re.compile(r"^\s*(?:\d+\.\s+)?Dependency '[^']+' requires\b")
# AGP's machine-readable error messages: `AGPBI: {"kind":"error","text":...,"tool":"D8"}`.
_AGPBI = re.compile(r"AGPBI: (?P<json>\{.*\})\s*$")
# Warnings share wording with errors (`WARNING: R8: Missing class ...`); never report them.
_WARNING = re.compile(r"^\s*(?:>\s*)?(?:WARNING|Warning|warning|w)\s*:")
# AGP names the build file in some messages ("Specify a namespace in the module's build file: /x/b.gradle.").
_BUILD_FILE = re.compile(r"build file: (?P<file>.+?\.gradle(?:\.kts)?)(?=\.?(?:\s|$))")
_AGPBI_TOOLS = {"d8": "d8", "r8": "r8", "aapt": "aapt", "aapt2": "aapt", "manifest merger": "manifest-merger"}


def _clean(message: str) -> str:
    """Strip Gradle's `> ` / `ERROR:` lead, collapse whitespace, cap the length."""
    message = " ".join(_LEAD.sub("", message, count=1).split())
    return message[:_MAX_MESSAGE]


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


def _from_rule(rule: _Rule, match: re.Match[str], lines: list[str], index: int) -> BuildError:
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
    category = {"d8": _dex_category, "r8": _dex_category, "aapt": _aapt_category}.get(tool)
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


def _match_line(lines: list[str], index: int) -> tuple[BuildError, bool] | None:
    """The error starting at `index` and whether it only counts in native builds, or None."""
    text = lines[index]
    if _WARNING.match(text):
        return None
    if "AGPBI: {" in text and (agpbi := _AGPBI.search(text)):
        found = _agpbi(agpbi, index)
        return (found, False) if found else None
    if "Dependency '" in text and _AAR_PARAGRAPH.match(text):
        return _aar_paragraph(lines, index), False
    for rule in _RULES:
        if rule.needle in text and (match := rule.pattern.search(text)):
            return _from_rule(rule, match, lines, index), rule.native_only
    return None


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
    if native and _NATIVE_CONTEXT.search("\n".join(lines)):
        errors.extend(native)
        errors.sort(key=lambda e: e.log_line or 0)
    return errors


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
        "e: ",
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
    ),
    parse=parse,
)
