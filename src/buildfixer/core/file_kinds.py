"""What a file is, from its path: a test, a build configuration, CI configuration, or source.

Decided from the path alone (a patch may delete the file; a path an error names may be
anywhere), in the conventions of the four build systems: Gradle and Maven `src/test*/`, Android
`src/androidTest/`, Python `tests/` and `test_*.py`, JavaScript `__tests__/`, `e2e/`, `*.test.*`,
`*.spec.*` and `*.e2e.*`; Go's `*_test.go` and RSpec's `*_spec.rb` by name. The judge reads
changed files with it, the recipes the files importing a dependency (its scope follows them).
Give it paths relative to the project: the project's own location (/home/me/tests/app) must not
make every file a test.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_TEST_DIRS = {  # compared in lower case
    "test",
    "tests",
    "testing",
    "__tests__",
    "androidtest",
    "testfixtures",
    "integrationtest",
    "spec",
    "e2e",
}
_TEST_NAME = re.compile(
    r"(^test_.*\.py$|.*_test\.py$|^conftest\.py$|.*(Test|Tests|TestCase|IT|Spec)\.(java|kt|groovy|scala)$"
    r"|.*\.(test|spec|e2e)\.[cm]?[jt]sx?$|.*_test\.go$|.*_spec\.rb$)"
)
# Sources only JavaScript frameworks compile (single-file components): test code in a test folder.
_COMPONENTS = (".vue", ".svelte")
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


def is_test(path: str | None) -> bool:
    """Test code (or pytest's conftest): a source file in a test folder, or named as test runners collect it.

    Args:
        path: A project-relative path (backslashes read as slashes); None or "" is no test.
    """
    path = (path or "").replace("\\", "/")
    pure = PurePosixPath(path)
    if _TEST_NAME.match(pure.name):
        return True
    code = is_source(path) or pure.suffix in _COMPONENTS
    return code and any(part.lower() in _TEST_DIRS for part in pure.parts[:-1])


def is_test_by_name(path: str) -> bool:
    """A file the test runners collect by its name alone (`test_x.py`, `FooTest.java`, `x.test.ts`)."""
    return bool(_TEST_NAME.match(PurePosixPath(path).name))


def is_build_config(path: str) -> bool:
    """A build script or a build or test tool's configuration (where tests and checks are switched off).

    Not `curate.history.is_build_file` (build and dependency files, lock files included).
    """
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
