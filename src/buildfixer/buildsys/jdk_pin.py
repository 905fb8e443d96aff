"""The project's pinned JDK: read from the files developers' tools read, written where they will find it.

Version files choose the JDK a build *runs on*; jenv, asdf, mise and SDKMAN set JAVA_HOME from them,
and buildfixer's builds do too (`choose_jdk`):

- `.java-version` (jenv, mise, asdf's legacy file): one line, `21`, `1.8`, `temurin-21.0.2`;
- `.tool-versions` (asdf, mise): the line `java <version> [fallbacks...]`;
- `.sdkmanrc` (SDKMAN, mise): the line `java=21.0.2-tem`.

A toolchain chooses the JDK that *compiles*, which Gradle (`JavaLanguageVersion.of(21)`,
`jvmToolchain(21)` in the root build script) or Maven (maven-toolchains-plugin's `<jdk><version>`,
the compiler's `<jdkToolchain>`) find themselves, whatever JDK runs the build. It is read
(`toolchain_pins`) so that a build can say which JDK is missing; it never chooses the JDK a build
runs on (Gradle 7 with a toolchain of 21 runs on 17, not on 21), and it is never rewritten: that
would change the bytecode level, which no JDK switch asks for.

`pin_jdk` writes a JDK chosen by a repair: the major version (never a path, never a patch release
of this machine) into each version file the project has that names a Java version, keeping its
distribution (`java temurin-17.0.9+9` -> `java temurin-21`); a project without one gets
`.java-version`, the file most tools read.

The project is hostile: every file is read and written through `core.confined` (no link followed
out of it, no hard-linked file, nothing larger than `MAX_PIN_BYTES` read).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from buildfixer.buildsys.jdk import Jdk, default_jdk, discover_jdks, find_jdk, major_version
from buildfixer.core import confined
from buildfixer.core.errors import ToolError

JAVA_VERSION = ".java-version"
TOOL_VERSIONS = ".tool-versions"
SDKMANRC = ".sdkmanrc"
VERSION_FILES = (JAVA_VERSION, TOOL_VERSIONS, SDKMANRC)  # the order a disagreement is settled in
READERS = {JAVA_VERSION: "jenv, asdf, mise", TOOL_VERSIONS: "asdf, mise", SDKMANRC: "SDKMAN, mise"}
MAX_PIN_BYTES = 64 << 10  # a version file is a line or two
MAX_BUILD_SCRIPT_BYTES = 1 << 20
GRADLE_SCRIPTS = ("build.gradle", "build.gradle.kts")
LOWEST, HIGHEST = 1, 99  # a major version outside these is no Java version

# A version spec: [latest:][distribution-]version[-distribution]. "temurin-21.0.2+13.0.LTS",
# "21.0.2-tem", "openjdk64-17.0.2", "adoptopenjdk-11.0.11+9-openj9", "1.8.0_392", "latest:temurin-21".
_SPEC = re.compile(
    r"(?P<lead>(?:latest:)?(?:[A-Za-z][\w.]*-)*)"
    r"(?P<version>\d+(?:\.\d+)*(?:[+_][\w.+]*)?)"
    r"(?P<tail>(?:-[A-Za-z][\w.]*)*)"
)
MAX_SPEC_CHARS = 200  # "temurin-21.0.2+13.0.LTS" is 23: a longer one is no version
_JAVA_N = re.compile(r"(?:^|[-_])java(\d{1,2})(?=[-_.]|$)", re.IGNORECASE)  # graalvm-ce-java17-22.3.0
_TOOL_LINE = re.compile(r"^(?P<head>[ \t]*java[ \t]+)(?P<spec>[^\s#]+)", re.MULTILINE)
_SDKMAN_LINE = re.compile(r"^(?P<head>[ \t]*java[ \t]*=[ \t]*)(?P<spec>[^\s#]+)", re.MULTILINE)
_GRADLE_TOOLCHAIN = re.compile(r"\b(?:JavaLanguageVersion\.of|jvmToolchain)\(\s*(\d{1,2})\s*\)")
_MAVEN_VERSION = re.compile(r"<version>\s*[\[(]?\s*(\d+(?:\.\d+)*)")


@dataclass(frozen=True)
class Pin:
    """A Java version the project names: in `file`, as `spec` there; `toolchain` for a build's toolchain."""

    version: int
    file: str
    spec: str
    toolchain: bool = False

    def describe(self) -> str:
        """`JDK 21 (.java-version)`, `JDK 21 (the Gradle toolchain in build.gradle)`."""
        where = self.file
        if self.toolchain:
            where = f"the {'Maven' if self.file == 'pom.xml' else 'Gradle'} toolchain in {self.file}"
        return f"JDK {self.version} ({where})"


def spec_major(spec: str) -> int | None:
    """The major Java version a version file names: "temurin-21.0.2" -> 21, "1.8" -> 8, "system" -> None."""
    spec = spec.strip()
    if len(spec) > MAX_SPEC_CHARS:
        return None
    found = _JAVA_N.search(spec)
    if found is not None:
        version: int | None = int(found.group(1))
    else:
        match = _SPEC.fullmatch(spec)
        version = major_version(match.group("version")) if match else None
    return version if version is not None and LOWEST <= version <= HIGHEST else None


def respec(spec: str, version: int) -> str:
    """`spec` naming `version` instead, its distribution kept: ("21.0.2-tem", 25) -> "25-tem"."""
    match = _SPEC.fullmatch(spec.strip())
    if match is None or _JAVA_N.search(spec):
        return str(version)
    return f"{match.group('lead')}{version}{match.group('tail')}"


def _read(project: Path, name: str, limit: int = MAX_PIN_BYTES) -> str | None:
    """The file's text; None when absent, too large, not a regular single-linked file inside the project."""
    return confined.try_read_text(project, name, limit)


def _java_version_spec(text: str) -> str | None:
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            return line
    return None


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.search(text)
    return found.group("spec") if found else None


def version_file_pins(project: Path) -> list[Pin]:
    """The Java versions the project's version files name, in `VERSION_FILES` order."""
    pins = []
    for name in VERSION_FILES:
        text = _read(project, name)
        if text is None:
            continue
        if name == JAVA_VERSION:
            spec = _java_version_spec(text)
        else:
            spec = _first(_TOOL_LINE if name == TOOL_VERSIONS else _SDKMAN_LINE, text)
        version = spec_major(spec) if spec else None
        if spec and version is not None:
            pins.append(Pin(version, name, spec))
    return pins


def toolchain_pins(project: Path) -> list[Pin]:
    """The JDK versions the project's toolchains ask for: the root Gradle script's, the pom's."""
    pins = []
    for name in GRADLE_SCRIPTS:
        text = _read(project, name, MAX_BUILD_SCRIPT_BYTES)
        if text is not None and (found := _GRADLE_TOOLCHAIN.search(text)):
            pins.append(Pin(int(found.group(1)), name, found.group(0), toolchain=True))
    pom = _read(project, "pom.xml", MAX_BUILD_SCRIPT_BYTES)
    if pom is not None:
        version = _maven_toolchain(pom)
        if version is not None:
            pins.append(Pin(version, "pom.xml", f"<version>{version}</version>", toolchain=True))
    return [pin for pin in pins if LOWEST <= pin.version <= HIGHEST]


def _maven_toolchain(pom: str) -> int | None:
    """The JDK version of maven-toolchains-plugin's `<toolchains><jdk>` or the compiler's `<jdkToolchain>`.

    Found with `str.find` and a bounded window, never a regex over the whole file: a pom repeating
    `<toolchains>` without `<jdk>` costs one pass.
    """
    starts = []
    if "maven-toolchains-plugin" in pom and (at := pom.find("<toolchains>")) >= 0:
        starts.append(pom.find("<jdk>", at))
    starts.append(pom.find("<jdkToolchain>"))
    for start in sorted(s for s in starts if s >= 0):
        found = _MAVEN_VERSION.search(pom, start, start + 1000)
        if found is not None:
            return major_version(found.group(1))
    return None


def read_pins(project: Path) -> list[Pin]:
    """Every JDK the project pins: its version files' first, then its toolchains'."""
    return [*version_file_pins(project), *toolchain_pins(project)]


def launcher_pin(project: Path) -> Pin | None:
    """The version file that chooses the JDK the project's builds run on (the first, when several)."""
    pins = version_file_pins(project)
    return pins[0] if pins else None


@dataclass(frozen=True)
class JdkChoice:
    """The JDK a build runs on, the version file that chose it (or asked for a missing JDK), a note."""

    jdk: Jdk | None
    pin: Pin | None = None
    note: str = ""
    pinned: bool = False  # the JDK is the one `pin` names


def choose_jdk(project: Path, version: int | None) -> JdkChoice:
    """The JDK a build of the project runs on.

    `version` when given (the `--jdk` option, a repair's choice); else the JDK the project's version
    files pin, when it is installed; else the machine's default, with a note naming the pinned JDK
    that is missing here. A toolchain asking for a JDK that is not installed adds a note too.

    Raises:
        BuildfixerError: `version` is not installed.
    """
    notes = []
    installed = discover_jdks()
    have = ", ".join(str(v) for v in sorted({j.version for j in installed})) or "none"
    for asked in toolchain_pins(project):
        if all(j.version != asked.version for j in installed):
            notes.append(f"the project asks for {asked.describe()}, not installed here (found: {have})")
    if version is not None:
        return JdkChoice(find_jdk(version), None, "; ".join(notes))
    pin = launcher_pin(project)
    if pin is None:
        return JdkChoice(default_jdk(), None, "; ".join(notes))
    jdk = next((j for j in installed if j.version == pin.version), None)
    if jdk is not None:
        return JdkChoice(jdk, pin, "; ".join(notes), pinned=True)
    fallback = default_jdk()
    on = f"JDK {fallback.version}, the default" if fallback else "the default JDK"
    missing_pin = (
        f"the project pins {pin.describe()}, which is not installed here (found: {have}); built on {on}"
    )
    return JdkChoice(fallback, pin, "; ".join([missing_pin, *notes]))


def pin_jdk(project: Path, version: int, created: set[str] | None = None) -> list[str]:
    """Make the project's builds choose JDK `version` when none is named; returns the files written.

    Each version file that names a Java version gets `version`. Without one, `.java-version` is
    created, unless `version` is the machine's default already. `created` collects the files
    this made (pass the same set for one attempt): when a later choice is the default again and
    no other file pins a JDK, a `.java-version` made here is removed, not left behind saying 17.

    Raises:
        ToolError: a version file cannot be written (a link out of the project, hard-linked, too large).
    """
    if not LOWEST <= version <= HIGHEST:
        raise ToolError(f"no Java version {version}")
    created = created if created is not None else set()
    pins = version_file_pins(project)
    default = default_jdk()
    if not pins:
        if default is not None and default.version == version:
            return []
        _write(project, JAVA_VERSION, None, version)
        created.add(JAVA_VERSION)
        return [JAVA_VERSION]
    back_to_default = default is not None and default.version == version
    if back_to_default and [p.file for p in pins] == [JAVA_VERSION] and JAVA_VERSION in created:
        confined.unlink(project, JAVA_VERSION)
        created.discard(JAVA_VERSION)
        return [JAVA_VERSION]
    written = []
    for pin in pins:
        if pin.version != version:
            _write(project, pin.file, pin.spec, version)
            written.append(pin.file)
    return written


def _replaced(name: str, text: str, version: int) -> str:
    """The version file's text naming `version` (only its Java entry changed)."""
    if name == JAVA_VERSION:
        return f"{version}\n"
    pattern = _TOOL_LINE if name == TOOL_VERSIONS else _SDKMAN_LINE
    return pattern.sub(lambda m: m.group("head") + respec(m.group("spec"), version), text, count=1)


def _write(project: Path, name: str, spec: str | None, version: int) -> None:
    """Write the pin into `name` (created when `spec` is None), reading at most `MAX_PIN_BYTES` of it.

    A link is never written through (not even one to another file of the project: `.java-version`
    pointing at `pom.xml` would overwrite the build), nor is a directory or a hard-linked file.
    """
    spot = confined.locate(project, name, missing_ok=True, follow=False)
    try:
        target = confined.Target(spot)
        if not spot.missing and spot.name is not None:
            try:
                found = os.stat(spot.name, dir_fd=spot.parent, follow_symlinks=False)
            except FileNotFoundError:
                found = None
            if found is not None and stat.S_ISLNK(found.st_mode):
                raise ToolError(f"{target.rel} is a link: a JDK pin is only written into a file of its own")
        text, mode = "", None
        current = target.existing()
        if current is not None:
            with current:
                if not current.is_file():
                    raise ToolError(f"{target.rel} is not a regular file")
                current.single_link()
                if current.st.st_size > MAX_PIN_BYTES:
                    raise ToolError(f"{target.rel} is too large for a version file ({current.st.st_size} B)")
                text = current.read_bytes(MAX_PIN_BYTES).decode("utf-8", "surrogateescape")
                mode = stat.S_IMODE(current.st.st_mode)
        after = _replaced(name, text, version) if spec is not None else f"{version}\n"
        target.write(after.encode("utf-8", "surrogateescape"), mode)
    finally:
        spot.close()
