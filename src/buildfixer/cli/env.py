"""The `buildfixer env` commands: the training environment as a service.

Imported at CLI start-up: only typer and core.errors (which cli.main loads anyway) at module
level; the work is in `env.server`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from buildfixer.core.errors import BuildfixerError

env_app = typer.Typer(
    name="env",
    help="The RL environment (reset/step over HTTP for a trainer on other machines).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@env_app.command("serve")
def env_serve(
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on (the endpoint runs builds: expose it on purpose). Clients must "
            "use this name, localhost, or with 0.0.0.0 an IP address or this machine's host name.",
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: a free one, printed).")] = 8765,
    max_envs: Annotated[int, typer.Option(help="Environments open at once.")] = 8,
) -> None:
    """Serve POST /reset, /step and /close (JSON) until interrupted; web pages' requests are refused."""
    from buildfixer.env.server import EnvServer  # lazy: the environment imports the harness

    if not 0 <= port <= 65535:
        raise BuildfixerError(f"--port must be 0-65535, got {port}")
    if max_envs < 1:
        raise BuildfixerError(f"--max-envs must be at least 1, got {max_envs}")
    try:
        server = EnvServer((host, port), max_envs=max_envs, catalog=bundled_catalog)
    except OSError as exc:
        raise BuildfixerError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    typer.echo(f"serving the environment on {server.url} (POST /reset, /step, /close)", err=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close_all()
        server.server_close()


def bundled_catalog(name: str, instance_id: str) -> tuple[dict[str, Any], Path | None]:
    """The rows `env serve` lets a client name: those of the bundled dataset (`"dataset": "bundled"`)."""
    from buildfixer.bench.data import BUNDLED_DATASET
    from buildfixer.bench.dataset import dataset_dir, load_dataset

    if name != "bundled":
        raise BuildfixerError(f"unknown dataset {name[:80]!r} (this server knows: bundled)")
    rows = {row.instance_id: row for row in load_dataset(BUNDLED_DATASET)}
    if instance_id not in rows:
        raise BuildfixerError(f"no instance {instance_id[:80]!r} in the bundled dataset")
    return rows[instance_id].to_dict(), dataset_dir(BUNDLED_DATASET)
