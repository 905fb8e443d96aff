"""Gradle builds: the project's wrapper when its distribution is already here, else system gradle."""

from __future__ import annotations

import re
from pathlib import Path

from buildfixer.buildsys.jdk import Jdk
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.plan import Plan, executable, java_env, jdk_changed, version_from_jar_dir
from buildfixer.buildsys.runner import BuildStep
from buildfixer.core import confined

name = "gradle"  # this module is a core.protocols.BuildSystem: name, detect, plan

BUILD_FILES = ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts")
_ANDROID_PLUGIN = re.compile(r"com\.android\.(application|library|dynamic-feature|test)|android\s*\{")
_DIST_URL = re.compile(r"^distributionUrl\s*=\s*(.+)$", re.MULTILINE)
# An idle daemon exits after 10 minutes even if nobody stops it.
_DAEMON_IDLE_MS = 600_000


def detect(project: Path) -> bool:
    """A Gradle project has a build or settings script at its root."""
    return any((project / name).is_file() for name in BUILD_FILES)


def is_android(project: Path) -> bool:
    """True when a build script at the root or one level down applies an Android plugin."""
    scripts = list(BUILD_FILES)
    scripts += [
        f"{p.parent.name}/{n}" for n in ("build.gradle", "build.gradle.kts") for p in project.glob(f"*/{n}")
    ]
    return any(_ANDROID_PLUGIN.search(confined.try_read_text(project, script) or "") for script in scripts)


def wrapper_zip(project: Path) -> str | None:
    """File name of the distribution the wrapper asks for (`gradle-8.5-bin.zip`), if any."""
    found = _DIST_URL.search(
        confined.try_read_text(project, "gradle/wrapper/gradle-wrapper.properties") or ""
    )
    return found.group(1).strip().replace("\\:", ":").rsplit("/", 1)[-1] if found else None


def wrapper_version(project: Path) -> str | None:
    """Gradle version the wrapper asks for (`8.5`), if the project has a wrapper."""
    zip_name = wrapper_zip(project)
    found = re.fullmatch(r"gradle-(.+?)(-bin|-all)?\.zip", zip_name or "")
    return found.group(1) if found else None


def wrapper_distribution(project: Path, gradle_homes: list[Path]) -> Path | None:
    """Home of the wrapper's Gradle distribution when it is already unpacked in one of the homes.

    The wrapper keeps `<home>/wrapper/dists/gradle-8.5-bin/<hash>/gradle-8.5/`; the hash is of
    the URL, so any hash directory holding an unpacked, completed (`.ok`) copy will do.
    """
    zip_name = wrapper_zip(project)
    if not zip_name:
        return None
    dist_name = zip_name.removesuffix(".zip")
    unpacked = re.sub(r"-(bin|all)$", "", dist_name)
    for home in gradle_homes:
        for hash_dir in sorted((home / "wrapper" / "dists" / dist_name).glob("*")):
            if (hash_dir / f"{zip_name}.ok").exists() and (hash_dir / unpacked / "bin" / "gradle").is_file():
                return hash_dir / unpacked
    return None


def plan(project: Path, options: BuildOptions, jdk: Jdk | None) -> Plan:
    """The Gradle command: tasks, plain console, shared user home, per-project daemon registry."""
    user_home = options.gradle_home
    state = options.state_for(project)
    dist = wrapper_distribution(project, [user_home, Path.home() / ".gradle"])
    tools: dict[str, str] = {}
    notes: list[str] = []
    if dist is not None and (project / "gradlew").is_file() and dist.is_relative_to(user_home):
        launcher = ["sh", "gradlew"]  # the wrapper finds its distribution in our user home
        tools["gradle"] = f"{dist.name.removeprefix('gradle-')} (wrapper)"
    elif dist is not None:
        launcher = [str(dist / "bin" / "gradle")]
        tools["gradle"] = f"{dist.name.removeprefix('gradle-')} (wrapper distribution)"
    else:
        launcher = [executable("gradle") or "gradle"]
        system_version = version_from_jar_dir("gradle", "gradle-launcher")
        tools["gradle"] = system_version
        wanted = wrapper_version(project)
        if wanted and wanted != system_version:
            # Wrapper distributions are never downloaded: say so, since a version gap can be
            # the whole reason the build fails here.
            tools["gradle"] = f"{system_version} (system)"
            tools["gradle_wrapper"] = f"{wanted} (distribution not available here)"
            notes.append(
                f"the Gradle wrapper asks for Gradle {wanted}, whose distribution is not available "
                f"here; built with the system Gradle {system_version} instead"
            )
    kts = [n for n in BUILD_FILES if n.endswith(".kts") and (project / n).is_file()]
    if dist is None and kts and not _system_has_kotlin_dsl():
        notes.append(
            f"this Gradle has no Kotlin DSL (Debian's build lacks it): {', '.join(kts)} "
            "cannot be evaluated, so the build below is not the project's"
        )
    running = tools["gradle"].split()[0]
    if jdk is not None and (limit := java_limit(running, system=dist is None)) and jdk.version > limit:
        notes.append(
            f"Gradle {running} runs on Java {limit} at most, not on JDK {jdk.version}: tasks may fail "
            "for that reason alone (on JDK 24+, test workers stop at 'Security Manager is not supported')"
        )
    tasks = options.tasks or (["assembleDebug"] if is_android(project) else ["build"])
    flags = ["--console=plain", f"-Dorg.gradle.daemon.idletimeout={_DAEMON_IDLE_MS}"]
    flags.append("--daemon" if options.warm else "--no-daemon")
    if options.offline:
        flags.append("--offline")
    steps = []
    if not options.warm:
        # The cold protocol of the study: stop daemons, then clean and build from scratch.
        steps.append(BuildStep([*launcher, "--stop"]))
        tasks = ["clean", *tasks]
    elif jdk_changed(state, jdk, "gradle") and "clean" not in tasks:
        # Gradle 4.x keeps tasks UP-TO-DATE across a JDK switch: without clean the
        # old JDK's verdict would stand.
        tasks = ["clean", *tasks]
    steps.append(BuildStep([*launcher, *tasks, *flags]))
    env = {
        **java_env(jdk),
        "GRADLE_USER_HOME": str(user_home),
        # Daemons registered per project: one build's timeout never kills another's daemon,
        # and a project switched to another JDK does not reuse a daemon of the old one.
        "GRADLE_OPTS": f"-Dorg.gradle.daemon.registry.base={daemon_registry(project, options)}",
    }
    return Plan("gradle", steps, env, tools, notes)


def daemon_registry(project: Path, options: BuildOptions) -> Path:
    """Where the project's Gradle daemons register (their port and their secret token).

    A sandboxed build's daemon lives in its sandbox session, and its registry in the sandbox's
    part of the project's state. An unsandboxed daemon (`--no-sandbox`) registers in
    buildfixer's cache instead, which no sandbox sees: code in a sandbox that found its token
    could hand it a build to run unconfined.
    """
    if options.sandbox != "none":
        return options.sandbox_state_for(project) / "gradle-daemons"
    return options.cache_dir / "daemons" / options.state_for(project).name


# The first Gradle release that runs on each Java version (Gradle's compatibility matrix).
_FIRST_GRADLE_FOR_JAVA = {
    9: (4, 3), 10: (4, 7), 11: (5, 0), 12: (5, 4), 13: (6, 0), 14: (6, 3), 15: (6, 7), 16: (7, 0),
    17: (7, 3), 18: (7, 5), 19: (7, 6), 20: (8, 3), 21: (8, 5), 22: (8, 8), 23: (8, 10), 24: (8, 14),
    25: (9, 1),
}  # fmt: skip
# Debian patches its packaged Gradle 4.4.1 to run on the distribution's JDK 17.
_DEBIAN_GRADLE = ("4.4.1", 17)


def java_limit(version: str, system: bool) -> int | None:
    """Newest Java this Gradle version runs on; None when the version is unknown or too new to judge."""
    if system and version == _DEBIAN_GRADLE[0]:
        return _DEBIAN_GRADLE[1]
    parts = re.match(r"(\d+)\.(\d+)", version)
    if not parts:
        return None
    have = (int(parts.group(1)), int(parts.group(2)))
    supported = [java for java, first in _FIRST_GRADLE_FOR_JAVA.items() if have >= first]
    newest_known = max(_FIRST_GRADLE_FOR_JAVA.values())
    if have > newest_known:
        return None
    return max(supported) if supported else 8


def _system_has_kotlin_dsl() -> bool:
    """Whether the system Gradle can read `*.gradle.kts` (Debian's packaged 4.4.1 cannot)."""
    path = executable("gradle")
    lib = Path(path).resolve().parent.parent / "lib" if path else None
    return bool(lib and any(lib.glob("gradle-kotlin-dsl*.jar")))
