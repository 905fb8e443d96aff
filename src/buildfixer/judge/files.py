"""What a changed file is, for the judge: a test, a build script, CI configuration, or source.

Decided from the path alone (a patch may delete the file), in the conventions of the four
build systems: Gradle and Maven `src/test*/`, Android `src/androidTest/`, Python `tests/` and
`test_*.py`, JavaScript `__tests__/`, `*.test.*` and `*.spec.*`.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_TEST_DIRS = {
    "test",
    "tests",
    "testing",
    "__tests__",
    "androidtest",
    "testfixtures",
    "integrationtest",
    "spec",
}
_TEST_NAME = re.compile(
    r"(^test_.*\.py$|.*_test\.py$|^conftest\.py$|.*(Test|Tests|TestCase|IT|Spec)\.(java|kt|groovy|scala)$"
    r"|.*\.(test|spec)\.[cm]?[jt]sx?$)"
)
_BUILD_FILES = re.compile(
    r"^(build\.gradle(\.kts)?|settings\.gradle(\.kts)?|gradle\.properties|libs\.versions\.toml|pom\.xml"
    r"|package\.json|pyproject\.toml|setup\.py|setup\.cfg|tox\.ini|pytest\.ini|noxfile\.py|\.coveragerc"
    r"|requirements[^/]*\.txt|jest\.config\.[cm]?[jt]s|vitest\.config\.[cm]?[jt]s|karma\.conf\.js|\.mocharc\.[a-z]+"
    r"|tsconfig[^/]*\.json|\.eslintrc(\.[a-z]+)?|eslint\.config\.[cm]?js|lint\.xml|checkstyle[^/]*\.xml"
    r"|detekt[^/]*\.ya?ml|Makefile|gradlew|mvnw)$"
)
_CI = re.compile(
    r"(^|/)(\.github/workflows/|\.gitlab-ci\.yml$|\.circleci/|Jenkinsfile$|azure-pipelines\.ya?ml$"
    r"|\.travis\.yml$|bitbucket-pipelines\.yml$|\.buildkite/|appveyor\.ya?ml$|\.drone\.ya?ml$|cloudbuild\.ya?ml$)"
)
_SOURCE = re.compile(r"\.(java|kt|kts|groovy|scala|py|[cm]?[jt]sx?|go|rs|c|cc|cpp|h|hpp|swift|m)$")


def is_test(path: str) -> bool:
    """A test source file (or pytest's conftest), by directory or by name."""
    pure = PurePosixPath(path)
    if _TEST_NAME.match(pure.name):
        return True
    return is_source(path) and any(part.lower() in _TEST_DIRS for part in pure.parts[:-1])


def is_test_by_name(path: str) -> bool:
    """A file the test runners collect by its name alone (`test_x.py`, `FooTest.java`, `x.test.ts`)."""
    return bool(_TEST_NAME.match(PurePosixPath(path).name))


def is_build_file(path: str) -> bool:
    """A build script or a build tool's configuration (where tests and checks are switched off)."""
    return bool(_BUILD_FILES.match(PurePosixPath(path).name))


def is_ci(path: str) -> bool:
    """Continuous-integration configuration."""
    return bool(_CI.search(path))


def is_source(path: str) -> bool:
    """Source code of a language the judge reads."""
    return bool(_SOURCE.search(path))


def language(path: str) -> str:
    """The language of a file (java, kotlin, groovy, python, javascript or other): its comments and tests."""
    suffix = PurePosixPath(path).suffix
    if suffix == ".py":
        return "python"
    if suffix in (".kt", ".kts"):
        return "kotlin"
    if suffix == ".groovy" or path.endswith(".gradle"):
        return "groovy"
    if suffix == ".java":
        return "java"
    if re.fullmatch(r"\.[cm]?[jt]sx?", suffix):
        return "javascript"
    return "other"
