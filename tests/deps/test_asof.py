"""Builds with the world as it was at a date (BuildOptions.as_of) and pinned JVM dynamic versions."""

from __future__ import annotations

import base64
import ensurepip
import json
import logging
import threading
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from buildfixer.buildsys import dated_index, npm, python
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import build_project
from buildfixer.buildsys.sandbox.egress import expose_loopback
from buildfixer.core.errors import BuildfixerError
from buildfixer.deps.asof import (
    choose,
    dynamic_kind,
    find_dynamic_versions,
    parse_listing,
    pin_dynamic_versions,
    published_versions,
)
from buildfixer.deps.registry import NPM_REGISTRY
from buildfixer.deps.versions import version_key

UNREACHABLE = "http://unreachable.invalid/maven2"  # .invalid never resolves (RFC 2606)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# --- local servers ----------------------------------------------------------------------------


@contextmanager
def serve(
    answer: Callable[[str], tuple[int, str, bytes]], seen: list[dict[str, str]] | None = None
) -> Iterator[str]:
    """An HTTP server on a free local port; `answer(path)` gives (status, content type, body).

    The headers of every request go to `seen` when given.
    """

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if seen is not None:
                seen.append({"path": self.path, **self.headers})
            status, content_type, body = answer(self.path)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def central_listing(title: str, versions: dict[str, str]) -> bytes:
    """A directory listing in Maven Central's format."""
    rows = [
        f'<a href="{v}/" title="{v}/">{v}/</a>{" " * (50 - len(v))}{d}         -      '
        for v, d in versions.items()
    ]
    rows.append(
        '<a href="maven-metadata.xml" title="maven-metadata.xml">maven-metadata.xml</a>'
        "                                2021-02-13 17:25      2346      "
    )
    return (
        f"<!DOCTYPE html>\n<html>\n<head>\n\t<title>Central Repository: {title}</title>\n</head>\n<body>\n"
        f'\t<main>\n\t\t<pre id="contents">\n<a href="../">../</a>\n' + "\n".join(rows) + "\n\t\t</pre>\n"
        "\t</main>\n</body>\n</html>\n"
    ).encode()


# Publication times of junit and gson as Central lists them (4.9-4.11 and gson 2.8.5-2.8.7 match
# the build times inside their jars, checked by hand).
JUNIT = {
    "3.8.2": "2007-05-31 09:11",
    "4.8.2": "2010-10-07 18:42",
    "4.9": "2011-08-22 14:18",
    "4.10": "2011-09-29 19:21",
    "4.11-beta-1": "2012-10-15 21:48",
    "4.11": "2012-11-14 20:23",
    "4.12": "2014-12-04 16:17",
    "4.13.2": "2021-02-13 17:25",
}
GSON = {
    "2.8.5": "2018-05-22 01:53",
    "2.8.6": "2019-10-04 12:01",
    "2.8.7": "2021-05-24 16:29",
    "2.9.0": "2022-02-11 19:18",
    "2.10-rc1": "2022-10-01 10:00",
}


@pytest.fixture
def repository() -> Iterator[str]:
    """A local Maven repository serving Central-style listings of junit and gson (nothing else).

    Reached as buildfixer's own services are (`expose_loopback`): look-ups obey the egress rule.
    """
    listings = {"/maven2/junit/junit/": JUNIT, "/maven2/com/google/code/gson/gson/": GSON}

    def answer(path: str) -> tuple[int, str, bytes]:
        if path in listings:
            return 200, "text/html", central_listing(path, listings[path])
        return 404, "text/plain", b"not found"

    with serve(answer) as base:
        yield f"{expose_loopback(base)}/maven2"


# --- which versions are dynamic ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("[4.0,5.0)", "range"),
        ("(,1.5]", "range"),
        ("]1.0,2.0[", "range"),
        ("[1.0,2.0),[3.0,)", "range"),
        ("[1.0]", None),
        ("1.+", "prefix"),
        ("+", "prefix"),
        ("LATEST", "latest"),
        ("RELEASE", "latest"),
        ("latest.release", "latest"),
        ("latest.integration", "latest"),
        ("1.0-SNAPSHOT", "snapshot"),
        ("2.8.9", None),
        ("31.1-jre", None),
    ],
)
def test_dynamic_kind(spec: str, kind: str | None) -> None:
    assert dynamic_kind(spec) == kind


POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.acme</groupId>
    <artifactId>acme-parent</artifactId>
    <version>[1.0,2.0)</version>
  </parent>
  <artifactId>app</artifactId>
  <version>1.0-SNAPSHOT</version>
  <properties>
    <gson.version>[2.8,2.9)</gson.version>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency><groupId>com.acme</groupId><artifactId>lib</artifactId><version>2.0-SNAPSHOT</version></dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>[4.0,5.0)</version>
    </dependency>
    <dependency>
      <groupId>com.google.code.gson</groupId>
      <artifactId>gson</artifactId>
      <version>${gson.version}</version>
    </dependency>
    <dependency><groupId>org.acme</groupId><artifactId>core</artifactId><version>1.0-SNAPSHOT</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>[1.7.30]</version></dependency>
    <dependency><groupId>commons-io</groupId><artifactId>commons-io</artifactId><version>2.11.0</version></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><artifactId>maven-surefire-plugin</artifactId><version>LATEST</version></plugin>
    </plugins>
  </build>
</project>
"""
CORE_POM = (
    "<project><parent><groupId>org.acme</groupId><artifactId>app</artifactId><version>1.0-SNAPSHOT</version>"
    "</parent><artifactId>core</artifactId></project>\n"
)


def maven_project(root: Path) -> Path:
    (root / "core").mkdir(parents=True)
    (root / "pom.xml").write_text(POM)
    (root / "core" / "pom.xml").write_text(CORE_POM)
    return root


def test_dynamic_versions_of_poms(tmp_path: Path) -> None:
    found = find_dynamic_versions(maven_project(tmp_path / "p"))
    rows = {(d.file, d.line, f"{d.group}:{d.artifact}", d.spec, d.kind) for d in found}
    assert rows == {
        ("pom.xml", 11, "com.google.code.gson:gson", "[2.8,2.9)", "range"),  # where the property is
        ("pom.xml", 15, "com.acme:lib", "2.0-SNAPSHOT", "snapshot"),  # dependencyManagement
        ("pom.xml", 22, "junit:junit", "[4.0,5.0)", "range"),
        ("pom.xml", 35, "org.apache.maven.plugins:maven-surefire-plugin", "LATEST", "latest"),
    }  # not: the parent's range, the project's own version, its module core, an exact [1.7.30]
    gson = next(d for d in found if d.artifact == "gson")
    assert gson.declared_in == "pom.xml" and POM[gson.start : gson.end] == "[2.8,2.9)"


BUILD_GRADLE = """plugins { id 'java' }
group = 'org.example'
ext.slf4jVersion = '[1.7,1.8)'
dependencies {
    implementation 'com.google.code.gson:gson:2.+'
    testImplementation group: 'junit', name: 'junit', version: 'latest.release'
    implementation "org.slf4j:slf4j-api:$slf4jVersion"
    implementation 'org.example:core:1.0-SNAPSHOT'
    implementation 'com.acme:lib:2.0-SNAPSHOT'
    implementation 'commons-io:commons-io:2.11.0'
    implementation 'org.apache.commons:commons-lang3:+'
}
"""
CATALOG = """[versions]
guava = "[30.0,31.0)"
kotlin = "1.9.0"

[libraries]
guava = { module = "com.google.guava:guava", version.ref = "guava" }
okio = { group = "com.squareup.okio", name = "okio", version = "latest.integration" }
kt = { module = "org.jetbrains.kotlin:kotlin-stdlib", version.ref = "kotlin" }
"""


def test_dynamic_versions_of_gradle_scripts_and_catalogs(tmp_path: Path) -> None:
    project = tmp_path / "g"
    (project / "core").mkdir(parents=True)
    (project / "gradle").mkdir()
    (project / "build.gradle").write_text(BUILD_GRADLE)
    (project / "core" / "build.gradle.kts").write_text(
        'dependencies {\n    implementation("com.squareup.okhttp3:okhttp:4.+")\n'
        "    implementation(libs.guava)\n}\n"
    )
    (project / "gradle" / "libs.versions.toml").write_text(CATALOG)
    rows = [
        (d.file, d.line, f"{d.group}:{d.artifact}", d.spec, d.kind) for d in find_dynamic_versions(project)
    ]
    assert rows == [
        ("build.gradle", 3, "org.slf4j:slf4j-api", "[1.7,1.8)", "range"),  # the variable's line
        ("build.gradle", 5, "com.google.code.gson:gson", "2.+", "prefix"),
        ("build.gradle", 6, "junit:junit", "latest.release", "latest"),
        ("build.gradle", 9, "com.acme:lib", "2.0-SNAPSHOT", "snapshot"),  # not org.example:core, ours
        ("build.gradle", 11, "org.apache.commons:commons-lang3", "+", "prefix"),
        ("core/build.gradle.kts", 2, "com.squareup.okhttp3:okhttp", "4.+", "prefix"),
        ("gradle/libs.versions.toml", 2, "com.google.guava:guava", "[30.0,31.0)", "range"),
        ("gradle/libs.versions.toml", 7, "com.squareup.okio:okio", "latest.integration", "latest"),
    ]


# --- choosing the version of a date -----------------------------------------------------------


def test_listing_of_central_and_of_apache_style_indexes() -> None:
    listing = parse_listing(central_listing("junit/junit", JUNIT).decode())
    assert listing["4.10"] == utc("2011-09-29T19:21") and set(listing) == set(JUNIT)  # no ../, no files
    nginx = '<a href="1.2.3/">1.2.3/</a>                  29-Sep-2011 19:21                   -\n'
    nginx += '<a href="https://x/y/1.3/">1.3/</a>   2012-01-02 03:04:05   -\n<a href="2.0/">2.0/</a>  -  -\n'
    assert parse_listing(nginx) == {"1.2.3": utc("2011-09-29T19:21"), "1.3": utc("2012-01-02T03:04:05")}


def test_choice_by_range_prefix_and_latest() -> None:
    junit = {v: utc(d.replace(" ", "T")) for v, d in JUNIT.items()}
    gson = {v: utc(d.replace(" ", "T")) for v, d in GSON.items()}
    assert choose("[4.0,5.0)", junit, utc("2012-01-01T00:00")) == "4.10"
    assert choose("[4.0,5.0)", junit, utc("2012-12-31T00:00")) == "4.11"  # never 4.11-beta-1 alone
    assert choose("[4.0,5.0)", junit, utc("2012-11-01T00:00")) == "4.10"  # 4.11-beta-1 existed
    assert choose("[4.11-beta-1,5.0)", junit, utc("2012-11-01T00:00")) == "4.11-beta-1"  # named
    assert choose("(,4.10)", junit, utc("2030-01-01T00:00")) == "4.9"
    assert choose("[3.0,4.0),[4.12,)", junit, utc("2013-01-01T00:00")) == "3.8.2"
    assert choose("[4.0,5.0)", junit, utc("2011-09-29T19:21")) == "4.10"  # on the minute: included
    assert choose("[4.0,5.0)", junit, utc("2011-09-29T19:20")) == "4.9"
    assert choose("[5.0,6.0)", junit, utc("2030-01-01T00:00")) is None
    assert choose("2.+", gson, utc("2020-01-01T00:00")) == "2.8.6"
    assert choose("2.8.+", gson, utc("2030-01-01T00:00")) == "2.8.7"
    assert choose("+", gson, utc("2030-01-01T00:00")) == "2.9.0"  # never the release candidate
    assert choose("latest.release", gson, utc("2019-01-01T00:00")) == "2.8.5"
    assert choose("LATEST", gson, utc("2000-01-01T00:00")) is None


# --- pinning ----------------------------------------------------------------------------------


def test_pin_rewrites_poms_in_place(tmp_path: Path, repository: str) -> None:
    project = maven_project(tmp_path / "p")
    report = pin_dynamic_versions(project, "2012-01-01T00:00:00Z", tmp_path / "cache", base_url=repository)
    assert {(d.artifact, v) for d, v in report.pinned} == {("junit", "4.10")}
    reasons = {d.artifact: r for d, r in report.unpinnable}
    assert set(reasons) == {"lib", "gson", "maven-surefire-plugin"}
    assert "SNAPSHOT" in reasons["lib"]
    assert "[2.8,2.9)" in reasons["gson"] and "2012-01-01" in reasons["gson"]  # gson 2.8 is from 2016
    assert "HTTP 404" in reasons["maven-surefire-plugin"]  # not in the local repository
    pom = (project / "pom.xml").read_text()
    assert pom == POM.replace("<version>[4.0,5.0)</version>", "<version>4.10</version>")


def test_pin_rewrites_gradle_variables_and_catalogs_and_caches_listings(tmp_path: Path) -> None:
    project = tmp_path / "g"
    (project / "gradle").mkdir(parents=True)
    (project / "build.gradle").write_text(
        "ext.gsonVersion = '2.+'\ndependencies {\n"
        '    implementation "com.google.code.gson:gson:$gsonVersion"\n'
        "    testImplementation 'junit:junit:[4.0,5.0)'\n}\n"
    )
    catalog = '[libraries]\njunit = { module = "junit:junit", version = "latest.release" }\n'
    (project / "gradle" / "libs.versions.toml").write_text(catalog)
    with serve(
        lambda path: (200, "text/html", central_listing(path, JUNIT if "junit" in path else GSON))
    ) as local:
        base = expose_loopback(local)
        report = pin_dynamic_versions(project, "2020-01-01T00:00:00Z", tmp_path / "cache", base_url=base)
    assert sorted((d.file, d.spec, v) for d, v in report.pinned) == [
        ("build.gradle", "2.+", "2.8.6"),
        ("build.gradle", "[4.0,5.0)", "4.12"),
        ("gradle/libs.versions.toml", "latest.release", "4.12"),
    ]
    assert report.unpinnable == []
    assert (project / "build.gradle").read_text().startswith("ext.gsonVersion = '2.8.6'\n")
    assert "'junit:junit:4.12'" in (project / "build.gradle").read_text()
    assert find_dynamic_versions(project) == []
    # The server is gone: the listings come from the cache now.
    assert published_versions("junit", "junit", tmp_path / "cache", base)["4.10"] == utc("2011-09-29T19:21")


def test_unreachable_repository_leaves_everything_unpinnable(tmp_path: Path) -> None:
    project = maven_project(tmp_path / "p")
    report = pin_dynamic_versions(project, "2012-01-01T00:00:00Z", tmp_path / "cache", base_url=UNREACHABLE)
    assert report.pinned == []
    assert len(report.unpinnable) == 4
    assert all(
        "cannot read http://unreachable.invalid/maven2/" in r
        for d, r in report.unpinnable
        if d.kind != "snapshot"
    )
    assert (project / "pom.xml").read_text() == POM
    with pytest.raises(BuildfixerError, match="ISO 8601"):
        pin_dynamic_versions(project, "last year", tmp_path / "cache")


def test_pin_against_maven_central(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "build.gradle").write_text(
        "dependencies {\n    testImplementation 'junit:junit:[4.0,5.0)'\n}\n"
        "dependencies {\n    implementation 'com.google.code.gson:gson:2.+'\n}\n"
    )
    before = (project / "build.gradle").read_text()
    report = pin_dynamic_versions(project, "2012-01-01T00:00:00Z", tmp_path / "cache")
    if any("HTTP 404" in reason for _, reason in report.unpinnable):
        # This network's Central mirror serves no directory listings: nothing can be dated, and
        # that must be said per dependency, with nothing rewritten (curation then rejects it).
        assert report.pinned == [] and len(report.unpinnable) == 2
        assert all("no directory listings" in reason for _, reason in report.unpinnable)
        assert (project / "build.gradle").read_text() == before
        return
    assert {(d.artifact, v) for d, v in report.pinned} == {("junit", "4.10")}
    assert [d.artifact for d, _ in report.unpinnable] == ["gson"]  # gson 2.0 came out in 2012-05
    (project / "build.gradle").write_text(
        "dependencies {\n    implementation 'com.google.code.gson:gson:2.+'\n}\n"
    )
    report = pin_dynamic_versions(project, "2020-01-01T00:00:00Z", tmp_path / "cache")
    assert [v for _, v in report.pinned] == ["2.8.6"]


# --- pip and npm plans ------------------------------------------------------------------------


def plan_options(tmp_path: Path, **kw: object) -> BuildOptions:
    return BuildOptions(cache_dir=tmp_path / "cache", state_dir=tmp_path / "state", **kw)  # type: ignore[arg-type]


def python_project(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "setup.py").write_text(
        "from setuptools import setup\nsetup(name='p', install_requires=['packaging'])\n"
    )
    (root / "requirements-dev.txt").write_text("packaging\n")
    return root


def test_python_plan_of_a_date(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    plan = python.plan(project, plan_options(tmp_path, as_of="2022-06-01"), None)
    installs = [s for s in plan.steps if "install" in s.argv]
    flags = ["--disable-pip-version-check", "--progress-bar", "off"]
    url = installs[0].argv[installs[0].argv.index("--index-url") + 1]
    # Sandboxed (the default), the index on our loopback is reached through the egress proxy.
    assert url.startswith("http://buildfixer-host.internal:") and url.endswith("/20220601T000000Z/simple/")
    unconfined = python.plan(project, plan_options(tmp_path, as_of="2022-06-01", sandbox="none"), None)
    assert "http://127.0.0.1:" in " ".join(unconfined.steps[1].argv)
    dated = [*flags, "--index-url", url]
    assert [s.argv[s.argv.index("install") + 1 :] for s in installs] == [
        [*dated, "-r", "requirements-dev.txt"],  # no pip upgrade: the venv's own pip will do
        [*dated, ".", "pytest"],
        [*flags, "--no-deps", "-e", "."],  # editable, by today's build backend, from today's index
    ]
    quiet = {"PIP_FIND_LINKS": "", "PIP_EXTRA_INDEX_URL": ""}  # empty: pip ignores the variables
    assert [{k: s.env[k] for k in quiet if k in s.env} for s in installs] == [quiet, quiet, {}]
    assert all("127.0.0.1" in s.env["no_proxy"].split(",") for s in installs[:2])
    assert "pip" not in plan.tools
    assert plan.notes == [
        "dependencies as of 2022-06-01T00:00:00Z: pip sees only files uploaded before it, through a "
        "local index, without find-links, then the project editable with today's build backend"
    ]
    today = python.plan(project, plan_options(tmp_path), None)
    assert not any("--index-url" in s.argv or s.env for s in today.steps)
    assert today.notes == [] and "pip" not in today.tools
    offline = python.plan(project, plan_options(tmp_path, as_of="2022-06-01", offline=True), None)
    assert not any("--index-url" in s.argv or s.env for s in offline.steps)
    assert "no effect offline" in offline.notes[0]
    with pytest.raises(BuildfixerError, match="ISO 8601"):
        python.plan(project, plan_options(tmp_path, as_of="June 2022"), None)


def test_npm_plan_of_a_date(tmp_path: Path) -> None:
    project = tmp_path / "n"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "n", "dependencies": {"has-flag": "*"}}))
    install = npm.plan(project, plan_options(tmp_path, as_of="2019-05-01T10:00:00+02:00"), None).steps[0].argv
    assert install[1] == "install" and install[-1] == "--before=2019-05-01T08:00:00Z"
    assert not any(
        a.startswith("--before") for a in npm.plan(project, plan_options(tmp_path), None).steps[0].argv
    )
    (project / "package-lock.json").write_text("{}")
    locked = npm.plan(project, plan_options(tmp_path, as_of="2019-05-01"), None).steps[0].argv
    assert locked[1] == "ci" and not any(a.startswith("--before") for a in locked)  # the lockfile pins


def test_warm_state_keys_differ_by_date(tmp_path: Path) -> None:
    project = python_project(tmp_path / "p")
    (project / "package.json").write_text(json.dumps({"name": "n", "dependencies": {"has-flag": "*"}}))

    def keys(as_of: str | None) -> list[str]:
        options = plan_options(tmp_path, as_of=as_of)
        steps = python.plan(project, options, None).steps + npm.plan(project, options, None).steps
        return [value for step in steps for stamp, value in step.stamps.items() if stamp.suffix == ".sha256"]

    today, first, second = keys(None), keys("2021-01-01T00:00:00Z"), keys("2022-01-01T00:00:00Z")
    assert len(today) == len(first) == len(second) == 2  # the venv's and node_modules'
    assert all(len({a, b, c}) == 3 for a, b, c in zip(today, first, second, strict=True))
    assert keys("2021-01-01") == first  # the same moment, however written


# --- the dated index -------------------------------------------------------------------------

PIP_ACCEPT = (  # what pip 23.2 sends
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01"
)
# A mirror's page: upload times as HTML attributes, relative and absolute hrefs, one file without time.
HTML_PAGE = """<!DOCTYPE html><html><body><h1>Links for demo</h1>
<a href="../../files/demo-1.0.tar.gz#sha256=aa" data-requires-python="&gt;=3.6"
   data-upload-time="2020-01-01T10:00:00.123456Z">demo-1.0.tar.gz</a><br/>
<a href="https://files.example/demo-1.1-py3-none-any.whl#sha256=bb" data-yanked="broken"
   data-dist-info-metadata="sha256=cc"
   data-upload-time="2021-06-01T00:00:00Z">demo-1.1-py3-none-any.whl</a><br/>
<a href="/files/demo-1.2.tar.gz#sha256=dd">demo-1.2.tar.gz</a><br/>
<a href="https://files.example/demo-2.0.tar.gz#sha256=ee"
   data-upload-time="2023-03-01T00:00:00Z">demo-2.0.tar.gz</a>
</body></html>
"""
# PyPI's own format (PEP 691 with PEP 700's upload-time).
JSON_PAGE = {
    "meta": {"api-version": "1.1"},
    "name": "jay",
    "files": [
        {"filename": "jay-0.9.tar.gz", "url": "../../files/jay-0.9.tar.gz", "hashes": {}},
        {
            "filename": "jay-1.0-py3-none-any.whl",
            "url": "../../files/jay-1.0-py3-none-any.whl",
            "hashes": {"sha256": "11"},
            "requires-python": ">=3.7",
            "core-metadata": {"sha256": "22"},
            "upload-time": "2019-05-05T05:05:05.000000Z",
        },
        {
            "filename": "jay-2.0.tar.gz",
            "url": "https://files.example/jay-2.0.tar.gz",
            "hashes": {"sha256": "33"},
            "yanked": True,
            "upload-time": "2024-02-02T02:02:02.000000Z",
        },
    ],
}


def simple_upstream(path: str) -> tuple[int, str, bytes]:
    """An upstream index: demo as HTML, jay as JSON, bare without any upload time, broken with 500."""
    if path == "/simple/demo/":
        return 200, "text/html", HTML_PAGE.encode()
    if path == "/simple/jay/":
        return 200, "application/vnd.pypi.simple.v1+json", json.dumps(JSON_PAGE).encode()
    if path == "/simple/bare/":
        return 200, "text/html", b'<a href="/files/bare-1.0.tar.gz#sha256=ff">bare-1.0.tar.gz</a>'
    if path == "/simple/broken/":
        return 500, "text/plain", b"oops"
    return 404, "text/plain", b"not found"


def get(url: str, accept: str | None = PIP_ACCEPT) -> tuple[int, str, bytes]:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept is not None else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read()


def files_of(url: str) -> list[dict[str, object]]:
    status, content_type, body = get(url)
    assert (status, content_type) == (200, "application/vnd.pypi.simple.v1+json"), body
    return list(json.loads(body)["files"])


def test_dated_index_filters_an_html_page(tmp_path: Path) -> None:
    seen: list[dict[str, str]] = []
    with serve(simple_upstream, seen) as base:
        index = dated_index.index_url("2022-01-01", tmp_path / "cache", f"{base}/simple")
        assert index.startswith("http://127.0.0.1:") and index.endswith("/20220101T000000Z/simple/")
        old, yanked = files_of(index + "demo/")  # not 1.2 (no upload time), not 2.0 (2023)
    assert old == {
        "filename": "demo-1.0.tar.gz",
        "url": f"{base}/files/demo-1.0.tar.gz",  # absolute: downloads go to the upstream's host
        "hashes": {"sha256": "aa"},
        "requires-python": ">=3.6",
        "yanked": False,
        "upload-time": "2020-01-01T10:00:00.123456Z",
    }
    assert (yanked["yanked"], yanked["core-metadata"]) == ("broken", {"sha256": "cc"})
    # JSON first: some mirrors add upload times to their HTML only when asked so.
    assert seen[0]["Accept"] == "application/vnd.pypi.simple.v1+json, text/html;q=0.1"
    # The upstream is gone: other past cut-offs and spellings of the name come from the cache.
    later = dated_index.index_url("2024-01-01", tmp_path / "cache", f"{base}/simple")
    assert [f["filename"] for f in files_of(later + "Demo/")] == [
        "demo-1.0.tar.gz",
        "demo-1.1-py3-none-any.whl",
        "demo-2.0.tar.gz",
    ]
    assert len(seen) == 1
    status, content_type, body = get(index + "demo/", accept="text/html")
    page = body.decode()
    assert (status, content_type) == (200, "text/html; charset=utf-8")
    assert f'<a href="{base}/files/demo-1.0.tar.gz#sha256=aa" data-requires-python="&gt;=3.6"' in page
    assert 'data-yanked="broken" data-core-metadata="sha256=cc" data-dist-info-metadata="sha256=cc"' in page
    assert "demo-1.2" not in page and "demo-2.0" not in page


def test_dated_index_filters_a_json_page(tmp_path: Path) -> None:
    with serve(simple_upstream) as base:
        index = dated_index.index_url("2025-01-01T12:00:00+02:00", tmp_path / "cache", f"{base}/simple/")
        assert "/20250101T100000Z/" in index
        files = files_of(index + "jay/")
        page = get(index + "jay/", accept=None)[2].decode()
    assert [(f["filename"], f["url"], f["yanked"]) for f in files] == [
        ("jay-1.0-py3-none-any.whl", f"{base}/files/jay-1.0-py3-none-any.whl", False),
        ("jay-2.0.tar.gz", "https://files.example/jay-2.0.tar.gz", True),
    ]
    assert (files[0]["requires-python"], files[0]["upload-time"]) == (">=3.7", "2019-05-05T05:05:05.000000Z")
    assert f'href="{base}/files/jay-1.0-py3-none-any.whl#sha256=11" data-requires-python="&gt;=3.7"' in page
    assert 'data-dist-info-metadata="sha256=22"' in page
    assert '<a href="https://files.example/jay-2.0.tar.gz#sha256=33" data-yanked=""' in page


def test_a_page_without_upload_times_gives_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with serve(simple_upstream) as base, caplog.at_level(logging.WARNING):
        index = dated_index.index_url("2030-01-01", tmp_path / "cache", f"{base}/simple/")
        assert files_of(index + "bare/") == []  # pip then finds no versions, never today's files
    assert "the upstream page of bare gives no upload times" in caplog.text


@pytest.mark.parametrize(
    ("accept", "json_wanted"),
    [
        (PIP_ACCEPT, True),
        ("application/vnd.pypi.simple.latest+json", True),
        (None, False),
        ("*/*", False),
        ("text/html", False),
        ("application/vnd.pypi.simple.v1+html, application/vnd.pypi.simple.v1+json;q=0.5", False),
        ("application/vnd.pypi.simple.v1+json;q=0", False),
    ],
)
def test_dated_index_answers_in_the_format_asked(
    tmp_path: Path, accept: str | None, json_wanted: bool
) -> None:
    with serve(simple_upstream) as base:
        index = dated_index.index_url("2030-01-01", tmp_path / "cache", f"{base}/simple/")
        status, content_type, _ = get(index + "demo/", accept)
    assert status == 200
    assert content_type == (
        "application/vnd.pypi.simple.v1+json" if json_wanted else "text/html; charset=utf-8"
    )


def test_dated_index_upstream_errors_credentials_and_cache(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[dict[str, str]] = []
    with serve(simple_upstream, seen) as base, caplog.at_level(logging.DEBUG):
        with_login = base.replace("http://", "http://alice:s%40cret@")
        upstream = f"{with_login}/simple/"
        index = dated_index.index_url("2022-01-01", tmp_path / "cache", upstream)
        urls = [f["url"] for f in files_of(index + "demo/")]
        broken = get(index + "broken/")
        assert get(index + "missing/")[0] == 404  # pip reads a 404 as "no such project"
        assert get(index + "..%2F..%2Fetc/")[0] == 404
        assert get(index)[0] == 404  # the project list: pip does not need it
    assert seen[0]["Authorization"] == "Basic " + base64.b64encode(b"alice:s@cret").decode()
    # The pages are read by sandboxed builds: links never carry the upstream's credentials.
    assert urls == [f"{base}/files/demo-1.0.tar.gz", "https://files.example/demo-1.1-py3-none-any.whl"]
    assert broken[0] == 502 and b"HTTP 500" in broken[2]
    assert "cret" not in index + broken[2].decode() + caplog.text
    # The upstream is gone: the cached page still serves the same cut-off...
    assert len(files_of(index + "demo/")) == 2
    # ...but not a cut-off after it was read, which may lack later uploads.
    future = dated_index.index_url("2999-01-01", tmp_path / "cache", upstream)
    status, _, body = get(future + "demo/")
    assert status == 502 and b"127.0.0.1" in body


# --- real builds ------------------------------------------------------------------------------


def site_packages(state: Path) -> dict[str, str]:
    """Distribution name -> version installed in the build's venv."""
    infos = (state / "sandbox" / "venv" / "lib").glob("python*/site-packages/*.dist-info")
    return dict(info.name.removesuffix(".dist-info").rsplit("-", 1) for info in infos)  # type: ignore[misc]


def fake_wheel(directory: Path, name: str, version: str) -> Path:
    """A minimal installable wheel: what a find-links directory could offer regardless of dates."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"{name}/__init__.py", f"__version__ = {version!r}\n")
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")
    return path


@pytest.mark.slow
def test_sandboxed_python_build_reaches_the_dated_index(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "1"\ndependencies = ["packaging"]\n'
    )
    (project / "p.py").write_text("import packaging\n")
    state = tmp_path / "state"
    result = build_project(project, BuildOptions(state_dir=state, as_of="2022-06-01T00:00:00Z"))
    assert result.status == "success", Path(result.log_path).read_text()[-3000:]
    assert site_packages(state)["packaging"] == "21.3"  # 22.0 came out in 2022-12


@pytest.mark.slow
def test_python_build_installs_the_dependencies_of_its_date(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    # setup.py notes which setuptools runs it: the dated one in pip's build isolation, then today's.
    (project / "setup.py").write_text(
        "import os, setuptools\n"
        "with open(os.environ['SETUPTOOLS_SEEN'], 'a') as seen:\n"
        "    seen.write(setuptools.__version__ + '\\n')\n"
        "setuptools.setup(name='p', version='1.0', py_modules=['p'], install_requires=['packaging'])\n"
    )
    (project / "p.py").write_text("import packaging\n")
    # The project's own tests see the dated packaging, through the dated pytest.
    (project / "tests" / "test_p.py").write_text(
        "import os\nimport packaging\n\n\ndef test_version():\n"
        "    assert packaging.__version__ == os.environ.get('EXPECTED', packaging.__version__)\n"
    )
    state, seen = tmp_path / "state", tmp_path / "setuptools-seen"
    # A find-links directory with a newer pytest than any: dated installs must not see it (the
    # undated editable install does, and needs nothing from it).
    wheels = fake_wheel(tmp_path / "wheels", "pytest", "99.0").parent
    env = {"PIP_FIND_LINKS": str(wheels), "SETUPTOOLS_SEEN": str(seen), "EXPECTED": "21.3"}
    # Unsandboxed: the build's probe (setup.py) writes outside the project, into tmp_path.
    options = BuildOptions(state_dir=state, as_of="2022-06-01T00:00:00Z", extra_env=env, sandbox="none")
    result = build_project(project, options)
    log = Path(result.log_path).read_text()
    assert result.status == "success", log[-3000:]
    installed = site_packages(state)
    # packaging 22.0 came out in 2022-12, pytest 7.1.3 in 2022-09; pip stays the venv's own.
    assert (installed["packaging"], installed["pytest"], installed["pip"]) == (
        "21.3",
        "7.1.2",
        ensurepip.version(),
    )
    _, dated_install, editable = log.split("\n$ ")[:3]
    assert dated_install.startswith("PIP_FIND_LINKS= PIP_EXTRA_INDEX_URL= ")
    assert "/20220601T000000Z/simple/" in dated_install and "Looking in links" not in dated_install
    assert f"Looking in links: {wheels}" in editable
    # setuptools 62.3.3 came out on 2022-06-07, 64 (the first with PEP 660 editables) in 2022-08.
    versions = seen.read_text().split()
    assert versions[0] == "62.3.2" and version_key(versions[-1]) >= version_key("64"), versions
    (info,) = (state / "sandbox" / "venv" / "lib").glob("python*/site-packages/p-1.0.dist-info")
    assert json.loads((info / "direct_url.json").read_text())["dir_info"] == {"editable": True}
    assert "dependencies as of 2022-06-01T00:00:00Z" in result.environment["notes"]
    # Today, in the same state directory: the dated venv is not reused.
    # Sandboxed now: only the project is writable (its parent folders belong to no one inside).
    today = build_project(
        project, BuildOptions(state_dir=state, extra_env={"SETUPTOOLS_SEEN": str(project / "seen-today")})
    )
    assert today.status == "success", Path(today.log_path).read_text()[-3000:]
    assert version_key(site_packages(state)["packaging"]) > version_key("21.3")


@pytest.mark.slow
def test_npm_install_before_a_date(tmp_path: Path) -> None:
    request = urllib.request.Request(f"{NPM_REGISTRY}/has-flag", headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        document = json.load(response)
    published = {
        v: datetime.fromisoformat(t) for v, t in document["time"].items() if v in document["versions"]
    }
    latest = document["dist-tags"]["latest"]
    # Just before the latest version was published, by the registry's own dates.
    moment = (published[latest] - timedelta(seconds=1)).replace(microsecond=0)
    expected = max((v for v, t in published.items() if t <= moment and "-" not in v), key=version_key)
    project = tmp_path / "n"
    project.mkdir()
    (project / "package.json").write_text(
        json.dumps({"name": "n", "version": "1.0.0", "dependencies": {"has-flag": "*"}})
    )

    def build(as_of: str | None) -> str:
        result = build_project(project, BuildOptions(state_dir=tmp_path / "state", as_of=as_of))
        assert result.status == "success", Path(result.log_path).read_text()[-3000:]
        return str(
            json.loads((project / "node_modules" / "has-flag" / "package.json").read_text())["version"]
        )

    assert build(moment.strftime("%Y-%m-%dT%H:%M:%SZ")) == expected != latest
    assert build(None) == latest  # a dated node_modules is not kept
    assert not (project / "package-lock.json").exists()
