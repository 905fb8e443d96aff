"""Discover installed JDKs and pick one by major version.

A JDK is a directory with `bin/javac` (a JRE cannot compile). Its major version
comes from the `release` file every JDK since 9 ships (`JAVA_VERSION="17.0.15"`),
falling back to the directory name (`java-17-openjdk-amd64`, `temurin-25-jdk`).
Places searched, in order: `BUILDFIXER_JDK_PATHS` (os.pathsep-separated JDK homes
or directories holding JDKs), `JAVA_HOME`, `/usr/lib/jvm`, `/usr/java`, `/opt/java`,
`/Library/Java/JavaVirtualMachines/*/Contents/Home`, SDKMAN (`~/.sdkman/candidates/java`),
`~/.jdks` (IntelliJ) and asdf/mise installs.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from buildfixer.core.errors import BuildfixerError

_RELEASE_VERSION = re.compile(r'^JAVA_VERSION="([^"]+)"', re.MULTILINE)
_NAME_VERSION = re.compile(r"(?:^|[-_.a-z])(1\.[5-8]|[1-9]\d?)(?:[._-]|$)")


@dataclass(frozen=True, order=True)
class Jdk:
    """An installed JDK: its major version and home directory."""

    version: int
    path: str

    def to_dict(self) -> dict[str, object]:
        """The `buildfixer jdks --json` form."""
        return {"version": self.version, "path": self.path}


def major_version(version: str) -> int | None:
    """Major version of a Java version string: "1.8.0_392" -> 8, "17.0.15" -> 17."""
    match = re.match(r"(\d+)(?:\.(\d+))?", version.strip())
    if not match:
        return None
    first = int(match.group(1))
    if first == 1 and match.group(2):
        return int(match.group(2))
    return first


def _version_of(home: Path) -> int | None:
    release = home / "release"
    try:
        found = _RELEASE_VERSION.search(release.read_text(errors="replace"))
    except OSError:
        found = None
    if found:
        return major_version(found.group(1))
    name_match = _NAME_VERSION.search(home.name.lower())
    return major_version(name_match.group(1)) if name_match else None


def _candidate_homes() -> list[Path]:
    """JDK homes and directories that contain JDK homes, most explicit first."""
    places: list[Path] = []
    for entry in os.environ.get("BUILDFIXER_JDK_PATHS", "").split(os.pathsep):
        if entry.strip():
            places.append(Path(entry.strip()).expanduser())
    if os.environ.get("JAVA_HOME"):
        places.append(Path(os.environ["JAVA_HOME"]))
    home = Path.home()
    places += [
        Path("/usr/lib/jvm"),
        Path("/usr/java"),
        Path("/opt/java"),
        home / ".sdkman/candidates/java",
        home / ".jdks",
        home / ".asdf/installs/java",
        home / ".local/share/mise/installs/java",
    ]
    places += sorted(Path("/Library/Java/JavaVirtualMachines").glob("*/Contents/Home"))
    return places


def _is_jdk(path: Path) -> bool:
    return (path / "bin" / "javac").is_file()


def discover_jdks() -> list[Jdk]:
    """Every distinct installed JDK (by real path), sorted by version."""
    seen: dict[str, Jdk] = {}
    for place in _candidate_homes():
        if not os.path.isdir(place):  # absent or not ours to read (another user's home)
            continue
        homes = [place] if _is_jdk(place) else [p for p in sorted(place.iterdir()) if _is_jdk(p)]
        for home in homes:
            real = str(home.resolve())
            if real in seen:
                continue
            version = _version_of(home.resolve())
            if version is not None:
                seen[real] = Jdk(version, real)
    return sorted(seen.values())


def find_jdk(version: int) -> Jdk:
    """The installed JDK of this major version; BuildfixerError names the ones there are."""
    jdks = discover_jdks()
    for jdk in jdks:
        if jdk.version == version:
            return jdk
    have = ", ".join(str(j.version) for j in jdks) or "none"
    raise BuildfixerError(f"no JDK {version} installed (found: {have}); add its home to BUILDFIXER_JDK_PATHS")


def default_jdk() -> Jdk | None:
    """The JDK a build uses when none is chosen: JAVA_HOME, else the one `javac` on PATH belongs to."""
    candidates: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        javac = Path(directory) / "javac"
        if javac.exists():
            candidates.append(javac.resolve().parent.parent)
            break
    for home in candidates:
        if _is_jdk(home):
            version = _version_of(home.resolve())
            if version is not None:
                return Jdk(version, str(home.resolve()))
    return None
