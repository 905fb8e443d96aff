"""One name, one concept: no public function or class is defined in two modules of buildfixer.

A second definition under the same name drifts apart from the first (two lists of test folders,
two token estimates), and a reader cannot tell which one a caller meant. The only names allowed
twice are those a family of modules defines on purpose, one per member: each build system's
`detect` and `plan`, each log parser's `parse`, each dependency format's `find`, `add`,
`removal` and `version_edit`, an entry script's `main`; and a command offered twice, as a typer
declaration in cli/ and as a function of the Python API (api.py), under the command's own name.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import buildfixer

PACKAGE = Path(buildfixer.__file__).parent

# Names a family of sibling modules each define, as members of one protocol-like set.
PER_MEMBER = {"detect", "plan", "parse", "wrapper_version", "find", "add", "removal", "version_edit", "main"}


def definitions() -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("examples/") and relative.count("/") > 1:
            continue  # the bundled example projects' own sources
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            named = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            if named and not node.name.startswith("_"):
                found[node.name].append(relative)
    return found


def _command_and_api(where: list[str]) -> bool:
    return len(where) == 2 and "api.py" in where and any(w.startswith("cli/") for w in where)


def test_every_public_name_is_defined_once() -> None:
    twice = {
        name: where
        for name, where in definitions().items()
        if len(where) > 1 and name not in PER_MEMBER and not _command_and_api(where)
    }
    assert twice == {}


def test_the_scan_sees_the_package() -> None:
    found = definitions()
    assert found["BuildResult"] == ["core/build_result.py"]  # a name it must find, once
    assert len(found["detect"]) >= 4  # and a family it must allow: one per build system
