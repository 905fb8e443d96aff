"""Maven builds: `mvn -B package` against a shared local repository."""

from __future__ import annotations

from pathlib import Path

from buildfixer.build.jdk import Jdk
from buildfixer.build.options import BuildOptions
from buildfixer.build.plan import Plan, executable, java_env, version_from_jar_dir
from buildfixer.build.runner import Step


def detect(project: Path) -> bool:
    """A Maven project has a pom.xml at its root."""
    return (project / "pom.xml").is_file()


def plan(project: Path, options: BuildOptions, jdk: Jdk | None) -> Plan:
    """`mvn -B [-o] [clean] package`, quiet about transfers, with the shared repository."""
    wrapper = project / "mvnw"
    launcher = (
        ["sh", "mvnw"] if wrapper.is_file() and _wrapper_cached(options) else [executable("mvn") or "mvn"]
    )
    goals = options.tasks or ["package"]
    if not options.warm and "clean" not in goals:
        goals = ["clean", *goals]
    flags = ["-B", "-ntp", f"-Dmaven.repo.local={options.cache_dir / 'm2' / 'repository'}"]
    if options.offline:
        flags.append("-o")
    tools = {"maven": version_from_jar_dir("mvn", "maven-core")}
    return Plan("maven", [Step([*launcher, *flags, *goals])], java_env(jdk), tools)


def _wrapper_cached(options: BuildOptions) -> bool:
    # mvnw downloads Maven into ~/.m2/wrapper; like gradlew, only use it when already there.
    return any((Path.home() / ".m2" / "wrapper" / "dists").glob("*/*/bin/mvn"))
