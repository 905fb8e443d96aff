"""Infrastructure signals: what in a failed build's status and log says the machine failed, not the project.

Read from the build's result and its log alone, so finding them costs no build:

- the status: the build's timeout, a limit of the sandbox it reached (`environment["limit"]`), a build
  tool that could not start (status `error`), a process killed outright (exit 137, -9);
- a host the sandbox's egress proxy refused (a 403 naming a registry not on its list);
- lines of the failing step's output (the last `$ command` the runner logged, and what it printed):
  a connection refused, reset or timed out, a host that does not resolve, a TLS failure, a registry
  answering 5xx or 429 (Maven Central, the Gradle plugin portal, PyPI, npm), no space left on the
  disk, memory exhausted (the log analyzer's own out-of-memory phrases plus the kernel's and
  Python's words), another Gradle holding a cache lock.

Network, TLS and registry lines count only when the failure is one a fetch explains: the root error
is a dependency that could not be had (`library_unavailable`), a configuration failure or one the
analyzer could not name (`other`), or the line is part of the root error's own message. A compile
error or a failing test after a warning about a slow mirror is the project's; an assertion about a
"503 Service Unavailable" in a web test is too. Disk and memory lines count anywhere in the
failing step: a full disk or an exhausted heap breaks whatever runs next, whatever it then reports.
"""

from __future__ import annotations

import re
from pathlib import Path

from buildfixer.buildsys.sandbox.egress import allowed_hosts, destination
from buildfixer.buildsys.sandbox.limits import sandbox_limits
from buildfixer.core.build_result import BuildResult
from buildfixer.core.errors import BuildfixerError
from buildfixer.logs.phrases import Phrases, fold
from buildfixer.logs.taxonomy import OUT_OF_MEMORY
from buildfixer.logs.text import clean_log, read_log
from buildfixer.triage.verdict import Signal, clip

# Connections that failed below HTTP: refused, reset, timed out, unreachable, a proxy refusing
# the tunnel (the sandbox's egress proxy answers 403 to a host not on its list).
_NETWORK = Phrases(
    r"Connection refused|\bECONNREFUSED\b|\[Errno 111\]",
    r"Connection reset|\bECONNRESET\b|connection (?:was )?(?:reset|aborted|closed) by peer|\bECONNABORTED\b",
    r"UnknownHostException|Unknown host|\bENOTFOUND\b|\bEAI_AGAIN\b|getaddrinfo|name resolution|"
    r"Name or service not known|nodename nor servname|Could not resolve host|No address associated",
    r"Network is unreachable|No route to host|\bENETUNREACH\b|\bEHOSTUNREACH\b",
    r"(?:connect|read|connection|socket|handshake) timed? ?out",
    r"\bETIMEDOUT\b|\bESOCKETTIMEDOUT\b|\bERR_SOCKET_TIMEOUT\b",
    r"SocketTimeoutException|ConnectTimeoutException|HttpHostConnectException|NoRouteToHostException",
    r"ReadTimeoutError|ConnectTimeoutError|NewConnectionError|Failed to establish a new connection",
    r"NoHttpResponseException|failed to respond|Remote end closed connection|RemoteDisconnected",
    r"Premature end of Content-Length|IncompleteRead|unexpected end of stream",
    r"after connection broken by|Max retries exceeded with url",
    r"trouble with your network connection|problem related to network connectivity",
    r"Unable to tunnel through proxy|Tunnel connection failed|ProxyError|Cannot connect to proxy",
    r"tunneling socket could not be established",
)
_TLS = Phrases(
    r"SSLHandshakeException|SSLException|SSLError|CERTIFICATE_VERIFY_FAILED|certificate verify failed",
    r"PKIX path building failed|unable to find valid certification path",
    r"UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN|CERT_HAS_EXPIRED|"
    r"UNABLE_TO_VERIFY_LEAF_SIGNATURE|\bEPROTO\b",
    r"Remote host terminated the handshake|handshake_failure|requested TLS protocol versions",
)
# A registry's server failing or refusing to serve now: 5xx and 429 (a 401, 403 or 404 is an answer
# about the request, the project's to fix). Gradle ("Received status code 503 from server"), Maven
# ("status code: 502, reason phrase: Bad Gateway"), pip ("HTTP error 503 while getting"), npm
# ("npm error code E503", "503 Service Unavailable - GET https://registry.npmjs.org/...").
_REGISTRY = Phrases(
    r"status code:? (?:5\d\d|429)\b",
    r"HTTP (?:error|status) (?:5\d\d|429)\b|HTTP/[\d.]+ (?:5\d\d|429)\b",
    r"\b(?:5\d\d|429) (?:Server Error|Internal Server Error|Bad Gateway|Service Unavailable|"
    r"Gateway Time-?out|Too Many Requests)",
    r"\bcode E(?:5\d\d|429)\b|ERR_PNPM_FETCH_(?:5\d\d|429)\b",
    r"Too Many Requests|Service (?:Temporarily )?Unavailable|Bad Gateway|Gateway Time-?out",
)
_DISK = Phrases(
    r"No space left on device|\bENOSPC\b|\[Errno 28\]|Disk quota exceeded|\bEDQUOT\b",
    r"not enough space on the disk|insufficient disk space|File size limit exceeded",
)
# The log analyzer's out-of-memory phrases, and what the kernel, Python, node and Gradle say when
# memory runs out (a process the OOM killer ended prints nothing itself: its parent says "Killed"
# or "exit value 137").
_MEMORY = Phrases(
    *OUT_OF_MEMORY,
    r"unable to create (?:new )?native thread|Native memory allocation \(\w+\) failed",
    r"Cannot allocate memory|\bENOMEM\b|\bMemoryError\b|std::bad_alloc|Reached heap limit",
    r"garbage collector is thrashing|JVM heap space is exhausted|daemon disappeared unexpectedly",
    r"(?:exit (?:value|code|status)|exited with(?: code)?|returned non-zero exit status|errno):? 137\b",
    r"signal:? \W?SIGKILL",
    # A shell's report of a child killed by SIGKILL: `Killed`, `sh: line 1: 4242 Killed   node x.js`
    # (never "Killed 3 mutants": the command follows after a run of blanks).
    r"^(?:[\w/.-]+:\s*)?(?:line \d+:\s*)?(?:\d+\s+)?Killed(?:\s{2,}\S.*)?\s*$",
)
_LOCK = Phrases(r"Timeout waiting to lock|It is currently in use by another Gradle instance")

# Kinds whose lines count only when a fetch explains the failure (see the module's docstring).
_FETCH_KINDS = ("network", "tls", "registry")
_RULES: tuple[tuple[str, Phrases], ...] = (
    ("disk", _DISK),
    ("memory", _MEMORY),
    ("registry", _REGISTRY),
    ("tls", _TLS),
    ("network", _NETWORK),
    ("lock", _LOCK),
)
# Root categories a failed fetch produces: a dependency not had, a configuration that did not
# load (a plugin not resolved), or a failure nobody could name.
_FETCH_CATEGORIES = ("library_unavailable", "configuration", "other")
# The signals kept as evidence: the first few say it; a retry loop repeats the same line.
MAX_SIGNALS = 5
_NUMBERS = re.compile(r"0x[0-9a-fA-F]+|\d+")
_FORBIDDEN = re.compile(r"\b403\b|Forbidden", re.IGNORECASE)
_URL = re.compile(r"\b(https?)://([A-Za-z0-9.-]+)(?::(\d+))?")
_LOOPBACK = ("localhost", "127.0.0.1")  # never through the proxy (its no_proxy)


def find_signals(result: BuildResult, lines: list[str] | None = None) -> list[Signal]:
    """The infrastructure signals of a failed build, strongest first (status before log lines).

    Args:
        result: The build, its errors read (`buildsys.analyzed.attach_analysis`).
        lines: Its cleaned log lines; read from `result.log_path` (or its output tail) when None.
    """
    found = status_signals(result)
    lines = log_lines(result) if lines is None else lines
    found += egress_signals(result, lines) or line_signals(result, lines)
    return found


def status_signals(result: BuildResult) -> list[Signal]:
    """What the build's status says: its timeout, a sandbox limit, a tool that could not start, a kill."""
    limit = result.environment.get("limit")
    if limit:
        try:
            said = sandbox_limits().describe(limit)
        except (AttributeError, BuildfixerError):  # a limit of another version, or variables changed since
            said = limit
        return [Signal("limit", f"the sandbox reached its limit of {said}")]
    if result.status == "timeout":
        return [Signal("timeout", f"the build ran past its timeout: killed after {result.duration_s:.0f}s")]
    if result.status == "error":
        return [Signal("start", f"the build could not run here (exit code {result.exit_code})")]
    if result.exit_code in (-9, 137):
        return [Signal("memory", f"the build was killed (exit code {result.exit_code}), as the kernel does "
                                 "when memory runs out")]  # fmt: skip
    return []


def egress_signals(result: BuildResult, lines: list[str]) -> list[Signal]:
    """A host the sandbox's egress proxy refused: the build asked a registry buildfixer does not allow.

    The proxy answers 403 to any host not on its list (buildsys.sandbox.egress), and a tool may
    report that as the server's own answer (npm: `403 Forbidden - GET https://npm.acme.example/x`).
    A 403 naming a host the proxy would have refused is the sandbox's limit, not the project's: on
    the user's machine that registry answers. Loopback never goes through the proxy. Like the
    network's lines, such a line counts only when a fetch explains the failure.
    """
    sandboxed = result.environment.get("sandbox", "none") != "none"  # a saved log's build: unknown
    if not sandboxed or result.environment.get("offline") == "true":
        return []
    allowed = allowed_hosts()
    fetch_explains, in_root = _fetch_scope(result)
    for index in range(failing_step_start(lines), len(lines)):
        line = lines[index]
        if not _FORBIDDEN.search(line) or not (fetch_explains or _part_of(fold(line), in_root)):
            continue
        for found in _URL.finditer(line):
            host = found.group(2).lower()
            port = found.group(3) or ("443" if found.group(1) == "https" else "80")
            if host in _LOOPBACK or destination(host, port, allowed) is not None:
                continue
            why = f"the sandbox reaches the registries only, not {host} (add it to BUILDFIXER_ALLOWED_HOSTS)"
            return [Signal("limit", f"{why}: {clip(line)}", index)]
    return []


def line_signals(result: BuildResult, lines: list[str]) -> list[Signal]:
    """Signals in the failing step's lines that explain this failure (see the module's docstring)."""
    fetch_explains, in_root = _fetch_scope(result)
    found: list[Signal] = []
    seen: set[str] = set()
    for index in range(failing_step_start(lines), len(lines)):
        line = lines[index]
        folded = fold(line)
        for kind, phrases in _RULES:
            if not phrases.search(line, folded):
                continue
            if kind in _FETCH_KINDS and not fetch_explains and not _part_of(folded, in_root):
                continue
            shown = clip(line)
            key = _NUMBERS.sub("#", shown)  # a retry loop's lines differ only in counts and addresses
            if key not in seen:
                seen.add(key)
                found.append(Signal(kind, shown, index))
            break
        if len(found) >= MAX_SIGNALS:
            break
    return found


def _fetch_scope(result: BuildResult) -> tuple[bool, bytes]:
    """Whether a failed fetch can explain the failure (by its root category), and its root message folded."""
    root = result.errors[0] if result.errors else None
    if root is None:
        return True, b""
    return root.category in _FETCH_CATEGORIES, fold(root.message)


def _part_of(folded_line: bytes, folded_message: bytes) -> bool:
    """Whether a log line is part of the root error's message (a cause the parser joined into it)."""
    text = folded_line.strip().lstrip(b">*- \t")
    return len(text) >= 12 and text in folded_message


def failing_step_start(lines: list[str]) -> int:
    """Index of the first line of the failing step: after the last `$ command` header the runner wrote."""
    for index in range(len(lines) - 1, -1, -1):
        if lines[index].startswith("$ "):
            return index + 1
    return 0


def log_lines(result: BuildResult) -> list[str]:
    """The build's cleaned log lines (a huge log through its head and tail); its output tail without a log."""
    text = ""
    if result.log_path and Path(result.log_path).is_file():
        try:
            text = read_log(result.log_path, strict=False)
        except (BuildfixerError, OSError):
            text = ""
    return clean_log(text or result.output_tail).lines
