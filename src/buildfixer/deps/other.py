"""Python and npm dependency declarations (see `buildfixer.deps.manage` for the public API).

Python: requirement strings in pyproject.toml (PEP 621 lists, dependency groups, build
requirements), Poetry tables, setup.py and setup.cfg `install_requires`, requirements files.
npm: the dependency sections of package.json.
"""

from __future__ import annotations

import re
from pathlib import Path

from buildfixer.deps.base import Declaration, Edit, find_build_files, read, rel, span_edit
from buildfixer.deps.python import python_add

_NPM_SECTIONS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
_OPS = r"(?:===|==|~=|!=|<=|>=|<|>)"
# name[extras] (spec) ; markers -- the spec without parentheses in group 3.
_REQ = re.compile(
    rf"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*\(?\s*({_OPS}\s*[^;()]*?)?\s*\)?\s*(;.*)?$"
)
_PY_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "*requirements.txt", "*requirements-dev.txt")


def normalize(name: str) -> str:
    """PEP 503 form of a distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_files(project: Path) -> list[Path]:
    files = find_build_files(project, ("pyproject.toml", "setup.cfg", "setup.py", "*.txt"))
    return [
        f for f in files if not f.name.endswith(".txt") or "requirements" in f.name or "constraints" in f.name
    ]


def _first_version(spec: str) -> str | None:
    match = re.search(rf"{_OPS}\s*([^\s,;]+)", spec or "")
    return match.group(1) if match else None


def find(project: Path, name: str) -> list[Declaration]:
    """Declarations of `name` in Python and npm build files."""
    found: list[Declaration] = []
    if ":" not in name:
        for path in _requirement_files(project):
            found += _python_declarations(project, path, name)
        for path in find_build_files(project, ["package.json"]):
            found += _npm_declarations(project, path, name)
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
    wanted = normalize(name)
    found: list[Declaration] = []
    if path.suffix in (".toml", ".py"):
        for match in re.finditer(r"([\"'])([^\"'\n]+)\1", text):
            before = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
            if re.search(r"\b(?:name|version|description)\s*=\s*$", before):
                continue  # the project's own name, not a requirement
            req = _REQ.match(match.group(2))
            if req is None or normalize(req.group(1)) != wanted:
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
        if req and normalize(req.group(1)) == wanted:
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


def _npm_range(current: str, version: str) -> str:
    """The range asking for `version`, keeping a simple range's ^, ~ or >= prefix."""
    match = re.fullmatch(r"\s*(\^|~|>=|=)?v?\d[\w.+-]*\s*", current)
    return f"{match.group(1) or ''}{version}" if match else version


def version_edit(project: Path, decl: Declaration, version: str) -> Edit | None:
    """The edit making a Python or npm declaration ask for `version` (None when it already does)."""
    if decl.version_file is None:
        return None
    text = read(project / decl.version_file)
    current = text[decl.version_start : decl.version_end]
    if decl.kind == "python":
        new = _new_requirement(current, version, decl.version)
    elif decl.kind == "poetry":
        prefix = re.match(r"[\^~=<>!\s]*", current)
        new = (prefix.group(0) if prefix else "") + version
    else:
        new = _npm_range(current, version)
    if new == current:
        return None
    return span_edit(decl.version_file, text, decl.version_start, decl.version_end, new)


# --- npm -------------------------------------------------------------------------------------


def _section(text: str, section: str) -> tuple[int, int] | None:
    """Offsets of `{` and `}` of a top-level package.json section (its values hold no braces)."""
    match = re.search(rf"\"{section}\"\s*:\s*\{{", text)
    if not match:
        return None
    close = text.find("}", match.end())
    return (match.end() - 1, close) if close != -1 else None


def _npm_declarations(project: Path, path: Path, name: str) -> list[Declaration]:
    text = read(path)
    file = rel(project, path)
    found: list[Declaration] = []
    for section in _NPM_SECTIONS:
        span = _section(text, section)
        if span is None:
            continue
        body = text[span[0] : span[1]]
        for match in re.finditer(rf"\"{re.escape(name)}\"\s*:\s*\"([^\"]*)\"", body):
            start = span[0] + match.start(1)
            version = re.sub(r"^[\^~=v>\s]+", "", match.group(1)) or None
            found.append(
                Declaration(
                    file, name, version, match.group(0), file, start, start + len(match.group(1)), "npm"
                )
            )
    return found


def _npm_add(project: Path, path: Path, name: str, version: str | None, test: bool) -> Edit | None:
    text = read(path)
    section = "devDependencies" if test else "dependencies"
    entry = f'"{name}": "{"^" + version if version else "*"}"'
    file = rel(project, path)
    span = _section(text, section)
    if span is None:
        top = re.search(r"\n([ \t]+)\"", text)
        indent = top.group(1) if top else "  "
        close = text.rstrip().rfind("}")
        last = len(text[:close].rstrip())
        addition = f',\n{indent}"{section}": {{\n{indent * 2}{entry}\n{indent}}}'
        return span_edit(file, text, last, last, addition)
    body = text[span[0] + 1 : span[1]]
    entries = list(re.finditer(r"\"([^\"]+)\"\s*:\s*\"[^\"]*\"", body))
    first_indent = re.search(r"\n([ \t]+)\"", body)
    indent = first_indent.group(1) if first_indent else "    "
    if not entries:
        outer = re.search(r"([ \t]*)\"" + section, text)
        close_indent = outer.group(1) if outer else ""
        return span_edit(file, text, span[0] + 1, span[1], f"\n{indent}{entry}\n{close_indent}")
    # npm keeps sections sorted: insert before the first entry that sorts after the new one.
    later = next((m for m in entries if m.group(1) > name), None)
    if later is not None:
        at = span[0] + 1 + later.start()
        return span_edit(file, text, at, at, f"{entry},\n{indent}")
    at = span[0] + 1 + entries[-1].end()
    return span_edit(file, text, at, at, f",\n{indent}{entry}")


def add(project: Path, base: Path, system: str, name: str, version: str | None, test: bool) -> Edit | None:
    """A new Python requirement (`name>=version`, or just `name`) or npm dependency.

    A Python version given with its operator ("==1.2", a lockfile's pin) is kept as written.
    """
    if system == "npm":
        package_json = base / "package.json"
        return _npm_add(project, package_json, name, version, test) if package_json.is_file() else None
    if system == "python":
        spec = (version if version[:1] in "=<>~!" else f">={version}") if version else ""
        return python_add(project, base, f"{name}{spec}", test)
    return None


def _item_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span removing one item of a JSON object or TOML/Python list with its comma and line."""
    comma_after = re.match(r"[ \t]*,", text[end:])
    if comma_after:
        end += comma_after.end()
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    own_line = text[line_start:start].strip() == "" and text[end:line_end].strip() == ""
    if own_line and comma_after:
        return line_start, min(line_end + 1, len(text))
    comma_before = re.search(r",\s*$", text[:start])
    if own_line:  # the last item: its line and the comma ending the line before go
        if comma_before:
            return comma_before.start(), line_end
        return line_start, min(line_end + 1, len(text))
    if not comma_after and comma_before:
        return comma_before.start(), end
    return start, end + len(re.match(r"[ \t]*", text[end:]).group(0))  # type: ignore[union-attr]


def removal(project: Path, decl: Declaration) -> Edit | None:
    """The edit deleting one Python requirement or npm dependency."""
    if decl.kind not in ("python", "poetry", "npm") or decl.version_file is None:
        return None
    text = read(project / decl.file)
    if decl.kind == "npm":
        start = text.rfind(decl.text, 0, decl.version_end + 1)
        start, end = _item_span(text, start, start + len(decl.text))
    elif decl.kind == "poetry" or decl.file.endswith((".txt", ".cfg")):
        start = text.rfind("\n", 0, decl.version_start) + 1
        end = text.find("\n", decl.version_end)
        end = len(text) if end == -1 else end + 1
    else:  # a quoted item of a list
        start, end = _item_span(text, decl.version_start - 1, decl.version_end + 1)
    return span_edit(decl.file, text, start, end, "")
