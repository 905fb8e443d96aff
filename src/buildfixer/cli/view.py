"""The `buildfixer view` commands: the run viewer served live (`view RUNDIR...`) or as a site (`view bundle`).

Imported at CLI start-up: only typer and click at module level; the work is in `buildfixer.view`.
`buildfixer view RUNDIR...` is the `serve` command: a first argument that names no command is
taken as a run directory (a directory named `bundle` is written `./bundle`). A trajectory file
(the one `buildfixer fix` prints the path of) may stand for a run directory: a run of one attempt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import click
import typer
from typer.core import TyperGroup


class _ServeByDefault(TyperGroup):
    """A group whose default command is `serve`: `view RUNDIR...` means `view serve RUNDIR...`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["serve", *args]
        return super().parse_args(ctx, args)


view_app = typer.Typer(
    name="view",
    cls=_ServeByDefault,
    help="Browse benchmark runs or fix trajectories: `view RUNDIR...` serves them live; `view bundle` writes "
    "a static site.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

RunDirs = Annotated[
    list[Path],
    typer.Argument(
        help="Run directories of `bench run`, or trajectory files (`fix` prints the path); the first is "
        "run 0 in links."
    ),
]


@view_app.command("serve")
def view_serve(
    rundirs: RunDirs,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: any free port).")] = 8765,
) -> None:
    """Serve the viewer on 127.0.0.1 until Ctrl-C; runs are read afresh on every request.

    The default command: `buildfixer view RUNDIR...` is `buildfixer view serve RUNDIR...`.
    """
    from buildfixer.view.server import serve  # lazy: the viewer reads runs and logs

    def say(line: str) -> None:
        typer.echo(line)

    serve(rundirs, port, say)


@view_app.command()
def bundle(
    rundirs: RunDirs,
    out: Annotated[Path, typer.Option(help="Directory of the site (an earlier bundle there is replaced).")],
) -> None:
    """Write the viewer as a static site that opens from file://, with no network.

    `bundle RUNDIR --out RUNDIR/view` makes the links of the run's HTML report work.
    """
    from buildfixer.view.bundle import write_bundle  # lazy: the viewer reads runs and logs

    written: Any = write_bundle(rundirs, out)
    typer.echo(
        f"wrote {written.out}/index.html: {written.attempts} attempts, {written.instances} instances, "
        f"{written.size / 1e6:.1f} MB"
    )
