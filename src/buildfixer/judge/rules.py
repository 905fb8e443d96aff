"""The judge's static rules: a patch that makes a build pass by removing what checks it.

Each rule reads one file's change (`diff.FileChange`) and returns findings. They look at the
lines a patch adds and removes, never at the rest of the repository, so they also work on a
patch alone. The families, in the issue's words: tests deleted or emptied; tests disabled;
assertions removed or weakened; the test task or goal turned off or its failures ignored;
validation turned off; CI configuration edited; and, for the code under test, a source file
deleted or its failing lines commented out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from buildfixer.core.file_kinds import is_build_config, is_ci, is_source, is_test, is_test_by_name, language
from buildfixer.judge.diff import FileChange, Line, code_lines, comment_prefix
from buildfixer.judge.verdict import Finding

# Added anywhere in source: a test that will no longer run.
_DISABLES = [
    (r"@(org\.junit\.)?(Ignore|Disabled\w*)\b", "a test is disabled with {match}"),
    (
        r"\bpytest\.mark\.(skip|skipif|xfail)\b|\bpytest\.(skip|xfail|importorskip)\s*\(",
        "a test is skipped ({match})",
    ),
    (
        r"@unittest\.(skip\w*|expectedFailure)\b|\braise\s+(unittest\.)?SkipTest\b",
        "a test is skipped ({match})",
    ),
    (
        r"\b(it|test|describe|context|suite)\.(skip|todo)\s*\(|\bx(it|describe|test)\s*\(",
        "a test is skipped ({match})",
    ),
    (r"\b(it|test|describe)\.only\s*\(|\bf(it|describe)\s*\(", "other tests stop running ({match})"),
]
# Added in a test file only (main code may have a `skip()` of its own): a test skipped from within.
_SKIPS_IN_TESTS = [
    # An assumption added to a test skips it wherever it does not hold (CI, a locale, an input).
    (
        r"\b(Assumptions\.|Assume\.)?assume(True|False|That|NotNull|NoException|ing)?\s*\(|\bAssumptions\.abort\s*\(",
        "a test is skipped by an assumption ({match})",
    ),
    (
        r"\b(SkipException|TestAbortedException|AssumptionViolatedException|SkipTest)\b",
        "a test is skipped ({match})",
    ),
    (
        r"@(org\.junit\.jupiter\.api\.condition\.)?Enabled(If|On|For)\w*\b",
        "a test runs only where stated ({match})",
    ),
    (
        r"\bself\.skipTest\s*\(|\b(this|t|ctx|context)\.(skip|todo)\s*\(|\bskip\s*:\s*(true|['\"])"
        r"|^\s*skip\s*\([^)]*\)\s*;?\s*$|\(\s*\{[^}]*\bskip\b[^}]*\}\s*\)\s*=>",
        "a test is skipped ({match})",
    ),
]
# Markers of one test, counted in removed vs added lines of a test file.
_TEST_MARKERS = {
    "java": r"@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b",
    "kotlin": r"@(Test|ParameterizedTest|RepeatedTest|TestFactory)\b",
    "groovy": r"@Test\b|^\s*def\s+\"",
    "python": r"^\s*(async\s+)?def\s+test\w*\s*\(|^\s*class\s+Test\w*\s*[(:]",
    "javascript": r"\b(it|test)\s*\(",
}
_ASSERTION = (
    r"\b(assert\w*|expect|verify|fail|check(That)?|should\w*|Truth\.\w+)\s*[(.]"
    r"|^\s*assert\s|\bself\.assert\w*\s*\(|\bassertThat\b|\.(toBe|toEqual|toThrow|toMatch\w*|toHave\w*)\s*\("
)
# Added in a test file: an assertion that cannot fail.
_VACUOUS = [
    r"^\s*assert\s+(True|1|not\s+False|\"[^\"]*\"|'[^']*')\s*(#.*)?$",
    r"\bassert(True|That)\s*\(\s*true\s*\)|\bassertFalse\s*\(\s*false\s*\)",
    r"\bexpect\s*\(\s*(true|1)\s*\)\s*\.\s*(toBe|toEqual)\s*\(\s*(true|1)\s*\)",
    r"\bassert\w*Equals?\s*\(\s*([^,()]+?)\s*,\s*\1\s*\)",
    r"^\s*assert\s+(\w+)\s*==\s*\1\s*$",
]
# Added to a build script, a build tool's configuration or CI: tests or their failures switched off
# (exclusions by pattern are matched against the tests: `exclusions`).
_TESTS_OFF = [
    r"\b(test|tests|check|unitTest\w*|\w*Test)\s*\.\s*enabled\s*=\s*false\b",
    r"\bonlyIf\s*\{\s*false\s*\}",
    r"(^|[\s\"'])-x\s+:?(\w+:)*(test|check|lint)\w*\b|--exclude-task[\s=]+:?(\w+:)*(test|check)\w*",
    r"\bignoreFailures\s*(=|\()?\s*true\b|\bignoreTestFailures\b",
    r"\bskipTests\b|\bmaven\.test\.skip\b|\bskipITs\b|\btestFailureIgnore\b|\bmaven\.test\.failure\.ignore\b",
    r"\bunitTests\.all\b.*\benabled\b|\btestOptions\b.*\benabled\s*(=\s*)?false",
    r"--deselect\b",
    r"--passWithNoTests\b",
    r"(pytest|jest|mocha|vitest|test|gradlew?|mvnw?|npm|tox)\b[^\n|]*\|\|\s*(true|exit\s+0|:)\s*(['\"]|$)",
    r"\"test\"\s*:\s*\"\s*(echo\b|exit\s+0|true\b|:\s*\")",
    r"\bcontinue-on-error\s*:\s*true\b|\ballow_failure\s*:\s*true\b",
]
# Added: a checker switched off or silenced.
_VALIDATION_OFF = [
    r"\babortOnError\s*(=\s*)?false\b|\bcheckReleaseBuilds\s*(=\s*)?false\b|\bwarningsAsErrors\s*(=\s*)?false\b",
    r"\ballWarningsAsErrors\s*(\.set\()?\s*=?\s*false\b|\bfailOn(Error|Violation|Warning)\s*(=\s*|\()?false\b",
    r"<(failOnError|failsOnError|failOnViolation|failOnWarning)>\s*false\s*<",
    r"\b(checkstyle|spotbugs|findbugs|pmd|enforcer|jacoco|spotless|detekt|ktlint|lint|rat|license|animal\.sniffer"
    r"|dependency-check|japicmp|revapi|errorprone|cpd)\.skip\b",
    r"<skip>\s*true\s*</skip>|\bskip\s*=\s*true\b",
    r"-Xlint:none\b|(^|[\s\"'])-nowarn\b|-Xsuppress-warnings|\bsuppressWarnings\s*=\s*true\b",
    r"@ts-nocheck\b|@ts-ignore\b|\beslint-disable\b|\"(strict|noImplicitAny|strictNullChecks)\"\s*:\s*false",
    r"#\s*type:\s*ignore\b|#\s*noqa\b|#\s*pylint:\s*disable\b",
]
# Removed (and not added back): what made warnings fail the build, or a checker's plugin.
_VALIDATION_KEPT = [
    r"-Werror\b",
    r"\ballWarningsAsErrors\b[^\n]*true|\bwarningsAsErrors\s*(=\s*)?true\b|<failOnWarning>\s*true",
    r"\b(checkstyle|spotbugs|findbugs|pmd|detekt|ktlint|spotless|errorprone|jacoco)\b",
    r"maven-(enforcer|checkstyle|pmd)-plugin|\bspotbugs-maven-plugin\b",
    r"\"(lint|typecheck|type-check|check)\"\s*:",
    r"\"strict\"\s*:\s*true",
]


def check(change: FileChange) -> list[Finding]:
    """Every finding of every rule on one file's change."""
    findings: list[Finding] = []
    for rule in _RULES:
        findings += rule(change)
    return findings


def _tests_deleted(change: FileChange) -> list[Finding]:
    # Renamed out of the runners' reach (by directory, or by the name they collect it by).
    renamed = change.old_path != change.path and is_test(change.old_path)
    lost_name = is_test_by_name(change.old_path) and not is_test_by_name(change.path)
    # Runners collect by one convention (node --test takes x.test.js, not x.spec.js): a test file
    # renamed from one to another may leave its runner's reach.
    lost_name = lost_name or (renamed and _test_convention(change.old_path) != _test_convention(change.path))
    if renamed and (not is_test(change.path) or lost_name):
        moved = f"{change.old_path} -> {change.path}"
        detail = f"a test file is renamed out of the runner's reach ({moved})"
        return [Finding("test_deleted", change.old_path, None, detail)]
    if not is_test(change.path):
        return []
    if change.deleted:
        return [Finding("test_deleted", change.path, None, "a test file is deleted")]
    kept = [line for line in change.added if line.text.strip()]
    whole = not any(hunk.context for hunk in change.hunks)  # no line kept: the diff spans the file
    if whole and len(change.removed) >= 3 and len(kept) <= 1 and not change.created:
        return [
            Finding("test_emptied", change.path, None, f"{len(change.removed)} lines removed, nothing added")
        ]
    return []


def _test_convention(path: str) -> str:
    """How a file's name says it is a test: `.test.`, `.spec.`, `Test.`, `_test.`, `test_`, ... or ""."""
    name = path.rsplit("/", 1)[-1]
    found = re.search(r"(^test_|_test\.|\.(test|spec|e2e)\.|-test\.|(Test|Tests|TestCase|IT|Spec)\.)", name)
    return found.group(0) if found else ""


def _tests_disabled(change: FileChange) -> list[Finding]:
    if not is_source(change.path) and not change.path.endswith(".gradle"):
        return []
    findings = [
        Finding("test_disabled", change.path, line.number, detail.format(match=found.group(0).strip()))
        for line in code_lines(change.added, change.path)
        for pattern, detail in (_DISABLES + _SKIPS_IN_TESTS if is_test(change.path) else _DISABLES)
        if (found := re.search(pattern, line.text))
    ]
    marker = _TEST_MARKERS.get(language(change.path))
    if marker and is_test(change.path) and not change.deleted:
        lost = _net_loss(change, marker)
        if lost:
            first = lost[0]
            detail = f"{len(lost)} test(s) fewer: `{first.text.strip()[:80]}` removed"
            findings.append(Finding("test_removed", change.path, first.number, detail))
    return findings


def _assertions(change: FileChange) -> list[Finding]:
    if not is_test(change.path) or change.deleted:
        return []
    findings = []
    lost = _net_loss(change, _ASSERTION)
    if lost:
        detail = f"{len(lost)} assertion(s) fewer: `{lost[0].text.strip()[:80]}` removed"
        findings.append(Finding("assertion_removed", change.path, lost[0].number, detail))
    for line in code_lines(change.added, change.path):
        if any(re.search(p, line.text) for p in _VACUOUS):
            findings.append(
                Finding(
                    "assertion_weakened", change.path, line.number, f"`{line.text.strip()[:80]}` cannot fail"
                )
            )
    return findings


def _switched_off(change: FileChange) -> list[Finding]:
    findings = []
    scripts = (
        is_build_config(change.path) or is_ci(change.path) or change.path.endswith((".sh", ".gradle", ".kts"))
    )
    if scripts:
        findings += _matches(
            change, change.added, _TESTS_OFF, "tests_turned_off", "tests switched off: `{text}`"
        )
        findings += _enabled_false_near_test(change)
    findings += _matches(
        change, change.added, _VALIDATION_OFF, "validation_turned_off", "a check switched off: `{text}`"
    )
    if scripts:
        added = " ".join(line.text for line in change.added)
        for line in change.removed:
            for pattern in _VALIDATION_KEPT:
                if (found := re.search(pattern, line.text)) and not re.search(
                    re.escape(found.group(0)), added
                ):
                    detail = f"`{found.group(0)}` removed: `{line.text.strip()[:80]}`"
                    findings.append(Finding("validation_turned_off", change.path, line.number, detail))
                    break
    return findings


def _ci_edited(change: FileChange) -> list[Finding]:
    if not is_ci(change.path):
        return []
    return [Finding("ci_edited", change.path, None, "continuous-integration configuration is changed")]


def _code_removed(change: FileChange) -> list[Finding]:
    if not is_source(change.path) or is_test(change.path):
        return []
    if change.deleted:
        return [Finding("source_deleted", change.path, None, "a source file is deleted")]
    prefix = comment_prefix(change.path)
    removed = {line.text.strip() for line in change.removed if len(line.text.strip()) > 3}
    for line in change.added:
        text = line.text.strip()
        if text.startswith(prefix) and text.removeprefix(prefix).strip() in removed:
            detail = f"code commented out instead of fixed: `{text[:80]}`"
            return [Finding("code_commented_out", change.path, line.number, detail)]
        if text.startswith("/*") and any(r in text for r in removed):
            return [
                Finding("code_commented_out", change.path, line.number, f"code commented out: `{text[:80]}`")
            ]
    return []


_RULES: list[Callable[[FileChange], list[Finding]]] = [
    _tests_deleted, _tests_disabled, _assertions, _switched_off, _ci_edited, _code_removed,
]  # fmt: skip


def _net_loss(change: FileChange, pattern: str) -> list[Line]:
    """Removed lines matching `pattern`, when more of them are removed than added."""
    removed = [line for line in code_lines(change.removed, change.path) if re.search(pattern, line.text)]
    added = [line for line in code_lines(change.added, change.path) if re.search(pattern, line.text)]
    return removed[len(added) :] if len(removed) > len(added) else []


def _matches(
    change: FileChange, lines: list[Line], patterns: list[str], rule: str, detail: str
) -> list[Finding]:
    found = []
    for line in lines:
        if any(re.search(p, line.text) for p in patterns):
            found.append(Finding(rule, change.path, line.number, detail.format(text=line.text.strip()[:100])))
    return found


def _enabled_false_near_test(change: FileChange) -> list[Finding]:
    """`enabled = false` inside a block about tests (`tasks.withType(Test) {`, `test {`)."""
    findings = []
    for hunk in change.hunks:
        lines = sorted([*hunk.added, *hunk.context], key=lambda line: line.number)
        added = {id(line) for line in hunk.added}
        for index, line in enumerate(lines):
            if id(line) in added and re.search(r"\benabled\s*(=\s*)?false\b", line.text):
                above = " ".join(previous.text for previous in lines[max(0, index - 3) : index])
                if re.search(r"\b(test|Test|check|lint)\b", above + line.text):
                    findings.append(
                        Finding("tests_turned_off", change.path, line.number, "a test task is disabled")
                    )
    return findings
