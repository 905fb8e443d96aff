"""Run a build step inside bubblewrap: the host read-only, only chosen paths writable.

With `network=False` the step also gets its own network namespace (loopback only), which
makes an offline build provably offline. Each step is its own sandbox, so a Gradle daemon
cannot outlive it: sandboxed builds are cold builds.
"""

from __future__ import annotations

from pathlib import Path

from buildfixer.buildsys.plan import executable
from buildfixer.core.errors import BuildfixerError


def sandbox_argv(
    argv: list[str],
    writable: list[Path],
    network: bool,
    hidden: list[Path] | None = None,
    readable: list[Path] | None = None,
) -> list[str]:
    """The bwrap command line that runs argv with only `writable` (and a private /tmp) writable.

    `hidden` directories are replaced by empty ones (home directories, other workspaces), except
    for the `readable` paths inside them, which stay visible read-only (an interpreter or a JDK
    installed under the home directory).
    """
    bwrap = executable("bwrap")
    if bwrap is None:
        raise BuildfixerError("sandboxed builds need bubblewrap (apt-get install bubblewrap)")
    wrapped = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for path in hidden or []:
        if path.is_dir():
            wrapped += ["--tmpfs", str(path)]
    for path in readable or []:
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
