"""The "undeclared dependency" recipe: add a dependency whose package is found in local caches.

See `buildfixer.agent.recipes` for the policy; `build.deps` plans the build-file edits and
`build.package_index` says which artifact provides an imported package.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from buildfixer.agent.recipes import Evidence, Repair, edit_calls
from buildfixer.agent.recipes_versions import JVM, raw_version
from buildfixer.build import deps

if TYPE_CHECKING:
    from buildfixer.build.package_index import Artifact

_JAVA_PACKAGE = re.compile(r"package ([a-zA-Z_][\w]*(?:\.[a-zA-Z_]\w*)+) does not exist")
_UNRESOLVED = re.compile(r"Unresolved reference:? '?(\w+)'?|cannot find symbol")
_IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?\s*(?:;|\s+as\s+\w+)?\s*$")
_PY_MODULE = re.compile(r"No module named '([\w.]+)'")
_NPM_MODULE = [
    re.compile(r"Cannot find module '([^']+)'"),
    re.compile(r"Cannot find package '([^']+)' imported from (\S+)"),  # Node's ESM loader
    re.compile(r"Module not found: Error: Can't resolve '([^']+)' in '([^']+?)/?'"),  # webpack: a dir
]
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
_NPM_LOCKS = (
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "bun.lockb",
    "bun.lock",
)
_JVM_BUILD_FILES = ("build.gradle", "build.gradle.kts", "pom.xml")


def _relative(ev: Evidence, path: str | None) -> str:
    """A path an error names, relative to the project when it lies inside (else as given)."""
    if not path:
        return ""
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            return candidate.resolve().relative_to(ev.project).as_posix()
        except (ValueError, OSError):
            return path
    return path


def _is_test(path: str | None) -> bool:
    """Whether a project-relative path is test code.

    Give it `_relative`'s answer: the project's own location (/home/me/tests/app) must not make
    every file a test.
    """
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


def _in_named_module(ev: Evidence, source: Path | None) -> bool:
    """Whether a source file belongs to a JPMS module (a module-info.java above it in its module)."""
    if source is None:
        return False
    directory = source.parent
    while directory.is_relative_to(ev.project) and directory != ev.project:
        if (directory / "module-info.java").is_file():
            return True
        if any((directory / m).is_file() for m in _JVM_BUILD_FILES):
            return False
        directory = directory.parent
    return False


@dataclass(frozen=True)
class _Import:
    """An import the compiler could not resolve: packages to try (longest first), its class, its file."""

    packages: tuple[str, ...]
    class_name: str | None
    file: str | None


def _import_of(ev: Evidence, file: str | None, line_no: int | None) -> str | None:
    source = ev.source(file)
    if source is None or line_no is None:
        return None
    lines = deps.read(source).splitlines()
    imported = _IMPORT.match(lines[line_no - 1]) if 0 < line_no <= len(lines) else None
    return imported.group(1) if imported else None


def _from_import(name: str, file: str | None) -> _Import:
    """org.hamcrest.Matchers.containsString -> package org.hamcrest, class org.hamcrest.Matchers."""
    parts = name.split(".")
    first_class = next((i for i, p in enumerate(parts) if p[:1].isupper()), None)
    if first_class is not None and first_class >= 2:
        package = ".".join(parts[:first_class])
        return _Import((package,), ".".join(parts[: first_class + 1]), file)
    # No class named (a package import, a Kotlin top-level function): the longest known package.
    return _Import(tuple(".".join(parts[:n]) for n in range(len(parts), 1, -1)), None, file)


def _jvm_imports(ev: Evidence) -> list[_Import]:
    """Every unresolvable import, once."""
    found: list[_Import] = []
    for error, match in ev.errors_matching(_JAVA_PACKAGE):
        imported = _import_of(ev, error.file, error.line)
        if imported is not None and imported.startswith(match.group(1) + "."):
            found.append(_from_import(imported, error.file))
            continue
        package = match.group(1)
        parent = package.rsplit(".", 1)[0]
        packages = (package, parent) if package.split(".")[-1][:1].isupper() else (package,)
        found.append(_Import(packages, None, error.file))
    for error, _match in ev.errors_matching(_UNRESOLVED):
        imported = _import_of(ev, error.file, error.line)
        if imported is not None:
            found.append(_from_import(imported, error.file))
    return list(dict.fromkeys(found))


def _visible_from(ev: Evidence, decl: deps.Declaration, module: str) -> bool:
    """Whether a declaration's version variable is defined where `module`'s build file sees it.

    That is the root build file, gradle.properties, a Maven parent (an ancestor directory) or
    the module itself.
    """
    where = decl.version_file
    if where is None:
        return False
    directory = Path(where).parent.as_posix()
    directory = "" if directory == "." else directory
    return directory == "" or directory == module or module.startswith(directory + "/")


def _jvm_version(
    ev: Evidence, name: str, module: str, decls: list[deps.Declaration], cached: list[Artifact]
) -> tuple[str | None, str]:
    """The version to declare in `module` (None: a dependencyManagement or BOM gives it) and why."""
    if ev.system == "maven" and any(d.managed and d.kind == "maven" for d in decls):
        return None, "its version is managed"
    if any(
        d.version is None and raw_version(d) is None and not d.managed and d.kind in ("maven", "gradle")
        for d in decls
    ):
        # Another module declares it without a version: a BOM, a parent or a platform gives it.
        return None, "its version is managed, as where it is declared already"
    for decl in decls:  # declared by another module: the same version, through the same property
        raw = raw_version(decl)
        if decl.managed or decl.version is None or raw is None:
            continue
        # A Kotlin script sees another script's variable only through `by project`: the literal.
        kts = any((ev.project / module / f).is_file() for f in ("build.gradle.kts",))
        if "$" in raw and not kts and _visible_from(ev, decl, module):
            return raw, f"as {decl.file} does"
        return decl.version, f"as {decl.file} does"
    # The version other artifacts of its group are declared at (jackson-core 2.16.1 -> databind 2.16.1).
    group = name.split(":")[0]
    versions = {a.version for a in cached}
    for other in deps.declared_jvm_names(ev.project):
        if other.split(":")[0] != group or other == name:
            continue
        for decl in deps.find_declaration(ev.project, other):
            if decl.version in versions:
                return decl.version, f"the version of {other}"
    from buildfixer.build.registry import is_prerelease, version_key

    releases = [v for v in versions if not is_prerelease(v)] or list(versions)
    return max(releases, key=version_key), "its newest cached release"


def _covers_module(ev: Evidence, decl: deps.Declaration, module_file: str) -> bool:
    """Whether a declaration applies to the module: in its own build file, or a root block for all."""
    if decl.managed:
        return False
    if decl.file == module_file:
        return True
    text = deps.read(ev.project / decl.file)
    root_file = "/" not in decl.file and decl.file in ("build.gradle", "build.gradle.kts")
    return root_file and re.search(r"\b(?:subprojects|allprojects)\s*\{", text) is not None


def _jvm_dependency(ev: Evidence) -> Repair | None:
    from buildfixer.build.package_index import artifact_for_package, jvm_index

    notes: list[str] = []
    planned: set[tuple[str, str]] = set()
    with deps.staged(ev.project) as stage:
        for imp in _jvm_imports(ev):
            if any(_project_has_package(ev.project, p) for p in imp.packages[:2]):
                continue  # the project's own code (another module): not a library
            source = ev.source(imp.file)
            rel_file = _relative(ev, imp.file)
            test = _is_test(rel_file)
            if not test and _in_named_module(ev, source):
                continue  # a JPMS module also needs `requires` in module-info.java: source code, not ours
            found = next(
                ((p, a) for p in imp.packages if (a := artifact_for_package(p, ev.options, imp.class_name))),
                None,
            )
            if found is None:
                continue
            package, artifact = found
            name = f"{artifact.group}:{artifact.artifact}"
            module = _module_dir(ev, source, _JVM_BUILD_FILES)
            base = ev.project / module if module else ev.project
            module_file = next(
                (f"{module}/{f}".lstrip("/") for f in _JVM_BUILD_FILES if (base / f).is_file()), None
            )
            if module_file is None or (name, module) in planned:
                continue
            decls = deps.find_declaration(ev.project, name)
            if any(_covers_module(ev, d, module_file) for d in decls):
                continue  # declared for this module (another scope?): adding a copy is not the fix
            cached = [a for a in jvm_index(ev.options).get(package, []) if a.artifact == artifact.artifact]
            cached = [a for a in cached if a.group == artifact.group] or [artifact]
            version, why = _jvm_version(ev, name, module, decls, cached)
            edit = deps.add_dependency(ev.project, ev.system, name, version, test, module)
            if edit is None or not stage.add([edit]):
                continue
            planned.add((name, module))
            shown = f"{name}:{version}" if version else name
            notes.append(
                f"{rel_file or 'the code'} imports {package}, provided by {shown} ({why}): "
                f"declare it in {edit.file}"
            )
        edits = stage.edits()
    if not edits:
        return None
    return Repair("undeclared-dependency", "; ".join(notes) + ".", edit_calls(edits))


def _own_module(project: Path, top: str) -> bool:
    """Whether the project has a module or package of this name anywhere (tests/helpers.py, lib/x/)."""
    for dirpath, dirs, files in os.walk(project):
        if f"{top}.py" in files or (top in dirs and (Path(dirpath) / top / "__init__.py").is_file()):
            return True
        if Path(dirpath) in (project, project / "src") and top in dirs:
            return True  # a namespace package at the usual places
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in deps.SKIP_DIRS]
    return False


def _python_dependency(ev: Evidence) -> Repair | None:
    from buildfixer.build.package_index import distribution_for_module

    notes: list[str] = []
    with deps.staged(ev.project) as stage:
        seen: set[str] = set()
        for error, match in ev.errors_matching(_PY_MODULE):
            module = match.group(1)
            top = module.split(".")[0]
            if (
                top in seen
                or top in sys.stdlib_module_names
                or top in _BUILD_TOOLS
                or _own_module(ev.project, top)
            ):
                continue  # the standard library or the project's own code: not a missing dependency
            seen.add(top)
            dist = distribution_for_module(module, ev.options)
            dist = dist or _PY_ALIASES.get(".".join(module.split(".")[:2])) or _PY_ALIASES.get(top)
            if dist is None or deps.find_declaration(ev.project, dist):
                continue
            test = _is_test(_relative(ev, error.file))
            edit = deps.add_dependency(ev.project, "python", dist, None, test)
            if edit is None or not stage.add([edit]):
                continue
            notes.append(
                f"`import {module}` needs the distribution {dist}, which is not declared: "
                f"add it to {edit.file}"
            )
        edits = stage.edits()
    if not edits:
        return None
    return Repair("undeclared-dependency", "; ".join(notes) + ".", edit_calls(edits))


def _importer(match: re.Match[str]) -> str | None:
    """The importing file a module-not-found message names (webpack names its directory)."""
    if (match.re.groups or 0) < 2:
        return None
    where = match.group(2)
    return f"{where}/index.js" if "Can't resolve" in match.re.pattern else where


def _npm_missing(ev: Evidence) -> list[tuple[str, str | None]]:
    """(module specifier, importing file) of every module Node, a test runner or a bundler could not find."""
    found: list[tuple[str, str | None]] = []
    for pattern in _NPM_MODULE:
        for error, match in ev.errors_matching(pattern):
            found.append((match.group(1), _importer(match) or error.file))
        for match in pattern.finditer(ev.log):  # test runners often leave it to the log only
            found.append((match.group(1), _importer(match)))
    by_spec: dict[str, str | None] = {}
    for spec, file in found:
        by_spec[spec] = by_spec.get(spec) or file
    return list(by_spec.items())


def _npm_dependency(ev: Evidence) -> Repair | None:
    from buildfixer.build.registry import newest_version, npm_cached_packages

    if any((ev.project / lock).is_file() for lock in _NPM_LOCKS):
        return None  # `npm ci` (pnpm, yarn: a frozen lockfile) refuses a package.json that disagrees
    notes: list[str] = []
    with deps.staged(ev.project) as stage:
        seen: set[str] = set()
        for spec, file in _npm_missing(ev):
            if spec.startswith((".", "/", "node:", "#", "~", "@/")) or spec.split("/")[0] in _NODE_BUILTINS:
                continue
            parts = spec.split("/")
            name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
            if name in seen:
                continue
            seen.add(name)
            versions = npm_cached_packages(ev.options).get(name)
            version = newest_version(versions or [])
            if version is None or deps.find_declaration(ev.project, name):
                continue
            rel_file = _relative(ev, file)
            edit = deps.add_dependency(ev.project, "npm", name, version, _is_test(rel_file))
            if edit is None or not stage.add([edit]):
                continue
            notes.append(
                f"{rel_file or 'the code'} requires {name}, which package.json does not declare: "
                f"add {version}"
            )
        edits = stage.edits()
    if not edits:
        return None
    return Repair("undeclared-dependency", "; ".join(notes) + ".", edit_calls(edits))


def undeclared_dependency(ev: Evidence) -> Repair | None:
    """Recipe 5: code imports what no declaration provides, and a local cache has it -> declare it."""
    if ev.system in JVM:
        return _jvm_dependency(ev)
    if ev.system == "python":
        return _python_dependency(ev)
    if ev.system == "npm":
        return _npm_dependency(ev)
    return None
