"""Point errors at the project lines that cause them, when the log alone cannot.

A log says "Could not find com.google.code.gson:gson:2.8.99" or "release version 21 not
supported" without a file: the line to fix is in a build file, found by searching the
build files for the coordinate, the version, or the path the message names; an npm package
at its key in a dependency section of package.json (not a script of the same name), a
missing Python interpreter at the pin that asks for it (tox.ini, noxfile.py,
.python-version, the tox sections of setup.cfg and pyproject.toml). Paths the
log does give may not be the project's own (a test class name turned into a path, a
module installed in a venv, an absolute path of another machine): they are mapped onto
the project file with the longest matching path suffix.

The project's files are read through what the caller hands in (`logs.source.ProjectFiles`),
never opened here: a build file may be a link a build planted to a host secret.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from fnmatch import fnmatchcase
from itertools import islice
from pathlib import Path
from urllib.parse import unquote, urlsplit

from buildfixer.core.build_result import BuildError
from buildfixer.logs.source import ProjectFiles

BUILD_FILE_PATTERNS = (
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "gradle.properties",
    "gradle/libs.versions.toml",
    "gradle/wrapper/gradle-wrapper.properties",
    "pom.xml",
    "package.json",
    "tsconfig.json",
    "tsconfig.*.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements*.txt",
    # Where a Python project pins the interpreters and test dependencies it builds with.
    "tox.ini",
    "noxfile.py",
    ".python-version",
)
# Characters of a message searched for what it names: what to fix is named near its start, and
# some patterns (a coordinate's `\b[A-Za-z][\w.-]*`) are quadratic on a long dotted run.
_MAX_SEARCHED = 1000
_SKIP_DIRS = {".git", "node_modules", "build", "target", "dist", ".gradle", "__pycache__", ".venv", "venv"}
_MAX_WALK = 20_000

_COORDINATE = re.compile(r"\b([A-Za-z][\w.-]*):([\w.-]+):(?:[a-z-]+:)?(\d[\w.+-]*)")
# A package npm, pnpm or yarn cannot have, and the range asked for when the message gives it:
# `No matching version found for left-pad@^9.0.0` (ETARGET), `'@a/b@^1.0.0' is not in this registry`
# and `404 Not Found - GET https://registry.npmjs.org/@a%2fb` (E404), yarn's `Couldn't find any
# versions for "x" that matches "^9"` and `Couldn't find package "x"`.
_NPM_PACKAGE = (
    re.compile(
        r"(?:version found for|for|notarget) (?P<name>@?[\w.-]+(?:/[\w.-]+)?)@(?P<range>[^\s'\"]*[\w*])"
    ),
    re.compile(r"'(?P<name>@?[\w.-]+(?:/[\w.-]+)?)@(?P<range>[^']*)' is not in (?:this|the npm) registry"),
    re.compile(r"versions for \"(?P<name>@?[\w.-]+(?:/[\w.-]+)?)\" that matches \"(?P<range>[^\"]*)\""),
    re.compile(r"Couldn't find package \"(?P<name>@?[\w.-]+(?:/[\w.-]+)?)(?:@(?P<range>[^\"]*))?\""),
    re.compile(r"404 Not Found - GET (?P<url>https?://\S+)"),
    # pnpm's lockfile out of step: `- ts-jest (lockfile: 29.4.0, manifest: 29.99.0)`, `were added: x@^1`.
    re.compile(r"- (?P<name>@?[\w.-]+(?:/[\w.-]+)?) \(lockfile: [^,]*, manifest: (?P<range>[^)\s]*)\)"),
    re.compile(r"dependenc(?:y|ies) (?:were|was) added: (?P<name>@?[\w.-]+(?:/[\w.-]+)?)@(?P<range>\S+)"),
)
# The sections of package.json whose keys are packages: a package's own line is its key there, not
# the first mention of its name (a script of the same name, `"lint": "eslint"`).
_NPM_SECTIONS = frozenset((
    "dependencies", "devDependencies", "peerDependencies", "optionalDependencies", "bundleDependencies",
    "overrides", "resolutions", "pnpm",
))  # fmt: skip
_JSON_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_PIP_SPEC = re.compile(
    r"requirement ([A-Za-z][\w.-]*)\s*(?:[=<>!~]=?)\s*([\w.*+-]+)|found for ([A-Za-z][\w.-]*)=="
)
_JAVA_LEVEL = re.compile(
    r"(?:release version|invalid (?:source|target) release:?|requires (?:Java|JDK) (?:version )?"
    r"|not supported in -(?:source|release) (?:1\.)?)\s*(\d+)",
    re.IGNORECASE,
)
# A feature above the level compiled for, reported where the code uses it: the level is the cause.
_LEVEL_TOO_LOW = re.compile(r"not supported in -(?:source|release) \d")
_CLASS_FILE = re.compile(r"class file (?:major )?version (\d{2})")
# (A property named for the JDK holds the level too: `<version.jdk>21</version.jdk>`, `jdkVersion = 21`.)
_JAVA_LEVEL_LINE = re.compile(
    r"release|source|target|compatibility|JavaVersion|languageVersion|jvmTarget|java\.version"
    r"|\bjdk(?:[._-]?version)?\b|jdkVersion"
)
# The interpreter is outside the project's Python range; the line that declares the range.
_PYTHON_RANGE = re.compile(
    r"requires a different Python|Python requirement|does not satisfy Python|supported Python range"
    r"|(?:not allowed|not supported) by the project"
)
_PYTHON_RANGE_LINE = re.compile(
    r"^\s*(?:requires-python\s*=|python_requires\s*=|python\s*=\s*[\"'{])|\bpython_requires\s*="
)
# An interpreter the build asked for and this machine lacks (tox, nox, pyenv, uv): the pin is the
# line to fix, in tox.ini (`basepython = python3.8`, `envlist = py38`), noxfile.py, .python-version,
# or the tox sections of setup.cfg and pyproject.toml.
_INTERPRETER_MISSING = re.compile(
    r"InterpreterNotFound|could not find python interpreter|interpreter \S+ not found|No interpreter found"
    r"|version \S+ is not installed \(set by|python\d[\d.]*: (?:command )?not found",
    re.IGNORECASE,
)
_INTERPRETER_VERSION = re.compile(
    r"(?:python|py)\s*(?P<major>[23])\.?(?P<minor>\d{1,2})(?!\d)|(?<![\w.])(?P<x>[23])\.(?P<y>\d{1,2})(?!\d)",
    re.IGNORECASE,
)
_INTERPRETER_FILES = ("tox.ini", "noxfile.py", ".python-version", "setup.cfg", "pyproject.toml")
_TOX_SECTION = re.compile(r"^\s*\[(?:tox\b|testenv|tool\.tox)")
_PIN_LINE = re.compile(
    r"\b(?:basepython|base_python|envlist|env_list|python_requires|requires-python|python)\b\s*[=:(]|session\("
)
_VERSION_SPEC = re.compile(r"[<>=!~^]=?\s*\d[\w.*]*(?:\s*,\s*[<>=!~]=?\s*\d[\w.*]*)*")
_ABS_PATH = re.compile(r"(?<![\w.])(/(?:[\w.@+-]+/)*[\w.@+-]+)")
# Found only where a run of name characters starts: a later start in the same run can never be
# a match of its own (the run's first start would have taken it), and trying each would rescan
# the run (quadratic on a long dotted run).
_FILE_NAME = re.compile(
    r"(?<![\w.-])([\w.-]+\.(?:properties|json|jks|keystore|xml|yml|yaml|toml|txt|cfg|conf|ini|gradle))\b"
)


# Properties whose value is a directory (a JDK, the Android SDK or NDK): a message saying the
# directory is invalid names the key ("given for org.gradle.java.home Gradle property", "fix
# the 'sdk.dir' property"); the line to fix is the one setting it, in gradle.properties or
# (for the SDK and NDK) local.properties, which is no build file and is read only for this.
_PATH_PROPERTY = re.compile(r"\b(org\.gradle\.java\.home|sdk\.dir|ndk\.dir)\b")
_PROPERTY_FILES = ("gradle.properties", "local.properties", "*/gradle.properties", "*/local.properties")


def _glob(project: ProjectFiles, shallow: list[str], pattern: str) -> list[str]:
    """The files a glob pattern of at most two components matches (sorted), as Path.glob would."""
    if not any(c in pattern for c in "*?["):
        return [pattern] if project.is_file(pattern) else []
    parts = pattern.split("/")
    return sorted(
        rel
        for rel in shallow
        if rel.count("/") == len(parts) - 1
        and all(fnmatchcase(name, part) for name, part in zip(rel.split("/"), parts, strict=True))
    )


def _shallow(project: ProjectFiles) -> list[str]:
    """The files at the root and one directory down."""
    return list(islice(project.files(max_depth=1), _MAX_WALK))


def _locate_path_property(message: str, project: ProjectFiles) -> tuple[str, int] | None:
    """The `key=value` line that sets a directory property the message names, root files first."""
    keys = dict.fromkeys(_PATH_PROPERTY.findall(message[:_MAX_SEARCHED]))
    shallow = _shallow(project) if keys else []
    for key in keys:
        setting = re.compile(rf"^\s*{re.escape(key)}\s*[=:]")
        for pattern in _PROPERTY_FILES:
            for rel in _glob(project, shallow, pattern):
                for number, text in enumerate(_lines(project, rel), 1):
                    if setting.match(text):
                        return rel, number
    return None


def build_files(project: ProjectFiles) -> list[str]:
    """Build files at the root and one directory down, root first (paths relative to the root)."""
    shallow = _shallow(project)
    found: list[str] = []
    for pattern in BUILD_FILE_PATTERNS:
        found += _glob(project, shallow, pattern)
    for pattern in BUILD_FILE_PATTERNS:
        if "/" not in pattern:
            found += [p for p in _glob(project, shallow, f"*/{pattern}") if p.split("/")[0] not in _SKIP_DIRS]
    return list(dict.fromkeys(found))


def _lines(project: ProjectFiles, rel: str) -> list[str]:
    text = project.read_text(rel)
    return text.splitlines() if text is not None else []


def _find(files: dict[str, list[str]], wanted: list[str], near: str | None = None) -> tuple[str, int] | None:
    """First build-file line containing every string in `wanted` (or `near` then `wanted` within 6 lines)."""
    for rel, lines in files.items():
        for number, text in enumerate(lines, 1):
            if near is not None:
                if near in text:
                    for offset, later in enumerate(lines[number - 1 : number + 5]):
                        if all(w in later for w in wanted):
                            return rel, number + offset
            elif all(w in text for w in wanted):
                return rel, number
    return None


def _locate_python_range(error: BuildError, files: dict[str, list[str]]) -> tuple[str, int] | None:
    """The `requires-python` / `python_requires` / poetry `python =` line an error is about.

    A line that also carries the range the message quotes wins over the first declaring line.
    """
    specs = [m.group(0).replace(" ", "") for m in _VERSION_SPEC.finditer(error.message)]
    declaring = [
        (rel, number, text.replace(" ", ""))
        for rel, lines in files.items()
        if rel.rsplit("/", 1)[-1] in ("pyproject.toml", "setup.cfg", "setup.py")
        for number, text in enumerate(lines, 1)
        if _PYTHON_RANGE_LINE.search(text)
    ]
    for file, number, text in declaring:
        if any(spec in text for spec in specs):
            return file, number
    return (declaring[0][0], declaring[0][1]) if declaring else None


def _locate_interpreter(message: str, files: dict[str, list[str]]) -> tuple[str, int] | None:
    """The line pinning the Python interpreter a message says is missing (`python3.8`, `py38`, `3.8`).

    In order: a `basepython` naming it, a tox or nox line naming it as `python3.8`/`py38`/`py{38,39}`,
    .python-version, then a line that pins a bare `3.8` (`python = ["3.8"]`, `requires-python`).
    """
    version = _INTERPRETER_VERSION.search(message) if _INTERPRETER_MISSING.search(message) else None
    if not version:
        return None
    major, minor = version["major"] or version["x"], version["minor"] or version["y"]
    named = re.compile(
        rf"(?<![\w.])(?:python|py){major}\.?{minor}(?!\d)|\bpy\{{[^}}]*\b{major}\.?{minor}\b", re.I
    )
    bare = re.compile(rf"(?<![\w.]){major}\.{minor}(?!\d)")

    def rank(rel: str, text: str, tox: bool) -> int | None:
        if tox and "basepython" in text and (named.search(text) or bare.search(text)):
            return 0
        if tox and named.search(text):
            return 1
        if rel.endswith(".python-version") and bare.match(text.strip()):
            return 2
        return 3 if _PIN_LINE.search(text) and bare.search(text) else None

    found = [
        (ranked, order, rel, number)
        for order, (rel, number, text, tox) in enumerate(_interpreter_lines(files))
        if (ranked := rank(rel, text, tox)) is not None
    ]
    return min(found)[2:] if found else None


def _interpreter_lines(files: dict[str, list[str]]) -> Iterator[tuple[str, int, str, bool]]:
    """Lines of the files that pin interpreters, tox's first; `tox`: the line is tox's or nox's.

    Only the tox sections of setup.cfg and pyproject.toml count as tox's: `target-version = ['py38']`
    of a formatter names a Python it formats for, not one the build runs.
    """
    ranked = sorted(
        (rel for rel in files if rel.rsplit("/", 1)[-1] in _INTERPRETER_FILES),
        key=lambda rel: _INTERPRETER_FILES.index(rel.rsplit("/", 1)[-1]),
    )
    for rel in ranked:
        shared = rel.endswith(("setup.cfg", "pyproject.toml"))
        tox = not shared
        for number, text in enumerate(files[rel], 1):
            if shared and text.lstrip().startswith("["):  # a section header: tox's or another tool's
                tox = bool(_TOX_SECTION.match(text))
            yield rel, number, text, tox


def _missing_here(error: BuildError, project: ProjectFiles) -> bool:
    """A missing-resource error naming, without a line, a file of the project that is not there."""
    if error.category != "resource_missing" or error.file is None or error.line is not None:
        return False
    local = Path(error.file)
    if local.is_absolute():
        if not local.is_relative_to(project.root):
            return False
        local = local.relative_to(project.root)
    return not project.is_file(str(local))


def _locate_build_cause(error: BuildError, files: dict[str, list[str]]) -> tuple[str, int] | None:
    message = error.message[:_MAX_SEARCHED]
    if found := _locate_interpreter(message, files):
        return found
    level = _JAVA_LEVEL.search(message)
    class_file = _CLASS_FILE.search(message)
    if level or class_file:
        # Class file major version N is Java N - 44 (65 -> 21).
        version = level.group(1) if level else str(int(class_file.group(1)) - 44)  # type: ignore[union-attr]
        # 8 and below are also written 1.8.
        written = rf"(?:(?<![\d.])|(?<![\d.])1\.){version}" if int(version) <= 8 else rf"(?<![\d.]){version}"
        for rel, lines in files.items():
            for number, text in enumerate(lines, 1):
                if re.search(rf"{written}(?![\d])", text) and _JAVA_LEVEL_LINE.search(text):
                    return rel, number
    # The project's own coordinate ("for project com.x:app:jar:1.0") is not the one to fix.
    coordinates = [
        c.groups() for c in _COORDINATE.finditer(message) if not message[: c.start()].endswith("project ")
    ]
    if coordinates:
        searches: list[tuple[list[str], str | None]] = [([a, v], None) for _g, a, v in coordinates]
        searches += [([version], f"<artifactId>{artifact}<") for _g, artifact, version in coordinates]
        # A version kept in a property (<kotlin.version>, ext.kotlin_version, libs.versions.toml).
        searches += [([version], None) for _g, _a, version in coordinates]
        searches += [([artifact], None) for _g, artifact, _v in coordinates]
        for wanted, near in searches:
            if found := _find(files, wanted, near):
                return found
    if package := _npm_package(message):
        return _locate_npm_dependency(*package, files)
    if pip := _PIP_SPEC.search(message):
        name = pip.group(1) or pip.group(3)
        version = pip.group(2)
        return (_find(files, [name, version]) if version else None) or _find(files, [name])
    for candidate in _ABS_PATH.findall(message):
        if len(candidate) > 4 and not os.path.exists(candidate):
            # A path that does not exist here: written into a build file, or a file the build reads.
            found = _find(files, [candidate])
            if found:
                return found
    for name in _FILE_NAME.findall(message):
        found = _find(files, [name])
        if found:
            return found
    return None


def _npm_package(message: str) -> tuple[str, str] | None:
    """The package (and range, "" when not given) an npm, pnpm or yarn error cannot have."""
    for pattern in _NPM_PACKAGE:
        if found := pattern.search(message):
            if "url" not in pattern.groupindex:
                return found["name"], (found["range"] or "").rstrip(".")
            # The registry's URL of the package or its tarball: `.../@a%2fb`, `.../x/-/x-9.0.0.tgz`.
            path = unquote(urlsplit(found["url"]).path).split("/-/", 1)[0].strip("/").split("/")
            return "/".join(path[-2:]) if len(path) >= 2 and path[-2].startswith("@") else path[-1], ""
    return None


def _locate_npm_dependency(name: str, spec: str, files: dict[str, list[str]]) -> tuple[str, int] | None:
    """The line declaring `name` in a dependency section of package.json, the one asking for `spec` first."""
    key = re.compile(rf'"{re.escape(name)}"\s*:')
    declared = [
        (rel, number, text)
        for rel, lines in files.items()
        if rel.rsplit("/", 1)[-1] == "package.json"
        for number, text in _npm_declarations(lines)
        if key.search(text)
    ]
    wanted = next((d for d in declared if spec and spec in d[2]), declared[0] if declared else None)
    return (wanted[0], wanted[1]) if wanted else None


def _npm_declarations(lines: list[str]) -> Iterator[tuple[int, str]]:
    """The lines of package.json inside its dependency sections (`_NPM_SECTIONS`), numbered from 1."""
    depth = 0
    section = False
    for number, text in enumerate(lines, 1):
        if depth == 1 and (opened := re.match(r'\s*"([^"]+)"\s*:\s*\{', text)):
            section = opened[1] in _NPM_SECTIONS
        if section:
            yield number, text
        code = _JSON_STRING.sub('""', text)  # braces inside names and values do not count
        depth += code.count("{") - code.count("}")
        if depth <= 1:
            section = False


def _project_files(project: ProjectFiles) -> Iterator[str]:
    return islice(project.files(lambda name: name in _SKIP_DIRS), _MAX_WALK)


def _map_onto_project(path: str, index: list[str]) -> str | None:
    """The project file with the longest common path suffix with `path` (at least the file name)."""
    parts = path.replace("\\", "/").split("/")
    for start in range(len(parts) - 1):  # longest suffix first; never the bare file name alone
        suffix = "/".join(parts[start:])
        matches = [p for p in index if p == suffix or p.endswith("/" + suffix)]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            return None
    matches = [p for p in index if p.rsplit("/", 1)[-1] == parts[-1]]
    return matches[0] if len(matches) == 1 else None


def locate_in_project(errors: list[BuildError], project: ProjectFiles) -> None:
    """Fill in or correct the file and line of errors using the project's files (in place).

    Files end up relative to the project when they are in it. `project` reads them
    (`core.confined.WorkspaceFiles` for a workspace): nothing here opens a file.
    """
    root = project.root
    files = {rel: _lines(project, rel) for rel in build_files(project)}  # read once, searched many times
    index: list[str] | None = None
    for error in errors:
        # A feature above the level: the code that uses it is where it showed, the level's declaration
        # is the cause.
        level_low = error.category == "configuration" and _LEVEL_TOO_LOW.search(error.message)
        if level_low and (found := _locate_build_cause(error, files)):
            error.file, error.line = found
            continue
        # Parsers name pyproject.toml; the range may be declared in setup.cfg or setup.py.
        if (
            error.line is None
            and error.category == "configuration"
            and _PYTHON_RANGE.search(error.message)
            and (found := _locate_python_range(error, files))
        ):
            error.file, error.line = found
            continue
        if error.file is None or _missing_here(error, project):
            # A file the build needs and the project lacks: where a build file names it is the
            # place to fix (or to see what to create); with no such line the named file stays.
            found = _locate_path_property(error.message, project) or _locate_build_cause(error, files)
            if found:
                error.file, error.line = found
            if found or error.file is None:
                continue
        local = Path(error.file)
        if local.is_absolute() and local.is_relative_to(root):
            error.file = str(local.relative_to(root))  # portable across workspaces
            continue
        if not local.is_absolute() and project.is_file(error.file):
            continue
        if not local.is_absolute() and error.category == "resource_missing" and error.line is None:
            continue  # the missing file itself, as the project refers to it: not another one of its name
        if index is None:
            index = list(_project_files(project))
        mapped = _map_onto_project(error.file, index)
        if mapped:
            error.file = mapped
