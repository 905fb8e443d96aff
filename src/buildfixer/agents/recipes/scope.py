"""Where an import is used: test code only, or the program itself.

A dependency's scope follows its users. The file an error names is one user, often not the
only one: pytest reports the test module it was collecting, a bundler the first file it
resolved. So the project's sources are searched for every file importing the package; it is
a test dependency only when each of them is test code (and the error's file, if named, is too).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from buildfixer.core import confined
from buildfixer.core.file_kinds import is_test
from buildfixer.deps import manage as deps

_PY_SOURCES = (".py",)
_JS_SOURCES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".vue", ".svelte")
_JS_SKIP = {"coverage", ".next", ".nuxt", "lib-cov", "vendor"}
_MAX_FILES = 20_000
_MAX_BYTES = 512_000


def _sources(project: Path, suffixes: tuple[str, ...], skip: set[str]) -> list[str]:
    """Project-relative paths of source files (outputs, environments, vendored code left out)."""
    found: list[str] = []
    for dirpath, dirs, files in os.walk(project):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in deps.SKIP_DIRS and d not in skip]
        for name in files:
            if name.endswith(suffixes):
                found.append(Path(dirpath, name).relative_to(project).as_posix())
                if len(found) >= _MAX_FILES:
                    return found
    return found


def _importers(
    project: Path, pattern: re.Pattern[str], suffixes: tuple[str, ...], skip: set[str]
) -> list[str]:
    found: list[str] = []
    for rel in _sources(project, suffixes, skip):
        text = confined.try_read_text(project, rel, _MAX_BYTES)  # None: too large, or a link out
        if text is not None and pattern.search(text):
            found.append(rel)
    return found


def only_tests_use(importers: list[str], named: str | None) -> bool:
    """Test scope: every importer is test code; no importer found -> the error's file decides."""
    files = [*importers, *([named] if named else [])]
    return bool(files) and all(is_test(f) for f in files)


def python_importers(project: Path, module: str) -> list[str]:
    """Files importing a module (`import yaml`, `from yaml.x import y`, `import a, yaml`)."""
    top = re.escape(module.split(".")[0])
    pattern = re.compile(
        rf"^[ \t]*(?:from[ \t]+{top}(?:\.[\w.]+)?[ \t]+import\b|import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*{top}\b)",
        re.MULTILINE,
    )
    return _importers(project, pattern, _PY_SOURCES, set())


def npm_importers(project: Path, name: str) -> list[str]:
    """Files importing an npm package or a path inside it (`require('x')`, `from 'x/y'`, `import('x')`)."""
    quoted = re.escape(name)
    pattern = re.compile(
        rf"(?:\brequire\s*\(\s*|\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|/// <reference types=)"
        rf"['\"]{quoted}(?:/[^'\"]*)?['\"]"
    )
    return _importers(project, pattern, _JS_SOURCES, _JS_SKIP)
