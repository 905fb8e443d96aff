"""The "missing properties file" recipe: the build reads a `.properties` file that is absent.

See `buildfixer.agents.recipes.diagnose` for the policy. The file comes back from git history, from a
template next to it, or is created with the keys the build needs from it, each at the value the
project itself has for it (the same file of another module, a gradle.properties, a pom's
<properties>). Keys read from system properties, the environment or the project's own
properties never go into the file, and neither does a key the build reads with a default
(`findProperty('x') ?: '1.0'`, `getProperty('x', 'd')`, `.orElse(...)`) or that Maven, a parent
POM or a profile defines. No value is ever made up: when no key is needed from the file, or the
project has no value for one, the recipe declines (a made-up version would silently become the
artifact's).
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
from buildfixer.deps.caches import maven_repositories
from buildfixer.deps.maven_parents import inherited_properties, pom_properties

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


# What may close a read before its Elvis default: brackets, a cast (`as String?`), `.orNull`, a toString().
_CLOSE = r"(?:\s|\)|\]|\bas\s+[\w.]+\??|\.orNull\b|\??\.toString\(\))*"
# `?: throw ...` and Kotlin's `?: error(...)` fail without the key: no default.
_ELVIS = r"\?:(?!\s*(?:throw\b|error\s*\())"
_PROVIDER_STEP = r"\s*\.\s*(?:map|flatMap|forUseAtConfigurationTime)\s*(?:\{[^{}]*\}|\([^()]*\))"


def read_with_default(texts: list[str], key: str) -> bool:
    """Whether a build script reads `key` with a fallback, so the build runs without its value.

    `findProperty('k') ?: '1.0'`, `props['k'] ?: 'x'`, `props.getProperty('k', 'd')`,
    `System.getProperty("k", "d")`, `project.hasProperty('k') ? k : ...`, `containsKey("k")`,
    `providers.gradleProperty("k").orElse(...)`.
    """
    quoted = rf"['\"]{re.escape(key)}['\"]"
    patterns = [
        rf"\b(?:getProperty|getOrDefault)\s*\(\s*{quoted}\s*,",  # the second argument is the default
        rf"{quoted}{_CLOSE}{_ELVIS}",
        rf"\b(?:hasProperty|containsKey)\s*\(\s*{quoted}\s*\)",  # read only where it is there
        rf"\(\s*{quoted}\s*\)(?:{_PROVIDER_STEP})*\s*\.\s*(?:orElse|getOrElse)\s*\(",
    ]
    if re.fullmatch(r"[A-Za-z_]\w*", key):  # `props.k ?: 'x'`
        patterns.append(rf"(?<![\w$])\w+\.{key}\b{_CLOSE}{_ELVIS}")
    return any(re.search(pattern, text) for text in texts for pattern in patterns)


def parse_properties(text: str) -> dict[str, str]:
    """The `key=value` (or `key: value`, `key value`) entries of a .properties text, values as written.

    A value continued on the next lines (a trailing backslash) is left out: not one line to copy.
    """
    found: dict[str, str] = {}
    continued = False
    for line in text.splitlines():
        entry = line.strip()
        if continued:  # the rest of the entry before
            continued = _continues(entry)
            continue
        if not entry or entry[0] in "#!":
            continue  # a comment goes on on no other line
        continued = _continues(entry)
        match = re.match(r"((?:[^=:\s\\]|\\.)+)\s*(?:[=:]\s*|\s+|$)(.*)$", entry)
        if match and not continued:
            found.setdefault(match.group(1), match.group(2))
    return found


def _continues(line: str) -> bool:
    """Whether a .properties line goes on on the next one: it ends in an odd number of backslashes."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _project_value(ev: Evidence, rel: str, poms: list[Path], key: str) -> tuple[str, str] | None:
    """(value, where) the project itself has for `key`; None when it has none, or two different ones.

    Where: the same file of another module, a gradle.properties, a pom's <properties> (not a
    profile's: active only sometimes). Two values are not ours to choose between.
    """
    found: list[tuple[str, str]] = []
    for path in deps.find_build_files(ev.project, [Path(rel).name, "gradle.properties"]):
        where = deps.rel(ev.project, path)
        if where == rel or any(part in _TEST_DIRS for part in where.split("/")[:-1]):
            continue  # the tests' fixtures hold test values, not the project's
        value = parse_properties(deps.read(path)).get(key)
        if value is not None:
            found.append((value, where))
    for pom in poms:
        value = pom_properties(deps.read(pom), profiles=False).get(key)
        if value is not None:
            found.append((value.replace("\\", "\\\\"), deps.rel(ev.project, pom)))
    found = [(value, where) for value, where in found if "${" not in value]
    if len({value for value, _ in found}) != 1:
        return None
    return found[0][0], ", ".join(where for _, where in found)


# Maven's built-in properties beside the prefixed ones: set by Maven, never by a file of the project.
_MAVEN_BUILTIN_NAMES = {
    "basedir", "revision", "sha1", "changelist", "line.separator", "file.separator", "path.separator",
}  # fmt: skip


def is_maven_builtin(key: str) -> bool:
    """Whether Maven or the JVM defines `${key}` itself (`${project.version}`, `${user.name}`)."""
    return key in _MAVEN_BUILTIN_NAMES or key.startswith(_MAVEN_BUILTIN)


def _maven_keys(ev: Evidence, poms: list[Path]) -> tuple[list[str], list[str]]:
    """(needed, covered): `${key}` references of the poms and their filtered resources.

    Covered keys are defined without the file (by the pom, a parent, a profile, or Maven
    itself): the file is not where their value comes from. The others are needed from it.
    """
    needed: list[str] = []
    covered: list[str] = []
    for pom in poms:
        text = deps.read(pom)
        refs = re.findall(r"\$\{([\w.-]+)\}", text)
        if "<filtering>true</filtering>" in text:
            directories = re.findall(r"<directory>\s*([^<$]+?)\s*</directory>", text)
            directories = directories or ["src/main/resources"]
            for directory in directories:
                # Walked and read through core.confined: `<directory>` may name ../.. or /root.
                start = pom.parent / directory
                for rel in islice(confined.walk(ev.project, start), 200):
                    resource = confined.try_read_text(ev.project, rel, 256_000)
                    refs += re.findall(r"\$\{([\w.-]+)\}", resource) if resource is not None else []
        refs = [r for r in refs if not is_maven_builtin(r)]
        defined = set(inherited_properties(pom, maven_repositories(ev.options))) if refs else set()
        needed += [r for r in refs if r not in defined]
        covered += [r for r in refs if r in defined]
    needed = list(dict.fromkeys(needed))
    return needed, [k for k in dict.fromkeys(covered) if k not in needed]


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
        needed, covered = _maven_keys(ev, poms) if any(r.name == "pom.xml" for r in readers) else ([], [])
        scripts_text = [deps.read(s) for s in scripts]
        for reader in (r for r in readers if r.name != "pom.xml"):
            for key in _gradle_keys(deps.read(reader), name):
                (covered if read_with_default(scripts_text, key) else needed).append(key)
        needed = list(dict.fromkeys(k for k in needed if k not in covered))
        if not needed:
            continue  # every key it holds has a default or another source: the file is not the cause
        found = {key: _project_value(ev, rel, poms, key) for key in needed}
        values = {key: value for key, value in found.items() if value is not None}
        if len(values) < len(needed):
            continue  # a value the project does not have is never made up: declined
        lines = ["# Created by buildfixer: the build reads this file, which was missing."]
        for key, (value, where) in values.items():
            lines += [f"# {key}: as {where} has it", f"{key}={value}"]
        readers_text = ", ".join(deps.rel(ev.project, r) for r in readers)
        taken = "; ".join(f"{key} from {where}" for key, (_value, where) in values.items())
        summary = f"{readers_text} reads {rel}, which is missing: create it with the project's values"
        summary += f" ({taken})."
        content = "\n".join(lines) + "\n"
        return Repair(
            "missing-properties", summary, [PlannedCall("write_file", {"path": rel, "content": content})]
        )
    return None
