"""Every bad input of every command: exit 2, one line on stderr, nothing on stdout, nothing written.

Each case runs the real entry point (`buildfixer.cli.main.main`) in this process, so the whole
matrix stays fast. All cases share one world of fixtures (a project, a git repository, datasets,
config files, a finished run directory); the world's files, names, sizes and times are compared
before and after each case, so a case that writes anything (an out directory, a partial file, a
snapshot or a trajectory in the cache) fails.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from buildfixer.cli.main import main
from support.git import Repo

GOOD_PY = "def add(a, b):\n    return a + b\n"
BROKEN_PY = "def add(a, b)\n    return a + b\n"
PYPROJECT = '[project]\nname = "tinycalc"\nversion = "0.1.0"\n'
# Provider credentials a case may not see (the "missing key" cases), and our own settings.
CREDENTIALS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "BUILDFIXER_API_KEY", "BUILDFIXER_API_BASE")


def _instance(repo: str, base: str, fix: str, patch: str, number: int = 0) -> dict[str, object]:
    return {
        "instance_id": f"tinycalc-{number}", "repo": repo, "base_commit": base, "fix_commit": fix,
        "gold_patch": patch, "origin": "human", "category": "syntax", "build_system": "python",
        "created_at": f"2024-01-0{number + 1}T00:00:00",
    }  # fmt: skip


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Fixtures every case may read (never write): see the module docstring."""
    w = tmp_path_factory.mktemp("world")
    (w / "cwd").mkdir()  # the working directory of every case: empty, no build
    (w / "cache").mkdir()
    _write(w / "project" / "pyproject.toml", PYPROJECT)
    _write(w / "project" / "src" / "tinycalc" / "__init__.py", BROKEN_PY)
    _write(w / "file.txt", "just a file\n")
    (w / "emptydir").mkdir()
    _write(w / "emptydir-with-notes" / "notes.md", "no build here\n")
    # A git repository with a broken commit and its fix, and a dataset of it.
    repo = Repo(w / "repo")
    repo.commit("good", {"pyproject.toml": PYPROJECT, "src/tinycalc/__init__.py": GOOD_PY})
    base = repo.commit("break", {"src/tinycalc/__init__.py": BROKEN_PY})
    fix = repo.commit("fix", {"src/tinycalc/__init__.py": GOOD_PY})
    patch = repo.diff(base, fix)
    good = [_instance("repo", base, fix, patch, 0), _instance("repo", base, fix, patch, 1)]
    _write(w / "dataset.jsonl", "".join(json.dumps(i) + "\n" for i in good))
    _write(w / "missing-repo.jsonl", json.dumps(_instance("no-such-repo", base, fix, patch)) + "\n")
    _write(w / "malformed.jsonl", '{"instance_id": "x", \n')
    _write(w / "empty.jsonl", "")
    _write(w / "not-a-diff.patch", "this is not a diff\n")
    _write(w / "broken-hunk.patch", "--- a/x\n+++ b/x\n@@ -1,2 +1,9 @@\n-a\n")
    _write(w / "gold.patch", "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n")
    _write(w / "binary.log", "".join(map(chr, range(256))) * 8)
    (w / "binary.log").write_bytes(bytes(range(256)) * 64)
    _write(w / "bad-script.json", '[{"content": "unterminated')
    _write(w / "script.json", json.dumps([{"content": "done"}]))
    _write(w / "ranges-malformed.txt", "not-a-range\n")
    _write(w / "notes-dir" / "x.md", "notes\n")
    # Config files of `fix` and `bench run`.
    _write(w / "conf" / "bad.toml", "max_calls = = 3\n")
    _write(w / "conf" / "bad.yaml", "max_calls: [1, \n")
    _write(w / "conf" / "list.yaml", "- max_calls\n- 3\n")
    _write(w / "conf" / "unknown.toml", "colour = 'blue'\n")
    _write(w / "conf" / "settings.ini", "[x]\nmax_calls = 3\n")
    _write(w / "conf" / "calls-text.toml", "max_calls = 'abc'\n")
    _write(w / "conf" / "calls-bool.toml", "max_calls = true\n")
    _write(w / "conf" / "toolset.yaml", "toolset: nope\n")
    _write(w / "conf" / "timeout.toml", "timeout = -1\n")
    _write(w / "conf" / "samples.toml", "samples = 0\n")
    _write(w / "conf" / "inf.toml", "max_time = inf\n")
    _write(w / "conf" / "trust.toml", "memory_trust = 'everyone'\n")
    _write(w / "conf" / "trust-number.toml", "memory_trust = 3\n")
    _write(w / "conf" / "memory-empty.toml", "memory = ''\n")
    _write(w / "conf" / "memory-number.toml", "memory = 3\n")
    (w / "conf" / "a-dir.toml").mkdir()
    # A finished run directory (one line per attempt), for report and compare.
    row = {"instance_id": "tinycalc-0", "sample": 0, "resolved": True, "agent": "oracle",
           "toolset": "gradlefixer", "model": "none", "status": "success", "stop": "resolved",
           "stop_reason": "resolved", "llm_calls": 0,
           "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "tool_counts": {}, "duration_s": 1.0,
           "patch": "", "trajectory": "t.json", "origin": "human", "category": "syntax"}  # fmt: skip
    _write(w / "run1" / "results.jsonl", json.dumps(row) + "\n")
    _write(w / "run-corrupt" / "results.jsonl", json.dumps(row) + "\n{not json\n" + json.dumps(row) + "\n")
    _write(w / "run-no-resolved" / "results.jsonl", json.dumps({"instance_id": "x", "sample": 0}) + "\n")
    return w


# Valid starts of command lines the cases add one bad option to ({w} is the world).
BUILD = ["build", "{w}/project"]
FIX = ["fix", "{w}/project"]
VALIDATE = ["bench", "validate", "{w}/dataset.jsonl"]
RUN = ["bench", "run", "{w}/dataset.jsonl", "--out", "{w}/out"]
HUMAN = ["curate", "human", "{w}/repo", "--out", "{w}/data/d.jsonl"]
DEPENDENCY = ["curate", "dependency", "{w}/repo", "--out", "{w}/data/d.jsonl"]
LLM = ["curate", "llm", "{w}/repo", "--out", "{w}/data/d.jsonl"]
SPLIT = ["curate", "split", "{w}/dataset.jsonl", "--out", "{w}/splits"]

# Each case: the arguments of one bad command line (every provider key is unset for all of them).
MEMORY_ADD = ["memory", "add", "--error", "boom"]
CASES: dict[str, list[str]] = {
    # -- buildfixer (no command, unknown command) ----------------------------------------------
    "top: unknown command": ["nosuchcommand"],
    "top: unknown option": ["--nope"],
    # -- build ---------------------------------------------------------------------------------
    "build: missing path": ["build", "{w}/nope"],
    "build: path is a file": ["build", "{w}/file.txt"],
    "build: no build in dir": ["build", "{w}/emptydir-with-notes"],
    "build: default path has no build": ["build"],
    "build: jdk 0": [*BUILD, "--jdk", "0"],
    "build: jdk negative": [*BUILD, "--jdk", "-1"],
    "build: jdk not installed": [*BUILD, "--jdk", "4"],
    "build: jdk huge": [*BUILD, "--jdk", "100000000000000000000"],
    "build: jdk not a number": [*BUILD, "--jdk", "seventeen"],
    "build: timeout 0": [*BUILD, "--timeout", "0"],
    "build: timeout negative": [*BUILD, "--timeout", "-5"],
    "build: timeout nan": [*BUILD, "--timeout", "nan"],
    "build: timeout inf": [*BUILD, "--timeout", "inf"],
    "build: timeout huge": [*BUILD, "--timeout", "1e308"],
    "build: unknown system": [*BUILD, "--system", "nope"],
    "build: system not in project": [*BUILD, "--system", "maven"],
    "build: patch missing": [*BUILD, "--patch", "{w}/nope.patch"],
    "build: patch is a dir": [*BUILD, "--patch", "{w}/emptydir"],
    "build: patch not a diff": [*BUILD, "--patch", "{w}/not-a-diff.patch"],
    "build: empty task": [*BUILD, "--task", ""],
    "build: extra argument": [*BUILD, "{w}/project"],
    # -- analyze -------------------------------------------------------------------------------
    "judge: missing project": ["judge", "{w}/nope", "--patch", "{w}/gold.patch"],
    "judge: project is a file": ["judge", "{w}/file.txt", "--patch", "{w}/gold.patch"],
    "judge: no patch given": ["judge", "{w}/project"],
    "judge: patch missing": ["judge", "{w}/project", "--patch", "{w}/nope.patch"],
    "judge: patch is a dir": ["judge", "{w}/project", "--patch", "{w}/emptydir"],
    "judge: patch not a diff": ["judge", "{w}/project", "--patch", "{w}/not-a-diff.patch"],
    "judge: patch with a broken hunk": ["judge", "{w}/project", "--patch", "{w}/broken-hunk.patch"],
    "memory add: no error": ["memory", "add", "--note", "advice"],
    "memory add: empty error": ["memory", "add", "--error", " ", "--note", "advice"],
    "memory add: neither patch nor note": ["memory", "add", "--error", "boom"],
    "memory add: patch and note": [*MEMORY_ADD, "--note", "x", "--patch", "{w}/gold.patch"],
    "memory add: patch not a diff": ["memory", "add", "--error", "boom", "--patch", "{w}/not-a-diff.patch"],
    "memory add: unknown build system": [*MEMORY_ADD, "--note", "x", "--build-system", "ant"],
    "memory add: db is a dir": ["memory", "add", "--error", "boom", "--note", "x", "--db", "{w}/emptydir"],
    "memory import: missing source": ["memory", "import", "{w}/nope.jsonl"],
    "memory import: malformed jsonl": ["memory", "import", "{w}/malformed.jsonl"],
    "memory import: binary file": ["memory", "import", "{w}/binary.log"],
    "memory search: empty error": ["memory", "search", ""],
    "memory search: limit 0": ["memory", "search", "boom", "--limit", "0"],
    "memory search: unknown build system": ["memory", "search", "boom", "--build-system", "ant"],
    "memory stats: db not a database": ["memory", "stats", "--db", "{w}/file.txt"],
    "memory export: out is a dir": ["memory", "export", "--out", "{w}/emptydir"],
    "memory export: no out": ["memory", "export"],
    "analyze: missing log": ["analyze", "{w}/missing.log"],
    "analyze: log is a dir": ["analyze", "{w}/emptydir"],
    "analyze: binary log": ["analyze", "{w}/binary.log"],
    "analyze: no log given": ["analyze"],
    "analyze: budget 0": ["analyze", "{w}/file.txt", "--condensed", "--budget", "0"],
    "analyze: budget negative": ["analyze", "{w}/file.txt", "--condensed", "--budget", "-10"],
    "analyze: budget huge": ["analyze", "{w}/file.txt", "--condensed", "--budget", "100000000000000000000"],
    "analyze: budget without condensed": ["analyze", "{w}/file.txt", "--budget", "500"],
    # -- jdks, toolsets --------------------------------------------------------------------------
    "jdks: extra argument": ["jdks", "17"],
    "toolsets: unknown system": ["toolsets", "--system", "nope"],
    # -- mcp -----------------------------------------------------------------------------------
    "mcp: missing path": ["mcp", "{w}/nope"],
    "mcp: path is a file": ["mcp", "{w}/file.txt"],
    "mcp: no build in dir": ["mcp", "{w}/emptydir-with-notes"],
    "mcp: unknown toolset": ["mcp", "{w}/project", "--toolset", "nope"],
    "mcp: unknown mask": ["mcp", "{w}/project", "--mask", "nope"],
    "mcp: port out of range": ["mcp", "{w}/project", "--http", "65536"],
    "mcp: port negative": ["mcp", "{w}/project", "--http", "-1"],
    "mcp: port not a number": ["mcp", "{w}/project", "--http", "abc"],
    "mcp: jdk not installed": ["mcp", "{w}/project", "--jdk", "3"],
    "mcp: timeout 0": ["mcp", "{w}/project", "--timeout", "0"],
    "mcp: timeout nan": ["mcp", "{w}/project", "--timeout", "nan"],
    "mcp: unknown memory trust": ["mcp", "{w}/project", "--memory-trust", "everyone"],
    # -- examples ------------------------------------------------------------------------------
    "examples: unknown example": ["examples", "--only", "nope"],
    "examples: keep is a file": ["examples", "--keep", "{w}/file.txt"],
    "examples: keep under a file": ["examples", "--keep", "{w}/file.txt/sub"],
    "examples: list and fix": ["examples", "--list", "--fix"],
    "examples: model without fix": ["examples", "--model", "scripted:{w}/script.json"],
    "examples: fix with unknown provider": ["examples", "--fix", "--model", "nosuchprovider/x"],
    "examples: fix with missing key": ["examples", "--fix", "--model", "openai/gpt-4.1"],
    "examples: fix with missing script": ["examples", "--fix", "--model", "scripted:{w}/nope.json"],
    "examples: fix with malformed script": ["examples", "--fix", "--model", "scripted:{w}/bad-script.json"],
    # -- fix -----------------------------------------------------------------------------------
    "fix: missing path": ["fix", "{w}/nope"],
    "fix: path is a file": ["fix", "{w}/file.txt"],
    "fix: no build in dir": ["fix", "{w}/emptydir-with-notes"],
    "fix: unknown toolset": [*FIX, "--toolset", "nope"],
    "fix: unknown agent": [*FIX, "--agent", "nope"],
    "fix: unknown mask": [*FIX, "--mask", "nope"],
    "fix: max-calls 0": [*FIX, "--max-calls", "0"],
    "fix: max-calls negative": [*FIX, "--max-calls", "-1"],
    "fix: max-calls not a number": [*FIX, "--max-calls", "abc"],
    "fix: max-tokens 0": [*FIX, "--max-tokens", "0"],
    "fix: max-tokens negative": [*FIX, "--max-tokens", "-5"],
    "fix: max-cost 0": [*FIX, "--max-cost", "0"],
    "fix: max-cost negative": [*FIX, "--max-cost", "-1"],
    "fix: max-cost nan": [*FIX, "--max-cost", "nan"],
    "fix: max-cost inf": [*FIX, "--max-cost", "inf"],
    "fix: max-time 0": [*FIX, "--max-time", "0"],
    "fix: max-time negative": [*FIX, "--max-time", "-1"],
    "fix: max-time nan": [*FIX, "--max-time", "nan"],
    "fix: max-time inf": [*FIX, "--max-time", "inf"],
    "fix: max-time huge": [*FIX, "--max-time", "1e308"],
    "fix: temperature negative": [*FIX, "--temperature", "-1"],
    "fix: temperature too high": [*FIX, "--temperature", "5"],
    "fix: temperature nan": [*FIX, "--temperature", "nan"],
    "fix: max-output-tokens 0": [*FIX, "--max-output-tokens", "0"],
    "fix: max-output-tokens negative": [*FIX, "--max-output-tokens", "-1"],
    "fix: max-output-tokens huge": [*FIX, "--max-output-tokens", "100000000000000"],
    "fix: seed negative": [*FIX, "--seed", "-1"],
    "fix: seed huge": [*FIX, "--seed", "100000000000000000000000"],
    "fix: jdk 0": [*FIX, "--jdk", "0"],
    "fix: jdk negative": [*FIX, "--jdk", "-3"],
    "fix: jdk not installed": [*FIX, "--jdk", "4"],
    "fix: timeout 0": [*FIX, "--timeout", "0"],
    "fix: timeout negative": [*FIX, "--timeout", "-1"],
    "fix: timeout nan": [*FIX, "--timeout", "nan"],
    "fix: timeout inf": [*FIX, "--timeout", "inf"],
    "fix: timeout huge": [*FIX, "--timeout", "1e308"],
    "fix: trajectory is a dir": [*FIX, "--trajectory", "{w}/emptydir"],
    "fix: trajectory under a file": [*FIX, "--trajectory", "{w}/file.txt/t.json"],
    "fix: unknown provider": [*FIX, "--model", "nosuchprovider/x"],
    "fix: model without provider": [*FIX, "--model", "gpt-nonexistent-model-xyz"],
    "fix: missing key": [*FIX, "--model", "openai/gpt-4.1"],
    "fix: missing key in cascade": [*FIX, "--agent", "cascade",
                                    "--model", "scripted:{w}/script.json,anthropic/claude-sonnet-4-5"],
    "fix: empty cascade": [*FIX, "--agent", "cascade", "--model", ","],
    "fix: missing script": [*FIX, "--model", "scripted:{w}/nope.json"],
    "fix: malformed script": [*FIX, "--model", "scripted:{w}/bad-script.json"],
    "fix: empty scripted": [*FIX, "--model", "scripted:"],
    "fix: config missing": [*FIX, "--config", "{w}/conf/nope.toml"],
    "fix: config is a dir": [*FIX, "--config", "{w}/conf/a-dir.toml"],
    "fix: config bad toml": [*FIX, "--config", "{w}/conf/bad.toml"],
    "fix: config bad yaml": [*FIX, "--config", "{w}/conf/bad.yaml"],
    "fix: config yaml list": [*FIX, "--config", "{w}/conf/list.yaml"],
    "fix: config unknown key": [*FIX, "--config", "{w}/conf/unknown.toml"],
    "fix: config unknown format": [*FIX, "--config", "{w}/conf/settings.ini"],
    "fix: config max_calls text": [*FIX, "--config", "{w}/conf/calls-text.toml"],
    "fix: config max_calls bool": [*FIX, "--config", "{w}/conf/calls-bool.toml"],
    "fix: config unknown toolset": [*FIX, "--config", "{w}/conf/toolset.yaml"],
    "fix: config negative timeout": [*FIX, "--config", "{w}/conf/timeout.toml"],
    "fix: config max_time inf": [*FIX, "--config", "{w}/conf/inf.toml"],
    "fix: unknown option": [*FIX, "--colour", "blue"],
    "fix: unknown memory trust": [*FIX, "--memory-trust", "everyone"],
    "fix: empty memory trust": [*FIX, "--memory-trust", ""],
    "fix: config unknown memory trust": [*FIX, "--config", "{w}/conf/trust.toml"],
    "fix: config memory trust a number": [*FIX, "--config", "{w}/conf/trust-number.toml"],
    # -- bench validate ------------------------------------------------------------------------
    "validate: missing dataset": ["bench", "validate", "{w}/nope.jsonl"],
    "validate: empty dir": ["bench", "validate", "{w}/emptydir"],
    "validate: empty file": ["bench", "validate", "{w}/empty.jsonl"],
    "validate: malformed dataset": ["bench", "validate", "{w}/malformed.jsonl"],
    "validate: missing repository": ["bench", "validate", "{w}/missing-repo.jsonl"],
    "validate: repeats 0": [*VALIDATE, "--repeats", "0"],
    "validate: repeats negative": [*VALIDATE, "--repeats", "-1"],
    "validate: repeats huge": [*VALIDATE, "--repeats", "1000000000000"],
    "validate: workers 0": [*VALIDATE, "--workers", "0"],
    "validate: workers huge": [*VALIDATE, "--workers", "1000000000000"],
    "validate: jdk 0": [*VALIDATE, "--jdk", "0"],
    "validate: jdk not installed": [*VALIDATE, "--jdk", "4"],
    "validate: timeout 0": [*VALIDATE, "--timeout", "0"],
    "validate: timeout nan": [*VALIDATE, "--timeout", "nan"],
    "validate: timeout inf": [*VALIDATE, "--timeout", "inf"],
    "validate: only matches nothing": [*VALIDATE, "--only", "nope-*"],
    "validate: log-dir is a file": [*VALIDATE, "--log-dir", "{w}/file.txt"],
    # -- bench run -----------------------------------------------------------------------------
    "run: missing dataset": ["bench", "run", "{w}/nope.jsonl", "--out", "{w}/out"],
    "run: malformed dataset": ["bench", "run", "{w}/malformed.jsonl", "--out", "{w}/out"],
    "run: empty dataset": ["bench", "run", "{w}/empty.jsonl", "--out", "{w}/out"],
    "run: missing repository": ["bench", "run", "{w}/missing-repo.jsonl", "--out", "{w}/out",
                                "--agent", "oracle"],
    "run: no out": ["bench", "run", "{w}/dataset.jsonl"],
    "run: out is a file": ["bench", "run", "{w}/dataset.jsonl", "--out", "{w}/file.txt", "--agent", "oracle"],
    "run: out under a file": ["bench", "run", "{w}/dataset.jsonl", "--out", "{w}/file.txt/out",
                              "--agent", "oracle"],
    "run: out holds another run": ["bench", "run", "{w}/dataset.jsonl", "--out", "{w}/run1",
                                   "--agent", "none"],
    "run: out holds unknown files": ["bench", "run", "{w}/dataset.jsonl", "--out", "{w}/project",
                                     "--agent", "none"],
    "run: unknown toolset": [*RUN, "--toolset", "nope"],
    "run: unknown mask": [*RUN, "--mask", "nope"],
    "run: unknown agent": [*RUN, "--agent", "nope"],
    "run: max-calls negative": [*RUN, "--max-calls", "-1"],
    "run: max-tokens negative": [*RUN, "--max-tokens", "-1"],
    "run: max-cost negative": [*RUN, "--max-cost", "-1"],
    "run: max-time negative": [*RUN, "--max-time", "-1"],
    "run: max-time inf": [*RUN, "--max-time", "inf"],
    "run: temperature too high": [*RUN, "--temperature", "3"],
    "run: samples 0": [*RUN, "--samples", "0"],
    "run: samples negative": [*RUN, "--samples", "-1"],
    "run: samples huge": [*RUN, "--samples", "1000000000000"],
    "run: workers 0": [*RUN, "--workers", "0"],
    "run: workers negative": [*RUN, "--workers", "-1"],
    "run: workers huge": [*RUN, "--workers", "1000000000000"],
    "run: attempt-timeout 0": [*RUN, "--attempt-timeout", "0"],
    "run: attempt-timeout negative": [*RUN,
                                      "--attempt-timeout", "-1"],
    "run: attempt-timeout nan": [*RUN,
                                 "--attempt-timeout", "nan"],
    "run: attempt-timeout inf": [*RUN,
                                 "--attempt-timeout", "inf"],
    "run: attempt-timeout huge": [*RUN,
                                  "--attempt-timeout", "1e308"],
    "run: build-timeout negative": [*RUN,
                                    "--build-timeout", "-1"],
    "run: build-timeout inf": [*RUN, "--build-timeout", "inf"],
    "run: unknown backend": [*RUN, "--backend", "nope"],
    "run: only matches nothing": [*RUN, "--only", "nope"],
    "run: unknown provider": [*RUN, "--model", "nosuchprovider/x"],
    "run: missing key": [*RUN, "--model", "openai/gpt-4.1"],
    "run: missing script": [*RUN,
                            "--model", "scripted:{w}/nope.json"],
    "run: no model for the tool agent": [*RUN],
    "run: config bad toml": [*RUN,
                             "--config", "{w}/conf/bad.toml"],
    "run: config unknown key": [*RUN,
                                "--config", "{w}/conf/unknown.toml"],
    "run: config samples 0": [*RUN,
                              "--config", "{w}/conf/samples.toml"],
    "run: config is a dir": [*RUN,
                             "--config", "{w}/conf/a-dir.toml"],
    "run: unknown memory trust": [*RUN, "--agent", "oracle", "--memory-trust", "everyone"],
    "run: config unknown memory trust": [*RUN, "--agent", "oracle", "--config", "{w}/conf/trust.toml"],
    "run: memory is a dir": [*RUN, "--agent", "oracle", "--memory", "{w}/emptydir"],
    "run: memory under a file": [*RUN, "--agent", "oracle", "--memory", "{w}/file.txt/m.sqlite3"],
    "run: memory not a database": [*RUN, "--agent", "oracle", "--memory", "{w}/file.txt"],
    "run: config memory empty": [*RUN, "--agent", "oracle", "--config", "{w}/conf/memory-empty.toml"],
    "run: config memory a number": [*RUN, "--agent", "oracle", "--config", "{w}/conf/memory-number.toml"],
    # -- bench report, compare -----------------------------------------------------------------
    "report: missing dir": ["bench", "report", "{w}/nope"],
    "report: a file": ["bench", "report", "{w}/file.txt"],
    "report: empty dir": ["bench", "report", "{w}/emptydir"],
    "report: unknown format": ["bench", "report", "{w}/run1", "--format", "pdf"],
    "report: corrupt results": ["bench", "report", "{w}/run-corrupt"],
    "report: results without resolved": ["bench", "report", "{w}/run-no-resolved"],
    "compare: one run": ["bench", "compare", "{w}/run1"],
    "compare: missing dir": ["bench", "compare", "{w}/run1", "{w}/nope"],
    "compare: unknown format": ["bench", "compare", "{w}/run1", "{w}/run1", "--format", "pdf"],
    "compare: out under a missing dir": ["bench", "compare", "{w}/run1", "{w}/run1",
                                         "--out", "{w}/nope/c.md"],
    "compare: out under a file": ["bench", "compare", "{w}/run1", "{w}/run1", "--out", "{w}/file.txt/c.md"],
    # -- curate human / dependency / llm -------------------------------------------------------
    "curate: missing repository": ["curate", "human", "{w}/nope", "--out", "{w}/data/d.jsonl"],
    "curate: repository is a plain dir": ["curate", "human", "{w}/emptydir", "--out", "{w}/data/d.jsonl"],
    "curate: out is a dir": ["curate", "human", "{w}/repo", "--out", "{w}/emptydir"],
    "curate: out under a file": ["curate", "human", "{w}/repo", "--out", "{w}/file.txt/d.jsonl"],
    "curate: out is not a dataset": ["curate", "human", "{w}/repo", "--out", "{w}/binary.log"],
    "curate: limit 0": [*HUMAN, "--limit", "0"],
    "curate: limit negative": [*DEPENDENCY, "--limit", "-1"],
    "curate: workers 0": [*HUMAN, "--workers", "0"],
    "curate: workers huge": [*HUMAN,
                             "--workers", "1000000000000"],
    "curate: unknown backend": [*HUMAN, "--backend", "nope"],
    "curate: repeats 0": [*DEPENDENCY, "--repeats", "0"],
    "curate: repeats huge": [*DEPENDENCY,
                             "--repeats", "1000000000000"],
    "curate: max-files 0": [*HUMAN, "--max-files", "0"],
    "curate: max-lines negative": [*HUMAN,
                                   "--max-lines", "-1"],
    "curate: max-commits 0": [*HUMAN, "--max-commits", "0"],
    "curate: jdk 0": [*HUMAN, "--jdk", "0"],
    "curate: jdk not installed": [*HUMAN, "--jdk", "4"],
    "curate: timeout 0": [*HUMAN, "--timeout", "0"],
    "curate: timeout nan": [*HUMAN, "--timeout", "nan"],
    "curate: timeout inf": [*HUMAN, "--timeout", "inf"],
    "curate: bad name": [*HUMAN, "--name", "a/b"],
    "curate: unknown system": [*HUMAN, "--system", "nope"],
    "curate: empty build command": [*HUMAN,
                                    "--build-command", " "],
    "curate: ranges missing": [*HUMAN,
                               "--ranges", "{w}/nope.txt"],
    "curate: ranges malformed": [*HUMAN,
                                 "--ranges", "{w}/ranges-malformed.txt"],
    "curate: ranges is a dir": [*HUMAN,
                                "--ranges", "{w}/emptydir"],
    "curate: build-cache is a file": [*HUMAN,
                                      "--build-cache", "{w}/file.txt"],
    "curate: unknown revision": [*HUMAN, "--rev", "v9"],
    "curate: human with --model": [*HUMAN,
                                   "--model", "openai/gpt-4.1"],
    "curate llm: no model": [*LLM],
    "curate llm: unknown provider": [*LLM,
                                     "--model", "nosuchprovider/x"],
    "curate llm: missing key": [*LLM,
                                "--model", "openai/gpt-4.1"],
    "curate llm: missing script": [*LLM,
                                   "--model", "scripted:{w}/nope.json"],
    "curate llm: notes missing": [*LLM,
                                  "--model", "scripted:{w}/script.json", "--notes", "{w}/nope.md"],
    "curate llm: notes is a dir": [*LLM,
                                   "--model", "scripted:{w}/script.json", "--notes", "{w}/notes-dir"],
    # -- curate split --------------------------------------------------------------------------
    "split: missing dataset": ["curate", "split", "{w}/nope.jsonl", "--out", "{w}/splits"],
    "split: malformed dataset": ["curate", "split", "{w}/malformed.jsonl", "--out", "{w}/splits"],
    "split: val negative": [*SPLIT, "--val", "-0.1"],
    "split: test above 1": [*SPLIT, "--test", "1.5"],
    "split: val nan": [*SPLIT, "--val", "nan"],
    "split: shares add up past 1": [*SPLIT,
                                    "--val", "0.6", "--test", "0.6"],
    "split: subset 0": [*SPLIT, "--subset", "0"],
    "split: subset larger than test": [*SPLIT,
                                       "--subset", "1000"],
    "split: out is a file": ["curate", "split", "{w}/dataset.jsonl", "--out", "{w}/file.txt"],
    "split: out under a file": ["curate", "split", "{w}/dataset.jsonl", "--out", "{w}/file.txt/s"],
}  # fmt: skip


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under root with its size and modification time."""
    found = {}
    for path in sorted(root.rglob("*")):
        stat = path.lstat()
        found[str(path.relative_to(root))] = (stat.st_size if path.is_file() else 0, stat.st_mtime_ns)
    return found


def run_main(args: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`buildfixer ARGS` in this process: (exit code, stdout, stderr)."""
    sys.argv = ["buildfixer", *args]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capfd.readouterr()
    return code, out, err


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_refused_in_one_line(
    case: str, world: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BUILDFIXER_CACHE_DIR", str(world / "cache"))
    monkeypatch.chdir(world / "cwd")
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    args = [part.replace("{w}", str(world)) for part in CASES[case]]
    before = snapshot(world)
    capfd.readouterr()
    code, out, err = run_main(args, capfd)
    after = snapshot(world)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, f"exit {code}; stderr: {err[-2000:]}"
    assert len(lines) == 1 and "Traceback" not in err, err[-2000:]
    assert lines[0].startswith("buildfixer: error: "), lines[0]
    assert out == "", out[-2000:]
    changed = sorted(p for p in before if p in after and before[p] != after[p])
    written = sorted(set(after) - set(before)) + changed
    removed = sorted(set(before) - set(after))
    assert written == [] and removed == [], f"written: {written[:10]}, removed: {removed[:10]}"
