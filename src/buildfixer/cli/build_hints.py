"""What a user can try after a failed `buildfixer build`: options of this machine the failure asks for.

- an installed JDK the failure needs (the JDK-level recipe's choice: `--jdk 25`);
- another build of the same project (pom.xml beside build.gradle: `--system maven`), when the
  chosen one failed before compiling anything (its configuration, a missing library).

Imported only after a failure (by `cli.commands`), so a successful build loads none of the repair code.
"""

from __future__ import annotations

from pathlib import Path

from buildfixer.agents.recipes.base import read_evidence
from buildfixer.agents.recipes.jdk import jdk_level
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import SYSTEMS
from buildfixer.core.build_result import BuildResult
from buildfixer.deps.manage import confined_to

# Categories where the build did not get as far as the project's code: another build may.
_BEFORE_THE_CODE = {"configuration", "library_unavailable", "other"}


def build_hints(result: BuildResult, project: Path, options: BuildOptions, system: str | None) -> list[str]:
    """Hints for a failed build (not an error of buildfixer's); none for options the user already gave."""
    hints: list[str] = []
    if options.jdk is None and (jdk := _installed_jdk_asked_for(result, project, options)) is not None:
        hints.append(f"the failure asks for JDK {jdk}, which is installed: retry with --jdk {jdk}")
    if system is None and result.category in _BEFORE_THE_CODE:
        others = [name for name, one in SYSTEMS.items() if one.detect(project)]
        others = [name for name in others if name != result.build_system]
        if others:
            hints.append(f"the project has another build ({others[0]}): try --system {others[0]}")
    return hints


def _installed_jdk_asked_for(result: BuildResult, project: Path, options: BuildOptions) -> int | None:
    evidence = read_evidence(project, result, options)
    with confined_to(evidence.project):
        repair = jdk_level(evidence)
    if repair is None:
        return None
    version = repair.calls[0].arguments.get("version")
    return int(version) if isinstance(version, int) else None
