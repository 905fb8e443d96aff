"""The bundled example projects: manifest, patches and materialize()."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from buildfixer.core.build_result import CATEGORIES
from buildfixer.core.errors import BuildfixerError
from buildfixer.examples import (
    EXAMPLES_DIR,
    MANIFEST,
    Example,
    get_example,
    load_examples,
    materialize,
    materialize_base,
    projects,
)
from support.git import git

EXAMPLES = load_examples()
BUILD_SYSTEMS = {"gradle", "maven", "python", "npm"}
OUTPUT_DIRS = {"build", "target", "node_modules", "dist", ".gradle", "__pycache__", ".pytest_cache"}
MANIFEST_KEYS = {
    "name",
    "project",
    "variant",
    "build_system",
    "category",
    "root_tool",
    "root_file",
    "root_line",
    "message_contains",
    "jdk",
    "fix",
    "description",
}

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_load_examples_finds_every_patch() -> None:
    patches = {f"{p.parent.parent.name}/{p.stem}" for p in EXAMPLES_DIR.glob("*/variants/*.patch")}
    names = [e.name for e in EXAMPLES]
    assert len(names) == len(set(names))
    assert set(names) == patches
    assert len(EXAMPLES) >= 25


def test_every_project_has_a_base_and_variants() -> None:
    assert set(projects()) == {"gradle-app", "maven-app", "kotlin-app", "python-app", "npm-app"}
    for project in projects():
        assert any(e.project == project for e in EXAMPLES)
        assert (EXAMPLES_DIR / project / "base" / ".gitignore").is_file()


def test_manifest_entries_have_exactly_the_documented_keys() -> None:
    for entry in json.loads(MANIFEST.read_text(encoding="utf-8")):
        assert set(entry) == MANIFEST_KEYS, entry.get("name")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_manifest_fields_are_valid(example: Example) -> None:
    assert example.name == f"{example.project}/{example.variant}"
    assert example.category in CATEGORIES
    assert example.build_system in BUILD_SYSTEMS
    assert example.root_tool and example.root_tool == example.root_tool.strip()
    assert example.message_contains.strip()
    assert example.fix.strip() and example.description.strip()
    assert example.jdk is None or example.jdk >= 8
    assert example.root_line is None or example.root_line >= 1
    if example.root_line is not None:
        assert example.root_file is not None
    assert example.base_dir.is_dir()
    assert example.patch_path.is_file()


def test_each_project_covers_its_required_categories() -> None:
    by_project: dict[str, set[str]] = {}
    for example in EXAMPLES:
        by_project.setdefault(example.project, set()).add(example.category)
    for categories in by_project.values():
        assert {"syntax", "test_failure"} <= categories
    assert {"library_unavailable", "resource_missing", "configuration"} <= by_project["gradle-app"]
    assert {"library_unavailable", "resource_missing", "configuration"} <= by_project["maven-app"]
    assert {"library_unavailable", "resource_missing"} <= by_project["python-app"]
    assert {"library_unavailable", "resource_missing"} <= by_project["npm-app"]


def test_bases_hold_no_build_outputs() -> None:
    for project in projects():
        base = EXAMPLES_DIR / project / "base"
        for path in base.rglob("*"):
            assert path.name not in OUTPUT_DIRS, path
            assert not path.name.endswith((".egg-info", ".class", ".pyc")), path


@needs_git
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_patch_applies_and_points_at_existing_file(example: Example, tmp_path: Path) -> None:
    dest = materialize(example, tmp_path / "tree")
    assert dest == tmp_path / "tree"
    base = _tree(example.base_dir)
    assert _tree(dest) != base, "the patch changed nothing"
    if example.root_file is not None:
        root = dest / example.root_file
        assert root.is_file(), example.root_file
        if example.root_line is not None:
            assert example.root_line <= len(root.read_text(encoding="utf-8").splitlines())


@needs_git
def test_materialize_accepts_a_name_and_an_empty_existing_dir(tmp_path: Path) -> None:
    dest = tmp_path / "empty"
    dest.mkdir()
    materialize("gradle-app/missing-version", dest)
    assert "gson:2.8.99" in (dest / "build.gradle").read_text(encoding="utf-8")


@needs_git
def test_materialize_inside_another_git_repository(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    dest = materialize("maven-app/jdk-level", tmp_path / "nested" / "tree")
    assert "<maven.compiler.release>21" in (dest / "pom.xml").read_text(encoding="utf-8")


def test_materialize_refuses_non_empty_dest_and_leaves_it_untouched(tmp_path: Path) -> None:
    dest = tmp_path / "busy"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine\n", encoding="utf-8")
    before = _tree(dest)
    with pytest.raises(BuildfixerError, match="not empty"):
        materialize(EXAMPLES[0], dest)
    with pytest.raises(BuildfixerError, match="not empty"):
        materialize_base("maven-app", dest)
    assert _tree(dest) == before


def test_materialize_refuses_a_file_as_dest(tmp_path: Path) -> None:
    dest = tmp_path / "file"
    dest.write_text("x", encoding="utf-8")
    with pytest.raises(BuildfixerError):
        materialize(EXAMPLES[0], dest)
    assert dest.read_text(encoding="utf-8") == "x"


@needs_git
def test_failed_patch_raises_one_line_and_cleans_up(tmp_path: Path) -> None:
    good = get_example("npm-app/syntax-error")
    bad_patch = tmp_path / "bad.patch"
    bad_patch.write_text(
        good.patch_path.read_text(encoding="utf-8").replace("formatCents(this.total())", "nothing_here"),
        encoding="utf-8",
    )
    bad = Example(**{**good.__dict__, "patch_path": bad_patch})
    for dest, existed in ((tmp_path / "new", False), (tmp_path / "empty", True)):
        if existed:
            dest.mkdir()
        with pytest.raises(BuildfixerError) as info:
            materialize(bad, dest)
        assert "\n" not in str(info.value)
        assert "npm-app/syntax-error" in str(info.value)
        if existed:
            assert dest.is_dir() and not any(dest.iterdir())
        else:
            assert not dest.exists()


def test_unknown_names_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(BuildfixerError, match="unknown example"):
        materialize("gradle-app/no-such-variant", tmp_path / "a")
    with pytest.raises(BuildfixerError, match="unknown example project"):
        materialize_base("no-such-project", tmp_path / "b")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_materialize_base_copies_the_base(tmp_path: Path) -> None:
    for project in projects():
        dest = materialize_base(project, tmp_path / project)
        assert _tree(dest) == _tree(EXAMPLES_DIR / project / "base")
