"""npm builds: install (`npm ci` with a lockfile), then the `build`, type-check and `test` scripts."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

from buildfixer.buildsys.jdk import Jdk
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.plan import Plan, executable, files_digest, stamp_matches
from buildfixer.buildsys.runner import BuildStep
from buildfixer.core import confined
from buildfixer.core.errors import BuildfixerError

name = "npm"  # this module is a core.protocols.BuildSystem: name, detect, plan

_LOCKFILES = ["package-lock.json", "npm-shrinkwrap.json"]
# Lockfiles of the other package managers, which npm does not read; corepack provides them.
_OTHER_LOCKFILES = {"pnpm-lock.yaml": "pnpm", "yarn.lock": "yarn"}
# `npm init` writes this test script; it always fails and means "no tests".
_PLACEHOLDER_TEST = "no test specified"
# Scripts that only type-check (`tsc --noEmit`), by the names projects give them.
_TYPE_CHECKS = ("typecheck", "type-check", "check-types", "types:check", "check:types", "tsc")


def detect(project: Path) -> bool:
    """An npm project has package.json at its root."""
    return (project / "package.json").is_file()


def type_check_script(available: dict[str, str]) -> str | None:
    """The project's type-check script, when neither its build nor its test runs the type checker.

    Bundlers (esbuild, tsdown, Vite, swc) and ts-jest in isolated mode strip types without checking
    them: a project whose `build` is one of those keeps `tsc --noEmit` in a script of its own, and a
    type error passes `build` and `test` unseen.
    """
    found = next((name for name in _TYPE_CHECKS if name in available), None)
    if found is None:
        return None
    others = " ".join(available.get(name, "") for name in ("build", "test", "prebuild", "pretest"))
    if found in others or re.search(r"(?<![\w-])(?:vue-)?tsc(?![\w-])", others):
        return None  # already run, or the build or test runs tsc itself
    return found


def scripts(project: Path) -> dict[str, str]:
    """The `scripts` of package.json; a package.json that is not JSON is the build's error, not ours."""
    try:
        data = json.loads(confined.try_read_text(project, "package.json") or "{}")
    except ValueError:
        return {}
    found = data.get("scripts") if isinstance(data, dict) else None
    return {k: v for k, v in found.items() if isinstance(v, str)} if isinstance(found, dict) else {}


def package_manager(project: Path) -> str:
    """npm, pnpm or yarn: the `packageManager` field, else the lockfile present, else npm."""
    try:
        data = json.loads(confined.try_read_text(project, "package.json") or "{}")
        declared = data.get("packageManager") if isinstance(data, dict) else None
    except ValueError:
        declared = None
    found = re.match(r"(npm|pnpm|yarn)@", declared) if isinstance(declared, str) else None
    if found:
        return found.group(1)
    if any((project / name).is_file() for name in _LOCKFILES):
        return "npm"
    return next((pm for lock, pm in _OTHER_LOCKFILES.items() if (project / lock).is_file()), "npm")


def plan(project: Path, options: BuildOptions, jdk: Jdk | None) -> Plan:
    """Install dependencies (skipped in warm mode when the lockfile is unchanged), then build and test.

    With `options.as_of`, `npm install` (no lockfile) gets `--before=<as_of>`: every range
    resolves to the newest version the registry's `time` field dates before it. `npm ci`
    installs what the lockfile pins, as of any date. pnpm and yarn (through corepack) get no
    date: their lockfile pins the versions, or the install takes today's (stated in a note).
    """
    npm = executable("npm")
    if npm is None:
        raise BuildfixerError("npm is not installed (needed to build a package.json project)")
    state = options.state_for(project)
    as_of = options.as_of_utc()
    digest = files_digest(project, ["package.json", *_LOCKFILES, *_OTHER_LOCKFILES])
    if as_of:  # another date is another set of versions
        digest = hashlib.sha256(f"{digest}\0as-of={as_of}".encode()).hexdigest()
    stamp = state / "node-modules.sha256"
    manager = package_manager(project)
    steps: list[BuildStep] = []
    env: dict[str, str] = {}
    tools = {"node": _version("node"), "npm": _version("npm")}
    notes: list[str] = []
    corepack = executable("corepack")
    enable: BuildStep | None = None
    if manager != "npm" and corepack is None:
        notes.append(
            f"the project uses {manager}, but corepack is not installed to provide it: "
            f"installed with npm instead, without the {manager} lockfile"
        )
        manager = "npm"
    if manager == "npm":
        run = [npm]
        has_lock = any((project / name).is_file() for name in _LOCKFILES)
        install = [npm, "ci" if has_lock else "install", "--no-audit", "--no-fund"]
        # Without a lockfile, `npm install` would write one into the project: a change to the
        # workspace nobody made, and a new dependency digest that reinstalls on the next build.
        install += [] if has_lock else ["--no-package-lock"]
        install += ["--cache", str(options.shared_cache("npm"))]
        install += ["--offline"] if options.offline else []
        install += [f"--before={as_of}"] if as_of and not has_lock else []
    else:
        assert corepack is not None
        shims_state = options.sandbox_state_for(project)
        enable, run, install, env = _corepack_plan(corepack, manager, shims_state, options)
        tools[manager] = "via corepack"
        notes.append(
            f"the project uses {manager}: installed and run with {manager} through corepack"
            + ("; offline, this needs corepack's copy of it cached" if options.offline else "")
        )
        if as_of:
            notes.append(f"as_of {as_of} is not applied to {manager}: its lockfile, else today, decides")
    installed = (project / "node_modules").is_dir() and stamp_matches(stamp, digest)
    if enable is not None and not (options.warm and installed and Path(run[0]).exists()):
        steps.append(enable)
    if not (options.warm and installed):
        # `npm install` keeps every installed version its range admits: installing as of another
        # date (or today, after a dated install) must start from an empty node_modules.
        dated = state / "node-modules.as-of"
        if not options.warm or (dated.read_text() if dated.is_file() else "") != (as_of or ""):
            shutil.rmtree(project / "node_modules", ignore_errors=True)
            dated.unlink(missing_ok=True)
        steps.append(BuildStep(install, stamps={stamp: digest, **({dated: as_of} if as_of else {})}))
    if options.tasks:  # explicit scripts replace the default build and test
        steps += [BuildStep([*run, "run", task]) for task in options.tasks]
    else:
        available = scripts(project)
        if "build" in available:
            steps.append(BuildStep([*run, "run", "build"]))
        if (check := type_check_script(available)) is not None:
            steps.append(BuildStep([*run, "run", check]))
        test = available.get("test", "")
        if test and _PLACEHOLDER_TEST not in test:
            steps.append(BuildStep([*run, "test"]))
    if not steps:  # warm, installed, nothing to run: check the installation is still sound
        steps.append(BuildStep([npm, "ls", "--depth=0"]))
    # Every npm call (scripts too, not only the install) keeps its cache and debug logs with ours.
    env = {"npm_config_cache": str(options.shared_cache("npm")), **env}
    return Plan("npm", steps, env, tools, notes)


def _corepack_plan(
    corepack: str, manager: str, sandbox_state: Path, options: BuildOptions
) -> tuple[BuildStep, list[str], list[str], dict[str, str]]:
    """Enable step, launcher, install command and environment of a pnpm or yarn project.

    corepack fetches the package manager from the npm registry (once, into our cache) and puts
    a `pnpm`/`yarn` shim on PATH, which the project's own scripts call too.
    """
    shims = sandbox_state / "corepack-bin"
    shims.mkdir(parents=True, exist_ok=True)
    enable = BuildStep([corepack, "enable", "--install-directory", str(shims), manager])
    run = [str(shims / manager)]
    env = {
        "COREPACK_HOME": str(options.shared_cache("corepack")),
        "COREPACK_ENABLE_DOWNLOAD_PROMPT": "0",
        "COREPACK_ENABLE_AUTO_PIN": "0",  # never write `packageManager` into the project
        # The version this corepack knows (and can verify); "latest" may be signed with keys
        # newer than it knows, which fails the download. A `packageManager` field still wins.
        "COREPACK_DEFAULT_TO_LATEST": "0",
        "YARN_CACHE_FOLDER": str(options.shared_cache("yarn")),
        "PATH": f"{shims}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    if options.offline:
        env["COREPACK_ENABLE_NETWORK"] = "0"
    install = [*run, "install"]
    if manager == "pnpm":
        install += ["--frozen-lockfile", "--store-dir", str(options.shared_cache("pnpm-store"))]
        # A node_modules pnpm did not make here (moved, copied, another store) makes it ask before
        # purging; with no terminal to answer, it exits 0 without installing (the build then runs
        # on whatever node_modules held: a false success) or waits forever. It never asks now.
        install.append("--config.confirmModulesPurge=false")
    if options.offline:
        install.append("--offline")
    return enable, run, install, env


@cache
def _version(program: str) -> str:
    path = executable(program)
    if not path:
        return "not installed"
    if program == "npm":  # read package.json instead of starting node (~0.3 s)
        package = Path(path).resolve().parent.parent / "package.json"
        try:
            return str(json.loads(package.read_text()).get("version", "unknown"))
        except (OSError, ValueError):
            pass
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip().lstrip("v") or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"
