"""Gradle and Maven dependency declarations (public API: `buildfixer.deps.manage`; pom.xml: `deps.maven`).

Gradle: string notation ('g:a:v', "g:a:v:classifier@aar"), map notation (group: 'g', name: 'a',
version: 'v'; `=` in the Kotlin DSL), plugins (`id 'x' version 'y'`, `kotlin("jvm") version`),
version catalogs (gradle/*.versions.toml) and versions held in variables ($gsonVersion,
${rootProject.ext.x}, gradle.properties). Maven: <dependency>, <plugin>, <extension> and
annotation-processor <path> blocks, with `${property}` versions edited in <properties>.
"""

from __future__ import annotations

import re
from pathlib import Path

from buildfixer.deps import maven
from buildfixer.deps.base import Declaration, Edit, find_build_files, read, rel, span_edit, whole_file_edit

GRADLE_FILES = ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts")
_GRADLE_ALL = (*GRADLE_FILES, "gradle.properties", "*.versions.toml")


def find(project: Path, name: str) -> list[Declaration]:
    """Declarations of `name` in Gradle and Maven build files."""
    found: list[Declaration] = []
    gradle_files = find_build_files(project, _GRADLE_ALL)
    for path in gradle_files:
        text = read(path)
        found += _gradle_declarations(project, path, text, name, gradle_files)
    for path in find_build_files(project, ["pom.xml"]):
        found += maven.declarations(project, path, name)
    return found


def repositories(project: Path) -> list[str]:
    """Repository URLs of `maven { url ... }` blocks and `<repository>`/`<pluginRepository>` elements."""
    urls: list[str] = []
    for path in find_build_files(project, [*GRADLE_FILES, "pom.xml"]):
        text = read(path)
        urls += re.findall(
            r"maven\s*[({]\s*(?:url\s*[=(]?\s*)?(?:uri\()?\s*['\"](https?://[^'\"]+)['\"]", text
        )
        blocks = re.findall(r"<(?:pluginR|r)epository>(.*?)</(?:pluginR|r)epository>", text, re.DOTALL)
        urls += [u for block in blocks for u in re.findall(r"<url>\s*(https?://[^<\s]+)\s*</url>", block)]
    return list(dict.fromkeys(urls))


def names(project: Path) -> list[str]:
    """Every group:artifact the Gradle and Maven build files name (declared or managed)."""
    found: list[str] = []
    for path in find_build_files(project, _GRADLE_ALL):
        text = read(path)
        found += [f"{g}:{a}" for g, a in re.findall(r"['\"]([\w.-]+):([\w.-]+):[^'\"\s]*['\"]", text)]
        found += [
            f"{g}:{a}"
            for g, a in re.findall(
                r"group\s*[:=]\s*['\"]([\w.-]+)['\"]\s*,\s*name\s*[:=]\s*['\"]([\w.-]+)", text
            )
        ]
        found += [f"{g}:{a}" for g, a in re.findall(r"module\s*=\s*\"([\w.-]+):([\w.-]+)\"", text)]
    for path in find_build_files(project, ["pom.xml"]):
        masked = maven.mask_comments(read(path))
        for kind in maven.TAGS:
            for block in re.finditer(rf"<{kind}>(.*?)</{kind}>", masked, re.DOTALL):
                head = re.split(r"<(?:dependencies|configuration|executions|exclusions)>", block.group(1))[0]
                g, a = maven.tag(head, "groupId"), maven.tag(head, "artifactId")
                if a is not None:
                    group = g.group(1) if g else ("org.apache.maven.plugins" if kind == "plugin" else "")
                    found.append(f"{group}:{a.group(1)}")
    return list(dict.fromkeys(n for n in found if not n.startswith(":")))


# --- Gradle ----------------------------------------------------------------------------------


def _variable(version: str) -> str | None:
    """The variable a Gradle version refers to: "$gsonVersion", "${versions.gson}" -> the last name."""
    match = re.fullmatch(r"\$\{?\s*([\w.]+?)(?:\.get\(\))?\s*\}?", version.strip())
    return match.group(1).split(".")[-1] if match else None


def _define(variable: str, files: list[Path], prefer: Path) -> tuple[Path, int, int, str] | None:
    """Where a Gradle variable gets its literal value: (file, start, end, value), its own file first."""
    name = re.escape(variable)
    script = [
        rf"(?<![\w$]){name}\s*=\s*(['\"])([^'\"$]+)\1",  # ext.x = / def x = / val x =
        rf"(?<![\w.$]){name}\s*:\s*(['\"])([^'\"$]+)\1",  # map literal: versions = [gson: '2.8.9']
        rf"(?:set\(\s*|extra\[\s*)(\"){name}\"\s*[,\]]\s*=?\s*\"([^\"$]+)\"",  # Kotlin extra
    ]
    properties = [rf"^[ \t]*{name}[ \t]*[=:][ \t]*()([^\s#]+)"]
    for path in [prefer] + [f for f in files if f != prefer]:
        text = read(path)
        for pattern in properties if path.name == "gradle.properties" else script:
            match = re.search(pattern, text, re.MULTILINE)
            if match:
                return path, match.start(2), match.end(2), match.group(2)
    return None


def _catalog_version(text: str, key: str) -> tuple[int, int, str] | None:
    """The literal of `key` in a catalog's [versions] table."""
    table = re.search(r"^\[versions\]\s*$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    if not table:
        return None
    keys = {key, key.replace(".", "-"), key.replace(".", "_"), key.replace("-", ".")}
    for candidate in keys:
        match = re.search(
            rf"^\s*{re.escape(candidate)}\s*=\s*(?:\{{[^}}]*?(?:strictly|require|prefer)\s*=\s*)?\"([^\"]+)\"",
            table.group(1),
            re.MULTILINE,
        )
        if match:
            offset = table.start(1)
            return offset + match.start(1), offset + match.end(1), match.group(1)
    return None


def _gradle_declarations(
    project: Path, path: Path, text: str, name: str, files: list[Path]
) -> list[Declaration]:
    found: list[Declaration] = []
    file = rel(project, path)
    if ":" in name:
        group, _, artifact = name.partition(":")
        g, a = re.escape(group), re.escape(artifact)
        string = re.compile(rf"(['\"]){g}:{a}(?::([^'\":@\s]*))?(?::[^'\"@]*)?(?:@\w+)?\1")
        mapping = re.compile(
            rf"group\s*[:=]\s*(['\"]){g}\1\s*,\s*name\s*[:=]\s*(['\"]){a}\2"
            rf"(?:\s*,\s*version\s*[:=]\s*(['\"])([^'\"]*)\3)?"
        )
        catalog = re.compile(
            rf"(?:module\s*=\s*\"{g}:{a}\"|group\s*=\s*\"{g}\"\s*,\s*name\s*=\s*\"{a}\")"
            rf"[^}}\n]*?version(\.ref)?\s*=\s*\"([^\"]+)\""
        )
        spans: list[tuple[re.Match[str], int]] = []
        spans += [(m, 2) for m in string.finditer(text)]
        spans += [(m, 4) for m in mapping.finditer(text)]
        for match, group_no in spans:
            version = match.group(group_no)
            if path.suffix == ".toml" and not version:
                continue  # `module = "g:a"` of a catalog entry: read below with its version
            decl = _resolved(project, path, file, text, name, match, group_no, version, files, "gradle")
            found.append(decl)
        if path.name.endswith(".versions.toml"):
            for match in catalog.finditer(text):
                found.append(_catalog_decl(file, text, name, match))
    else:
        plugin = re.compile(
            rf"(?:id\s*\(?\s*(['\"]){re.escape(name)}\1\s*\)?"
            + (
                rf"|kotlin\(\s*\"{re.escape(name.removeprefix('org.jetbrains.kotlin.'))}\"\s*\)"
                if name.startswith("org.jetbrains.kotlin.")
                else ""
            )
            + r")\s*version\s*\(?\s*(['\"])([^'\"]+)\2"
        )
        for match in plugin.finditer(text):
            found.append(
                _resolved(project, path, file, text, name, match, 3, match.group(3), files, "gradle-plugin")
            )
        if path.name.endswith(".versions.toml"):
            pattern = rf"id\s*=\s*\"{re.escape(name)}\"[^}}\n]*?version(\.ref)?\s*=\s*\"([^\"]+)\""
            for match in re.finditer(pattern, text):
                found.append(_catalog_decl(file, text, name, match))
    return found


def _resolved(
    project: Path,
    path: Path,
    file: str,
    text: str,
    name: str,
    match: re.Match[str],
    group_no: int,
    version: str | None,
    files: list[Path],
    kind: str,
) -> Declaration:
    """A Gradle declaration whose version is a literal or a variable defined elsewhere."""
    if not version:
        return Declaration(file, name, None, match.group(0), kind=kind)
    variable = _variable(version) if "$" in version else None
    if variable is None:
        return Declaration(
            file, name, version, match.group(0), file, match.start(group_no), match.end(group_no), kind
        )
    if "libs.versions." in version:
        key = re.sub(r"^\$\{?\s*libs\.versions\.|(?:\.get\(\))?\s*\}?$", "", version)
        for catalog in (f for f in files if f.name.endswith(".versions.toml")):
            hit = _catalog_version(read(catalog), key)
            if hit:
                return Declaration(
                    file, name, hit[2], match.group(0), rel(project, catalog), hit[0], hit[1], kind
                )
    defined = _define(variable, [f for f in files if not f.name.endswith(".toml")], path)
    if defined is None:
        return Declaration(file, name, None, match.group(0), kind=kind)
    where, start, end, value = defined
    return Declaration(file, name, value, match.group(0), rel(project, where), start, end, kind)


def _catalog_decl(file: str, text: str, name: str, match: re.Match[str]) -> Declaration:
    if match.group(1):  # version.ref = "key"
        hit = _catalog_version(text, match.group(2))
        if hit is None:
            return Declaration(file, name, None, match.group(0), kind="catalog")
        return Declaration(file, name, hit[2], match.group(0), file, hit[0], hit[1], "catalog")
    return Declaration(
        file, name, match.group(2), match.group(0), file, match.start(2), match.end(2), "catalog"
    )


def _top_block(text: str, keyword: str) -> tuple[int, int] | None:
    """Offsets of `{` and `}` of the first `keyword {` block at the top level of a Gradle script."""
    depth, i, n = 0, 0, len(text)
    while i < n:
        ch = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end == -1 else end + 2
            continue
        if ch in "'\"":
            end = i + 1
            while end < n and text[end] != ch and text[end] != "\n":
                end += 2 if text[end] == "\\" else 1
            i = end + 1
            continue
        starts_word = i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "._")
        if depth == 0 and starts_word and (match := re.compile(rf"\b{keyword}\s*\{{").match(text, i)):
            open_at = match.end() - 1
            close = _matching(text, open_at)
            return (open_at, close) if close is not None else None
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        i += 1
    return None


def _matching(text: str, open_at: int) -> int | None:
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def add(project: Path, base: Path, system: str, name: str, version: str | None, test: bool) -> Edit | None:
    """A new dependency in the module's build.gradle[.kts] or pom.xml (version None: a BOM manages it)."""
    if system == "gradle":
        path = next((base / f for f in ("build.gradle", "build.gradle.kts") if (base / f).is_file()), None)
        return _gradle_add(project, path, name, version, test) if path else None
    pom = base / "pom.xml"
    return maven.add_pom_dependency(project, pom, name, version, test) if pom.is_file() else None


def _gradle_add(project: Path, path: Path, name: str, version: str | None, test: bool) -> Edit:
    text = read(path)
    kts = path.suffix == ".kts"
    block = _top_block(text, "dependencies")
    body = text[block[0] + 1 : block[1]] if block else ""
    old_style = re.search(r"^\s*(?:compile|testCompile)\b\s*[('\"a-z]", body, re.MULTILINE) is not None
    config = (
        ("testCompile" if test else "compile")
        if old_style
        else ("testImplementation" if test else "implementation")
    )
    notation = f"{name}:{version}" if version else name
    quote = '"' if kts or "$" in notation else "'"  # Groovy interpolates only in double quotes
    line = f'{config}("{notation}")' if kts else f"{config} {quote}{notation}{quote}"
    if block is None:
        addition = f"\ndependencies {{\n    {line}\n}}\n"
        sep = "" if text.endswith("\n") or not text else "\n"
        return whole_file_edit(rel(project, path), text, text + sep + addition)
    first = re.search(r"\n([ \t]+)\S", body)
    indent = first.group(1) if first else "    "
    insert_at = block[0] + 1
    return span_edit(rel(project, path), text, insert_at, insert_at, f"\n{indent}{line}")


def removal(project: Path, decl: Declaration) -> Edit | None:
    """The edit deleting one Gradle or Maven declaration with its line(s); None when it shares them.

    Catalog entries are left alone: `libs.x` references elsewhere would break.
    """
    if decl.kind not in ("gradle", "gradle-plugin", "maven", "maven-plugin"):
        return None
    text = read(project / decl.file)
    if text.count(decl.text) != 1:
        return None
    start = text.find(decl.text)
    end = start + len(decl.text)
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end + 1
    before, after = text[line_start:start], text[end:line_end]
    # `implementation 'g:a:v'`, `implementation("g:a:v")`, `compile group: ...` : the keyword goes too.
    ok_before = before.strip() == "" or (decl.kind == "gradle" and re.fullmatch(r"\s*\w+\s*\(?\s*", before))
    ok_after = re.fullmatch(r"\s*\)?\s*(?://.*|<!--.*-->)?\s*", after) is not None
    if not (ok_before and ok_after):
        return None
    return span_edit(decl.file, text, line_start, line_end, "")
