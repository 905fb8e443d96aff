"""`buildfixer view` and `view bundle` as a user runs them: exit codes, the site, the live server."""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from buildfixer.buildsys.jdk import discover_jdks
from buildfixer.core.errors import BuildfixerError
from buildfixer.core.paths import cache_root
from buildfixer.view.bundle import MARK, write_bundle
from buildfixer.view.server import open_server

STATIC_JS = Path(__file__).resolve().parents[2] / "src" / "buildfixer" / "view" / "static"


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "buildfixer", "view", *args], capture_output=True, text=True,
                          timeout=timeout)  # fmt: skip


def parse_script(text: str) -> tuple[str, object]:
    """The token and data of a data script `bfView.receive("token",{...});`."""
    assert text.startswith("bfView.receive("), text[:80]
    decoder = json.JSONDecoder()
    token, end = decoder.raw_decode(text, len("bfView.receive("))
    data, _ = decoder.raw_decode(text, end + 1)
    return token, data


@pytest.mark.parametrize(
    "args",
    [
        ["bundle", "/nonexistent/run", "--out", "x"],
        ["/nonexistent/run", "--port", "0"],
        ["bundle", "--out", "x"],  # no run directory at all
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, tmp_path):
    done = subprocess.run([sys.executable, "-m", "buildfixer", "view", *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)  # fmt: skip
    assert done.returncode == 2, done
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("buildfixer: error:")
    assert not (tmp_path / "x").exists()


def test_a_directory_without_results_is_refused(tmp_path):
    done = cli("bundle", str(tmp_path), "--out", str(tmp_path / "site"))
    assert done.returncode == 2 and "holds no results.jsonl" in done.stderr


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{not json", "not JSON (line 1"),
        ('{"messages": []}', "JSON, but not a trajectory"),
        ("[1, 2]", "JSON, but"),
    ],
    ids=["not-json", "other-json", "a-list"],
)
def test_a_file_that_is_no_trajectory_is_refused_saying_why(tmp_path, content, why):
    path = tmp_path / "t.json"
    path.write_text(content)
    for args in (["bundle", str(path), "--out", str(tmp_path / "site")], [str(path), "--port", "0"]):
        done = cli(*args)
        assert done.returncode == 2, done
        assert done.stderr.strip().splitlines() == [done.stderr.strip()]
        assert "is not a run directory or a trajectory file" in done.stderr and why in done.stderr
    assert not (tmp_path / "site").exists()


def test_bundle_writes_a_static_site_and_replaces_only_its_own(runs, tmp_path):
    out = tmp_path / "site"
    done = cli("bundle", *map(str, runs), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}/index.html: 6 attempts, 3 instances" in done.stdout
    names = {p.name for p in out.iterdir()}
    assert {"index.html", "app.css", "app.js", "dom.js", "pages.js", "data.js", MARK} <= names
    token, data = parse_script((out / "data.js").read_text())
    assert token == "index" and len(data["attempts"]) == 6 and data["live"] is False
    for row in data["attempts"]:
        token, page = parse_script((out / row["detail"]).read_text())
        assert token == f"attempt/{row['key']}" and page["key"] == row["key"]
    html = (out / "index.html").read_text()
    assert "http://" not in html and "https://" not in html  # nothing from the network
    # A second bundle replaces the first as a whole; a directory that is not a bundle is never touched.
    (out / "stale.js").write_text("old")
    assert cli("bundle", str(runs[0]), "--out", str(out)).returncode == 0
    assert not (out / "stale.js").exists()
    assert len(parse_script((out / "data.js").read_text())[1]["attempts"]) == 3
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(BuildfixerError, match="not a viewer bundle"):
        write_bundle([runs[0]], mine)
    with pytest.raises(BuildfixerError, match="would replace the run directory"):
        write_bundle([runs[0]], runs[0])
    assert (mine / "notes.txt").read_text() == "keep" and [p.name for p in mine.iterdir()] == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temp dirs left


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_bundle_leaves_no_site(runs, tmp_path, sig):
    # The second attempt page never comes: the bundle stops mid-way, after it wrote part of the site.
    # (A FIFO trajectory did this once; the viewer now reads regular files only, see view.builds.)
    stall = (
        "import sys, time\n"
        "import buildfixer.view.bundle as bundle\n"
        "page, pages = bundle.attempt_page, []\n"
        "def stalled(*args):\n"
        "    pages.append(args)\n"
        "    return page(*args) if len(pages) == 1 else time.sleep(600)\n"
        "bundle.attempt_page = stalled\n"
        "from buildfixer.cli.main import main\n"
        "main()\n"
    )
    out = tmp_path / "site"
    command = [sys.executable, "-c", stall, "view", "bundle", str(runs[0]), "--out", str(out)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not list(tmp_path.glob(".site.*.tmp/attempts")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(tmp_path.glob(".site.*.tmp/data.js")), "the bundle never started writing"
        proc.send_signal(sig)
        proc.wait(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert not out.exists()
    if sig == signal.SIGTERM:  # unwound: the half-written site is removed too
        assert proc.returncode == 128 + signal.SIGTERM and not list(tmp_path.glob(".site*"))


def test_page_code_never_parses_data_as_markup():
    code = "".join(p.read_text() for p in STATIC_JS.glob("*.js"))
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in code, sink


def _get(url: str, headers: dict | None = None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=30) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_live_server_reads_runs_afresh_and_serves_only_its_own_pages(runs):
    server = open_server(list(runs), 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        url = server.url
        status, html = _get(url)
        assert status == 200 and "<title>buildfixer runs</title>" in html
        status, text = _get(url + "data.js")
        token, data = parse_script(text)
        assert data["live"] is True and len(data["attempts"]) == 6
        row = data["attempts"][0]
        token, page = parse_script(_get(url + row["detail"])[1])
        assert token == "attempt/0/calc-semicolon/0" and page["row"]["outcome"] == "resolved"
        token, page = parse_script(_get(url + data["instances"]["calc-plugin"]["detail"])[1])
        assert token == "instance/calc-plugin" and len(page["columns"]) == 2
        missing = _get(url + "attempt.js?run=0&id=nope&sample=0")[1]
        assert missing.startswith('bfView.fail("attempt/0/nope/0"')
        # A page of another site, or a rebound DNS name, gets nothing.
        assert _get(url + "data.js", {"Sec-Fetch-Site": "cross-site"})[0] == 403
        assert _get(url + "data.js", {"Host": "evil.example:80"})[0] == 403
        assert _get(url + "../../etc/passwd")[0] == 404
        # A new attempt appears on the next request; a torn last line is skipped meanwhile.
        with (runs[0] / "results.jsonl").open("a") as fh:
            fh.write(json.dumps({"instance_id": "calc-plugin", "agent": "tool", "toolset": "gradlefixer",
                                 "model": "acme/alpha", "sample": 1, "resolved": True}) + "\n")  # fmt: skip
            fh.write('{"instance_id": "calc-plu')
        _, data = parse_script(_get(url + "data.js")[1])
        assert len(data["attempts"]) == 7 and any("torn" in w for w in data["runs"][0]["warnings"])
        # A corrupt line is shown on the page; the server keeps serving.
        (runs[1] / "results.jsonl").write_text('not json\n{"instance_id": "a", "resolved": true}\n')
        _, data = parse_script(_get(url + "data.js")[1])
        assert "results.jsonl:1" in data["error"]
    finally:
        server.shutdown()
        server.server_close()


def test_serve_prints_the_url_and_stops_on_ctrl_c(runs):
    proc = subprocess.Popen([sys.executable, "-m", "buildfixer", "view", str(runs[0]), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        line = proc.stdout.readline()
        assert "serving 1 run(s) at http://127.0.0.1:" in line, line + proc.stderr.read()
        url = line.split(" at ", 1)[1].split()[0]
        assert _get(url + "data.js")[0] == 200
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "stopped" in out
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=5)


# --- what the viewer shares: no path of this machine ----------------------------------------------


def local_paths(text: str) -> list[str]:
    """This machine's places named in `text`: the cache, the venv, the home, the temporary folder, cwd."""
    places = {str(cache_root()), sys.prefix, str(Path.home()), tempfile.gettempdir(), os.getcwd()}
    places |= {str(jdk.path) for jdk in discover_jdks()}
    found = set()
    for place in places:
        if place not in ("", "/"):
            found |= set(re.findall(re.escape(place) + r"(?:/[^\s\"'<>]*)?", text))
    return sorted(found)


def site_text(site: Path) -> str:
    return "\n".join(p.read_text() for p in sorted(site.rglob("*")) if p.is_file())


def _served(url: str) -> str:
    """Every data script the live server has: the list, each attempt and instance, the search texts."""
    texts = [_get(url + "data.js")[1], _get(url + "search.js")[1], _get(url + "attempt.js?run=0&id=nope")[1]]
    _, data = parse_script(texts[0])
    texts += [_get(url + row["detail"])[1] for row in data["attempts"]]
    texts += [_get(url + instance["detail"])[1] for instance in data["instances"].values()]
    return "\n".join(texts)


def _serving(paths: list[Path]) -> str:
    server = open_server(paths, 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    try:
        return _served(server.url)
    finally:
        server.shutdown()
        server.server_close()


def test_nothing_the_viewer_shares_names_a_local_path(runs, tmp_path):
    # Recorded run data names this machine's places: a venv, the cache, the home, a JDK, the run itself.
    jdks = [jdk.path for jdk in discover_jdks()]
    planted = "".join([
        f"$ {sys.prefix}/bin/python -m build\n",
        f"using {cache_root()}/domains/calc/m2 and {Path.home()}/.m2\n",
        f"java: {jdks[0] if jdks else '-'}/bin/javac, script {os.getcwd()}/scripts/a.json\n",
    ])  # fmt: skip
    trajectory = runs[0] / "trajectories" / "calc-plugin__0.json"
    doc = json.loads(trajectory.read_text())
    doc["steps"][0]["tool_results"][0]["output"] += planted
    doc["messages"][3]["content"] += planted
    trajectory.write_text(json.dumps(doc))
    assert local_paths(trajectory.read_text() + json.dumps(str(runs[0])))  # the leaks are there to find
    site = tmp_path / "site"
    write_bundle([path.resolve() for path in runs], site)  # absolute run paths, as a script would give them
    shared = site_text(site)
    assert local_paths(shared) == []
    assert "<run>/logs/build-1.log" in shared and "<venv>/bin/python -m build" in shared  # said, in its place
    assert "<cache>/domains/calc/m2" in shared and "<home>/.m2" in shared and " scripts/a.json" in shared
    served = _serving([path.resolve() for path in runs])
    assert local_paths(served) == [] and "<venv>/bin/python -m build" in served


@pytest.mark.slow
def test_the_trajectory_fix_printed_opens_bundled_and_served(fixed, tmp_path):
    project, trajectory = fixed
    site = tmp_path / "site"
    done = cli("bundle", str(trajectory), "--out", str(site))
    assert done.returncode == 0, done.stderr
    assert "1 attempts, 1 instances" in done.stdout
    _, listing = parse_script((site / "data.js").read_text())
    (row,) = listing["attempts"]
    assert row["instance_id"] == project.name and row["outcome"] == "resolved"
    _, page = parse_script((site / row["detail"]).read_text())
    assert any("stray brace" in (item.get("content") or "") for item in page["conversation"])
    shared = site_text(site)
    assert local_paths(shared) == [] and str(project) not in shared
    served = _serving([trajectory])
    assert "stray brace" in served and local_paths(served) == []
