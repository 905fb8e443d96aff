"""Infrastructure signals on logs in the formats Gradle, AGP, Maven, pip, npm and yarn print.

The logs under tests/fixtures/triage/ follow each tool's documented output (Gradle 8's "Could
not GET ... Received status code", Maven 3.9's "Could not transfer artifact ... Connect to ...
failed", pip's urllib3 retry warnings, npm 10's `npm error code ECONNREFUSED`, ...). `real_*`
are failures of the project that mention the network, a registry or a status code on the way.
"""

from pathlib import Path

import pytest

from buildfixer.core.build_result import BuildResult
from buildfixer.logs.analyze import analyze_file
from buildfixer.triage.signals import find_signals, status_signals

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

INFRA_LOGS = {
    "gradle8_plugin_portal_503": "registry",
    "agp8_google_maven_connection_reset": "network",
    "gradle_wrapper_unknown_host": "network",
    "maven39_central_connection_refused": "network",
    "maven36_plugin_502": "registry",
    "pip_connection_refused": "network",
    "pip_pypi_503": "registry",
    "pip_ssl_certificate": "tls",
    "npm10_econnrefused": "network",
    "npm6_e503": "registry",
    "yarn1_network_timeout": "network",
    "gradle_no_space_left": "disk",
    "npm_enospc": "disk",
    "pip_errno28": "disk",
    "gradle_daemon_heap_exhausted": "memory",
    "node_heap_out_of_memory": "memory",
    "surefire_fork_killed_137": "memory",
    "pytest_killed": "memory",
    "gradle_lock_timeout": "lock",
    "sandbox_proxy_refused_host": "network",
}
REAL_LOGS = [
    "real_gradle_compile_after_mirror_warning",  # a 503 from a mirror, then a compile error
    "real_maven_artifact_not_found",
    "real_gradle_unauthorized_401",
    "real_pytest_asserts_503",  # a retry in the install step; a test asserting on a 503
    "real_pip_no_such_version",
    "real_npm_e404",
]


def built(log: Path, status: str = "failure", exit_code: int = 1, **environment: str) -> BuildResult:
    """A failed build whose log is `log`, its errors read as attach_analysis reads them."""
    analysis = analyze_file(log, strict=False)
    return BuildResult(
        status, exit_code, 3.0, analysis.build_system or "", [], None, str(log), errors=analysis.errors,
        category=analysis.category, environment=dict(environment),
    )  # fmt: skip


@pytest.mark.parametrize("name,kind", sorted(INFRA_LOGS.items()))
def test_an_infrastructure_failure_is_found_with_its_line(name: str, kind: str) -> None:
    signals = find_signals(built(FIXTURES / "triage" / f"{name}.log"))
    assert signals, name
    assert signals[0].kind == kind
    assert signals[0].log_line is not None and signals[0].detail


@pytest.mark.parametrize("name", REAL_LOGS)
def test_a_project_failure_that_mentions_the_network_is_not_infrastructure(name: str) -> None:
    assert find_signals(built(FIXTURES / "triage" / f"{name}.log")) == []


def test_no_log_of_the_analyzer_corpus_reads_as_infrastructure_but_the_out_of_memory_ones() -> None:
    # 200 logs of project failures (compile errors, missing dependencies, failing tests...); two ran
    # out of memory (a heap, a process the kernel killed: exit 137).
    flagged = {log.stem for log in sorted((FIXTURES / "logs").glob("*.log")) if find_signals(built(log))}
    assert flagged == {"gradle_jetifier_heap_space", "r3_node_killed_exit_137"}


def test_a_retry_loop_is_one_signal(tmp_path: Path) -> None:
    signals = find_signals(built(FIXTURES / "triage" / "pip_connection_refused.log"))
    assert len(signals) == 1 and "Connection refused" in signals[0].detail


def test_only_the_failing_step_counts(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    log.write_text(
        "$ npm ci --no-audit\nnpm warn retry will retry, error on last attempt: Error: read ECONNRESET\n"
        "added 12 packages in 3s\n$ npm run build\n> app@1.0.0 build\n> node build.js\n"
        "Error: Cannot find module './config'\n"
    )
    assert find_signals(built(log)) == []


def test_killed_is_the_shells_word_not_a_count(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    log.write_text("$ mvn -B verify\n>> Killed 3 mutants, 1 survived\n[ERROR] BUILD FAILURE\n")
    assert find_signals(built(log)) == []
    log.write_text("$ npm test\nsh: line 1:  4242 Killed                  node --test\n")
    assert [s.kind for s in find_signals(built(log))] == ["memory"]


@pytest.mark.parametrize(
    "status,exit_code,environment,kind",
    [
        ("timeout", -1, {}, "timeout"),
        ("failure", -9, {"limit": "memory"}, "limit"),
        ("failure", -9, {"limit": "disk_free"}, "limit"),
        ("error", 127, {}, "start"),
        ("failure", 137, {}, "memory"),
        ("failure", 1, {}, None),
    ],
)
def test_the_status_speaks_first(
    tmp_path: Path, status: str, exit_code: int, environment: dict[str, str], kind: str | None
) -> None:
    log = tmp_path / "build.log"
    log.write_text("$ gradle build\n")
    signals = status_signals(built(log, status, exit_code, **environment))
    assert [s.kind for s in signals] == ([kind] if kind else [])
    if environment.get("limit") == "memory":
        assert "BUILDFIXER_SANDBOX_MEMORY" in signals[0].detail  # what to raise, named


def test_a_registry_the_sandbox_does_not_reach_is_its_limit(tmp_path: Path) -> None:
    # npm reports the egress proxy's refusal as if the registry had answered it.
    log = tmp_path / "build.log"
    log.write_text(
        "$ npm install\nnpm error code E403\nnpm error 403 403 Forbidden - GET https://npm.acme.example/kit\n"
    )
    (signal,) = find_signals(built(log, sandbox="bubblewrap", offline="false"))
    assert signal.kind == "limit" and "npm.acme.example" in signal.detail
    assert "BUILDFIXER_ALLOWED_HOSTS" in signal.detail
    # A registry the sandbox does reach said 403 itself: an answer about the request (credentials).
    log.write_text(
        "$ npm install\nnpm error 403 403 Forbidden - GET https://registry.npmjs.org/@acme%2fkit\n"
    )
    assert find_signals(built(log, sandbox="bubblewrap", offline="false")) == []
    assert find_signals(built(log, sandbox="none")) == []


def test_a_build_without_a_log_is_read_from_its_output_tail() -> None:
    result = BuildResult("failure", 1, 1.0, "npm", [], None, "/nonexistent/build.log",
                         output_tail="$ npm ci\nnpm error code ENOSPC\n")  # fmt: skip
    assert [s.kind for s in find_signals(result)] == ["disk"]
