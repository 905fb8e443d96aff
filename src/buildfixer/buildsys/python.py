"""Python builds: install into a throwaway venv, byte-compile, run the tests if there are any."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tomllib
import urllib.parse
from pathlib import Path
from typing import Any

from buildfixer.buildsys import test_requirements
from buildfixer.buildsys.jdk import Jdk
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.plan import Plan, files_digest, stamp_matches
from buildfixer.buildsys.runner import BuildStep
from buildfixer.buildsys.sandbox.egress import expose_loopback
from buildfixer.core import confined

name = "python"  # this module is a core.protocols.BuildSystem: name, detect, plan

MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
_REQUIREMENTS = ["requirements.txt", "requirements-dev.txt", "requirements-test.txt", "test-requirements.txt"]
_DEPENDENCY_FILES = ["pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "tox.toml", *_REQUIREMENTS]
# Never byte-compile these: environments, outputs, VCS and tool caches.
_COMPILE_EXCLUDE = r"(^|/)(\.[^/]+|venv|env|build|dist|node_modules|__pycache__)(/|$)"


def detect(project: Path) -> bool:
    """A Python project has pyproject.toml, setup.py or setup.cfg at its root."""
    return any((project / name).is_file() for name in MARKERS)


def detect_requirements_only(project: Path) -> bool:
    """Weaker sign, checked after every other system: only a requirements file (scripts, apps)."""
    return any((project / name).is_file() for name in _REQUIREMENTS)


def _pyproject(project: Path) -> dict[str, Any] | None:
    """pyproject.toml as a table; None when absent or not valid TOML (pip will report that)."""
    text = confined.try_read_text(project, "pyproject.toml")
    try:
        return tomllib.loads(text) if text is not None else None
    except tomllib.TOMLDecodeError:
        return None


def installable(project: Path) -> bool:
    """Whether `pip install .` makes sense.

    It does with setup.py/setup.cfg or a pyproject that declares a project or a build backend;
    a pyproject holding only tool settings (ruff, pytest) is no package.
    """
    if (project / "setup.py").is_file() or (project / "setup.cfg").is_file():
        return True
    data = _pyproject(project)
    if data is None:
        return (project / "pyproject.toml").is_file()  # broken TOML: let pip say so
    return "project" in data or "build-system" in data


def has_tests(project: Path) -> bool:
    """Tests exist when there is a tests/ or test/ directory or test_*.py / *_test.py files."""
    if (project / "tests").is_dir() or (project / "test").is_dir():
        return True
    return any(project.glob("test_*.py")) or any(project.glob("*_test.py"))


def plan(project: Path, options: BuildOptions, jdk: Jdk | None) -> Plan:
    """Venv → pip install (deps only when they changed, in warm mode) → compileall → pytest.

    With `options.as_of` (and online), every install of requirements, the project's dependencies
    and the test tools goes to `dated_index`, a local index that lists only the files uploaded
    before it (`--index-url`); pip hands that index on to the installs of build dependencies in
    its build isolation (setuptools, wheel...). Those steps run without find-links and extra
    indexes (`PIP_FIND_LINKS`, `PIP_EXTRA_INDEX_URL` emptied: pip then ignores them), whose files
    would pass undated. The project is built and installed non-editable from that dated world,
    then reinstalled editable without its dependencies (`--no-deps -e .`) from the usual index
    by today's build backend: setuptools before 64 (Aug 2022) has no PEP 660 hook.
    """
    state = options.state_for(project)
    as_of = options.as_of_utc()
    venv = options.sandbox_state_for(project) / "venv"
    python = str(venv / "bin" / "python")
    tests = has_tests(project)
    # What the tests need: only installed when there are tests to run.
    declared = test_requirements.collect(project) if tests else test_requirements.Declared()
    # pytest joins the same install (free when an extra, group or tox already brings it).
    more = [*declared.requirements, *(["pytest"] if tests and not declared.has("pytest") else [])]
    # The warm-state key: the files (those `-r`/`-c` lines name too), and what we make of them
    # (which may change with buildfixer).
    files = files_digest(project, list(dict.fromkeys([*_DEPENDENCY_FILES, *declared.files])))
    key = [files, ",".join(declared.extras), *more, *([f"as-of={as_of}"] if as_of else [])]
    digest = hashlib.sha256("\0".join(key).encode()).hexdigest()
    stamp = state / "venv-deps.sha256"
    reuse = options.warm and (venv / "bin" / "python").exists() and stamp_matches(stamp, digest)
    if not reuse:
        shutil.rmtree(venv, ignore_errors=True)
        stamp.unlink(missing_ok=True)
    pip = [python, "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"]
    if options.offline:
        pip.append("--no-index")
    package = installable(project)
    steps: list[BuildStep] = []
    if not reuse:
        steps.append(
            BuildStep([sys.executable, "-m", "venv", str(venv)], label=f"python -m venv {venv.name}")
        )
        # The dated index (a server) starts only when something will be installed from it.
        dated, dated_env = _dated_index(as_of, options) if as_of and not options.offline else ([], {})
        for req in _REQUIREMENTS:
            if (project / req).is_file():
                steps.append(BuildStep([*pip, *dated, "-r", req], env=dict(dated_env)))
        target = f".[{','.join(declared.extras)}]" if declared.extras else "."
        if package and dated:
            # Dated build backends predate PEP 660 editables: build from the dated world, then
            # swap in an editable copy built by today's backend, dependencies untouched.
            steps.append(BuildStep([*pip, *dated, target, *more], env=dict(dated_env)))
            steps.append(BuildStep([*pip, "--no-deps", "-e", "."]))
        elif package:
            # Editable: tracebacks then point at the project's own files, where a fix goes.
            steps.append(BuildStep([*pip, "-e", target, *more]))
        elif more:
            steps.append(BuildStep([*pip, *dated, *more], env=dict(dated_env)))
        steps[-1].stamps[stamp] = digest  # installation complete: a warm build may reuse it
    steps.append(BuildStep([python, "-m", "compileall", "-q", "-x", _COMPILE_EXCLUDE, "."]))
    if tests:
        steps.append(BuildStep([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]))
    env = {
        "PIP_CACHE_DIR": str(options.shared_cache("pip")),
        "VIRTUAL_ENV": str(venv),
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "200",  # pytest cuts its summary lines to the terminal width
    }
    tools = {"python": sys.version.split()[0]}
    notes = [f"test requirements: {note}" for note in declared.notes]
    if as_of and not options.offline:
        then = ", then the project editable with today's build backend" if package else ""
        notes.append(
            f"dependencies as of {as_of}: pip sees only files uploaded before it, through a local "
            f"index, without find-links{then}"
        )
    elif as_of:
        notes.append(f"as_of {as_of} has no effect offline: local wheels carry no upload date")
    return Plan("python", steps, env, tools, notes)


def _dated_index(as_of: str, options: BuildOptions) -> tuple[list[str], dict[str, str]]:
    """The pip arguments and step environment that install only what was uploaded before `as_of`.

    Empty `PIP_FIND_LINKS` and `PIP_EXTRA_INDEX_URL` make pip ignore those variables (a wheel
    directory or a second index would pass undated); `no_proxy` keeps pip from sending its
    requests to the local index through an HTTP proxy. Not covered: `find-links` or
    `extra-index-url` in a pip configuration file, and such options inside requirements files.
    """
    from buildfixer.buildsys import dated_index  # an HTTP server and client: only a dated build needs them

    url = dated_index.index_url(as_of, options.cache_dir, options.extra_env.get("PIP_INDEX_URL"))
    trusted = {}
    if options.sandbox != "none":  # the sandbox has a loopback of its own: reach ours via the proxy
        url = expose_loopback(url)
        trusted = {"PIP_TRUSTED_HOST": urllib.parse.urlsplit(url).hostname or ""}  # plain http, not loopback
    inherited = {**os.environ, **options.extra_env}
    no_proxy = inherited.get("no_proxy") or inherited.get("NO_PROXY")
    env = {
        "PIP_FIND_LINKS": "",
        "PIP_EXTRA_INDEX_URL": "",
        "no_proxy": f"{no_proxy},127.0.0.1" if no_proxy else "127.0.0.1",
    }
    return ["--index-url", url], {**env, **trusted}
