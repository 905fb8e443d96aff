"""File recipes of the `recipes` policy: a hard-coded path missing here, a missing properties file.

See `buildfixer.agent.recipes` for the policy. Both only touch build files (Gradle scripts,
gradle.properties, local.properties, pom.xml, .mvn configs) and `.properties` files.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from buildfixer.agent.recipes import Evidence, PlannedCall, Repair, current_jdk, gradle_java_cap
from buildfixer.build import deps
from buildfixer.build.jdk import discover_jdks, major_version

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
_SDK_HOMES = (
    "~/Android/Sdk",
    "~/Library/Android/sdk",
    "/opt/android-sdk",
    "/usr/lib/android-sdk",
    "/opt/android/sdk",
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


def android_sdk() -> Path | None:
    """An Android SDK installed here: ANDROID_HOME, ANDROID_SDK_ROOT or a usual place."""
    places = [os.environ.get("ANDROID_HOME", ""), os.environ.get("ANDROID_SDK_ROOT", ""), *_SDK_HOMES]
    for place in places:
        if not place:
            continue
        home = Path(place).expanduser()
        if any((home / d).is_dir() for d in ("platforms", "platform-tools", "build-tools")):
            return home
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
    files = deps.walk_files(ev.project, _BUILD_FILES) + deps.walk_files(ev.project / ".mvn", _BUILD_FILES)
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


# --- recipe 3: missing properties files ------------------------------------------------------

_PROPS_MISSING = [
    re.compile(
        r"([^\s'\"()<>]+\.properties) "
        r"\((?:No such file or directory|The system cannot find the \w+ specified)\)"
    ),
    re.compile(r"Properties could not be loaded from File: ([^\s'\"()<>]+\.properties)"),
    re.compile(r"NoSuchFileException: ([^\s'\"()<>]+\.properties)"),
    re.compile(r"[Ff]ile '([^'\n]+\.properties)' (?:does not exist|not found)"),
]
_SDK_MISSING = re.compile(
    r"SDK location not found.{0,300}?local properties file at '([^'\n]+local\.properties)'", re.S
)
_TEMPLATES = (".example", ".sample", ".template", ".dist", ".default", ".tmpl")
_TEST_DIRS = {"test", "tests", "androidTest", "testFixtures", "__tests__", "testData", "test-data"}
_PROPS_METHODS = {
    "load", "getProperty", "get", "getOrDefault", "each", "containsKey", "stringPropertyNames", "keySet",
    "entrySet", "size", "isEmpty", "put", "setProperty", "store", "withInputStream", "propertyNames", "keys",
    "values", "forEach", "with", "apply", "let", "also", "run", "toString", "class", "properties", "getAt",
}  # fmt: skip
_MAVEN_BUILTIN = ("project.", "pom.", "env.", "settings.", "maven.", "java.", "os.", "user.", "session.")
_NUMERIC = {
    "count",
    "top",
    "size",
    "port",
    "max",
    "min",
    "limit",
    "timeout",
    "number",
    "num",
    "threads",
    "code",
}


_VERSION_PARTS = {"major", "minor", "patch", "code", "build", "revision"}  # versionMajor=1, versionCode=1


def placeholder(key: str) -> str:
    """A harmless value for a key: 0.0.0 for versions, 1 for numbers, false for flags, else a word."""
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|\d+|[A-Z]+(?![a-z])", key)] or [key.lower()]
    if words[-1] in _NUMERIC or words[-1].isdigit() or (words[-1] in _VERSION_PARTS and "version" in words):
        return "1"
    if "version" in words:
        return "0.0.0"
    if words[-1] in ("enabled", "enable", "disabled", "debug", "flag"):
        return "false"
    return "placeholder"


def _gradle_keys(text: str, filename: str) -> list[str]:
    """Keys a Gradle script reads from the Properties object it loads from `filename`."""
    lines = text.splitlines()
    related = {i for i, line in enumerate(lines) if filename in line}
    file_vars = {
        m.group(1) for i in related if (m := re.search(r"(?:def|val|var|File)\s+(\w+)\s*=", lines[i]))
    }
    related |= {i for i, line in enumerate(lines) for v in file_vars if re.search(rf"\b{v}\b", line)}
    props: set[str] = set()
    for i in related:
        for line in lines[max(0, i - 3) : i + 4]:  # the load is often a line away from the file
            props |= set(re.findall(r"(\w+)\.load\s*\(", line))
            if m := re.search(
                r"(?:def|val|var)\s+(\w+)\s*=\s*(?:new\s+)?(?:java\.util\.)?Properties\s*\(", line
            ):
                props.add(m.group(1))
    keys: list[str] = []
    for var in sorted(props):
        keys += re.findall(rf"\b{var}\s*\[\s*['\"]([^'\"]+)['\"]\s*\]", text)
        keys += re.findall(
            rf"\b{var}\s*\.\s*(?:getProperty|get|getOrDefault)\s*\(\s*['\"]([^'\"]+)['\"]", text
        )
        keys += [k for k in re.findall(rf"\b{var}\.(\w+)\b(?!\s*[({{])", text) if k not in _PROPS_METHODS]
    return list(dict.fromkeys(keys))


def _maven_keys(project: Path, poms: list[Path]) -> list[str]:
    """`${key}` references of the poms and their filtered resources that no <properties> defines."""
    defined: set[str] = set()
    texts = [deps.read(p) for p in poms]
    for text in texts:
        for block in re.findall(r"<properties>(.*?)</properties>", text, re.DOTALL):
            defined |= set(re.findall(r"<([\w.-]+)>", block))
    refs = [r for text in texts for r in re.findall(r"\$\{([\w.-]+)\}", text)]
    for pom, text in zip(poms, texts, strict=True):
        if "<filtering>true</filtering>" not in text:
            continue
        directories = re.findall(r"<directory>\s*([^<$]+?)\s*</directory>", text) or ["src/main/resources"]
        for directory in directories:
            for path in sorted((pom.parent / directory).rglob("*"))[:200]:
                if path.is_file() and path.stat().st_size < 256_000:
                    refs += re.findall(r"\$\{([\w.-]+)\}", deps.read(path))
    builtin = {
        "basedir",
        "revision",
        "sha1",
        "changelist",
        "line.separator",
        "file.separator",
        "path.separator",
    }
    keys = [r for r in refs if r not in defined and r not in builtin and not r.startswith(_MAVEN_BUILTIN)]
    return list(dict.fromkeys(keys))


def _requested_properties(ev: Evidence) -> list[str]:
    found: dict[str, None] = {}
    for pattern in _PROPS_MISSING:
        for match in pattern.finditer(ev.text):
            found.setdefault(match.group(1), None)
    return list(found)


def _from_history(ev: Evidence, rel: str) -> str | None:
    """The file's last committed content, when git history has it (deleted in a commit or only here).

    The workspace of `buildfixer fix` is a one-commit snapshot: the project it was taken from
    (`Evidence.origin`) has the history.
    """
    from buildfixer.errors import BuildfixerError
    from buildfixer.workspace.git import git

    for root in dict.fromkeys(r for r in (ev.project, ev.origin) if r is not None):
        if not root.is_dir():
            continue
        try:
            deleted = git("log", "-n", "1", "--format=%H", "--diff-filter=D", "--", rel, cwd=root, timeout=20)
            spec = f"{deleted.strip()}^:./{rel}" if deleted.strip() else f"HEAD:./{rel}"
            return git("show", spec, cwd=root, timeout=20)
        except BuildfixerError:  # not a repository, or the file was never committed
            continue
    return None


def _inside(ev: Evidence, path: str) -> str | None:
    """A path the log names as a project-relative path, when it lies inside the project."""
    candidate = Path(path) if Path(path).is_absolute() else ev.project / path
    try:
        return candidate.resolve().relative_to(ev.project).as_posix()
    except (ValueError, OSError):
        return None


def missing_properties(ev: Evidence) -> Repair | None:
    """Recipe 3: the build reads a `.properties` file that is absent -> create it."""
    if (match := _SDK_MISSING.search(ev.text)) and (rel := _inside(ev, match.group(1))):
        sdk = android_sdk()
        if sdk is None or (ev.project / rel).exists():
            return None
        content = f"# Created by buildfixer: the Android SDK installed on this machine.\nsdk.dir={sdk}\n"
        summary = f"The Android build needs {rel} with sdk.dir: create it pointing at {sdk}."
        return Repair(
            "missing-properties", summary, [PlannedCall("write_file", {"path": rel, "content": content})]
        )
    scripts = deps.walk_files(ev.project, ("*.gradle", "*.gradle.kts"))
    poms = deps.walk_files(ev.project, ["pom.xml"])
    for named in _requested_properties(ev):
        rel = _inside(ev, named)
        if rel is None or (ev.project / rel).exists():
            continue
        if any(part in _TEST_DIRS for part in rel.split("/")[:-1]):
            continue  # test data: the tests' business, never invented by a recipe
        name = Path(rel).name
        readers = [p for p in scripts + poms if name in deps.read(p)]
        if not readers:
            continue  # read by the application or its tests, not by the build: not ours to invent
        target = ev.project / rel
        if (restored := _from_history(ev, rel)) is not None:
            summary = f"The build reads {rel}, which is missing: restore it from git history."
            return Repair(
                "missing-properties", summary, [PlannedCall("write_file", {"path": rel, "content": restored})]
            )
        stem = target.name.removesuffix(".properties")
        templates = [target.with_name(target.name + t) for t in _TEMPLATES]
        templates += [target.with_name(f"{stem}{sep}{t[1:]}.properties") for t in _TEMPLATES for sep in ".-_"]
        template = next((t for t in templates if t.is_file()), None)
        if template is not None:
            summary = f"The build reads {rel}, which is missing: create it from {template.name}."
            call = PlannedCall("write_file", {"path": rel, "content": deps.read(template)})
            return Repair("missing-properties", summary, [call])
        keys: list[str] = []
        for reader in readers:
            keys += (
                _gradle_keys(deps.read(reader), name)
                if reader.name != "pom.xml"
                else _maven_keys(ev.project, poms)
            )
        keys = list(dict.fromkeys(keys))
        lines = [
            "# Created by buildfixer: the build reads this file, which was missing.",
            "# The values are placeholders; replace them with the real ones.",
            *(f"{key}={placeholder(key)}" for key in keys),
        ]
        readers_text = ", ".join(deps.rel(ev.project, r) for r in readers)
        summary = (
            f"{readers_text} reads {rel}, which is missing: create it with placeholder values for "
            f"{', '.join(keys) if keys else 'no keys (none are read by name)'}."
        )
        content = "\n".join(lines) + "\n"
        return Repair(
            "missing-properties", summary, [PlannedCall("write_file", {"path": rel, "content": content})]
        )
    return None
