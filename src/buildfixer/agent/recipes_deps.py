"""Dependency recipes of the `recipes` policy: a version that does not exist, an undeclared dependency.

See `buildfixer.agent.recipes` for the policy; these two recipes use `build.deps` to plan the
build-file edits, `build.registry` for the versions that exist and `build.package_index` for
which artifact provides an imported package.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from buildfixer.agent.recipes import Evidence, Repair, edit_calls
from buildfixer.build import deps
from buildfixer.build.registry import available_versions, nearest_version

JVM = ("gradle", "maven")
_COORD = r"([\w.-]+):([\w.-]+)"
_MISSING_JVM = [
    re.compile(rf"Could not find {_COORD}:([\w.+-]+?)\.?(?:\s|$|\))"),  # Gradle
    re.compile(rf"Could not find artifact {_COORD}:[\w-]+(?::[\w.-]+)?:([\w.+-]+)"),  # Maven
    re.compile(rf"Failure to find {_COORD}:[\w-]+(?::[\w.-]+)?:([\w.+-]+)"),
    re.compile(rf"{_COORD}:(?:jar|pom|aar|war|bundle|maven-plugin)(?::[\w.-]+)?:([\w.+-]+) was not found"),
    re.compile(rf"Plugin {_COORD}:([\w.+-]+) or one of its dependencies could not be resolved"),
]
_MISSING_PLUGIN = re.compile(r"Plugin \[id: '([\w.-]+)', version: '([^']+)'")
_MISSING_PIP = [
    re.compile(
        r"No matching distribution found for ([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?"
        r"\s*(?:===|==|~=|>=|>)\s*([\w.+!-]+)"
    ),
    re.compile(
        r"Could not find a version that satisfies the requirement ([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?"
        r"\s*(?:===|==|~=|>=|>)\s*([\w.+!-]+)"
    ),
]
_PIP_LISTED = re.compile(r"\(from versions: ([^)]*)\)")
_MISSING_NPM = re.compile(r"No matching version found for (@?[\w.-]+(?:/[\w.-]+)?)@(\S+?)\.?(?:\s|$)")


def _repositories(project: Path) -> list[str]:
    """Extra Maven repositories the build files declare (JitPack, a company's)."""
    urls: list[str] = []
    for path in deps.walk_files(project, ["build.gradle", "build.gradle.kts", "settings.gradle", "pom.xml"]):
        text = deps.read(path)
        urls += re.findall(
            r"maven\s*[({]\s*(?:url\s*[=(]?\s*)?(?:uri\()?\s*['\"](https?://[^'\"]+)['\"]", text
        )
        blocks = re.findall(r"<(?:pluginR|r)epository>(.*?)</(?:pluginR|r)epository>", text, re.DOTALL)
        urls += [u for block in blocks for u in re.findall(r"<url>\s*(https?://[^<\s]+)\s*</url>", block)]
    return list(dict.fromkeys(urls))


def _lock_version(project: Path, name: str) -> str | None:
    """The version package-lock.json resolved for a package."""
    try:
        lock = json.loads((project / "package-lock.json").read_text())
    except (OSError, ValueError):
        return None
    entry = lock.get("packages", {}).get(f"node_modules/{name}") or lock.get("dependencies", {}).get(name)
    version = entry.get("version") if isinstance(entry, dict) else None
    return str(version) if version else None


def _candidates(ev: Evidence) -> list[tuple[str, str, str, str]]:
    """(system, declared name, registry name, requested version) of every missing version named."""
    found: list[tuple[str, str, str, str]] = []
    if ev.system in JVM:
        for pattern in _MISSING_JVM:
            for match in pattern.finditer(ev.text):
                name = f"{match.group(1)}:{match.group(2)}"
                found.append((ev.system, name, name, match.group(3)))
        for match in _MISSING_PLUGIN.finditer(ev.text):
            plugin = match.group(1)
            found.append((ev.system, plugin, f"{plugin}:{plugin}.gradle.plugin", match.group(2)))
    elif ev.system == "python":
        for pattern in _MISSING_PIP:
            found += [("python", m.group(1), m.group(1), m.group(2)) for m in pattern.finditer(ev.text)]
    elif ev.system == "npm":
        found += [("npm", m.group(1), m.group(1), m.group(2)) for m in _MISSING_NPM.finditer(ev.text)]
    return list(dict.fromkeys(found))


def missing_version(ev: Evidence) -> Repair | None:
    """Recipe 4: a declared version that does not exist -> the nearest published one."""
    for system, name, registry_name, requested in _candidates(ev):
        declared = [d for d in deps.find_declaration(ev.project, name) if d.version == requested]
        if not declared:
            continue  # a transitive dependency, or a version spelled another way: not ours to edit
        repos = _repositories(ev.project) if system in JVM else []
        available = set(available_versions(system, registry_name, ev.options, repos))
        if system == "python" and (listed := _PIP_LISTED.search(ev.text)):
            available |= {v.strip() for v in listed.group(1).split(",") if v.strip() and v.strip() != "none"}
        # The lockfile's version was resolved once, so it exists; it also keeps `npm ci` consistent.
        locked = _lock_version(ev.project, name) if system == "npm" else None
        if locked and locked != requested:
            available.add(locked)
        if requested in available or not available:
            continue  # it exists (the failure is something else), or nothing is known about it
        chosen = nearest_version(requested, available, python=system == "python")
        if locked and locked != requested and chosen and locked.split(".")[0] == chosen.split(".")[0]:
            chosen = locked
        if chosen is None:
            continue
        edits = deps.set_version(ev.project, name, chosen, only_version=requested)
        if not edits:
            continue
        where = ", ".join(sorted({e.file for e in edits}))
        summary = (
            f"{name} {requested} does not exist; ask for {chosen}, the nearest published version ({where})."
        )
        return Repair("missing-version", summary, edit_calls(edits))
    return None


# --- undeclared dependencies -----------------------------------------------------------------

_JAVA_PACKAGE = re.compile(r"package ([a-zA-Z_][\w]*(?:\.[a-zA-Z_]\w*)+) does not exist")
_UNRESOLVED = re.compile(r"Unresolved reference:? '?(\w+)'?|cannot find symbol")
_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?\s*(?:;|\s+as\s+\w+)?\s*$")
_PY_MODULE = re.compile(r"No module named '([\w.]+)'")
_NPM_MODULE = re.compile(r"Cannot find module '([^']+)'")
# Modules whose distribution is named differently (checked on PyPI's side long ago; no guessing).
_PY_ALIASES = {
    "yaml": "PyYAML", "PIL": "Pillow", "cv2": "opencv-python", "sklearn": "scikit-learn",
    "skimage": "scikit-image", "bs4": "beautifulsoup4", "dateutil": "python-dateutil",
    "dotenv": "python-dotenv", "jwt": "PyJWT", "Crypto": "pycryptodome", "OpenSSL": "pyOpenSSL",
    "attr": "attrs", "serial": "pyserial", "git": "GitPython", "zmq": "pyzmq", "docx": "python-docx",
    "magic": "python-magic", "MySQLdb": "mysqlclient", "google.protobuf": "protobuf",
    "jose": "python-jose", "multipart": "python-multipart", "Levenshtein": "python-Levenshtein",
}  # fmt: skip
# Missing in a build backend's environment, not the project's: a build-system requirement.
_BUILD_TOOLS = {"setuptools", "pkg_resources", "distutils", "wheel", "pip", "_distutils_hack"}
_NODE_BUILTINS = {
    "assert", "buffer", "child_process", "cluster", "console", "constants", "crypto", "dgram", "dns",
    "diagnostics_channel", "domain", "events", "fs", "http", "http2", "https", "inspector", "module", "net",
    "os", "path", "perf_hooks", "process", "punycode", "querystring", "readline", "repl", "stream",
    "string_decoder", "sys", "timers", "tls", "trace_events", "tty", "url", "util", "v8", "vm", "wasi",
    "worker_threads", "zlib",
}  # fmt: skip


def _is_test(path: str | None) -> bool:
    parts = (path or "").replace("\\", "/").split("/")
    name = parts[-1] if parts else ""
    return (
        any(p in ("test", "tests", "androidTest", "testFixtures", "__tests__") for p in parts[:-1])
        or name.startswith("test_")
        or name.endswith(("_test.py", "Test.java", "Test.kt", ".test.ts", ".test.js", ".spec.ts", ".spec.js"))
        or name == "conftest.py"
    )


def _module_dir(ev: Evidence, source: Path | None, markers: tuple[str, ...]) -> str:
    """The directory of the module owning a source file: its nearest build-file ancestor."""
    directory = source.parent if source else ev.project
    while directory.is_relative_to(ev.project):
        if any((directory / m).is_file() for m in markers):
            return directory.relative_to(ev.project).as_posix() if directory != ev.project else ""
        directory = directory.parent
    return ""


def _project_has_package(project: Path, package: str) -> bool:
    """Whether the project's own sources define a package (a module dependency, not a library)."""
    tail = "/" + package.replace(".", "/")
    for dirpath, dirs, _files in os.walk(project):
        if Path(dirpath).as_posix().endswith(tail):
            return True
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in deps.SKIP_DIRS]
    return False


def _jvm_packages(ev: Evidence) -> list[tuple[list[str], str | None]]:
    """(candidate packages, source file) for every unresolvable import."""
    found: list[tuple[list[str], str | None]] = []
    for error, match in ev.errors_matching(_JAVA_PACKAGE):
        package = match.group(1)
        parent = package.rsplit(".", 1)[0]
        found.append(([package, parent] if package.split(".")[-1][:1].isupper() else [package], error.file))
    for error, _match in ev.errors_matching(_UNRESOLVED):
        source = ev.source(error.file)
        if source is None or error.line is None:
            continue
        lines = deps.read(source).splitlines()
        line = lines[error.line - 1] if 0 < error.line <= len(lines) else ""
        imported = _IMPORT.match(line)
        if imported:  # org.apache.commons.lang3.StringUtils: try the longest known package
            parts = imported.group(1).split(".")
            found.append(([".".join(parts[:n]) for n in range(len(parts), 1, -1)], error.file))
    return found


def _jvm_dependency(ev: Evidence) -> Repair | None:
    from buildfixer.build.package_index import artifact_for_package

    for packages, file in _jvm_packages(ev):
        if any(_project_has_package(ev.project, p) for p in packages[:2]):
            continue
        found = next(((p, a) for p in packages if (a := artifact_for_package(p, ev.options))), None)
        if found is None:
            continue
        package, artifact = found
        name = f"{artifact.group}:{artifact.artifact}"
        if deps.find_declaration(ev.project, name):
            continue  # declared (another scope or module): adding a copy is not the fix
        source = ev.source(file)
        module = _module_dir(ev, source, ("build.gradle", "build.gradle.kts", "pom.xml"))
        edit = deps.add_dependency(ev.project, ev.system, name, artifact.version, _is_test(file), module)
        if edit is None:
            continue
        summary = f"{file} imports {package}, provided by {artifact.coordinate}: declare it in {edit.file}."
        return Repair("undeclared-dependency", summary, edit_calls([edit]))
    return None


def _python_dependency(ev: Evidence) -> Repair | None:
    from buildfixer.build.package_index import distribution_for_module

    for error, match in ev.errors_matching(_PY_MODULE):
        module = match.group(1)
        top = module.split(".")[0]
        if (
            top in sys.stdlib_module_names
            or top in _BUILD_TOOLS
            or any(
                (base / top).is_dir() or (base / f"{top}.py").is_file()
                for base in (ev.project, ev.project / "src")
            )
        ):
            continue  # the standard library or the project's own code: not a missing dependency
        dist = distribution_for_module(module, ev.options)
        dist = dist or _PY_ALIASES.get(".".join(module.split(".")[:2])) or _PY_ALIASES.get(top)
        if dist is None or deps.find_declaration(ev.project, dist):
            continue
        edit = deps.add_dependency(ev.project, "python", dist, None, _is_test(error.file))
        if edit is None:
            continue
        summary = (
            f"`import {module}` needs the distribution {dist}, which is not declared: add it to {edit.file}."
        )
        return Repair("undeclared-dependency", summary, edit_calls([edit]))
    return None


def _npm_dependency(ev: Evidence) -> Repair | None:
    from buildfixer.build.registry import newest_version, npm_cached_packages

    if any((ev.project / lock).is_file() for lock in ("package-lock.json", "npm-shrinkwrap.json")):
        return None  # `npm ci` refuses a package.json that disagrees with its lockfile
    for error, match in ev.errors_matching(_NPM_MODULE):
        spec = match.group(1)
        if spec.startswith((".", "/", "node:")) or spec.split("/")[0] in _NODE_BUILTINS:
            continue
        parts = spec.split("/")
        name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
        versions = npm_cached_packages(ev.options).get(name)
        version = newest_version(versions or [])
        if version is None or deps.find_declaration(ev.project, name):
            continue
        edit = deps.add_dependency(ev.project, "npm", name, version, _is_test(error.file))
        if edit is None:
            continue
        summary = (
            f"{error.file or 'the code'} requires {name}, which package.json does not declare: add {version}."
        )
        return Repair("undeclared-dependency", summary, edit_calls([edit]))
    return None


def undeclared_dependency(ev: Evidence) -> Repair | None:
    """Recipe 5: code imports what no declaration provides, and a local cache has it -> declare it."""
    if ev.system in JVM:
        return _jvm_dependency(ev)
    if ev.system == "python":
        return _python_dependency(ev)
    if ev.system == "npm":
        return _npm_dependency(ev)
    return None
