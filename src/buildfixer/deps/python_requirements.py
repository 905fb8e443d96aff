"""Python requirements declared in build files (see `buildfixer.deps.manage` for the public API).

Requirement strings in pyproject.toml (PEP 621 lists, dependency groups, build requirements),
Poetry tables, setup.py and setup.cfg `install_requires`, requirements files: find them, change
the version they ask for, remove them. Where a new requirement goes is `deps.python_placement`.
"""

from __future__ import annotations

import re
from pathlib import Path

from buildfixer.buildsys.index_pages import normalize_dist
from buildfixer.deps.base import Declaration, Edit, find_build_files, item_span, read, rel, span_edit
from buildfixer.deps.python_placement import python_add

_OPS = r"(?:===|==|~=|!=|<=|>=|<|>)"
# name[extras] (spec) ; markers -- the spec without parentheses in group 3.
_REQ = re.compile(
    rf"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*\(?\s*({_OPS}\s*[^;()]*?)?\s*\)?\s*(;.*)?$"
)


def _requirement_files(project: Path) -> list[Path]:
    files = find_build_files(project, ("pyproject.toml", "setup.cfg", "setup.py", "*.txt"))
    return [
        f for f in files if not f.name.endswith(".txt") or "requirements" in f.name or "constraints" in f.name
    ]


def _first_version(spec: str) -> str | None:
    match = re.search(rf"{_OPS}\s*([^\s,;]+)", spec or "")
    return match.group(1) if match else None


def find(project: Path, name: str) -> list[Declaration]:
    """Declarations of `name` in Python build files and requirements files."""
    found: list[Declaration] = []
    if ":" not in name:
        for path in _requirement_files(project):
            found += _python_declarations(project, path, name)
    return found


_LIST_KEYS = {"dependencies", "requires", "install_requires", "tests_require", "setup_requires"}
_LIST_TABLES = {"project.optional-dependencies", "dependency-groups"}


def _in_requirement_list(text: str, at: int) -> bool:
    """Whether offset `at` lies in a list of requirements: `dependencies = [`, `install_requires=[`..."""
    prefix = text[:at]
    opened = prefix.rfind("[")
    if opened == -1 or prefix.rfind("]") > opened:
        return False
    key = re.search(r"([\w-]+)\s*[=:]\s*$", prefix[:opened])
    table = re.findall(r"^\[([^\]\n]+)\]", prefix, re.MULTILINE)
    return bool(key and key.group(1) in _LIST_KEYS) or bool(table and table[-1].strip() in _LIST_TABLES)


def _python_declarations(project: Path, path: Path, name: str) -> list[Declaration]:
    text = read(path)
    file = rel(project, path)
    wanted = normalize_dist(name)
    found: list[Declaration] = []
    if path.suffix in (".toml", ".py"):
        for match in re.finditer(r"([\"'])([^\"'\n]+)\1", text):
            before = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
            if re.search(r"\b(?:name|version|description)\s*=\s*$", before):
                continue  # the project's own name, not a requirement
            req = _REQ.match(match.group(2))
            if req is None or normalize_dist(req.group(1)) != wanted:
                continue
            # A bare name is a requirement only inside a requirement list (not packages=["x"]).
            if req.group(3) or req.group(4) or _in_requirement_list(text, match.start()):
                found.append(_py_decl(file, name, match.group(2), match.start(2), "python"))
        if path.name == "pyproject.toml":  # Poetry: name = "^1.2" / name = { version = "^1.2" }
            key = rf"^[ \t]*[\"']?{re.escape(name)}[\"']?[ \t]*=[ \t]*"
            poetry = re.compile(key + r"(?:\{[^}\n]*?version[ \t]*=[ \t]*)?\"([^\"]*)\"", re.MULTILINE | re.I)
            for match in poetry.finditer(text):
                tables = re.findall(r"^\[([^\]\n]+)\]", text[: match.start()], re.MULTILINE)
                if not tables or "poetry" not in tables[-1] or "dependencies" not in tables[-1]:
                    continue
                version = re.sub(r"^[\^~=<>!\s]+", "", match.group(1)) or None
                found.append(
                    Declaration(
                        file,
                        name,
                        version,
                        match.group(0).strip(),
                        file,
                        match.start(1),
                        match.end(1),
                        "poetry",
                    )
                )
        return found
    offset = 0
    for line in text.splitlines(keepends=True):
        content = line.split(" #")[0].split("\t#")[0].rstrip("\r\n")
        req = _REQ.match(content) if content.strip() and not content.lstrip().startswith(("#", "-")) else None
        if req and normalize_dist(req.group(1)) == wanted:
            lead = len(content) - len(content.lstrip())
            found.append(_py_decl(file, name, content.strip(), offset + lead, "python"))
        offset += len(line)
    return found


def _py_decl(file: str, name: str, requirement: str, start: int, kind: str) -> Declaration:
    spec = _REQ.match(requirement)
    version = _first_version(spec.group(3) or "") if spec else None
    return Declaration(file, name, version, requirement, file, start, start + len(requirement), kind)


def _new_requirement(requirement: str, version: str, old: str | None) -> str:
    """The requirement asking for `version`: one clause keeps its operator, else `==version`."""
    req = _REQ.match(requirement)
    if req is None:
        return requirement
    head = req.group(1) + (req.group(2) or "")
    spec = (req.group(3) or "").strip()
    marker = f" {req.group(4).strip()}" if req.group(4) else ""
    clauses = [c.strip() for c in spec.split(",") if c.strip()]
    if len(clauses) == 1:
        op = re.match(_OPS, clauses[0])
        operator = op.group(0) if op else "=="
        if operator in ("==", "===", ">=") or (operator == "~=" and "." in version):
            return f"{head}{operator}{version}{marker}"
    if old is not None and len(clauses) > 1 and sum(old in c for c in clauses) == 1:
        # A range around a missing version (>=1.2.9,<2): move the bound that names it.
        clauses = [re.sub(rf"(?<=[=<>~ ]){re.escape(old)}$", version, c) for c in clauses]
        return f"{head}{','.join(clauses)}{marker}"
    return f"{head}=={version}{marker}"


def version_edit(project: Path, decl: Declaration, version: str) -> Edit | None:
    """The edit making a Python requirement ask for `version` (None when it already does)."""
    if decl.version_file is None:
        return None
    text = read(project / decl.version_file)
    current = text[decl.version_start : decl.version_end]
    if decl.kind == "python":
        new = _new_requirement(current, version, decl.version)
    else:  # poetry
        prefix = re.match(r"[\^~=<>!\s]*", current)
        new = (prefix.group(0) if prefix else "") + version
    if new == current:
        return None
    return span_edit(decl.version_file, text, decl.version_start, decl.version_end, new)


def add(project: Path, base: Path, name: str, version: str | None, test: bool) -> Edit | None:
    """A new Python requirement: `name>=version`, or just `name`.

    A version given with its operator ("==1.2", a lockfile's pin) is kept as written.
    """
    spec = (version if version[:1] in "=<>~!" else f">={version}") if version else ""
    return python_add(project, base, f"{name}{spec}", test)


def removal(project: Path, decl: Declaration) -> Edit | None:
    """The edit deleting one Python requirement (None for other declarations)."""
    if decl.kind not in ("python", "poetry") or decl.version_file is None:
        return None
    text = read(project / decl.file)
    if decl.kind == "poetry" or decl.file.endswith((".txt", ".cfg")):
        start = text.rfind("\n", 0, decl.version_start) + 1
        end = text.find("\n", decl.version_end)
        end = len(text) if end == -1 else end + 1
    else:  # a quoted item of a list
        start, end = item_span(text, decl.version_start - 1, decl.version_end + 1)
    return span_edit(decl.file, text, start, end, "")
