"""Detect a project's build system and run its build: the entry point of the build layer."""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from buildfixer.buildsys import gradle, maven, npm, python
from buildfixer.buildsys.jdk import Jdk, default_jdk, find_jdk
from buildfixer.buildsys.jdk_pin import choose_jdk
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.plan import missing_submodules
from buildfixer.buildsys.runner import BuildStep, RunResult, kill_owned, read_tail, run_steps
from buildfixer.buildsys.sandbox.backends import SANDBOX_GIT_ENV, confinement_for, get_sandbox
from buildfixer.buildsys.sandbox.egress import proxy_environment
from buildfixer.buildsys.sandbox.identity import hand_over, lent
from buildfixer.buildsys.sandbox.keeper import kept_session, stop_keepers
from buildfixer.buildsys.sandbox.limits import sandbox_limits
from buildfixer.buildsys.sandbox.session import (
    SESSION_LOST,
    SandboxSession,
    Session,
    close_sessions,
    session_for,
)
from buildfixer.buildsys.sandbox.variables import build_environment
from buildfixer.buildsys.slots import build_slot
from buildfixer.core.build_result import BuildResult, Status
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.protocols import BuildSystem, Confinement

# Detection order matters for mixed repositories: a React Native app has package.json at the
# root and Gradle under android/; a Gradle or Maven file at the root wins.
SYSTEMS: dict[str, BuildSystem] = {system.name: system for system in (gradle, maven, python, npm)}
JVM_SYSTEMS = ("gradle", "maven")


def detect_build_system(project: Path, system: str | None = None) -> str:
    """Name of the project's build system (`system` when given and present); BuildfixerError otherwise.

    A project may have two (pom.xml beside build.gradle): `system` chooses, else the first found in
    SYSTEMS' order.
    """
    if not project.is_dir():
        raise BuildfixerError(f"not a directory: {project}")
    if system is not None:
        if system not in SYSTEMS:
            raise BuildfixerError(f"unknown build system {system!r} (known: {', '.join(SYSTEMS)})")
        requirements_only = system == "python" and python.detect_requirements_only(project)
        if not SYSTEMS[system].detect(project) and not requirements_only:
            raise BuildfixerError(f"--system {system}: no {system} build in {project}")
        return system
    for name, module in SYSTEMS.items():
        if module.detect(project):
            return name
    if python.detect_requirements_only(project):
        return "python"
    nested = [p.name for p in nested_projects(project)]
    hint = f"; builds one level down: {', '.join(nested)} (pass one as PATH)" if nested else ""
    raise BuildfixerError(
        f"no recognisable build in {project} (looked for build.gradle[.kts], settings.gradle[.kts], "
        f"pom.xml, pyproject.toml, setup.py, setup.cfg, package.json, requirements.txt){hint}"
    )


def nested_projects(project: Path) -> list[Path]:
    """Buildable directories one level below a root that has no build of its own.

    Samples and repositories holding several variants look like this; hidden and vendored
    directories are skipped.
    """
    children = sorted(project.iterdir()) if project.is_dir() else []
    return [
        child
        for child in children
        if child.is_dir()
        and not child.name.startswith(".")
        and child.name != "node_modules"
        and any(module.detect(child) for module in SYSTEMS.values())
    ]


def resolve_jdk(version: int | None) -> Jdk | None:
    """The JDK to build with: the requested major version, else the machine's default."""
    return find_jdk(version) if version is not None else default_jdk()


def build_project(
    project: Path, options: BuildOptions | None = None, system: str | None = None
) -> BuildResult:
    """Run the project's build and return the verdict (errors are read later by the logs layer).

    A Gradle or Maven build runs on `options.jdk`, else on the JDK the project's version files pin
    (`.java-version`, `.tool-versions`, `.sdkmanrc`: `jdk_pin.choose_jdk`), else on the default JDK.

    Raises:
        BuildfixerError: no recognisable build, unknown system, or a JDK that is not installed.
    """
    options = options or BuildOptions()
    project = project.resolve()
    name = system or detect_build_system(project)
    if name not in SYSTEMS:
        raise BuildfixerError(f"unknown build system {name!r} (known: {', '.join(SYSTEMS)})")
    # A JVM build runs on the JDK named, else on the one the project's version files pin (jdk_pin).
    choice = choose_jdk(project, options.jdk) if name in JVM_SYSTEMS else None
    jdk = choice.jdk if choice is not None else resolve_jdk(options.jdk) if options.jdk is not None else None
    plan = SYSTEMS[name].plan(project, options, jdk)
    state = options.state_for(project)
    log_path = (
        options.log_path or state / "logs" / f"build-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    )
    argvs = [list(step.argv) for step in plan.steps]  # reported without the sandbox wrapper
    env = build_environment(options.extra_env, plan.env)
    owner = options.owner_token(project)
    with contextlib.ExitStack() as stack:
        session = None
        if options.sandbox != "none":
            confinement = confinement_for(project, options)
            env = sandbox_environment(env, confinement)
            # Warm: one sandbox for all builds of the project, its daemon stays warm inside. Cold:
            # a sandbox of its own for this build, closed after it; nothing outlives it.
            session = stack.enter_context(sandbox_session(project, options, confinement, warm=options.warm))
        with build_slot(options.cache_dir, options.max_builds):
            run = run_steps(
                plan.steps, cwd=project, env=env, log_path=log_path, timeout_s=options.timeout_s, owner=owner,
                session=session, stall_s=options.stall_s,
            )  # fmt: skip
    if not options.warm:
        stop_daemons(project, options)  # cold protocol: nothing outlives the build, no warm sandbox either
    succeeded = len(run.steps_run) - (0 if run.exit_code == 0 else 1)
    for step in plan.steps[:succeeded]:
        for stamp, value in step.stamps.items():  # e.g. dependencies installed: reusable next time
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(value)
    # The command that decided the verdict: the failing step, else the main (last) one.
    command = argvs[len(run.steps_run) - 1] if run.failed_step and run.steps_run else list(plan.command)
    status: Status = "timeout" if run.timed_out else "success" if run.exit_code == 0 else "failure"
    if run.exit_code in (127, SESSION_LOST) and run.failed_step:
        status = "error"  # the build tool could not be started, or its sandbox died under it
    environment = {
        **plan.tools,
        "os": f"{platform.system()} {platform.release()}",
        "java_home": jdk.path if jdk else "",
        "offline": str(options.offline).lower(),
        "warm": str(options.warm).lower(),
        "sandbox": options.sandbox,
    }
    notes = [choice.note] if choice is not None and choice.note else []
    notes += plan.notes
    if choice is not None and choice.pinned and choice.pin is not None:
        environment["jdk_pin"] = choice.pin.file  # the JDK came from this version file
    if submodules := missing_submodules(project):
        notes.append(f"git submodules not checked out (the build may need them): {', '.join(submodules)}")
    if run.limit:
        environment["limit"] = run.limit
        notes.append(f"the sandbox reached its limit of {sandbox_limits().describe(run.limit)}")
    if notes:
        environment["notes"] = "; ".join(notes)
    return BuildResult(
        status=status,
        exit_code=run.exit_code,
        duration_s=run.duration_s,
        build_system=name,
        command=command,
        jdk=jdk.version if jdk else None,
        log_path=str(log_path),
        environment=environment,
        output_tail=read_tail(log_path),  # capped: the full output stays in the log file
    )


def sandbox_environment(env: dict[str, str], confinement: Confinement) -> dict[str, str]:
    """A build's environment as the sandbox needs it: its HOME and /tmp, git, the registries' proxy."""
    env = {**env, "HOME": confinement.home, "TMPDIR": "/tmp", **SANDBOX_GIT_ENV}
    return proxy_environment(env) if confinement.network else env


@contextlib.contextmanager
def sandbox_session(
    project: Path, options: BuildOptions, confinement: Confinement, warm: bool
) -> Iterator[Session]:
    """The project's sandbox for one build or command, the project writable by the sandbox's user.

    The caches and the sandbox's part of the project's state are handed to that user for good
    (`buildsys.sandbox.identity`); so is a project inside buildfixer's cache directory (a workspace: a
    copy of buildfixer's own), walked again each time for what buildfixer wrote into it since.
    Any other project (the user's folder, built in place) is lent for the block and handed back.
    `warm`: the project's long-lived session (its daemons stay warm): for a project built in
    place, its keeper's, which outlives this command (`buildsys.sandbox.keeper`); for a workspace
    of buildfixer's, this process's. Otherwise a session of its own, closed at the end.
    """
    ours = project.resolve().is_relative_to(options.cache_dir.resolve())
    kept = warm and not ours
    session: Session | None = None
    if kept:  # a keeper already running has this very sandbox: nothing to check or make again
        session = kept_session(project.resolve(), confinement, options.cache_dir, start=False)
    prefix = [] if session else get_sandbox(options.sandbox).wrap([], confinement)  # bubblewrap works?
    for folder in confinement.writable:
        if folder != project:  # large, and written by sandboxes: walked once per process
            hand_over(folder, once=True)
    if ours:
        hand_over(project)
    if session is None and kept:
        session = kept_session(project.resolve(), confinement, options.cache_dir)
    if session is None:
        writable = confinement.writable
        session = session_for(project, prefix, writable) if warm else SandboxSession(prefix, writable)
    try:
        with contextlib.nullcontext() if ours else lent(project):
            yield session
    finally:
        if not warm:
            session.close()


def run_in_sandbox(
    project: Path, options: BuildOptions, argv: list[str], *, env: dict[str, str], log_path: Path,
    timeout_s: float, owner: str, confinement: Confinement | None = None,
) -> RunResult:  # fmt: skip
    """One command in the project's folder, in a sandbox of its own (unless the options say none).

    `confinement` narrows what the command reaches (the shell tool's: no git history, no daemon
    registry) and is always enforced, whatever the options say; it defaults to a build's. The
    command's output goes to `log_path`.
    """
    step = [BuildStep(argv, label=" ".join(argv))]
    if confinement is not None:
        options = replace(options, sandbox="bubblewrap")
    elif options.sandbox == "none":
        return run_steps(
            step, cwd=project, env=env, log_path=log_path, timeout_s=timeout_s, owner=owner,
            stall_s=options.stall_s,
        )  # fmt: skip
    confinement = confinement or confinement_for(project, options)
    with sandbox_session(project, options, confinement, warm=False) as session:
        return run_steps(
            step, cwd=project, env=sandbox_environment(env, confinement), log_path=log_path,
            timeout_s=timeout_s, owner=owner, session=session, stall_s=options.stall_s,
        )  # fmt: skip


def stop_daemons(project: Path, options: BuildOptions | None = None) -> int:
    """Stop every process (Gradle daemons included) that builds of this project left running.

    Returns the number of processes and sandbox sessions stopped.
    """
    options = options or BuildOptions()
    project = project.resolve()
    stopped = close_sessions(project) + stop_keepers(project, options.cache_dir)
    return stopped + kill_owned(options.owner_token(project), grace_s=5.0)


def discard_state(state: Path) -> None:
    """Remove a finished workspace's build state (venv, daemon registry) but keep its build logs.

    The logs stay because a trajectory or a triage record points at them; a venv per run would pile up.
    """
    if not state.is_dir():
        return
    for entry in state.iterdir():
        if entry.name == "logs":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
