"""Test dependencies of a Poetry project, as pip requirements.

Poetry keeps them outside the package metadata (`[tool.poetry.dev-dependencies]` before 1.2,
`[tool.poetry.group.<name>.dependencies]` since), so `pip install -e .` never sees them.
"""

from __future__ import annotations

import re
from typing import Any

# Groups that hold test tools, in order of preference.
TEST_GROUPS = ("test", "tests", "testing", "dev")
# Tools of a `dev` group that tests never import: linters, type checkers, docs, release.
# Old pins of them often no longer install, and would fail the build for nothing.
_NOT_FOR_TESTS = re.compile(
    r"(mypy|black|isort|flake8.*|pylint|ruff|pre-commit|tox|nox|sphinx.*|furo|mkdocs.*|twine|"
    r"bump2?version|commitizen|types-.*|ipython|jupyter.*|coverage-badge)",
    re.IGNORECASE,
)


def requirements_for_tests(data: dict[str, Any]) -> list[str]:
    """The pip requirements of the Poetry group that holds the tests' tools; [] when there is none."""
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    if not isinstance(poetry, dict):
        return []
    groups = poetry.get("group", {})
    tables: dict[str, Any] = {
        name: table.get("dependencies", {})
        for name, table in (groups.items() if isinstance(groups, dict) else [])
        if isinstance(table, dict)
    }
    if isinstance(poetry.get("dev-dependencies"), dict):
        tables.setdefault("dev", poetry["dev-dependencies"])
    name = next((g for g in TEST_GROUPS if isinstance(tables.get(g), dict)), None)
    if name is None:
        return []
    found = []
    for package, spec in tables[name].items():
        if name == "dev" and _NOT_FOR_TESTS.fullmatch(package):
            continue
        requirement = _requirement(package, spec)
        if requirement:
            found.append(requirement)
    return found


def _requirement(package: str, spec: object) -> str | None:
    """`pytest = "^6.2"` -> `pytest>=6.2,<7`; path, git and url sources are left out."""
    extras = ""
    if isinstance(spec, dict):
        if any(key in spec for key in ("path", "git", "url")) or package == "python":
            return None
        names = spec.get("extras", [])
        extras = f"[{','.join(names)}]" if isinstance(names, list) and names else ""
        spec = spec.get("version", "*")
    if not isinstance(spec, str) or package == "python":
        return None
    parts = [_constraint(c.strip()) for c in spec.split(",") if c.strip()]
    return f"{package}{extras}{','.join(p for p in parts if p)}"


def _constraint(text: str) -> str:
    """One Poetry constraint as a PEP 440 specifier (`^`, `~`, `*`, bare versions)."""
    if text in ("*", ""):
        return ""
    found = re.fullmatch(r"([\^~])\s*(\d+(?:\.\d+)*)", text)
    if found:
        numbers = [int(n) for n in found.group(2).split(".")]
        if found.group(1) == "^":
            index = next((i for i, n in enumerate(numbers) if n != 0), len(numbers) - 1)
        else:  # ~1.2.3 -> <1.3; ~1 -> <2
            index = min(1, len(numbers) - 1)
        upper = [*numbers[:index], numbers[index] + 1]
        return f">={found.group(2)},<{'.'.join(map(str, upper))}"
    if re.fullmatch(r"\d+(\.\d+)*(\.\*)?", text):
        return f"=={text}"
    return text  # already PEP 440 (>=, <, !=, ==, ~=)
