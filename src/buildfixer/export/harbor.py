"""Benchmark instances as Harbor tasks: one directory per instance, in Harbor's task layout.

```
<instance_id>/
  task.toml               [task] name and keywords, [metadata], timeouts, resources
  instruction.md          what the agent is asked: make the failing build pass
  environment/Dockerfile  the build tool (and JDK), then checkout.sh
  environment/checkout.sh the repository at base_commit, history removed
  environment/repo.bundle the repository, when the dataset has it locally
  solution/solve.sh       the oracle: applies solution/gold.patch
  tests/test.sh           builds the project, judges the repair, writes /logs/verifier/reward.txt (1 or 0)
  tests/judge.pyz         the judge (export.judge_app): a passing build's repair must be approved
```

The names are those of harbor's `TaskPaths` and `TaskConfig` (harbor 0.25.0; see
docs/EXPORTS.md). The shell lives in export.harbor_scripts.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from buildfixer.bench.dataset import Instance, dataset_dir, load_dataset
from buildfixer.bench.rundir import staged_folder
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.shareable import shareable_text
from buildfixer.export import harbor_scripts as scripts
from buildfixer.export.judge_app import judge_app
from buildfixer.export.repos import RepoPacker
from buildfixer.logs.text import clean_lines
from buildfixer.workspace.git import git

TASK_SCHEMA_VERSION = "1.4"
# Seconds. An agent gets the bench default attempt limit; builds of big JVM projects are slow.
AGENT_TIMEOUT_S = 3600.0
VERIFIER_TIMEOUT_S = 1800.0
BUILD_TIMEOUT_S = 1800.0
# The end of the failing log shown in the instruction (the cause is usually near the end).
_LOG_LINES = 120
_CHATTER = re.compile(
    r"\$ |(Looking in links|Stored in directory|Requirement already satisfied|Collecting|Downloading"
    r"|Using cached|Obtaining|Preparing|Installing collected|Successfully (built|installed)"
    r"|Building (wheel|editable)"
    r"|Created wheel|Checking if build backend|Getting requirements|Processing|Attempting uninstall"
    r"|Found existing installation|Uninstalling)\b"
)


def export_harbor(dataset: Path, out: Path, org: str = "buildfixer") -> dict[str, Any]:
    """Write one Harbor task directory per instance of `dataset` into `out` (atomically).

    Args:
        dataset: A buildfixer dataset (file or directory).
        out: The folder of tasks (replaced as a whole).
        org: The organisation part of each task's name (`org/instance_id`).

    Returns:
        `{"out", "tasks": [instance ids], "bundled": [ids whose repository was copied in]}`.

    Raises:
        BuildfixerError: An unreadable dataset or a missing repository, before anything is written.
    """
    instances = load_dataset(dataset)
    base = dataset_dir(dataset)
    RepoPacker(out, base).check(instances)
    judge = judge_app()
    bundled = []
    with staged_folder(out) as stage:
        for instance in instances:
            task = stage / instance.instance_id
            packer = RepoPacker(task / "environment", base)  # each task's context is its own
            if packer.pack(instance) is not None:
                bundled.append(instance.instance_id)
            write_task(instance, task, _git_bundle_name(packer), org, judge)
    return {"out": str(out), "tasks": [i.instance_id for i in instances], "bundled": bundled}


def write_task(instance: Instance, task: Path, git_bundle: str | None, org: str, judge: bytes) -> None:
    """The files of one task in `task` (its environment/ already holds the git bundle, if any).

    `judge` is the verifier's judge (`judge_app()`), written as tests/judge.pyz.
    """
    if git_bundle is not None:  # one fixed name: the Dockerfile and checkout.sh refer to it
        (task / "environment" / git_bundle).rename(task / "environment" / "repo.bundle")
        git_bundle = "repo.bundle"
    files = {
        "task.toml": task_toml(instance, org),
        "instruction.md": instruction(instance),
        "environment/Dockerfile": scripts.dockerfile(instance, git_bundle),
        "environment/checkout.sh": scripts.checkout_script(instance, git_bundle),
        "solution/solve.sh": scripts.solve_script(),
        "solution/gold.patch": instance.gold_patch,
    }
    for name, text in files.items():
        _write(task / name, text.encode())
    # The judge diffs against the failing state's tree, which the checkout makes from the bundle.
    tree = failing_tree(task / "environment" / "checkout.sh") if git_bundle else None
    _write(task / "tests" / "test.sh", scripts.test_script(instance, tree).encode())
    _write(task / "tests" / "judge.pyz", judge)


def failing_tree(checkout: Path) -> str:
    """The git tree of the failing state `checkout.sh` makes (run here into a scratch folder).

    Raises:
        BuildfixerError: the checkout fails.
    """
    with tempfile.TemporaryDirectory(prefix="buildfixer-harbor-") as scratch:
        app = Path(scratch) / "app"
        done = subprocess.run(["bash", str(checkout), str(app)], capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise BuildfixerError(f"{checkout} failed: {done.stderr.strip()[-300:]}")
        return git("rev-parse", "HEAD^{tree}", cwd=app).strip()


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(0o755 if path.suffix == ".sh" else 0o644)


def task_toml(instance: Instance, org: str) -> str:
    """`task.toml`: identity, the instance's facts as metadata, timeouts and resources."""
    metadata = {
        "source": "buildfixer",
        "instance_id": instance.instance_id,
        "repo": instance.repo if instance.is_remote() else "environment/repo.bundle",
        "base_commit": instance.base_commit,
        "fix_commit": instance.fix_commit,
        "origin": instance.origin,
        "category": instance.category,
        "build_system": instance.build_system,
        "build_command": " ".join(instance.build_command) if instance.build_command else None,
        "jdk": instance.jdk,
        "files_changed": instance.files_changed,
        "lines_changed": instance.lines_changed,
        "difficulty": instance.difficulty,
        "created_at": instance.created_at,
        "split": instance.split,
    }
    keywords = ["build-repair", instance.build_system, instance.category, instance.origin]
    sections: list[tuple[str, dict[str, Any]]] = [
        ("task", {
            "name": f"{org}/{instance.instance_id}",
            "description": f"Repair the failing {instance.build_system} build ({instance.category}).",
            "keywords": keywords,
        }),
        ("metadata", metadata),
        ("verifier", {"timeout_sec": VERIFIER_TIMEOUT_S}),
        ("agent", {"timeout_sec": AGENT_TIMEOUT_S}),
        ("environment", {"build_timeout_sec": BUILD_TIMEOUT_S, "cpus": 2, "memory_mb": 4096}),
    ]  # fmt: skip
    lines = [f"schema_version = {_toml(TASK_SCHEMA_VERSION)}"]
    for name, table in sections:
        lines += ["", f"[{name}]"]
        lines += [f"{key} = {_toml(value)}" for key, value in table.items() if value is not None]
    return "\n".join(lines) + "\n"


def instruction(instance: Instance) -> str:
    """`instruction.md`: the task as the agent reads it."""
    tail = log_tail(instance.error_log) or "(no log recorded)"
    fence = "````" if "```" in tail else "```"
    jdk = f" with JDK {instance.jdk}" if instance.jdk else ""
    command = f" (`{' '.join(instance.build_command)}`)" if instance.build_command else ""
    return f"""# Repair the build

The {instance.build_system} build{command} of the project in `{scripts.APP_DIR}` fails{jdk}.
Change the project so that its build succeeds.

- Fix the cause; do not delete or disable tests, checks or validation to make the build pass.
- Keep the change small and in the style of the project.
- The verifier runs the project's build (installing dependencies and running its tests) and
  passes only when the build succeeds.

The end of the failing build's log:

{fence}
{tail}
{fence}
"""


def log_tail(log: str) -> str:
    """The end of a failing log as the agent should read it: no noise, no paths of this machine.

    Cleaned as every log is (logs.text: ANSI codes, progress redraws, Debian's hook traces), then
    without buildfixer's own command lines and the package installer's chatter, which the task's
    container does not print; the paths of the machine that recorded it made shareable
    (`core.shareable`: its cache, temporary folder and home become `<cache>`, `<tmp>` and `<home>`).
    """
    lines = [line for line in clean_lines(log) if line.strip() and not _CHATTER.match(line.lstrip())]
    return shareable_text("\n".join(lines[-_LOG_LINES:]))


def _git_bundle_name(packer: RepoPacker) -> str | None:
    bundles = sorted(p.name for p in packer.dest.glob("*.bundle")) if packer.dest.is_dir() else []
    return bundles[0] if bundles else None


def _toml(value: Any) -> str:
    """A TOML value: JSON's string escapes are TOML's basic-string escapes (ASCII output)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value))
