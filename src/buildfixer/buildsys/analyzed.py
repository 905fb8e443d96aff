"""Join the build layer and log analysis: a build whose result carries its parsed errors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project
from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.core.confined import WorkspaceFiles

if TYPE_CHECKING:
    from buildfixer.logs.analyze import Analysis

# Characters of each last line of output quoted when no error was recognised.
_MAX_SHOWN_LINE = 500


def attach_analysis(result: BuildResult, project: Path | None = None) -> Analysis | None:
    """Read the result's log into its `errors` and `category` (a successful build keeps none).

    With the project directory, errors the log does not locate (a missing artifact, a JDK
    level) are pointed at the build-file line that causes them.
    """
    if result.status == "success":
        return None
    # The parsers are read only for a failure: a successful `buildfixer build` never imports them.
    from buildfixer.logs import analyze, locate

    # The build's own output, whatever bytes it printed; a huge log through its head and tail.
    analysis = analyze.analyze_file(Path(result.log_path), strict=False)
    if project is not None:
        locate.locate_in_project(analysis.errors, WorkspaceFiles(project))  # no link out of it followed
    if not analysis.errors:
        # Nothing recognisable: the end of the log is still the best lead for a reader or an agent.
        tail = [line for line in analysis.lines[-40:] if line.strip()][-6:]
        summary = "build timed out" if result.status == "timeout" else f"exit code {result.exit_code}"
        # Each line clipped: the last "line" may be megabytes of one minified file or binary dump.
        shown = " | ".join(t.strip()[:_MAX_SHOWN_LINE] for t in tail)
        message = f"{summary}; last output: {shown}" if tail else summary
        analysis.errors = [
            BuildError(message, "other", result.build_system, log_line=len(analysis.lines) - 1)
        ]
        analysis.category = "other"
    result.errors = analysis.errors
    result.category = analysis.category
    return analysis


def build_and_analyze(
    project: Path, options: BuildOptions | None = None, system: str | None = None
) -> tuple[BuildResult, Analysis | None]:
    """Run the build, then read its failure (if any) into structured errors."""
    result = build_project(project, options, system)
    return result, attach_analysis(result, project)
