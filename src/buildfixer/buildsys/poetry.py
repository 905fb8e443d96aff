"""The dependency groups of a Poetry project, as pip requirements.

Poetry keeps them outside the package metadata (`[tool.poetry.dev-dependencies]` before 1.2,
`[tool.poetry.group.<name>.dependencies]` since), so `pip install -e .` never sees them.
"""

from __future__ import annotations

import re
from typing import Any


def groups(data: dict[str, Any]) -> dict[str, list[str]]:
    """Every Poetry dependency group of a pyproject table, as pip requirements, by group name.

    `[tool.poetry.dev-dependencies]` is the group `dev` (unless a `dev` group exists too).
    """
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    if not isinstance(poetry, dict):
        return {}
    declared = poetry.get("group", {})
    tables: dict[str, Any] = {
        name: table.get("dependencies", {})
        for name, table in (declared.items() if isinstance(declared, dict) else [])
        if isinstance(table, dict)
    }
    if isinstance(poetry.get("dev-dependencies"), dict):
        tables.setdefault("dev", poetry["dev-dependencies"])
    return {
        name: [r for package, spec in table.items() if (r := _requirement(package, spec))]
        for name, table in tables.items()
        if isinstance(table, dict)
    }


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
