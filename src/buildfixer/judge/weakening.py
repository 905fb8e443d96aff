"""The judge's rules for tests made weaker without being removed: what a patch changes inside a test.

A test that still runs can still check less. These rules read one test file's change
(`diff.FileChange`) and find, in the words of the frameworks they know (JUnit 4/5, TestNG,
AssertJ, Hamcrest, kotlin.test and Kotest; pytest and unittest; Jest, Vitest, Chai and
`node:assert`):
- an assertion replaced by one that checks less (exact > tolerant > weak: equality by a non-null
  check, a range, the truth of a comparison, `toBeDefined`, a tolerance), or whose compared value
  is normalised first (`.lower()`, `trim()`, `round(...)`);
- an expected exception broadened (`IllegalArgumentException` to `Exception`, more types, `toThrow()`);
- a failure swallowed (a catch of `AssertionError` or of everything, a catch that only logs,
  `contextlib.suppress`, `pytest.raises(Exception)` around an assertion);
- a test that returns before it checks anything (bare or guarded);
- cases dropped from a parametrized test's table;
- a tolerance rewritten, and, when the patch changes nothing but tests, an expected value or the
  test's input changed (`changed_values`).
Each compares what a hunk removed with what it added, so a line the patch left alone never counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from buildfixer.core.file_kinds import is_test
from buildfixer.judge.diff import FileChange, Line, code_lines
from buildfixer.judge.verdict import Finding, excerpt

EXACT, WEAK, TOLERANT = "exact", "weak", "tolerant"
_STRENGTH = {EXACT: 3, TOLERANT: 2, WEAK: 1}
# Calls that make two values compare equal that were not: case, space, rounding, order.
_NORMALISERS = re.compile(
    r"\.(lower|upper|casefold|strip|trim|toLowerCase|toUpperCase|toLocaleLowerCase|trimEnd|trimStart)\s*\("
    r"|\b(round|Math\.round|Math\.floor|Math\.ceil|floor|ceil|int|sorted|abs|Math\.abs|toFixed)\s*\("
    r"|IgnoringCase|IgnoreCase|IgnoringWhitespace"
)

# What a truth assertion is given: an equality checks a value, a relation only a range, a sign or presence.
_EQUALITY = r"(?<![!<>=])===?|\.equals\s*\(|\bis\s+(None|True|False)\b|\bEquals?\s*\("
_RELATION = r"[<>]|!=|\bis\s+not\b|\binstanceof\b|\bisinstance\s*\(|\bin\b|\bnot\b|\|\||&&|\bor\b"
# Truth assertions, by what they are given: Python's assert statement, assertTrue/assertFalse,
# AssertJ's assertThat(...).isTrue() and Jest's expect(...).toBe(true).
_TRUTHS = [
    re.compile(r"^\s*assert\s+(?P<expr>.+?);?$"),
    re.compile(r"\bassert(True|False)\s*\((?P<expr>.*)\)"),
    re.compile(
        r"\b(assertThat|assert_that|expect)\s*\((?P<expr>.*)\)\s*\.\s*(isTrue|isFalse|is_true|is_false)\s*\(\s*\)"
    ),
    re.compile(r"\bexpect\s*\((?P<expr>.*)\)\s*\.\s*(toBe|toEqual|toStrictEqual)\s*\(\s*(true|false)\s*\)"),
    re.compile(r"(?<![\w.])assert(\.ok)?\s*\((?P<expr>.*)\)"),  # node:assert's assert(x), assert.ok(x)
]
# A line that asserts at all: the kinds below are only read on such lines (offset(3) alone checks nothing).
_ASSERTS = re.compile(
    r"\b(assert\w*|expect\w*|should\w*|verify\w*|check(That)?)\b|\bt\.(equal|ok|deepEqual)\b"
)
# In order: the first that matches a line decides its kind.
_KINDS: list[tuple[str, str]] = [
    # Tolerances: an approximate comparison passes values an exact one rejects.
    (
        TOLERANT,
        r"\bpytest\.approx\s*\(|\bapprox\s*\(|\bassert(Not)?AlmostEquals?\s*\(|\.toBeCloseTo\s*\(|\bisCloseTo\s*\("
        r"|\bcloseTo\s*\(|\bwithin(Percentage)?\s*\(|\bbyLessThan\s*\(|\boffset\s*\(|\bisclose\s*\("
        r"|\bassert_allclose\s*\(|\bplusOrMinus\b|\.closeTo\s*\(|\.approximately\s*\(",
    ),
    # A double compared with a delta: assertEquals(expected, actual, 0.01).
    (
        TOLERANT,
        r"\bassert(Equals|ArrayEquals)\s*\([^,;]+,[^;]+,\s*-?(\d*\.\d+|\d+)([eE]-?\d+)?[fFdDlL]?\s*\)\s*;?\s*$",
    ),
    # Negated or presence-only forms come before the exact ones they contain.
    (
        WEAK,
        r"\bassert(Not\w+|IsNot\w*|Greater\w*|Less\w*|In|IsInstance|InstanceOf|Regex|True|False|Raises)\s*\("
        r"|\.(isNot\w*|isPositive|isNegative|isGreaterThan\w*|isLessThan\w*|isBetween|isStrictlyBetween"
        r"|isInstanceOf\w*|isIn|isTrue|isFalse|contains|containsAnyOf|startsWith|endsWith|matches|hasSizeGreaterThan\w*"
        r"|hasSizeLessThan\w*|isNotEmpty|isNotBlank|isNotZero|isNotNull|doesNotThrow\w*)\s*\("
        r"|\b(notNullValue|nullValue|anything|greaterThan\w*|lessThan\w*|instanceOf|isA|any|not|hasItems?"
        r"|containsString|startsWith|endsWith|hasKey|hasEntry|emptyOrNullString|notEmpty)\s*\("
        r"|\.not\.|\.(toBeDefined|toBeTruthy|toBeFalsy|toBeGreaterThan\w*|toBeLessThan\w*|toBeInstanceOf"
        r"|toContain|toMatch|toHaveBeenCalled|toHaveProperty|toBeNaN)\s*\("
        r"|\.toBe(?!Null\b|Undefined\b|CloseTo\b)[A-Z]\w*\s*\("
        r"|\bexpect\.(anything|any|stringContaining|arrayContaining|objectContaining)\s*\("
        r"|\bassert\.(ok|notEqual|notStrictEqual|notDeepEqual|notDeepStrictEqual|match)\s*\(|\bassert\s*\("
        r"|\.to\.(exist|be\.ok|be\.above|be\.below|be\.at|be\.a|be\.an|include|contain|not)\b"
        r"|\bshould(Not\w*|BeGreaterThan\w*|BeLessThan\w*|BeInstanceOf|BeTypeOf|Contain\w*)\b",
    ),
    (
        EXACT,
        r"\bassert(Equals?|ArrayEquals|IterableEquals|LinesMatch|Same|Is|IsNone|Null|ListEqual|DictEqual"
        r"|TupleEqual|SetEqual|SequenceEqual|MultiLineEqual|CountEqual|ContentEquals|Throws\w*)\s*\("
        r"|\.(isEqualTo\w*|isSameAs|containsExactly\w*|hasSize|isEmpty|isNull|isZero|hasMessage\w*|hasValue"
        r"|isEqualByComparingTo|containsOnly|hasToString)\s*\("
        r"|\b(is|equalTo|contains|containsInAnyOrder|sameInstance|arrayContaining|hasSize|equalToIgnoringCase)\s*\("
        r"|\.(toBe|toEqual|toStrictEqual|toMatchObject|toHaveLength|toMatchSnapshot|toMatchInlineSnapshot"
        r"|toBeNull|toBeUndefined|toHaveBeenCalledWith|toHaveBeenCalledTimes|toThrow\w*|toContainEqual)\s*\("
        r"|\bassert\.(equal|strictEqual|deepEqual|deepStrictEqual|throws|rejects)\s*\("
        r"|\.to\.(equal|eql|deep\.equal|have\.length(Of)?|be\.null|be\.undefined|throw)\b"
        r"|\bshouldBe\b|\bshouldThrow\w*\b|\bassertFailsWith\b",
    ),
]
# Constructs that name the exceptions a test expects. JVM: every `X.class`, `X::class` or `<X>` on
# the line; Python: the first argument (a tuple names several); JavaScript: the first argument of
# toThrow (a name; a message or pattern names no type), the second of assert.throws.
_EXPECTS_JVM = re.compile(
    r"\b(assertThrows\w*|assertThatExceptionOfType|assertThatThrownBy|thrown\.expect|isInstanceOf\w*"
    r"|isExactlyInstanceOf|assertFailsWith|shouldThrow\w*|catchThrowableOfType)\b|\bexpected(Exceptions)?\s*="
)
_JVM_TYPE = re.compile(r"\b([A-Z][\w.]*?)\s*(\.class\b|::class\b)|<\s*([A-Z][\w.]*)\s*>")
_EXPECTS_CALL = re.compile(
    r"\b(?P<py>pytest\.raises|assertRaises\w*)\s*\(|\.(?P<js>toThrow\w*)\s*\(|\bassert\.(?P<node>throws|rejects)\s*\("
)
_BROAD = {
    "Exception", "Throwable", "RuntimeException", "BaseException", "Error", "AssertionError",
}  # fmt: skip
# Added in a test: a failure caught and dropped.
_SWALLOWS = [
    r"\bcatch\s*\(\s*(final\s+)?(java\.lang\.|org\.opentest4j\.|junit\.framework\.)?"
    r"(AssertionError|AssertionFailedError|ComparisonFailure|Throwable|Exception|RuntimeException|Error)\b",
    r"\bcatch\s*\(\s*\w+\s*:\s*(AssertionError|Throwable|Exception|RuntimeException|Error)\b",  # Kotlin
    r"^\s*except\s*(\(\s*)?((builtins\.)?(AssertionError|Exception|BaseException)\b[^:]*)?:",
    r"\b(contextlib\.)?suppress\s*\(",
    r"\b(pytest\.raises|assertRaises)\s*\(\s*\(?\s*(AssertionError|Exception|BaseException)\b",
    r"\bcatch\s*(\(\s*\w*\s*\))?\s*\{\s*(/\*.*?\*/\s*)?\}",  # JavaScript: an empty catch
    r"\.catch\s*\(\s*(\(\s*\w*\s*\)|\w+)\s*=>\s*(\{\s*\}|undefined|null|void\s+0)\s*\)",
    r"\brunCatching\s*\{",
]
# A return without a value, bare or guarded: the test ends before its assertions run.
_RETURNS = re.compile(r"^\s*(}\s*)?(if\b.*?[):]\s*\{?\s*)?return\s*;?\s*\}?\s*((//|#).*)?$")
# A catch or except block opened on the line, and the lines that do nothing with what it caught.
_CATCH_OPENS = re.compile(r"\bcatch\b[^{]*\{\s*((//|/\*).*)?$|^\s*except\b[^:]*:\s*(#.*)?$")
_IDLE = re.compile(
    r"^\s*(//.*|#.*|/?\*.*|pass|\.\.\.|console\.\w+\(.*|System\.(out|err)\.print\w*\(.*|print\(.*"
    r"|(self\.)?(log|logger|LOG|LOGGER|logging)\.\w+\(.*|\w+\.printStackTrace\(\);?|warnings\.warn\(.*)?\s*$"
)
# A parametrized test's table: the markers, and a line that is only a row of literals.
_TABLES = re.compile(
    r"\bparametrize\b|@(CsvSource|ValueSource|MethodSource|EnumSource|ArgumentsSource|DataProvider|Parameters)\b"
    r"|\bArguments\.(of|arguments)\s*\(|\.each\s*[(`]|\bsubTest\s*\(|\bpytest\.param\s*\("
)
# A test's name: the first argument of describe/it/test, a display name.
_TITLE = re.compile(
    r"^\s*(describe|it|test|context|suite)(\.\w+)?\s*\(\s*['\"`]|@DisplayName\s*\(|description\s*="
)
_IMPORT = re.compile(r"^\s*(import|from\s+\S+\s+import|package|using|#include)\b|\b(require|import)\s*\(")
_PATH = re.compile(r"[/\\]|\.[A-Za-z]\w{0,4}[\"'`]?$")
_LITERAL = re.compile(r"\"(\\.|[^\"\\])*\"|'(\\.|[^'\\])*'|`[^`]*`|-?\b\d+(\.\d+)?[LlFfDd]?\b")
_ROW_WORDS = re.compile(
    r"\b(pytest\.param|Arguments\.of|arguments|of|id|ids|None|True|False|null|true|false|new|Object)\b"
)


def weakened(change: FileChange) -> list[Finding]:
    """Every finding of every weakening rule on one file's change (a test file's only)."""
    if not is_test(change.path) or change.deleted:
        return []
    findings: list[Finding] = []
    for rule in _RULES:
        findings += rule(change)
    return findings


def assertion_kind(text: str) -> str | None:
    """How much the assertion on this line checks: EXACT, WEAK, TOLERANT, or None (no assertion)."""
    if not _ASSERTS.search(text):
        return None
    for truth in _TRUTHS:
        if found := truth.search(text):
            # A ">" inside a string compares nothing; a message after the condition checks nothing.
            expr = _condition(_LITERAL.sub("S", found.group("expr")))
            if re.search(_KINDS[0][1], expr):
                return TOLERANT
            return EXACT if re.search(_EQUALITY, expr) and not re.search(_RELATION, expr) else WEAK
    for kind, pattern in _KINDS:
        if re.search(pattern, text):
            return kind
    return None


def _condition(expr: str) -> str:
    """What an assertion is given up to its first comma outside brackets (the message follows it)."""
    depth = 0
    for index, char in enumerate(expr):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            return expr[:index]
    return expr


def _weaker_assertions(change: FileChange) -> list[Finding]:
    """A hunk whose assertions check less than those it removed.

    Exact > tolerant > weak: a hunk that removes assertions of one strength or more and adds weaker
    ones in their place; or an exact assertion whose compared value is now normalised first
    (`.lower()`, `trim()`, `round(...)`), so values that differ in case, space or digits pass.
    """
    findings = []
    for hunk in change.hunks:
        removed = _kinds(code_lines(hunk.removed, change.path))
        added = _kinds(code_lines(hunk.added, change.path))
        for floor in (_STRENGTH[EXACT], _STRENGTH[TOLERANT]):
            lost = [line for line, kind in removed if _STRENGTH[kind] >= floor]
            kept = [line for line, kind in added if _STRENGTH[kind] >= floor]
            weaker = [line for line, kind in added if _STRENGTH[kind] < floor]
            before = [line for line, kind in removed if _STRENGTH[kind] < floor]
            if len(lost) > len(kept) and len(weaker) > len(before):
                old, new = lost[0], weaker[len(before)]
                detail = f"an assertion made weaker: `{excerpt(old.text)}` -> `{excerpt(new.text)}`"
                findings.append(Finding("assertion_weakened", change.path, new.number, detail))
                break
        else:
            exact_before = [_normalisers(line.text) for line, kind in removed if kind == EXACT]
            normalised = [
                line for line, kind in added
                if kind == EXACT and any(was < _normalisers(line.text) for was in exact_before)
            ]  # fmt: skip
            if normalised:
                detail = f"the compared value is normalised before the check: `{excerpt(normalised[0].text)}`"
                findings.append(Finding("assertion_weakened", change.path, normalised[0].number, detail))
    return findings


def _broadened_exceptions(change: FileChange) -> list[Finding]:
    """An expected exception replaced by a broader one, by more types, or by none (`toThrow()`)."""
    findings = []
    for hunk in change.hunks:
        specific = [(line, t) for line, t in _expected(hunk.removed, change.path) if t and not t & _BROAD]
        for line, types in _expected(hunk.added, change.path):
            old = next((t for _, t in specific if not types or types & _BROAD or types > t), None)
            if old is not None:
                new = ", ".join(sorted(types)) or "any exception"
                detail = f"the expected exception broadened: {', '.join(sorted(old))} -> {new}"
                findings.append(Finding("exception_broadened", change.path, line.number, detail))
                break
    return findings


def _swallowed_failures(change: FileChange) -> list[Finding]:
    """A catch of assertion failures (or of everything), a suppress or a raises around the check, added.

    Also any catch the patch adds whose body only logs, comments or passes: whatever it caught,
    the test goes on as if nothing failed.
    """
    removed = " ".join(line.text for line in change.removed)
    added = code_lines(change.added, change.path)
    findings = []
    for line in added:
        found = next((m for p in _SWALLOWS if (m := re.search(p, line.text))), None)
        if (found and found.group(0).strip() not in removed) or _drops_what_it_catches(line, change):
            detail = f"a failure is caught and dropped: `{excerpt(line.text)}`"
            findings.append(Finding("failure_swallowed", change.path, line.number, detail))
    return findings


def _drops_what_it_catches(line: Line, change: FileChange) -> bool:
    """`line` opens a catch (or except) block the patch wrote whose body only logs, comments or passes."""
    if not _CATCH_OPENS.search(line.text):
        return False
    written = {added.number: added.text for added in change.added}
    indent = len(line.text) - len(line.text.lstrip())
    python = line.text.rstrip().endswith(":")
    body: list[str] = []
    number = line.number + 1
    while number in written:
        text = written[number]
        if not python and text.strip().startswith("}"):
            return all(_IDLE.match(part) for part in body)
        if python and text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        body.append(text)
        number += 1
    return python and all(_IDLE.match(part) for part in body) and bool(body)


def _early_returns(change: FileChange) -> list[Finding]:
    """A bare `return` added to a test: what follows it never runs."""
    return [
        Finding(
            "test_returns_early", change.path, line.number, f"the test returns early: `{excerpt(line.text)}`"
        )
        for line in code_lines(change.added, change.path)
        if _RETURNS.match(line.text)
    ]


def _dropped_cases(change: FileChange) -> list[Finding]:
    """Rows of a parametrized test's table removed (rows of literals, or values cut from a one-line table)."""
    findings = []
    for hunk in change.hunks:
        around = " ".join(line.text for line in [*hunk.context, *hunk.removed, *hunk.added])
        removed, added = _table(hunk.removed, change.path), _table(hunk.added, change.path)
        # A table's marker may sit above the hunk: rows of literals lost say it as well.
        rows_lost = sum(_is_row(line.text) for line in removed) > sum(_is_row(line.text) for line in added)
        if removed and (rows_lost or _TABLES.search(around)) and _values(removed) > _values(added):
            detail = f"cases dropped from a parametrized test: `{excerpt(removed[0].text)}`"
            findings.append(Finding("cases_dropped", change.path, removed[0].number, detail))
    return findings


def changed_values(change: FileChange, tests_only: bool) -> list[Finding]:
    """Lines of a test whose literals alone changed: its tolerance, its expected value, its input.

    A tolerance changed is always found. An expected value or the test's input (so the failing
    path no longer runs) only when the patch changes nothing but tests (`tests_only`).

    With a fix in main code or the build beside it, an expected value may change because the fix
    makes the new one right; only the tolerance is never a fix's business.
    """
    if not is_test(change.path) or change.deleted:
        return []
    findings = []
    for hunk in change.hunks:
        if tests_only:  # a tolerance rewritten (abs= to rel=, places= to delta=) with nothing fixed
            was = [
                line
                for line in code_lines(hunk.removed, change.path)
                if assertion_kind(line.text) == TOLERANT
            ]
            now = [
                line for line in code_lines(hunk.added, change.path) if assertion_kind(line.text) == TOLERANT
            ]
            if was and now and {_tolerance(x.text) for x in was} != {_tolerance(x.text) for x in now}:
                detail = f"tolerance changed: `{excerpt(was[0].text)}` -> `{excerpt(now[0].text)}`"
                findings.append(Finding("assertion_weakened", change.path, now[0].number, detail))
                continue
        before = {_shape(line.text): line for line in code_lines(hunk.removed, change.path)}
        for line in code_lines(hunk.added, change.path):
            old = before.get(_shape(line.text))
            if old is None or old.text.strip() == line.text.strip() or _IMPORT.search(line.text):
                continue
            if _TITLE.search(line.text):
                continue  # a test's name is no input (it follows a renamed API)
            pairs = zip(_literals(old.text), _literals(line.text), strict=False)
            values = [new for was, new in pairs if was != new]
            if not values or all(_PATH.search(value) for value in values):
                continue  # a module, resource or file path fixed is no input of the code under test
            kind = assertion_kind(line.text)
            change_ = f"`{excerpt(old.text)}` -> `{excerpt(line.text)}`"
            if kind == TOLERANT and assertion_kind(old.text) == TOLERANT:
                findings.append(
                    Finding("assertion_weakened", change.path, line.number, f"tolerance changed: {change_}")
                )
            elif tests_only and kind:
                detail = f"expected value changed: {change_}"
                findings.append(Finding("assertion_weakened", change.path, line.number, detail))
            elif tests_only:
                detail = f"the test's input changed: {change_}"
                findings.append(Finding("test_input_changed", change.path, line.number, detail))
    return findings


_RULES: list[Callable[[FileChange], list[Finding]]] = [
    _weaker_assertions, _broadened_exceptions, _swallowed_failures, _early_returns, _dropped_cases,
]  # fmt: skip


def _kinds(lines: Iterable[Line]) -> list[tuple[Line, str]]:
    return [(line, kind) for line in lines if (kind := assertion_kind(line.text))]


def _expected(lines: Iterable[Line], path: str) -> list[tuple[Line, frozenset[str]]]:
    """The exceptions each line expects: (line, the type names; empty when any exception will do)."""
    found = []
    for line in code_lines(lines, path):
        if call := _EXPECTS_CALL.search(line.text):
            args = _arguments(line.text, call.end() - 1)
            if call.group("node"):
                args = args[1:]  # assert.throws(fn, expected)
            first = args[0] if args else ""
            names = re.findall(r"[A-Za-z_][\w.]*", first) if not re.match(r"\s*['\"`/{]", first) else []
            types = frozenset(n.rsplit(".", 1)[-1] for n in names if n[:1].isupper() or "." in n)
            found.append((line, types))
        elif _EXPECTS_JVM.search(line.text):
            named = frozenset(
                (m.group(1) or m.group(3)).rsplit(".", 1)[-1] for m in _JVM_TYPE.finditer(line.text)
            )
            if named:
                found.append((line, named))
    return found


def _arguments(text: str, open_paren: int) -> list[str]:
    """The top-level arguments of the call whose "(" is at `open_paren` (up to the line's end)."""
    args, depth, start = [], 0, open_paren + 1
    for index in range(open_paren, len(text)):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:index])
                break
        elif char == "," and depth == 1:
            args.append(text[start:index])
            start = index + 1
    return [arg.strip() for arg in args if arg.strip()]


def _table(lines: Iterable[Line], path: str) -> list[Line]:
    """The lines of a parametrized test's table: its marker lines, and rows of literals."""
    return [line for line in code_lines(lines, path) if _TABLES.search(line.text) or _is_row(line.text)]


def _is_row(text: str) -> bool:
    """A line that is only a row of literals (with the punctuation and words tables are written with)."""
    if not _LITERAL.search(text):
        return False
    rest = _ROW_WORDS.sub("", _LITERAL.sub("", text))
    rest = re.sub(r"\b\w+\s*[:=]", "", rest)  # the keys of an object row, the names of keyword arguments
    return not re.sub(r"[\s()\[\]{},:=.]", "", rest)


def _values(lines: list[Line]) -> int:
    return sum(len(_LITERAL.findall(line.text)) for line in lines)


def _tolerance(text: str) -> tuple[str, ...]:
    """What a tolerant assertion allows: its values and the words naming its tolerance (not its names)."""
    words = re.findall(r"\b(abs|rel|places|delta|digits|within|offset|byLessThan|Percentage)\b", text)
    return (*_literals(text), *words)


def _normalisers(text: str) -> set[str]:
    return {found.group(0) for found in _NORMALISERS.finditer(text)}


def _literals(text: str) -> list[str]:
    return [found.group(0) for found in _LITERAL.finditer(text)]


def _shape(text: str) -> str:
    """The line with its literals blanked: what stays the same when only a value changes."""
    text = re.sub(r"\"(\\.|[^\"\\])*\"|'(\\.|[^'\\])*'", "S", text)
    return re.sub(r"\b(\d+(\.\d+)?[fFdDlL]?|true|false|True|False|None|null)\b", "N", text).strip()
