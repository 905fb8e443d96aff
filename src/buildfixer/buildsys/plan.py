"""What every build-system module produces: a plan of steps plus its environment."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from buildfixer.buildsys.jdk import Jdk
from buildfixer.buildsys.runner import BuildStep
from buildfixer.core import confined

# Lockfiles reach tens of megabytes (package-lock.json of a monorepo): digest them whole.
_DIGEST_LIMIT = 256 << 20


@dataclass
class Plan:
    """The commands of one build and what they need.

    Attributes:
        build_system: gradle, maven, python or npm.
        steps: Commands run in order; the first failure ends the build.
        env: Variables set on top of the inherited environment.
        tools: Tool name -> version, recorded in the BuildResult.
        notes: What the user should know about how this build differs from the project's own
            (e.g. system Gradle instead of the wrapper's version); recorded and printed.
    """

    build_system: str
    steps: list[BuildStep]
    env: dict[str, str] = field(default_factory=dict)
    tools: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def command(self) -> list[str]:
        """The main command (the last step), as BuildResult.command reports it."""
        return self.steps[-1].argv if self.steps else []


def java_env(jdk: Jdk | None) -> dict[str, str]:
    """JAVA_HOME and PATH so that both the build tool and forked compilers use this JDK."""
    if jdk is None:
        return {}
    return {"JAVA_HOME": jdk.path, "PATH": f"{jdk.path}/bin{os.pathsep}{os.environ.get('PATH', '')}"}


def jdk_changed(state: Path, jdk: Jdk | None, tool: str) -> bool:
    """Whether this build's JDK differs from the previous build's of the project; remembers this one.

    The stamp (`<tool>-last-jdk`) lives in buildfixer's part of the state, which no sandbox sees.
    """
    stamp = state / f"{tool}-last-jdk"
    current = jdk.path if jdk else "default"
    try:
        previous = stamp.read_text()
    except OSError:
        previous = None
    state.mkdir(parents=True, exist_ok=True)
    stamp.write_text(current)
    return previous is not None and previous != current


def files_digest(project: Path, names: list[str]) -> str:
    """Digest of the named files' contents (missing files count too): the warm-state key."""
    digest = hashlib.sha256()
    for name in sorted(names):
        text = confined.try_read_text(project, name, limit=_DIGEST_LIMIT)  # a FIFO or a link out: absent
        digest.update(name.encode() + b"\0")
        digest.update(text.encode() if text is not None else b"<absent>")
    return digest.hexdigest()


def stamp_matches(stamp: Path, value: str) -> bool:
    """True when a warm-state stamp file holds this value."""
    try:
        return stamp.read_text() == value
    except OSError:
        return False


@cache
def executable(name: str) -> str | None:
    """Absolute path of a program on PATH (cached: PATH does not change during a run)."""
    return shutil.which(name)


@cache
def version_from_jar_dir(program: str, jar_prefix: str) -> str:
    """Version of a Java tool read from its lib/ jar names (no JVM start: a `--version` costs ~1 s)."""
    path = executable(program)
    if not path:
        return "not installed"
    lib = Path(path).resolve().parent.parent / "lib"
    for jar in sorted(lib.glob(f"{jar_prefix}-*.jar")) if lib.is_dir() else []:
        version = jar.stem[len(jar_prefix) + 1 :]
        if re.fullmatch(r"[\d.]+[\w.-]*", version) and "x" not in version:
            return version
        return _pom_version(jar) or "unknown"  # Debian names it maven-core-3.x.jar
    return "unknown"


def _pom_version(jar: Path) -> str | None:
    try:
        with zipfile.ZipFile(jar) as archive:
            for name in archive.namelist():
                if name.endswith("pom.properties"):
                    text = archive.read(name).decode("utf-8", "replace")
                    found = re.search(r"^version=(.+)$", text, re.MULTILINE)
                    return found.group(1).strip() if found else None
    except (OSError, zipfile.BadZipFile):
        return None
    return None


def missing_submodules(project: Path) -> list[str]:
    """Paths that `.gitmodules` declares but that hold nothing: submodules never checked out.

    A build or its tests often read them (test suites, vendored sources), and the failure then
    looks like the project's own missing file.
    """
    text = confined.try_read_text(project, ".gitmodules") or ""
    paths = re.findall(r"^\s*path\s*=\s*(.+?)\s*$", text, re.MULTILINE)
    return [p for p in paths if not (project / p).is_dir() or not any((project / p).iterdir())]
