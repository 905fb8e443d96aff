"""Copy-back never writes outside the project, never copies a link that leads out, and writes what it showed.

After a resolved attempt, `fix` copies the repair from its workspace into the user's project. The
agent controls the workspace: each attack below leaves a link (or a path through one) that would
read or write outside the project once copied. Held means: CopyConflict naming the path and where
it points, and not one byte of the project written. Links inside the project still land as links.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from buildfixer.delivery.fix import CopyConflict, copy_back, fix_project
from buildfixer.harness.attempt import AttemptConfig
from buildfixer.workspace.workspace import Workspace
from support.model import scripted, write_file
from support.projects import FIXED_JS, npm_project

FIXED = "class App { int fixed; }\n"


def digest(root: Path) -> str:
    """Every entry under root, links by their target: nothing written means the same digest."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_symlink():
            h.update(os.readlink(p).encode())
        elif p.is_file():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "App.java").write_text("class App { broken }\n")
    (root / "src" / "Main.java").write_text("class Main {}\n")
    return root


def nothing(project: Path, outside: Path) -> None:
    """The project as it is."""


def project_link(name: str, to: Callable[[Path, Path], str]) -> Callable[[Path, Path], None]:
    def prepare(project: Path, outside: Path) -> None:
        os.symlink(to(project, outside), project / name)

    return prepare


def agent_link(name: str, target: str | Callable[[Path, Path], str]) -> Callable[[Path, Path, Path], None]:
    def act(root: Path, project: Path, outside: Path) -> None:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target(project, outside) if callable(target) else target, root / name)

    return act


def replace_link_by_directory(root: Path, project: Path, outside: Path) -> None:
    """The project's link `lib` becomes a directory in the workspace, with a new file in it."""
    (root / "lib").unlink()
    (root / "lib").mkdir()
    (root / "lib" / "evil.txt").write_text("written through the link\n")


def bare_repository(root: Path, project: Path, outside: Path) -> None:
    """A folder git takes for a bare repository: a `git status` run in it would run its fsmonitor."""
    trap = root / "trap"
    for name in ("objects", "refs/heads"):
        (trap / name).mkdir(parents=True)
        (trap / name / "keep").write_text("")
    (trap / "HEAD").write_text("ref: refs/heads/main\n")
    (trap / "config").write_text(f"[core]\n\tbare = true\n\tfsmonitor = touch {outside}/PWNED\n")


Prepare = Callable[[Path, Path], None]
Act = Callable[[Path, Path, Path], None]


def new_links(*pairs: tuple[str, str | Callable[[Path, Path], str]]) -> Act:
    def act(root: Path, project: Path, outside: Path) -> None:
        for name, target in pairs:
            agent_link(name, target)(root, project, outside)

    return act


# name: (the user's project before the snapshot, what the agent does, the refusal expected)
ATTACKS: dict[str, tuple[Prepare, Act, str]] = {
    "absolute link to a secret": (
        nothing, agent_link("leak.txt", "/root/.ssh/id_rsa"), r"leak\.txt -> /root/\.ssh/id_rsa"
    ),
    "absolute link to /etc": (nothing, agent_link("etc/pw", "/etc/passwd"), r"etc/pw -> /etc/passwd"),
    "relative link out": (nothing, agent_link("x", "../../outside/secret"), r"x -> \.\./\.\./outside/secret"),
    "relative link out from a subdirectory": (
        nothing, agent_link("src/deep/x", "../../../outside"), r"src/deep/x -> \.\./\.\./\.\./outside"
    ),
    "link through a project link that leads out": (
        project_link("ext", lambda p, o: str(o)), agent_link("conf", "ext/secret"), r"conf -> ext/secret"
    ),
    "link through a link the snapshot left out": (
        project_link("node_modules", lambda p, o: str(o)), agent_link("cfg", "node_modules/secret"),
        r"cfg -> node_modules/secret",
    ),
    "chain of new links": (nothing, new_links(("a", "b"), ("b", lambda p, o: str(o))), r"(a -> b|b -> /)"),
    "link loop": (nothing, new_links(("a", "b"), ("b", "a")), r"a -> b"),
    "link into .git": (nothing, agent_link("hooks", ".git/hooks"), r"hooks -> \.git/hooks"),
    "absolute link back into the project": (
        nothing, agent_link("self", lambda p, o: str(p / "App.java")), r"self -> /.*App\.java"
    ),
    "a bare repository left for the user": (nothing, bare_repository, r"trap/: it holds HEAD and config"),
    "write through a project link that leads out": (
        project_link("lib", lambda p, o: str(o)), replace_link_by_directory,
        r"lib/evil\.txt: lib is a link to",
    ),
    "write through a project link inside": (
        project_link("lib", lambda p, o: "src"), replace_link_by_directory,
        r"lib/evil\.txt: lib is a link to src",
    ),
}  # fmt: skip


@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
def test_links_out_of_the_project_are_refused(
    attack: str, project: Path, tmp_path: Path, cache_dir: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("the user's secret\n")
    prepare, act, refusal = ATTACKS[attack]
    prepare(project, outside)
    with Workspace.from_directory(project, cache_dir=cache_dir) as ws:
        (ws.root / "App.java").write_text(FIXED)  # a real repair next to the attack
        act(ws.root, project, outside)
        changed = ws.changed_files()
        before = digest(project)
        with pytest.raises(CopyConflict, match=refusal) as refused:
            copy_back(ws, project, changed)
    assert "nothing was written" in str(refused.value)
    assert digest(project) == before  # all or nothing: not even App.java
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]
    assert (outside / "secret").read_text() == "the user's secret\n"


NO_PROJECT_FILES = ["../x", "src/../../x", "/tmp/x", ".git/config", "src/.git/x", ".", "./App.java", "a//b"]


@pytest.mark.parametrize("path", NO_PROJECT_FILES)
def test_paths_that_are_no_project_file_are_refused(path: str, project: Path, cache_dir: Path) -> None:
    """copy_back's own guard, whatever list it is handed (git never reports such paths)."""
    with Workspace.from_directory(project, cache_dir=cache_dir) as ws:
        before = digest(project)
        with pytest.raises(CopyConflict, match=re.escape(path)):
            copy_back(ws, project, ["App.java", path])
    assert digest(project) == before


def test_links_inside_the_project_land_as_links(project: Path, cache_dir: Path) -> None:
    with Workspace.from_directory(project, cache_dir=cache_dir) as ws:
        os.symlink("src/Main.java", ws.root / "alias.java")
        (ws.root / "src" / "up").mkdir()
        os.symlink("../../App.java", ws.root / "src" / "up" / "app")
        os.symlink("src", ws.root / "sources")
        copy_back(ws, project, ws.changed_files())
    assert os.readlink(project / "alias.java") == "src/Main.java"
    assert os.readlink(project / "src" / "up" / "app") == "../../App.java"
    assert os.readlink(project / "sources") == "src"


def test_what_lands_is_the_diff_that_was_shown(project: Path, tmp_path: Path, cache_dir: Path) -> None:
    """The files come from the tree the patch was made of, not from the workspace afterwards."""
    with Workspace.from_directory(project, cache_dir=cache_dir) as ws:
        (ws.root / "App.java").write_text(FIXED)
        (ws.root / "tool.sh").write_text("#!/bin/sh\necho hi\n")
        (ws.root / "tool.sh").chmod(0o755)
        changed = ws.changed_files()
        tree = ws.write_tree()
        patch = ws.diff(changed, tree=tree)
        # After the patch was shown, something in the workspace changes the files (a late daemon,
        # a background process the agent left): a link to a secret, other content.
        (ws.root / "App.java").unlink()
        os.symlink("/etc/passwd", ws.root / "App.java")
        (ws.root / "tool.sh").write_text("#!/bin/sh\nrm -rf ~\n")
        copy_back(ws, project, changed, tree)
    assert (project / "App.java").read_text() == FIXED and not (project / "App.java").is_symlink()
    assert (project / "tool.sh").read_text() == "#!/bin/sh\necho hi\n"
    assert os.access(project / "tool.sh", os.X_OK)
    # Applying the shown patch to a pristine copy gives exactly the project now.
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    (pristine / "App.java").write_text("class App { broken }\n")
    subprocess.run(["git", "apply", "-"], cwd=pristine, input=patch, text=True, check=True)
    assert (pristine / "App.java").read_bytes() == (project / "App.java").read_bytes()
    assert (pristine / "tool.sh").read_bytes() == (project / "tool.sh").read_bytes()


# ---- the whole `fix`: the agent's shell makes the link ---------------------------------------------

@pytest.mark.slow
def test_fix_refuses_a_repair_whose_shell_linked_a_secret(tmp_path: Path) -> None:
    project = npm_project(tmp_path / "project")
    before = digest(project)
    steps = [
        {"tool_calls": [{"name": "run_sh", "arguments": {"command": "ln -s /root/.ssh/id_rsa leak.txt"}}]},
        write_file("app.js", FIXED_JS),
        {"content": "Fixed the extra brace."},
    ]
    model = scripted(tmp_path / "script.json", steps)
    config = AttemptConfig(model=model, toolset="industrial", trajectory_path=tmp_path / "t.json")
    outcome = fix_project(project, config)
    assert outcome.attempt.resolved, outcome.attempt.stop
    assert "leak.txt" in outcome.changed_files
    assert not outcome.applied
    assert "leak.txt -> /root/.ssh/id_rsa" in outcome.conflict and "outside the project" in outcome.conflict
    assert digest(project) == before
