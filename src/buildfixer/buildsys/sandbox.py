"""Where build steps and the agent's shell run: the sandbox backends behind `core.protocols.Sandbox`.

`bubblewrap` runs a step with the host read-only and only chosen paths writable; with
`network=False` the step also gets its own network namespace (loopback only), which makes an
offline build provably offline. Each step is its own sandbox, so a Gradle daemon cannot outlive
it: sandboxed builds are cold builds. `none` runs the step as it is. A new backend (a container
engine) is one class here and one entry in `SANDBOXES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from buildfixer.buildsys.plan import executable
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.protocols import Sandbox


class NoSandbox:
    """Runs the step as it is, on the host."""

    name = "none"

    def wrap(
        self, argv: Sequence[str], writable: Sequence[Path], network: bool, hidden: Sequence[Path] = (),
        readable: Sequence[Path] = (),
    ) -> list[str]:  # fmt: skip
        """The command line unchanged."""
        return list(argv)


class Bubblewrap:
    """The host read-only, only `writable` (and a private /tmp) writable, a private PID namespace."""

    name = "bubblewrap"

    def wrap(
        self, argv: Sequence[str], writable: Sequence[Path], network: bool, hidden: Sequence[Path] = (),
        readable: Sequence[Path] = (),
    ) -> list[str]:  # fmt: skip
        """The bwrap command line that runs argv.

        `hidden` directories are replaced by empty ones (home directories, other workspaces),
        except for the `readable` paths inside them, which stay visible read-only (an interpreter
        or a JDK installed under the home directory).
        """
        return _bwrap_argv(list(argv), list(writable), network, list(hidden), list(readable))


SANDBOXES: dict[str, Sandbox] = {backend.name: backend for backend in (NoSandbox(), Bubblewrap())}


def get_sandbox(name: str) -> Sandbox:
    """The backend registered as `name`; BuildfixerError naming the known ones otherwise."""
    try:
        return SANDBOXES[name]
    except KeyError:
        raise BuildfixerError(f"unknown sandbox {name!r} (known: {', '.join(SANDBOXES)})") from None


def _bwrap_argv(
    argv: list[str], writable: list[Path], network: bool, hidden: list[Path], readable: list[Path]
) -> list[str]:
    bwrap = executable("bwrap")
    if bwrap is None:
        raise BuildfixerError("sandboxed builds need bubblewrap (apt-get install bubblewrap)")
    wrapped = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for path in hidden:
        if path.is_dir():
            wrapped += ["--tmpfs", str(path)]
    for path in readable:
        if path.exists():
            wrapped += ["--ro-bind", str(path), str(path)]
    for path in writable:
        path.mkdir(parents=True, exist_ok=True)
        wrapped += ["--bind", str(path), str(path)]
    if not network:
        wrapped.append("--unshare-net")
    # A private PID namespace: when the step ends, everything it started ends with it.
    wrapped += ["--unshare-pid", "--die-with-parent", "--"]
    return wrapped + argv
