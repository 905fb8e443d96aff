"""What the project used before: a dependency's declaration in git history, its version in a lockfile.

A dependency removed from a build file comes back as the project knows it: the artifact a past
commit declared (a sibling artifact of the same group was not needed), at the version the
project's other build files use, else its lockfile's, else the newest version its history had
(`undeclared_jvm` decides). Python, npm and Gradle projects pin what they used in lockfiles.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from buildfixer.agents.recipes.base import HistoryFolder, raw_version
from buildfixer.buildsys.index_pages import normalize_dist
from buildfixer.core.errors import BuildfixerError
from buildfixer.deps import manage as deps
from buildfixer.deps.versions import version_key

_JVM_HISTORY = ("pom.xml", "build.gradle", "build.gradle.kts", "gradle.properties", "libs.versions.toml")
_PYTHON_HISTORY = ("pyproject.toml", "setup.cfg", "setup.py", "requirements.txt", ".in")
_MAX_COMMITS = 40  # commits touching build files, newest first: enough to reach a recent removal


def _git(where: HistoryFolder, *args: str) -> str | None:
    try:
        return where.git(*args, timeout=30)
    except BuildfixerError:
        return None


def _past_build_files(histories: list[HistoryFolder], suffixes: tuple[str, ...]) -> Iterator[Path]:
    """Each recent commit's build files laid out in a scratch directory, newest first.

    Inside the loop `deps.read` is confined to that directory: the scratch copy, not the project,
    is what the parsers read.
    """
    for where in histories:
        log = _git(where, "log", f"-n{_MAX_COMMITS}", "--format=%H", "--", *(f"*{f}" for f in suffixes))
        for commit in (log or "").split():
            listing = _git(where, "ls-tree", "-r", "--name-only", commit) or ""
            files = [f for f in listing.splitlines() if f.rsplit("/", 1)[-1].endswith(suffixes)]
            if not files:
                continue
            with tempfile.TemporaryDirectory(prefix="buildfixer-history-") as scratch:
                base = Path(scratch)
                for file in files:
                    text = _git(where, "show", f"{commit}:{file}")
                    if text is not None:
                        (base / file).parent.mkdir(parents=True, exist_ok=True)
                        (base / file).write_text(text, encoding="utf-8")
                with deps.confined_to(base):
                    yield base


def past_python_declaration(
    histories: list[HistoryFolder], names: list[str]
) -> tuple[str, str | None] | None:
    """(name as written, its version specifier) of the most recent commit declaring one of `names`.

    A test group's `freezegun` dropped from pyproject.toml: its module's name is the
    distribution's, which no cache may have (never installed here), but the history declares it.
    The specifier (`>=1.0`) is as written, markers and extras aside; None when there was none.
    """
    for base in _past_build_files(histories, _PYTHON_HISTORY):
        for name in names:
            for decl in deps.find_declaration(base, name):
                written = re.match(r"\s*([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?\s*([^;]*)", decl.text)
                if decl.kind in ("python", "poetry") and written:
                    spec = written.group(2).strip().strip("\"'")
                    return written.group(1), spec if spec[:1] in ("=", "<", ">", "~", "!") else None
    return None


def past_jvm_declaration(
    histories: list[HistoryFolder], names: list[str], besides: str | None = None
) -> tuple[str, str] | None:
    """(group:artifact, version) of the most recent commit that declared one of `names`, with a version.

    Each commit's build files are laid out in a scratch directory and read by the same parser as
    the project's (a version through a property or catalog resolves as it did then). The version
    is the highest that commit gave it anywhere, a managed one included: a declaration without a
    version used the managed one, so an older commit's explicit version is never reached past it.
    When it came through a property defined outside the project's files (a parent POM's), the
    version is the reference as that commit wrote it: `${version.junit}`.

    Args:
        histories: Where git history is searched (`Evidence.histories`: the workspace through its
            recorded git directory, the user's project).
        names: group:artifact candidates (the artifacts providing the missing package or module).
        besides: A version to pass over (the broken one a newer commit asks for): older commits
            are read for what the project wrote before it.
    """
    if not names:
        return None
    for base in _past_build_files(histories, _JVM_HISTORY):
        for name in names:
            decls = deps.find_declaration(base, name)
            if not any(not d.managed for d in decls):
                continue
            if besides is not None and any(d.version == besides for d in decls):
                continue
            versions = [d.version for d in decls if d.version and "$" not in d.version]
            if versions:
                return name, max(versions, key=version_key)
            # Written through a property from outside the project's files (a parent POM): that
            # reference, never an older commit's literal.
            written = [raw for d in decls if (raw := raw_version(d)) and raw.startswith("${")]
            if written:
                return name, written[0]
    return None


def locked_gradle_version(project: Path, name: str) -> str | None:
    """The highest version of group:artifact that a Gradle lockfile of the project holds.

    `gradle.lockfile` (Gradle 6.8+) has lines `group:artifact:version=configuration,...`, the
    older `gradle/dependency-locks/<configuration>.lockfile` lines `group:artifact:version`.
    """
    prefix = f"{name}:"
    versions: list[str] = []
    for lock in deps.find_build_files(project, ["gradle.lockfile", "*.lockfile"]):
        if lock.name != "gradle.lockfile" and lock.parent.name != "dependency-locks":
            continue
        for line in deps.read(lock).splitlines():
            if line.startswith(prefix):
                version = line[len(prefix) :].split("=", 1)[0].strip()
                if version and ":" not in version:
                    versions.append(version)
    return max(versions, key=version_key) if versions else None


def locked_python_version(project: Path, distribution: str) -> str | None:
    """The version a lockfile (poetry.lock, uv.lock, pdm.lock) or a pinned requirements file holds."""
    wanted = normalize_dist(distribution)
    for lock in ("poetry.lock", "uv.lock", "pdm.lock"):
        text = deps.read(project / lock)
        for block in re.split(r"^\[\[package\]\]\s*$", text, flags=re.MULTILINE)[1:]:
            name = re.search(r'^name\s*=\s*"([^"]+)"', block, re.MULTILINE)
            version = re.search(r'^version\s*=\s*"([^"]+)"', block, re.MULTILINE)
            if name and version and normalize_dist(name.group(1)) == wanted:
                return version.group(1)
    for path in deps.find_build_files(project, ["*.txt"]):
        if "requirements" not in path.name and "constraints" not in path.name and "lock" not in path.name:
            continue
        for line in deps.read(path).splitlines():
            pin = re.match(r"^\s*([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?\s*===?\s*([\w.!+-]+)", line)
            if pin and normalize_dist(pin.group(1)) == wanted:
                return pin.group(2)
    return None


def locked_npm_version(project: Path, name: str) -> str | None:
    """The version package-lock.json (or npm-shrinkwrap.json) installed for a package, at the top level."""
    for lock in ("npm-shrinkwrap.json", "package-lock.json"):
        try:
            data = json.loads(deps.read(project / lock))  # "" (absent, or a link out): no lockfile
        except ValueError:
            continue
        packages = data.get("packages") if isinstance(data, dict) else None
        entry = packages.get(f"node_modules/{name}") if isinstance(packages, dict) else None
        if entry is None and isinstance(data, dict) and isinstance(data.get("dependencies"), dict):
            entry = data["dependencies"].get(name)  # lockfileVersion 1
        if isinstance(entry, dict) and isinstance(entry.get("version"), str) and not entry.get("link"):
            return str(entry["version"])
    return None
