"""Options of a build and the directories buildfixer keeps outside projects."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root


def parse_as_of(value: str) -> datetime:
    """An ISO 8601 timestamp ("2022-03-01T12:00:00Z", "2022-03-01") as an aware UTC datetime.

    A timestamp without a zone is taken as UTC.

    Raises:
        BuildfixerError: not an ISO 8601 date or timestamp.
    """
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise BuildfixerError(
            f"as_of must be an ISO 8601 UTC timestamp such as 2022-03-01T12:00:00Z, not {value!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


@dataclass
class BuildOptions:
    """How to run a build. Defaults suit a developer's machine; the benchmark sets them all.

    Attributes:
        jdk: Major Java version to build with; None uses the default JDK.
        timeout_s: Wall-clock limit for the whole build; the process tree is killed after it.
        offline: Forbid network access of the build tool (Gradle --offline, mvn -o, npm --offline,
            pip --no-index).
        tasks: Override the default tasks/goals/scripts (Gradle tasks, Maven goals, npm scripts).
        warm: Keep warm tooling between builds of the same project: the Gradle daemon, the Python
            venv when dependencies did not change, node_modules when the lockfile did not change.
            False gives the cold protocol: no daemon, fresh environments, `clean` first.
        cache_dir: Shared dependency caches (Gradle user home, Maven repository, pip and npm caches).
        state_dir: Per-project state outside the project (venv, daemon registry, logs); derived from
            the project path when None.
        log_path: Where the full log goes; inside state_dir when None.
        extra_env: Variables added to the build's environment.
        sandbox: Where every step runs (buildsys.sandbox.SANDBOXES): "bubblewrap" (the default):
            no capabilities, host read-only, only the project, the shared caches and the state
            directory writable, home directories and secrets hidden, no network at all when
            `offline` is set; or "none" (`--no-sandbox`): on the host, unconfined.
        as_of: Build with the dependencies as they were at this moment, an ISO 8601 UTC timestamp
            ("2022-03-01T12:00:00Z"), to replay old commits; None builds with today's. pip only
            considers files uploaded before it (build dependencies included), npm without a
            lockfile installs with `--before`. Maven and Gradle builds are unaffected: their
            coordinates are pinned, and `buildfixer.deps.asof.pin_dynamic_versions` rewrites
            the dynamic ones (ranges, `1.+`, SNAPSHOTs) when the caller runs it first.
        max_builds: At most this many builds at once on this machine with this cache directory
            (buildsys.slots; every process counts); None: no cap. Waiting is not build time.
    """

    jdk: int | None = None
    timeout_s: float = 1800.0
    offline: bool = False
    tasks: list[str] | None = None
    warm: bool = True
    cache_dir: Path = field(default_factory=cache_root)
    state_dir: Path | None = None
    log_path: Path | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    sandbox: str = "bubblewrap"
    as_of: str | None = None
    max_builds: int | None = None

    def state_for(self, project: Path) -> Path:
        """The state directory of a project: explicit, or keyed by its absolute path."""
        if self.state_dir is not None:
            return self.state_dir
        key = hashlib.sha256(str(project.resolve()).encode()).hexdigest()[:16]
        return self.cache_dir / "state" / f"{project.resolve().name}-{key}"

    @property
    def gradle_home(self) -> Path:
        """The Gradle user home builds with these options use.

        Unsandboxed builds get one of their own: Gradle processes on one home take turns on its
        locks by pinging each other on loopback, which a sandbox's network namespace does not share
        with the host's (each side would wait a minute and fail); and nothing a sandboxed build
        wrote into its caches then ever runs outside a sandbox.
        """
        return self.cache_dir / ("gradle" if self.sandbox != "none" else "gradle-unsandboxed")

    def as_of_utc(self) -> str | None:
        """`as_of` normalized to "YYYY-MM-DDTHH:MM:SSZ" (what pip and npm are given); None when unset.

        Raises:
            BuildfixerError: `as_of` is not an ISO 8601 timestamp.
        """
        if self.as_of is None:
            return None
        return parse_as_of(self.as_of).strftime("%Y-%m-%dT%H:%M:%SZ")

    def owner_token(self, project: Path) -> str:
        """Tag for every process of this project's builds (see runner.kill_owned)."""
        return self.state_for(project).name
