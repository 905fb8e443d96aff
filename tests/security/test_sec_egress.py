"""Attacks on the network from a sandbox that may use it: only the package registries are reachable.

An online sandbox has its own network namespace; its one way out is buildfixer's egress proxy,
which tunnels to allowed registry hosts on ports 80/443 only. Each attack below tries another
way out (another host, port, address form, a raw socket, DNS, the host's loopback, the proxy's
socket) from the agent's shell or a build script; it holds when nothing but a registry answers.
"""

import json
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project
from buildfixer.buildsys.sandbox import egress
from buildfixer.tools.shell import shell_tools
from support.tools import tool_context

PROXY = f"127.0.0.1:{egress.PROXY_PORT}"
# A request sent raw to the proxy from inside; prints the status line it got back.
RAW = """python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", {port}), timeout=20)
s.sendall(sys.argv[1].encode().decode("unicode_escape").encode("latin-1"))
print("STATUS", (s.recv(200).split(b"\\r\\n")[0] or b"closed").decode())
' '{request}'"""


def run_shell(tmp_path: Path, command: str) -> str:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    ctx = tool_context(root, "maven", cache_dir=tmp_path / "cache")
    run = next(t for t in shell_tools(ctx) if t.name == "run_shell")
    return run.call({"shell_command": command})


def raw(request: str) -> str:
    return RAW.format(port=egress.PROXY_PORT, request=request)


# Ways out that must all fail: each output must show no reply from anything but the proxy's refusal.
BLOCKED = {
    "other-host-https": "curl -sS -m 20 https://example.com/ 2>&1; echo",
    "other-host-http": "curl -sS -m 20 http://example.com/ 2>&1; echo",
    "ignore-the-proxy": "curl -sS -m 10 --noproxy '*' https://pypi.org/simple/ 2>&1; echo",
    "unset-proxy-variables": "env -u https_proxy -u HTTPS_PROXY curl -sS -m 10 https://pypi.org/ 2>&1; echo",
    "raw-socket-to-ip": "python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 443), 5)' 2>&1",
    "dns-lookup": "python3 -c 'import socket; print(socket.getaddrinfo(\"pypi.org\", 443))' 2>&1",
    "udp-out": 'python3 -c \'import socket; socket.socket(2,2).sendto(b"x",("8.8.8.8",53))\' 2>&1',
    "registry-on-ssh-port": raw("CONNECT pypi.org:22 HTTP/1.1\\r\\n\\r\\n"),
    "registry-on-odd-port": raw("CONNECT pypi.org:8443 HTTP/1.1\\r\\n\\r\\n"),
    "suffix-lookalike": raw("CONNECT pypi.org.evil.example:443 HTTP/1.1\\r\\n\\r\\n"),
    "prefix-lookalike": raw("CONNECT evilpypi.org:443 HTTP/1.1\\r\\n\\r\\n"),
    "userinfo-trick-connect": raw("CONNECT pypi.org:443@example.com:443 HTTP/1.1\\r\\n\\r\\n"),
    "userinfo-trick-absolute-url": raw(
        "GET http://pypi.org@example.com/ HTTP/1.1\\r\\nHost: pypi.org\\r\\n\\r\\n"
    ),
    "ip-literal-of-a-registry": raw("CONNECT 151.101.0.223:443 HTTP/1.1\\r\\n\\r\\n"),
    "host-loopback-by-name": raw("CONNECT localhost:443 HTTP/1.1\\r\\n\\r\\n"),
    "host-loopback-by-ip": raw("CONNECT 127.0.0.1:443 HTTP/1.1\\r\\n\\r\\n"),
    "host-loopback-ipv6": raw("CONNECT [::1]:443 HTTP/1.1\\r\\n\\r\\n"),
    "cloud-metadata": raw("GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\\r\\n\\r\\n"),
    "origin-form-with-host-header": raw("GET / HTTP/1.1\\r\\nHost: example.com\\r\\n\\r\\n"),
    "garbage-request": raw("\\x00\\x01garbage\\r\\n\\r\\n"),
    "no-request-line": raw("\\r\\n\\r\\n"),
    "newline-in-host": raw("CONNECT pypi.org\\nexample.com:443 HTTP/1.1\\r\\n\\r\\n"),
    "oversized-head": raw("CONNECT pypi.org:443 HTTP/1.1\\r\\nX: " + "a" * 70000 + "\\r\\n\\r\\n"),
    "impersonate-the-forwarder": 'python3 -c \'import socket; socket.socket().bind(("127.0.0.1", '
    f'{egress.PROXY_PORT})); print("BOUND")\' 2>&1',
    "see-the-holder": "ls -la /tmp /run /run/user 2>&1 | grep egress; cat /tmp/buildfixer-egress-*/*",
}
REACHED = ("<html", "<!doctype", "200 Connection established", "STATUS HTTP/1.1 200", "STATUS HTTP/1.0 200")


@pytest.mark.parametrize("attack", sorted(BLOCKED))
def test_only_the_registries_are_reachable(attack: str, tmp_path: Path) -> None:
    output = run_shell(tmp_path, BLOCKED[attack]).lower()
    assert not any(marker.lower() in output for marker in REACHED), output
    assert "bound" not in output and "netns.json" not in output and "proxy.sock" not in output
    # The proxy still serves after each attack: a registry answers.
    assert "STATUS HTTP/1.1 200" in run_shell(tmp_path, raw("CONNECT pypi.org:443 HTTP/1.1\\r\\n\\r\\n"))


def test_a_refusal_says_how_to_allow_a_host(tmp_path: Path) -> None:
    output = run_shell(
        tmp_path, "curl -sS -m 20 -x '' http://example.com/ ; curl -sS -m 20 http://example.com/"
    )
    assert "package registries only, not example.com:80" in output and "BUILDFIXER_ALLOWED_HOSTS" in output


def test_registries_are_reachable_with_any_spelling_of_their_name(tmp_path: Path) -> None:
    output = run_shell(
        tmp_path, "curl -sS -m 60 -o /dev/null -w 'CODE %{http_code}\\n' https://PyPI.org./simple/six/"
    )
    assert "CODE 200" in output


def test_pip_downloads_through_the_proxy(tmp_path: Path) -> None:
    output = run_shell(
        tmp_path,
        "python3 -m pip download --no-deps --no-cache-dir -d /tmp/dl six==1.16.0 2>&1 | tail -2; ls /tmp/dl",
    )
    assert "six-1.16.0" in output


def test_allowed_hosts_are_extended_by_configuration() -> None:
    hosts = egress.allowed_hosts({"BUILDFIXER_ALLOWED_HOSTS": "nexus.corp.example, .mirror.example"})
    assert egress.host_allowed("nexus.corp.example", hosts) and egress.host_allowed("a.mirror.example", hosts)
    assert not egress.host_allowed("mirror.example.evil", hosts) and not egress.host_allowed(
        "corp.example", hosts
    )
    assert egress.host_allowed("repo.maven.apache.org", hosts) and not egress.host_allowed(
        "example.com", hosts
    )


# Build scripts of each build system that phone home while building; each build must fail to.
PHONE_HOME = {
    "gradle": {
        "build.gradle": "apply plugin: 'java'\n"
        "try { println('GOT ' + new URL('https://example.com/').text.length()) }\n"
        "catch (Exception e) { println('BLOCKED ' + e) }\n",
    },
    "python": {
        "pyproject.toml": '[project]\nname = "p"\nversion = "1"\n',
        "test_phone.py": "import urllib.request\n\ndef test_phone():\n"
        "    page = urllib.request.urlopen('https://example.com/', timeout=20).read().decode()\n"
        "    assert 'G' + 'OT ' + page == ''\n",
    },
    "npm": {
        "package.json": json.dumps(
            {"name": "p", "version": "1.0.0", "scripts": {"build": "node phone.js", "test": "node -e 1"}}
        ),
        "phone.js": "fetch('https://example.com/').then(r => r.text())"
        ".then(t => console.log('GOT', t.length)).catch(e => console.log('BLOCKED', e.cause || e))\n",
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("system", sorted(PHONE_HOME))
def test_build_scripts_cannot_phone_home(system: str, tmp_path: Path) -> None:
    project = tmp_path / system
    project.mkdir()
    for name, text in PHONE_HOME[system].items():
        (project / name).write_text(text)
    options = BuildOptions(
        cache_dir=Path.cwd() / ".cache" / "test", tasks=["build"] if system == "gradle" else None
    )
    result = build_project(project, options)
    log = Path(result.log_path).read_text(errors="replace")
    assert "GOT " not in log and ("BLOCKED" in log or "403" in log), log[-3000:]


@pytest.mark.parametrize("sandbox", ["bubblewrap", "none"])
def test_only_sandboxed_builds_are_sent_to_the_proxy(sandbox: str, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    script = "node -e \"console.log('PROXY=' + (process.env.https_proxy || 'none'))\""
    (project / "package.json").write_text(
        json.dumps({"name": "p", "version": "1.0.0", "scripts": {"build": script}})
    )
    result = build_project(project, BuildOptions(cache_dir=tmp_path / "cache", sandbox=sandbox))
    wanted = f"PROXY=http://{PROXY}" if sandbox == "bubblewrap" else "PROXY=none"
    assert wanted in Path(result.log_path).read_text()
