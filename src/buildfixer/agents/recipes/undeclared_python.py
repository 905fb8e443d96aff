"""The "undeclared dependency" recipe for Python projects: `No module named 'x'` -> declare x's distribution.

The distribution is the one a local cache has for the module (`deps.package_index`: site-packages,
build venvs, the pip cache), else a known alias (yaml -> PyYAML); the standard library, build
tools and the project's own modules are no missing dependency. It goes where its users are:
used only by tests, the project's test group (an extra, a PEP 735 group, Poetry's); else the
runtime dependencies; pinned to the version the project's lockfile used, when it has one. A
module no cache knows is the distribution of its name only when the project's git history
declared that distribution (never a guess from an index: `jwt` is not PyJWT).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from buildfixer.agents.recipes.base import Evidence, Repair, project_file, undeclared_repair
from buildfixer.agents.recipes.history import locked_python_version, past_python_declaration
from buildfixer.agents.recipes.scope import only_tests_use, python_importers
from buildfixer.deps import manage as deps
from buildfixer.deps.package_index import distribution_for_module

_PY_MODULE = re.compile(r"No module named '([\w.]+)'")
# Modules whose distribution is named differently (checked on PyPI's side long ago; no guessing).
_PY_ALIASES = {
    "yaml": "PyYAML", "PIL": "Pillow", "cv2": "opencv-python", "sklearn": "scikit-learn",
    "skimage": "scikit-image", "bs4": "beautifulsoup4", "dateutil": "python-dateutil",
    "dotenv": "python-dotenv", "jwt": "PyJWT", "Crypto": "pycryptodome", "OpenSSL": "pyOpenSSL",
    "attr": "attrs", "serial": "pyserial", "git": "GitPython", "zmq": "pyzmq", "docx": "python-docx",
    "magic": "python-magic", "MySQLdb": "mysqlclient", "google.protobuf": "protobuf",
    "jose": "python-jose", "multipart": "python-multipart", "Levenshtein": "python-Levenshtein",
}  # fmt: skip
# Missing in a build backend's environment, not the project's: a build-system requirement.
_BUILD_TOOLS = {"setuptools", "pkg_resources", "distutils", "wheel", "pip", "_distutils_hack"}


def _own_module(project: Path, top: str) -> bool:
    """Whether the project has a module or package of this name anywhere (tests/helpers.py, lib/x/)."""
    for dirpath, dirs, files in os.walk(project):
        if f"{top}.py" in files or (top in dirs and (Path(dirpath) / top / "__init__.py").is_file()):
            return True
        if Path(dirpath) in (project, project / "src") and top in dirs:
            return True  # a namespace package at the usual places
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in deps.SKIP_DIRS]
    return False


def python_dependency(ev: Evidence) -> Repair | None:
    """Declare the distributions of modules Python could not import."""
    notes: list[str] = []
    with deps.staged(ev.project) as stage:
        seen: set[str] = set()
        for error, match in ev.errors_matching(_PY_MODULE):
            module = match.group(1)
            top = module.split(".")[0]
            if (
                top in seen
                or top in sys.stdlib_module_names
                or top in _BUILD_TOOLS
                or _own_module(ev.project, top)
            ):
                continue  # the standard library or the project's own code: not a missing dependency
            seen.add(top)
            dist = distribution_for_module(module, ev.options)
            dist = dist or _PY_ALIASES.get(".".join(module.split(".")[:2])) or _PY_ALIASES.get(top)
            # Never installed here: the distribution of the module's name the project declared before.
            past = past_python_declaration(ev.histories(), [dist or top])
            dist = dist or (past[0] if past else None)
            if dist is None or deps.find_declaration(ev.project, dist):
                continue
            test = only_tests_use(python_importers(ev.project, module), project_file(ev, error.file))
            version = locked_python_version(ev.project, dist)
            # Pinned: the lockfile's is the version the project ran with; else as history wrote it.
            spec = f"=={version}" if version else past[1] if past else None
            edit = deps.add_dependency(ev.project, "python", dist, spec, test)
            if edit is None or not stage.add([edit]):
                continue
            scope = "only tests import it" if test else "the code imports it"
            pinned = f", at {version} as the lockfile has it" if version else ""
            pinned += ", as the project's git history declared it" if past and not version else ""
            notes.append(
                f"`import {module}` needs the distribution {dist}, which is not declared ({scope}): "
                f"add it to {edit.file}{pinned}"
            )
        edits = stage.edits()
    return undeclared_repair(edits, notes)
