"""Python builds: install into a throwaway venv, byte-compile, run the tests if there are any."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from buildfixer.build.jdk import Jdk
from buildfixer.build.options import BuildOptions
from buildfixer.build.plan import Plan, files_digest, stamp_matches
from buildfixer.build.runner import Step

MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
_DEPENDENCY_FILES = ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "requirements-dev.txt"]
_TEST_EXTRAS = ("test", "tests", "testing", "dev")
# Never byte-compile these: environments, outputs, VCS and tool caches.
_COMPILE_EXCLUDE = r"(^|/)(\.[^/]+|venv|env|build|dist|node_modules|__pycache__)(/|$)"


def detect(project: Path) -> bool:
    """A Python project has pyproject.toml, setup.py or setup.cfg at its root."""
    return any((project / name).is_file() for name in MARKERS)


def _test_extra(project: Path) -> str | None:
    """The optional-dependencies group that holds the test tools, if the project declares one."""
    text = ""
    for name in ("pyproject.toml", "setup.cfg", "setup.py"):
        path = project / name
        if path.is_file():
            text += path.read_text(errors="replace")
    for extra in _TEST_EXTRAS:
        if re.search(rf"^\s*['\"]?{extra}['\"]?\s*[=:]", text, re.MULTILINE):
            return extra
    return None


def has_tests(project: Path) -> bool:
    """Tests exist when there is a tests/ or test/ directory or test_*.py / *_test.py files."""
    if (project / "tests").is_dir() or (project / "test").is_dir():
        return True
    return any(project.glob("test_*.py")) or any(project.glob("*_test.py"))


def plan(project: Path, options: BuildOptions, jdk: Jdk | None) -> Plan:
    """Venv → pip install (deps only when they changed, in warm mode) → compileall → pytest."""
    state = options.state_for(project)
    venv = state / "venv"
    python = str(venv / "bin" / "python")
    digest = files_digest(project, _DEPENDENCY_FILES)
    stamp = state / "venv-deps.sha256"
    reuse = options.warm and (venv / "bin" / "python").exists() and stamp_matches(stamp, digest)
    if not reuse:
        shutil.rmtree(venv, ignore_errors=True)
        stamp.unlink(missing_ok=True)
    pip = [python, "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off"]
    if options.offline:
        pip.append("--no-index")
    extra = _test_extra(project)
    # Editable: tracebacks then point at the project's own files, which is where a fix goes.
    target = f".[{extra}]" if extra else "."
    steps: list[Step] = []
    if not reuse:
        steps.append(Step([sys.executable, "-m", "venv", str(venv)], label=f"python -m venv {venv.name}"))
        for req in ("requirements.txt", "requirements-dev.txt"):
            if (project / req).is_file():
                steps.append(Step([*pip, "-r", req]))
        steps.append(Step([*pip, "-e", target]))
        if has_tests(project) and not extra:
            steps.append(Step([*pip, "pytest"]))
        steps[-1].stamps[stamp] = digest  # installation complete: a warm build may reuse it
    steps.append(Step([python, "-m", "compileall", "-q", "-x", _COMPILE_EXCLUDE, "."]))
    if has_tests(project):
        steps.append(Step([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]))
    env = {
        "PIP_CACHE_DIR": str(options.cache_dir / "pip"),
        "VIRTUAL_ENV": str(venv),
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "200",  # pytest cuts its summary lines to the terminal width
    }
    tools = {"python": sys.version.split()[0]}
    return Plan("python", steps, env, tools)
