"""npm, TypeScript compiler, Node.js and JavaScript test-runner errors.

npm prints one error as a block of `npm ERR! ...` (npm <= 9) or `npm error ...` (npm >= 10)
lines whose `code` line names the kind; we report one error per block. tsc, node and the test
runners (node --test, jest, mocha) print their own formats, read line by line.
"""

from __future__ import annotations

import re

from buildfixer.logs.parsers import Parser
from buildfixer.records import BuildError

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
_LIFECYCLE = re.compile(
    r"^(?:Lifecycle script `.+` failed|.*@.* \w+: `.+`|Failed at the .* script|command failed)"
)
_ENOENT_PATH = re.compile(r"open '(?P<path>[^']+)'")

# tsc: `src/a.ts(12,5): error TS2345: ...` and `src/a.ts:12:5 - error TS2554: ...`; the Angular
# CLI puts `ERROR in ` or `Error: ` before them and reports template errors in `.html` files.
_TSC_LOCATED = re.compile(
    r"^\s*(?:ERROR in |Error: )?"
    r"(?P<file>[^\s(:][^(:]*?(?::[\\/][^(:]*?)?\.(?:[cm]?tsx?|[cm]?jsx?|json|vue|svelte|html))"
    r"(?:\((?P<line>\d+),(?P<col>\d+)\):| ?:(?P<line2>\d+):(?P<col2>\d+) -)"
    r" error (?P<code>TS\d+): (?P<msg>.+)"
)
_TSC_GLOBAL = re.compile(r"^\s*error (?P<code>TS\d+): (?P<msg>.+)")
# webpack's TypeScript loaders: `ERROR in <file>[(line,col)]`, the diagnostic on the next line.
_WEBPACK_HEADER = re.compile(
    r"^\s*(?:\[tsl\] )?ERROR in (?P<file>\S+?)(?:\((?P<line>\d+),(?P<col>\d+)\))?\s*$"
)
_WEBPACK_TSC = re.compile(
    r"^\s*(?:\((?P<line>\d+),(?P<col>\d+)\):? )?(?:error )?(?P<code>TS\d+): (?P<msg>.+)"
)
_TSC_MODULE = re.compile(r"Cannot find module '(?P<module>[^']+)'")

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

# Test runners.
_TAP_NOT_OK = re.compile(r"^\s*not ok \d+ - (?P<name>.+?)(?P<directive> # (?:TODO|SKIP)\b.*)?$")
_TAP_RESULT = re.compile(r"^\s*(?:not )?ok \d+ ")
_TAP_LOCATION = re.compile(r"^\s*location: '(?P<file>.+?):(?P<line>\d+):\d+'")
_TAP_ERROR = re.compile(r"^\s*error: (?P<msg>.+)")
_SPEC_FAIL = re.compile(r"^\s*[✖✕×] (?P<name>.+?)(?: \([\d.]+ ?m?s\))?$")
_JEST_BLOCK = re.compile(r"^\s*● (?P<name>.+)$")
_JEST_FILE = re.compile(r"^FAIL (?P<file>\S.*)$")
_JEST_AT = re.compile(r"^\s+at .*?\(?(?P<file>[^\s()]+?\.[cm]?[jt]sx?):(?P<line>\d+):\d+\)?$")
_MOCHA_FAIL = re.compile(r"^\s+\d+\) (?P<name>.+?):?$")
_TEST_TOTALS = re.compile(r"^(?:# fail [1-9]\d*|ℹ fail [1-9]\d*|Tests:\s+\d+ failed.*|\s*\d+ failing)$")
_RELATIVE = re.compile(r"^(?:\.{1,2}[\\/]|[\\/]|[A-Za-z]:[\\/]|file:)")


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
        category = "resource_missing" if _RELATIVE.match(module["module"]) else "library_unavailable"
    elif code in ("TS7016", "TS2688"):
        category = "library_unavailable"
    elif code in ("TS6053", "TS6231", "TS5083", "TS5058"):
        category = "resource_missing"  # a file tsconfig.json names is absent
    elif code.startswith("TS5") or code in ("TS18003", "TS6046"):
        category = "configuration"  # compiler options and tsconfig.json
    line, col = groups.get("line") or groups.get("line2"), groups.get("col") or groups.get("col2")
    # tsc puts the detail of a chained message on the next, indented line ("Type 'x' is ...").
    follow = lines[index + 1].strip() if index + 1 < len(lines) and lines[index + 1].startswith("  ") else ""
    if follow and not follow[0].isdigit() and not follow.startswith("~"):
        message = f"{message} {follow}"
    return BuildError(
        message=f"{code}: {message}",
        category=category,
        tool="tsc",
        file=groups.get("file"),
        line=int(line) if line else None,
        column=int(col) if col else None,
        log_line=index,
        specificity=_tsc_specificity(code, bool(groups.get("file"))),
    )


def _webpack_tsc(lines: list[str], index: int) -> BuildError | None:
    """A diagnostic that webpack's TypeScript loaders print below an `ERROR in <file>` line.

    ts-loader writes `ERROR in ./src/a.ts` then `(2,29): error TS2307: ...`; the
    `[tsl]` form puts the position on the header and `TS2307: ...` on the next line.
    """
    if not 0 < index < len(lines):
        return None
    header = _WEBPACK_HEADER.match(lines[index - 1])
    diagnostic = _WEBPACK_TSC.match(lines[index])
    if not header or not diagnostic:
        return None
    groups = {**diagnostic.groupdict(), "file": header["file"]}
    groups["line"] = groups["line"] or header["line"]
    groups["col"] = groups["col"] or header["col"]
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
            file, line = header["file"], int(header["line"])
            break
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
        category = "resource_missing" if _RELATIVE.match(missing["module"]) else "library_unavailable"
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
        specificity=(10 if category == "syntax" else 9) if file else 7,
    )


def _test_failures(lines: list[str]) -> list[BuildError]:
    """Failing tests of node --test (TAP and spec), jest and mocha."""
    errors: list[BuildError] = []
    jest_file: str | None = None
    names: set[str] = set()
    for index, text in enumerate(lines):
        if (jest := _JEST_FILE.match(text)) is not None:
            jest_file = jest["file"]
            continue
        tap = _TAP_NOT_OK.match(text)
        if tap and not tap["directive"]:
            errors.append(_tap_failure(lines, index, tap["name"]))
        elif (block := _JEST_BLOCK.match(text)) and block["name"] not in names:
            names.add(block["name"])
            errors.append(_block_failure(lines, index, block["name"], jest_file))
        elif (
            (spec := _SPEC_FAIL.match(text))
            and text.lstrip()[0] in "✖×"
            and spec["name"] != "failing tests:"
            and not spec["name"].startswith("｢")  # webpack-dev-middleware's `✖ ｢wdm｣:` log tag
            # node's spec reporter lists each failure twice (inline and under "failing tests:").
            and spec["name"] not in names
        ):
            names.add(spec["name"])
            errors.append(_block_failure(lines, index, spec["name"], None))
    if not errors:
        errors = [
            BuildError(t.strip(), "test_failure", "node", log_line=i, specificity=1)
            for i, t in enumerate(lines)
            if ("fail" in t or "Tests:" in t) and _TEST_TOTALS.match(t)
        ][:1]
    return errors


def _tap_failure(lines: list[str], index: int, name: str) -> BuildError:
    """`not ok N - name` and its YAML block (location, error)."""
    error = BuildError(f"not ok - {name}", "test_failure", "node", log_line=index, specificity=9)
    detail = ""
    end = min(len(lines), index + 40)
    for at in range(index + 1, end):
        text = lines[at]
        if _TAP_RESULT.match(text):
            break
        if location := _TAP_LOCATION.match(text):
            error.file, error.line = location["file"], int(location["line"])
        elif not detail and (err := _TAP_ERROR.match(text)):
            detail = err["msg"].strip().strip("'\"")
            if detail in ("|-", "|", ">-", "|+"):
                # A YAML block scalar: the message is on the following indented lines.
                detail = next((t.strip() for t in lines[at + 1 : end] if t.strip()), "")
    if detail:
        error.message = f"{error.message}: {detail}"
    return error


def _block_failure(lines: list[str], index: int, name: str, file: str | None) -> BuildError:
    """A jest `● name` / node spec `✖ name` block: the first message line and the test's frame."""
    error = BuildError(name, "test_failure", "node", file, log_line=index, specificity=9)
    detail = ""
    for text in lines[index + 1 : index + 40]:
        if _JEST_BLOCK.match(text) or _SPEC_FAIL.match(text):
            break
        stripped = text.strip()
        if (
            not detail
            and stripped
            and not stripped.startswith(("at ", ">", "|"))
            and not stripped[0].isdigit()
        ):
            detail = stripped
        if (frame := _JEST_AT.match(text)) and "node_modules" not in frame["file"] and "node:" not in text:
            error.file, error.line = frame["file"], int(frame["line"])
            break
    error.message = f"{name}: {detail}" if detail else name
    return error


def parse(lines: list[str]) -> list[BuildError]:
    """Find npm, tsc, Node.js and test-runner errors in a cleaned log.

    Args:
        lines: The cleaned log, one entry per line.

    Returns:
        The errors in log order.
    """
    errors: list[BuildError] = []
    index = 0
    while index < len(lines):
        text = lines[index]
        if text.startswith(("npm", " ")) and _NPM_PREFIX.match(text):
            error, index = _npm_block(lines, index)
            if error:
                errors.append(error)
            continue
        if " error TS" in text or "error TS" in text[:12]:
            found = _TSC_LOCATED.match(text) or _TSC_GLOBAL.match(text)
            if found:
                errors.append(_tsc(found.groupdict(), index, lines))
        elif "ERROR in" in text and "error TS" not in text and (webpack := _webpack_tsc(lines, index + 1)):
            errors.append(webpack)
            index += 1
        elif "Error" in text and (node := _NODE_ERROR.match(text)) and _has_js_stack(lines, index):
            errors.append(_node_error(lines, index, node))
        index += 1
    errors.extend(_test_failures(lines))
    errors.sort(key=lambda e: e.log_line or 0)
    return errors


PARSER = Parser(
    name="npm",
    triggers=(
        "npm ERR!",
        "npm error",
        "error TS",
        "ERROR in",
        "Error",
        "not ok",
        "✖",
        "✕",
        "failing",
        "Tests:",
    ),
    parse=parse,
)
