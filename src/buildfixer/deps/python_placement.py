"""Where a new Python requirement goes: where the project keeps its (test) requirements.

`python_add` plans the edit; `deps.python_requirements.add` spells the requirement, and
`buildfixer.deps.manage` is the public API.

Runtime requirements go to `[project].dependencies`, Poetry, setup.cfg, setup.py or
requirements.txt, wherever the dependencies live. Test-only ones go where the project's test
install takes them from (`buildsys.python` installs the first test/tests/testing/dev extra, else
such a PEP 735 or Poetry group): the same names in the same order here, then setup.cfg/setup.py
extras, then a requirements-dev/test file.
"""

from __future__ import annotations

import re
from pathlib import Path

from buildfixer.deps.base import Edit, read, rel, span_edit

_TEST_EXTRAS = ("test", "tests", "testing", "dev")


def _array_end(text: str, open_at: int) -> int | None:
    """Offset of the `]` closing the array opened at `open_at`, skipping quoted strings."""
    i, depth = open_at, 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            end = text.find(ch, i + 1)
            i = len(text) if end == -1 else end + 1
            continue
        if ch == "#":
            nl = text.find("\n", i)
            i = len(text) if nl == -1 else nl
            continue
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _array_add(file: str, text: str, open_at: int, item: str) -> Edit | None:
    close = _array_end(text, open_at)
    if close is None:
        return None
    inner = text[open_at + 1 : close]
    if not inner.strip():
        return span_edit(file, text, open_at + 1, close, item)
    last = open_at + 1 + len(inner.rstrip())
    comma = text[last - 1] == ","
    if "\n" in inner:
        indent_match = re.search(r"\n([ \t]+)\S", inner)
        indent = indent_match.group(1) if indent_match else "    "
        return span_edit(file, text, last, last, f"\n{indent}{item}," if comma else f",\n{indent}{item}")
    return span_edit(file, text, last, last, f" {item}" if comma else f", {item}")


def _table(text: str, header: str) -> tuple[int, int] | None:
    """Body offsets of a TOML table `[header]`."""
    match = re.search(rf"^\[{re.escape(header)}\][ \t]*(?:#.*)?$", text, re.MULTILINE)
    if not match:
        return None
    nxt = re.search(r"^\[", text[match.end() :], re.MULTILINE)
    return match.end(), match.end() + nxt.start() if nxt else len(text)


def _table_end(text: str, body: tuple[int, int]) -> int:
    """Where a new key goes in a TOML table: after its last non-blank line."""
    return body[0] + len(text[body[0] : body[1]].rstrip())


def _toml_add(file: str, text: str, body: tuple[int, int], line: str) -> Edit:
    at = _table_end(text, body)
    return span_edit(file, text, at, at, f"\n{line}")


def _poetry_line(requirement: str) -> str:
    name = re.split(r"[<>=!~;\[ ]", requirement)[0]
    spec = requirement[len(name) :].lstrip("=") or "*"
    return f'{name} = "{spec}"'


def _python_test_add(project: Path, base: Path, text: str, requirement: str) -> Edit | None:
    """A test-only requirement where the project keeps its test dependencies, if it has a place."""
    file = rel(project, base / "pyproject.toml") if text else ""
    extras = _table(text, "project.optional-dependencies")
    groups = _table(text, "dependency-groups")
    for start, end in (table for table in (extras, groups) if table is not None):
        for name in _TEST_EXTRAS:
            hit = re.search(rf"^[\"']?{name}[\"']?\s*=\s*\[", text[start:end], re.MULTILINE)
            if hit:
                return _array_add(file, text, start + hit.end() - 1, f'"{requirement}"')
    for name in (*_TEST_EXTRAS, "dev-dependencies"):
        header = (
            "tool.poetry.dev-dependencies"
            if name == "dev-dependencies"
            else f"tool.poetry.group.{name}.dependencies"
        )
        poetry = _table(text, header)
        if poetry:
            return _toml_add(file, text, poetry, _poetry_line(requirement))
    if (edit := _setup_extra_add(project, base, requirement)) is not None:
        return edit
    for name in (
        "requirements-dev.txt",
        "requirements-test.txt",
        "test-requirements.txt",
        "requirements-tests.txt",
    ):
        req_file = base / name
        if req_file.is_file():
            req_text = read(req_file)
            sep = "" if req_text.endswith("\n") or not req_text else "\n"
            return span_edit(
                rel(project, req_file), req_text, len(req_text), len(req_text), f"{sep}{requirement}\n"
            )
    return None


def python_add(project: Path, base: Path, requirement: str, test: bool) -> Edit | None:
    """The edit declaring a requirement where the project keeps its (test) dependencies; None: nowhere."""
    pyproject = base / "pyproject.toml"
    text = read(pyproject) if pyproject.is_file() else ""
    project_table = _table(text, "project")
    file = rel(project, pyproject) if text else ""
    if test and (edit := _python_test_add(project, base, text, requirement)) is not None:
        return edit
    if project_table:
        body = text[project_table[0] : project_table[1]]
        deps = re.search(r"^dependencies\s*=\s*\[", body, re.MULTILINE)
        dynamic = re.search(r"^dynamic\s*=\s*\[[^\]]*[\"']dependencies[\"']", body, re.MULTILINE)
        if deps:
            return _array_add(file, text, project_table[0] + deps.end() - 1, f'"{requirement}"')
        if not dynamic:
            return _toml_add(file, text, project_table, f'dependencies = ["{requirement}"]')
    poetry = _table(text, "tool.poetry.dependencies")
    if poetry:
        return _toml_add(file, text, poetry, _poetry_line(requirement))
    cfg = base / "setup.cfg"
    cfg_text = read(cfg) if cfg.is_file() else ""
    hit = re.search(r"^install_requires\s*=[^\n]*(\n[ \t]+[^\n]*)*", cfg_text, re.MULTILINE)
    if hit:
        return span_edit(rel(project, cfg), cfg_text, hit.end(), hit.end(), f"\n    {requirement}")
    setup = base / "setup.py"
    setup_text = read(setup) if setup.is_file() else ""
    hit = re.search(r"install_requires\s*=\s*\[", setup_text)
    if hit:
        return _array_add(rel(project, setup), setup_text, hit.end() - 1, f'"{requirement}"')
    req_file = base / "requirements.txt"
    if req_file.is_file():
        req_text = read(req_file)
        sep = "" if req_text.endswith("\n") or not req_text else "\n"
        end = len(req_text)
        return span_edit(rel(project, req_file), req_text, end, end, f"{sep}{requirement}\n")
    return None


def _setup_extra_add(project: Path, base: Path, requirement: str) -> Edit | None:
    """A requirement added to a test extra of setup.cfg (`[options.extras_require]`) or setup.py."""
    cfg = base / "setup.cfg"
    cfg_text = read(cfg) if cfg.is_file() else ""
    section = re.search(
        r"^\[options\.extras_require\][ \t]*$(.*?)(?=^\[|\Z)", cfg_text, re.MULTILINE | re.DOTALL
    )
    body = section.group(1) if section else ""
    for name in _TEST_EXTRAS:
        hit = re.search(rf"^{name}[ \t]*=[^\n]*(?:\n[ \t]+[^\n]*)*", body, re.MULTILINE)
        if section and hit:
            at = section.start(1) + hit.end()
            return span_edit(rel(project, cfg), cfg_text, at, at, f"\n    {requirement}")
    setup = base / "setup.py"
    setup_text = read(setup) if setup.is_file() else ""
    for name in _TEST_EXTRAS if "extras_require" in setup_text else ():
        hit = re.search(rf"extras_require\s*=\s*\{{[^}}]*?['\"]{name}['\"]\s*:\s*\[", setup_text)
        if hit:
            return _array_add(rel(project, setup), setup_text, hit.end() - 1, f'"{requirement}"')
    return None
