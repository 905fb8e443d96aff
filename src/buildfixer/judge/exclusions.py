"""Tests a patch excludes from the run: decided by what the exclusion matches, not by its words.

A build passes as well when the runner is told not to run the failing test. The exclusions
read here, from the lines a patch adds to build scripts, test tools' configuration, CI and
`conftest.py`:
- Surefire/Failsafe `<exclude>` (in their configuration), `<testExclude>`, `<excludedGroups>`,
  `<excludesFile>`, `<test>!...</test>`, `-Dtest=!...`, `-DexcludedGroups=`;
- Gradle `exclude` in a test task or a test source set, `excludeTestsMatching`, `excludeTags`,
  `excludeCategories`, `excludeGroups`;
- pytest `--ignore`, `--ignore-glob`, `-k`, `-m` (on a pytest command line or in `addopts`),
  `norecursedirs`, `collect_ignore`, `collect_ignore_glob`;
- jest `testPathIgnorePatterns`, `modulePathIgnorePatterns` (settings and flags), vitest's
  `exclude` and mocha's `ignore`/`exclude`.

`**/integration/**` says "Test" nowhere and drops every integration test, `**/*.properties` drops
none: given the project, each pattern is matched against its test files (Ant patterns, globs,
class-name patterns, jest's regular expressions, pytest's keyword and marker expressions over
the test functions), and an added line whose patterns match any is a finding that names them.
A pattern the file had before the patch counts only by the tests it did not match then (a
widened pattern), an identical one not at all. Without the project, every exclusion under a test
configuration is a finding, unless its pattern names no code or only dependencies and build output
(`META-INF/*.SF`, `/node_modules/`). The switches that need no pattern (`skipTests`, `maven.test.skip`,
`-x test`, `test.enabled = false`, `--deselect`) stay in `rules`. Patterns are the patch's own
text: they run on RE2 (linear time), and the project is read through `core.confined`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from buildfixer.core import confined
from buildfixer.core.file_kinds import is_build_config, is_ci
from buildfixer.judge.diff import FileChange, Hunk, Line
from buildfixer.judge.main_code import project_test_files, read_test
from buildfixer.judge.verdict import Finding, excerpt
from buildfixer.tools.base import ToolError

try:  # patterns a project or a model wrote are matched in linear time (RE2)
    import re2  # type: ignore[import-untyped]

    from buildfixer.tools.patterns import PathMatcher, glob_regex
except ImportError:  # the verifier's judge.pyz on a task's plain Python (export.judge_app): no RE2
    re2 = None

# What a pattern is matched as.
ANT = "ant"  # Surefire and Gradle: `**/x/**`, `*IT.java`, `%regex[...]`, below the module or a source root
CLASS = "class"  # Gradle's excludeTestsMatching: `*IT`, `com.x.*`, `*.FooTest.method`
PATH = "path"  # pytest --ignore, collect_ignore: a file or a directory and all below it
FNMATCH = "fnmatch"  # pytest --ignore-glob, collect_ignore_glob: `*` crosses directories
GLOB = "glob"  # vitest's exclude, mocha's ignore: `**` globs
REGEX = "regex"  # jest: a regular expression searched in the test's path (`<rootDir>` its root)
DIRNAME = "dirname"  # pytest norecursedirs: a glob on directory names
KEYWORD = "keyword"  # pytest -k: an expression over names
MARKER = "marker"  # pytest -m: an expression over markers
TAG = "tag"  # JUnit 5 tags, JUnit 4 categories, TestNG groups
OPAQUE = "opaque"  # what the judge cannot match (an excludes file, a closure): always a finding
# Where an exclusion sits: in a test configuration, in another one (a jar, coverage), or unseen.
TEST, OTHER, UNKNOWN = "test", "other", "unknown"

_STRING = re.compile(r"\"((?:\\.|[^\"\\])*)\"|'((?:\\.|[^'\\])*)'")
_COMMENT = ("#", "//", ";", "<!--", "/*", "*")
# Maven's XML: the element, what it is matched as, whether only a test plugin makes it a test's, and
# whether only its `!` items exclude (Surefire's `test` selects the others).
_XML = [
    (re.compile(r"<exclude>\s*([^<]+?)\s*</exclude>"), ANT, True, False),
    (re.compile(r"<testExclude>\s*([^<]+?)\s*</testExclude>"), ANT, False, False),
    (re.compile(r"<excludedGroups>\s*([^<]+?)\s*</excludedGroups>"), TAG, False, False),
    (re.compile(r"<excludesFile>\s*([^<]+?)\s*</excludesFile>"), OPAQUE, False, False),
    (re.compile(r"<test>\s*([^<]*!.*?)\s*</test>"), ANT, False, True),
]
_TEST_PLUGIN = re.compile(r"surefire|failsafe")
_ARTIFACT = re.compile(r"<artifactId>\s*([^<]+?)\s*</artifactId>")
# Elements whose <exclude> is no test's.
_ELSEWHERE_OPENS = re.compile(r"<(?:resource|testResource|filter|fileSet)>")
_ELSEWHERE_CLOSES = re.compile(r"</(?:resource|testResource|filter|fileSet)>")
# Gradle: the word, and what it is matched as (`exclude` depends on the block it is in).
_GRADLE = re.compile(
    r"\b(?P<word>excludes?|excludeTestsMatching|excludeTags|excludeCategories|excludeGroups)\b"
    r"(?:\s*\+?=|\.add(?:All)?)?\s*[(\[]*\s*(?=[\"'])"
)
_GRADLE_KINDS = {
    "excludeTestsMatching": CLASS,
    "excludeTags": TAG,
    "excludeCategories": TAG,
    "excludeGroups": TAG,
}
_GRADLE_CLOSURE = re.compile(r"\bexclude\s*\{")
# Blocks that make an exclusion a test's, and blocks that make it something else's (by name).
_TEST_BLOCK = re.compile(
    r"(?i:\btest(s|Options)?\b)|\w+Tests?\b|\bunitTests\b|\bfilter\b|useJUnit\w*|useTestNG|withType\s*\(\s*Test\b"
)
_OTHER_BLOCK = re.compile(
    r"^(coverage|jacoco\w*|\w*[jJ]ar|war|packagingOptions|packaging|resources|jniLibs|process\w*Resources|main"
    r"|dependencies|configurations|javadoc|copy|zip|tar|from|into|fileTree|lint|checkstyle|spotbugs|pmd"
    r"|spotless|detekt|ktlint|sonar\w*|idea|eclipse|publishing|signing|distributions|\w*[iI]mplementation"
    r"|\w*[aA]pi|\w*Only|kapt|annotationProcessor|\w*Coverage\w*)$"
)
# Command-line flags, anywhere (a value may follow in the next item of a TOML or JSON array).
_SEPARATOR = r"(?:=|[\"']?[\s,]+)[\"']?"
_IGNORE = re.compile(rf"--(?P<flag>ignore|exclude)(?P<glob>-glob)?{_SEPARATOR}(?P<value>[^\s'\",\]]+)")
_SELECTION = re.compile(
    r"(?<![\w-])-(?P<flag>[km])(?:\s*=\s*|[\"']?[\s,]+)(?P<q>[\"'])(?P<expr>[^\"']+)(?P=q)"
    r"|(?<![\w-])-(?P<bare>k)(?:\s*=\s*|\s+)(?P<word>[\w.:\[\]-]+)"
)
_PYTEST_LINE = re.compile(r"py\.?test|addopts")
_MOCHA_LINE = re.compile(r"\bmocha\b")
_JEST_FLAG = re.compile(
    rf"--(?:testPathIgnorePatterns?|modulePathIgnorePatterns){_SEPARATOR}(?P<value>[^\s'\"]+)"
)
_MAVEN_TEST = re.compile(r"-Dtest=[\"']?(?P<value>[^\s'\"]+)")
_MAVEN_GROUPS = re.compile(r"-DexcludedGroups=[\"']?(?P<value>[^\s'\"]+)")
_MAVEN_FILE = re.compile(r"-Dsurefire\.excludesFile=[\"']?(?P<value>[^\s'\"]+)")
# Settings whose values are exclusions: the key, on its line or above a continued value.
_KEYS = {
    "testPathIgnorePatterns": REGEX,
    "modulePathIgnorePatterns": REGEX,
    "norecursedirs": DIRNAME,
    "collect_ignore": PATH,
    "collect_ignore_glob": FNMATCH,
    "exclude": GLOB,
    "ignore": GLOB,
}
_KEY = re.compile(
    r"(?<![\w-])(?P<key>testPathIgnorePatterns|modulePathIgnorePatterns|norecursedirs|collect_ignore_glob"
    r"|collect_ignore|addopts|exclude|ignore)\b[\"']?\s*(?P<op>[:=]|\+=|\.(?:append|extend)\s*\()"
)
_INI_KEY = re.compile(r"^\s*[\"']?(?P<key>[\w.-]+)[\"']?\s*[:=]")
# Code a test runner collects: an exclusion whose last part names another kind of file drops none.
_CODE_FILE = re.compile(r"\.(java|class|kt|groovy|scala|py|[cm]?[jt]sx?|\*)$")
# Folders of dependencies, build output and tools' caches: none holds a test of the project.
_NO_TESTS_DIRS = frozenset((
    "node_modules", "bower_components", "vendor", "dist", "build", "target", "out", "coverage", ".git",
    ".tox", ".nox", ".venv", "venv", "__pycache__", ".cache", ".next", ".eggs", ".gradle", ".idea",
))  # fmt: skip
_SOURCE_ROOT = re.compile(r"^(?:.*/)?src/[^/]+/(?:java|kotlin|groovy|scala)/")
# Files that apply to their own directory; any other (CI, a script) to the whole project.
_MODULE_FILE = re.compile(
    r"^(pom\.xml|build\.gradle(\.kts)?|package\.json|pyproject\.toml|setup\.cfg|tox\.ini|pytest\.ini"
    r"|conftest\.py|noxfile\.py|Makefile|(jest|vitest|vite)\.config\.[cm]?[jt]s|\.mocharc(\.[a-z]+)?)$"
)
_MAX_FILE_BYTES = 1 << 20
_MAX_EXPRESSION = 200
_MAX_NESTING = 16  # parentheses in a -k/-m expression (its reading recurses)
_SHOWN = 3


def excluded_tests(changes: list[FileChange], project: Path | None = None) -> list[Finding]:
    """A finding for each added line that excludes tests of the project (see the module docstring)."""
    tests = _Tests(project) if project is not None else None
    findings: list[Finding] = []
    for change in changes:
        if not change.deleted and _scanned(change.path):
            findings += _excluded(change, project, tests)
    return findings


def _scanned(path: str) -> bool:
    name = PurePosixPath(path).name
    return (
        is_build_config(path)
        or is_ci(path)
        or bool(_MODULE_FILE.match(name))
        or path.endswith((".sh", ".gradle", ".kts", "maven.config"))
    )


def _base(path: str) -> str:
    """The directory whose tests a file's exclusions apply to ("" for the whole project)."""
    pure = PurePosixPath(path)
    if not _MODULE_FILE.match(pure.name):
        return ""
    return "" if str(pure.parent) == "." else str(pure.parent)


class _Tests:
    """The project's test files, listed and read once, only when an exclusion is to be matched."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self._files: list[str] | None = None
        self._texts: dict[str, str] = {}

    def files(self, base: str) -> list[str]:
        if self._files is None:
            # pytest's conftest.py and packages' __init__.py hold no tests of their own.
            self._files = [
                rel
                for rel in project_test_files(self.project)
                if PurePosixPath(rel).name not in ("conftest.py", "__init__.py")
            ]
        prefix = f"{base}/" if base else ""
        return [rel for rel in self._files if rel.startswith(prefix)]

    def text(self, rel: str) -> str:
        if rel not in self._texts:
            self._texts[rel] = read_test(self.project, rel) or ""
        return self._texts[rel]


def _excluded(change: FileChange, project: Path | None, tests: _Tests | None) -> list[Finding]:
    base = _base(change.path)
    # What the file excluded before: patterns moved or kept never count, and a widened one counts
    # only by what it adds.
    old = _removed_exclusions(change)
    old_texts = {pattern for _kind, pattern in old}
    before: set[str] | None = None
    whole = _patched_file(change, project)
    findings = []
    for hunk in change.hunks:
        view = whole or _View(sorted([*hunk.added, *hunk.context], key=lambda line: line.number))
        for line, stated in _new_exclusions(change.path, hunk, view):
            found = [
                (kind, pattern)
                for kind, pattern, _where in stated
                if pattern not in old_texts and not (tests is None and _names_no_test(kind, pattern))
            ]
            if not found:
                continue
            if tests is None:
                detail = f"tests excluded: `{excerpt(line.text)}` (the project's tests were not read)"
                findings.append(Finding("tests_turned_off", change.path, line.number, detail))
                continue
            if before is None:
                before = set().union(*(_units(kind, pattern, base, tests) or set() for kind, pattern in old))
            matched: set[str] = set()
            unknown = []
            for kind, pattern in found:
                units = _units(kind, pattern, base, tests)
                if units is None:
                    unknown.append(pattern)
                else:
                    matched |= units - before
            if matched or unknown:
                findings.append(Finding("tests_turned_off", change.path, line.number, _detail(line, matched)))
    return findings


def _new_exclusions(path: str, hunk: Hunk, view: _View) -> Iterator[tuple[Line, list[tuple[str, str, str]]]]:
    """The exclusions of tests a hunk brings, by line.

    On its added lines, and on the lines it keeps but moves out of another block into a test's (the
    plugin's name above an `<exclude>` rewritten).
    """

    def stated(line: Line) -> list[tuple[str, str, str]]:
        return [found for found in _exclusions(path, view, view.at(line)) if found[2] != OTHER]

    for line in hunk.added:
        yield line, stated(line)
    old_view = _View(_old_lines(hunk))
    removed = {id(line) for line in hunk.removed}
    kept = [at for at, line in enumerate(old_view.lines) if id(line) not in removed]
    for line, old_at in zip(sorted(hunk.context, key=lambda line: line.number), kept, strict=False):
        now = stated(line)
        then = _exclusions(path, old_view, old_at)
        if now and then and all(where == OTHER for _kind, _pattern, where in then):
            yield line, now


def _detail(line: Line, matched: set[str]) -> str:
    if not matched:
        return f"tests excluded: `{excerpt(line.text)}` (a pattern that cannot be matched to the tests)"
    shown = sorted(matched)[:_SHOWN]
    more = f" and {len(matched) - _SHOWN} more" if len(matched) > _SHOWN else ""
    what = "tests" if any("::" in unit for unit in matched) else "test files"
    return f"tests excluded: `{excerpt(line.text)}` matches {len(matched)} {what}: {', '.join(shown)}{more}"


def _patched_file(change: FileChange, project: Path | None) -> _View | None:
    """The whole file when the project holds it as patched (an attempt's workspace does), else None.

    The blocks and settings an added line is in may begin above what its hunk shows.
    """
    text = confined.try_read_text(project, change.path, _MAX_FILE_BYTES) if project is not None else None
    if text is None:
        return None
    lines = [line.rstrip("\r") for line in text.split("\n")]
    patched = all(
        0 < line.number <= len(lines) and lines[line.number - 1] == line.text for line in change.added
    )
    return _View([Line(number, line) for number, line in enumerate(lines, 1)]) if patched else None


def _removed_exclusions(change: FileChange) -> list[tuple[str, str]]:
    """The exclusions of tests the patch removes (another plugin's moved into Surefire's is new to it)."""
    found = []
    for hunk in change.hunks:
        view = _View(_old_lines(hunk))
        removed = {id(line) for line in hunk.removed}
        for at, line in enumerate(view.lines):
            if id(line) in removed:
                stated = _exclusions(change.path, view, at)
                found += [(kind, pattern) for kind, pattern, where in stated if where != OTHER]
    return found


def _old_lines(hunk: Hunk) -> list[Line]:
    """The old file's lines a hunk shows, in order: its removed lines and its context (renumbered)."""
    removed = {line.number: line for line in hunk.removed}
    context = iter(sorted(hunk.context, key=lambda line: line.number))
    lines = []
    for number in range(hunk.old_start, hunk.old_start + hunk.old_count):
        if number in removed:
            lines.append(removed[number])
        elif (kept := next(context, None)) is not None:
            lines.append(Line(number, kept.text))
    return lines


def _exclusions(path: str, view: _View, at: int) -> list[tuple[str, str, str]]:
    """The exclusions line `at` of `view` states in file `path`: (kind, pattern, where it sits)."""
    text = view.lines[at].text
    if text.strip().startswith(_COMMENT):
        return []
    found: list[tuple[str, str, str]] = []
    if path.endswith(".xml"):
        for pattern, kind, plugin_decides, negated in _XML:
            for match in pattern.finditer(text):
                where = view.plugin(at) if plugin_decides else TEST
                found += [(kind, item, where) for item in _items(match[1], negated)]
    if path.endswith((".gradle", ".kts")):
        for match in _GRADLE.finditer(text):
            kind = _GRADLE_KINDS.get(match["word"], ANT)
            where = view.block(at, text[: match.start()]) if kind == ANT else TEST
            found += [(kind, value, where) for value in _literals(text[match.end() :])]
        if _GRADLE_CLOSURE.search(text):
            found.append((OPAQUE, excerpt(text), view.block(at, text)))
    key, values = _setting(path, text, view.owner(at))
    # Vitest's `exclude` is the tests' under `test: {`, not under `coverage: {`.
    where = view.block(at, text.split("exclude", 1)[0]) if key == "exclude" and _vitest(path) else TEST
    found += [(_KEYS[key], value, where) for value in values]
    found += _flags(text, pytest=bool(_PYTEST_LINE.search(text)) or key == "addopts")
    return found


def _flags(text: str, pytest: bool) -> list[tuple[str, str, str]]:
    """Exclusions on a command line; pytest's (`--ignore`, `-k`, `-m`) and mocha's only on their lines."""
    found = []
    mocha = bool(_MOCHA_LINE.search(text))
    for match in _IGNORE.finditer(text):
        if (pytest and match["flag"] == "ignore") or mocha:
            value = match["value"]
            glob = match["glob"] or any(c in value for c in "*?[")
            found.append((FNMATCH if glob else PATH, value, TEST))
    if pytest:
        for match in _SELECTION.finditer(text):
            kind = MARKER if match["flag"] == "m" else KEYWORD
            found.append((kind, match["expr"] or match["word"], TEST))
    found += [(REGEX, match["value"], TEST) for match in _JEST_FLAG.finditer(text)]
    for match in _MAVEN_TEST.finditer(text):
        found += [(ANT, item, TEST) for item in _items(match["value"], negated=True)]
    for match in _MAVEN_GROUPS.finditer(text):
        found += [(TAG, item, TEST) for item in _items(match["value"])]
    found += [(OPAQUE, match["value"], TEST) for match in _MAVEN_FILE.finditer(text)]
    return found


def _items(value: str, negated: bool = False) -> list[str]:
    """The items of a comma-separated list; `negated`: only those a `!` excludes (`-Dtest=A,!B`)."""
    items = [item.strip() for item in value.split(",") if item.strip()]
    if negated:
        return [item[1:] for item in items if item.startswith("!")]
    return items


def _literals(text: str) -> list[str]:
    r"""The string literals of a line, their escapes undone (a JSON `"\\."` is the regex `\.`)."""
    return [re.sub(r"\\(.)", r"\1", m[1] if m[1] is not None else m[2]) for m in _STRING.finditer(text)]


def _setting(path: str, text: str, owner: str | None) -> tuple[str, list[str]]:
    """The setting a line states or continues (its key, "" for none), and the exclusions it gives there."""
    keys = list(_KEY.finditer(text))
    own = keys[-1] if keys else None
    key = own["key"] if own else (owner or "")
    applies = (
        key in _KEYS
        and (key not in ("exclude", "ignore") or _js_config(path))
        and (not key.startswith("collect_ignore") or path.endswith(".py"))
    )
    if not applies:
        return key, []
    rest = text[own.end() :] if own else text
    values = _literals(rest)
    if not values and key == "norecursedirs":
        values = [word for word in rest.split() if re.search(r"[\w*?]", word)]  # INI: `= .git build`
    return key, values


def _js_config(path: str) -> bool:
    """A configuration whose `exclude`/`ignore` are tests' (vitest's and mocha's)."""
    return bool(re.match(r"(vitest|vite)\.config\.|\.mocharc", PurePosixPath(path).name))


def _vitest(path: str) -> bool:
    return bool(re.match(r"(vitest|vite)\.config\.", PurePosixPath(path).name))


class _View:
    """The lines known of one version of a file (the whole file, or a hunk's), in order and unbroken.

    What encloses each line is read in one pass over them, when first asked: the setting a value
    continues, the blocks around it (Gradle's and JavaScript's braces), the Maven plugin it is in.
    """

    def __init__(self, lines: list[Line]) -> None:
        self.lines = lines
        self._owners: list[str | None] | None = None
        self._blocks: list[tuple[str, ...]] | None = None
        self._plugins: list[str] | None = None

    def at(self, line: Line) -> int:
        """The index of a line of this version of the file."""
        return line.number - self.lines[0].number

    def owner(self, at: int) -> str | None:
        """The setting line `at` continues: the key of the array it is in, or of the value it is under."""
        if self._owners is None:
            self._owners = _owners(self.lines)
        return self._owners[at]

    def block(self, at: int, before: str) -> str:
        """Whether the blocks around a place (`before` it on line `at`) are a test's: TEST, OTHER, UNKNOWN.

        The innermost block that says decides: `test {`, `tasks.withType(Test) {`, `filter {` or a
        test source set make it a test's; `jar {`, `coverage: {`, `packagingOptions {` another's;
        `java {`, `sourceSets {` or `defineConfig({` say nothing.
        """
        if self._blocks is None:
            stack: list[str] = []
            self._blocks = []
            for line in self.lines:
                self._blocks.append(tuple(stack))
                _braces(line.text, stack)
        headers = list(self._blocks[at])
        _braces(before, headers)
        for header in reversed(headers):
            if _TEST_BLOCK.search(header):
                return TEST
            name = re.findall(r"[\w.]+", re.sub(r"\([^()]*\)", "", header))
            if name and _OTHER_BLOCK.match(name[-1].rsplit(".", 1)[-1]):
                return OTHER
        return UNKNOWN

    def plugin(self, at: int) -> str:
        """TEST when an `<exclude>` on line `at` is Surefire's or Failsafe's, OTHER for another's."""
        if self._plugins is None:
            self._plugins = _maven_plugins(self.lines)
        return self._plugins[at]


def _braces(text: str, stack: list[str]) -> None:
    """Open and close the blocks a line does: each `{` pushes the text before it, each `}` pops."""
    code = _STRING.sub(lambda m: '"' + "x" * (len(m[0]) - 2) + '"', text).split("//", 1)[0]
    for index, char in enumerate(code):
        if char == "{":
            stack.append(text[:index])
        elif char == "}" and stack:
            stack.pop()


def _owners(lines: list[Line]) -> list[str | None]:
    """The setting each line continues (see `_View.owner`)."""
    owners: list[str | None] = []
    arrays: list[str | None] = []  # the keys of the arrays open above, innermost last
    ini: tuple[str, int] | None = None  # an INI or YAML key whose value goes on below it, and its indent
    for line in lines:
        text = line.text
        if ini and text.strip() and _indent(text) <= ini[1]:
            ini = None
        owners.append(arrays[-1] if arrays else ini[0] if ini and text.strip() else None)
        keys = list(_KEY.finditer(text))
        for char in _STRING.sub('""', text):  # brackets inside strings (a regex's `[a-z]`) do not count
            if char == "[":
                arrays.append(keys[-1]["key"] if keys else None)
            elif char == "]" and arrays:
                arrays.pop()
        if not arrays and (found := _INI_KEY.match(text)):
            ini = (found["key"], _indent(text)) if found["key"] in (*_KEYS, "addopts") else None
    return owners


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


def _maven_plugins(lines: list[Line]) -> list[str]:
    """For each line, whether an `<exclude>` there is Surefire's or Failsafe's (see `_View.plugin`).

    A plugin is named by its own `<artifactId>`, before or after its configuration (not by those of
    its `<dependency>`s); resources and filters exclude files from no test run.
    """
    names: dict[int, str] = {}
    start = -1  # the plugin a line is in: the index of its `<plugin>`; -1 where the view begins
    plugin: int | None = start
    dependency = False
    elsewhere = 0  # inside a <resource>, <testResource>, <filter> or <fileSet>
    inside: list[int | None] = []
    for at, line in enumerate(lines):
        text = line.text
        if "<plugin>" in text:
            plugin = at
        dependency = dependency or "<dependency>" in text
        if (
            plugin is not None
            and not dependency
            and plugin not in names
            and (found := _ARTIFACT.search(text))
        ):
            names[plugin] = found[1]
        dependency = dependency and "</dependency>" not in text
        elsewhere += len(_ELSEWHERE_OPENS.findall(text))
        inside.append(None if elsewhere else plugin)
        elsewhere = max(0, elsewhere - len(_ELSEWHERE_CLOSES.findall(text)))
        if "</plugin>" in text:
            plugin = None
    return [
        OTHER if plugin is None
        else UNKNOWN if plugin not in names
        else TEST if _TEST_PLUGIN.search(names[plugin]) else OTHER
        for plugin in inside
    ]  # fmt: skip


def _names_no_test(kind: str, pattern: str) -> bool:
    """A path pattern no test can match, read without the project.

    Of files that are no code (`META-INF/*.SF`, `**/*.properties`), or of dependencies and build
    output only (`/node_modules/`, `<rootDir>/dist/`, `.git`).
    """
    if kind not in (ANT, PATH, FNMATCH, GLOB, REGEX, DIRNAME):
        return False
    last = pattern.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    words = re.findall(r"[\w.-]+", pattern.replace("<rootDir>", ""))
    return (
        pattern.lstrip("*/").startswith("META-INF")
        or (bool(re.search(r"\.\w+$", last)) and not _CODE_FILE.search(last))
        or (bool(words) and all(word in _NO_TESTS_DIRS for word in words))
    )


def _units(kind: str, pattern: str, base: str, tests: _Tests) -> set[str] | None:
    """The project's tests `pattern` excludes: test files, or `file::test` for pytest's -k and -m.

    None when the judge cannot tell (an excludes file, a regex RE2 refuses, an absolute path).
    """
    files = tests.files(base)
    subs = {rel: rel[len(base) + 1 :] if base else rel for rel in files}
    if kind in (KEYWORD, MARKER):
        return _selected_out(kind, pattern, [rel for rel in files if rel.endswith(".py")], tests)
    if kind == TAG:
        name = re.escape(pattern.rsplit(".", 1)[-1])
        tag = re.compile(
            rf"@Tag\s*\(\s*(?:value\s*=\s*)?\"{re.escape(pattern)}\"|@Category\s*\([^)]*\b{name}(?:::class|\.class)"
            rf"|\bgroups\s*=[^)\n]*\"{re.escape(pattern)}\""
        )
        return {rel for rel in files if tag.search(tests.text(rel))}
    matches = _matcher(kind, pattern, base)
    if matches is None:
        return None
    return {rel for rel, sub in subs.items() if matches(rel, sub)}


def _matcher(kind: str, pattern: str, base: str) -> Callable[[str, str], bool] | None:
    """A test of one file (project-relative, and relative to the configuration's directory).

    None (the exclusion is then a finding, whatever it matches) where RE2 is missing: a pattern
    is never matched by a backtracking engine that a crafted one could keep busy.
    """
    if re2 is None:
        return None
    try:
        if kind == ANT:
            return _ant(pattern)
        if kind == CLASS:
            return _class(pattern)
        if kind == PATH:
            path = pattern.strip().strip("\"'").removeprefix("./").rstrip("/")
            if not path or path.startswith(("/", "$", "~")) or "{" in path or "%" in path:
                return None
            return lambda _rel, sub: sub == path or sub.startswith(path + "/")
        if kind == FNMATCH:
            if pattern.startswith(("/", "$", "~")):
                return None
            regex = _compile(_fnmatch(pattern.removeprefix("./")))
            return lambda _rel, sub: regex.fullmatch(sub) is not None
        if kind == GLOB:
            glob = PathMatcher(pattern.removeprefix("./"))
            return lambda _rel, sub: glob.matches(sub, ".")
        if kind == REGEX:
            root = f"/{base}" if base else ""
            regex = _compile(pattern.replace("<rootDir>", root))
            return lambda rel, _sub: regex.search(f"/{rel}") is not None
        if kind == DIRNAME:
            regex = _compile(_fnmatch(pattern))
            on_path = "/" in pattern
            return lambda _rel, sub: any(
                regex.fullmatch("/".join(parts[: n + 1]) if on_path else parts[n]) is not None
                for parts in [sub.split("/")[:-1]]
                for n in range(len(parts))
            )
    except (ToolError, re2.error):
        return None
    return None  # OPAQUE


def _ant(pattern: str) -> Callable[[str, str], bool]:
    """Surefire's and Gradle's patterns: paths below the module or a source root, any extension or none."""
    pattern = pattern.strip().replace("\\", "/").split("#", 1)[0]  # `Foo#method`: some of Foo's tests
    if pattern.startswith("%regex[") and pattern.endswith("]"):
        regex = _compile(pattern[len("%regex[") : -1])

        def by_regex(_rel: str, sub: str) -> bool:
            return any(
                regex.fullmatch(f"{stem}{ext}") for stem in _stems(sub) for ext in ("", ".class", ".java")
            )

        return by_regex
    pattern = re.sub(r"\.(java|class|kt|groovy|scala|\*)$", "", pattern)  # either the source or the class
    if pattern.endswith("/"):
        pattern += "**"
    if "/" not in pattern:
        if "*" not in pattern:
            pattern = pattern.replace(".", "/")  # a class name: com.x.FooTest
        pattern = "**/" + pattern
    regex = glob_regex(pattern)
    return lambda _rel, sub: any(regex.fullmatch(stem) for stem in _stems(sub))


def _stems(sub: str) -> list[str]:
    """A test file as Surefire and Gradle see it: below the module and below its source root, no extension."""
    stem = re.sub(r"\.[^./]+$", "", sub)
    return list(dict.fromkeys([stem, _SOURCE_ROOT.sub("", stem)]))


def _class(pattern: str) -> Callable[[str, str], bool]:
    """Gradle's excludeTestsMatching: a class name pattern (`*` any text), maybe with a method."""
    candidates = [pattern.strip()]
    head, _, last = candidates[0].rpartition(".")
    if head and (last[:1].islower() or last == "*"):
        candidates.append(head)  # `*.FooTest.method`, `com.x.FooTest.*`: the class's tests
    regexes = [_compile("".join(".*" if c == "*" else re2.escape(c) for c in text)) for text in candidates]

    def by_class(_rel: str, sub: str) -> bool:
        name = _SOURCE_ROOT.sub("", re.sub(r"\.[^./]+$", "", sub)).replace("/", ".")
        simple = name.rsplit(".", 1)[-1]
        return any(regex.fullmatch(name) or regex.fullmatch(simple) for regex in regexes)

    return by_class


def _fnmatch(pattern: str) -> str:
    """An fnmatch pattern as a regular expression: `*` and `?` cross directories, as in pytest."""
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "[" and (end := pattern.find("]", index + 2)) > 0:
            body = pattern[index + 1 : end]
            negated = body[:1] == "!"
            chars = "".join(c if c == "-" else re2.escape(c) for c in body[negated:])
            out.append(f"[{'^' if negated else ''}{chars}]")
            index = end
        else:
            out.append(re2.escape(char))
        index += 1
    return "".join(out)


def _compile(source: str) -> Any:
    options = re2.Options()
    options.log_errors = False
    return re2.compile(source, options)


def _selected_out(kind: str, expression: str, files: list[str], tests: _Tests) -> set[str] | None:
    """The pytest tests (`file::name`) a `-k` or `-m` expression leaves out; None when it does not parse."""
    evaluate = _expression(expression)
    if evaluate is None:
        return None
    out = set()
    for rel in files:
        for name, names, markers in _python_tests(rel, tests.text(rel)):
            # -m names markers exactly; -k any part of a name or a marker, in any case.
            words = markers if kind == MARKER else {word.lower() for word in names | markers}
            has = _has_marker(words) if kind == MARKER else _has_keyword(words)
            if not evaluate(has):
                out.add(f"{rel}::{name}")
    return out


def _has_marker(markers: set[str]) -> Callable[[str], bool]:
    return lambda word: word in markers


def _has_keyword(names: set[str]) -> Callable[[str], bool]:
    return lambda word: any(word.lower() in name for name in names)


_PY_CLASS = re.compile(r"^class\s+(?P<name>\w+)")
_PY_DEF = re.compile(r"^(?P<indent>\s*)(?:async\s+)?def\s+(?P<name>\w+)\s*\(")
_PY_MARK = re.compile(r"\bpytest\.mark\.(\w+)")


def _python_tests(rel: str, text: str) -> list[tuple[str, set[str], set[str]]]:
    """A test module's test functions: name, the names -k reads (module, class, function), markers."""
    module = {part.removesuffix(".py") for part in rel.split("/")}
    module_marks: set[str] = set()
    class_name, class_marks = "", set()
    pending: set[str] = set()
    found = []
    for text_line in text.splitlines():
        if text_line.startswith("pytestmark"):
            module_marks |= set(_PY_MARK.findall(text_line))
        elif text_line.lstrip().startswith("@"):
            pending |= set(_PY_MARK.findall(text_line))  # decorators gather until their def or class
        elif found_class := _PY_CLASS.match(text_line):
            class_name, class_marks, pending = found_class["name"], pending, set()
        elif function := _PY_DEF.match(text_line):
            inside = bool(function["indent"]) and bool(class_name)
            if not function["indent"]:
                class_name, class_marks = "", set()
            if function["name"].startswith("test"):
                names = module | {function["name"]} | ({class_name} if inside else set())
                markers = module_marks | pending | (class_marks if inside else set())
                found.append(
                    (f"{class_name}::{function['name']}" if inside else function["name"], names, markers)
                )
            pending = set()
        elif text_line[:1].strip() and not text_line.startswith(("#", ")", "]")):
            class_name, class_marks = "", set()  # a statement at the top level ends the class
    return found


def _expression(text: str) -> Callable[[Callable[[str], bool]], bool] | None:
    """A pytest -k/-m expression (`not slow and (api or db)`) as a function of a word test; None if unread.

    Read as a Python expression of names, `and`, `or`, `not` and parentheses, never evaluated
    as Python; names Python does not allow (`test_x[1-2]`) make it unread.
    """
    if len(text) > _MAX_EXPRESSION or text.count("(") > _MAX_NESTING:
        return None
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not all(isinstance(node, _EXPRESSION_NODES) for node in ast.walk(tree)):
        return None
    return lambda has: _evaluate(tree, has)


_EXPRESSION_NODES = (ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.Name, ast.Load)


def _evaluate(node: ast.expr, has: Callable[[str], bool]) -> bool:
    if isinstance(node, ast.Name):
        return has(node.id)
    if isinstance(node, ast.UnaryOp):
        return not _evaluate(node.operand, has)
    assert isinstance(node, ast.BoolOp)
    values = (_evaluate(value, has) for value in node.values)
    return all(values) if isinstance(node.op, ast.And) else any(values)
