"""The rule table of the Android parser: one rule per tool message, most specific first."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# Longest message we keep; tool output such as dex file lists can be very long.
MAX_MESSAGE = 600
# Prefixes Gradle and the tools put before the text that matters.
LEAD = re.compile(r"^\s*(?:>\s*)*(?:ERROR:\s*|Error:\s*|e:\s*)?")


# `resource attr/name (aka pkg:attr/name) not found`, `resource string/app_name not found`.
_REFERENCE = re.compile(r"\bresource (?:[\w.]+:)?\w+/(?P<name>.+?)(?: \(aka | not found)")
_RESOURCE_NAME = re.compile(r"[A-Za-z_][\w.]*")


def aapt_category(message: str) -> str:
    """Missing app resources are resource_missing; unknown platform attributes mean compileSdk."""
    if re.search(r"android:attr/|attribute android:", message):
        # `android:attr/lStar not found` and friends: compileSdk is older than the library needs.
        return "configuration"
    named = _REFERENCE.search(message)
    if named and not _RESOURCE_NAME.fullmatch(named["name"]):
        # No resource can have that name: a string value that starts with `?` or `@` was read as a
        # reference (`resource attr/How it works (clear) not found`); the value must be escaped.
        return "syntax"
    if "not found" in message or "No resource found" in message:
        return "resource_missing"
    if "not well-formed" in message or "Duplicate" in message or "duplicate" in message:
        return "syntax"
    return "other"


def dex_category(message: str) -> str:
    """D8/R8 failures are nearly all settings problems: minSdk, multidex, keep rules, dupes."""
    hints = (
        "only supported starting with Android",
        "defined multiple times",
        "Program type already present",  # D8's older wording of "defined multiple times" (AGP 3.x)
        "Missing class",
        "Cannot fit requested classes",
        "Unsupported class file major version",
        "--min-api",
        "missing_rules",
    )
    return "configuration" if any(h in message for h in hints) else "other"


def kapt_category(message: str) -> str:
    """Kapt crashes on new JDKs are configuration; processor complaints are code errors."""
    if re.search(r"IllegalAccessError|superclass access check failed|does not export|JDK|jvmTarget", message):
        return "configuration"
    return "syntax" if re.match(r"\[\w+(?:/\w+)?\]", message) else "other"


def databinding_category(message: str) -> str:
    """Data binding used without being switched on is a build setting; anything else is layout code.

    The data binding compiler complains about the binding expressions and tags of a layout
    (`Could not find identifier`, `Cannot find a setter for <TextView app:x>`): code to fix.
    """
    if re.search(r"data ?binding is not enabled|buildFeatures|dataBinding\s*[{=]", message, re.IGNORECASE):
        return "configuration"
    return "syntax"


def ksp_category(message: str) -> str:
    """A KSP error with a source location is a code error; a version mismatch is a setting."""
    if re.search(r"too old|version|incompatible", message, re.IGNORECASE):
        return "configuration"
    return "syntax"


@dataclass(frozen=True)
class Rule:
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
) -> Rule:
    return Rule(needle, re.compile(pattern), tool, category, specificity, continues, native_only)


# A path: an optional drive letter (not the end of a word such as `ERROR:`), then no colons.
# Lazy, and anchored by the extension that follows, so spaces in directory names are fine.
_PATH = r"(?:(?<![A-Za-z])[A-Za-z]:)?[^\s:][^:]*?"
# Where a pattern that starts with a path is searched, its match can only start at a drive
# letter or at the line's first non-blank character after a colon (or the line's start): a path
# taking any character but a colon, a match starting later also starts there. Trying only these
# places keeps the search linear in the line's length (tried everywhere, each start scans to
# the next colon: quadratic on a long line without one). Outside the group: the path is as before.
_PATH_START = r"(?:(?<![A-Za-z])(?=[A-Za-z]:)|(?:^|(?<=:))\s*)"
_XML = _PATH_START + r"(?P<file>" + _PATH + r"\.xml)"
NATIVE = _PATH_START + r"(?P<file>" + _PATH + r"\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|inl|mm?|S|s))"
# A source file a build step needs that is not there and that no rule makes: ninja's
# `ninja: error: '../src/a.c', needed by 'a.o', missing and no known rule to make it` and make's
# `make: *** No rule to make target 'src/a.c', needed by 'a.o'.  Stop.`; the path is the file.
MISSING_INPUT = (
    r"(?P<msg>(?:ninja: error: |\bmake(?:\[\d+\])?: \*\*\* No rule to make target )[`'](?P<file>[^'`]+)',"
    r" needed by .+)"
)
# A position, or the span AAPT and the manifest merger give: `:48`, `:48:5`, `:48:5-52`, `:48:5-52:13`.
_SPAN = r":(?P<line>\d+)(?::(?P<col>\d+))?(?:-\d+(?::\d+)?)?"
_SOURCE = r"(?P<file>" + _PATH + r"\.(?:kt|java|kts|gradle|xml))"
# After `[ksp] `, a path that never runs over another `[ksp] `: searched from each of many, it
# would rescan the rest of the line (quadratic). A path holding `[ksp] ` is no real path anyway.
_KSP_SOURCE = r"(?P<file>(?:(?<![A-Za-z])[A-Za-z]:)?[^\s:](?:(?!\[ksp\] )[^:])*?\.(?:kt|java|kts|gradle|xml))"

RULES: tuple[Rule, ...] = (
    # --- AAPT2 ---------------------------------------------------------------------------
    _rule(
        "AAPT: error:",
        _XML + _SPAN + r": AAPT: error: (?P<msg>.+)",
        "aapt",
        aapt_category,
        10,
    ),
    _rule("AAPT: error:", r"AAPT: error: (?P<msg>.+)", "aapt", aapt_category, 8),
    _rule(
        ": error: ",
        _XML + _SPAN + r": error: (?P<msg>.+)",
        "aapt",
        aapt_category,
        10,
    ),
    _rule(
        "not found",
        r"^\s*(?:ERROR:\s*)?error: (?P<msg>(?:resource|attribute|style attribute) \S+.* not found\.?)",
        "aapt",
        aapt_category,
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
        _PATH_START + r"(?P<file>" + _PATH + r"AndroidManifest\.xml)"
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
    _rule("[kapt]", r"\[kapt\] (?P<msg>.+)", "kapt", kapt_category, 6),
    _rule(
        "[ksp]",
        r"\[ksp\] " + _KSP_SOURCE + r":(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.+)",
        "ksp",
        ksp_category,
        10,
    ),
    _rule("[ksp]", r"^\s*(?:e: )?\[ksp\] (?P<msg>.+)", "ksp", ksp_category, 6),
    # --- D8 / R8 --------------------------------------------------------------------------
    _rule("8:", r"(?:^\s*|ERROR:(?:[^ ]*: )?\s*)(?P<tool>[DR]8): (?P<msg>.+)", "d8", dex_category, 8),
    _rule(
        "defined multiple times", r"(?P<msg>Type \S+ is defined multiple times.*)", "d8", "configuration", 9
    ),
    # The same duplicate class in AGP 3.x's D8 and dx, without the files that define it.
    _rule(
        "Program type already present",
        r"(?P<msg>Program type already present: \S+.*)",
        "d8",
        "configuration",
        9,
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
    # AGP's SdkLocator on an sdk.dir / ANDROID_HOME that names no directory; it names the
    # property to fix on the lines below ("Please fix the 'sdk.dir' property in the local.properties file.").
    _rule(
        "SDK directory",
        r"(?P<msg>(?:The|Specified) SDK directory '[^']*'.*?(?:does not exist|is not found|not found).*)",
        "agp",
        "configuration",
        8,
    ),
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
    _rule(
        ": Error: ",
        _PATH_START + _SOURCE + r":(?P<line>\d+): Error: (?P<msg>.+\[\w+\])\s*$",
        "agp",
        "other",
        7,
    ),
    # --- NDK, CMake, ndk-build, native compilers -------------------------------------------
    _rule("NDK not configured", r"(?P<msg>NDK not configured.*)", "ndk", "ndk", 8),
    _rule("NDK location not found", r"(?P<msg>NDK location not found.*)", "ndk", "ndk", 8),
    _rule("ndk.dir", r"(?P<msg>Location specified by ndk\.dir .*)", "ndk", "ndk", 8),
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
        NATIVE + r":(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.+)",
        "ndk",
        "ndk",
        10,
        native_only=True,
    ),
    _rule("error: ", r"(?P<msg>\bld(?:\.lld)?: error: .+)", "ndk", "ndk", 8, native_only=True),
    _rule(
        "undefined reference to", r"(?P<msg>.*undefined reference to .+)", "ndk", "ndk", 7, native_only=True
    ),
    _rule("missing and no known rule", MISSING_INPUT, "ndk", "ndk", 9),
    _rule("ninja: error:", r"(?P<msg>ninja: error: .+)", "ndk", "ndk", 7),
    _rule("Build command failed", r"(?P<msg>Build command failed\..*)", "ndk", "ndk", 3),
    _rule("ndk-build", r"(?P<msg>.*ndk-build.*(?:failed|Error \d+).*)", "ndk", "ndk", 3),
)
