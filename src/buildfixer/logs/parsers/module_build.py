"""webpack modules that could not be parsed or built: no loader for a file, or a loader's error.

- webpack 5: `ERROR in ./src/a.js 14:4`, then `Module parse failed: Unexpected token (14:4)` and
  `You may need an appropriate loader to handle this file type, currently no loaders are
  configured to process this file.` (Next.js and CRA name the module on a bare `./src/a.js` line).
- webpack 4 and older put the path in the message: `Module parse failed: /abs/src/a.ts Unexpected
  token (7:14)`.
- `Module build failed (from ./node_modules/babel-loader/lib/index.js):` with the loader's error on
  the next line, which names the file and place itself (`SyntaxError: /abs/src/a.js: Unexpected
  token (12:5)`), or says what the loader lacks (`Error: Cannot find module 'sass'`).

- Rollup (and Vite, which builds with it) says the same as webpack's missing loader in its own words:
  `[commonjs--resolver] node_modules/x/a.node (1:0): Unexpected character (Note that you
  need plugins to import files that are not JavaScript)`, with the file on a `file: /abs/a.node:1:0`
  line below when the message has none.

- Create React App: `Failed to compile.`, the module on a line of its own (`./src/index.js`), then the
  error (`Error: [BABEL] /abs/src/index.js: Cannot find module 'gensync'`); ESLint's rows there are
  the eslint parser's.

The place is the module's file and the `(line:col)` webpack or the loader gives. A module webpack
itself cannot parse needs a loader (configuration); a syntax error a loader reports is in the file;
anything else is classified by the loader's own words.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser
from buildfixer.logs.taxonomy import classify

_FAILED = re.compile(r"Module (?:parse|build) failed(?: \(from (?P<loader>[^)]+)\))?:?\s*(?P<rest>.*)")
# A path at the start of what follows (webpack 4, babel): `/abs/a.ts Unexpected`, `/abs/a.js: Unexpected`.
_LEADING_PATH = re.compile(r"^(?:\w*Error: )?(?P<file>(?:[A-Za-z]:)?[^\s:]*[\\/][^\s:]+\.\w+):? ")
_POSITION = re.compile(r"\((?P<line>\d+):(?P<col>\d+)\)")
# The module above the error: `ERROR in ./src/a.js 14:4` (webpack 5, position given), `ERROR in
# ./src/a.js` or a bare `./src/a.js` line (Next.js, CRA).
_MODULE_LINE = re.compile(
    r"^\s*(?:ERROR in |Error: )?(?P<file>\.{0,2}[\\/]?[^\s:()]*[\\/][^\s:()]+\.\w+)"
    r"(?: (?P<line>\d+):(?P<col>\d+)(?:-[\d:]+)?)?\s*$"
)
# webpack's own parser failed on a module: no loader turns it into JavaScript it reads (JSX, TypeScript,
# CSS, newer syntax than its parser knows). webpack says so (`You may need an appropriate loader`),
# and in the threads that post it the fix is nearly always the loader setup.
_NO_LOADER = re.compile(r"no loaders are configured|need an (?:additional|appropriate) loader")
_ABOVE = 3
_BELOW = 4
_MAX_MESSAGE = 600


# Rollup: a module none of its plugins turned into JavaScript.
_ROLLUP_NOTE = "you need plugins to import files that are not JavaScript"
_ROLLUP_PLACE = re.compile(r"(?:^|\] )(?P<file>[^\s()\[\]]+\.\w+) \((?P<line>\d+):(?P<col>\d+)\)")
_ROLLUP_FILE = re.compile(r"^\s*(?:At )?file: (?P<file>\S+?)(?::(?P<line>\d+):(?P<col>\d+))?(?:\s|$)")


def _rollup(lines: list[str], index: int) -> BuildError:
    """A module Rollup could not parse: no plugin for its kind of file (configuration)."""
    text = lines[index].strip()
    place = _ROLLUP_PLACE.search(text)
    if not place:
        below = lines[index + 1 : index + 1 + _BELOW]
        place = next((found for t in below if (found := _ROLLUP_FILE.match(t))), None)
    file, line, col = (place["file"], place["line"], place["col"]) if place else (None, None, None)
    return BuildError(
        text[:_MAX_MESSAGE],
        "configuration",
        "rollup",
        file,
        int(line) if line else None,
        int(col) if col else None,
        log_line=index,
        specificity=9 if file else 6,
    )


_COMPILE_FAILED = "Failed to compile."
_CRA_LOOK = 4  # lines from `Failed to compile.` to the module line


def _failed_to_compile(lines: list[str], index: int) -> BuildError | None:
    """Create React App's report of a module that failed: the module line and the error below it."""
    rest = [(n, t) for n, t in enumerate(lines[index + 1 : index + 1 + _CRA_LOOK], index + 1) if t.strip()]
    module = next(((n, found) for n, t in rest if (found := _MODULE_LINE.match(t))), None)
    if not module:
        return None
    at, found = module
    detail = next((t.strip() for t in lines[at + 1 : at + 3] if t.strip()), "")
    if not detail or detail.startswith("Line ") or detail[0].isdigit():
        return None  # ESLint's rows, which the eslint parser reads
    position = _POSITION.search(detail)
    category = classify(detail, "webpack")
    return BuildError(
        detail[:_MAX_MESSAGE],
        "syntax" if category == "other" or "SyntaxError" in detail else category,
        "webpack",
        found["file"].removeprefix("./"),
        int(position["line"]) if position else None,
        int(position["col"]) if position else None,
        log_line=at + 1,
        specificity=9,
    )


def _module_above(lines: list[str], index: int) -> re.Match[str] | None:
    for text in lines[max(0, index - _ABOVE) : index][::-1]:
        if text.strip() and (found := _MODULE_LINE.match(text)):
            return found
    return None


def _one(lines: list[str], index: int, found: re.Match[str]) -> BuildError:
    below = [t.strip() for t in lines[index + 1 : index + 1 + _BELOW] if t.strip()]
    rest = found["rest"].strip()
    # A loader's error comes on the next line when the `Module build failed` line ends with a colon.
    detail = rest or (below[0] if below else "")
    message = " ".join(part for part in (found[0].strip(), "" if rest else detail) if part)[:_MAX_MESSAGE]
    file = line = col = None
    if path := _LEADING_PATH.match(detail):
        file = path["file"]
    if position := _POSITION.search(detail):
        line, col = int(position["line"]), int(position["col"])
    if (module := _module_above(lines, index)) and not file:
        file = module["file"]
        if line is None and module["line"]:
            line, col = int(module["line"]), int(module["col"])
    if "Module parse failed" in found[0] or any(_NO_LOADER.search(text) for text in [detail, *below[:2]]):
        category = "configuration"  # no loader (or the wrong one) for this kind of file
    elif "SyntaxError" in detail:
        category = "syntax"  # the loader parsed the file and points at the error in it
    else:
        # A loader that cannot run (`Cannot find module 'sass'`) is classified by its words; one that
        # crashes on a file without a syntax error (a Babel 6 plugin under Babel 7) is its setup.
        category = classify(detail, "webpack")
        category = "configuration" if category == "other" else category
    return BuildError(
        message,
        category,
        "webpack",
        file.removeprefix("./") if file else None,
        line,
        col,
        log_line=index,
        specificity=9 if file else 6,
    )


def parse(lines: list[str]) -> list[BuildError]:
    """Find webpack's `Module parse failed` and `Module build failed` errors, and Rollup's like them.

    Args:
        lines: the cleaned log.

    Returns:
        One error per failing module, in log order.
    """
    errors: list[BuildError] = []
    seen: set[tuple[str | None, int | None, str]] = set()
    for index, text in enumerate(lines):
        error = None
        if "Module " in text and " failed" in text and (found := _FAILED.search(text)):
            error = _one(lines, index, found)
        elif _ROLLUP_NOTE in text:
            error = _rollup(lines, index)
        elif _COMPILE_FAILED in text:
            error = _failed_to_compile(lines, index)
        if error:
            key = (error.file, error.line, error.message)
            if key not in seen:  # Rollup and Vite repeat the error below their summary
                seen.add(key)
                errors.append(error)
    return errors


PARSER = Parser(
    name="module_build",
    triggers=("Module parse failed", "Module build failed", _ROLLUP_NOTE, _COMPILE_FAILED),
    parse=parse,
)
