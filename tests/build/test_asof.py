"""Builds with the world as it was at a date (BuildOptions.as_of) and pinned JVM dynamic versions."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from buildfixer.build import npm, python
from buildfixer.build.api import run_build
from buildfixer.build.asof import (
    choose,
    classify,
    find_dynamic_versions,
    parse_listing,
    pin_dynamic_versions,
    published_versions,
)
from buildfixer.build.options import BuildOptions
from buildfixer.build.registry import NPM_REGISTRY, PYPI, version_key
from buildfixer.errors import BuildfixerError

UNREACHABLE = "http://unreachable.invalid/maven2"  # .invalid never resolves (RFC 2606)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# --- local servers ----------------------------------------------------------------------------


@contextmanager
def serve(answer: Callable[[str], tuple[int, str, bytes]]) -> Iterator[str]:
    """An HTTP server on a free local port; `answer(path)` gives (status, content type, body)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
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
    """A local Maven repository serving Central-style listings of junit and gson (nothing else)."""
    listings = {"/maven2/junit/junit/": JUNIT, "/maven2/com/google/code/gson/gson/": GSON}

    def answer(path: str) -> tuple[int, str, bytes]:
        if path in listings:
            return 200, "text/html", central_listing(path, listings[path])
        return 404, "text/plain", b"not found"

    with serve(answer) as base:
        yield f"{base}/maven2"


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
def test_classify(spec: str, kind: str | None) -> None:
    assert classify(spec) == kind


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
    ) as base:
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
    report = pin_dynamic_versions(project, "2012-01-01T00:00:00Z", tmp_path / "cache")
    if any("HTTP 404" in reason for _, reason in report.unpinnable):
        pytest.skip(f"this network's Maven Central serves no directory listings: {report.unpinnable[0][1]}")
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
    installs = [s.argv[s.argv.index("install") + 1 :] for s in plan.steps if "install" in s.argv]
    flags = ["--disable-pip-version-check", "--progress-bar", "off"]
    dated = [*flags, "--uploaded-prior-to", "2022-06-01T00:00:00Z"]
    assert installs == [
        [*flags, f"pip=={python.DATED_PIP}"],  # pip itself is today's
        [*dated, "-r", "requirements-dev.txt"],
        [*dated, ".", "pytest"],
        [*flags, "--no-deps", "-e", "."],  # editable, by today's build backend
    ]
    assert plan.tools["pip"] == python.DATED_PIP
    assert plan.notes == [
        "dependencies as of 2022-06-01T00:00:00Z: pip installs only files uploaded before it, "
        "then the project editable with today's build backend"
    ]
    today = python.plan(project, plan_options(tmp_path), None)
    assert not any("--uploaded-prior-to" in s.argv or "pip==" in " ".join(s.argv) for s in today.steps)
    assert today.notes == [] and "pip" not in today.tools
    offline = python.plan(project, plan_options(tmp_path, as_of="2022-06-01", offline=True), None)
    assert not any("--uploaded-prior-to" in s.argv for s in offline.steps)
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


# --- real builds ------------------------------------------------------------------------------


def pypi_serves_upload_times() -> bool:
    """Whether PyPI's simple API gives upload times (PEP 691 JSON), which pip's date filter needs."""
    request = urllib.request.Request(
        "https://pypi.org/simple/pip/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return "json" in response.headers.get("Content-Type", "") and b'"upload-time"' in response.read()
    except OSError:
        return False


def json_index(path: str) -> tuple[int, str, bytes]:
    """A PEP 691 simple page made from PyPI's JSON API, which carries every file's upload time."""
    parts = [p for p in urllib.parse.urlsplit(path).path.split("/") if p]
    if len(parts) != 2 or parts[0] != "simple":
        return 404, "text/plain", b""
    url = f"{PYPI}/{parts[1]}/json"
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, "text/plain", b""
    files = [
        {
            "filename": f["filename"],
            "url": urllib.parse.urljoin(url, f["url"]),
            "hashes": {"sha256": f["digests"]["sha256"]},
            "requires-python": f.get("requires_python"),
            "yanked": (f.get("yanked_reason") or True) if f.get("yanked") else False,
            "upload-time": f["upload_time_iso_8601"],
        }
        for files in data["releases"].values()
        for f in files
    ]
    body = {"meta": {"api-version": "1.1"}, "name": parts[1], "files": files}
    return 200, "application/vnd.pypi.simple.v1+json", json.dumps(body).encode()


@contextmanager
def index_with_upload_times() -> Iterator[dict[str, str]]:
    """Environment for pip: PyPI itself when it serves upload times, else a local PEP 691 index."""
    if pypi_serves_upload_times():
        yield {}
        return
    with serve(json_index) as base:
        yield {"PIP_INDEX_URL": f"{base}/simple/"}


def site_packages(state: Path) -> dict[str, str]:
    """Distribution name -> version installed in the build's venv."""
    infos = (state / "venv" / "lib").glob("python*/site-packages/*.dist-info")
    return dict(info.name.removesuffix(".dist-info").rsplit("-", 1) for info in infos)  # type: ignore[misc]


@pytest.mark.slow
def test_python_build_installs_the_dependencies_of_its_date(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    (project / "setup.py").write_text(
        "from setuptools import setup\n"
        "setup(name='p', version='1.0', py_modules=['p'], install_requires=['packaging'])\n"
    )
    (project / "p.py").write_text("import packaging\n")
    # The project's own tests see the dated packaging, through the dated pytest.
    (project / "tests" / "test_p.py").write_text(
        "import os\nimport packaging\n\n\ndef test_version():\n"
        "    assert packaging.__version__ == os.environ.get('EXPECTED', packaging.__version__)\n"
    )
    state = tmp_path / "state"
    with index_with_upload_times() as env:
        options = BuildOptions(
            state_dir=state, as_of="2022-06-01T00:00:00Z", extra_env={**env, "EXPECTED": "21.3"}
        )
        result = run_build(project, options)
    assert result.status == "success", Path(result.log_path).read_text()[-3000:]
    installed = site_packages(state)
    # packaging 22.0 came out in 2022-12, pytest 7.1.3 in 2022-09.
    assert (installed["packaging"], installed["pytest"], installed["pip"]) == (
        "21.3",
        "7.1.2",
        python.DATED_PIP,
    )
    (info,) = (state / "venv" / "lib").glob("python*/site-packages/p-1.0.dist-info")
    assert json.loads((info / "direct_url.json").read_text())["dir_info"] == {"editable": True}
    assert "dependencies as of 2022-06-01T00:00:00Z" in result.environment["notes"]
    # Today, in the same state directory: the dated venv is not reused.
    today = run_build(project, BuildOptions(state_dir=state))
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
        result = run_build(project, BuildOptions(state_dir=tmp_path / "state", as_of=as_of))
        assert result.status == "success", Path(result.log_path).read_text()[-3000:]
        return str(
            json.loads((project / "node_modules" / "has-flag" / "package.json").read_text())["version"]
        )

    assert build(moment.strftime("%Y-%m-%dT%H:%M:%SZ")) == expected != latest
    assert build(None) == latest  # a dated node_modules is not kept
    assert not (project / "package-lock.json").exists()
