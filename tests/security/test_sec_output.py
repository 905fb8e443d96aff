"""Attacks through what buildfixer shows and serves: terminals, local servers, search commands, run folders.

1. Control characters: a model, a build or a data file writes escape sequences, C1 controls, a lone
   carriage return or bidi overrides; a terminal would obey them (erase or rewrite lines, hide text
   of the patch under review, set the title). Held means: every human-readable output shows them
   spelled out (`\\x1b`, `\\u202e`), while a patch piped to a file stays byte-exact for `git apply`
   and `--json` stays exact (JSON escapes controls; buildfixer prints it ASCII).
2. Cross-site requests: a web page the user visits sends requests to `env serve` or the viewer on
   127.0.0.1, or rebinds a name of its own to it. Held means: 403, before anything is done.
3. Option injection: the model's search query starting with `-` reaches the configured search
   command. Held means: `--` comes before it, so the command reads it as the query, never an option.
4. Files named by a run folder: a trajectory (data, maybe someone else's) names a file outside the
   run, or a symlink, or a FIFO, as its log or as itself. Held means: that file is neither copied
   into a `view bundle` nor served by the live viewer ("log not available"), and nothing hangs.
"""

from __future__ import annotations

import http.client
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from email.message import Message
from io import StringIO
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from support import projects
from support.git import Repo
from support.model import scripted

CLI = [sys.executable, "-m", "buildfixer"]

# One of each kind of character a terminal obeys, and how it must be shown instead.
CONTROLS = {
    "\x1b[2K\x1b[1A": "\\x1b[2K\\x1b[1A",  # erase the line, cursor up: hides the line above
    "\x1b]0;pwned\x07": "\\x1b]0;pwned\\x07",  # OSC: sets the window title
    "\x1b[8m": "\\x1b[8m",  # SGR conceal: the rest of the line is invisible
    "\x9b2K": "\\x9b2K",  # C1 CSI: the same erase on terminals reading 8-bit controls
    "ok\rEVIL": "ok\\x0dEVIL",  # a lone carriage return: EVIL overwrites the line
    "\u202eevil": "\\u202eevil",  # right-to-left override: the line reads reversed
    "\u2066iso": "\\u2066iso",  # left-to-right isolate
    "\x7f": "\\x7f",  # DEL
    "\x08": "\\x08",  # backspace: overwrites the character before
}
HOSTILE = "|".join(CONTROLS)
# Raw characters no terminal output may hold (CRLF is a line end; the pty turns \n into \r\n).
UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")


def raw_controls(text: str) -> list[str]:
    return UNSAFE.findall(text)


def spelled(text: str, kinds: list[str] | None = None) -> list[str]:
    """The kinds of control whose spelled-out form is missing from text."""
    return [raw for raw in kinds or list(CONTROLS) if CONTROLS[raw] not in text]


def on_terminal(args: list[str], env: dict[str, str] | None = None, timeout: float = 60) -> tuple[int, str]:
    """Run the CLI with stdout and stderr on a pseudo-terminal; (exit code, everything shown).

    TERM=dumb: rich still sees a terminal but adds no styling, so any escape in the output came
    from the data.
    """
    primary, secondary = pty.openpty()
    full_env = {**os.environ, "TERM": "dumb", "COLUMNS": "500", **(env or {})}
    proc = subprocess.Popen([*CLI, *args], stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary,
                            env=full_env)  # fmt: skip
    os.close(secondary)
    chunks = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([primary], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(primary)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return proc.returncode, b"".join(chunks).decode("utf-8", "replace")


def run(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The CLI's exit code and output; decoded here, as text=True would turn a lone \\r into \\n."""
    done = subprocess.run([*CLI, *args], capture_output=True, timeout=timeout)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def json_is_exact(out: str, *expected: str) -> None:
    """`--json` output: ASCII only (nothing a terminal obeys), and the data in it exact."""
    assert out.isascii() and not raw_controls(out), out
    for text in expected:
        assert json.dumps(text)[1:-1] in out


# ---- 1. control characters on a terminal --------------------------------------------------------

@pytest.fixture
def npm_project(tmp_path: Path) -> Path:
    """A git project whose build (`node --check`) fails on a stray brace."""
    repo = Repo(projects.npm_project(tmp_path / "project"))
    repo.commit("broken")
    return repo.path


# Added by the repair: a line per kind of control, and a line longer than a terminal is wide. The
# lone \r comes last: the judge's diff parser reads it as a line break, and mid-hunk that is an error.
HOSTILE_LINES = (
    "".join(f"// {raw}\n" for raw in CONTROLS if raw != "ok\rEVIL")
    + f"// {'x' * 200}TAIL-OF-A-LONG-LINE\n// ok\rEVIL\n"
)


def hostile_fix(tmp_path: Path, project: Path) -> list[str]:
    """`fix --dry-run` with a scripted model that writes every kind of control into its repair.

    It first calls a tool whose name holds controls too (the progress line shows it).
    """
    steps = [
        {"tool_calls": [{"name": "\x1b[2K\x1b[1Afake_tool", "arguments": {}}]},
        {"tool_calls": [{"name": "replace", "arguments": {
            "file_path": "app.js", "old_string": "}}\n", "new_string": "}\n" + HOSTILE_LINES}}]},
        {"content": "Fixed the brace."},
    ]  # fmt: skip
    model = scripted(tmp_path / "script.json", steps)
    return ["fix", str(project), "--model", model, "--dry-run", "--no-sandbox",
            "--trajectory", str(tmp_path / "trajectory.json")]  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_a_dry_run_on_a_terminal_shows_the_patch_and_tool_names_spelled_out(
    tmp_path: Path, npm_project: Path
) -> None:
    code, shown = on_terminal(hostile_fix(tmp_path, npm_project))
    assert "diff --git a/app.js b/app.js" in shown, shown
    assert not raw_controls(shown), raw_controls(shown)
    assert not spelled(shown), spelled(shown)  # every line of the patch can be read
    assert "\\x1b[2K\\x1b[1Afake_tool" in shown  # the progress line of the tool call
    assert "TAIL-OF-A-LONG-LINE" in shown  # wrapped, not cut at the terminal's width
    assert code in (0, 1), shown  # resolved or not, the patch is what is reviewed


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_a_dry_run_piped_gives_the_patch_byte_for_byte(tmp_path: Path, npm_project: Path) -> None:
    done = run(hostile_fix(tmp_path, npm_project))
    assert "diff --git a/app.js b/app.js" in done.stdout, done.stdout + done.stderr
    assert (npm_project / "app.js").read_text() == projects.BROKEN_JS  # a dry run
    subprocess.run(["git", "apply"], cwd=npm_project, input=done.stdout.encode(), check=True)
    assert (npm_project / "app.js").read_bytes() == (projects.FIXED_JS + HOSTILE_LINES).encode()
    assert not raw_controls(done.stderr)  # the progress lines are for a person


# The analyzer itself drops escape sequences and keeps what a \r overwrites: the rest reach the output.
ANALYZED = [raw for raw in CONTROLS if not raw.startswith(("\x1b", "ok\r"))]


def test_analyze_shows_a_logs_controls_spelled_out(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    log.write_text(
        "[INFO] Building calc 1.0\n[INFO] --- maven-compiler-plugin:3.11.0:compile (default-compile) ---\n"
        "[ERROR] COMPILATION ERROR :\n"
        f"[ERROR] /w/src/main/java/demo/Calc.java:[12,30] ';' expected {'|'.join(ANALYZED)}\n"
        "[INFO] 1 error\n[INFO] BUILD FAILURE\n"
    )
    for extra in ([], ["--condensed"]):
        done = run(["analyze", str(log), *extra])
        assert done.returncode == 0 and "Calc.java" in done.stdout, done.stderr
        assert not raw_controls(done.stdout), (extra, raw_controls(done.stdout))
        assert not spelled(done.stdout, ANALYZED), (extra, spelled(done.stdout, ANALYZED))
    done = run(["analyze", str(log), "--json"])
    json_is_exact(done.stdout)
    assert "\u202eevil" in json.loads(done.stdout)["errors"][0]["message"]


def test_judge_shows_the_patchs_file_names_spelled_out(tmp_path: Path) -> None:
    kinds = [raw for raw in CONTROLS if raw != "ok\rEVIL"]  # a line break would end the diff's line
    name = f"tests/test_{'_'.join(kinds)}.py"
    patch = tmp_path / "fix.patch"
    patch.write_text(
        f"diff --git a/{name} b/{name}\ndeleted file mode 100644\nindex 1111111..0000000\n"
        f"--- a/{name}\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def test_a():\n-    assert 1 + 1 == 2\n"
    )
    project = tmp_path / "project"
    project.mkdir()
    done = run(["judge", str(project), "--patch", str(patch)])
    assert done.returncode == 1 and "test_deleted" in done.stdout, done.stdout + done.stderr
    assert not raw_controls(done.stdout), raw_controls(done.stdout)
    assert not spelled(done.stdout, kinds), spelled(done.stdout, kinds)
    done = run(["judge", str(project), "--patch", str(patch), "--json"])
    json_is_exact(done.stdout, name)


def test_memory_search_and_error_messages_show_imported_text_spelled_out(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    entries = tmp_path / "shared.jsonl"
    entry = {"kind": "repair", "error": f"cannot find symbol Foo {HOSTILE}", "category": "missing_symbol",
             "build_system": "maven", "files": [f"src/{HOSTILE}.java"], "patch": "-"}  # fmt: skip
    entries.write_text(json.dumps(entry) + "\n")
    assert run(["memory", "import", str(entries), "--db", db]).returncode == 0
    done = run(["memory", "search", "cannot find symbol Foo", "--db", db])
    assert "#1 repair" in done.stdout, done.stdout + done.stderr
    assert not raw_controls(done.stdout), raw_controls(done.stdout)
    assert not spelled(done.stdout), spelled(done.stdout)  # the file names hold every kind
    done = run(["memory", "search", "cannot find symbol Foo", "--db", db, "--json"])
    json_is_exact(done.stdout, entry["error"])
    # An error message quoting the file's data (an instance id) goes to the terminal too.
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"instance_id": f"x{HOSTILE}", "gold_patch": "", "error_log": ""}) + "\n")
    done = run(["memory", "import", str(bad), "--db", db])
    assert done.returncode == 2 and "has no gold_patch" in done.stderr, done.stderr
    assert not raw_controls(done.stderr), raw_controls(done.stderr)
    kinds = [raw for raw in CONTROLS if raw != "ok\rEVIL"]  # a line break in a message becomes a space
    assert not spelled(done.stderr, kinds), spelled(done.stderr, kinds)


def test_progress_lines_show_controls_spelled_out(capsys: pytest.CaptureFixture[str]) -> None:
    from rich.console import Console

    from buildfixer.bench.progress_bar import attempt_line
    from buildfixer.bench.validate import ValidationResult
    from buildfixer.cli.bench_commands import validation_line
    from buildfixer.cli.fix_render import ProgressPrinter
    from buildfixer.core.chat import Usage
    from buildfixer.curate.filters import Outcome
    from buildfixer.curate.progress import outcome_line

    printer = ProgressPrinter()  # `fix`'s live lines: tool names and reasons come from the model
    printer("step", {"step": 1, "calls": 1, "usage": Usage(), "recipe": HOSTILE})
    printer("tool", {"name": HOSTILE, "error": True, "seconds": 0.1})
    printer("stop", {"reason": HOSTILE})
    lines = [capsys.readouterr().err]
    # `bench run`'s and `curate`'s live lines (rich markup) and `bench validate`'s (plain).
    console = Console(file=StringIO(), force_terminal=True, color_system=None, width=500)
    row = {"resolved": False, "instance_id": HOSTILE, "sample": 0, "status": HOSTILE, "stop": HOSTILE}
    console.print(attempt_line(row))
    console.print(outcome_line(Outcome(key=HOSTILE, mode="history", accepted=False, filter="size",
                                       reason=HOSTILE)))  # fmt: skip
    lines.append(console.file.getvalue())  # type: ignore[attr-defined]
    lines.append(validation_line(ValidationResult(instance_id=HOSTILE, valid=False, reasons=[HOSTILE])))
    for shown in lines:
        assert not raw_controls(shown), (shown, raw_controls(shown))
        assert not spelled(shown), (shown, spelled(shown))


def test_bench_report_on_a_terminal_spells_out_the_runs_data(run_folder: Path) -> None:
    code, shown = on_terminal(["bench", "report", str(run_folder)])  # the model's name is the run's data
    assert code == 0 and "Benchmark report" in shown, shown
    assert not raw_controls(shown), raw_controls(shown)
    kinds = [raw for raw in CONTROLS if raw != "ok\rEVIL"]  # a label is one line
    assert not spelled(shown, kinds), spelled(shown, kinds)


# ---- 2. cross-site requests to the local servers ------------------------------------------------


def send(port: int, method: str, headers: dict[str, str]) -> int:
    """The status of one request with exactly these headers (no Host unless given)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    path = "/close" if method == "POST" else "/data.js"
    connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for name, value in headers.items():
        connection.putheader(name, value)
    body = json.dumps({"env": "no-such-env"}).encode() if method == "POST" else b""
    if method == "POST":  # text/plain: what a cross-site form or fetch may send without asking
        connection.putheader("Content-Type", "text/plain")
        connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    status = connection.getresponse().status
    connection.close()
    return status


@pytest.fixture(scope="module")
def env_serve() -> Iterator[int]:
    """`buildfixer env serve` on a free port of 127.0.0.1, as a user starts it."""
    proc = subprocess.Popen([*CLI, "env", "serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, line
        yield int(match.group(1))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The viewer's live server over a one-attempt run."""
    from buildfixer.view.server import open_server

    folder = tmp_path_factory.mktemp("viewed") / "run"
    folder.mkdir()
    (folder / "results.jsonl").write_text(json.dumps(result_row("calc")) + "\n")
    server = open_server([folder], 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


CROSS_SITE = {
    "a rebound name (DNS rebinding)": {"Host": "evil.example:{port}"},
    "a name starting like a local one": {"Host": "localhost.evil.example:{port}"},
    "another port": {"Host": "127.0.0.1:{other}"},
    "no Host at all": {},
    "a page of another site": {"Host": "127.0.0.1:{port}", "Origin": "http://evil.example"},
    "a sandboxed or file:// page": {"Host": "127.0.0.1:{port}", "Origin": "null"},
    "a page of another local server": {"Host": "127.0.0.1:{port}", "Origin": "http://127.0.0.1:{other}"},
    "Sec-Fetch-Site cross-site": {"Host": "127.0.0.1:{port}", "Sec-Fetch-Site": "cross-site"},
    "Sec-Fetch-Site same-site": {"Host": "localhost:{port}", "Sec-Fetch-Site": "same-site"},
}
OWN = {
    "a client that is no browser": {"Host": "127.0.0.1:{port}"},
    "localhost": {"Host": "localhost:{port}"},
    "the server's own page": {
        "Host": "127.0.0.1:{port}",
        "Origin": "http://127.0.0.1:{port}",
        "Sec-Fetch-Site": "same-origin",
    },
    "an address typed in": {"Host": "localhost:{port}", "Sec-Fetch-Site": "none"},
}


def filled(headers: dict[str, str], port: int) -> dict[str, str]:
    return {name: value.format(port=port, other=port + 1) for name, value in headers.items()}


@pytest.mark.parametrize("server", ["env serve", "view"])
def test_cross_site_requests_are_refused(server: str, request: pytest.FixtureRequest) -> None:
    port = request.getfixturevalue("env_serve" if server == "env serve" else "viewer")
    method = "POST" if server == "env serve" else "GET"
    served = 400 if server == "env serve" else 200  # env serve: no such environment (it was reached)
    broken = {what: status for what, headers in CROSS_SITE.items()
              if (status := send(port, method, filled(headers, port))) != 403}  # fmt: skip
    assert not broken, broken
    refused = {what: status for what, headers in OWN.items()
               if (status := send(port, method, filled(headers, port))) != served}  # fmt: skip
    assert not refused, refused


def test_the_host_check_keeps_a_server_exposed_on_purpose_reachable() -> None:
    from buildfixer.core.http_guard import refusal

    def headers(**fields: str) -> Message:
        message = Message()
        for name, value in fields.items():
            message[name.replace("_", "-")] = value
        return message

    # --host NAME: that name is this server's; with 0.0.0.0 any address and the machine's name are.
    assert refusal(headers(Host="buildbox.internal:8765"), "buildbox.internal", 8765) is None
    assert refusal(headers(Host="192.0.2.7:8765"), "0.0.0.0", 8765) is None
    assert refusal(headers(Host="[2001:db8::1]:8765"), "::", 8765) is None
    assert refusal(headers(Host="buildbox.internal:8765"), "127.0.0.1", 8765) is not None
    assert refusal(headers(Host="192.0.2.7:8765"), "127.0.0.1", 8765) is not None
    # A rebound name, and a browser's cross-site request, are refused however the server listens.
    assert refusal(headers(Host="evil.example:8765"), "0.0.0.0", 8765) is not None
    cross = headers(Host="192.0.2.7:8765", Origin="http://evil.example")
    assert refusal(cross, "0.0.0.0", 8765) is not None
    assert refusal(headers(Host="192.0.2.7:8765", Sec_Fetch_Site="cross-site"), "0.0.0.0", 8765) is not None


# ---- 3. the model's query to a configured search command ----------------------------------------

SEARCH_SCRIPT = """\
import argparse, json, os, sys
with open(os.environ["SEARCH_ARGV"], "a") as record:
    record.write(json.dumps(sys.argv[1:]) + "\\n")
parser = argparse.ArgumentParser()
parser.add_argument("--lang")
parser.add_argument("--out")
parser.add_argument("query")
args = parser.parse_args()
if args.out:
    open(args.out, "w").write("written by an option the model chose")
print("results for", args.query)
"""


def test_a_query_starting_with_a_dash_stays_the_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from buildfixer.tools.base import ToolError
    from buildfixer.tools.web import search_from_env, web_tools
    from support.tools import tool_context, tools_by_name

    script = tmp_path / "search.py"
    script.write_text(SEARCH_SCRIPT)
    record = tmp_path / "argv.jsonl"
    pwned = tmp_path / "pwned"
    monkeypatch.setenv("BUILDFIXER_SEARCH_CMD", f"{sys.executable} {script} --lang=en")
    monkeypatch.setenv("SEARCH_ARGV", str(record))
    tool = tools_by_name(tool_context(tmp_path, "maven", search=search_from_env()), web_tools)
    queries = [f"--out={pwned}", "-h", "--help", "-x gradle error", "--", "-"]
    answers = {}
    for query in queries:
        try:
            answers[query] = tool["search_google"].call({"query": query})
        except ToolError as exc:
            answers[query] = f"refused: {exc}"
    argvs = [json.loads(line) for line in record.read_text().splitlines()]
    assert argvs == [["--lang=en", "--", query] for query in queries]  # the query after `--`, whole
    assert not pwned.exists()
    assert answers == {query: f"results for {query}" for query in queries}


# ---- 4. files a run folder names -----------------------------------------------------------------

SECRET = "TOP-SECRET-d41d8cd98f"
OWN_LOG = "[ERROR] /w/src/main/java/demo/Calc.java:[12,30] ';' expected (own-log-in-the-run)\n"
CACHE_LOG = "[ERROR] /w/src/main/java/demo/Calc.java:[12,30] ';' expected (own-log-in-the-cache)\n"


def result_row(instance_id: str, trajectory: str | None = None) -> dict[str, Any]:
    return {"instance_id": instance_id, "agent": "tool", "toolset": "gradlefixer", "model": f"acme/{HOSTILE}",
            "sample": 0, "resolved": False, "status": "failure", "stop": "model_finished",
            "stop_reason": HOSTILE, "duration_s": 1.0, "patch": "",
            "trajectory": trajectory or f"trajectories/{instance_id}__0.json"}  # fmt: skip


def trajectory(log_path: str, note: str = "") -> dict[str, Any]:
    messages = [{"role": "user", "content": f"build it {note}"}, {"role": "assistant", "content": "Done."}]
    return {"format": 1, "messages": messages, "steps": [],
            "meta": {"initial": {"status": "failure", "log_path": log_path}},
            "verdict": {"status": "failure", "log_path": log_path}}  # fmt: skip


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """buildfixer's cache for this test, with a real build log in it (`state/<project>/logs`)."""
    root = tmp_path / "cache"
    (root / "state" / "calc-1234" / "logs").mkdir(parents=True)
    (root / "state" / "calc-1234" / "logs" / "build-1.log").write_text(CACHE_LOG)
    monkeypatch.setenv("BUILDFIXER_CACHE_DIR", str(root))
    return root


@pytest.fixture
def run_folder(tmp_path: Path, cache: Path) -> Path:
    """A run folder whose trajectories name files they must not get, and the logs they may."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.log").write_text(f"[ERROR] {SECRET}\n")
    (outside / "trajectory.json").write_text(json.dumps(trajectory("", note=SECRET)))
    (cache / "secret.log").write_text(f"[ERROR] {SECRET}\n")  # in the cache, but no build log
    os.symlink(outside / "secret.log", cache / "state" / "calc-1234" / "logs" / "link.log")
    folder = tmp_path / "run"
    (folder / "trajectories").mkdir(parents=True)
    (folder / "logs").mkdir()
    (folder / "logs" / "own.log").write_text(OWN_LOG)
    os.symlink(outside / "secret.log", folder / "logs" / "link.log")
    os.symlink(outside, folder / "linked-dir")
    os.mkfifo(folder / "fifo.log")
    os.symlink(outside / "trajectory.json", folder / "trajectories" / "link.json")
    os.mkfifo(folder / "trajectories" / "fifo.json")  # reading it would wait for ever
    logs = {
        "x-absolute": str(outside / "secret.log"),
        "x-climbing": "../outside/secret.log",
        "x-link-in-run": "logs/link.log",
        "x-link-in-run-absolute": str(folder / "logs" / "link.log"),
        "x-through-a-linked-dir": str(folder / "linked-dir" / "secret.log"),
        "x-fifo": str(folder / "fifo.log"),
        "x-climbing-out-of-the-cache": str(
            cache / "state" / "calc-1234" / "logs" / ".." / ".." / ".." / ".." / "outside" / "secret.log"
        ),
        "x-cache-file-no-build-log": str(cache / "secret.log"),
        "x-link-in-the-cache": str(cache / "state" / "calc-1234" / "logs" / "link.log"),
        "ok-own-log": "logs/own.log",
        "ok-cache-log": str(cache / "state" / "calc-1234" / "logs" / "build-1.log"),
    }
    rows = []
    for instance_id, log in logs.items():
        (folder / "trajectories" / f"{instance_id}__0.json").write_text(json.dumps(trajectory(log)))
        rows.append(result_row(instance_id))
    rows += [
        result_row("x-trajectory-absolute", str(outside / "trajectory.json")),
        result_row("x-trajectory-climbing", "../outside/trajectory.json"),
        result_row("x-trajectory-link", "trajectories/link.json"),
        result_row("x-trajectory-fifo", "trajectories/fifo.json"),
        result_row(f"x-{HOSTILE}"),  # no trajectory: an id for the report
    ]
    (folder / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return folder


def check_pages(pages: dict[str, dict[str, Any]]) -> None:
    """Nothing of the secret; the refused logs shown as not available; the run's own logs shown."""
    leaked = [name for name, page in pages.items() if SECRET in json.dumps(page)]
    assert not leaked, leaked
    for name, page in pages.items():
        if name.startswith("x-trajectory"):
            assert page["warnings"] and not page["conversation"], name
        elif name.startswith("x-") and page["builds"]:
            first, verdict = page["builds"][0], page["builds"][-1]
            assert "not available" in first["source"] and "not available" in verdict["source"], name
    assert "own-log-in-the-run" in json.dumps(pages["ok-own-log"]["builds"])
    assert "own-log-in-the-cache" in json.dumps(pages["ok-cache-log"]["builds"])


def parse_script(text: str) -> Any:
    """The data of a data script, `bfView.receive("token",{...});` (an error page has none)."""
    if not text.startswith("bfView.receive("):
        return {"failed": text}
    decoder = json.JSONDecoder()
    _, end = decoder.raw_decode(text, len("bfView.receive("))
    return decoder.raw_decode(text, end + 1)[0]


def test_a_bundle_copies_no_file_from_outside_the_run(tmp_path: Path, run_folder: Path) -> None:
    site = tmp_path / "site"
    done = run(["view", "bundle", str(run_folder), "--out", str(site)], timeout=30)
    assert done.returncode == 0, done.stderr  # and in time: a FIFO is never opened
    pages = {}
    for path in (site / "attempts").glob("*.js"):
        page = parse_script(path.read_text())
        pages[page["row"]["instance_id"]] = page
    assert all(SECRET not in p.read_text() for p in site.rglob("*") if p.is_file())
    check_pages(pages)


def test_the_live_viewer_serves_no_file_from_outside_the_run(run_folder: Path) -> None:
    from buildfixer.view.server import open_server

    server = open_server([run_folder], 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    pages = {}
    try:
        for line in (run_folder / "results.jsonl").read_text().splitlines():
            instance_id = json.loads(line)["instance_id"]
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            query = urlencode({"run": 0, "id": instance_id, "sample": 0})
            connection.request("GET", f"/attempt.js?{query}", headers={"Host": f"127.0.0.1:{port}"})
            pages[instance_id] = parse_script(connection.getresponse().read().decode())
            connection.close()
    finally:
        server.shutdown()
        server.server_close()
    assert len(pages) == 16 and all("key" in page for page in pages.values()), pages
    check_pages(pages)
