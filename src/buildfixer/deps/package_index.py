"""Which artifact provides a Java package, which distribution a Python module: read from local caches.

JVM: every jar of the Gradle and Maven caches (`caches.gradle_homes`, `maven_repositories`)
is listed once; its packages are kept in `cache_dir/index/jvm-packages.json`, keyed by jar path
and mtime, so later lookups only read new jars. Python: `*.dist-info` directories of the running
interpreter, of our build venvs (`cache_dir/state/*/sandbox/venv`) and wheels in the pip cache and
`PIP_FIND_LINKS` give module -> distribution (top_level.txt, else RECORD), kept likewise in
`cache_dir/index/python-modules.json`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import site
import sysconfig
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buildfixer.buildsys.index_pages import normalize_dist
from buildfixer.buildsys.options import BuildOptions
from buildfixer.deps.caches import gradle_homes, maven_repositories
from buildfixer.deps.jars import module_name
from buildfixer.deps.versions import is_prerelease, version_key

_INDEX_VERSION = 2  # 2: jar entries also hold their JPMS module name
_SKIP_JAR = ("-sources.jar", "-javadoc.jar", "-tests.jar", "-test-sources.jar")


@dataclass(frozen=True)
class Artifact:
    """A Maven coordinate that provides a package, and how many classes of it."""

    group: str
    artifact: str
    version: str
    classes: int = 0
    jar: str = ""  # the cached jar it was read from

    @property
    def coordinate(self) -> str:
        """`group:artifact:version`."""
        return f"{self.group}:{self.artifact}:{self.version}"


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
        if isinstance(data, dict) and data.get("version") == _INDEX_VERSION:
            return dict(data.get("entries", {}))
    except (OSError, ValueError):
        pass
    return {}


def _save(path: Path, entries: dict[str, Any]) -> None:
    """Write atomically: concurrent builds may read the index while one refreshes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"version": _INDEX_VERSION, "entries": entries}))
    os.replace(tmp, path)


def _refresh(index_file: Path, sources: dict[str, Path], read: Any) -> dict[str, Any]:
    """Entries for `sources` (key -> file): reused when the mtime matches, else `read(path)`."""
    old = _load(index_file)
    entries: dict[str, Any] = {}
    changed = set(old) != set(sources)
    for key, path in sources.items():
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        cached = old.get(key)
        if cached is not None and cached.get("mtime") == mtime:
            entries[key] = cached
            continue
        changed = True
        entry = read(path)
        # Unreadable files are remembered too, so they are not opened again at every lookup.
        entries[key] = {**(entry if entry is not None else {"skip": True}), "mtime": mtime}
    if changed:
        _save(index_file, entries)
    return {key: entry for key, entry in entries.items() if not entry.get("skip")}


# --- JVM -------------------------------------------------------------------------------------


def _jar_files(options: BuildOptions) -> dict[str, tuple[Path, tuple[str, str, str]]]:
    """Every binary jar in the caches, with the coordinate its path gives."""
    found: dict[str, tuple[Path, tuple[str, str, str]]] = {}
    for home in gradle_homes(options):
        root = home / "caches" / "modules-2" / "files-2.1"
        # files-2.1/<group>/<artifact>/<version>/<sha1>/<file>.jar
        for jar in root.glob("*/*/*/*/*.jar") if root.is_dir() else []:
            if not jar.name.endswith(_SKIP_JAR):
                group, artifact, version = jar.parts[-5], jar.parts[-4], jar.parts[-3]
                found[str(jar)] = (jar, (group, artifact, version))
    for repo in maven_repositories(options):
        for dirpath, _dirs, files in os.walk(repo):
            for name in files:
                if not name.endswith(".jar") or name.endswith(_SKIP_JAR):
                    continue
                jar = Path(dirpath) / name
                rel = jar.relative_to(repo).parts  # <group path...>/<artifact>/<version>/<file>
                if len(rel) < 4 or not name.startswith(f"{rel[-3]}-{rel[-2]}"):
                    continue
                found[str(jar)] = (jar, (".".join(rel[:-3]), rel[-3], rel[-2]))
    return found


def _read_jar(path: Path) -> dict[str, Any] | None:
    """Package -> number of classes in one jar, and its JPMS module name."""
    packages: dict[str, int] = {}
    try:
        with zipfile.ZipFile(path) as jar:
            for name in jar.namelist():
                if not name.endswith(".class") or name.startswith(("META-INF/", "module-info")):
                    continue
                package = name.rpartition("/")[0].replace("/", ".")
                if package:
                    packages[package] = packages.get(package, 0) + 1
            module = module_name(jar, path.name)
    except (OSError, zipfile.BadZipFile, ValueError, KeyError):
        return {"packages": {}}
    return {"packages": packages, "module": module}


def _jvm_entries(options: BuildOptions) -> list[tuple[dict[str, Any], tuple[str, str, str], str]]:
    """(index entry, coordinate, jar path) of every cached jar."""
    jars = _jar_files(options)
    entries = _refresh(
        options.cache_dir / "index" / "jvm-packages.json", {k: p for k, (p, _) in jars.items()}, _read_jar
    )
    return [(entry, jars[key][1], key) for key, entry in entries.items() if key in jars]


def jvm_index(options: BuildOptions) -> dict[str, list[Artifact]]:
    """Java package -> artifacts (every cached version) that contain classes of it."""
    index: dict[str, list[Artifact]] = {}
    for entry, (group, artifact, version), key in _jvm_entries(options):
        for package, count in entry.get("packages", {}).items():
            index.setdefault(package, []).append(Artifact(group, artifact, version, int(count), key))
    return index


def jvm_modules(options: BuildOptions) -> dict[str, list[Artifact]]:
    """JPMS module name -> artifacts (every cached version) that are that module."""
    index: dict[str, list[Artifact]] = {}
    for entry, (group, artifact, version), key in _jvm_entries(options):
        if entry.get("module"):
            index.setdefault(str(entry["module"]), []).append(Artifact(group, artifact, version, 0, key))
    return index


def artifact_for_module(module: str, options: BuildOptions) -> Artifact | None:
    """The artifact that is a JPMS module (`requires org.slf4j;` -> slf4j-api), in its highest cached release.

    Two different artifacts with that name (a relocated group, a fork) are ambiguous: None.
    """
    candidates = jvm_modules(options).get(module, [])
    if len({(a.group, a.artifact) for a in candidates}) != 1:
        return None
    releases = [a for a in candidates if not is_prerelease(a.version)] or candidates
    return max(releases, key=lambda a: version_key(a.version))


def jar_has_class(artifact: Artifact, class_name: str) -> bool:
    """Whether the artifact's cached jar holds a class ("org.hamcrest.Matchers"; nested ones too)."""
    entry = class_name.replace(".", "/") + ".class"
    try:
        with zipfile.ZipFile(artifact.jar) as jar:
            names = set(jar.namelist())
    except (OSError, zipfile.BadZipFile, ValueError):
        return False
    return entry in names or any(n.startswith(entry[: -len(".class")] + "$") for n in names)


def artifact_for_package(
    package: str, options: BuildOptions, class_name: str | None = None
) -> Artifact | None:
    """The artifact that provides a Java package, in its highest cached release.

    When several artifacts contain the package, the one whose group shares most of the
    package's leading names wins ("org.apache.commons" for org.apache.commons.lang3), then the
    one with most classes in it: shaded copies inside other jars hold fewer. With `class_name`,
    only artifacts whose jar holds that class count. Pre-releases only when nothing else is cached.
    Two artifacts that fit equally well are ambiguous: None.
    """
    candidates = jvm_index(options).get(package, [])
    if class_name is not None:
        candidates = [a for a in candidates if jar_has_class(a, class_name)]
    if not candidates:
        return None

    def score(a: Artifact) -> tuple[int, int]:
        common = 0
        for mine, theirs in zip(a.group.split("."), package.split("."), strict=False):
            if mine != theirs:
                break
            common += 1
        return common, a.classes

    best_of: dict[tuple[str, str], tuple[int, int]] = {}
    for candidate in candidates:
        coordinate = (candidate.group, candidate.artifact)
        best_of[coordinate] = max(best_of.get(coordinate, (-1, -1)), score(candidate))
    ranked = sorted(best_of.items(), key=lambda kv: kv[1], reverse=True)
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None  # two artifacts fit equally well: which one the code means is a guess
    best_group, best_artifact = ranked[0][0]
    versions = [a for a in candidates if (a.group, a.artifact) == (best_group, best_artifact)]
    releases = [a for a in versions if not is_prerelease(a.version)] or versions
    return max(releases, key=lambda a: version_key(a.version))


# --- Python ----------------------------------------------------------------------------------


def _site_dirs(options: BuildOptions) -> list[Path]:
    dirs = {sysconfig.get_paths().get("purelib", ""), sysconfig.get_paths().get("platlib", "")}
    with contextlib.suppress(AttributeError):  # site of some virtualenvs lacks these
        dirs |= set(site.getsitepackages()) | {site.getusersitepackages()}
    state = options.cache_dir / "state"
    found = [Path(d) for d in dirs if d]
    found += sorted(state.glob("*/sandbox/venv/lib/python*/site-packages")) if state.is_dir() else []
    return [d for d in found if d.is_dir()]


def _wheel_dirs(options: BuildOptions) -> list[Path]:
    dirs = [options.shared_cache("pip")]
    dirs += [
        Path(p) for p in re.split(r"[\s]+", os.environ.get("PIP_FIND_LINKS", "")) if p and "://" not in p
    ]
    return [d for d in dirs if d.is_dir()]


def _modules_from(files: Iterator[str], top_level: str | None) -> list[str]:
    """Importable names of a distribution: top_level.txt, else the RECORD's first path parts.

    Two levels are kept ("google", "google.protobuf") so namespace packages can be told apart.
    """
    names: set[str] = {line.strip() for line in (top_level or "").splitlines() if line.strip()}
    for path in files:
        parts = path.split(",")[0].split("/")
        if parts[0].endswith((".dist-info", ".data", ".egg-info")) or parts[0] in (
            "..",
            "__pycache__",
            "bin",
        ):
            continue
        stem = parts[0].removesuffix(".py") if len(parts) == 1 else parts[0]
        if len(parts) == 1 and not parts[0].endswith((".py", ".so", ".pyd")):
            continue
        stem = stem.split(".")[0]
        if stem.isidentifier():
            names.add(stem)
            if len(parts) > 2 and parts[1].isidentifier():
                names.add(f"{stem}.{parts[1]}")
    return sorted(names)


def _metadata_name(text: str, fallback: str) -> str:
    match = re.search(r"^Name:\s*(\S+)", text, re.MULTILINE)
    return match.group(1) if match else fallback


def _read_dist_info(path: Path) -> dict[str, Any] | None:
    name, _, version = path.name.removesuffix(".dist-info").partition("-")
    try:
        metadata = (path / "METADATA").read_text(errors="replace")[:4000]
    except OSError:
        metadata = ""
    top = path / "top_level.txt"
    record = path / "RECORD"
    try:
        top_text = top.read_text(errors="replace") if top.is_file() else None
        files = iter(record.read_text(errors="replace").splitlines()) if record.is_file() else iter(())
    except OSError:
        return None
    return {
        "name": _metadata_name(metadata, name),
        "version": version,
        "modules": _modules_from(files, top_text),
    }


def _read_wheel(path: Path) -> dict[str, Any] | None:
    try:
        with zipfile.ZipFile(path) as wheel:
            names = wheel.namelist()
            infos = {n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")}
            if len(infos) != 1:
                return None
            info = infos.pop()
            top = f"{info}/top_level.txt"
            top_text = wheel.read(top).decode(errors="replace") if top in names else None
            metadata = wheel.read(f"{info}/METADATA").decode(errors="replace")[:4000]
    except (OSError, zipfile.BadZipFile, KeyError, ValueError):
        return None
    name, _, version = info.removesuffix(".dist-info").partition("-")
    return {
        "name": _metadata_name(metadata, name),
        "version": version,
        "modules": _modules_from(iter(names), top_text),
    }


def _python_entries(options: BuildOptions) -> dict[str, Any]:
    sources: dict[str, Path] = {}
    for directory in _site_dirs(options):
        for info in directory.glob("*.dist-info"):
            sources[str(info)] = info
    readers: dict[str, Any] = {}
    for directory in _wheel_dirs(options):
        for dirpath, _dirs, files in os.walk(directory):
            for name in files:
                # pip's HTTP cache keeps downloaded wheels as `<hash>.body` files.
                if name.endswith((".whl", ".body")):
                    sources[os.path.join(dirpath, name)] = Path(dirpath) / name
    for key, path in sources.items():
        readers[key] = _read_dist_info if path.name.endswith(".dist-info") else _read_wheel

    def read(path: Path) -> dict[str, Any] | None:
        entry: dict[str, Any] | None = readers[str(path)](path)
        return entry

    return _refresh(options.cache_dir / "index" / "python-modules.json", sources, read)


def python_distributions(options: BuildOptions) -> dict[str, set[str]]:
    """Normalized distribution name -> versions found locally."""
    found: dict[str, set[str]] = {}
    for entry in _python_entries(options).values():
        found.setdefault(normalize_dist(entry["name"]), set()).add(str(entry["version"]))
    return found


def distribution_for_module(module: str, options: BuildOptions) -> str | None:
    """The distribution that provides an importable module ("yaml" -> "PyYAML"), or None.

    The dotted name is tried at two levels ("google.protobuf" before "google"). Several
    distributions providing it: the one named like the module, else the one seen most often;
    a tie is ambiguous and gives None.
    """
    parts = module.split(".")
    entries = list(_python_entries(options).values())
    for name in (".".join(parts[:2]), parts[0]) if len(parts) > 1 else (parts[0],):
        counts: dict[str, int] = {}
        spelled: dict[str, str] = {}
        for entry in entries:
            if name in entry.get("modules", []):
                norm = normalize_dist(entry["name"])
                counts[norm] = counts.get(norm, 0) + 1
                spelled.setdefault(norm, entry["name"])
        if not counts:
            continue
        if normalize_dist(name) in counts:
            return spelled[normalize_dist(name)]
        ranked = sorted(counts.items(), key=lambda kv: -kv[1])
        if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            return None
        return spelled[ranked[0][0]]
    return None
