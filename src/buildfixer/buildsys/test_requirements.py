"""What a Python project's tests need installed, from every place a project declares it.

`pip install -e .` brings the package's own dependencies; the test tools (pytest plugins, the
libraries fixtures import) are declared elsewhere, in one of many places. They are read in this
order, each place's test-ish entry only, and a requirement named twice is kept where it comes first:

1. the package's extra: `[project.optional-dependencies]`, else setup.cfg's or setup.py's
   `extras_require` (installed as `.[test]`);
2. PEP 735 `[dependency-groups]`, then uv's older `[tool.uv] dev-dependencies` (a `dev` group);
3. PDM's `[tool.pdm.dev-dependencies]`;
4. Poetry's `[tool.poetry.group.<name>.dependencies]` and `[tool.poetry.dev-dependencies]`;
5. Hatch's environments (`[tool.hatch.envs.hatch-test]`, `test`, ... else `default`), their
   `template` followed for `dependencies`, `extra-dependencies` and `features` (extras);
6. tox: tox.ini, setup.cfg, pyproject.toml (`[tool.tox] legacy_tox_ini` or the native
   `[tool.tox.env_run_base]`) and tox.toml, their `deps` and `extras` of the base test environment.

Each place's entry is the first of `TEST_NAMES` it has (Hatch: `hatch-test` first, `default` last).
From a `dev` (or Hatch `default`) entry, tools tests never import (linters, docs) are left out:
old pins of them often no longer install, and would fail the build for nothing.

`-r FILE` lines (tox deps, requirements files) are read here, relative to the file that names them
and only inside the project (through core.confined), and their requirements inlined; `-c FILE`
stays a pip argument (relative to the project root, where pip runs). Tox factor lines
(`cover: pytest-cov`) and substitutions (`{[testenv]deps}`, Hatch's `{root:uri}`, pip's `${VAR}`)
are left out. Anything that cannot be read or understood becomes a note, never an exception.
"""

from __future__ import annotations

import configparser
import posixpath
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buildfixer.buildsys import poetry
from buildfixer.core import confined

# Names of the extras, groups and environments that hold the test tools, preferred first.
TEST_NAMES = ("test", "tests", "testing", "dev")
_HATCH_ENVS = ("hatch-test", *TEST_NAMES, "default")
# Tools of a `dev` entry that tests never import: linters, type checkers, docs, release.
_NOT_FOR_TESTS = re.compile(
    r"(mypy|black|isort|flake8.*|pylint|ruff|pre-commit|tox|nox|sphinx.*|furo|mkdocs.*|twine|"
    r"bump2?version|commitizen|types-.*|ipython|jupyter.*|coverage-badge)",
    re.IGNORECASE,
)
# A tox `deps` line that applies only to some environments: `cover: pytest-cov`, `py{37,38}: x`.
_TOX_FACTOR = re.compile(r"^[\w{},.!-]+:\s")
# A requirement's project name, where one starts it (not a URL: `git+https://`, `https://`).
_NAME = re.compile(r"([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?=[\[(<>=!~;@]|$)")
_OPTION = re.compile(r"(-[rce]|--requirement|--constraint|--editable)(?:\s*=\s*|\s+|(?=\S))(\S+)$")
# The project itself (`.`, `-e .[testing]`): its extras are what such a line asks for.
_SELF = re.compile(r"\./?(?:\[([\w,\s.-]*)\])?")
_MAX_NOTES = 5


@dataclass
class Declared:
    """What a project declares its tests need.

    Attributes:
        extras: The package's extras to install it with (`.[test]`), in order.
        requirements: pip arguments: requirements, and `-c FILE` pairs (paths from the project root).
        files: The project files read for them, relative to the project: a change to any changes them.
        notes: What could not be read or understood, one sentence each.
    """

    extras: list[str] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def has(self, name: str) -> bool:
        """Whether a requirement names the project `name` (any version)."""
        return _key(name) in {_key(r) for r in self.requirements}


def collect(project: Path) -> Declared:
    """The test requirements of the project at `project`, from every place in the module's order."""
    found = _Collector(project)
    data = found.toml("pyproject.toml")
    if data is not None:
        extras = _table(_table(data, "project"), "optional-dependencies")
        found.extras += [name for name in TEST_NAMES if name in extras][:1]
    if not found.extras:
        found.extras += _setup_extra(found)
    if data is not None:
        groups = _table(data, "dependency-groups")
        found.pick({name: _group(groups, name) for name in groups}, "[dependency-groups]")
        uv = _table(_table(data, "tool"), "uv").get("dev-dependencies")
        found.pick({"dev": uv} if isinstance(uv, list) else {}, "[tool.uv] dev-dependencies")
        pdm = _table(_table(_table(data, "tool"), "pdm"), "dev-dependencies")
        found.pick({k: v for k, v in pdm.items() if isinstance(v, list)}, "[tool.pdm.dev-dependencies]")
        found.pick(poetry.groups(data), "[tool.poetry]")
        _hatch(found, _table(_table(_table(data, "tool"), "hatch"), "envs"))
    _tox(found, data)
    return found.result()


def _key(requirement: str) -> str:
    """What makes two requirements the same: the normalized project name and the marker.

    A URL or anything else without a name is only the same as itself.
    """
    name = _NAME.match(requirement)
    if name is None:
        return requirement
    marker = requirement.split(";", 1)[1].split() if ";" in requirement else []
    return f"{re.sub(r'[-_.]+', '-', name.group(1)).lower()};{' '.join(marker)}"


def _table(data: dict[str, Any], name: str) -> dict[str, Any]:
    """`data[name]` when it is a table, else an empty one (a malformed file is pip's to report)."""
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def _group(groups: dict[str, Any], name: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """Requirements of a PEP 735 dependency group, `{include-group = ...}` entries expanded.

    Expanded here because this venv's pip predates `pip install --group`.
    """
    found: list[str] = []
    entries = groups.get(name)
    for item in entries if isinstance(entries, list) and name not in seen else []:
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict) and isinstance(item.get("include-group"), str):
            found += _group(groups, item["include-group"], seen | {name})
    return found


def _setup_extra(found: _Collector) -> list[str]:
    """The test extra of setup.cfg `[options.extras_require]` or setup.py: no parser, a pattern."""
    text = "".join(found.read(name, quiet=True) or "" for name in ("setup.cfg", "setup.py"))
    for extra in TEST_NAMES:
        if re.search(rf"^\s*['\"]?{extra}['\"]?\s*[=:]", text, re.MULTILINE):
            return [extra]
    return []


def _hatch(found: _Collector, envs: dict[str, Any]) -> None:
    """The first Hatch test environment's dependencies, extra dependencies and features (extras)."""
    name = next((n for n in _HATCH_ENVS if isinstance(envs.get(n), dict)), None)
    if name is None:
        return
    found.extras += [f for f in _hatch_option(envs, name, "features") if isinstance(f, str)]
    options = [*_hatch_option(envs, name, "dependencies"), *_hatch_option(envs, name, "extra-dependencies")]
    entries = [d for d in options if isinstance(d, str) and (name != "default" or not _not_for_tests(d))]
    found.lines(entries, "pyproject.toml", f"[tool.hatch.envs.{name}]")


def _hatch_option(envs: dict[str, Any], name: str, key: str) -> list[Any]:
    """A list option of a Hatch environment: its own, else its template's, as Hatch inherits them.

    The template is `default` unless set; a `detached` environment has none, and neither has
    Hatch's own `hatch-test` (its own name is its template).
    """
    env: str | None = name
    seen: set[str] = set()
    while env is not None and env not in seen:
        seen.add(env)
        table = _table(envs, env)
        if key in table:
            value = table[key]
            return value if isinstance(value, list) else []
        parent = table.get("template", env if env == "hatch-test" else "default")
        env = parent if isinstance(parent, str) and not table.get("detached") else None
    return []


def _tox(found: _Collector, pyproject: dict[str, Any] | None) -> None:
    """The `deps` and `extras` of tox's base test environment, from every file tox reads."""
    for name in ("tox.ini", "setup.cfg"):
        text = found.read(name, quiet=True)
        if text is not None and (name == "tox.ini" or re.search(r"^\[testenv\]", text, re.MULTILINE)):
            _tox_ini(found, text, name, name)
    tox = _table(_table(pyproject or {}, "tool"), "tox")
    legacy = tox.get("legacy_tox_ini")
    if isinstance(legacy, str):
        _tox_ini(found, legacy, "pyproject.toml", "pyproject.toml [tool.tox] legacy_tox_ini")
    elif "legacy_tox_ini" in tox:
        found.note("pyproject.toml [tool.tox] legacy_tox_ini is not a string")
    _tox_toml(found, tox, "pyproject.toml", "pyproject.toml [tool.tox.env_run_base]")
    _tox_toml(found, found.toml("tox.toml") or {}, "tox.toml", "tox.toml [env_run_base]")


def _tox_ini(found: _Collector, text: str, file: str, where: str) -> None:
    """`[testenv] deps` and `extras` of a tox configuration in INI form."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
        deps = parser.get("testenv", "deps", fallback="").splitlines()
        extras = parser.get("testenv", "extras", fallback="").splitlines()
    except configparser.Error as exc:
        found.note(f"{where} cannot be parsed ({str(exc).splitlines()[0]})")
        return
    for line in extras:
        if not _TOX_FACTOR.match(line.strip()) and "{" not in line:
            found.extras += [e for e in re.split(r"[\s,]+", line) if e]
    found.lines([line for line in deps if not _TOX_FACTOR.match(line.strip())], file, where, tox=True)


def _tox_toml(found: _Collector, tox: dict[str, Any], file: str, where: str) -> None:
    """`deps` and `extras` of tox's native TOML form (`env_run_base`)."""
    base = tox.get("env_run_base")
    if base is None:
        return
    if not isinstance(base, dict):
        found.note(f"{where} is not a table")
        return
    for key in ("deps", "extras"):
        value = base.get(key, [])
        if not isinstance(value, list):
            found.note(f"{where} {key} is not a list")
            continue
        # Entries other than strings are tox's `{replace = ...}` substitutions.
        entries = [entry for entry in value if isinstance(entry, str)]
        if key == "extras":
            found.extras += entries
        else:
            found.lines(entries, file, where, tox=True)


def _not_for_tests(requirement: str) -> bool:
    """Whether a requirement names a tool tests never import (a linter, a docs builder)."""
    name = _NAME.match(requirement)
    return name is not None and _NOT_FOR_TESTS.fullmatch(name.group(1)) is not None


class _Collector:
    """The requirements found so far, in order, each once; the files read and the notes."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.extras: list[str] = []
        self.requirements: list[str] = []
        self.keys: set[str] = set()
        self.files: list[str] = []
        self.notes: list[str] = []
        self.requirement_files: set[str] = set()  # each read once, so `-r` loops end

    def note(self, text: str) -> None:
        self.notes.append(text)

    def read(self, rel: str, quiet: bool = False) -> str | None:
        """A project file's text, recorded as read; None (and a note, unless `quiet`) when unreadable."""
        self.files.append(rel)
        text = confined.try_read_text(self.project, rel)
        if text is None and not quiet:
            self.note(f"cannot read {rel} (missing, outside the project, or no regular file)")
        return text

    def toml(self, rel: str) -> dict[str, Any] | None:
        """A TOML file of the project as a table; None when absent, or unreadable (noted)."""
        text = self.read(rel, quiet=True)
        if text is None:
            return None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            self.note(f"{rel} is not valid TOML ({exc})")
            return None

    def pick(self, entries: dict[str, list[str]], where: str) -> None:
        """The first test-ish entry of one place (`dev`: without the tools tests never import)."""
        name = next((n for n in TEST_NAMES if n in entries), None)
        if name is not None:
            chosen = [r for r in entries[name] if name != "dev" or not _not_for_tests(r)]
            self.lines(chosen, "pyproject.toml", f"{where} {name}")

    def lines(self, lines: Iterable[str], file: str, where: str, tox: bool = False) -> None:
        """Requirement lines as a requirements file (or tox's `deps`) has them; `file` names them."""
        base = posixpath.dirname(file)
        for raw in lines:
            line = re.split(r"(?:^|\s)#", raw, maxsplit=1)[0].strip()
            if tox:
                line = line.replace("{toxinidir}/", "").replace("{toxinidir}", ".")
            if not line or "{" in line:  # a substitution (tox, Hatch, pip's ${VAR}): not evaluated
                continue
            option = _OPTION.match(line)
            if option is not None:
                self._option(option.group(1), option.group(2), base, where)
            elif self_extras := _SELF.fullmatch(line):
                self.extras += [e.strip() for e in (self_extras.group(1) or "").split(",") if e.strip()]
            elif line.startswith("-"):
                self.note(f"{where}: pip option left out: {line}")
            else:
                self._add(re.split(r"\s+--?[A-Za-z]", line, maxsplit=1)[0], where)  # no `--hash=...`

    def _option(self, flag: str, value: str, base: str, where: str) -> None:
        """`-r FILE` read and inlined, `-c FILE` kept as a pip argument, `-e` left out."""
        if flag in ("-e", "--editable"):
            if not _SELF.fullmatch(value):
                self.note(f"{where}: editable install left out: {value}")
            return
        rel = self._path(value, base)
        if rel is None:
            self.note(f"{where}: {value} is outside the project")
        elif flag in ("-c", "--constraint"):
            self.files.append(rel)
            if not confined.is_file(self.project, rel):
                self.note(f"cannot read {rel} (missing, outside the project, or no regular file)")
            elif rel not in self.requirements:
                self.requirements += ["-c", rel]
        elif rel not in self.requirement_files:
            self.requirement_files.add(rel)
            text = self.read(rel)
            if text is not None:
                self.lines(_joined(text), rel, rel)

    def _path(self, value: str, base: str) -> str | None:
        """A path named in `base`, relative to the project; None when it leads out (or is a URL)."""
        if "://" in value:
            return None
        if value.startswith("/"):
            rel = confined.relative(self.project, value)
            return None if rel is None else posixpath.normpath(rel)
        rel = posixpath.normpath(posixpath.join(base, value))
        return None if rel == ".." or rel.startswith("../") else rel

    def _add(self, requirement: str, where: str) -> None:
        if _NAME.match(requirement) is None and "://" not in requirement:
            self.note(f"{where}: not a requirement, left out: {requirement}")
            return
        key = _key(requirement)
        if key not in self.keys:
            self.keys.add(key)
            self.requirements.append(requirement)

    def result(self) -> Declared:
        notes = self.notes[:_MAX_NOTES]
        if len(self.notes) > _MAX_NOTES:
            notes.append(f"{len(self.notes) - _MAX_NOTES} more such notes")
        return Declared(
            list(dict.fromkeys(self.extras)), self.requirements, list(dict.fromkeys(self.files)), notes
        )


def _joined(text: str) -> list[str]:
    """A requirements file's lines, backslash continuations joined."""
    return re.sub(r"\\\r?\n", " ", text).splitlines()
