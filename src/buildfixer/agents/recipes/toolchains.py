"""What the failed build ran on and what this machine has: its JDK, its Gradle's Java limit, the Android SDK.

Shared by the recipes that pick a JDK (`jdk`) or replace a hard-coded path (`files`,
`properties`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from buildfixer.agents.recipes.base import Evidence
from buildfixer.buildsys.gradle import java_limit
from buildfixer.buildsys.jdk import default_jdk
from buildfixer.core import confined

# Newest Java each Gradle version runs on (docs.gradle.org compatibility matrix).
_GRADLE_MAX_JAVA = [
    ((4, 7), 10), ((5, 0), 11), ((5, 4), 12), ((6, 0), 13), ((6, 3), 14), ((6, 7), 15),
    ((7, 0), 16), ((7, 3), 17), ((7, 5), 18), ((7, 6), 19), ((8, 3), 20), ((8, 5), 21),
    ((8, 8), 22), ((8, 10), 23), ((8, 14), 24), ((9, 1), 25),
]  # fmt: skip
_SDK_HOMES = (
    "~/Android/Sdk",
    "~/Library/Android/sdk",
    "/opt/android-sdk",
    "/usr/lib/android-sdk",
    "/opt/android/sdk",
)


def current_jdk(ev: Evidence) -> int | None:
    """The JDK the failed build used."""
    if ev.result.jdk is not None:
        return ev.result.jdk
    if ev.options.jdk is not None:
        return ev.options.jdk
    jdk = default_jdk()
    return jdk.version if jdk else None


def _gradle_version(project: Path) -> tuple[int, int] | None:
    text = confined.try_read_text(project, "gradle/wrapper/gradle-wrapper.properties")
    match = re.search(r"gradle-(\d+)\.(\d+)", text) if text is not None else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def gradle_max_java(project: Path) -> int | None:
    """Newest Java the project's Gradle wrapper version runs on (None without a wrapper)."""
    version = _gradle_version(project)
    if version is None:
        return None
    best = 9
    for since, java in _GRADLE_MAX_JAVA:
        if version >= since:
            best = java
    return best


def gradle_java_cap(ev: Evidence) -> int:
    """Newest Java the Gradle running this build runs on (99 when unknown or not Gradle)."""
    if ev.system != "gradle":
        return 99
    running = ev.result.environment.get("gradle", "")
    version = running.split()[0] if running else ""
    limit = java_limit(version, system="wrapper" not in running) if version else None
    if limit is None and not running:
        limit = gradle_max_java(ev.project)
    return limit or 99


def android_sdk() -> Path | None:
    """An Android SDK installed here: ANDROID_HOME, ANDROID_SDK_ROOT or a usual place."""
    places = [os.environ.get("ANDROID_HOME", ""), os.environ.get("ANDROID_SDK_ROOT", ""), *_SDK_HOMES]
    for place in places:
        if not place:
            continue
        home = Path(place).expanduser()
        if any((home / d).is_dir() for d in ("platforms", "platform-tools", "build-tools")):
            return home
    return None
