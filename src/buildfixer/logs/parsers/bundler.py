"""JavaScript bundlers that cannot resolve an import: webpack and Vite/Rollup.

- webpack: `ERROR in ./src/a.js` then `Module not found: Error: Can't resolve 'x' in '<dir>'`
  (the header names the importing file; both may share one line).
- Vite: `[vite]: Rollup failed to resolve import "x" from "<file>".`, printed once as a
  warning and again inside the thrown `Error:`.

A bare name (`lodash`, `@scope/pkg/sub`) is a dependency that is not installed; a relative
or absolute path is a file of the project that is missing.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser
from buildfixer.logs.taxonomy import classify

_WEBPACK = re.compile(r"Module not found: Error: Can't resolve '(?P<module>[^']+)' in '(?P<dir>[^']+)'")
_HEADER = re.compile(r"ERROR in (?P<file>[^\s(]+)")
_ROLLUP = re.compile(r"Rollup failed to resolve import \"(?P<module>[^\"]+)\" from \"(?P<file>[^\"]+)\"")


def _webpack(lines: list[str], index: int, found: re.Match[str]) -> BuildError:
    text = lines[index]
    message = text[found.start() :].strip()
    file = None
    # The header is on the same line (`ERROR in Module not found: ...`) or just above.
    for candidate in (text[: found.start()], *(lines[i] for i in range(index - 1, max(-1, index - 3), -1))):
        if (header := _HEADER.search(candidate)) and header["file"] != "Module":
            file = header["file"].removeprefix("./")
            break
    return BuildError(message, classify(message, "webpack"), "webpack", file, log_line=index, specificity=9)


def parse(lines: list[str]) -> list[BuildError]:
    """Find unresolvable imports reported by webpack and Vite/Rollup.

    Args:
        lines: The cleaned log, one entry per line.

    Returns:
        The errors in log order, one per (module, importing file).
    """
    errors: list[BuildError] = []
    seen: set[tuple[str, str]] = set()
    for index, text in enumerate(lines):
        if "resolve" not in text:
            continue
        if "Module not found" in text and (found := _WEBPACK.search(text)):
            key = (found["module"], found["dir"])
            if key not in seen:
                seen.add(key)
                errors.append(_webpack(lines, index, found))
        elif "Rollup failed" in text and (found := _ROLLUP.search(text)):
            key = (found["module"], found["file"])
            if key not in seen:
                seen.add(key)
                message = f'Rollup failed to resolve import "{found["module"]}" from "{found["file"]}"'
                category = classify(message, "vite")
                file = found["file"]
                errors.append(BuildError(message, category, "vite", file, log_line=index, specificity=9))
    return errors


PARSER = Parser(name="bundler", triggers=("Module not found", "Rollup failed"), parse=parse)
