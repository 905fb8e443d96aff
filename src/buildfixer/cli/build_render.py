"""Human-readable terminal output of builds and analyses (rich, imported only here)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from buildfixer.core.build_result import BuildError, BuildResult
from buildfixer.core.terminal import visible

if TYPE_CHECKING:
    from buildfixer.logs.analyze import Analysis

_STATUS_STYLE = {
    "success": "bold green",
    "failure": "bold red",
    "timeout": "bold yellow",
    "error": "bold red",
}
_SHOWN_ERRORS = 5


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def shown(text: object) -> str:
    """Outside text (a build's, a model's) for rich markup: controls spelled out, markup escaped."""
    return escape(visible(str(text)))


def _error_line(error: BuildError) -> str:
    where = f"{shown(error.location())}: " if error.location() else ""
    first = shown(error.message.strip().splitlines()[0] if error.message.strip() else "")
    return f"[dim]{error.tool}[/] [magenta]{error.category}[/] {where}{first}"


def print_build_result(result: BuildResult) -> None:
    """Verdict, command, environment, then the root error and a few others."""
    out = _console()
    style = _STATUS_STYLE.get(result.status, "bold")
    jdk = f", JDK {result.jdk}" if result.jdk else ""
    if result.jdk and result.environment.get("jdk_pin"):
        jdk += f" ({shown(result.environment['jdk_pin'])})"  # the version file that chose it
    out.print(f"[{style}]{result.status.upper()}[/] {result.build_system}{jdk} in {result.duration_s:.1f}s")
    out.print(f"[dim]$ {shown(' '.join(result.command))}[/]")
    if result.environment.get("notes"):
        out.print(f"[yellow]note:[/] {shown(result.environment['notes'])}")
    if result.errors:
        out.print(f"category: [magenta]{result.category}[/]")
        out.print("root error: " + _error_line(result.errors[0]))
        for error in result.errors[1:_SHOWN_ERRORS]:
            out.print("  also: " + _error_line(error))
        if len(result.errors) > _SHOWN_ERRORS:
            out.print(f"  ... {len(result.errors) - _SHOWN_ERRORS} more")
    elif not result.ok:
        out.print("no error could be read from the log; see the full log")
    out.print(f"[dim]log: {shown(result.log_path)}[/]")
    if result.environment.get("hint"):
        for hint in str(result.environment["hint"]).split("; "):
            out.print(f"[cyan]hint:[/] {shown(hint)}")


def print_analysis(analysis: Analysis) -> None:
    """Category, build system and every error, root first."""
    out = _console()
    if not analysis.errors:
        out.print("[green]no errors found[/]")
        return
    out.print(
        f"build system: {analysis.build_system or 'unknown'}   category: [magenta]{analysis.category}[/]"
    )
    for index, error in enumerate(analysis.errors):
        prefix = "root " if index == 0 else f"{index + 1:>4} "
        out.print(prefix + _error_line(error))
