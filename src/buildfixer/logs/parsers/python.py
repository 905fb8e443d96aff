"""Python build and test errors: pip, build backends (setuptools), tracebacks, compileall, pytest.

Tracebacks are read by pytrace.py; Python-version requirement mismatches by pyversion.py.

A Python failure usually prints its real cause once (a traceback's last line, pip's resolver
verdict, a failed test) and then summaries around it ("subprocess-exited-with-error",
"N failed"). The specific causes get high specificity, the summaries low.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import Parser, pytrace
from buildfixer.logs.taxonomy import toolchain_missing

# --- pip -----------------------------------------------------------------------------------
_PIP_NO_VERSION = re.compile(
    r"ERROR: Could not find a version that satisfies the requirement (?P<req>\S+)"
    r"(?: \(from versions: (?P<versions>[^)]*)\))?"
)
_PIP_NO_DIST = re.compile(r"ERROR: No matching distribution found for (?P<req>\S+)")
_PIP_CONFLICT = re.compile(
    r"ERROR: Cannot install .* because these package versions have conflicting dependencies"
)
_PIP_SIMPLE: tuple[tuple[re.Pattern[str], str, int], ...] = (
    (re.compile(r"ERROR: ResolutionImpossible"), "library_unavailable", 4),
    (re.compile(r"ERROR: Could not open requirements file: .*"), "resource_missing", 8),
    (
        re.compile(r"ERROR: (?:Directory|File) .* (?:is not installable|does not exist).*"),
        "resource_missing",
        8,
    ),
    (re.compile(r"ERROR: Invalid requirement: .*"), "configuration", 8),
    (re.compile(r"ERROR: Could not build wheels for .*"), "other", 2),
    (re.compile(r"ERROR: Failed building wheel for .*"), "other", 2),
    (
        re.compile(
            r"ERROR: (?:Could not install packages due to an OSError|HTTP error|Could not fetch URL).*"
        ),
        "library_unavailable",
        5,
    ),
)
# pip's summaries around a failed build backend; the real error is in the block they close.
_PIP_SUMMARY = re.compile(r"^\s*(?:error: (?:subprocess-exited-with-error|metadata-generation-failed)|× .+)")
# setuptools' own `error: ...` lines (not pip's, which use the same prefix but a dashed code).
_SETUPTOOLS_ERROR = re.compile(r"^\s*error: (?P<msg>(?!subprocess-exited|metadata-generation)[^-\s].*)")

# --- interpreters ------------------------------------------------------------------------
# An interpreter the build asks for and this machine lacks: tox 3's `InterpreterNotFound: python3.8`,
# tox 4's `could not find python interpreter with spec(s): py38`, nox's `Python interpreter 3.8 not
# found`, pyenv's `version `3.8.10' is not installed (set by .../.python-version)`, uv's `No
# interpreter found for Python 3.8`. The pin is what to change (locate.py finds its line).
_INTERPRETER_MISSING = re.compile(
    r"InterpreterNotFound: \S+|could not find python interpreter with spec\(s\): \S+"
    r"|Python interpreter \S+ not found|version .\S+. is not installed \(set by [^)]+\)"
    r"|No interpreter found for Python \S+"
)

# --- compile errors (tracebacks are read by pytrace) -------------------------------------
_COMPILEALL = re.compile(r"^\*\*\* Error compiling '(?P<file>.+)'\.\.\.")

# --- pytest ------------------------------------------------------------------------------
_PYTEST_SECTION = re.compile(r"^=+ (?P<name>FAILURES|ERRORS|short test summary info|warnings summary) =+$")
_PYTEST_HEADER = re.compile(r"^_{2,} (?P<title>.+?) _{2,}$")
_PYTEST_LOCATION = re.compile(r"^(?P<file>[^\s:][^:]*?(?::[\\/][^:]*?)?\.py):(?P<line>\d+): (?P<what>.+)$")
_PYTEST_E_LINE = re.compile(r"^E\s{1,8}(?P<text>.*)$")
_PYTEST_SUMMARY_ITEM = re.compile(
    r"^(?P<kind>FAILED|ERROR) (?P<nodeid>\S+(?:\[[^\]]*\])?)(?: - (?P<msg>.*))?$"
)
_PYTEST_TOTALS = re.compile(r"^=+ (?P<totals>.*\b\d+ (?:failed|errors?)\b.*) in [\d.]+s.*=+$")
# A conftest or test module pytest could not import; outside a `= ERRORS =` section (pasted
# on its own), it is read here with the frames and `E` line below it.
_PYTEST_CONFTEST = re.compile(
    r"^ImportError while (?:loading conftest|importing test module) '(?P<file>.+)'\."
)
_PYTEST_USAGE = re.compile(r"^(?:ERROR: )?(?:pytest|py\.test): error: (?P<msg>.+)")


def _pip_versions(versions: str | None) -> str:
    """Shorten pip's "from versions" list to its ends; the newest are what matter for a fix."""
    if not versions:
        return ""
    items = [v.strip() for v in versions.split(",")]
    if len(items) > 8:
        items = [*items[:2], "...", *items[-5:]]
    return f" (from versions: {', '.join(items)})"


def _pip_line(lines: list[str], index: int, reported: set[str]) -> BuildError | None:
    """One pip error line, or None."""
    text = lines[index].strip()
    if found := _PIP_NO_VERSION.match(text):
        reported.add(found["req"])
        message = (
            f"Could not find a version that satisfies the requirement {found['req']}"
            f"{_pip_versions(found['versions'])}"
        )
        return BuildError(message, "library_unavailable", "pip", log_line=index, specificity=8)
    if (found := _PIP_NO_DIST.match(text)) and found["req"] not in reported:
        return BuildError(
            text.removeprefix("ERROR: "), "library_unavailable", "pip", log_line=index, specificity=8
        )
    if _PIP_CONFLICT.match(text):
        # "The conflict is caused by:" and its indented lines explain which pins clash.
        cause = [t.strip() for t in lines[index + 1 : index + 12] if t.startswith((" ", "\t")) and t.strip()][
            :4
        ]
        message = " ".join([text.removeprefix("ERROR: "), *cause])
        return BuildError(message, "library_unavailable", "pip", log_line=index, specificity=8)
    for pattern, category, specificity in _PIP_SIMPLE:
        if pattern.match(text):
            return BuildError(
                text.removeprefix("ERROR: "), category, "pip", log_line=index, specificity=specificity
            )
    return None


def _pytest_blocks(lines: list[str]) -> dict[str, BuildError]:
    """Failure/error detail blocks of pytest, keyed by their title (test name or "collecting x")."""
    blocks: dict[str, BuildError] = {}
    section = ""
    title: str | None = None
    for index, text in enumerate(lines):
        if found := _PYTEST_SECTION.match(text):
            section, title = found["name"], None
            continue
        if section not in ("FAILURES", "ERRORS"):
            continue
        if header := _PYTEST_HEADER.match(text):
            title = header["title"]
            blocks[title] = BuildError("", "test_failure", "pytest", log_line=index, specificity=9)
            continue
        if title is None:
            continue
        error = blocks[title]
        if e_line := _PYTEST_E_LINE.match(text):
            body = e_line["text"].strip()
            if frame := pytrace.FRAME.match(body):
                # A SyntaxError during collection shows `E     File "x.py", line N`; text compiled as
                # `<unknown>` (ast.parse) keeps the frame above it that parsed it.
                if not pytrace.pseudo(frame["file"]):
                    error.file, error.line = frame["file"], int(frame["line"])
            elif (exc := pytrace.EXCEPTION.match(body)) and exc["type"]:
                error.category = _pytest_category(exc["type"], exc["msg"] or "")
                error.message = body
            elif not error.message and body:
                error.message = body
        elif (location := _PYTEST_LOCATION.match(text)) and not pytrace.foreign(location["file"]):
            # The innermost project frame wins; pytest prints frames outermost first.
            error.file, error.line = location["file"], int(location["line"])
    return blocks


def _pytest_category(exc_type: str, message: str) -> str:
    """A failing test is test_failure unless the test could not even be imported."""
    category = pytrace.exception_category(exc_type, message)
    return category if category != "other" else "test_failure"


def _collecting_block(blocks: dict[str, BuildError], test_file: str) -> BuildError | None:
    """The collection error block of a test file.

    Its header names the file relative to pytest's rootdir, the summary relative to the directory
    pytest ran in: they differ when the configuration sits in an ancestor (a monorepo's root).
    """
    if found := blocks.get(f"ERROR collecting {test_file}"):
        return found
    return next(
        (b for t, b in blocks.items() if t.startswith("ERROR collecting ") and t.endswith(f"/{test_file}")),
        None,
    )


def _pytest(lines: list[str]) -> list[BuildError]:
    """Pytest's failures: the summary items enriched with their detail blocks."""
    blocks = _pytest_blocks(lines)
    errors: list[BuildError] = []
    used: set[str] = set()
    for index, text in enumerate(lines):
        item = _PYTEST_SUMMARY_ITEM.match(text)
        if not item or "::" not in item["nodeid"] and not item["nodeid"].endswith(".py"):
            continue
        nodeid = item["nodeid"]
        test_file, _, test_name = nodeid.partition("::")
        title = test_name.replace("::", ".") if test_name else f"collecting {test_file}"
        block = blocks.get(title) or _collecting_block(blocks, test_file)
        used.add(title)
        message = item["msg"] or ""
        if block and block.message and (not message or message.endswith("...")):
            message = block.message  # the summary line is cut to the terminal width
        category = block.category if block else "test_failure"
        if category == "test_failure" and pytrace.PYTEST_CONFIG.search(message):
            category = "configuration"
        errors.append(
            BuildError(
                message=f"{nodeid} - {message}" if message else nodeid,
                category=category,
                tool="pytest",
                file=block.file if block and block.file else test_file,
                line=block.line if block else None,
                log_line=block.log_line if block else index,
                # A test that cannot even be imported says more than an assertion does.
                specificity=10 if category != "test_failure" else 9,
            )
        )
    if not errors:
        # No summary (e.g. `-p no:terminal` variants or truncated logs): report the blocks.
        errors = [b for t, b in blocks.items() if b.message and t not in used]
    return errors


def parse(lines: list[str]) -> list[BuildError]:
    """Find pip, build backend, traceback, compileall and pytest errors in a cleaned log.

    Args:
        lines: The cleaned log, one entry per line.

    Returns:
        The errors in log order.
    """
    errors: list[BuildError] = []
    reported: set[str] = set()
    in_backend = False  # inside pip's "× ... did not run successfully" output block
    in_pytest_report = False  # pytest's FAILURES/ERRORS sections are read by _pytest()
    index = 0
    while index < len(lines):
        text = lines[index]
        stripped = text.strip()
        if "subprocess-exited-with-error" in text or "did not run successfully" in text:
            in_backend = True
        elif "[end of output]" in text or "See above for output" in text:
            in_backend = False
        if text.startswith("=") and (section := _PYTEST_SECTION.match(text)):
            in_pytest_report = section["name"] in ("FAILURES", "ERRORS")
        if in_pytest_report:
            # Tracebacks a failing test printed belong to that test, not to the build.
            index += 1
            continue
        frame = pytrace.FRAME.match(text)
        # A frame that no frame or header precedes starts a traceback, pasted with or without its header.
        starts = frame and (not frame["in"] or index == 0 or not pytrace.FRAME.match(lines[index - 1]))
        if pytrace.TRACEBACK.match(text) or starts:
            error, after = pytrace.traceback(lines, index, "setuptools" if in_backend else "python")
            if error:
                errors.append(error)
                index = after
                continue
        elif compiled := _COMPILEALL.match(stripped):
            error, after = pytrace.traceback(lines, index + 1, "python")
            if error:
                error.file = error.file or compiled["file"]
                error.log_line = index
                errors.append(error)
                index = after
                continue
        elif stripped.startswith("ERROR: ") and (pip_error := _pip_line(lines, index, reported)):
            errors.append(pip_error)
        elif missing := _interpreter_missing(text, index):
            errors.append(missing)
        elif _PIP_SUMMARY.match(text):
            errors.append(BuildError(stripped.lstrip("× "), "other", "pip", log_line=index, specificity=1))
        elif in_backend and (setup_error := _SETUPTOOLS_ERROR.match(text)):
            errors.append(_setuptools_error(setup_error["msg"], index))
        elif (conftest := _PYTEST_CONFTEST.match(stripped)) or (usage := _PYTEST_USAGE.match(stripped)):
            errors.append(_pytest_special(lines, index, conftest, usage if not conftest else None))
        index += 1
    errors.extend(_pytest(lines))
    if not any(e.tool == "pytest" for e in errors):
        errors.extend(
            BuildError(found["totals"], "test_failure", "pytest", log_line=i, specificity=1)
            for i, t in enumerate(lines)
            if "failed" in t or "error" in t
            if (found := _PYTEST_TOTALS.match(t))
        )
    errors.sort(key=lambda e: e.log_line or 0)
    return _unique(errors)


def _unique(errors: list[BuildError]) -> list[BuildError]:
    """Drop repeats (pip prints its subprocess summary twice), keeping the first."""
    seen: set[tuple[str, str | None, int | None, str]] = set()
    kept = []
    for error in errors:
        key = (error.tool, error.file, error.line, error.message)
        if key not in seen:
            seen.add(key)
            kept.append(error)
    return kept


def _interpreter_missing(text: str, index: int) -> BuildError | None:
    """An interpreter the build asks for and this machine lacks (see _INTERPRETER_MISSING), or None."""
    if "nterpreter" not in text and "not installed" not in text:
        return None  # most lines: the pattern is not even tried
    if found := _INTERPRETER_MISSING.search(text):
        return BuildError(found.group(0), "configuration", "python", log_line=index, specificity=8)
    return None


def _setuptools_error(message: str, index: int) -> BuildError:
    """Setuptools' `error: ...` lines (missing package dirs, flat-layout discovery, no compiler)."""
    if toolchain_missing(message):
        category = "configuration"  # `command 'gcc' failed: No such file or directory`
    elif "does not exist" in message or "No such file" in message or "can't copy" in message:
        category = "resource_missing"
    elif "invalid command 'bdist_wheel'" in message:
        category = "library_unavailable"
    else:
        category = "configuration"
    return BuildError(message.strip(), category, "setuptools", log_line=index, specificity=8)


def _pytest_special(
    lines: list[str], index: int, conftest: re.Match[str] | None, usage: re.Match[str] | None
) -> BuildError:
    """A conftest that cannot be imported, or pytest refusing its command line."""
    if usage:
        # Usually an option of a plugin that is not installed (`--cov` without pytest-cov).
        return BuildError(usage["msg"], "configuration", "pytest", log_line=index, specificity=6)
    assert conftest is not None
    file, line, message, category = conftest["file"], None, lines[index].strip(), "library_unavailable"
    for text in lines[index + 1 : index + 40]:
        if text.startswith("ImportError while "):
            break  # the next module's report: a flood of them must not be read 40 lines each
        if (location := _PYTEST_LOCATION.match(text)) and not pytrace.foreign(location["file"]):
            file, line = location["file"], int(location["line"])
        elif (e_line := _PYTEST_E_LINE.match(text)) and (exc := pytrace.EXCEPTION.match(e_line["text"])):
            message = e_line["text"].strip()
            category = pytrace.exception_category(exc["type"], exc["msg"] or "")
            break
    return BuildError(message, category, "pytest", file, line, log_line=index, specificity=9)


PARSER = Parser(
    name="python",
    # Python-specific words only: "Error"/"FAILED" occur in every failing Gradle log, and
    # running this parser over a 10 MB Gradle log for nothing costs a quarter of a second.
    triggers=(
        "Traceback",
        'File "',
        "pip",
        "pytest",
        "*** Error compiling",
        ".py",
        "python",
        "Python",
        "subprocess-exited-with-error",
        "did not run successfully",
        "ERROR: Could not",
        "ERROR: No matching",
        "test session starts",
        "short test summary",
    ),
    parse=parse,
)
