"""Git metadata an agent writes never makes buildfixer's own git commands run anything.

An agent can write any file of its workspace, `.git` included (the file tools, or the shell in its
sandbox). Each attack below plants real git metadata whose commands would create a marker file,
then runs every git operation buildfixer performs on a workspace during and after an attempt (the
edit ledger's pictures and settling, changed files, diff, tree, copy-back, reset, patch). The
attack held when no marker exists, the repair is still seen exactly, and no `.git` reaches the
user's project. Variables inherited from the user's environment (GIT_DIR, GIT_CONFIG_PARAMETERS...)
are attacked the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from buildfixer.core.errors import BuildfixerError
from buildfixer.delivery.fix import CopyConflict, copy_back, fix_project
from buildfixer.harness.attempt import AttemptConfig
from buildfixer.workspace.ledger import EditLedger
from buildfixer.workspace.workspace import Workspace, apply_patch
from support.git import Repo, git
from support.model import scripted, write_file
from support.projects import FIXED_JS, npm_project

FIXED = "class App { int fixed; }\n"


def digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file() and not p.is_symlink():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The user's project: a git repository with one broken file."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "App.java").write_text("class App { broken }\n")
    (root / "README.md").write_text("readme\n")
    Repo(root).commit("base")
    return root


class Scene:
    """Where an attack writes: the workspace, a marker its commands would create, a folder outside."""

    def __init__(self, root: Path, tmp_path: Path) -> None:
        self.root = root
        self.marker = tmp_path / "PWNED"
        self.outside = tmp_path / "outside"
        self.outside.mkdir(exist_ok=True)

    @property
    def touch(self) -> str:
        """A shell command that proves it ran."""
        return f"touch {self.marker}"

    def evil_gitdir(self, where: Path, config: str, hooks: bool = False) -> Path:
        """A real git directory at `where` (inside the workspace) with an attacker's config and hooks."""
        git(self.root, "init", "-q", "--bare", str(where))
        with (where / "config").open("a") as out:
            out.write("[core]\n\tbare = false\n" + config)
        if hooks:
            hook_dir = where / "hooks"
            for name in ("post-index-change", "post-checkout", "reference-transaction", "pre-commit"):
                (hook_dir / name).write_text(f"#!/bin/sh\n{self.touch}\n")
                (hook_dir / name).chmod(0o755)
        return where

    def point_git_file_at(self, gitdir: Path) -> None:
        """Replace the workspace's `.git` file (a worktree's pointer) with one naming `gitdir`."""
        link = self.root / ".git"
        link.unlink()
        link.write_text(f"gitdir: {gitdir}\n")


def via_git_file(config: Callable[[Scene], str], hooks: bool = False) -> Callable[[Scene], None]:
    def plant(scene: Scene) -> None:
        scene.point_git_file_at(scene.evil_gitdir(scene.root / "evil", config(scene), hooks))

    return plant


def fsmonitor(s: Scene) -> str:
    return f"\tfsmonitor = {s.touch}; false\n"


def with_attributes(line: str, config: Callable[[Scene], str]) -> Callable[[Scene], None]:
    def plant(scene: Scene) -> None:
        (scene.root / ".gitattributes").write_text(line)
        via_git_file(config)(scene)

    return plant


def include_file(s: Scene, section: str) -> str:
    included = s.root / "included.cfg"
    included.write_text(f"[core]\n{fsmonitor(s)}")
    return f"[{section}]\n\tpath = {included}\n"


def git_directory_instead_of_file(scene: Scene) -> None:
    """`.git` becomes a whole repository of the agent's, with fsmonitor and hooks."""
    (scene.root / ".git").unlink()
    scene.evil_gitdir(scene.root / ".git", fsmonitor(scene), hooks=True)


def git_file_removed(scene: Scene) -> None:
    (scene.root / ".git").unlink()


def nested_repository(scene: Scene) -> None:
    """A repository of the agent's inside the workspace (a would-be submodule), fsmonitor and a filter."""
    sub = scene.root / "sub"
    sub.mkdir()
    (sub / "f.txt").write_text("one\n")
    git(scene.root, "init", "-q", str(sub))
    git(sub, "add", "-A")
    git(sub, "commit", "-qm", "x")
    with (sub / ".git" / "config").open("a") as out:
        out.write(f"[core]\n{fsmonitor(scene)}[filter \"x\"]\n\tclean = {scene.touch}; cat\n")
    (sub / ".gitattributes").write_text("* filter=x\n")
    (sub / "f.txt").write_text("two\n")  # dirty: `status` would look inside


def nested_git_file(scene: Scene) -> None:
    sub = scene.root / "sub"
    sub.mkdir()
    (sub / "f.txt").write_text("one\n")
    evil = scene.evil_gitdir(scene.root / "evil", fsmonitor(scene), hooks=True)
    (sub / ".git").write_text(f"gitdir: {evil}\n")


ATTACKS: dict[str, Callable[[Scene], None]] = {
    "fsmonitor": via_git_file(fsmonitor),
    "hooksPath": via_git_file(lambda s: f"\thooksPath = {s.root / 'evil' / 'hooks'}\n", hooks=True),
    "default hooks dir": via_git_file(lambda s: "", hooks=True),
    "filter driver": with_attributes("* filter=x\n", lambda s: f"[filter \"x\"]\n\tclean = {s.touch}; cat\n"),
    "required filter": with_attributes(
        "* filter=x\n", lambda s: f"[filter \"x\"]\n\tprocess = {s.touch}\n\trequired = true\n"
    ),
    "diff textconv": with_attributes("* diff=x\n", lambda s: f"[diff \"x\"]\n\ttextconv = {s.touch}; cat\n"),
    "diff.external": via_git_file(lambda s: f"[diff]\n\texternal = {s.touch}; true\n"),
    "include.path": via_git_file(lambda s: include_file(s, "include")),
    "includeIf": via_git_file(lambda s: include_file(s, 'includeIf "gitdir:/"')),
    "every setting at once": via_git_file(
        lambda s: f"{fsmonitor(s)}\tpager = {s.touch}; cat\n\tsshCommand = {s.touch}; false\n"
        f"\teditor = {s.touch}\n\taskPass = {s.touch}\n[alias]\n\tadd = !{s.touch}\n"
        f"[gc]\n\tauto = 1\n[remote \"origin\"]\n\turl = ext::sh -c {s.touch}\n",
        hooks=True,
    ),
    "core.worktree elsewhere": via_git_file(lambda s: f"\tworktree = {s.outside}\n{fsmonitor(s)}"),
    ".git a directory": git_directory_instead_of_file,
    ".git removed": git_file_removed,
    "nested repository": nested_repository,
    "nested .git file": nested_git_file,
}


def exercise(ws: Workspace, ledger: EditLedger, project: Path) -> tuple[list[str], str]:
    """Every git operation of an attempt and its copy-back; returns (changed files, patch)."""
    (ws.root / "App.java").write_text(FIXED)  # the repair itself
    started = ledger.before_build()
    (ws.root / "README.md").write_text("rewritten by the build\n")  # a build side effect
    ledger.after_build(started, "o", None)
    kept, _ = ledger.undo_side_effects()
    ledger.repair_tree()
    changed = ws.changed_files(kept)
    patch = ws.diff(changed)
    ws.write_tree()
    repair = ws.diff(["App.java"])
    try:
        copy_back(ws, project, changed)
    except CopyConflict as exc:  # the agent's git directory is refused, never copied to the user
        assert "like a git repository" in str(exc)
        copy_back(ws, project, ["App.java"])
    ws.reset()
    assert ws.changed_files() == [] and ws.diff() == ""
    assert apply_patch(ws.root, repair) == ["App.java"]  # `git apply` in the tree, as the oracle does
    return changed, patch


@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
def test_git_metadata_written_by_the_agent_runs_nothing(
    attack: str, project: Path, tmp_path: Path, cache_dir: Path
) -> None:
    user_git = digest(project / ".git")
    ws = Workspace.from_directory(project, cache_dir=cache_dir)
    try:
        ledger = EditLedger.open(ws.root)  # at attempt start, before the agent
        assert ledger is not None
        scene = Scene(ws.root, tmp_path)
        ATTACKS[attack](scene)  # the agent's turn
        changed, patch = exercise(ws, ledger, project)
        assert not scene.marker.exists(), f"{attack}: git ran the agent's command"
        assert "App.java" in changed and "README.md" not in changed and "sub" not in changed
        assert not [p for p in changed if ".git" in Path(p).parts]
        assert "+class App { int fixed; }" in patch
        assert list(scene.outside.iterdir()) == []  # nothing staged or patched out there
        assert (ws.root / "App.java").read_text() == FIXED  # the patch landed in the workspace
        assert (ws.root / ".git").read_text() == f"gitdir: {ws.git_dir}\n"  # reset restores it
    finally:
        ws.remove()
    assert (project / "App.java").read_text() == FIXED
    assert digest(project / ".git") == user_git
    assert not [p for p in project.rglob(".git") if p != project / ".git"]
    assert not [p for p in project.rglob("HEAD") if ".git" not in p.relative_to(project).parts]


def env_attacks(scene: Scene, project: Path) -> dict[str, dict[str, str]]:
    """Variables a user's shell (or a git hook that started buildfixer) may hand down."""
    evil = scene.evil_gitdir(scene.outside.parent / "evil.git", fsmonitor(scene), hooks=True)
    config_file = scene.outside.parent / "evil.gitconfig"
    config_file.write_text(f"[core]\n{fsmonitor(scene)}\thooksPath = {evil / 'hooks'}\n")
    templates = scene.outside.parent / "templates"
    (templates / "hooks").mkdir(parents=True)
    for name in ("post-checkout", "post-index-change"):
        (templates / "hooks" / name).write_text(f"#!/bin/sh\n{scene.touch}\n")
        (templates / "hooks" / name).chmod(0o755)
    return {
        "GIT_DIR": {"GIT_DIR": str(evil)},
        "GIT_WORK_TREE": {"GIT_WORK_TREE": str(scene.outside)},
        "GIT_INDEX_FILE": {"GIT_INDEX_FILE": str(scene.outside / "index")},
        "GIT_CONFIG_PARAMETERS": {"GIT_CONFIG_PARAMETERS": f"'core.fsmonitor'='{scene.touch}; false'"},
        "GIT_CONFIG_COUNT": {
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor",
            "GIT_CONFIG_VALUE_0": f"{scene.touch}; false",
        },  # fmt: skip
        "GIT_CONFIG_GLOBAL": {"GIT_CONFIG_GLOBAL": str(config_file)},
        "GIT_CONFIG": {"GIT_CONFIG": str(config_file)},
        "GIT_EXTERNAL_DIFF": {"GIT_EXTERNAL_DIFF": scene.touch},
        "GIT_PAGER": {"GIT_PAGER": scene.touch},
        "GIT_TEMPLATE_DIR": {"GIT_TEMPLATE_DIR": str(templates)},
        "GIT_OBJECT_DIRECTORY": {"GIT_OBJECT_DIRECTORY": str(scene.outside / "objects")},
    }


ENV_ATTACKS = [
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL", "GIT_CONFIG", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_TEMPLATE_DIR",
    "GIT_OBJECT_DIRECTORY",
]  # fmt: skip


@pytest.mark.parametrize("variable", ENV_ATTACKS)
def test_inherited_git_variables_change_nothing(
    variable: str, project: Path, tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_git = digest(project / ".git")
    scene = Scene(tmp_path, tmp_path)
    env = env_attacks(scene, project)[variable]
    evil_before = digest(tmp_path / "evil.git")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ws = Workspace.from_directory(project, cache_dir=cache_dir)
    try:
        ledger = EditLedger.open(ws.root)
        assert ledger is not None and ledger.git_dir == ws.git_dir
        changed, patch = exercise(ws, ledger, project)
        assert not scene.marker.exists(), f"{variable}: git ran an inherited command"
        assert changed == ["App.java"] and "+class App { int fixed; }" in patch
    finally:
        ws.remove()
    assert list(scene.outside.iterdir()) == []
    assert digest(tmp_path / "evil.git") == evil_before
    assert (project / "App.java").read_text() == FIXED
    assert digest(project / ".git") == user_git


def test_ssh_command_from_the_environment_is_not_run(tmp_path: Path, cache_dir: Path, monkeypatch) -> None:
    marker = tmp_path / "PWNED"
    monkeypatch.setenv("GIT_SSH_COMMAND", f"touch {marker}; false")
    monkeypatch.setenv("GIT_SSH", str(tmp_path / "ssh.sh"))
    (tmp_path / "ssh.sh").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (tmp_path / "ssh.sh").chmod(0o755)
    with pytest.raises(BuildfixerError):
        Workspace.create("ssh://git@127.0.0.1:1/nothing.git", cache_dir=cache_dir)
    assert not marker.exists()


def test_a_pooled_slot_an_agent_rewrote_runs_nothing_on_reuse(
    project: Path, tmp_path: Path, cache_dir: Path
) -> None:
    ws = Workspace.acquire(project, cache_dir=cache_dir)
    scene = Scene(ws.root, tmp_path)
    via_git_file(fsmonitor, hooks=True)(scene)  # post-checkout and fsmonitor, for the next checkout
    (ws.root / "App.java").write_text(FIXED)
    ws.release()
    again = Workspace.acquire(project, cache_dir=cache_dir)
    try:
        assert again.root == ws.root
        assert not scene.marker.exists()
        assert (again.root / ".git").read_text() == f"gitdir: {again.git_dir}\n"
        assert (again.root / "App.java").read_text() == "class App { broken }\n"
        assert again.diff() == "" and not (again.root / "evil").exists()
    finally:
        again.remove()
    assert not scene.marker.exists()


def test_apply_patch_ignores_a_worktree_redirect(project: Path, tmp_path: Path, cache_dir: Path) -> None:
    """`git apply` in the workspace: a `.git` naming another work tree must not send the patch there."""
    ws = Workspace.from_directory(project, cache_dir=cache_dir)
    try:
        scene = Scene(ws.root, tmp_path)
        via_git_file(lambda s: f"\tworktree = {s.outside}\n{fsmonitor(s)}")(scene)
        patch = "--- /dev/null\n+++ b/NEW.txt\n@@ -0,0 +1 @@\n+hello\n"
        assert apply_patch(ws.root, patch) == ["NEW.txt"]
        assert (ws.root / "NEW.txt").read_text() == "hello\n"
        assert list(scene.outside.iterdir()) == [] and not scene.marker.exists()
    finally:
        ws.remove()


# ---- the whole `fix`: the agent rewrites `.git` with its own tools ----------------------------------

@pytest.mark.slow
def test_fix_with_an_agent_that_rewrites_dot_git(tmp_path: Path) -> None:
    """The agent points `.git` at a repository of its own, builds (the ledger pictures the tree
    before and after), removes its traces and repairs: its fsmonitor and filter never run."""
    project = npm_project(tmp_path / "project")
    marker = tmp_path / "PWNED"
    config = (
        f"[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch {marker}; false\n"
        f"[filter \"x\"]\n\tclean = touch {marker}; cat\n"
    )
    steps = [
        write_file(".git", "gitdir: evil\n"), write_file("evil/HEAD", "ref: refs/heads/main\n"),
        write_file("evil/config", config), write_file("evil/objects/keep", ""),
        write_file("evil/refs/heads/keep", ""),
        write_file(".gitattributes", "* filter=x\n"),
        {"tool_calls": [{"name": "validate_and_build", "arguments": {}}]},
        {"tool_calls": [{"name": "run_sh", "arguments": {"command": "rm -rf evil .gitattributes"}}]},
        write_file("app.js", FIXED_JS),
        {"content": "Removed the extra brace."},
    ]  # fmt: skip
    model = scripted(tmp_path / "script.json", steps)
    attempt = AttemptConfig(model=model, toolset="industrial", trajectory_path=tmp_path / "t.json")
    outcome = fix_project(project, attempt)
    assert not marker.exists(), "buildfixer's git ran the agent's command"
    assert outcome.attempt.resolved and outcome.applied, (outcome.attempt.stop, outcome.conflict)
    assert outcome.changed_files == ["app.js"]
    assert (project / "app.js").read_text() == FIXED_JS
    assert sorted(p.name for p in project.iterdir()) == ["app.js", "package.json"]
