"""The `recipes` policy: deterministic repairs of known failure causes, no model involved.

`diagnose` reads a failed build (its parsed errors and its log) and the project's build files
and plans one repair as ordinary tool calls (`change_java_version`, `replace`, `write_file`),
or declines with None. Recipes, tried in this order:

1. jdk-level: the build needs another JDK ("release version 21 not supported", "Unsupported
   class file major version 65", "requires Java 17", maven-enforcer's range) -> the nearest
   installed JDK that the running Gradle (if any) runs on.
2. hardcoded-path: a build file names an absolute path missing on this machine (a JDK home, an
   Android SDK, a tool, a file of the project) -> its equivalent here.
3. missing-properties: the build reads a `.properties` file that is absent -> restore it from
   git history (the origin's: a fix works in a snapshot without history), copy a template, or
   create it with the keys the build reads from it (never system or environment ones) and
   placeholder values.
4. missing-version: declared dependency or plugin versions that do not exist -> the nearest
   published release (`registry.nearest_version`: a re-release of that version, then the same
   minor, the same major, any), every one the failure names in one repair; a version shared
   through a property must exist for all.
5. undeclared-dependency: code imports packages (or module-info.java requires modules, or
   TypeScript wants `@types/...`) no declaration provides, and a local cache has the artifact
   (JVM jars, Python wheels and site-packages, npm tarballs) -> declare them in the scope their
   importers need (test-only importers: the test group), as the project's git history or
   lockfile had them, else with the version the project already uses for them when it has one.

Recipes only touch build files, `.properties` files and the JDK choice, never source code or
tests; anything they are not sure of (two candidates, a pre-release, a -SNAPSHOT, a JPMS module
that would also need `requires`) is declined.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.buildsys.jdk import default_jdk, discover_jdks
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.records import BuildError, BuildResult
from buildfixer.deps.manage import Edit

_log = logging.getLogger(__name__)
_LOG_CAP = 2_000_000  # characters of the log's end that recipes read


@dataclass
class PlannedCall:
    """One tool call of a repair: the tool's name and its JSON arguments."""

    tool: str
    arguments: dict[str, Any]


@dataclass
class Repair:
    """A planned repair: which recipe, what it does in a sentence, and the tool calls doing it."""

    recipe: str
    summary: str
    calls: list[PlannedCall] = field(default_factory=list)


@dataclass
class Evidence:
    """What recipes look at: the failed result, its log and the project.

    Attributes:
        project: The project root (resolved).
        result: The failed build.
        options: The build options (cache directory, offline).
        log: The end of the build log, ANSI codes removed.
        text: The error messages followed by the log: what trigger patterns are searched in.
        origin: The project the workspace was snapshot from, when known: its git history has
            what the snapshot (a single commit) lacks, such as a file deleted in a commit.
    """

    project: Path
    result: BuildResult
    options: BuildOptions
    log: str
    text: str
    origin: Path | None = None

    @property
    def system(self) -> str:
        """The build system of the failed build."""
        return self.result.build_system

    def errors_matching(self, pattern: re.Pattern[str]) -> list[tuple[BuildError, re.Match[str]]]:
        """Parsed errors whose message matches, with the match."""
        found = []
        for error in self.result.errors:
            match = pattern.search(error.message)
            if match:
                found.append((error, match))
        return found

    def source(self, path: str | None) -> Path | None:
        """A file an error names, inside the project (relative paths are from its root)."""
        if not path:
            return None
        candidate = Path(path) if Path(path).is_absolute() else self.project / path
        try:
            real = candidate.resolve()
        except OSError:
            return None
        return real if real.is_relative_to(self.project) and real.is_file() else None


def read_evidence(
    project: Path, result: BuildResult, options: BuildOptions, origin: Path | None = None
) -> Evidence:
    """Collect the evidence of a failed build (the log from disk, else the recorded tail)."""
    from buildfixer.core.errors import BuildfixerError
    from buildfixer.logs.text import read_log, strip_ansi

    try:
        log = read_log(result.log_path) if result.log_path else result.output_tail
    except BuildfixerError:
        log = result.output_tail
    log = strip_ansi(log[-_LOG_CAP:])
    messages = "\n".join(e.message for e in result.errors)
    return Evidence(
        project.resolve(), result, options, log, f"{messages}\n{log}", origin.resolve() if origin else None
    )


def edit_calls(edits: list[Edit]) -> list[PlannedCall]:
    """Planned edits as tool calls: `replace`, or `write_file` for a new file."""
    calls = []
    for edit in edits:
        if edit.old_text == "":
            calls.append(PlannedCall("write_file", {"path": edit.file, "content": edit.new_text}))
        else:
            args = {"file_path": edit.file, "old_string": edit.old_text, "new_string": edit.new_text}
            calls.append(PlannedCall("replace", {**args, "expected_replacements": 1}))
    return calls


def undeclared_repair(edits: list[Edit], notes: list[str]) -> Repair | None:
    """The undeclared-dependency repair of these edits (None when there are none), its notes as summary."""
    if not edits:
        return None
    return Repair("undeclared-dependency", "; ".join(notes) + ".", edit_calls(edits))


# --- recipe 1: JDK level ---------------------------------------------------------------------

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
# Newest Java each Gradle version runs on (docs.gradle.org compatibility matrix).
_GRADLE_MAX_JAVA = [
    ((4, 7), 10), ((5, 0), 11), ((5, 4), 12), ((6, 0), 13), ((6, 3), 14), ((6, 7), 15),
    ((7, 0), 16), ((7, 3), 17), ((7, 5), 18), ((7, 6), 19), ((8, 3), 20), ((8, 5), 21),
    ((8, 8), 22), ((8, 10), 23), ((8, 14), 24), ((9, 1), 25),
]  # fmt: skip
# Oldest --release/-source each JDK accepts: JDK 9 dropped 5, 12 dropped 6, 20 dropped 7.
_LOWEST_RELEASE = [(9, 6), (12, 7), (20, 8)]


def current_jdk(ev: Evidence) -> int | None:
    """The JDK the failed build used."""
    if ev.result.jdk is not None:
        return ev.result.jdk
    if ev.options.jdk is not None:
        return ev.options.jdk
    jdk = default_jdk()
    return jdk.version if jdk else None


def declared_java_level(project: Path) -> int | None:
    """The Java level the build files ask for (release/target/toolchain), at most."""
    from buildfixer.buildsys.jdk import major_version
    from buildfixer.deps.manage import read, walk_files

    patterns = [
        r"<maven\.compiler\.(?:release|target|source)>\s*([\d.]+)",
        r"<(?:release|target|source|java\.version|jdk\.version)>\s*([\d.]+)\s*<",
        r"(?:source|target)Compatibility\s*=?\s*\(?\s*['\"]?(?:JavaVersion\.VERSION_)?([\d._]+)",
        r"(?:jvmToolchain|JavaLanguageVersion\.of)\(\s*(\d+)",
        r"jvmTarget\s*(?:=|\.set\()\s*['\"]?(?:JvmTarget\.JVM_)?([\d._]+)",
    ]
    levels: list[int] = []
    files = walk_files(project, ["pom.xml", "build.gradle", "build.gradle.kts"])
    for path in files:
        text = read(path)
        for pattern in patterns:
            for value in re.findall(pattern, text):
                level = major_version(value.replace("_", "."))
                if level is not None and 5 <= level <= 40:
                    levels.append(level)
    return max(levels) if levels else None


def _gradle_version(project: Path) -> tuple[int, int] | None:
    props = project / "gradle" / "wrapper" / "gradle-wrapper.properties"
    try:
        match = re.search(r"gradle-(\d+)\.(\d+)", props.read_text(errors="replace"))
    except OSError:
        return None
    return (int(match.group(1)), int(match.group(2))) if match else None


def _gradle_max_java(project: Path) -> int | None:
    version = _gradle_version(project)
    if version is None:
        return None
    best = 9
    for since, java in _GRADLE_MAX_JAVA:
        if version >= since:
            best = java
    return best


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


def gradle_java_cap(ev: Evidence) -> int:
    """Newest Java the Gradle running this build runs on (99 when unknown or not Gradle)."""
    if ev.system != "gradle":
        return 99
    from buildfixer.buildsys.gradle import _java_limit

    running = ev.result.environment.get("gradle", "")
    version = running.split()[0] if running else ""
    limit = _java_limit(version, system="wrapper" not in running) if version else None
    if limit is None and not running:
        limit = _gradle_max_java(ev.project)
    return limit or 99


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
                high = min(running - 1, _gradle_max_java(ev.project) or 99)
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
    from buildfixer.buildsys.jdk import major_version

    return major_version(text.strip()) if text.strip() else None


# --- dispatch --------------------------------------------------------------------------------


def _recipes() -> list[Callable[[Evidence], Repair | None]]:
    from buildfixer.agents.recipes.deps import undeclared_dependency
    from buildfixer.agents.recipes.files import hardcoded_path
    from buildfixer.agents.recipes.properties import missing_properties
    from buildfixer.agents.recipes.versions import missing_version

    return [jdk_level, hardcoded_path, missing_properties, missing_version, undeclared_dependency]


def diagnose(
    project: Path, result: BuildResult, options: BuildOptions, origin: Path | None = None
) -> Repair | None:
    """Plan the repair of a failed build, or decline.

    Args:
        project: The project root.
        result: The failed build, its errors read (`logs.result.attach_analysis`).
        options: Its build options (cache directory for the dependency caches, offline).
        origin: The directory `project` is a snapshot of (`buildfixer fix` works in a copy
            without history): where a deleted file is looked up in git history.

    Returns:
        The first recipe's repair that applies with confidence, or None.
    """
    if result.status == "success":
        return None
    evidence = read_evidence(project, result, options, origin)
    for recipe in _recipes():
        try:
            repair = recipe(evidence)
        except Exception:  # a recipe's bug must not break the fix command: it declines
            _log.warning("recipe %s failed; it declines", recipe.__name__, exc_info=True)
            repair = None
        if repair is not None and repair.calls:
            return repair
    return None
