"""The "hard-coded path" recipe: a build file names an absolute path missing here.

See `buildfixer.agents.recipes.diagnose` for the policy. It only touches build files (Gradle scripts,
gradle.properties, local.properties, pom.xml, .mvn configs). The missing-properties recipe is in
`properties`.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from buildfixer.agents.recipes.base import Evidence, PlannedCall, Repair
from buildfixer.agents.recipes.toolchains import android_sdk, current_jdk, gradle_java_cap
from buildfixer.buildsys.jdk import discover_jdks, major_version
from buildfixer.deps import manage as deps

_BUILD_FILES = (
    "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "*.gradle",
    "gradle.properties", "local.properties", "pom.xml", "jvm.config", "maven.config",
)  # fmt: skip
_POSIX_PATH = re.compile(r"(?<![\w.~:/$@-])(/(?:[\w.+@-]+/)+[\w.+@-]+)")
_WINDOWS_PATH = re.compile(r"(?<![\w])([A-Za-z]:[\\/]+(?:[^\\/\n'\"<>|*?:]+[\\/]+)*[^\\/\n'\"<>|*?:,;)]+)")
_JDK_DIR = re.compile(
    r"^(?:jdk|jre|java|openjdk|temurin|zulu|corretto|graalvm|liberica|adoptopenjdk|semeru|sapmachine|"
    r"microsoft|ibm|oracle)[^/\\]*\d",
    re.IGNORECASE,
)
_SEARCH_ROOTS = (("~", 3), ("/opt", 4), ("/usr/local", 3))
_MAX_VISITS = 20_000


# --- recipe 2: hard-coded paths --------------------------------------------------------------


def _missing_paths(ev: Evidence) -> list[str]:
    """Absolute paths the failure names that exist neither here nor inside the project."""
    found: dict[str, None] = {}
    for pattern in (_POSIX_PATH, _WINDOWS_PATH):
        for match in pattern.finditer(ev.text):
            path = match.group(1).rstrip(".,:;)'\" ")
            if pattern is _POSIX_PATH:
                if path.count("/") < 2 or Path(path).exists() or Path(path).is_relative_to(ev.project):
                    continue
                if Path(path).is_relative_to(ev.options.cache_dir):
                    continue
            found.setdefault(path, None)
    return list(found)


def _jdk_home(parts: list[str]) -> tuple[int, int | None] | None:
    """Index of the JDK home component of a path and the Java version its name gives."""
    for i, part in enumerate(parts):
        after_jvm_dir = i > 0 and parts[i - 1].lower() in ("java", "jvm", "jdks", "javavirtualmachines")
        if _JDK_DIR.match(part) or (after_jvm_dir and part[:1].isdigit()):
            number = re.search(r"\d+(?:\.\d+)?", part)
            return i, major_version(number.group(0)) if number else None
    return None


_TOOL_SUFFIXES = ("", ".exe", ".sh", ".bat", ".cmd", ".jar")


def _find_file(name: str, project: Path) -> Path | None:
    """A file of this name here: the project's only one, else (a tool) on PATH or in ~, /opt, /usr/local.

    A data or config file (checkstyle.xml, a keystore) is looked for in the project alone: one of
    the same name elsewhere on the machine is someone else's. Two in the project are ambiguous.
    """
    in_project: list[Path] = []
    for dirpath, dirs, files in os.walk(project):
        level = len(Path(dirpath).relative_to(project).parts)
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in deps.SKIP_DIRS and level < 6]
        if name in files and (Path(dirpath) / name).is_file():
            in_project.append(Path(dirpath) / name)
    if in_project:
        return in_project[0] if len(in_project) == 1 else None
    if Path(name).suffix.lower() not in _TOOL_SUFFIXES:
        return None
    on_path = shutil.which(name)
    if on_path:
        return Path(on_path)
    visits = 0
    for root, depth in [(Path(r).expanduser(), depth) for r, depth in _SEARCH_ROOTS]:
        for dirpath, dirs, files in os.walk(root) if root.is_dir() else []:
            visits += 1
            level = len(Path(dirpath).relative_to(root).parts)
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in deps.SKIP_DIRS and level < depth]
            if name in files and (Path(dirpath) / name).is_file():
                return Path(dirpath) / name
            if visits > _MAX_VISITS:
                return None
    return None


def _replacement(path: str, ev: Evidence) -> tuple[str, str] | None:
    """The existing equivalent of a missing path, and what it is."""
    parts = [p for p in re.split(r"[\\/]+", path) if p]
    home = _jdk_home(parts)
    if home is not None:
        index, version = home
        # Gradle runs on the JDK of org.gradle.java.home: one the running Gradle supports.
        installed = sorted(j for j in discover_jdks() if j.version <= gradle_java_cap(ev))
        want = version or current_jdk(ev) or 0
        jdk = next((j for j in installed if j.version >= want), installed[-1] if installed else None)
        if jdk is None:
            return None
        rest = parts[index + 1 :]
        if rest[:2] == ["Contents", "Home"]:  # a macOS JDK bundle
            rest = rest[2:]
        new = Path(jdk.path, *rest)
        return (str(new), f"the installed JDK {jdk.version}") if new.exists() else None
    if re.search(r"android[-_]?sdk|[\\/]Android[\\/]sdk", path, re.IGNORECASE):
        sdk = android_sdk()
        return (str(sdk), "the Android SDK installed here") if sdk else None
    if "." not in parts[-1] and not path.endswith(("javac", "java", "node", "python", "python3")):
        return None  # a directory of unknown content has no safe equivalent
    found = _find_file(parts[-1], ev.project)
    if found is None:
        return None
    inside = found.resolve().is_relative_to(ev.project)
    return (str(found), f"the {parts[-1]} {'of the project' if inside else 'found here'}")


def _as_written(ev: Evidence, holder: Path, new: str) -> str:
    """How a build file should name a replacement: a file of the project by a relative path.

    The repair is made in a snapshot of the project and copied back: an absolute path into the
    snapshot would point nowhere afterwards. A pom says `${project.basedir}/...`; .mvn files are
    read from the project root; Gradle scripts and properties resolve from their own directory.
    """
    target = Path(new)
    if not target.is_absolute() or not target.resolve().is_relative_to(ev.project):
        return new
    target = target.resolve()
    if holder.name == "pom.xml":
        return "${project.basedir}/" + target.relative_to(holder.parent).as_posix()
    base = ev.project if holder.parent.name == ".mvn" else holder.parent
    return os.path.relpath(target, base).replace(os.sep, "/")


def hardcoded_path(ev: Evidence) -> Repair | None:
    """Recipe 2: a build file names an absolute path missing here -> its equivalent here."""
    roots = (ev.project, ev.project / ".mvn")
    files = [path for root in roots for path in deps.find_build_files(root, _BUILD_FILES)]
    texts = {f: deps.read(f) for f in files}
    for path in _missing_paths(ev):
        spellings = [path, path.replace("\\", "\\\\"), path.replace("\\", "\\\\").replace(":", "\\:", 1)]
        holders = [(f, s) for f, text in texts.items() for s in dict.fromkeys(spellings) if s in text]
        if not holders:
            continue  # named by the failure but not by a build file (source code, data): not ours
        replacement = _replacement(path, ev)
        if replacement is None:
            continue
        new, what = replacement
        calls = []
        for file, spelling in holders:
            count = texts[file].count(spelling)
            written = _as_written(ev, file, new) if what.endswith("of the project") else new
            args = {"file_path": deps.rel(ev.project, file), "old_string": spelling, "new_string": written}
            calls.append(PlannedCall("replace", {**args, "expected_replacements": count}))
        where = ", ".join(sorted({c.arguments["file_path"] for c in calls}))
        summary = f"{where} names {path}, which does not exist here: use {new} ({what}) instead."
        return Repair("hardcoded-path", summary, calls)
    return None
