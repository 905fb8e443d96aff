"""Maven dependency declarations in pom.xml (the Maven half of `buildfixer.deps.jvm`).

<dependency>, <plugin>, <extension> and annotation-processor <path> blocks, with `${property}`
versions edited in <properties>.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from buildfixer.deps.base import Declaration, Edit, find_build_files, read, rel, span_edit

TAGS = ("dependency", "plugin", "extension", "path", "parent")


def mask_comments(text: str, *patterns: str) -> str:
    """The text with comments (and the given regions) blanked, offsets unchanged."""
    for pattern in ("<!--.*?-->", *patterns):
        text = re.sub(pattern, lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.DOTALL)
    return text


def tag(block: str, tag: str) -> re.Match[str] | None:
    """The first <tag>value</tag> of a block (its value is group 1)."""
    return re.search(rf"<{tag}>\s*([^<]*?)\s*</{tag}>", block)


def _management_spans(masked: str) -> list[tuple[int, int]]:
    return [
        m.span() for m in re.finditer(r"<(dependency|plugin)Management>.*?</\1Management>", masked, re.DOTALL)
    ]


def declarations(project: Path, path: Path, name: str) -> list[Declaration]:
    """Declarations of `name` in one pom.xml (dependencies, plugins, extensions, processor paths, parent)."""
    text = read(path)
    masked = mask_comments(text)
    group, _, artifact = name.partition(":")
    found: list[Declaration] = []
    managed_spans = _management_spans(masked)
    for kind in TAGS:
        for block in re.finditer(rf"<{kind}>(.*?)</{kind}>", masked, re.DOTALL):
            inner = block.group(1)
            # A plugin's own coordinates come before its <dependencies>/<configuration>.
            head = re.split(r"<(?:dependencies|configuration|executions|exclusions)>", inner)[0]
            g, a = tag(head, "groupId"), tag(head, "artifactId")
            own_group = g.group(1) if g else ("org.apache.maven.plugins" if kind == "plugin" else "")
            if a is None or (own_group, a.group(1)) != (group, artifact):
                continue
            v = tag(head, "version")
            decl_kind = "maven" if kind in ("dependency", "path") else "maven-plugin"
            managed = any(s <= block.start() < e for s, e in managed_spans)
            if v is None:
                decl_text = text[block.start() : block.end()]
                found.append(
                    Declaration(rel(project, path), name, None, decl_text, kind=decl_kind, managed=managed)
                )
                continue
            start = block.start(1) + v.start(1)
            decl = _maven_version(project, path, name, text, block, v.group(1), start, decl_kind)
            found.append(replace(decl, managed=managed) if managed else decl)
    return found


def _maven_version(
    project: Path, path: Path, name: str, text: str, block: re.Match[str], version: str, start: int, kind: str
) -> Declaration:
    file = rel(project, path)
    decl_text = text[block.start() : block.end()]
    prop = re.fullmatch(r"\$\{([\w.-]+)\}", version)
    if not prop:
        return Declaration(file, name, version, decl_text, file, start, start + len(version), kind)
    # The property is defined in this pom or another pom of the project (a parent).
    for pom in [path] + [p for p in find_build_files(project, ["pom.xml"]) if p.resolve() != path.resolve()]:
        pom_text = read(pom)
        masked = mask_comments(pom_text)
        for props in re.finditer(r"<properties>(.*?)</properties>", masked, re.DOTALL):
            hit = re.search(
                rf"<{re.escape(prop.group(1))}>\s*([^<]*?)\s*</{re.escape(prop.group(1))}>", props.group(1)
            )
            if hit:
                offset = props.start(1)
                return Declaration(
                    file,
                    name,
                    hit.group(1),
                    decl_text,
                    rel(project, pom),
                    offset + hit.start(1),
                    offset + hit.end(1),
                    kind,
                )
    return Declaration(file, name, None, decl_text, kind=kind)


def _indent_unit(text: str) -> str:
    """The indentation step of an XML file: tabs when most element lines use them, else the smallest indent.

    A stray tab (one hand-edited line in a space-indented pom) does not make the file tab-indented.
    """
    indents = [m.group(1) for m in re.finditer(r"\n([ \t]+)<", text)]
    tabbed = sum(i.startswith("\t") for i in indents)
    if indents and tabbed * 2 > len(indents):
        return "\t"
    spaces = [i for i in indents if not i.startswith("\t")]
    return min(spaces, key=len) if spaces else "  "


def add_pom_dependency(project: Path, pom: Path, name: str, version: str | None, test: bool) -> Edit:
    """A new <dependency> (test scope if `test`) in the pom, creating <dependencies> when missing."""
    text = read(pom)
    group, _, artifact = name.partition(":")
    # Only the project's own <dependencies>: not dependencyManagement's, a plugin's or a profile's.
    masked = mask_comments(
        text,
        r"<dependencyManagement>.*?</dependencyManagement>",
        r"<build>.*?</build>",
        r"<profiles>.*?</profiles>",
        r"<reporting>.*?</reporting>",
    )
    unit = _indent_unit(text)
    block = re.search(r"<dependencies>(.*?)</dependencies>", masked, re.DOTALL)
    file = rel(project, pom)

    def entry(at: str) -> str:
        """The <dependency> element, its first line unindented, the others indented from `at`."""
        lines = [f"<groupId>{group}</groupId>", f"<artifactId>{artifact}</artifactId>"]
        lines += [f"<version>{version}</version>"] if version else []
        lines += ["<scope>test</scope>"] if test else []
        return "<dependency>" + "".join(f"\n{at}{unit}{line}" for line in lines) + f"\n{at}</dependency>"

    if block:
        close = block.end(1)
        line_start = text.rfind("\n", 0, close) + 1
        indent = re.match(r"[ \t]*", text[line_start:]).group(0)  # type: ignore[union-attr]
        inner = re.search(r"\n([ \t]+)<dependency>", block.group(1))
        dep_indent = inner.group(1) if inner else indent + unit
        if text[line_start:close].strip() == "":
            return span_edit(file, text, line_start, line_start, f"{dep_indent}{entry(dep_indent)}\n")
        return span_edit(file, text, close, close, f"\n{dep_indent}{entry(dep_indent)}\n{indent}")
    anchor = re.search(r"\n([ \t]*)<build>|\n([ \t]*)</project>", masked)
    if anchor is None:
        raise ValueError(f"{file} has no <project> element")
    indent = anchor.group(1) if anchor.group(1) is not None else (anchor.group(2) or "") + unit
    new_block = f"\n{indent}<dependencies>\n{indent}{unit}{entry(indent + unit)}\n{indent}</dependencies>"
    if anchor.group(1) is not None:
        new_block += "\n"  # a blank line between the new block and <build>
    return span_edit(file, text, anchor.start(), anchor.start(), new_block)
