"""Options of a build and the directories buildfixer keeps outside projects."""

from __future__ import annotations

import hashlib
import os
import re
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


def domain_folder(domain: str) -> str:
    """A trust domain's folder name: readable, and unique by a digest of the whole name."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", domain.rsplit("/", 1)[-1]).strip("-.")[:40] or "domain"
    return f"{readable}-{hashlib.sha256(domain.encode()).hexdigest()[:12]}"


def cache_domain(default: str) -> str | None:
    """The trust domain whose caches a build uses: `default` (a project's, an instance's).

    `BUILDFIXER_CACHE_DOMAIN` names another; `shared` gives None: every build that leaves its
    domain to this shares one set of caches (for projects the user trusts alike).
    """
    chosen = os.environ.get("BUILDFIXER_CACHE_DOMAIN", "").strip()
    if chosen == "shared":
        return None
    return chosen or default


def project_domain(project: Path) -> str | None:
    """The cache domain of builds of a project folder: the folder itself.

    Never its `.git`, which the project writes: a hostile one would name another project's remote.
    """
    return cache_domain(f"path:{project.resolve()}")


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
        sandbox: Where every step runs (buildsys.sandbox.backends.SANDBOXES): "bubblewrap" (the default):
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
        stall_s: Stop a step that printed nothing and used (almost) no CPU for this long: a build
            waiting forever (a lockfile npm cannot reconcile, a prompt, a dead lock holder) would
            otherwise cost the whole `timeout_s` (buildsys.activity); None never does.
        trust_domain: Whose dependency caches the build uses (`shared_cache`): builds of one
            domain share caches, other domains never see them. The commands set it per project
            (`fix` and `build`: the project's folder; `bench`: the instance's repository);
            None shares the caches of every build that leaves it unset (trusted code only).
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
    trust_domain: str | None = None
    stall_s: float | None = 300.0

    def state_for(self, project: Path) -> Path:
        """The state directory of a project: explicit, or keyed by its absolute path.

        buildfixer's own part of it (logs, warm-state stamps) is never visible to a sandbox;
        what builds may write lives in `sandbox_state_for`, a folder inside it.
        """
        if self.state_dir is not None:
            return self.state_dir
        key = hashlib.sha256(str(project.resolve()).encode()).hexdigest()[:16]
        return self.cache_dir / "state" / f"{project.resolve().name}-{key}"

    def sandbox_state_for(self, project: Path) -> Path:
        """The part of a project's state its builds write (venv, daemon registry, corepack's shims).

        The only part a sandbox sees: buildfixer reads and writes its own files (logs, stamps)
        in the folder above, where a link planted by a build can never be.
        """
        return self.state_for(project) / "sandbox"

    def shared_cache(self, name: str) -> Path:
        """A dependency cache (`gradle`, `m2`, `npm`, `pip`, ...) of the builds of this trust domain.

        What a build writes there (a jar, a package, a Gradle distribution) is used by the next
        build that reads it: sharing a cache is trusting every build that writes it. So each
        trust domain has caches of its own, under `domains/`, and unsandboxed builds
        (`--no-sandbox`) have their own too: nothing a sandboxed build wrote ever runs outside a
        sandbox. For Gradle there is one more reason: Gradle processes on one home take turns on
        its locks by pinging each other on loopback, which a sandbox's network namespace does not
        share with the host's (each side would wait a minute and fail).
        """
        if self.sandbox == "none":
            return self.cache_dir / f"{name}-unsandboxed"
        if self.trust_domain is None:
            return self.cache_dir / name
        return self.cache_dir / "domains" / domain_folder(self.trust_domain) / name

    @property
    def gradle_home(self) -> Path:
        """The Gradle user home builds with these options use."""
        return self.shared_cache("gradle")

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
