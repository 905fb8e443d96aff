"""npm dependencies declared in package.json (see `buildfixer.deps.manage` for the public API).

The `dependencies`, `devDependencies`, `peerDependencies` and `optionalDependencies` sections:
find a package's entries, change the range they ask for, add one, remove one.
"""

from __future__ import annotations

import re
from pathlib import Path

from buildfixer.deps.base import Declaration, Edit, find_build_files, item_span, read, rel, span_edit

_NPM_SECTIONS = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")


def find(project: Path, name: str) -> list[Declaration]:
    """Declarations of `name` in the project's package.json files."""
    found: list[Declaration] = []
    if ":" not in name:
        for path in find_build_files(project, ["package.json"]):
            found += _npm_declarations(project, path, name)
    return found


def _npm_range(current: str, version: str) -> str:
    """The range asking for `version`, keeping a simple range's ^, ~ or >= prefix."""
    match = re.fullmatch(r"\s*(\^|~|>=|=)?v?\d[\w.+-]*\s*", current)
    return f"{match.group(1) or ''}{version}" if match else version


def version_edit(project: Path, decl: Declaration, version: str) -> Edit | None:
    """The edit making an npm dependency ask for `version` (None when it already does)."""
    if decl.version_file is None:
        return None
    text = read(project / decl.version_file)
    current = text[decl.version_start : decl.version_end]
    new = _npm_range(current, version)
    if new == current:
        return None
    return span_edit(decl.version_file, text, decl.version_start, decl.version_end, new)


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


def add(project: Path, base: Path, name: str, version: str | None, test: bool) -> Edit | None:
    """A new dependency (`^version`, or `*`) in the module's package.json; None without one."""
    package_json = base / "package.json"
    return _npm_add(project, package_json, name, version, test) if package_json.is_file() else None


def removal(project: Path, decl: Declaration) -> Edit | None:
    """The edit deleting one npm dependency (None for other declarations)."""
    if decl.kind != "npm" or decl.version_file is None:
        return None
    text = read(project / decl.file)
    start = text.rfind(decl.text, 0, decl.version_end + 1)
    start, end = item_span(text, start, start + len(decl.text))
    return span_edit(decl.file, text, start, end, "")
