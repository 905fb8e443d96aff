"""Attacks through buildfixer's own fetches and through the environment it passes on.

buildfixer looks up the versions of dependencies outside any sandbox, as root, and asks the
repositories a project's build files name. A hostile project names the host's loopback (a
service of buildfixer's or of the machine), a cloud metadata address, an IP literal or any host
on the internet, or hides one behind user info. Each look-up below holds when no request leaves
for anything but an allow-listed registry (the rule the sandboxes' egress proxy applies).

The caller's index and proxy variables carry credentials (`PIP_INDEX_URL=https://user:token@...`,
`ALL_PROXY=http://user:password@...`). They hold when a sandboxed build never sees the secret and
redaction removes it from any text, in clear or disguised.
"""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
import urllib.parse
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project
from buildfixer.buildsys.sandbox import egress, variables
from buildfixer.deps import asof, manage, registry
from buildfixer.llm import redact
from buildfixer.tools.base import ToolError
from buildfixer.tools.dependency import dependency_tools
from support.tools import tool_context

METADATA = (
    b"<metadata><groupId>com.example</groupId><artifactId>widget</artifactId><versioning><versions>"
    b"<version>1.0</version><version>6.6.6</version></versions></versioning></metadata>"
)
# Names a test lets reach the real loopback (the recording servers): whatever spells 127.0.0.1.
_LOOPBACK = {"127.0.0.1", "localhost", "127.1", "2130706433", "0x7f000001", "::1"}


class Recorder:
    """A real HTTP server on 127.0.0.1 that records every request; `routes` maps a path to a reply."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                recorder.requests.append(self.path)
                status, headers, body = recorder.routes.get(self.path, (200, {}, METADATA))
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[tuple[str, int]]:
    """Every connection buildfixer opens, recorded; only loopback ones are made (no network needed).

    A connection elsewhere fails at once as if the network were down, so a look-up that would
    have gone to a metadata address or the internet shows up here instead of timing out.
    """
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)  # the host's proxy would hide the destination
    monkeypatch.delenv("BUILDFIXER_ALLOWED_HOSTS", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the user's ~/.m2 and ~/.gradle stay out
    monkeypatch.delenv("GRADLE_USER_HOME", raising=False)
    seen: list[tuple[str, int]] = []
    real = socket.create_connection

    def spy(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        host, port = address[0], int(address[1])
        seen.append((host, port))
        if host.strip("[]").lower() in _LOOPBACK:
            return real(address, *args, **kwargs)
        raise OSError(f"no network in this test ({host}:{port})")

    monkeypatch.setattr(socket, "create_connection", spy)
    return seen


def off_the_list(seen: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The connections to anything but a registry on 80/443."""
    return [(h, p) for h, p in seen if not (egress.host_allowed(h, egress.REGISTRY_HOSTS) and p in (80, 443))]


def hostile_urls(port: int) -> dict[str, str]:
    """Repository URLs a hostile build file may name; `port` is a recording server's on 127.0.0.1."""
    return {
        "loopback-ip": f"http://127.0.0.1:{port}/maven2",
        "loopback-name": f"http://localhost:{port}/maven2",
        "loopback-short": f"http://127.1:{port}/maven2",
        "loopback-decimal": f"http://2130706433:{port}/maven2",
        "loopback-hex": f"http://0x7f000001:{port}/maven2",
        "loopback-ipv6": f"http://[::1]:{port}/maven2",
        "loopback-https": f"https://127.0.0.1:{port}/maven2",
        "userinfo-trick": f"http://repo.maven.apache.org@127.0.0.1:{port}/maven2",
        "userinfo-trick-port": f"http://repo.maven.apache.org:443@127.0.0.1:{port}/maven2",
        "userinfo-trick-backslash": f"http://repo.maven.apache.org\\@127.0.0.1:{port}/maven2",
        "alias-of-an-unexposed-port": f"http://{egress.LOOPBACK_ALIAS}:{port}/maven2",
        "cloud-metadata": "http://169.254.169.254/latest/meta-data/",
        "cloud-metadata-name": "http://metadata.google.internal/computeMetadata/v1/",
        "ip-literal": "https://151.101.0.223/maven2",
        "internet-host": "https://repo.evil.example/maven2",
        "registry-lookalike": "https://repo.maven.apache.org.evil.example/maven2",
        "registry-on-another-port": "https://repo.maven.apache.org:8443/maven2",
    }


def gradle_project(root: Path, repository: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "build.gradle").write_text(
        "plugins { id 'java' }\n"
        f'repositories {{\n    mavenCentral()\n    maven {{ url "{repository}" }}\n}}\n'
        "dependencies {\n    implementation 'com.example:widget:1.0'\n}\n"
    )
    return root


# --- (a) host-side look-ups -------------------------------------------------------------------


def test_the_upgrade_tool_does_not_ask_a_loopback_repository(
    recorder: Recorder, connections: list[tuple[str, int]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`dependency_upgrade` without a version looks the newest up in the declared repositories."""
    url = f"http://127.0.0.1:{recorder.port}/maven2"
    project = gradle_project(tmp_path / "p", url)
    ctx = tool_context(project, "gradle", cache_dir=tmp_path / "cache")
    upgrade = next(t for t in dependency_tools(ctx) if t.name == "dependency_upgrade")
    with caplog.at_level(logging.WARNING):
        try:
            out = upgrade.call(json.dumps({"dependency": "com.example:widget"}))
        except ToolError as exc:  # nothing else is reachable here: no version known
            out = str(exc)
    assert recorder.requests == [], out
    assert off_the_list(connections) == []
    assert "6.6.6" not in out and "6.6.6" not in (project / "build.gradle").read_text()
    assert any(url in r.getMessage() and "not fetched" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("attack", sorted(hostile_urls(1)))
def test_version_look_ups_do_not_ask_hostile_repositories(
    attack: str, recorder: Recorder, connections: list[tuple[str, int]], tmp_path: Path
) -> None:
    """The look-up the tools and the recipes share, with the repositories the build file names."""
    url = hostile_urls(recorder.port)[attack]
    project = gradle_project(tmp_path / "p", url)
    repositories = manage.declared_repositories(project)
    assert repositories == [url]  # the attack is read from the build file as written
    options = BuildOptions(cache_dir=tmp_path / "cache")
    found = registry.available_versions("gradle", "com.example:widget", options, repositories)
    assert recorder.requests == []
    assert off_the_list(connections) == [], connections
    assert "6.6.6" not in found


@pytest.mark.parametrize("attack", ["loopback-ip", "cloud-metadata", "userinfo-trick"])
def test_dated_pinning_does_not_ask_hostile_repositories(
    attack: str, recorder: Recorder, connections: list[tuple[str, int]], tmp_path: Path
) -> None:
    url = hostile_urls(recorder.port)[attack]
    reason = asof.published_versions("com.example", "widget", tmp_path / "cache", url)
    assert isinstance(reason, str) and "not fetched" in reason
    assert recorder.requests == [] and off_the_list(connections) == []


def test_buildfixers_own_loopback_service_is_still_reached(
    recorder: Recorder, connections: list[tuple[str, int]], tmp_path: Path
) -> None:
    """The dated index's way: a port `expose_loopback` exposed, under the loopback alias."""
    alias = egress.expose_loopback(f"http://127.0.0.1:{recorder.port}")
    assert alias == f"http://{egress.LOOPBACK_ALIAS}:{recorder.port}"
    options = BuildOptions(cache_dir=tmp_path / "cache")
    found = registry.registry_versions("gradle", "com.example:widget", options, [f"{alias}/maven2"])
    assert found is not None and "6.6.6" in found
    assert recorder.requests == ["/maven2/com/example/widget/maven-metadata.xml"]
    assert off_the_list(connections) == [("127.0.0.1", recorder.port)]


def test_redirects_are_checked_again(recorder: Recorder, connections: list[tuple[str, int]]) -> None:
    """An allowed server (ours, exposed) that redirects elsewhere: only an allowed target is asked."""
    victim = Recorder()
    try:
        allowed = egress.expose_loopback(f"http://127.0.0.1:{recorder.port}")
        targets = {
            "/to-loopback": f"http://127.0.0.1:{victim.port}/secret",
            "/to-unexposed-alias": f"http://{egress.LOOPBACK_ALIAS}:{victim.port}/secret",
            "/to-metadata": "http://169.254.169.254/latest/meta-data/",
            "/to-userinfo-trick": f"http://pypi.org@127.0.0.1:{victim.port}/secret",
            "/to-file": "file:///etc/passwd",
            "/to-ours": "/fine",
        }
        for path, location in targets.items():
            recorder.routes[path] = (302, {"Location": location}, b"")
        recorder.routes["/fine"] = (200, {}, b"FINE")
        for path in sorted(set(targets) - {"/to-ours"}):
            with pytest.raises((egress.RefusedURL, OSError)):
                registry.http_get(f"{allowed}{path}", "*/*")
        assert registry.http_get(f"{allowed}/to-ours", "*/*") == b"FINE"
        assert victim.requests == []
        assert {h for h, _ in off_the_list(connections)} == {"127.0.0.1"}
        assert {p for _, p in connections} == {recorder.port}
    finally:
        victim.close()


REFUSED = [
    "http://127.0.0.1/",
    "http://127.0.0.1:8080/",
    "http://localhost/",
    "http://[::1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "https://151.101.0.223/simple/",
    "https://repo.maven.apache.org@127.0.0.1/",
    "https://repo.maven.apache.org:443@127.0.0.1/",
    "https://user:pw@repo.maven.apache.org/maven2",
    "https://repo.maven.apache.org\\@127.0.0.1/",
    "https://repo.maven.apache.org%2f@127.0.0.1/",
    "https://repo.maven.apache.org:8443/maven2",
    "https://repo.maven.apache.org:99999/maven2",
    "https://repo.maven.apache.org.evil.example/",
    "https://evilpypi.org/simple/",
    "https://pypi.org\n.evil.example/",
    "https://pypi.org /x",
    "ftp://repo.maven.apache.org/maven2",
    "file:///etc/passwd",
    "jar:https://repo.maven.apache.org/x.jar!/",
    "//repo.maven.apache.org/maven2",
    f"http://{egress.LOOPBACK_ALIAS}:1/",
    f"http://{egress.LOOPBACK_ALIAS}/",
]


@pytest.mark.parametrize("url", REFUSED)
def test_the_rule_refuses(url: str) -> None:
    with pytest.raises(egress.RefusedURL):
        egress.checked_url(url)


def test_the_rule_passes_the_registries_and_configured_hosts() -> None:
    for host in egress.REGISTRY_HOSTS:
        assert egress.checked_url(f"https://{host}/a/b?c=d") == f"https://{host}/a/b?c=d"
        assert egress.checked_url(f"http://{host}/x") == f"http://{host}/x"
    assert (
        egress.checked_url("https://Repo1.Maven.ORG.:443/maven2/") == "https://repo1.maven.org.:443/maven2/"
    )
    assert egress.checked_url(registry.MAVEN_CENTRAL + "/junit/") == registry.MAVEN_CENTRAL + "/junit/"
    configured = egress.allowed_hosts(
        {"BUILDFIXER_ALLOWED_HOSTS": "nexus.corp.example, .mirror.example, 10.0.0.5"}
    )
    assert (
        egress.checked_url("https://nexus.corp.example/repo", configured) == "https://nexus.corp.example/repo"
    )
    assert egress.checked_url("https://a.mirror.example/repo", configured) == "https://a.mirror.example/repo"
    assert egress.checked_url("http://10.0.0.5/repo", configured) == "http://10.0.0.5/repo"  # named: allowed
    with pytest.raises(egress.RefusedURL):
        egress.checked_url("https://mirror.example.evil/repo", configured)
    # The proxy and the host-side fetches decide by the same function.
    assert egress.destination("pypi.org", "443", egress.REGISTRY_HOSTS) == "pypi.org"
    assert egress.destination("pypi.org", "22", egress.REGISTRY_HOSTS) is None


# --- (b) credentials in allow-listed variables ------------------------------------------------

PASSWORD = "pw-" + uuid.uuid4().hex[:16] + "/+!"  # needs percent-encoding in a URL
TOKEN = "tok" + uuid.uuid4().hex
PROXY_PASSWORD = "proxy-" + uuid.uuid4().hex[:16]
NPM_PASSWORD = "npmpw" + uuid.uuid4().hex[:16]
NPM_TOKEN = "npm_" + uuid.uuid4().hex


@pytest.fixture
def credentials(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The caller's index and proxy variables with credentials; returns the secrets."""
    quoted = urllib.parse.quote(PASSWORD, safe="")
    monkeypatch.setenv("PIP_INDEX_URL", f"https://ci-user:{quoted}@pypi.org/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", f"https://{TOKEN}@pypi.org/simple https://pypi.org/simple")
    monkeypatch.setenv("ALL_PROXY", f"http://proxyuser:{PROXY_PASSWORD}@proxy.corp.example:3128")
    monkeypatch.setenv("https_proxy", f"http://proxyuser:{PROXY_PASSWORD}@proxy.corp.example:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,.corp.example")
    monkeypatch.setenv("PIP_TRUSTED_HOST", "pypi.org")
    npm_auth = base64.b64encode(f"npmuser:{NPM_PASSWORD}".encode()).decode()
    monkeypatch.setenv("NPM_CONFIG__AUTH", npm_auth)  # not allow-listed: withheld whole
    monkeypatch.setenv("NPM_CONFIG_//registry.npmjs.org/:_authToken", NPM_TOKEN)
    return [PASSWORD, TOKEN, PROXY_PASSWORD, npm_auth, NPM_TOKEN]


def every_disguise(secret: str) -> list[str]:
    """The secret in the forms a build or a model may meet it."""
    raw = secret.encode()
    return [
        secret,
        urllib.parse.quote(secret, safe=""),
        secret[::-1],
        base64.b64encode(raw).decode().rstrip("="),
        base64.b64encode(b"ci-user:" + raw).decode(),  # a Basic header's value
    ]


def test_builds_get_no_credentials_in_their_environment(credentials: list[str]) -> None:
    env = variables.build_environment({"SOME_LAYER": "x"})
    dump = json.dumps(env)
    for secret in credentials:
        assert not any(form in dump for form in every_disguise(secret)), secret
    assert env["PIP_INDEX_URL"] == "https://pypi.org/simple"
    assert env["PIP_EXTRA_INDEX_URL"] == "https://pypi.org/simple https://pypi.org/simple"
    assert "ALL_PROXY" not in env and "https_proxy" not in env  # that proxy cannot work without them
    assert env["NO_PROXY"] == "localhost,.corp.example" and env["PIP_TRUSTED_HOST"] == "pypi.org"
    sandboxed = egress.proxy_environment({**env, "ALL_PROXY": "socks5://proxy.corp.example:1080"})
    assert "ALL_PROXY" not in sandboxed and "all_proxy" not in sandboxed  # only buildfixer's proxy
    assert sandboxed["https_proxy"] == f"http://127.0.0.1:{egress.PROXY_PORT}"


def test_a_sandboxed_build_never_sees_the_credentials(credentials: list[str], tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    script = (
        "env; node -e \"console.log('B64=' + Buffer.from(JSON.stringify(process.env)).toString('base64'))\""
    )
    (project / "package.json").write_text(
        json.dumps({"name": "p", "version": "1.0.0", "private": True, "scripts": {"build": script}})
    )
    result = build_project(project, BuildOptions(cache_dir=tmp_path / "cache", sandbox="bubblewrap"))
    log = Path(result.log_path).read_text(errors="replace")
    assert "PIP_INDEX_URL=https://pypi.org/simple" in log, log[-3000:]  # the build ran and printed
    dumped = next(line for line in log.splitlines() if line.startswith("B64="))
    seen = log + base64.b64decode(dumped.removeprefix("B64=")).decode()
    for secret in credentials:
        assert not any(form in seen for form in every_disguise(secret)), secret
    assert "ALL_PROXY=" not in seen and "proxy.corp.example:3128" not in seen


def test_redaction_removes_the_credentials_in_every_disguise(credentials: list[str]) -> None:
    for secret in credentials:
        for form in every_disguise(secret):
            text = f"ERROR: Could not fetch index (auth {form}) retrying\nb64:{form}=="
            out = redact.redact(text)
            assert form not in out, (secret, form, out)
            assert redact.REDACTED in out
    pip_error = (
        f"Looking in indexes: https://ci-user:{urllib.parse.quote(PASSWORD, safe='')}@pypi.org/simple\n"
        f"WARNING: 401 Client Error for url: https://ci-user:{PASSWORD}@pypi.org/simple/six/"
    )
    assert PASSWORD not in redact.redact(pip_error) and "ci-user:[REDACTED]@pypi.org" in redact.redact(
        pip_error
    )
    token_url = f"https://{TOKEN}@pypi.org/simple"
    assert redact.redact(token_url) == "https://[REDACTED]@pypi.org/simple"
    assert redact.redact("git clone ssh://git@github.com/o/r.git") == "git clone ssh://git@github.com/o/r.git"
