"""Terminal output of `buildfixer fix`: live progress on stderr, then the verdict and the diff."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from buildfixer.buildsys.jdk_pin import READERS, VERSION_FILES
from buildfixer.cli.build_render import shown
from buildfixer.cli.triage_commands import build_label, triage_lines
from buildfixer.core.chat import Usage
from buildfixer.core.terminal import visible
from buildfixer.delivery.fix import FixOutcome
from buildfixer.triage import PRE_EXISTING


class ProgressPrinter:
    """Prints one line per agent event to stderr (kept off stdout so --json stays clean)."""

    def __init__(self) -> None:
        self.console = Console(stderr=True, highlight=False, soft_wrap=True)
        self.step = 0

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        """Handle one event from the attempt (build, step, tool, stop, judge, pipeline)."""
        if event == "build":
            label = {
                "initial": "building the project as it is",
                "verdict-reused": "verdict: the build after the last change is the verdict (not built again)",
            }.get(data["phase"], "verdict build")
            if data["phase"].startswith("triage-"):
                label = build_label(data)
            self.console.print(f"[dim]… {escape(label)}[/]")
        elif event == "triage":  # what the first build's failure is, before any repair
            self.console.print(f"[dim]triage: {shown(data['triage'].headline())}[/]")
        elif event == "step":
            self.step = data["step"]
            recipe = f" recipe {shown(data['recipe'])}" if data.get("recipe") else ""
            line = f"[bold]step {self.step}[/]{recipe} · {data['calls']} tool call(s) · {step_tokens(data)}"
            self.console.print(line)
        elif event == "tool":
            mark = "[red]✗[/]" if data["error"] else "[green]✓[/]"
            self.console.print(f"  {mark} {shown(data['name'])} [dim]{data['seconds']:.1f}s[/]")
        elif event == "stop":
            self.console.print(f"[dim]agent stopped: {shown(data['reason'])}[/]")
        elif event == "judge":  # the build passes: is the repair honest?
            how = " (running the tests before and after)" if data.get("tests") else ""
            self.console.print(f"[dim]… judging the repair{how}[/]")
        elif event == "pipeline":  # the repair loop starts a try
            offer = f"remembered fix #{data['candidate']}" if data.get("candidate") else "no remembered fix"
            self.console.print(f"[bold]error {data['error']}, try {data['try']}[/] [dim]({offer})[/]")


def step_tokens(data: dict[str, Any]) -> str:
    """The tokens of a step event: this step's own (`step_usage`, when given) and the total so far."""
    total: Usage = data["usage"]
    so_far = f"{total.input_tokens + total.output_tokens:,}"
    step: Usage | None = data.get("step_usage")
    if step is None:
        return f"{so_far} tokens"
    return f"{step.input_tokens + step.output_tokens:,} tokens this step · {so_far} total"


def print_outcome(outcome: FixOutcome, dry_run: bool) -> None:
    """Verdict, what was done to the project, the diff, the JDK it pins, the trajectory path."""
    out = Console(highlight=False, soft_wrap=True)
    attempt = outcome.attempt
    usage = attempt.trajectory.usage
    cost = f"${usage.cost_usd:.4f}" + ("" if usage.cost_known else " (unknown price: lower bound)")
    triaged = attempt.triage
    if attempt.initial.status == "success":
        out.print("[bold green]nothing to fix[/]: the build already succeeds")
    elif triaged is not None and triaged.stops_repair:
        out.print(f"[bold yellow]NOT REPAIRED[/]: the failure is {triaged.kind}, so it was not patched")
        for line in triage_lines(triaged):
            out.print(shown(line))
    elif attempt.resolved:
        out.print(
            f"[bold green]RESOLVED[/] in {attempt.duration_s:.0f}s · {attempt.llm_calls} LLM call(s) · {cost}"
        )
    else:
        out.print(f"[bold red]NOT RESOLVED[/] ({shown(attempt.stop_reason)})")
        if attempt.verdict.errors:
            first = attempt.verdict.errors[0]
            out.print(f"still failing: [magenta]{first.category}[/] {shown(first.message.splitlines()[0])}")
    if triaged is not None and triaged.kind == PRE_EXISTING:
        out.print(f"[yellow]already on the base[/]: {shown(triaged.basis)} (this branch did not cause it)")
    if outcome.patch:
        print_patch(out, outcome.patch)
    pins = [name for name in VERSION_FILES if name in outcome.changed_files]
    switched = attempt.jdk is not None and attempt.jdk != attempt.initial.jdk
    honoured = attempt.verdict.environment.get("jdk_pin") in pins  # a pin edited by hand, built on
    if attempt.resolved and pins and (switched or honoured) and attempt.verdict.jdk is not None:
        readers = ", ".join(dict.fromkeys(r for name in pins for r in READERS[name].split(", ")))
        out.print(
            f"[yellow]JDK {attempt.verdict.jdk}[/] is pinned in {', '.join(pins)} (in the diff), where "
            f"`buildfixer build` and {readers} find it"
        )
    elif switched and attempt.resolved:
        # The pin could not be part of the repair (a git-ignored version file of the user's).
        home = attempt.verdict.environment.get("java_home", "")
        out.print(f"[yellow]build with JDK {attempt.jdk}[/]: export JAVA_HOME={shown(home)}")
    if outcome.refused:
        out.print(
            f"[yellow]left as they are[/]: {shown(', '.join(outcome.refused))} (git-ignored files of"
            " yours, which fix never writes; the repair was judged without its edits to them)"
        )
    if outcome.conflict:
        out.print(f"[bold red]not applied[/]: {shown(outcome.conflict)}")
    if outcome.left_out:
        names = ", ".join(outcome.left_out[:5]) + (" ..." if len(outcome.left_out) > 5 else "")
        out.print(f"[dim]the snapshot left out large git-ignored files: {shown(names)}[/]")
    if outcome.pull_request is not None:
        made = outcome.pull_request
        where = f"[bold]{shown(made.branch)}[/] ({made.commit[:12]}, off {shown(made.base)})"
        out.print(f"committed on branch {where}; the working tree was not changed")
        out.print(f"pull request: {shown(made.url)}" if made.url else f"[yellow]{shown(made.note)}[/]")
    if outcome.applied:
        out.print(
            f"applied to {len(outcome.changed_files)} file(s): {shown(', '.join(outcome.changed_files))}"
        )
    elif outcome.pull_request is not None:
        pass
    elif outcome.patch and attempt.resolved and dry_run:
        out.print("[dim]dry run: the project was not changed[/]")
    elif outcome.patch and not outcome.conflict:
        out.print("[dim]the project was not changed (the final build failed)[/]")
    out.print(f"[dim]trajectory: {shown(outcome.trajectory_path)}[/]")


def print_patch(out: Console, patch: str) -> None:
    """The patch, coloured with its controls spelled out on a terminal; byte for byte anywhere else.

    A model writes the patch: on a terminal its escape sequences could hide lines from the review,
    and so could a long line cut at the terminal's width (a soft-wrapping console crops syntax), so
    long lines are wrapped. Piped or redirected, the patch is kept exact so that `git apply` takes it
    (rich would expand its tabs).
    """
    if out.is_terminal:
        out.print(Syntax(visible(patch), "diff", theme="ansi_dark", word_wrap=True), soft_wrap=False)
        return
    out.file.write(patch if patch.endswith("\n") else patch + "\n")
    out.file.flush()
