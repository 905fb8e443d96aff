"""The `recipes` policy: deterministic repairs of known failure causes, no model involved.

`diagnose` reads a failed build (its parsed errors and its log) and the project's build files
and plans one repair as ordinary tool calls (`change_java_version`, `replace`, `write_file`),
or declines with None. Recipes, tried in this order:

1. jdk-level: the build needs another JDK ("release version 21 not supported", "Unsupported
   class file major version 65", "requires Java 17", maven-enforcer's range) -> the nearest
   installed JDK that the running Gradle (if any) runs on.
2. hardcoded-path: a build file names an absolute path missing on this machine (a JDK home, an
   Android SDK, a tool, a file of the project) -> its equivalent here.
3. missing-properties: the build reads a `.properties` file that is absent -> restore it from
   git history (the origin's: a fix works in a snapshot without history), copy a template, or
   create it with the keys the build needs from it (never system or environment ones, nor a key
   read with a default or defined by Maven, a parent POM or a profile), each at the value the
   project itself has for it (the same file of another module, a gradle.properties, a pom's
   <properties>). No value is made up: without one, or with no key needed, it declines.
4. missing-version: declared dependency or plugin versions that do not exist -> the nearest
   published release (`deps.versions.nearest_version`: a re-release of that version, then the same
   minor, the same major, any), every one the failure names in one repair; a version shared
   through a property must exist for all.
5. undeclared-dependency: code imports packages (or module-info.java requires modules, or
   TypeScript wants `@types/...`) no declaration provides, and a local cache has the artifact
   (JVM jars, Python wheels and site-packages, npm tarballs) -> declare them in the scope their
   importers need (test-only importers: the test group): the artifact the project's git history
   declared, at the version its other modules use (a managed one: none written), else its
   lockfile's, else the newest its history declared, never lower than any of these.

Recipes read the workspace only inside `deps.base.confined_to(project)` or through `core.confined`:
a build file, lockfile or template that links out of the project (`pom.xml -> /root/.ssh/id_rsa`)
reads as absent, so nothing outside reaches a repair's arguments or the trajectory.

Recipes only touch build files, `.properties` files and the JDK choice, never source code or
tests; anything they are not sure of (two candidates, a pre-release, a -SNAPSHOT, a JPMS module
that would also need `requires`) is declined.

The recipes live in their own modules (`jdk`, `files`, `properties`, `versions` and `undeclared`,
which hands each build system to `undeclared_jvm`, `undeclared_python` or `undeclared_npm`) on top
of `base` (the records and the evidence); this module only dispatches.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from buildfixer.agents.recipes.base import Evidence, PlannedCall, Repair, read_evidence
from buildfixer.agents.recipes.files import hardcoded_path
from buildfixer.agents.recipes.jdk import jdk_level
from buildfixer.agents.recipes.properties import missing_properties
from buildfixer.agents.recipes.undeclared import undeclared_dependency
from buildfixer.agents.recipes.versions import missing_version
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildResult
from buildfixer.deps.manage import confined_to

__all__ = ["RECIPES", "Evidence", "PlannedCall", "Repair", "diagnose"]

_log = logging.getLogger(__name__)

# In the order they are tried: the first repair that applies wins.
RECIPES: tuple[Callable[[Evidence], Repair | None], ...] = (
    jdk_level,
    hardcoded_path,
    missing_properties,
    missing_version,
    undeclared_dependency,
)


def diagnose(
    project: Path, result: BuildResult, options: BuildOptions, origin: Path | None = None,
    git_dir: Path | None = None,
) -> Repair | None:  # fmt: skip
    """Plan the repair of a failed build, or decline.

    Args:
        project: The project root.
        result: The failed build, its errors read (`buildsys.analyzed.attach_analysis`).
        options: Its build options (cache directory for the dependency caches, offline).
        origin: The directory `project` is a snapshot of (`buildfixer fix` works in a copy
            without history): where a deleted file is looked up in git history.
        git_dir: The workspace's recorded git directory (its history is read through it only).

    Returns:
        The first recipe's repair that applies with confidence, or None.
    """
    if result.status == "success":
        return None
    evidence = read_evidence(project, result, options, origin, git_dir)
    with confined_to(evidence.project):
        for recipe in RECIPES:
            try:
                repair = recipe(evidence)
            except Exception:  # a recipe's bug must not break the fix command: it declines
                _log.warning("recipe %s failed; it declines", recipe.__name__, exc_info=True)
                repair = None
            if repair is not None and repair.calls:
                return repair
    return None
