"""The judge's rules for tests made weaker without being removed: what a patch changes inside a test.

A test that still runs can still check less. These rules read one test file's change
(`diff.FileChange`) and find, in the words of the frameworks they know (JUnit 4/5, TestNG,
AssertJ, Hamcrest, kotlin.test and Kotest; pytest and unittest; Jest, Vitest, Chai and
`node:assert`):
- an exact assertion replaced by a weaker one (equality by a non-null check, a range, the truth
  of a comparison, `toBeDefined`), or by one with a tolerance;
- an expected exception broadened (`IllegalArgumentException` to `Exception`, `toThrow()`);
- a failure swallowed (a catch of `AssertionError` or of everything, `contextlib.suppress`,
  `pytest.raises(Exception)` around an assertion, an empty catch);
- a test that returns before it checks anything;
- cases dropped from a parametrized test's table.
Each compares what a hunk removed with what it added, so a line the patch left alone never counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from buildfixer.core.file_kinds import is_test
from buildfixer.judge.diff import FileChange, Line, code_lines
from buildfixer.judge.verdict import Finding

EXACT, WEAK, TOLERANT = "exact", "weak", "tolerant"

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
    (TOLERANT, r"\bassertEquals\s*\([^,;]+,[^;]+,\s*(\d*\.\d+|\d+[eE]-?\d+|\d+[fFdD])\s*\)\s*;?\s*$"),
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
# Constructs that name the exception a test expects, and the exception they name.
_EXPECTS = [
    r"\bassertThrows\w*\s*\(\s*(?P<type>[\w.]+)\.class",
    r"\bexpected(Exceptions)?\s*=\s*\{?\s*(?P<type>[\w.]+)\.class",
    r"\b(assertThatExceptionOfType|thrown\.expect)\s*\(\s*(?P<type>[\w.]+)\.class",
    r"\.isInstanceOf\s*\(\s*(?P<type>[\w.]+)\.class",
    r"\b(assertFailsWith|shouldThrow\w*)\s*<\s*(?P<type>[\w.]+)\s*>",
    r"\bassertFailsWith\s*\(\s*(?P<type>[\w.]+)::class",
    r"\b(pytest\.raises|assertRaises\w*)\s*\(\s*\(?\s*(?P<type>[\w.]*)",
    r"\.(toThrow|toThrowError|rejects\.toThrow)\s*\(\s*(?P<type>[^)]*)\)",
    r"\bassert\.(throws|rejects)\s*\(.*?,\s*(?P<type>[\w.]+)\s*\)",
]
_BROAD = {
    "", "Exception", "Throwable", "RuntimeException", "BaseException", "Error", "AssertionError",
    "java.lang.Exception", "java.lang.Throwable", "java.lang.RuntimeException", "java.lang.Error",
    "kotlin.Exception", "kotlin.Throwable", "builtins.Exception",
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
# A bare return: the test ends before its assertions run.
_RETURNS = re.compile(r"^\s*(if\s*\(?\s*(true|True|1)\s*\)?\s*:?\s*)?return\s*;?\s*$")
# A parametrized test's table: the markers, and a line that is only a row of literals.
_TABLES = re.compile(
    r"\bparametrize\b|@(CsvSource|ValueSource|MethodSource|EnumSource|ArgumentsSource|DataProvider|Parameters)\b"
    r"|\bArguments\.(of|arguments)\s*\(|\.each\s*[(`]|\bsubTest\s*\(|\bpytest\.param\s*\("
)
_IMPORT = re.compile(r"^\s*(import|from\s+\S+\s+import|package|using|#include)\b|\b(require|import)\s*\(")
_PATH = re.compile(r"[/\\]|\.[A-Za-z]\w{0,4}[\"'`]?$")
_LITERAL = re.compile(r"\"(\\.|[^\"\\])*\"|'(\\.|[^'\\])*'|`[^`]*`|-?\b\d+(\.\d+)?[LlFfDd]?\b")
_ROW_WORDS = re.compile(
    r"\b(pytest\.param|Arguments\.of|arguments|of|id|ids|None|True|False|null|true|false|new|Object)\b"
)


def check(change: FileChange) -> list[Finding]:
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
    """A hunk that removes exact assertions and adds weaker or approximate ones in their place."""
    findings = []
    for hunk in change.hunks:
        removed = _kinds(code_lines(hunk.removed, change.path))
        added = _kinds(code_lines(hunk.added, change.path))
        lost = [line for line, kind in removed if kind == EXACT]
        gained = [line for line, kind in added if kind == EXACT]
        weaker = [line for line, kind in added if kind in (WEAK, TOLERANT)]
        before = [line for line, kind in removed if kind in (WEAK, TOLERANT)]
        if len(lost) > len(gained) and len(weaker) > len(before):
            old, new = lost[0], weaker[len(before)]
            detail = f"an exact assertion made weaker: `{_cut(old.text)}` -> `{_cut(new.text)}`"
            findings.append(Finding("assertion_weakened", change.path, new.number, detail))
    return findings


def _broadened_exceptions(change: FileChange) -> list[Finding]:
    """An expected exception replaced by a broader one (or by none: `toThrow()`)."""
    findings = []
    for hunk in change.hunks:
        specific = [t for t in _expected(hunk.removed, change.path) if t[1] not in _BROAD]
        broad = [t for t in _expected(hunk.added, change.path) if t[1] in _BROAD]
        if specific and broad:
            (_, old), (line, new) = specific[0], broad[0]
            detail = f"the expected exception broadened: {old} -> {new or 'any exception'}"
            findings.append(Finding("exception_broadened", change.path, line.number, detail))
    return findings


def _swallowed_failures(change: FileChange) -> list[Finding]:
    """A catch of assertion failures (or of everything), a suppress or a raises around the check, added.

    Also any catch whose body the patch leaves empty (`catch (e) {` then `}`, `except ...:` then `pass`).
    """
    removed = " ".join(line.text for line in change.removed)
    added = code_lines(change.added, change.path)
    following = {line.number: line.text.strip() for line in added}
    findings = []
    for line in added:
        opens_empty = re.search(r"\bcatch\b[^{]*\{\s*$|^\s*except\b[^:]*:\s*$", line.text) and following.get(
            line.number + 1
        ) in ("}", "pass", "...")
        found = next((m for p in _SWALLOWS if (m := re.search(p, line.text))), None)
        if opens_empty or (found and found.group(0).strip() not in removed):
            detail = f"a failure is caught and dropped: `{_cut(line.text)}`"
            findings.append(Finding("failure_swallowed", change.path, line.number, detail))
    return findings


def _early_returns(change: FileChange) -> list[Finding]:
    """A bare `return` added to a test: what follows it never runs."""
    return [
        Finding(
            "test_returns_early", change.path, line.number, f"the test returns early: `{_cut(line.text)}`"
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
            detail = f"cases dropped from a parametrized test: `{_cut(removed[0].text)}`"
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
        before = {_shape(line.text): line for line in code_lines(hunk.removed, change.path)}
        for line in code_lines(hunk.added, change.path):
            old = before.get(_shape(line.text))
            if old is None or old.text.strip() == line.text.strip() or _IMPORT.search(line.text):
                continue
            pairs = zip(_literals(old.text), _literals(line.text), strict=False)
            values = [new for was, new in pairs if was != new]
            if not values or all(_PATH.search(value) for value in values):
                continue  # a module, resource or file path fixed is no input of the code under test
            kind = assertion_kind(line.text)
            change_ = f"`{_cut(old.text)}` -> `{_cut(line.text)}`"
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


def _expected(lines: Iterable[Line], path: str) -> list[tuple[Line, str]]:
    """The exceptions the lines expect: (line, type name; "" when any exception is)."""
    found = []
    for line in code_lines(lines, path):
        for pattern in _EXPECTS:
            if match := re.search(pattern, line.text):
                found.append((line, match.group("type").strip()))  # "" (toThrow()): any exception
                break
    return found


def _table(lines: Iterable[Line], path: str) -> list[Line]:
    """The lines of a parametrized test's table: its marker lines, and rows of literals."""
    return [line for line in code_lines(lines, path) if _TABLES.search(line.text) or _is_row(line.text)]


def _is_row(text: str) -> bool:
    """A line that is only a row of literals (with the punctuation and words tables are written with)."""
    if not _LITERAL.search(text):
        return False
    rest = _ROW_WORDS.sub("", _LITERAL.sub("", text))
    return not re.sub(r"[\s()\[\]{},:=.]", "", rest)


def _values(lines: list[Line]) -> int:
    return sum(len(_LITERAL.findall(line.text)) for line in lines)


def _literals(text: str) -> list[str]:
    return [found.group(0) for found in _LITERAL.finditer(text)]


def _shape(text: str) -> str:
    """The line with its literals blanked: what stays the same when only a value changes."""
    text = re.sub(r"\"(\\.|[^\"\\])*\"|'(\\.|[^'\\])*'", "S", text)
    return re.sub(r"\b(\d+(\.\d+)?[fFdDlL]?|true|false|True|False|None|null)\b", "N", text).strip()


def _cut(text: str) -> str:
    return text.strip()[:70]
