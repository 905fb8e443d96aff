"""The files of a Harbor task that hold shell: environment, checkout, oracle solution, verifier.

The verifier builds the project the way buildfixer's build systems do (buildsys/*.plan), in
plain shell, because the task's container has no buildfixer: Python gets a fresh venv, the
project installed editable with its test extra, byte-compiled and tested with pytest; npm runs
`npm ci`/`npm install`, then the `build` and `test` scripts; Maven runs `package`; Gradle runs
`build`; an instance's `build_command` replaces the default tasks/goals/scripts. A passing build
is then judged: `tests/judge.pyz` (export.judge_app) reads the repair against the failing state
and rejects one that passes by weakening or removing what checks the code, as `buildfixer judge`
does. The reward is 1 when the build succeeds and the judge approves, else 0
(`/logs/verifier/reward.txt`, Harbor's path; the verdict in `judge.json` beside it).

Every script takes its paths from variables with Harbor's defaults, so the same files run in a
checkout on a machine without Docker (tests/export/test_export_harbor.py does that).
"""

from __future__ import annotations

import shlex

from buildfixer.bench.dataset import Instance

APP_DIR = "/app"
DEFAULT_JDK = 17
# Base images by build system; {jdk} is the instance's JDK (DEFAULT_JDK when unset). These are
# the official Docker Hub images; the tags are not checked here (no registry is reached).
IMAGES = {
    "python": "python:3.12-slim",
    "npm": "node:20-bookworm-slim",
    "maven": "maven:3.9-eclipse-temurin-{jdk}",
    "gradle": "gradle:8.10-jdk{jdk}",
}
_PATHS = f"""APP_DIR="${{BUILDFIXER_APP_DIR:-{APP_DIR}}}"
"""


def dockerfile(instance: Instance, git_bundle: str | None) -> str:
    """`environment/Dockerfile`: the build tool, then the repository at the failing commit."""
    image = IMAGES[instance.build_system].format(jdk=instance.jdk or DEFAULT_JDK)
    python = "" if instance.build_system == "python" else " python3"  # the Python image has its own
    copy = f"COPY {git_bundle} checkout.sh /tmp/task/\n" if git_bundle else "COPY checkout.sh /tmp/task/\n"
    return f"""FROM {image}

# git makes the checkout, applies patches and lets the agent see its own changes; python3 runs
# the verifier's judge.
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates{python} \\
    && rm -rf /var/lib/apt/lists/*

{copy}RUN bash /tmp/task/checkout.sh {APP_DIR} && rm -rf /tmp/task

WORKDIR {APP_DIR}
"""


def checkout_script(instance: Instance, git_bundle: str | None) -> str:
    """`environment/checkout.sh DEST`: the repository at `base_commit`, without its history.

    The history goes because it holds the fix (`fix_commit`, or the commit after the breakage):
    an agent that could `git checkout` it would not be repairing anything. A fresh repository
    with the failing state as its only commit keeps `git diff` and `git status` useful.
    """
    source = (
        f'"$(dirname "$(readlink -f "${{BASH_SOURCE[0]}}")")/{git_bundle}"'
        if git_bundle
        else shlex.quote(instance.repo)
    )
    return f"""#!/bin/bash
# Check out {instance.instance_id} at its failing commit into DEST, history removed.
set -euo pipefail
DEST="${{1:?usage: checkout.sh DEST}}"
git clone -q {source} "$DEST"
cd "$DEST"
git checkout -q {instance.base_commit}
rm -rf .git
git init -q
git add -A
git -c user.name=buildfixer -c user.email=buildfixer@localhost commit -qm "failing state" --no-verify
"""


def solve_script() -> str:
    """`solution/solve.sh`: apply the gold patch that sits beside it."""
    return f"""#!/bin/bash
# Oracle solution: apply the gold patch (failing state -> a state that builds).
set -euo pipefail
{_PATHS}PATCH="$(dirname "$(readlink -f "${{BASH_SOURCE[0]}}")")/gold.patch"
cd "$APP_DIR"
git apply --whitespace=nowarn "$PATCH"
"""


def test_script(instance: Instance, base_tree: str | None = None) -> str:
    """`tests/test.sh`: build the project, judge a passing build's repair, write the reward (1 or 0).

    `base_tree` is the failing state's git tree (what the judge diffs against); None: the
    checkout's first commit.
    """
    tree = f" --base-tree {shlex.quote(base_tree)}" if base_tree else ""
    return f"""#!/bin/bash
# Verifier of {instance.instance_id}: the build must pass ({instance.build_system}) and the judge
# approve the repair. Reward 1 or 0.
set -u
{_PATHS}VERIFIER_DIR="${{BUILDFIXER_VERIFIER_DIR:-/logs/verifier}}"
TESTS_DIR="$(dirname "$(readlink -f "${{BASH_SOURCE[0]}}")")"
mkdir -p "$VERIFIER_DIR"
build() {{
    set -euo pipefail
    cd "$APP_DIR"
{_build_lines(instance)}
}}
# Not `if (build)`: bash ignores `set -e` inside a tested command, so a failed step would not
# stop the build and only the last one would count.
(build) >"$VERIFIER_DIR/build.log" 2>&1
status=$?
if [ "$status" -eq 0 ]; then reward=1; else reward=0; fi
tail -n 60 "$VERIFIER_DIR/build.log"
# A passing build earns the reward only with a repair the judge approves (not a test weakened).
if [ "$reward" -eq 1 ]; then
    python3 "$TESTS_DIR/judge.pyz" --project "$APP_DIR"{tree} --json "$VERIFIER_DIR/judge.json" || reward=0
fi
echo "$reward" >"$VERIFIER_DIR/reward.txt"
echo "reward: $reward"
"""


def _build_lines(instance: Instance) -> str:
    tasks = " ".join(shlex.quote(t) for t in instance.build_command or [])
    system = instance.build_system
    if system == "maven":
        return f"mvn -B -ntp {tasks or 'package'}"
    if system == "gradle":
        return f"gradle --console=plain --no-daemon {tasks or 'build'}"
    if system == "npm":
        return _NPM.replace("@TASKS@", tasks)
    return _PYTHON


# The npm plan: install what the lockfile pins (or resolve without writing one), then the
# scripts: the given ones, else `build` when defined and `test` unless it is npm init's stub.
_NPM = """if [ -f package-lock.json ] || [ -f npm-shrinkwrap.json ]; then
    npm ci --no-audit --no-fund
else
    npm install --no-audit --no-fund --no-package-lock
fi
tasks=(@TASKS@)
if [ "${#tasks[@]}" -gt 0 ]; then
    for task in "${tasks[@]}"; do npm run "$task"; done
else
    script() { node -p "(require('./package.json').scripts || {})['$1'] || ''"; }
    if [ -n "$(script build)" ]; then npm run build; fi
    test_script="$(script test)"
    if [ -n "$test_script" ] && [[ "$test_script" != *"no test specified"* ]]; then npm test; fi
fi"""

# The Python plan: a fresh venv; requirements files; the project editable with the first test
# extra it declares (test, tests, testing, dev) plus pytest when there are tests; compileall;
# pytest.
_PYTHON = r"""VENV="${BUILDFIXER_VENV:-/tmp/buildfixer-venv}"
rm -rf "$VENV"
python3 -m venv "$VENV"
PY="$VENV/bin/python"
pip_install() { "$PY" -m pip install --disable-pip-version-check --progress-bar off "$@"; }
for req in requirements.txt requirements-dev.txt requirements-test.txt test-requirements.txt; do
    if [ -f "$req" ]; then pip_install -r "$req"; fi
done
tests=""
if [ -d tests ] || [ -d test ] || compgen -G "test_*.py" >/dev/null || compgen -G "*_test.py" >/dev/null; then
    tests=pytest
fi
extra="$("$PY" -c '
import tomllib
try:
    extras = tomllib.load(open("pyproject.toml", "rb")).get("project", {}).get("optional-dependencies", {})
except OSError:
    extras = {}
print(next((e for e in ("test", "tests", "testing", "dev") if e in extras), ""))
')"
if [ -f pyproject.toml ] || [ -f setup.py ] || [ -f setup.cfg ]; then
    pip_install -e ".${extra:+[$extra]}" $tests
elif [ -n "$tests" ]; then
    pip_install pytest
fi
"$PY" -m compileall -q -x '(^|/)(\.[^/]+|venv|env|build|dist|node_modules|__pycache__)(/|$)' .
if [ -n "$tests" ]; then "$PY" -m pytest -q -p no:cacheprovider; fi"""
