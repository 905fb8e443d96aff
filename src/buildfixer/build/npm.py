"""npm builds: install (`npm ci` with a lockfile), then the `build` and `test` scripts."""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from pathlib import Path

from buildfixer.build.jdk import Jdk
from buildfixer.build.options import BuildOptions
from buildfixer.build.plan import Plan, executable, files_digest, stamp_matches
from buildfixer.build.runner import Step
from buildfixer.errors import BuildfixerError

_LOCKFILES = ["package-lock.json", "npm-shrinkwrap.json"]
# `npm init` writes this test script; it always fails and means "no tests".
_PLACEHOLDER_TEST = "no test specified"


def detect(project: Path) -> bool:
    """An npm project has package.json at its root."""
    return (project / "package.json").is_file()


def scripts(project: Path) -> dict[str, str]:
    """The `scripts` of package.json; a package.json that is not JSON is the build's error, not ours."""
    try:
        data = json.loads((project / "package.json").read_text(errors="replace"))
    except (OSError, ValueError):
        return {}
    found = data.get("scripts") if isinstance(data, dict) else None
    return {k: v for k, v in found.items() if isinstance(v, str)} if isinstance(found, dict) else {}


def plan(project: Path, options: BuildOptions, jdk: Jdk | None) -> Plan:
    """Install dependencies (skipped in warm mode when the lockfile is unchanged), then build and test."""
    npm = executable("npm")
    if npm is None:
        raise BuildfixerError("npm is not installed (needed to build a package.json project)")
    has_lock = any((project / name).is_file() for name in _LOCKFILES)
    state = options.state_for(project)
    digest = files_digest(project, ["package.json", *_LOCKFILES])
    stamp = state / "node-modules.sha256"
    common = ["--no-audit", "--no-fund", "--cache", str(options.cache_dir / "npm")]
    if options.offline:
        common.append("--offline")
    steps: list[Step] = []
    installed = (project / "node_modules").is_dir() and stamp_matches(stamp, digest)
    if not (options.warm and installed):
        if not options.warm:
            shutil.rmtree(project / "node_modules", ignore_errors=True)
        steps.append(Step([npm, "ci" if has_lock else "install", *common], stamps={stamp: digest}))
    if options.tasks:  # explicit scripts replace the default build and test
        steps += [Step([npm, "run", task]) for task in options.tasks]
    else:
        available = scripts(project)
        if "build" in available:
            steps.append(Step([npm, "run", "build"]))
        test = available.get("test", "")
        if test and _PLACEHOLDER_TEST not in test:
            steps.append(Step([npm, "test"]))
    if not steps:  # warm, installed, nothing to run: check the installation is still sound
        steps.append(Step([npm, "ls", "--depth=0"]))
    return Plan("npm", steps, {}, {"node": _version("node"), "npm": _version("npm")})


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
