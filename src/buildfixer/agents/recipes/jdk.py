"""The "JDK level" recipe: the build needs another JDK -> the nearest installed one.

See `buildfixer.agents.recipes.diagnose` for the policy. Triggers: "release version 21 not
supported", "Unsupported class file major version 65", "requires Java 17", Kotlin's unknown JVM
target, Gradle's supported range, maven-enforcer's range, a source level newer JDKs dropped. The
JDK chosen must be one the running Gradle (if any) runs on. A level the failure names that is the
odd one out among the project's own declarations goes back to theirs instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from buildfixer.agents.recipes.base import Evidence, PlannedCall, Repair, edit_calls
from buildfixer.agents.recipes.toolchains import current_jdk, gradle_java_cap, gradle_max_java
from buildfixer.buildsys.jdk import discover_jdks, major_version
from buildfixer.deps import manage as deps

_NEEDS_AT_LEAST = [
    re.compile(r"release version (\d+) not supported", re.I),
    re.compile(r"invalid (?:target|source) release:?\s*(?:1\.)?(\d+)", re.I),
    re.compile(r"error: invalid flag: --(release)\b"),
    re.compile(r"requires (?:Java|JDK|JVM)(?: runtime)?(?: version)? (\d+)", re.I),
    re.compile(r"(?:Java|JDK) (\d+) (?:or (?:higher|later|newer|above) )?is required", re.I),
    re.compile(r"requires at least JVM runtime version (\d+)", re.I),
    re.compile(r"declares a component(?: for use during [\w-]+)?, compatible with Java (\d+)", re.I),
]
_CLASS_NEEDS = [  # class file version a dependency or tool was compiled for (major - 44 = Java)
    re.compile(r"class file has wrong version (\d+)\.0, should be \d+\.0"),
    re.compile(r"compiled by a more recent version of the Java Runtime \(class file version (\d+)\.0\)"),
    re.compile(r"UnsupportedClassVersionError: .*?class file version (\d+)\.0"),
]
_TOO_NEW = [  # the JDK running the build is too new for Gradle, Groovy or an old compiler
    re.compile(r"Unsupported class file major version (\d+)"),
    re.compile(r"Could not determine java version from '(\d+)"),
    re.compile(r"BUG! exception in phase 'semantic analysis'.*?Unsupported class file major version (\d+)"),
]
_SOURCE_DROPPED = re.compile(r"(?:Source|Target) option (?:1\.)?(\d+) is no longer supported", re.I)
_KOTLIN_TARGET = re.compile(r"Unknown JVM target version: (\S+)\s*(?:\.\s*)?Supported versions: ([\d., ]+)")
_GRADLE_RANGE = re.compile(r"Supported Java versions are:? between (\d+) and (\d+)", re.I)
# maven-enforcer's requireJavaVersion: "Detected JDK Version: 17.0.2 is not in the allowed range [21,)."
# (1.x-3.3) and "Detected JDK version 17.0.15 (JAVA_HOME=/usr/lib/jvm/...) is not in the allowed
# range [21,)." (3.4+).
_ENFORCER = re.compile(
    r"Detected JDK [Vv]ersion:? \S+(?: \([^)\n]*\))? is not in the allowed range ([^\s]+?)\.?(?:\s|$)"
)
# Oldest --release/-source each JDK accepts: JDK 9 dropped 5, 12 dropped 6, 20 dropped 7.
_LOWEST_RELEASE = [(9, 6), (12, 7), (20, 8)]


_LEVEL_PATTERNS = [
    r"<maven\.compiler\.(?:release|target|source|testRelease|testSource|testTarget)>\s*([\d.]+)",
    r"<(?:release|target|source|testRelease|testSource|testTarget|java\.version|jdk\.version)>\s*([\d.]+)\s*<",
    r"(?:source|target)Compatibility\s*=?\s*\(?\s*['\"]?(?:JavaVersion\.VERSION_)?([\d._]+)",
    r"(?:jvmToolchain|JavaLanguageVersion\.of)\(\s*(\d+)",
    r"jvmTarget\s*(?:=|\.set\()\s*['\"]?(?:JvmTarget\.JVM_)?([\d._]+)",
]


@dataclass(frozen=True)
class _Level:
    """A Java level a build file declares: where its value is written, and the value."""

    file: Path
    start: int
    end: int
    level: int


def _declared_levels(project: Path) -> list[_Level]:
    """Every Java level the build files declare (release, source, target, toolchain, JVM target)."""
    found: list[_Level] = []
    for path in deps.find_build_files(project, ["pom.xml", "build.gradle", "build.gradle.kts"]):
        text = deps.read(path)
        for pattern in _LEVEL_PATTERNS:
            for match in re.finditer(pattern, text):
                level = major_version(match.group(1).replace("_", "."))
                if level is not None and 5 <= level <= 40:
                    found.append(_Level(path, match.start(1), match.end(1), level))
    return found


def declared_java_level(project: Path) -> int | None:
    """The Java level the build files ask for (release/target/toolchain), at most."""
    return max((found.level for found in _declared_levels(project)), default=None)


def _odd_level_out(ev: Evidence, need: int, current: int | None) -> Repair | None:
    """The one level the failure names, where the project's other declarations agree on another.

    `<release>25</release>` beside source, target and test levels of 17 is a slip in one place,
    not a project that moved to Java 25: it goes back to the level the rest declares, when the
    running JDK supports that level. (Switching the JDK would make every user need Java 25.)
    """
    levels = _declared_levels(ev.project)
    odd = [found for found in levels if found.level == need]
    rest = {found.level for found in levels if found.level != need}
    if not odd or len(rest) != 1 or len(levels) - len(odd) <= len(odd):
        return None
    (agreed,) = rest
    # 1.8 and older are written two ways (8, 1.8): not ours to guess which; and the rest must be a
    # level this JDK compiles.
    if agreed < 9 or (current is not None and agreed > current):
        return None
    with deps.staged(ev.project) as stage:
        for found in sorted(odd, key=lambda f: (str(f.file), -f.start)):  # the last first: offsets hold
            file, text = deps.rel(ev.project, found.file), deps.read(found.file)
            stage.add([deps.span_edit(file, text, found.start, found.end, str(agreed))])
        edits = stage.edits()
    if not edits:
        return None
    where = ", ".join(sorted({edit.file for edit in edits}))
    summary = (
        f"The build asks for Java {need} in one place while the rest of the project declares "
        f"Java {agreed}: back to {agreed} ({where})."
    )
    return Repair("jdk-level", summary, edit_calls(edits))


def _enforcer_range(spec: str) -> tuple[int, int] | None:
    """The Java majors a Maven version range allows.

    "[21,)" -> (21, 99), "[1.8,12)" -> (8, 11), "17" -> (17, 99); "(17,)" keeps 17, whose updates
    (17.0.2) are above 17 in Maven's order.
    """
    match = re.fullmatch(r"([\[(])?\s*([\d.]*)\s*(?:,\s*([\d.]*)\s*)?([\])])?", spec.strip())
    if not match or not (match.group(2) or match.group(3)):
        return None
    low_text, high_text = match.group(2), match.group(3)
    if match.group(1) is None and match.group(3) is None:  # a bare version: that one or newer
        high_text = ""
    low = _major(low_text) if low_text else 1
    high = _major(high_text) if high_text else 99
    if low is None or high is None:
        return None
    if high_text and match.group(4) == ")" and re.fullmatch(r"(?:1\.)?\d+(?:\.0)*", high_text):
        high -= 1  # [1.8,12) or [11,17.0) excludes 12, 17
    return (low, high) if low <= high else None


def _pick(installed: list[int], low: int, high: int, current: int | None, prefer_new: bool) -> int | None:
    """An installed version in [low, high] other than the current one (newest or oldest first)."""
    fits = sorted(v for v in installed if low <= v <= high and v != current)
    if not fits:
        return None
    return fits[-1] if prefer_new else fits[0]


def jdk_level(ev: Evidence) -> Repair | None:
    """Recipe 1: switch to the installed JDK the failure asks for."""
    if ev.system not in ("gradle", "maven"):
        return None
    # The Gradle running the build must run on the JDK chosen (Debian's 4.4.1: 17 at most).
    cap = gradle_java_cap(ev)
    installed = sorted({j.version for j in discover_jdks() if j.version <= cap})
    current = current_jdk(ev)
    floor = declared_java_level(ev.project) or 0
    choice: int | None = None
    reason = ""
    for pattern in _NEEDS_AT_LEAST:
        if match := pattern.search(ev.text):
            need = 9 if match.group(1) == "release" else int(match.group(1))
            if (current or 0) < need and (restored := _odd_level_out(ev, need, current)) is not None:
                return restored
            reason = f"needs Java {need} or newer"
            # Already new enough: the message is about something else (a toolchain, a plugin).
            choice = _pick(installed, need, 99, current, False) if (current or 0) < need else None
            break
    if choice is None and not reason:
        for pattern in _CLASS_NEEDS:
            if match := pattern.search(ev.text):
                need = int(match.group(1)) - 44
                choice = _pick(installed, need, 99, current, False) if (current or 0) < need else None
                reason = f"uses classes compiled for Java {need}"
                break
    if choice is None and not reason and (match := _KOTLIN_TARGET.search(ev.text)):
        supported = {v for v in (_major(s) for s in match.group(2).split(",")) if v is not None}
        fits = sorted(v for v in installed if v in supported and v != current)
        choice = fits[-1] if fits else None
        reason = f"its Kotlin compiler does not know JVM target {match.group(1)}"
    if choice is None and not reason and (match := _GRADLE_RANGE.search(ev.text)):
        high = int(match.group(2)) if match.group(2) else 99
        choice = _pick(installed, max(int(match.group(1)), floor), high, current, True)
        reason = f"supports only Java {match.group(1)} to {match.group(2) or 'any'}"
    if choice is None and not reason and (match := _ENFORCER.search(ev.text)):
        allowed = _enforcer_range(match.group(1))
        if allowed is not None:
            low, high = allowed
            # Too old: the oldest JDK allowed; too new: the newest allowed (the nearest, both ways).
            choice = _pick(installed, max(low, floor), high, current, (current or 0) > high)
            reason = f"allows only Java {match.group(1)} (maven-enforcer)"
    if choice is None and not reason:
        for pattern in _TOO_NEW:
            if match := pattern.search(ev.text):
                running = int(match.group(1)) - (44 if "major" in pattern.pattern else 0)
                high = min(running - 1, gradle_max_java(ev.project) or 99)
                choice = _pick(installed, floor, high, current, True)
                reason = f"runs on Java {running}, too new for this Gradle/Groovy"
                break
    if choice is None and not reason and (match := _SOURCE_DROPPED.search(ev.text)):
        level = int(match.group(1))
        ok = [v for v in installed if all(v < jdk or level >= low for jdk, low in _LOWEST_RELEASE)]
        choice = max((v for v in ok if v != current), default=None)
        reason = f"compiles for Java {level}, which newer JDKs no longer support"
    if choice is None:
        return None
    summary = f"The build {reason}: switch from JDK {current} to the installed JDK {choice}."
    return Repair("jdk-level", summary, [PlannedCall("change_java_version", {"version": choice})])


def _major(text: str) -> int | None:
    return major_version(text.strip()) if text.strip() else None
