"""The "undeclared dependency" recipe for npm projects: declare the packages a build could not find.

A module Node, a test runner or a bundler cannot find -> the package in the npm cache;
TypeScript's missing type definitions (TS2688 `Cannot find type definition file for 'node'`,
TS7016, TS2307 of an installed package without types) -> the `@types/...` package. A package
goes where its users are: used only by tests (or type definitions), devDependencies; else
dependencies. Its version is the one the project's lockfile used, when it has one (with a
package-lock.json, only packages it holds, which `npm ci` then installs as locked).
"""

from __future__ import annotations

import re

from buildfixer.agents.recipes.base import Evidence, Repair, error_path, project_file, undeclared_repair
from buildfixer.agents.recipes.history import locked_npm_version
from buildfixer.agents.recipes.scope import npm_importers, only_tests_use
from buildfixer.deps import manage as deps
from buildfixer.deps.caches import npm_cached_packages
from buildfixer.deps.versions import newest_version

_NPM_MODULE = [
    re.compile(r"Cannot find module '([^']+)'"),
    re.compile(r"Cannot find package '([^']+)' imported from (\S+)"),  # Node's ESM loader
    re.compile(r"Module not found: Error: Can't resolve '([^']+)' in '([^']+?)/?'"),  # webpack: a dir
]
# TypeScript wants type definitions: a `types` entry (TS2688) or an untyped package (TS7016).
_TS_TYPES = [
    re.compile(r"Cannot find type definition file for '([^']+)'"),
    re.compile(r"Could not find a declaration file for module '([^']+)'"),
]
_TS_MODULE = re.compile(r"TS2307: Cannot find module '([^'./][^']*)' or its corresponding type declarations")
_NODE_BUILTINS = {
    "assert", "buffer", "child_process", "cluster", "console", "constants", "crypto", "dgram", "dns",
    "diagnostics_channel", "domain", "events", "fs", "http", "http2", "https", "inspector", "module", "net",
    "os", "path", "perf_hooks", "process", "punycode", "querystring", "readline", "repl", "stream",
    "string_decoder", "sys", "timers", "tls", "trace_events", "tty", "url", "util", "v8", "vm", "wasi",
    "worker_threads", "zlib",
}  # fmt: skip
_NPM_OWN_LOCKS = ("package-lock.json", "npm-shrinkwrap.json")
_NPM_LOCKS = ("pnpm-lock.yaml", "yarn.lock", "bun.lockb", "bun.lock")


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


def types_package(name: str) -> str:
    """DefinitelyTyped's package of a package's types: node -> @types/node, @s/pkg -> @types/s__pkg."""
    if name.startswith("@types/"):
        return name
    if name.startswith("@") and "/" in name:
        scope, _, package = name[1:].partition("/")
        return f"@types/{scope}__{package}"
    return f"@types/{name}"


def _package_name(spec: str) -> str | None:
    """The package a bare module specifier names ("lodash/fp" -> lodash); None for paths and builtins."""
    if spec.startswith((".", "/", "node:", "#", "~", "@/")) or spec.split("/")[0] in _NODE_BUILTINS:
        return None
    parts = spec.split("/")
    return "/".join(parts[:2]) if spec.startswith("@") else parts[0]


def _types_missing(ev: Evidence) -> list[tuple[str, str | None]]:
    """(@types package, the file asking) for type definitions TypeScript could not find.

    TS2307 of a bare package counts only when the package itself is declared: then it is
    installed and what is missing is its types; an undeclared one is a missing package.
    """
    found: list[tuple[str, str | None, bool]] = []  # (specifier, file, from TS2307)
    for pattern in _TS_TYPES:
        for error, match in ev.errors_matching(pattern):
            found.append((match.group(1), error.file, False))
        found += [(m.group(1), None, False) for m in pattern.finditer(ev.log)]
    for error, match in ev.errors_matching(_TS_MODULE):
        found.append((match.group(1), error.file, True))
    wanted: dict[str, str | None] = {}
    for spec, file, unresolved in found:
        name = spec if spec.startswith("@types/") else _package_name(spec)
        if name is None or (unresolved and not deps.find_declaration(ev.project, name)):
            continue  # TS2307 of an undeclared package: the package is missing, not its types
        types = types_package(name)
        wanted[types] = wanted.get(types) or file
    return list(wanted.items())


def npm_dependency(ev: Evidence) -> Repair | None:
    """Declare packages (and type definitions) the npm build could not find."""
    if any((ev.project / lock).is_file() for lock in _NPM_LOCKS):
        return None  # pnpm, yarn, bun: a frozen lockfile refuses a package.json that disagrees
    # `npm ci` accepts a new package.json entry that the lockfile's installed version satisfies:
    # with a lockfile, only packages it holds, at its version (the one the project used).
    npm_lock = any((ev.project / lock).is_file() for lock in _NPM_OWN_LOCKS)
    cached = npm_cached_packages(ev.options)
    wanted: list[tuple[str, str | None, bool]] = []  # (package, file, types only)
    for spec, file in _npm_missing(ev):
        name = _package_name(spec)
        if name is not None and name not in (w[0] for w in wanted):
            wanted.append((name, file, False))
    for types_name, types_file in _types_missing(ev):
        if types_name not in (w[0] for w in wanted):
            wanted.append((types_name, types_file, True))
    notes: list[str] = []
    with deps.staged(ev.project) as stage:
        for name, file, types in wanted:
            version = locked_npm_version(ev.project, name)
            if version is None and not npm_lock:
                version = newest_version(cached.get(name) or [])
            if version is None or deps.find_declaration(ev.project, name):
                continue
            rel_file = error_path(ev, file)
            # Type definitions only matter to the compiler: a devDependency wherever they are used.
            test = types or only_tests_use(npm_importers(ev.project, name), project_file(ev, file))
            edit = deps.add_dependency(ev.project, "npm", name, version, test)
            if edit is None or not stage.add([edit]):
                continue
            section = "devDependencies" if test else "dependencies"
            what = "needs the type definitions" if types else "requires"
            source = " (the lockfile's)" if npm_lock else ""
            notes.append(
                f"{rel_file or 'the code'} {what} {name}, which package.json does not declare: "
                f"add {version}{source} to {section}"
            )
        edits = stage.edits()
    return undeclared_repair(edits, notes)
