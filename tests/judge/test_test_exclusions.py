"""Test exclusions judged by what they match in the project, not by the word "Test" in their pattern."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from judge_corpus import POM, sub, to_diff

from buildfixer.judge.judge import judge_patch

SURE = "<artifactId>maven-surefire-plugin</artifactId>\n        <version>3.2.5</version>\n"


def excluding(*patterns: str, plugin: str = SURE) -> str:
    excludes = "".join(f"            <exclude>{p}</exclude>\n" for p in patterns)
    configuration = f"        <configuration>\n          <excludes>\n{excludes}          </excludes>\n"
    return sub(POM, plugin, plugin + configuration + "        </configuration>\n")


def java_project(root: Path, pom: str) -> Path:
    """60 integration tests (`OrderNIT`, no "Test" in their names), 2 slow ones and a unit test."""
    write(root / "pom.xml", pom)
    tests = root / "src/test/java/com/example"
    for n in range(60):
        write(tests / f"integration/Order{n}IT.java", f"class Order{n}IT {{ @Test void places() {{}} }}\n")
    for name in ("ReportSlow", "ExportSlow"):
        write(tests / f"slow/{name}.java", f'class {name} {{ @Test @Tag("slow") void runs() {{}} }}\n')
    write(tests / "CalculatorTest.java", "class CalculatorTest { @Test void adds() {} }\n")
    write(root / "src/main/java/com/example/Calculator.java", "class Calculator {}\n")
    return root


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def judged(root: Path, path: str, before: str | None, after: str, project: bool = True) -> list:
    write(root / path, after)  # the project holds the patch, as an attempt's workspace does
    return judge_patch(to_diff(path, before, after), root if project else None).findings


@pytest.mark.parametrize(
    ("pattern", "count"), [("**/integration/**", 60), ("**/*IT.java", 60), ("**/slow/*.java", 2)]
)
def test_a_surefire_exclude_without_the_word_test_is_rejected_by_what_it_matches(
    tmp_path: Path, pattern: str, count: int
) -> None:
    root = java_project(tmp_path, POM)
    findings = judged(root, "pom.xml", POM, excluding(pattern))
    assert [f.rule for f in findings] == ["tests_turned_off"]
    assert f"matches {count} test files" in findings[0].detail
    assert (
        findings[0].line
        == excluding(pattern).splitlines().index(f"            <exclude>{pattern}</exclude>") + 1
    )
    # Not applied to the project (`buildfixer judge PROJECT --patch`): the same finding from the hunk.
    (root / "pom.xml").write_text(POM)
    assert judge_patch(to_diff("pom.xml", POM, excluding(pattern)), root).findings == findings


def test_an_exclude_that_matches_no_test_is_approved_given_the_project(tmp_path: Path) -> None:
    root = java_project(tmp_path, POM)
    assert judged(root, "pom.xml", POM, excluding("**/generated/**", "**/*$*")) == []
    # Without the project, an exclusion in Surefire's configuration is a finding: nothing tells it apart.
    findings = judged(root, "pom.xml", POM, excluding("**/generated/**"), project=False)
    assert [f.rule for f in findings] == ["tests_turned_off"] and "not read" in findings[0].detail


def test_a_widened_exclude_counts_the_tests_it_adds_and_a_kept_one_none(tmp_path: Path) -> None:
    before = excluding("**/integration/Order7IT.java")
    root = java_project(tmp_path, before)
    widened = judged(root, "pom.xml", before, excluding("**/integration/Order*IT.java"))
    assert "matches 59 test files" in widened[0].detail
    assert "Order7IT" not in widened[0].detail
    kept = excluding("**/integration/Order7IT.java", "**/generated/**")
    assert judged(root, "pom.xml", before, kept) == []


def test_an_exclude_moved_from_another_plugin_into_surefire_is_new_to_it(tmp_path: Path) -> None:
    checkstyle = "<artifactId>maven-checkstyle-plugin</artifactId>\n        <version>3.3.1</version>\n"
    before = excluding("**/slow/**", plugin=checkstyle)
    root = java_project(tmp_path, before)
    moved = excluding("**/slow/**")
    assert "matches 2 test files" in judged(root, "pom.xml", before, moved)[0].detail


def test_other_tools_flags_of_the_same_name_are_no_test_exclusions() -> None:
    ci = ".github/workflows/lint.yml"
    run = "jobs:\n  lint:\n    steps:\n      - run: flake8 src\n      - run: npm ci\n"
    after = run.replace("flake8 src", "flake8 --ignore=E501 src").replace("npm ci", "npm ci --ignore-scripts")
    # CI edits are findings of their own; no exclusion of tests is.
    assert {f.rule for f in judge_patch(to_diff(ci, run, after)).findings} == {"ci_edited"}


def test_excludes_of_other_plugins_and_elements_drop_no_test(tmp_path: Path) -> None:
    jacoco = "<artifactId>maven-checkstyle-plugin</artifactId>\n        <version>3.3.1</version>\n"
    root = java_project(tmp_path, POM)
    # Coverage and checkstyle exclusions name tests without excluding them from the run.
    assert judged(root, "pom.xml", POM, excluding("**/*Test*", plugin=jacoco), project=False) == []
    # A plugin seen only in the whole file (thirty lines above the hunk): read from the project.
    filler = "".join(f"            <property{n}>x</property{n}>\n" for n in range(30))
    long_pom = sub(POM, SURE, SURE + f"        <configuration>\n          <systemPropertyVariables>\n{filler}"
                   "          </systemPropertyVariables>\n        </configuration>\n")  # fmt: skip
    root = java_project(tmp_path, long_pom)
    after = sub(long_pom, "          </systemPropertyVariables>\n",
                "          </systemPropertyVariables>\n          <excludes>\n"
                "            <exclude>**/slow/**</exclude>\n          </excludes>\n")  # fmt: skip
    findings = judged(root, "pom.xml", long_pom, after)
    assert len(findings) == 1 and "matches 2 test files" in findings[0].detail


def test_surefire_selections_groups_and_excludes_files(tmp_path: Path) -> None:
    root = java_project(tmp_path, POM)
    ci = ".github/workflows/build.yml"
    run = "jobs:\n  build:\n    steps:\n      - run: mvn -B verify\n"
    negated = judged(root, ci, run, run.replace("verify", "verify -Dtest='!**/integration/**,Calc*'"))
    assert any("matches 60 test files" in f.detail for f in negated)
    grouped = judged(
        root,
        "pom.xml",
        POM,
        sub(POM, "  </properties>", "  </properties>").replace(
            SURE, SURE + "        <configuration><excludedGroups>slow</excludedGroups></configuration>\n"
        ),
    )
    assert "matches 2 test files" in grouped[0].detail
    listed = judged(
        root,
        "pom.xml",
        POM,
        POM.replace(
            SURE, SURE + "        <configuration><excludesFile>skip.txt</excludesFile></configuration>\n"
        ),
    )
    assert "cannot be matched" in listed[0].detail  # what it lists is not read: a finding all the same


GRADLE = """plugins {
    id 'java'
}

repositories {
    mavenCentral()
}

test {
    useJUnitPlatform()
}

jar {
    manifest {
        attributes 'Main-Class': 'com.example.Main'
    }
}
"""


@pytest.mark.parametrize(
    ("old", "new", "count"),
    [
        ("    useJUnitPlatform()\n", "    useJUnitPlatform()\n    exclude '**/integration/**'\n", 60),
        (
            "    useJUnitPlatform()\n",
            "    useJUnitPlatform()\n    filter { excludeTestsMatching '*IT' }\n",
            60,
        ),
        ("    useJUnitPlatform()\n", "    useJUnitPlatform { excludeTags 'slow' }\n", 2),
        ("    useJUnitPlatform()\n", "    useJUnitPlatform()\n    exclude 'com/example/slow/**'\n", 2),
    ],
)
def test_gradle_test_task_exclusions(tmp_path: Path, old: str, new: str, count: int) -> None:
    java_project(tmp_path / "app", POM)
    findings = judged(tmp_path, "app/build.gradle", GRADLE, GRADLE.replace(old, new))
    assert len(findings) == 1 and f"matches {count} test files" in findings[0].detail, findings


def test_gradle_excludes_outside_tests_and_other_modules_drop_none(tmp_path: Path) -> None:
    root = java_project(tmp_path / "app", POM)
    signed = GRADLE.replace("    manifest {", "    exclude 'META-INF/*.SF'\n    manifest {")
    assert judged(tmp_path, "app/build.gradle", GRADLE, signed, project=False) == []
    # Another module's exclusion applies to its own tests: app's are not under lib/.
    assert (
        judged(
            root.parent,
            "lib/build.gradle",
            GRADLE,
            GRADLE.replace(
                "    useJUnitPlatform()\n", "    useJUnitPlatform()\n    exclude '**/integration/**'\n"
            ),
        )
        == []
    )


def python_project(root: Path) -> Path:
    write(
        root / "tests/unit/test_cart.py",
        "def test_total():\n    pass\n\ndef test_checkout_total():\n    pass\n",
    )
    write(root / "tests/integration/test_api.py", "def test_get():\n    pass\n\ndef test_post():\n    pass\n")
    write(
        root / "tests/test_reports.py",
        "import pytest\n\n\n@pytest.mark.slow\ndef test_yearly():\n    pass\n\n\n"
        "class TestMonthly:\n    @pytest.mark.slow\n    def test_rollup(self):\n        pass\n\n"
        "    def test_empty(self):\n        pass\n",
    )
    write(root / "tests/conftest.py", "")
    return root


PYPROJECT = '[project]\nname = "shop"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ('addopts = "--ignore=tests/integration"', "matches 1 test files: tests/integration/test_api.py"),
        ('addopts = ["-m", "not slow"]', "matches 2 tests: tests/test_reports.py::TestMonthly::test_rollup"),
        ("addopts = \"-k 'not checkout and not Monthly'\"", "matches 3 tests"),
        ('addopts = "--ignore-glob=*/integration/*"', "matches 1 test files"),
        ('norecursedirs = ["integration"]', "matches 1 test files"),
    ],
)
def test_pytest_exclusions(tmp_path: Path, option: str, expected: str) -> None:
    root = python_project(tmp_path)
    findings = judged(root, "pyproject.toml", PYPROJECT, PYPROJECT + option + "\n")
    assert len(findings) == 1 and expected in findings[0].detail, findings


def test_pytest_exclusions_in_tox_ini_conftest_and_continued_values(tmp_path: Path) -> None:
    root = python_project(tmp_path)
    tox = "[tox]\nenvlist = py311\n\n[testenv]\ncommands =\n    pytest\n"
    selected = judged(root, "tox.ini", tox, tox.replace("    pytest\n", "    pytest -k slow\n"))
    assert "matches 5 tests" in selected[0].detail  # all but the two whose marker says slow
    ini = "[pytest]\naddopts =\n    -ra\n"
    continued = judged(root, "pytest.ini", ini, ini + "    --ignore=tests/unit\n")
    assert "tests/unit/test_cart.py" in continued[0].detail
    ignored = judged(root, "tests/conftest.py", "", 'collect_ignore = [\n    "integration",\n]\n')
    assert [f.line for f in ignored] == [2] and "tests/integration/test_api.py" in ignored[0].detail
    # Directories no test is in: approved given the project.
    assert judged(root, "pytest.ini", ini, ini + "norecursedirs = .git build node_modules\n") == []
    # Without the project: only folders of dependencies and build output name no test.
    assert judged(root, "pytest.ini", ini, ini + "norecursedirs = .git build\n", project=False) == []
    assert judged(root, "pytest.ini", ini, ini + "norecursedirs = .git slow\n", project=False) != []


@pytest.mark.slow
def test_the_tests_the_judge_counts_are_those_pytest_stops_collecting(tmp_path: Path) -> None:
    """pytest itself, run on the project with and without each option, drops the tests the judge names."""
    root = python_project(tmp_path)
    before = None
    for option, flags in [
        ("addopts = \"-m 'not slow'\"", ["-m", "not slow"]),
        ("addopts = \"-k 'not checkout and not Monthly'\"", ["-k", "not checkout and not Monthly"]),
        ('addopts = "--ignore=tests/integration"', ["--ignore=tests/integration"]),
    ]:
        detail = judged(root, "pyproject.toml", PYPROJECT, PYPROJECT + option + "\n")[0].detail
        (root / "pyproject.toml").write_text(PYPROJECT)
        before, after = collected(root, []) if before is None else before, collected(root, flags)
        dropped = sorted(before - after)
        if "test files" in detail:  # --ignore drops files: the judge counts them
            dropped = sorted({test.split("::")[0] for test in dropped})
        assert f"matches {len(dropped)} " in detail and dropped[0] in detail, (detail, dropped)


def collected(root: Path, flags: list[str]) -> set[str]:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *flags],
        cwd=root, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},  # the fixture needs no plugin: 8 s -> 1 s
    )  # fmt: skip
    return {line for line in run.stdout.splitlines() if "::" in line}


PACKAGE = """{
  "name": "shop",
  "scripts": {
    "test": "jest"
  },
  "jest": {
    "testPathIgnorePatterns": [
      "/node_modules/"
    ]
  }
}
"""


def js_project(root: Path) -> Path:
    write(root / "src/__tests__/cart.test.js", "test('adds', () => {});\n")
    for name in ("login", "checkout", "search"):
        write(root / f"src/e2e/{name}.test.js", "test('flows', () => {});\n")
    return root


def test_jest_ignore_patterns_are_regular_expressions_over_the_test_paths(tmp_path: Path) -> None:
    root = js_project(tmp_path)
    added = PACKAGE.replace(
        '      "/node_modules/"\n', '      "/node_modules/",\n      "<rootDir>/src/e2e/"\n'
    )
    findings = judged(root, "package.json", PACKAGE, added)
    assert len(findings) == 1 and "matches 3 test files" in findings[0].detail
    flag = judged(
        root,
        "package.json",
        PACKAGE,
        PACKAGE.replace('"jest"\n', '"jest --testPathIgnorePatterns=checkout"\n'),
    )
    assert "src/e2e/checkout.test.js" in flag[0].detail
    # Jest's own default, in a configuration a patch creates: no test of the project, even unread.
    created = judge_patch(
        to_diff(
            "jest.config.js", None, 'module.exports = {\n  testPathIgnorePatterns: ["/node_modules/"],\n};\n'
        )
    )
    assert created.findings == []
    # The build output jest should not read: no test there.
    dist = PACKAGE.replace('"jest": {\n', '"jest": {\n    "modulePathIgnorePatterns": ["<rootDir>/dist/"],\n')
    assert judged(root, "package.json", PACKAGE, dist) == []
    # A regular expression RE2 cannot run (a lookahead) is not guessed at: a finding.
    lookahead = PACKAGE.replace('"/node_modules/"', '"/node_modules/", "^(?!.*unit).*$"')
    assert "cannot be matched" in judged(root, "package.json", PACKAGE, lookahead)[0].detail


VITEST = """import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    exclude: [...configDefaults.exclude],
    coverage: {
      exclude: ['scripts/**'],
    },
  },
});
"""


def test_vitest_excludes_count_under_test_not_under_coverage(tmp_path: Path) -> None:
    root = js_project(tmp_path)
    tests = VITEST.replace("[...configDefaults.exclude]", "[...configDefaults.exclude, 'src/e2e/**']")
    assert "matches 3 test files" in judged(root, "vitest.config.ts", VITEST, tests)[0].detail
    coverage = VITEST.replace("['scripts/**']", "['scripts/**', 'src/e2e/**']")
    assert judged(root, "vitest.config.ts", VITEST, coverage, project=False) == []


def test_without_re2_every_added_exclusion_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Harbor verifier's judge.pyz runs on a task's plain Python, where RE2 cannot be imported:
    # no pattern is then matched (a backtracking engine could be kept busy), each one is rejected.
    from buildfixer.judge import exclusions

    monkeypatch.setattr(exclusions, "re2", None)
    root = java_project(tmp_path, POM)
    findings = judged(root, "pom.xml", POM, excluding("**/integration/**"))
    assert [f.rule for f in findings] == ["tests_turned_off"]
