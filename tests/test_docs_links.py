"""The documentation a clone holds is whole: its links resolve inside it, it names no file kept elsewhere.

Users clone only this repository. A relative link in README.md or docs/ (inline `[text](path)`,
image `![alt](path)` or a reference definition `[label]: path`) must name a file or directory of
the repository: anchors and queries are stripped, http(s) and mailto links are not checked, a link
inside a code block or code span is no link. No file of README.md, docs/, src/, tests/ or
benchmarks/ may send a reader to a design file or a shared folder outside the repository.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("README.md", "docs", "src", "tests", "benchmarks")
# Built from parts so that this file does not mention them itself.
FORBIDDEN = ("DESIGN" + ".md", ".." + "/shared")
# Generated or installed files a walk skips when git cannot list the repository's files.
_GENERATED = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", "node_modules"}

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
# `[text](target "title")`, `![alt](<target>)`; the text may hold one level of brackets and span lines.
_INLINE = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
    r"\(\s*(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
)
# `[label]: target "title"` at the start of a line (not a footnote, `[^1]: text`).
_REFERENCE = re.compile(r"^ {0,3}\[(?!\^)(?:[^\[\]]|\\.)+\]:[ \t]*\n?[ \t]*(<[^<>\n]*>|\S+)", re.MULTILINE)
NOT_RELATIVE = "not a relative link (only http(s) and mailto links may leave the repository)"
_NOT_CHECKED = re.compile(r"^(?:https?://|mailto:)", re.IGNORECASE)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def documents(root: Path = ROOT) -> list[Path]:
    """README.md and every markdown file under docs/."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def _without_code(text: str) -> str:
    """The text with fenced code blocks and code spans blanked, line numbers kept."""
    kept: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opening = _FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
            kept.append("")
        elif fence is not None:
            closing = _FENCE.match(line)
            closes = closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence)
            if closes and not line.strip().lstrip(fence[0]):  # a closing fence has nothing after it
                fence = None
            kept.append("")
        else:
            kept.append(line)
    return _CODE_SPAN.sub(lambda m: "\n" * m.group().count("\n"), "\n".join(kept))


def links(text: str) -> list[tuple[int, str]]:
    """(line, target) of every inline and reference-style link outside code."""
    prose = _without_code(text)
    found = [(m.start(), m.group(1)) for m in _INLINE.finditer(prose)]
    found += [(m.start(), m.group(1)) for m in _REFERENCE.finditer(prose)]
    return [(prose.count("\n", 0, start) + 1, target.strip("<>").strip()) for start, target in sorted(found)]


def _exact_case(path: Path, root: Path) -> bool:
    """Every part of `path` below `root` is spelled as on disk (GitHub's paths are case-sensitive)."""
    parent = root
    for part in path.relative_to(root).parts:
        if part not in os.listdir(parent):
            return False
        parent = parent / part
    return True


def link_problem(document: Path, target: str, root: Path = ROOT) -> str | None:
    """Why a link of `document` does not resolve inside the repository at `root`, or None when it does."""
    if not target or target.startswith("#") or _NOT_CHECKED.match(target):
        return None
    if _SCHEME.match(target) or target.startswith("//"):
        return NOT_RELATIVE
    path = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not path:
        return None
    root = root.resolve()
    base = Path() if path.startswith("/") else document.resolve().parent.relative_to(root)
    lexical = os.path.normpath(os.path.join(base, path.lstrip("/")))
    resolved = (root / lexical).resolve()
    if lexical == ".." or lexical.startswith(".." + os.sep) or not resolved.is_relative_to(root):
        return "points outside the repository"
    if not resolved.exists():
        return "no such file or directory"
    if not _exact_case(resolved, root):
        return "no such file or directory (the case differs)"
    return None


def broken_links(document: Path, root: Path = ROOT) -> list[str]:
    """`file:line: target: problem` for each link of `document` that does not resolve."""
    where = document.relative_to(root).as_posix()
    found = []
    for line, target in links(document.read_text(encoding="utf-8")):
        problem = link_problem(document, target, root)
        if problem:
            found.append(f"{where}:{line}: {target}: {problem}")
    return found


def scanned_files(root: Path = ROOT) -> list[Path]:
    """The files of SCANNED: tracked and new ones, not those git ignores (caches, build output)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *SCANNED],
            cwd=root, capture_output=True, check=True, timeout=60,
        ).stdout  # fmt: skip
        paths = [root / name for name in os.fsdecode(listed).split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        paths = []
        for top in SCANNED:
            start = root / top
            if start.is_file():
                paths.append(start)
            for folder, subfolders, files in os.walk(start):
                subfolders[:] = [d for d in subfolders if d not in _GENERATED and not d.endswith(".egg-info")]
                paths.extend(Path(folder) / name for name in files)
    return sorted(p for p in paths if p.is_file())  # a file deleted but not yet committed is gone


def forbidden_mentions(paths: list[Path], root: Path = ROOT) -> list[str]:
    """`file:line: mention` for each line of `paths` that mentions one of FORBIDDEN."""
    wanted = [(name, name.encode()) for name in FORBIDDEN]
    found = []
    for path in paths:
        data = path.read_bytes()
        for name, encoded in wanted:
            start = data.find(encoded)
            while start != -1:
                line = data.count(b"\n", 0, start) + 1
                found.append(f"{path.relative_to(root).as_posix()}:{line}: {name}")
                start = data.find(encoded, start + 1)
    return found


@pytest.mark.parametrize("document", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve_inside_the_repository(document: Path) -> None:
    assert broken_links(document) == []


def test_no_file_mentions_what_a_clone_lacks() -> None:
    files = scanned_files()
    assert ROOT / "README.md" in files and any(p.is_relative_to(ROOT / "src") for p in files)
    assert forbidden_mentions(files) == []


# The checks themselves, on a made-up repository.


def _repository(tmp_path: Path, readme: str, doc: str = "") -> Path:
    root = tmp_path / "repo"
    (root / "docs" / "img").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "docs" / "img" / "shot.png").write_bytes(b"")
    (root / "docs" / "OTHER.md").write_text("# Other\n")
    (root / "docs" / "A.md").write_text(doc)
    (root / "README.md").write_text(readme)
    (tmp_path / "x.md").write_text("outside the repository\n")  # exists, but a clone does not have it
    return root


def test_a_link_out_of_the_repository_is_broken(tmp_path: Path) -> None:
    root = _repository(tmp_path, "", "See [x](../../x.md) and\n[y][ref].\n\n[ref]: ../../x.md#top\n")
    assert broken_links(root / "docs" / "A.md", root) == [
        "docs/A.md:1: ../../x.md: points outside the repository",
        "docs/A.md:4: ../../x.md#top: points outside the repository",
    ]
    # Out and back in is out too: the clone's folder may be named anything.
    problem = link_problem(root / "docs" / "A.md", "../../repo/README.md", root)
    assert problem == "points outside the repository"


def test_missing_and_miscased_targets_are_broken(tmp_path: Path) -> None:
    readme = (
        "[gone](docs/GONE.md), [case](docs/other.md), ![shot](docs/img/missing.png)\n"
        '[ok](docs/OTHER.md#other) [dir](src/) [root](/docs/A.md) ![shot](<docs/img/shot.png> "title")\n'
        "[gone ref]:   docs/NOPE.md\n"
        "[file](file:///etc/passwd)\n"
    )
    root = _repository(tmp_path, readme)
    assert broken_links(root / "README.md", root) == [
        "README.md:1: docs/GONE.md: no such file or directory",
        "README.md:1: docs/other.md: no such file or directory (the case differs)"
        if (root / "docs" / "other.md").exists()
        else "README.md:1: docs/other.md: no such file or directory",
        "README.md:1: docs/img/missing.png: no such file or directory",
        "README.md:3: docs/NOPE.md: no such file or directory",
        f"README.md:4: file:///etc/passwd: {NOT_RELATIVE}",
    ]


def test_code_urls_and_anchors_are_not_checked(tmp_path: Path) -> None:
    readme = (
        "```\n[in a block](nowhere.md)\n```\n"
        "Inline `[code](nowhere.md)` and ``[more `code`](nowhere.md)``.\n"
        "[web](https://example.com/x.md) [mail](mailto:a@example.com) [anchor](#section)\n"
        "[multi\nline](docs/OTHER.md)\n"
    )
    root = _repository(tmp_path, readme)
    assert links(readme) == [
        (5, "https://example.com/x.md"), (5, "mailto:a@example.com"), (5, "#section"), (6, "docs/OTHER.md")
    ]  # fmt: skip
    assert broken_links(root / "README.md", root) == []


def test_mentions_of_files_a_clone_lacks_are_found(tmp_path: Path) -> None:
    root = _repository(tmp_path, "fine\n")
    bad = root / "src" / "mod.py"
    bad.write_text('"""Doc.\n\nSee ' + FORBIDDEN[0] + " and " + FORBIDDEN[1] + '/x."""\n')
    assert forbidden_mentions([root / "README.md", bad], root) == [
        f"src/mod.py:3: {FORBIDDEN[0]}", f"src/mod.py:3: {FORBIDDEN[1]}"
    ]  # fmt: skip
