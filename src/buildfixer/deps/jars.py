"""What a cached jar says about itself: its JPMS module name and the dependencies its POM declares.

The module name is what `requires x;` in module-info.java names: the `module-info.class` of an
explicit module (also under META-INF/versions/N/ of a multi-release jar), else the manifest's
`Automatic-Module-Name`, else the name the JDK derives from the file name (ModuleFinder's rules:
commons-lang3-3.12.0.jar -> commons.lang3).
"""

from __future__ import annotations

import re
import struct
import zipfile
from pathlib import Path


def _module_info_name(data: bytes) -> str | None:
    """The module name of a compiled module-info.class (its constant pool's CONSTANT_Module this module)."""
    try:
        if data[:4] != b"\xca\xfe\xba\xbe":
            return None
        count = struct.unpack_from(">H", data, 8)[0]
        utf8: dict[int, str] = {}
        modules: dict[int, int] = {}
        classes: dict[int, int] = {}
        offset, index = 10, 1
        sizes = {3: 4, 4: 4, 5: 8, 6: 8, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4}
        while index < count:
            tag = data[offset]
            if tag == 1:
                length = struct.unpack_from(">H", data, offset + 1)[0]
                utf8[index] = data[offset + 3 : offset + 3 + length].decode("utf-8", "replace")
                offset += 3 + length
            elif tag in (19, 20, 7):  # Module, Package, Class: a u2 name index
                target = struct.unpack_from(">H", data, offset + 1)[0]
                (modules if tag == 19 else classes)[index] = target
                offset += 3
            elif tag in sizes:
                offset += 1 + sizes[tag]
            else:
                return None
            index += 2 if tag in (5, 6) else 1
        # access_flags, this_class, super_class, interfaces, fields, methods (none in module-info)
        offset += 6
        offset += 2 + 2 * struct.unpack_from(">H", data, offset)[0]
        for _ in range(2):  # fields, methods: skip their attributes
            members = struct.unpack_from(">H", data, offset)[0]
            offset += 2
            for _m in range(members):
                attributes = struct.unpack_from(">H", data, offset + 6)[0]
                offset += 8
                for _a in range(attributes):
                    offset += 6 + struct.unpack_from(">I", data, offset + 2)[0]
        attributes = struct.unpack_from(">H", data, offset)[0]
        offset += 2
        for _ in range(attributes):
            name_index, length = struct.unpack_from(">HI", data, offset)
            if utf8.get(name_index) == "Module":
                module_index = struct.unpack_from(">H", data, offset + 6)[0]
                return utf8.get(modules.get(module_index, -1))
            offset += 6 + length
    except (struct.error, IndexError):
        return None
    return None


def automatic_name(file_name: str) -> str | None:
    """The automatic module name the JDK derives from a jar's file name (java.lang.module.ModuleFinder)."""
    stem = file_name.removesuffix(".jar")
    version = re.search(r"-(\d+(\.|$))", stem)
    if version:
        stem = stem[: version.start()]
    name = re.sub(r"[^A-Za-z0-9]", ".", stem)
    name = re.sub(r"\.{2,}", ".", name).strip(".")
    return name or None


def module_name(jar: zipfile.ZipFile, file_name: str) -> str | None:
    """The JPMS name a jar has on the module path (explicit, manifest, or derived)."""
    names = jar.namelist()
    infos = ["module-info.class"] + sorted(
        (n for n in names if re.fullmatch(r"META-INF/versions/\d+/module-info\.class", n)),
        key=lambda n: int(n.split("/")[2]),
    )
    for info in infos:
        if info in names and (found := _module_info_name(jar.read(info))):
            return found
    if "META-INF/MANIFEST.MF" in names:
        manifest = (
            jar.read("META-INF/MANIFEST.MF")
            .decode("utf-8", "replace")
            .replace("\r\n ", "")
            .replace("\n ", "")
        )
        match = re.search(r"^Automatic-Module-Name:\s*(\S+)", manifest, re.MULTILINE)
        if match:
            return match.group(1)
    return automatic_name(file_name)


def _pom_of(jar: Path) -> Path | None:
    """The POM next to a cached jar (Maven: same directory; Gradle: a sibling hash directory)."""
    pom = jar.with_suffix(".pom")
    if pom.is_file():
        return pom
    found = sorted(jar.parent.parent.glob(f"*/{jar.stem}.pom"))
    return found[0] if found else None


def pom_dependencies(jar: Path) -> list[tuple[str, str]]:
    """(group, artifact) of the compile/runtime dependencies the jar's cached POM declares.

    Those come with it transitively: declaring them too would add siblings the project never
    declared. Optional, test and provided ones do not come along and are left out.
    """
    pom = _pom_of(jar)
    try:
        text = pom.read_text(encoding="utf-8", errors="replace") if pom else ""
    except OSError:
        return []
    text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    text = re.sub(r"<(dependencyManagement|build|profiles)>.*?</\1>", "", text, flags=re.DOTALL)
    own = re.search(
        r"<groupId>\s*([^<\s]+)\s*</groupId>", re.sub(r"<parent>.*?</parent>", "", text, flags=re.DOTALL)
    )
    parent = re.search(r"<parent>.*?<groupId>\s*([^<\s]+)\s*</groupId>", text, re.DOTALL)
    group_of_project = own.group(1) if own else parent.group(1) if parent else ""
    found: list[tuple[str, str]] = []
    for block in re.findall(r"<dependency>(.*?)</dependency>", text, re.DOTALL):
        group = re.search(r"<groupId>\s*([^<\s]+)\s*</groupId>", block)
        artifact = re.search(r"<artifactId>\s*([^<\s]+)\s*</artifactId>", block)
        scope = re.search(r"<scope>\s*(\w+)\s*</scope>", block)
        if not group or not artifact or re.search(r"<optional>\s*true\s*</optional>", block):
            continue
        if scope and scope.group(1) in ("test", "provided", "system", "import"):
            continue
        name = (
            group.group(1)
            .replace("${project.groupId}", group_of_project)
            .replace("${pom.groupId}", group_of_project)
        )
        found.append((name, artifact.group(1)))
    return found
