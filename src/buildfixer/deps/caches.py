"""This machine's dependency caches: where Gradle, Maven and npm keep downloads, what they hold.

Ours (those of the build's trust domain, `BuildOptions.shared_cache`) and the user's
(`GRADLE_USER_HOME`, ~/.gradle, ~/.m2, ~/.npm); only directories that exist are returned.
Python's caches are read by `deps.package_index` (installed distributions and cached wheels).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from buildfixer.buildsys.options import BuildOptions


def gradle_homes(options: BuildOptions) -> list[Path]:
    """Gradle user homes whose caches may hold artifacts: ours, GRADLE_USER_HOME, ~/.gradle."""
    homes = [options.gradle_home]
    if os.environ.get("GRADLE_USER_HOME"):
        homes.append(Path(os.environ["GRADLE_USER_HOME"]))
    homes.append(Path.home() / ".gradle")
    return _unique_dirs(homes)


def maven_repositories(options: BuildOptions) -> list[Path]:
    """Local Maven repositories: ours and ~/.m2/repository."""
    return _unique_dirs([options.shared_cache("m2") / "repository", Path.home() / ".m2" / "repository"])


def npm_caches(options: BuildOptions) -> list[Path]:
    """Npm caches (content-addressed `_cacache` directories): ours and ~/.npm."""
    return _unique_dirs([options.shared_cache("npm") / "_cacache", Path.home() / ".npm" / "_cacache"])


def _unique_dirs(paths: list[Path]) -> list[Path]:
    seen: dict[str, Path] = {}
    for path in paths:
        if path.is_dir():
            seen.setdefault(str(path.resolve()), path)
    return list(seen.values())


def jvm_cached_versions(name: str, options: BuildOptions) -> set[str]:
    """Versions of group:artifact with a downloaded jar or pom in a Gradle or Maven cache."""
    group, _, artifact = name.partition(":")
    found: set[str] = set()
    for home in gradle_homes(options):
        base = home / "caches" / "modules-2" / "files-2.1" / group / artifact
        if base.is_dir():
            found |= {d.name for d in base.iterdir() if d.is_dir() and any(d.iterdir())}
    for repo in maven_repositories(options):
        base = repo.joinpath(*group.split("."), artifact)
        if not base.is_dir():
            continue
        for version_dir in base.iterdir():
            # A failed download leaves only `*.lastUpdated` markers: that version does not exist.
            if version_dir.is_dir() and any(
                p.suffix in (".jar", ".pom", ".aar") for p in version_dir.iterdir()
            ):
                found.add(version_dir.name)
    return found


_NPM_TARBALL = re.compile(r'"key":"pacote:tarball:(@?[^"@]+)@([^"@]+)"')
_NPM_URL = re.compile(
    r'"key":"make-fetch-happen:request-cache:https?://[^/"]+/(.+?)/-/[^"/]+?-(\d[^"/]*)\.tgz"'
)


def npm_cached_packages(options: BuildOptions) -> dict[str, set[str]]:
    """Package name -> versions whose tarballs are in an npm cache."""
    found: dict[str, set[str]] = {}
    for cache in npm_caches(options):
        index = cache / "index-v5"
        for path in index.rglob("*") if index.is_dir() else []:
            if not path.is_file():
                continue
            try:
                text = path.read_text(errors="replace")
            except OSError:
                continue
            for name, version in _NPM_TARBALL.findall(text) + _NPM_URL.findall(text):
                found.setdefault(name.replace("%2f", "/").replace("%2F", "/"), set()).add(version)
    return found
