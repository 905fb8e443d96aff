"""The "missing properties file" recipe: the build reads a `.properties` file that is absent.

See `buildfixer.agents.recipes.diagnose` for the policy. The file comes back from git history, from a
template next to it, or is created with placeholder values for the keys the build reads from
it, and only those: keys read from system properties, the environment or the project's own
properties never go into the file.
"""

from __future__ import annotations

import re
from itertools import islice
from pathlib import Path

from buildfixer.agents.recipes.base import Evidence, PlannedCall, Repair
from buildfixer.agents.recipes.toolchains import android_sdk
from buildfixer.core import confined
from buildfixer.core.errors import BuildfixerError
from buildfixer.deps import manage as deps

# --- recipe 3: missing properties files ------------------------------------------------------

_PROPS_MISSING = [
    re.compile(
        r"([^\s'\"()<>]+\.properties) "
        r"\((?:No such file or directory|The system cannot find the \w+ specified)\)"
    ),
    re.compile(r"Properties could not be loaded from File: ([^\s'\"()<>]+\.properties)"),
    re.compile(r"NoSuchFileException: ([^\s'\"()<>]+\.properties)"),
    re.compile(r"[Ff]ile '([^'\n]+\.properties)' (?:does not exist|not found)"),
]
_SDK_MISSING = re.compile(
    r"SDK location not found.{0,300}?local properties file at '([^'\n]+local\.properties)'", re.S
)
_TEMPLATES = (".example", ".sample", ".template", ".dist", ".default", ".tmpl")
_TEST_DIRS = {"test", "tests", "androidTest", "testFixtures", "__tests__", "testData", "test-data"}
_PROPS_METHODS = {
    "load", "getProperty", "get", "getOrDefault", "each", "containsKey", "stringPropertyNames", "keySet",
    "entrySet", "size", "isEmpty", "put", "setProperty", "store", "withInputStream", "propertyNames", "keys",
    "values", "forEach", "with", "apply", "let", "also", "run", "toString", "class", "properties", "getAt",
}  # fmt: skip
# Maven's own and the JVM's system properties: `${user.name}`, `${file.encoding}` never come from a
# properties file of the project.
_MAVEN_BUILTIN = (
    "project.", "pom.", "env.", "settings.", "maven.", "java.", "os.", "user.", "session.", "file.",
    "line.", "path.", "sun.", "jdk.", "awt.",
)  # fmt: skip
_NUMERIC = {
    "count",
    "top",
    "size",
    "port",
    "max",
    "min",
    "limit",
    "timeout",
    "number",
    "num",
    "threads",
    "code",
}


_VERSION_PARTS = {"major", "minor", "patch", "code", "build", "revision"}  # versionMajor=1, versionCode=1


def placeholder(key: str) -> str:
    """A harmless value for a key: 0.0.0 for versions, 1 for numbers, false for flags, else a word."""
    words = [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|\d+|[A-Z]+(?![a-z])", key)] or [key.lower()]
    if words[-1] in _NUMERIC or words[-1].isdigit() or (words[-1] in _VERSION_PARTS and "version" in words):
        return "1"
    if "version" in words:
        return "0.0.0"
    if words[-1] in ("enabled", "enable", "disabled", "debug", "flag"):
        return "false"
    return "placeholder"


# Names that hold system, environment or project properties, never the loaded file's: a
# `properties.load(...)` elsewhere does not make `System.properties[...]` or `env[...]` file keys.
_NOT_FILE_PROPERTIES = {
    "System",
    "system",
    "env",
    "environment",
    "providers",
    "project",
    "rootProject",
    "gradle",
}


def _gradle_keys(text: str, filename: str) -> list[str]:
    """Keys a Gradle script reads from the Properties object it loads from `filename`."""
    lines = text.splitlines()
    related = {i for i, line in enumerate(lines) if filename in line}
    file_vars = {
        m.group(1) for i in related if (m := re.search(r"(?:def|val|var|File)\s+(\w+)\s*=", lines[i]))
    }
    related |= {i for i, line in enumerate(lines) for v in file_vars if re.search(rf"\b{v}\b", line)}
    props: set[str] = set()
    for i in related:
        for line in lines[max(0, i - 3) : i + 4]:  # the load is often a line away from the file
            # `x.load(` of a variable, not of a member (`System.properties.load(...)`).
            props |= set(re.findall(r"(?<![\w.$])(\w+)\.load\s*\(", line))
            if m := re.search(
                r"(?:def|val|var)\s+(\w+)\s*=\s*(?:new\s+)?(?:java\.util\.)?Properties\s*\(", line
            ):
                props.add(m.group(1))
    # Only reads of the loaded variable itself: `System.properties['user.name']` or
    # `project.properties.x` end in the same name but read system or project properties, and a
    # `System.getProperty`/`getenv`/`providers...` value never comes from this file.
    props -= _NOT_FILE_PROPERTIES
    keys: list[str] = []
    own = r"(?<![\w.$])"
    for var in sorted(props):
        keys += re.findall(rf"{own}{var}\s*\[\s*['\"]([^'\"]+)['\"]\s*\]", text)
        keys += re.findall(
            rf"{own}{var}\s*\.\s*(?:getProperty|get|getOrDefault)\s*\(\s*['\"]([^'\"]+)['\"]", text
        )
        keys += [k for k in re.findall(rf"{own}{var}\.(\w+)\b(?!\s*[({{])", text) if k not in _PROPS_METHODS]
    return list(dict.fromkeys(keys))


def _maven_keys(project: Path, poms: list[Path]) -> list[str]:
    """`${key}` references of the poms and their filtered resources that no <properties> defines."""
    defined: set[str] = set()
    texts = [deps.read(p) for p in poms]
    for text in texts:
        for block in re.findall(r"<properties>(.*?)</properties>", text, re.DOTALL):
            defined |= set(re.findall(r"<([\w.-]+)>", block))
    refs = [r for text in texts for r in re.findall(r"\$\{([\w.-]+)\}", text)]
    for pom, text in zip(poms, texts, strict=True):
        if "<filtering>true</filtering>" not in text:
            continue
        directories = re.findall(r"<directory>\s*([^<$]+?)\s*</directory>", text) or ["src/main/resources"]
        for directory in directories:
            # Walked and read through core.confined: `<directory>` may name ../.. or /root.
            start = pom.parent / directory
            for rel in islice(confined.walk(project, start), 200):
                resource = confined.try_read_text(project, rel, 256_000)
                refs += re.findall(r"\$\{([\w.-]+)\}", resource) if resource is not None else []
    builtin = {
        "basedir",
        "revision",
        "sha1",
        "changelist",
        "line.separator",
        "file.separator",
        "path.separator",
    }
    keys = [r for r in refs if r not in defined and r not in builtin and not r.startswith(_MAVEN_BUILTIN)]
    return list(dict.fromkeys(keys))


def _requested_properties(ev: Evidence) -> list[str]:
    found: dict[str, None] = {}
    for pattern in _PROPS_MISSING:
        for match in pattern.finditer(ev.text):
            found.setdefault(match.group(1), None)
    return list(found)


def _from_history(ev: Evidence, rel: str) -> str | None:
    """The file's last committed content, when git history has it (deleted in a commit or only here).

    The workspace of `buildfixer fix` is a one-commit snapshot: the project it was taken from
    (`Evidence.origin`) has the history.
    """
    for where in ev.histories():
        try:
            deleted = where.git("log", "-n", "1", "--format=%H", "--diff-filter=D", "--", rel, timeout=20)
            spec = f"{deleted.strip()}^:./{rel}" if deleted.strip() else f"HEAD:./{rel}"
            return where.git("show", spec, timeout=20)
        except BuildfixerError:  # not a repository, or the file was never committed
            continue
    return None


def _inside(ev: Evidence, path: str) -> str | None:
    """A path the log names as a project-relative path, when it lies inside the project."""
    candidate = Path(path) if Path(path).is_absolute() else ev.project / path
    try:
        return candidate.resolve().relative_to(ev.project).as_posix()
    except (ValueError, OSError):
        return None


def missing_properties(ev: Evidence) -> Repair | None:
    """Recipe 3: the build reads a `.properties` file that is absent -> create it."""
    if (match := _SDK_MISSING.search(ev.text)) and (rel := _inside(ev, match.group(1))):
        sdk = android_sdk()
        if sdk is None or (ev.project / rel).exists():
            return None
        content = f"# Created by buildfixer: the Android SDK installed on this machine.\nsdk.dir={sdk}\n"
        summary = f"The Android build needs {rel} with sdk.dir: create it pointing at {sdk}."
        return Repair(
            "missing-properties", summary, [PlannedCall("write_file", {"path": rel, "content": content})]
        )
    scripts = deps.find_build_files(ev.project, ("*.gradle", "*.gradle.kts"))
    poms = deps.find_build_files(ev.project, ["pom.xml"])
    for named in _requested_properties(ev):
        rel = _inside(ev, named)
        if rel is None or (ev.project / rel).exists():
            continue
        if any(part in _TEST_DIRS for part in rel.split("/")[:-1]):
            continue  # test data: the tests' business, never invented by a recipe
        name = Path(rel).name
        readers = [p for p in scripts + poms if name in deps.read(p)]
        if not readers:
            continue  # read by the application or its tests, not by the build: not ours to invent
        target = ev.project / rel
        if (restored := _from_history(ev, rel)) is not None:
            summary = f"The build reads {rel}, which is missing: restore it from git history."
            return Repair(
                "missing-properties", summary, [PlannedCall("write_file", {"path": rel, "content": restored})]
            )
        stem = target.name.removesuffix(".properties")
        templates = [target.with_name(target.name + t) for t in _TEMPLATES]
        templates += [target.with_name(f"{stem}{sep}{t[1:]}.properties") for t in _TEMPLATES for sep in ".-_"]
        template = next((t for t in templates if confined.is_file(ev.project, t)), None)
        if template is not None:
            summary = f"The build reads {rel}, which is missing: create it from {template.name}."
            call = PlannedCall("write_file", {"path": rel, "content": deps.read(template)})
            return Repair("missing-properties", summary, [call])
        keys: list[str] = []
        for reader in readers:
            keys += (
                _gradle_keys(deps.read(reader), name)
                if reader.name != "pom.xml"
                else _maven_keys(ev.project, poms)
            )
        keys = list(dict.fromkeys(keys))
        lines = [
            "# Created by buildfixer: the build reads this file, which was missing.",
            "# The values are placeholders; replace them with the real ones.",
            *(f"{key}={placeholder(key)}" for key in keys),
        ]
        readers_text = ", ".join(deps.rel(ev.project, r) for r in readers)
        summary = (
            f"{readers_text} reads {rel}, which is missing: create it with placeholder values for "
            f"{', '.join(keys) if keys else 'no keys (none are read by name)'}."
        )
        content = "\n".join(lines) + "\n"
        return Repair(
            "missing-properties", summary, [PlannedCall("write_file", {"path": rel, "content": content})]
        )
    return None
