"""Maven builds: `mvn -B package` against a shared local repository."""

from __future__ import annotations

import re
from pathlib import Path

from buildfixer.buildsys.jdk import Jdk
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.plan import Plan, executable, java_env, jdk_changed, version_from_jar_dir
from buildfixer.buildsys.runner import BuildStep
from buildfixer.core import confined

name = "maven"  # this module is a core.protocols.BuildSystem: name, detect, plan


def detect(project: Path) -> bool:
    """A Maven project has a pom.xml at its root."""
    return (project / "pom.xml").is_file()


def wrapper_version(project: Path) -> str | None:
    """Maven version the project's wrapper asks for (`.mvn/wrapper/maven-wrapper.properties`)."""
    text = confined.try_read_text(project, ".mvn/wrapper/maven-wrapper.properties") or ""
    found = re.search(r"^distributionUrl\s*=.*/apache-maven-([^/\s]+?)-bin\.zip", text, re.MULTILINE)
    return found.group(1) if found else None


def plan(project: Path, options: BuildOptions, jdk: Jdk | None) -> Plan:
    """`mvn -B [-o] [clean] package`, quiet about transfers, with the shared repository."""
    wanted = wrapper_version(project)
    use_wrapper = (project / "mvnw").is_file() and wanted is not None and _wrapper_cached(wanted)
    launcher = ["sh", "mvnw"] if use_wrapper else [executable("mvn") or "mvn"]
    goals = options.tasks or ["package"]
    # After a JDK switch (a pin changed, --jdk), target/ holds the other JDK's classes, which the
    # compiler takes as up to date: the old JDK's verdict would stand.
    switched = jdk_changed(options.state_for(project), jdk, "maven")
    if (not options.warm or switched) and "clean" not in goals:
        goals = ["clean", *goals]
    flags = ["-B", "-ntp", f"-Dmaven.repo.local={options.shared_cache('m2') / 'repository'}"]
    if options.offline:
        flags.append("-o")
    system_version = version_from_jar_dir("mvn", "maven-core")
    tools = {"maven": f"{wanted} (wrapper)" if use_wrapper else system_version}
    notes = []
    if wanted and not use_wrapper and wanted != system_version:
        tools["maven"] = f"{system_version} (system)"
        tools["maven_wrapper"] = f"{wanted} (distribution not downloaded)"
        notes.append(
            f"the Maven wrapper asks for Maven {wanted}, which is not downloaded here; "
            f"built with the system Maven {system_version} instead"
        )
    return Plan("maven", [BuildStep([*launcher, *flags, *goals])], java_env(jdk), tools, notes)


def _wrapper_cached(version: str) -> bool:
    # mvnw downloads Maven into ~/.m2/wrapper; like gradlew, only use it when already there.
    dists = Path.home() / ".m2" / "wrapper" / "dists"
    return any(dists.glob(f"apache-maven-{version}*/*/bin/mvn")) or any(
        dists.glob(f"apache-maven-{version}*/*/*/bin/mvn")
    )
