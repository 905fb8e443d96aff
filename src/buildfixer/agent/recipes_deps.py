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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from buildfixer.agent.recipes import Evidence, Repair, edit_calls
from buildfixer.build import deps
from buildfixer.build.package_index import normalize_dist
from buildfixer.build.registry import available_versions, nearest_version

if TYPE_CHECKING:
    from buildfixer.build.package_index import Artifact

JVM = ("gradle", "maven")
_COORD = r"([\w.-]+):([\w.-]+)"
_MISSING_JVM = [
    re.compile(rf"Could not find {_COORD}:([\w.+-]+?)\.?(?:\s|$|\))"),  # Gradle
    re.compile(rf"Could not find artifact {_COORD}:[\w-]+(?::[\w.-]+)?:([\w.+-]+)"),  # Maven
    re.compile(rf"Failure to find {_COORD}:[\w-]+(?::[\w.-]+)?:([\w.+-]+)"),
    re.compile(rf"{_COORD}:(?:jar|pom|aar|war|bundle|maven-plugin)(?::[\w.-]+)?:([\w.+-]+) was not found"),
    re.compile(rf"Plugin {_COORD}:([\w.+-]+) or one of its dependencies could not be resolved"),
]
# Maven 3.8+ names every artifact of a module at once; each is checked against the registries.
_MAVEN_UNRESOLVED = re.compile(
    r"The following artifacts could not be resolved: ((?:[\w.-]+(?::[\w.+-]+){3,4}(?:, )?)+)"
)
_MAVEN_ITEM = re.compile(r"([\w.-]+):([\w.-]+):[\w-]+(?::[\w.-]+)?:([\w.+-]+)$")
_MISSING_PLUGIN = re.compile(r"Plugin \[id: '([\w.-]+)', version: '([^']+)'")
_PIP_SPEC = r"((?:\s*(?:===|==|~=|>=|<=|!=|<|>)\s*[\w.*+!-]+\s*,?)+)"
_PIP_NAME = r"([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?"
_MISSING_PIP = [
    re.compile(rf"No matching distribution found for {_PIP_NAME}{_PIP_SPEC}"),
    re.compile(rf"Could not find a version that satisfies the requirement {_PIP_NAME}{_PIP_SPEC}"),
]
_PIP_LISTED = re.compile(r"\(from versions: ([^)]*)\)")
_MISSING_NPM = [
    re.compile(r"No matching version found for (@?[\w.-]+(?:/[\w.-]+)?)@(\S+?)\.?(?:\s|$)"),
    re.compile(
        r"Couldn't find any versions for \"(@?[\w.-]+(?:/[\w.-]+)?)\" that matches \"([^\"]+)\""
    ),  # yarn
]
# A simple npm range around one version: ^1.2.3, ~1.2.3, >=1.2.3, =1.2.3, v1.2.3, 1.2.3.
_NPM_SIMPLE = re.compile(r"(?:\^|~|>=|=)?v?(\d+(?:\.\d+)*(?:-[\w.]+)?)")


def _pip_lower_bound(spec: str) -> str | None:
    """The version a pip specifier asks for at least: `==2.1`, `>=2.1,<3` and `~=2.1` give 2.1."""
    found = re.findall(r"(===|==|~=|>=|>)\s*([\w.+!-]+)", spec)
    versions = {v for _op, v in found if "*" not in v}
    return versions.pop() if len(versions) == 1 else None


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
        for match in _MAVEN_UNRESOLVED.finditer(ev.text):
            for item in match.group(1).split(", "):
                if found_item := _MAVEN_ITEM.match(item.strip()):
                    name = f"{found_item.group(1)}:{found_item.group(2)}"
                    found.append((ev.system, name, name, found_item.group(3)))
        for match in _MISSING_PLUGIN.finditer(ev.text):
            plugin = match.group(1)
            found.append((ev.system, plugin, f"{plugin}:{plugin}.gradle.plugin", match.group(2)))
    elif ev.system == "python":
        for pattern in _MISSING_PIP:
            for m in pattern.finditer(ev.text):
                if (version := _pip_lower_bound(m.group(2))) is not None:
                    found.append(("python", m.group(1), m.group(1), version))
    elif ev.system == "npm":
        for pattern in _MISSING_NPM:
            for m in pattern.finditer(ev.text):
                simple = _NPM_SIMPLE.fullmatch(m.group(2).strip())
                if simple:  # a complex range (1.x, >=1 <2, a tag) is not one missing version
                    found.append(("npm", m.group(1), m.group(1), simple.group(1)))
    # A -SNAPSHOT is an unpublished build (often the project's own module): never ours to move.
    return [c for c in dict.fromkeys(found) if "SNAPSHOT" not in c[3].upper()]


def _known_versions(ev: Evidence, system: str, registry_name: str, repos: list[str]) -> set[str]:
    known = set(available_versions(system, registry_name, ev.options, repos))
    if system == "python":  # pip lists what exists on the line naming the requirement
        wanted = normalize_dist(registry_name)
        for line in ev.text.splitlines():
            listed = _PIP_LISTED.search(line)
            named = re.search(r"satisfies the requirement ([A-Za-z0-9][\w.-]*)", line)
            if listed and named and normalize_dist(named.group(1)) == wanted:
                known |= {
                    v.strip() for v in listed.group(1).split(",") if v.strip() not in ("", "none", "...")
                }
    return known


_JVM_KINDS = ("gradle", "gradle-plugin", "catalog", "maven", "maven-plugin")


def _uses(text: str, name: str, raw: str) -> bool:
    """Whether a build file declares `name` with the version written `raw` ("${jackson.version}")."""
    group, _, artifact = name.partition(":")
    g, a, v = re.escape(group), re.escape(artifact), re.escape(raw)
    maven = rf"<artifactId>\s*{a}\s*</artifactId>(?:(?!</dependency>|</plugin>).)*?<version>\s*{v}\s*<"
    return bool(re.search(rf"['\"]{g}:{a}:{v}", text) or re.search(maven, text, re.DOTALL))


def _sharing(ev: Evidence, decl: deps.Declaration, name: str) -> list[str]:
    """Other dependencies whose version is the same literal (one property, one catalog entry)."""
    if decl.version_file is None or decl.kind not in _JVM_KINDS:
        return []
    if decl.version_file == decl.file and decl.version is not None and decl.version in decl.text:
        return []  # written in the declaration itself
    others = [n for n in deps.declared_jvm_names(ev.project) if n != name]
    raw = _raw_version(decl)
    if raw is not None and "$" in raw:  # only the files that use the same variable can share it
        files = deps.walk_files(ev.project, ("pom.xml", "*.gradle", "*.gradle.kts"))
        texts = [text for text in (deps.read(f) for f in files) if raw in text]
        others = [n for n in others if any(_uses(text, n, raw) for text in texts)]
    return [
        other
        for other in others
        if any(
            (d.version_file, d.version_start) == (decl.version_file, decl.version_start)
            for d in deps.find_declaration(ev.project, other)
        )
    ]


def _version_plan(
    ev: Evidence, system: str, name: str, registry_name: str, requested: str
) -> tuple[str, list[deps.Edit]] | None:
    """The version to ask for instead of a missing one, and the edits; None to decline."""
    declared = [d for d in deps.find_declaration(ev.project, name) if d.version == requested]
    if not declared:
        return None  # a transitive dependency, or a version spelled another way: not ours to edit
    repos = deps.declared_repositories(ev.project) if system in JVM else []
    available = _known_versions(ev, system, registry_name, repos)
    # The lockfile's version was resolved once, so it exists; it also keeps `npm ci` consistent.
    locked = _lock_version(ev.project, name) if system == "npm" else None
    if locked and locked != requested:
        available.add(locked)
    if requested in available or not available:
        return None  # it exists (the failure is something else), or nothing is known about it
    # A version shared through a property must exist for every dependency using it.
    for other in _sharing(ev, declared[0], name) if system in JVM else []:
        theirs = set(available_versions(system, other, ev.options, repos))
        if theirs:
            available &= theirs
    chosen = nearest_version(requested, available, python=system == "python")
    if locked and locked != requested and chosen and locked.split(".")[0] == chosen.split(".")[0]:
        chosen = locked
    if chosen is None:
        return None
    edits = deps.set_version(ev.project, name, chosen, only_version=requested)
    return (chosen, edits) if edits else None


def missing_version(ev: Evidence) -> Repair | None:
    """Recipe 4: declared versions that do not exist -> the nearest published ones (all in one repair)."""
    done: list[str] = []
    with deps.staged(ev.project) as stage:
        for system, name, registry_name, requested in _candidates(ev):
            plan = _version_plan(ev, system, name, registry_name, requested)
            if plan is not None and stage.add(plan[1]):
                done.append(f"{name} {requested} does not exist; ask for {plan[0]}")
        edits = stage.edits()
    if not edits:
        return None
    where = ", ".join(sorted({e.file for e in edits}))
    summary = f"{'; '.join(done)}, the nearest published version ({where})."
    return Repair("missing-version", summary, edit_calls(edits))


# --- undeclared dependencies -----------------------------------------------------------------

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


def _raw_version(decl: deps.Declaration) -> str | None:
    """The version as a declaration writes it: "${jackson.version}", "$gsonVersion", "2.10.1"."""
    if decl.kind == "maven":
        match = re.search(r"<version>\s*([^<\s]+)\s*</version>", decl.text)
    else:
        match = re.search(r"['\"][\w.-]+:[\w.-]+:([^'\":@\s]+)", decl.text)
    return match.group(1) if match else None


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
        d.version is None and _raw_version(d) is None and not d.managed and d.kind in ("maven", "gradle")
        for d in decls
    ):
        # Another module declares it without a version: a BOM, a parent or a platform gives it.
        return None, "its version is managed, as where it is declared already"
    for decl in decls:  # declared by another module: the same version, through the same property
        raw = _raw_version(decl)
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
