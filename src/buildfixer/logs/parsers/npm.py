"""npm, TypeScript compiler, Node.js and JavaScript test-runner errors.

npm prints one error as a block of `npm ERR! ...` (npm <= 9) or `npm error ...` (npm >= 10)
lines whose `code` line names the kind; we report one error per block. tsc, node and the test
runners (node --test, jest, vitest; see jstest.py) print their own formats, read line by line.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser
from buildfixer.logs.parsers.bundler import module_category
from buildfixer.logs.parsers.jstest import test_failures
from buildfixer.logs.taxonomy import classify

_NPM_PREFIX = re.compile(r"^\s*npm (?:ERR!|error)(?: |$)")
_NPM_CODE = re.compile(r"^code (?P<code>E[A-Z0-9_]+)")
# The line that says most for each npm error code, and the code's category.
_NPM_CODES: dict[str, tuple[str, str]] = {
    "ETARGET": ("library_unavailable", r"notarget (?P<msg>.+)"),
    "E404": (
        "library_unavailable",
        r"(?P<msg>404 (?:Not Found - .+|\s*'.+' is not in (?:the|this) .*registry.*))",
    ),
    "ERESOLVE": ("library_unavailable", r"(?P<msg>ERESOLVE .+)"),
    "ENOENT": ("resource_missing", r"enoent (?P<msg>.*ENOENT.+)"),
    "EJSONPARSE": ("configuration", r"(?:JSON\.parse )?(?P<msg>(?:Invalid package\.json|Failed to parse).+)"),
    "ENOTFOUND": ("library_unavailable", r"(?P<msg>.*(?:getaddrinfo|request to).+)"),
    "ECONNREFUSED": ("library_unavailable", r"(?P<msg>.*request to.+)"),
    "ETIMEDOUT": ("library_unavailable", r"(?P<msg>.*request to.+)"),
    "EAI_AGAIN": ("library_unavailable", r"(?P<msg>.*request to.+)"),
    "E401": ("configuration", r"(?P<msg>.+)"),
    "E403": ("configuration", r"(?P<msg>403 .+)"),
    "ENEEDAUTH": ("configuration", r"(?P<msg>need auth .+)"),
    "EBADENGINE": ("configuration", r"(?P<msg>.*(?:Unsupported engine|notsup).+)"),
    "ENOTSUP": ("configuration", r"(?P<msg>.*(?:Unsupported engine|notsup).+)"),
    "EUNSUPPORTEDPROTOCOL": ("configuration", r"(?P<msg>Unsupported URL Type.+)"),
    "EINTEGRITY": ("configuration", r"(?P<msg>.*integrity.+)"),
}
_NPM_CODE_LINES = {code: re.compile(pattern) for code, (_, pattern) in _NPM_CODES.items()}
# ERESOLVE's explanation: which dependency could not be satisfied by what.
_ERESOLVE_DETAIL = re.compile(
    r"^(?:While resolving: |Found: |Could not resolve dependency:|peer |Conflicting peer)"
)
_MISSING_SCRIPT = re.compile(r"^(?:Missing script: \"?(?P<a>[^\"]+)\"?|missing script: (?P<b>\S+))")
# `[^@]*@`, not `.*@`: the same lines match (what follows the first `@` holds what follows any
# later one), without trying every `@` of a long line against the rest of it.
_LIFECYCLE = re.compile(
    r"^(?:Lifecycle script `.+` failed|[^@]*@.* \w+: `.+`|Failed at the .* script|command failed)"
)
_ENOENT_PATH = re.compile(r"open '(?P<path>[^']+)'")
# A command an npm script runs that the shell cannot find: `sh: tsc: command not found`, dash's
# `sh: 1: vite: not found`, Windows' `'react-scripts' is not recognized as an internal or external
# command`. A package's binary (tsc, vite, react-scripts) is missing because the package is not
# installed; a system tool (git, make, python) because the machine lacks it.
_SCRIPT_COMMAND = re.compile(
    r"^\s*(?:>\s*)?(?:sh: (?:\d+: )?(?P<sh>[\w.@/-]+): (?:command )?not found"
    r"|'(?P<win>[\w.@/-]+)' is not recognized as an internal or external command)"
)
_SYSTEM_TOOLS = frozenset((
    "git", "make", "gmake", "cmake", "python", "python2", "python3", "py", "gcc", "g++", "cc", "c++",
    "clang", "bash", "sh", "zsh", "java", "javac", "mvn", "gradle", "docker", "curl", "wget", "node",
    "npm", "npx", "yarn", "pnpm", "bun", "deno", "rm", "cp", "mv", "mkdir", "sed", "awk", "grep", "tar",
    "unzip", "zip", "chmod", "powershell", "pwsh", "cmd", "ruby", "bundle", "go", "cargo", "rustc", "php",
    "composer", "dotnet", "xcodebuild", "pod", "ninja", "pkg-config",
))  # fmt: skip

# tsc: `src/a.ts(12,5): error TS2345: ...` and `src/a.ts:12:5 - error TS2554: ...`; the Angular
# CLI puts `ERROR in ` or `Error: ` before them and reports template errors in `.html` files.
_TSC_LOCATED = re.compile(
    r"^\s*(?:ERROR in |Error: )?"
    r"(?P<file>[^\s(:][^(:]*?(?::[\\/][^(:]*?)?\.(?:[cm]?tsx?|[cm]?jsx?|json|vue|svelte|html))"
    r"(?:\((?P<line>\d+),(?P<col>\d+)\):| ?:(?P<line2>\d+):(?P<col2>\d+) -)"
    r" error (?P<code>TS\d+): (?P<msg>.+)"
)
_TSC_GLOBAL = re.compile(r"^\s*error (?P<code>TS\d+): (?P<msg>.+)")
# The Angular compiler (ngc, AOT) before version 9: `ERROR in src/app/a.component.html(9,18): : msg`.
_NGC = re.compile(
    r"^\s*(?:ERROR in )?(?P<file>[^\s(:]+\.(?:html|ts))\((?P<line>\d+),(?P<col>\d+)\): : (?P<msg>.+)"
)
# webpack's TypeScript loaders: `ERROR in <file>[(line,col)]`, the diagnostic on the next line.
_WEBPACK_HEADER = re.compile(
    r"^\s*(?:\[tsl\] )?ERROR in (?:\[[\w-]+\] )?(?P<file>\S+?)"
    r"(?:\((?P<line>\d+),(?P<col>\d+)\)|:(?P<line2>\d+):(?P<col2>\d+))?\s*$"
)
_WEBPACK_TSC = re.compile(
    r"^\s*(?:\((?P<line>\d+),(?P<col>\d+)\):? )?(?:error )?(?P<code>TS\d+): (?P<msg>.+)"
)
# tsc's explanation below a global error, and the `tsconfig.json:5:16` reference in it (--pretty).
_WHY = "The file is in the program because"
_TSC_REFERENCE = re.compile(r"^\s+(?P<file>[^\s:]+\.json):(?P<line>\d+):(?P<col>\d+)\s*$")
# TypeScript before 2.x left the quotes out: `Cannot find module @scope/pkg.`
_TSC_MODULE = re.compile(r"Cannot find module (?:'(?P<module>[^']+)'|\"(?P<dq>[^\"]+)\"|(?P<bare>[^\s'\"]+))")

# node: the `file.js:12` header above a thrown error's source line, and the error itself.
_NODE_HEADER = re.compile(
    r"^(?P<file>(?:[A-Za-z]:)?[\\/][^:]*?|file:///.+?|\S+?\.[cm]?[jt]sx?):(?P<line>\d+)$"
)
_NODE_ERROR = re.compile(
    r"^(?:Uncaught )?(?P<type>(?:[A-Z]\w*)?Error|[A-Z]\w*Exception)(?: \[(?P<code>\w+)\])?: (?P<msg>.+)$"
)
_NODE_FRAME = re.compile(
    r"^\s+at (?:.*? \()?(?P<file>(?:file://)?(?:[A-Za-z]:)?[\\/][^():]*?):(?P<line>\d+):\d+\)?$"
)
_NODE_REQUIRE = re.compile(r"^- (?P<file>.+)$")
_NODE_MISSING = re.compile(r"Cannot find (?:module|package) '(?P<module>[^']+)'")
# node's ES module loader names the importing file: `Cannot find package 'x' imported from /a.js`.
_NODE_IMPORTER = re.compile(r" imported from (?P<file>\S.*?)\s*$")


def _npm_block(lines: list[str], start: int) -> tuple[BuildError | None, int]:
    """One block of consecutive `npm ERR!` / `npm error` lines; return its error and the next index."""
    body: list[str] = []
    index = start
    while index < len(lines) and _NPM_PREFIX.match(lines[index]):
        body.append(_NPM_PREFIX.sub("", lines[index], count=1).strip())
        index += 1
    code = next((found["code"] for text in body if (found := _NPM_CODE.match(text))), None)
    if code in _NPM_CODES:
        category, _ = _NPM_CODES[code]
        key = next((m["msg"] for t in body if (m := _NPM_CODE_LINES[code].match(t))), None)
        message = key or f"npm error code {code}"
        file = None
        if code == "ERESOLVE":
            detail = [t for t in body if _ERESOLVE_DETAIL.match(t)][:5]
            message = " ".join([message, *detail])
        elif code == "ENOENT" and (path := _ENOENT_PATH.search(message)):
            file = path["path"]
        elif code == "EJSONPARSE":
            file = next(
                (t.removeprefix("path ").strip() for t in body if t.startswith("path ")), "package.json"
            )
        error = BuildError(message.strip(), category, "npm", file, log_line=start, specificity=8)
        return error, index
    for text in body:
        if found := _MISSING_SCRIPT.match(text):
            script = found["a"] or found["b"]
            return BuildError(
                f'Missing script: "{script}"', "configuration", "npm", log_line=start, specificity=8
            ), index
    for text in body:
        if _LIFECYCLE.match(text):
            # The script's own output above says what failed; this is only the summary.
            return BuildError(text, "other", "npm", log_line=start, specificity=1), index
    interesting = [t for t in body if t and not t.startswith(("A complete log", "Log files", "    "))]
    if code or interesting:
        message = " ".join(interesting[:2]) or f"npm error code {code}"
        return BuildError(message, "other", "npm", log_line=start, specificity=3), index
    return None, index


def _tsc(groups: dict[str, str | None], index: int, lines: list[str]) -> BuildError:
    """One tsc diagnostic; module resolution failures are dependency or file problems."""
    code, message = groups["code"] or "", (groups["msg"] or "").strip()
    category = "syntax"
    if code in ("TS2307", "TS2792") and (module := _TSC_MODULE.search(message)):
        name = module["module"] or module["dq"] or module["bare"].rstrip(".")
        # tsc type-checks, it does not bundle: a missing `fs` is a missing @types/node.
        category = module_category(name, groups.get("file"), bundled=False, typechecked=True)
    elif code in ("TS7016", "TS2688"):
        category = "library_unavailable"
    elif code in ("TS6053", "TS6231", "TS5083", "TS5058"):
        category = "resource_missing"  # a file tsconfig.json names is absent
    elif code.startswith("TS5") or code in ("TS18003", "TS6046"):
        category = "configuration"  # compiler options and tsconfig.json
    file = groups.get("file")
    line, col = groups.get("line") or groups.get("line2"), groups.get("col") or groups.get("col2")
    # tsc puts the detail of a chained message on the next, indented line ("Type 'x' is ...").
    follow = lines[index + 1].strip() if index + 1 < len(lines) and lines[index + 1].startswith("  ") else ""
    if follow and not follow[0].isdigit() and not follow.startswith(("~", _WHY)):
        message = f"{message} {follow}"
    if file is None and (cause := _tsc_cause(lines, index)):
        # A global error (a `types` entry of tsconfig.json naming an absent @types package).
        file, line, col = cause
    return BuildError(
        message=f"{code}: {message}",
        category=category,
        tool="tsc",
        file=file,
        line=int(line) if line else None,
        column=int(col) if col else None,
        log_line=index,
        specificity=_tsc_specificity(code, bool(file)),
    )


def _tsc_cause(lines: list[str], index: int) -> tuple[str, str | None, str | None] | None:
    """Where tsc's "The file is in the program because:" note says a global error comes from."""
    follow = lines[index + 1 : index + 12]
    if not follow or not follow[0].strip().startswith(_WHY):
        return None
    for text in follow[1:]:
        if found := _TSC_REFERENCE.match(text):
            return found["file"], found["line"], found["col"]
        if _TSC_GLOBAL.match(text) or _TSC_LOCATED.match(text):
            break
    if any("specified in compilerOptions" in t for t in follow[1:4]):
        return "tsconfig.json", None, None
    return None


def _webpack_tsc(lines: list[str], index: int) -> BuildError | None:
    """A diagnostic that webpack's TypeScript loaders print below an `ERROR in <file>` line.

    ts-loader writes `ERROR in ./src/a.ts` then `(2,29): error TS2307: ...`; the
    `[tsl]` form puts the position on the header and `TS2307: ...` on the next line, and
    awesome-typescript-loader writes `ERROR in [at-loader] ./src/a.ts:29:24`.
    """
    if not 0 < index < len(lines):
        return None
    header = _WEBPACK_HEADER.match(lines[index - 1])
    diagnostic = _WEBPACK_TSC.match(lines[index])
    if not header or not diagnostic:
        return None
    groups = {**diagnostic.groupdict(), "file": header["file"]}
    groups["line"] = groups["line"] or header["line"] or header["line2"]
    groups["col"] = groups["col"] or header["col"] or header["col2"]
    return _tsc(groups, index, lines)


def _tsc_specificity(code: str, located: bool) -> int:
    # Project-level errors (tsconfig, missing inputs) come first: a broken configuration
    # makes tsc report knock-on errors in the code, which are not the root cause.
    if code.startswith(("TS5", "TS6")) or code == "TS18003":
        return 11
    return 10 if located else 8


def _has_js_stack(lines: list[str], index: int) -> bool:
    """True when `    at ...` frames follow: Python and other tools print `XError: ...` lines too."""
    return any(t.lstrip().startswith("at ") and t[:1].isspace() for t in lines[index + 1 : index + 8])


def _node_error(lines: list[str], index: int, found: re.Match[str]) -> BuildError:
    """A thrown Node.js error: where it was thrown (header or first project frame) and what."""
    message = f"{found['type']}: {found['msg'].strip()}"
    file = line = None
    # `file.js:12` above the source excerpt names the place exactly (syntax errors have no frame).
    for back in range(index - 1, max(-1, index - 6), -1):
        if (header := _NODE_HEADER.match(lines[back])) and not lines[back].startswith("node:"):
            if "node_modules" not in header["file"]:  # a tool threw it: not a place in the project
                file, line = header["file"], int(header["line"])
            break
    if importer := _NODE_IMPORTER.search(found["msg"]):
        # The ES module loader's frames are all node's internals; the message names the importer.
        file, line = importer["file"], None
    following = lines[index + 1 : index + 30]
    if file is None:
        # The first frame in the project's code; node's internals and dependencies are skipped.
        for text in following:
            if (frame := _NODE_FRAME.match(text)) and "node_modules" not in frame["file"]:
                file, line = frame["file"], int(frame["line"])
                break
    if file is None:
        # `Require stack:` lists the requiring file first.
        file = next(
            (m["file"] for t in following if t.startswith("- ") and (m := _NODE_REQUIRE.match(t))), None
        )
    missing = _NODE_MISSING.search(message)
    if found["type"] == "SyntaxError":
        category = "syntax"
    elif missing:
        category = module_category(missing["module"], file, bundled=False)
    elif "ENOENT" in message:
        category = "resource_missing"
    else:
        category = "other"
    return BuildError(
        message,
        category,
        "node",
        file,
        line,
        log_line=index,
        specificity=((10 if category == "syntax" else 9) if file else 7) if category != "other" else 5,
    )


# What pnpm lists below a lockfile out of step: its reason, the counts, one dependency per line.
_PNPM_DETAIL = re.compile(
    r"^\s*(?:Failure reason:|specifiers in the lockfile|\* \d+ dependenc(?:y|ies) (?:are|is|were|was) \w+"
    r"|- @?[\w.-]+(?:/[\w.-]+)? \(lockfile:)"
)
_PNPM_DETAIL_LINES = 12
_PNPM_MAX_MESSAGE = 500


def _pnpm_lockfile(lines: list[str], index: int) -> BuildError:
    """A pnpm lockfile out of step with package.json, with the dependencies pnpm names below it.

    `* 1 dependencies are mismatched:` / `- ts-jest (lockfile: 29.4.0, manifest: 29.99.0)` and
    `* 1 dependencies were added: x@^1.0.0` say which declaration to look at (`logs.locate`).
    """
    told = [lines[index].strip()]
    for text in lines[index + 1 : index + _PNPM_DETAIL_LINES]:
        if _PNPM_DETAIL.match(text):
            told.append(text.strip())
        elif told[1:] and not text.strip():
            break
    message = " ".join(told)[:_PNPM_MAX_MESSAGE]
    return BuildError(message, classify(message, "pnpm"), "pnpm", log_line=index, specificity=9)


def parse(lines: list[str]) -> list[BuildError]:
    """Find npm, tsc, Node.js and test-runner errors in a cleaned log.

    Args:
        lines: The cleaned log, one entry per line.

    Returns:
        The errors in log order.
    """
    errors: list[BuildError] = []
    tests = test_failures(lines)
    index = 0
    while index < len(lines):
        text = lines[index]
        if text.startswith(("npm", " ")) and _NPM_PREFIX.match(text):
            error, index = _npm_block(lines, index)
            if error:
                errors.append(error)
            continue
        if ("not found" in text or "not recognized" in text) and (command := _SCRIPT_COMMAND.match(text)):
            name = command["sh"] or command["win"]
            category = "configuration" if name in _SYSTEM_TOOLS else "library_unavailable"
            message = text.strip().lstrip("> ")
            errors.append(BuildError(message, category, "npm", log_line=index, specificity=8))
        elif "ERR_PNPM_OUTDATED_LOCKFILE" in text or "ERR_PNPM_LOCKFILE_CONFIG_MISMATCH" in text:
            errors.append(_pnpm_lockfile(lines, index))
        elif " error TS" in text or "error TS" in text[:12]:
            found = _TSC_LOCATED.match(text) or _TSC_GLOBAL.match(text)
            if found:
                errors.append(_tsc(found.groupdict(), index, lines))
        elif "): : " in text and (ngc := _NGC.match(text)):
            place = (ngc["file"], int(ngc["line"]), int(ngc["col"]))
            message = ngc["msg"].strip()
            category = classify(message, "tsc")
            errors.append(BuildError(message, category, "ngc", *place, log_line=index, specificity=10))
        elif "ERROR in" in text and "error TS" not in text and (webpack := _webpack_tsc(lines, index + 1)):
            errors.append(webpack)
            index += 1
        elif (
            "Error" in text
            and (node := _NODE_ERROR.match(text))
            and _has_js_stack(lines, index)
            and not tests.covers(index)  # an error a failing test threw belongs to that test
        ):
            errors.append(_node_error(lines, index, node))
        index += 1
    errors.extend(tests.errors)
    errors.sort(key=lambda e: e.log_line or 0)
    return errors


PARSER = Parser(
    name="npm",
    triggers=(
        "ERR_PNPM_",
        "npm ERR!",
        "npm error",
        "command not found",
        ": not found",
        "not recognized as an internal",
        "error TS",
        "ERROR in",
        "Error",
        "not ok",
        "✖",
        "✕",
        "failing",
        "Tests:",
        "FAIL ",  # jest's and vitest's badge
    ),
    parse=parse,
)
