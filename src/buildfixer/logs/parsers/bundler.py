"""JavaScript bundlers that cannot resolve an import: webpack, Vite, esbuild, Rollup, Metro.

- webpack (and CRA, Next.js, Angular CLI): `Module not found: Error: Can't resolve 'x' in '<dir>'`
  (webpack 1: `Cannot resolve module x in <dir>`) below, or after, the importing module:
  `ERROR in ./src/a.js 3:0-20`, a bare `./src/App.js` (CRA), `./src/a.js:3:0` (Next.js),
  `./src/main.ts:4:0-47 - Error: ...` (Angular). webpack 1 gives the position on the ` @ ` line
  below instead; in later versions the ` @ ` lines are the importers of the importer.
- Vite: `Failed to resolve import "x" from "src/a.tsx". Does the file exist?` then a
  `File: /abs/a.tsx:L:C` (or bare `/abs/a.tsx:L:C`) line and a code frame; a build says
  `[vite]: Rollup failed to resolve import "x" from "/abs/a.ts".`
- esbuild: `✘ [ERROR] Could not resolve "x"` with the place on an indented `src/a.ts:3:20:` line
  below (before 0.10: `src/a.ts:3:20: error: Could not resolve "x"` on one line).
- Rollup: `[!] Error: Could not resolve './x' from 'src/a.js'`.
- Metro: `Unable to resolve module x from /abs/a.js: ...` with a `> 3 | import ...` code frame.

The error's file is the importing file, its line the import's. What the import names decides the
category (`module_category`, also used for tsc's and node's `Cannot find module`).
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser

# Node's built-in modules: a bundler for the browser has no file for them unless it is told to
# polyfill them or to target node (webpack 5's `resolve.fallback`, esbuild's `platform`).
_BUILTINS = frozenset((
    "assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants", "crypto",
    "dgram", "dns", "domain", "events", "fs", "http", "http2", "https", "inspector", "module", "net",
    "os", "path", "perf_hooks", "process", "punycode", "querystring", "readline", "repl", "stream",
    "string_decoder", "sys", "timers", "tls", "trace_events", "tty", "url", "util", "v8", "vm", "wasi",
    "worker_threads", "zlib",
))  # fmt: skip
# Conventional names of a project's own source folders. `components/Header` names no package: it
# resolves only through a base URL or alias the build is missing (jsconfig/tsconfig `baseUrl` and
# `paths`, NODE_PATH, webpack `resolve.modules`). A convention, like the list above: no project's
# own names are in it.
_SOURCE_DIRS = frozenset((
    "src", "app", "components", "component", "common", "helpers", "utils", "util", "pages", "views",
    "screens", "containers", "layouts", "hooks", "store", "stores", "services", "assets", "styles",
    "shared", "constants", "features", "context", "contexts", "reducers", "actions", "redux", "routes",
    "router", "models", "images", "icons", "theme", "widgets",
))  # fmt: skip
# Prefixes that only a project's alias gives a meaning: `@/x`, `~/x`, `#x` (package.json
# `imports`), `$lib/x` (SvelteKit), `@@/x` (umi); npm names never start with them.
_ALIAS = re.compile(r"(?:@|~|@@|~~)(?:/|$)|[#$]")
_RELATIVE = re.compile(r"\.{1,2}(?:[\\/]|$)|[\\/]|[A-Za-z]:[\\/]|file:")


# Files the TypeScript compiler types only through a `declare module '*.ext'` declaration.
_NOT_TYPESCRIPT = re.compile(
    r"\.(?:vue|svelte|astro|svg|png|jpe?g|gif|webp|avif|ico|bmp|css|scss|sass|less|styl|md|mdx|html|txt|wasm"
    r"|graphql|gql|glsl|mp3|mp4|woff2?|ttf|yaml|yml)$"
)


def module_category(
    module: str, importer: str | None = None, *, bundled: bool = True, typechecked: bool = False
) -> str:
    """The category of an import that cannot be resolved, by what it names.

    Args:
        module: the specifier as written in the import (`./a`, `lodash/fp`, `@/a`).
        importer: the file holding the import, when the log names it.
        bundled: a bundler reports it (built-in node modules are then a target setting).
        typechecked: the TypeScript compiler reports it (tsc, ts-jest); it never resolves
            `./Button.vue` or `./logo.svg` by itself, so the project lacks the declaration
            (`declare module '*.vue'` in a shims or env.d.ts file) that types such files.

    Returns:
        `resource_missing` for a path of the project, `configuration` for an alias, a project
        folder without its base URL or a node built-in in a browser bundle, otherwise
        `library_unavailable` (a package that is not installed).
    """
    module = module.strip()
    if typechecked and _NOT_TYPESCRIPT.search(module.split("?")[0]):
        return "configuration"
    if _RELATIVE.match(module):
        # A package's own relative import failing means the installed package is incomplete.
        inside = importer and "node_modules" in importer.replace("\\", "/").split("/")
        return "library_unavailable" if inside else "resource_missing"
    if _ALIAS.match(module):
        return "configuration"
    first, _, rest = module.partition("/")
    if first == "src" or (rest and first in _SOURCE_DIRS):
        return "configuration"
    if bundled and (module.startswith("node:") or first in _BUILTINS):
        return "configuration"
    return "library_unavailable"


# webpack 2+: `Can't resolve 'x'` (Next.js leaves out `in '<dir>'`); webpack 1: `Cannot resolve`.
_WEBPACK = re.compile(
    r"Module not found: (?:Error: )?(?:Can't resolve '(?P<module>[^']+)'(?: in '(?P<dir>[^']+)')?"
    r"|Cannot resolve (?:module|file or directory) (?P<module1>\S+) in (?P<dir1>.+))"
)
# The module a webpack error is about, with the position of the import when given:
# `ERROR in ./src/a.js 3:0-20`, `./src/a.js:3:0`, `./src/main.ts:4:0-47 - Error: `, `./src/App.js`.
_WEBPACK_WHERE = re.compile(
    r"^\s*(?:ERROR in |Error: )?(?P<file>(?:[A-Za-z]:)?[^\s:()]*[\\/][^\s:()]*)"
    r"(?:[: ](?P<line>\d+):(?P<col>\d+)(?:-[\d:]+)?)?(?: - | \(|\s*$)"
)
_WEBPACK_IMPORTER = re.compile(r"^\s*@ (?P<file>\S+) (?P<line>\d+):(?P<col>\d+)")
# Quotes may come doubled (`""../x""`): pasted through a tool that escapes them.
_VITE = re.compile(
    r"(?:Rollup failed|Failed) to resolve import \"+(?P<module>[^\"]+)\"+(?: from \"+(?P<file>[^\"]+)\"+)?"
)
# webpack's entry point (its `entry` setting, or the default `./src`) does not exist: the
# configuration is wrong, whatever the module's name.
_ENTRY = re.compile(r"Entry module not found: (?:Error: )?Can't resolve '(?P<module>[^']+)'")
# Vite's `File: /abs/a.ts:2:17` (or the bare location line of the error overlay's text).
_VITE_FILE = re.compile(r"^\s*File: (?P<file>.+?)(?::(?P<line>\d+):(?P<col>\d+))?\s*$")
_PLACE = re.compile(r"^\s*(?P<file>(?:[A-Za-z]:)?[\\/][^:]+|[^\s:]+):(?P<line>\d+):(?P<col>\d+):?\s*$")
# Rolldown's and oxc's code frame (ariadne): `╭─[ src/a.tsx:2:29 ]`.
_FRAME_HEAD = re.compile(r"^\s*[╭┌]─\[ ?(?P<file>(?:[A-Za-z]:)?[^\]:]+):(?P<line>\d+):(?P<col>\d+) ?\]")
_COULD_NOT = re.compile(
    r"Could not resolve (?P<q>[\"'])(?P<module>[^\"']+)(?P=q)(?: (?:from|in) [\"']?(?P<file>[^\"'\s]+))?"
)
# esbuild before 0.10 put the place first: `src/a.js:6:21: error: Could not resolve "x"`.
_ESBUILD_OLD = re.compile(r"^\s*(?:> )?(?P<file>[^\s:]+(?::[\\/][^:]+)?):(?P<line>\d+):(?P<col>\d+): error: ")
# Vite's load-fallback: `Could not load /abs/src/x (imported by src/main.ts): ENOENT: ...`.
_LOAD = re.compile(r"Could not load (?P<path>\S+) \(imported by (?P<file>[^)]+)\)")
# Maven's and Gradle's `Could not resolve 'g:a:1.0'`; JavaScript specifiers have no such colon.
_COORDINATE = re.compile(r"(?!node:|file:|data:|virtual:|https?:)[\w.-]{2,}:[\w.-]")
_METRO = re.compile(
    r"Unable to resolve module [`'\"]?(?P<module>[^\s`'\"]+)[`'\"]?"
    r" from [`'\"]?(?P<file>.+?)[`'\"]?(?:: |:?\s*$)"
)
# Code frames (Babel, Vite, Next.js): `> 3 | import ...` marks the line; Vite puts a caret row
# (`   |     ^`) below it instead.
_FRAME_MARKED = re.compile(r"^\s*>\s*(?P<line>\d+)\s*[|│]")
_FRAME_ROW = re.compile(r"^\s*(?P<line>\d+)\s*[|│]")
_FRAME_CARET = re.compile(r"^\s*[|│]\s*\^")
_CONTEXT = 12  # lines below an error that may hold its place
_HINT = 6  # lines of an error that may say it is about an alias


# Where an import is: the importing file, the line and column of the import (as far as known).
_Place = tuple[str | None, int | None, int | None]


def _place(file: str | None, line: str | int | None, col: str | None = None) -> _Place:
    return file, int(line) if line else None, int(col) if col else None


def _error(module: str, tool: str, place: _Place, text: str, index: int) -> BuildError:
    file, line, column = place
    return BuildError(
        text.strip(),
        module_category(module, file),
        tool,
        file,
        line,
        column,
        log_line=index,
        specificity=9 if file else 8,
    )


def _frame_line(lines: list[str], start: int, module: str) -> int | None:
    """The line of the import in a code frame below `start`."""
    rows = lines[start : start + _CONTEXT]
    for offset, text in enumerate(rows):
        if found := _FRAME_MARKED.match(text):
            return int(found["line"])
        if _FRAME_CARET.match(text) and offset and (row := _FRAME_ROW.match(rows[offset - 1])):
            return int(row["line"])
    for text in rows:
        if (row := _FRAME_ROW.match(text)) and (f'"{module}"' in text or f"'{module}'" in text):
            return int(row["line"])
    return None


def _webpack(lines: list[str], index: int, found: re.Match[str]) -> BuildError:
    text = lines[index]
    module = found["module"] or found["module1"]
    file = line = col = None
    # The module is named on the same line or just above (a blank line may come between).
    above = [lines[i] for i in range(index - 1, max(-1, index - 4), -1) if lines[i].strip()][:2]
    for candidate in (text[: found.start()], *above):
        if (where := _WEBPACK_WHERE.match(candidate)) and not candidate.lstrip().startswith("@"):
            file, line, col = where["file"], where["line"], where["col"]
            break
    if file and not line:
        # webpack 1: ` @ ./src/a.js 1:10-34` below names the same module with the position.
        for below in lines[index + 1 : index + _CONTEXT]:
            if (importer := _WEBPACK_IMPORTER.match(below)) and importer["file"] == file:
                line, col = importer["line"], importer["col"]
                break
    if line is None and file:
        line = _frame_line(lines, index + 1, module)  # Next.js: a code frame follows
    place = _place(file.removeprefix("./") if file else None, line, col)
    return _error(module, "webpack", place, text[found.start() :], index)


def _vite(lines: list[str], index: int, found: re.Match[str]) -> BuildError:
    file, line, col = found["file"], None, None
    for below in lines[index + 1 : index + 6]:
        where = _VITE_FILE.match(below) or _PLACE.match(below)
        if where:
            file, line, col = where["file"], where["line"], where["col"]
            break
    place = _place(file, line or _frame_line(lines, index + 1, found["module"]), col)
    return _error(found["module"], "vite", place, found[0], index)


def _could_not(lines: list[str], index: int, found: re.Match[str]) -> BuildError:
    """A `Could not resolve "x"` of esbuild (place before or below it) or Rollup (`from` file)."""
    text = lines[index]
    module = found["module"]
    if old := _ESBUILD_OLD.match(text[: found.start()]):
        place = _place(old["file"], old["line"], old["col"])
        return _error(module, "esbuild", place, text[found.start() :], index)
    if found["file"]:
        file = found["file"].strip().rstrip(".")
        for below in lines[index + 1 : index + 4]:
            if (head := _FRAME_HEAD.match(below)) and head["file"].strip() == file:
                return _error(module, "rollup", _place(file, head["line"], head["col"]), found[0], index)
        return _error(module, "rollup", (file, None, None), found[0], index)
    for below in lines[index + 1 : index + 5]:
        if where := _PLACE.match(below):
            place = _place(where["file"], where["line"], where["col"])
            return _error(module, "esbuild", place, found[0], index)
    return _error(module, "esbuild", (None, None, None), found[0], index)


def _metro(lines: list[str], index: int, found: re.Match[str]) -> BuildError:
    line = _frame_line(lines, index + 1, found["module"])
    message = lines[index][found.start() :]
    return _error(found["module"], "metro", (found["file"], line, None), message, index)


def _one(lines: list[str], index: int) -> BuildError | None:
    """The unresolved import reported on this line, if any."""
    text = lines[index]
    if "Entry module not found" in text and (found := _ENTRY.search(text)):
        error = _error(found["module"], "webpack", (None, None, None), text[found.start() :], index)
        error.category = "configuration"
        return error
    if "Module not found" in text and (found := _WEBPACK.search(text)):
        return _webpack(lines, index, found)
    if "to resolve import" in text and (found := _VITE.search(text)):
        return _vite(lines, index, found)
    if (
        "Could not resolve" in text
        and (found := _COULD_NOT.search(text))
        and not _COORDINATE.match(found["module"])
    ):
        return _could_not(lines, index, found)
    if "Unable to resolve module" in text and (found := _METRO.search(text)):
        return _metro(lines, index, found)
    if "Could not load" in text and (found := _LOAD.search(text)):
        # Vite/Rollup: the import resolved to a path (often through an alias) with no file.
        place = (found["file"], None, None)
        return _error(found["path"], "vite", place, text[found.start() :].strip(), index)
    return None


def _says_alias(block: list[str]) -> bool:
    """True when the lines of an error speak of aliases or tsconfig `paths`."""
    return any("alias" in t.lower() or "'paths'" in t or '"paths"' in t for t in block)


def parse(lines: list[str]) -> list[BuildError]:
    """Find imports that webpack, Vite, esbuild, Rollup or Metro could not resolve.

    Args:
        lines: The cleaned log, one entry per line.

    Returns:
        The errors in log order, one per (module, importing file, line); the same import
        reported again without its file (a summary) ranks below the located copy.
    """
    errors: list[BuildError] = []
    seen: set[tuple[str, str | None, int | None]] = set()
    for index, text in enumerate(lines):
        if not ("resolve" in text or "imported by" in text) or not (error := _one(lines, index)):
            continue
        if error.category == "library_unavailable" and _says_alias(lines[index : index + _HINT]):
            error.category = "configuration"  # e.g. `@ui/x` that only a `paths` entry maps
        key = (error.message, error.file, error.line)
        if key not in seen:
            seen.add(key)
            errors.append(error)
    return errors


PARSER = Parser(
    name="bundler",
    triggers=(
        "Module not found",
        "Entry module not found",
        "to resolve import",
        "Could not resolve",
        "Unable to resolve module",
        "imported by",
    ),
    parse=parse,
)
