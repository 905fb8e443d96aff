"""Python tracebacks: the exception, its category and the project location it points at.

Used by the python parser (this module has no PARSER of its own). A traceback's frames run
through the project's code, installed packages and the interpreter's standard library; only
the first kind is a place to fix. Frames in the interpreter's `lib/pythonX.Y` (`pathlib.py`
opening a file), in `site-packages` or in a build backend's isolated environment are never
reported as the location. When no frame is the project's (a build backend reading the
`readme` that pyproject.toml names), a missing file the message names is the location. Nor is a
pseudo-file (`<unknown>` of `compile()` and `ast.parse`, `<string>`, `<frozen ...>`): a
SyntaxError there points at the file its message names (`invalid syntax (app.py, line 3)`) or at
the frame that parsed the text.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError

TRACEBACK = re.compile(r"^(?P<indent>\s*)Traceback \(most recent call last\):")
FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+)(?P<in>, in .*)?')
# `ValueError: x`, `json.decoder.JSONDecodeError: x`, `KeyboardInterrupt`; the name must look
# like an exception class so that ordinary log lines ("Note: ...") do not end a traceback.
EXCEPTION = re.compile(
    r"^\s*(?:E\s+)?(?P<type>(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|NotFound\w*)|"
    r"StopIteration|AssertionError)(?::\s*(?P<msg>.*))?$"
)
# Frames that are not the project's own code: installed packages, the standard library of
# CPython (`lib/python3.11`, `lib64/...`, Windows `Lib\`, macOS frameworks) and PyPy, build
# backends' isolated environments, pip's hook runner, the import machinery and test runners.
FOREIGN_FRAME = re.compile(
    r"site-packages|dist-packages|[/\\]lib(?:64)?[/\\](?:python|pypy)\d|[/\\]Lib[/\\]|lib-python[/\\]"
    r"|Python\.framework[/\\]|^<|_in_process|pip[/\\]_vendor|pip-build-env|importlib|runpy"
    r"|_pytest[/\\]|pluggy[/\\]"
)
SYNTAX_TYPES = ("SyntaxError", "IndentationError", "TabError")
# pytest refusing to run: a marker no plugin registers (plugin missing, or --strict-markers),
# an unknown ini option or command-line argument.
PYTEST_CONFIG = re.compile(
    r"not found in `markers` configuration option|unrecognized arguments:|Unknown config option"
)
# Build backends, named after the package their frames run in (`site-packages/hatchling/...`).
_BACKEND = re.compile(
    r"[/\\](?P<name>setuptools|hatchling|flit_core|poetry[/\\]core|pdm[/\\]backend|mesonpy|maturin"
    r"|scikit_build_core)[/\\]"
)
# A SyntaxError printed as text names its file: `invalid syntax (app.py, line 3)`.
_NAMED_PLACE = re.compile(r"\((?P<file>[^(),]+?\.pyw?), line (?P<line>\d+)\)")
# `cannot import name 'X' from 'pkg.mod' (/path/to/pkg/mod.py)`: Python 3.8+ names the module's file.
_IMPORT_FROM = re.compile(r"cannot import name '[^']+' from '[^']+' \((?P<path>[^()]+\.py)\)")
# Names a project gives its own top-level package or folder, never an installable distribution's
# import name: `No module named 'app'` in a test run means the project is not on sys.path
# (pytest's `pythonpath`, an editable install, PYTHONPATH), not that a package is missing.
_NO_MODULE = re.compile(r"No module named '?(?P<top>[\w]+)")
_PROJECT_PACKAGES = frozenset(("src", "app", "tests", "test", "main", "settings", "helpers", "utils"))
# The folders pip unpacks a package it builds into: `/tmp/pip-build-x/pkg`, `pip-req-build-x`, ...
_PIP_BUILD_DIR = re.compile(r"[/\\]pip-(?:build|req-build|install|wheel|[a-z0-9_]{6,8}-build)\b")
_MAX_FRAMES_SCAN = 400  # a traceback longer than this is recursion; we stop looking for its end
_BARE_FRAME_SCAN = 6

# A file a message says is absent, in the words of open() (`No such file or directory: 'x'`,
# Windows' `cannot find the file specified: 'x'`) and of build backends: hatchling's
# `Readme file does not exist: README.md`, flit's `Description file README.md does not exist`,
# poetry-core's ``Readme path `/p/README.md` does not exist``, setuptools' `File 'x' cannot be found`.
_MISSING_FILE = (
    re.compile(
        r"(?:No such file or directory|cannot find the (?:file|path) specified)\s*:\s*"
        r"(?P<q>['\"])(?P<path>[^'\"]+)(?P=q)",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:file|path|readme|license|directory)\s*(?:file\s*)?(?:does not exist|not found|is missing"
        r"|cannot be found)\s*:\s*['\"`]?(?P<path>[^\s'\"`]+?)['\"`]?\.?$",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:file|path)\s+['\"`]?(?P<path>[^\s'\"`]+?)['\"`]?\s+(?:does not exist|not found|is missing"
        r"|cannot be found|could not be found)",
        re.IGNORECASE,
    ),
)


def foreign(file: str) -> bool:
    """True for a frame's file that is not the project's (see FOREIGN_FRAME)."""
    return bool(FOREIGN_FRAME.search(file))


def pseudo(file: str) -> bool:
    """True for the name Python gives code that has no file: `<unknown>`, `<string>`, `<frozen os>`."""
    return file.startswith("<") and file.endswith(">")


def missing_file(message: str) -> str | None:
    """The path of a missing file a message names, as named (relative paths stay relative)."""
    for pattern in _MISSING_FILE:
        if found := pattern.search(message):
            path = found["path"].rstrip(".,;:")
            if path and not path.startswith(("<", "-")):
                return path
    return None


def own_import_error(message: str) -> bool:
    """True for an import that fails in the project's own code, not for want of a package.

    Python says so in the trace: a module imported while it was still being initialized
    (`cannot import name 'X' from partially initialized module 'y' (most likely due to a circular
    import)`, or `partially initialized module 'y' has no attribute 'X'` when a project file
    shadows a module of that name), or a name missing from a module whose file it prints and
    that is not an installed package's (`cannot import name 'X' from 'app.models' (/src/app/models.py)`).
    """
    if "partially initialized module" in message or "circular import" in message:
        return True
    found = _IMPORT_FROM.search(message)
    return bool(found and not foreign(found["path"]))


def exception_category(exc_type: str, message: str) -> str:
    """Map an exception type (and its message) to the taxonomy."""
    name = exc_type.rsplit(".", 1)[-1]
    if name in SYNTAX_TYPES:
        return "syntax"
    if name in ("ImportError", "AttributeError") and own_import_error(message):
        return "syntax"  # the fix is in the project's imports, not in what is installed
    missing = _NO_MODULE.search(message) if name in ("ModuleNotFoundError", "ImportError") else None
    if missing and missing["top"] in _PROJECT_PACKAGES:
        return "configuration"  # no package has that name: the project's own code is off sys.path
    if name in ("ModuleNotFoundError", "ImportError") or "DistributionNotFound" in name:
        return "library_unavailable"
    if name == "FileNotFoundError" or "No such file or directory" in message or missing_file(message):
        return "resource_missing"
    if PYTEST_CONFIG.search(message):
        return "configuration"  # the test run itself is misconfigured, no test has failed
    return "other"


def project_frame(frames: list[tuple[str, int]]) -> tuple[str | None, int | None]:
    """The innermost frame in the project's own code, or none."""
    for index in range(len(frames) - 1, -1, -1):
        file, line = frames[index]
        if file == "<string>" and index > 0 and "build_meta" in frames[index - 1][0]:
            # setuptools' build backend execs setup.py as "<string>".
            return "setup.py", line
        if not foreign(file):
            return file, line
    return None, None


def traceback(lines: list[str], start: int, tool: str) -> tuple[BuildError | None, int]:
    """Read a traceback (or a bare compile error) from `start`; return it and the next index."""
    frames: list[tuple[str, int]] = []
    syntax_frame: tuple[str, int] | None = None
    has_header = bool(TRACEBACK.match(lines[start]))
    # A bare `File "x", line N` is a compile error only when its SyntaxError follows right away;
    # frames `File "x", line N, in f` without the header line are a traceback pasted without it.
    frame = FRAME.match(lines[start])
    headless = bool(frame and frame["in"])
    end = min(len(lines), start + (_MAX_FRAMES_SCAN if has_header or headless else _BARE_FRAME_SCAN))
    index = start + 1 if has_header else start
    while index < end:
        text = lines[index]
        if frame := FRAME.match(text):
            frames.append((frame["file"], int(frame["line"])))
            # A frame without ", in func" is where a SyntaxError points.
            syntax_frame = (frame["file"], int(frame["line"])) if not frame["in"] else None
        elif exc := EXCEPTION.match(text):
            message = (exc["msg"] or "").strip()
            return _exception(exc["type"], message, frames, syntax_frame, start, tool), index + 1
        elif not text.strip() and not frames:
            break
        index += 1
    return None, index


def _exception(
    exc_type: str,
    message: str,
    frames: list[tuple[str, int]],
    syntax_frame: tuple[str, int] | None,
    start: int,
    tool: str,
) -> BuildError:
    file: str | None
    line: int | None
    syntax = exc_type.rsplit(".", 1)[-1] in SYNTAX_TYPES
    named = _NAMED_PLACE.search(message) if syntax else None
    if syntax and syntax_frame and not pseudo(syntax_frame[0]):
        file, line = syntax_frame
    elif named and not pseudo(named["file"]):
        file, line = named["file"], int(named["line"])
    else:
        # Text compiled under a pseudo-name (`ast.parse` of a file a tool read): the frame that parsed it.
        file, line = project_frame(frames)
    category = exception_category(exc_type, message)
    if file is None and frames and category == "syntax" and own_import_error(message):
        file, line = frames[-1]  # an installed package's own import cycle closes in its innermost frame
    if category == "syntax" and file and _PIP_BUILD_DIR.search(file):
        # A package pip is building from its release does not have a syntax error in the Python it
        # supports: the interpreter is the wrong one (Python 2's pip on annotations, say).
        category = "configuration"
    if tool == "setuptools":
        # Inside pip's build-backend output: name the backend whose code raised.
        backend = next((b for f, _ in reversed(frames) if (b := _BACKEND.search(f))), None)
        if backend:
            tool = re.sub(r"[/\\_]", "-", backend["name"])  # poetry-core, flit-core, pdm-backend
    if file is None and category == "resource_missing":
        # Only library code ran (a build backend reading the readme pyproject.toml names):
        # the file to create or fix the reference to is the one the message names.
        file = missing_file(message)
    return BuildError(
        message=f"{exc_type}: {message}" if message else exc_type,
        category=category,
        tool=tool,
        file=file,
        line=line,
        log_line=start,
        specificity=10 if file and category != "other" else 8 if file else 6,
    )
