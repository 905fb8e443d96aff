"""Available versions (caches and registries), version choice, and the package/module indexes."""

from __future__ import annotations

import json
import os
import time
import zipfile
from pathlib import Path

import pytest

from buildfixer.buildsys.options import BuildOptions
from buildfixer.deps import package_index, registry
from buildfixer.deps.package_index import artifact_for_package, distribution_for_module, python_distributions
from buildfixer.deps.registry import available_versions, cached_versions, registry_versions
from buildfixer.deps.versions import is_prerelease, nearest_version, newest_version, version_key


@pytest.fixture
def options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> BuildOptions:
    """Private caches; the user's ~/.m2, ~/.gradle and ~/.npm stay out of sight."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRADLE_USER_HOME", raising=False)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    return BuildOptions(cache_dir=tmp_path / "cache")


def jar(path: Path, classes: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        for name in classes:
            archive.writestr(name, b"\xca\xfe\xba\xbe")
    return path


def m2_jar(options: BuildOptions, group: str, artifact: str, version: str, classes: list[str]) -> Path:
    base = options.cache_dir / "m2" / "repository" / Path(*group.split(".")) / artifact / version
    return jar(base / f"{artifact}-{version}.jar", classes)


def gradle_jar(options: BuildOptions, group: str, artifact: str, version: str, classes: list[str]) -> Path:
    base = options.cache_dir / "gradle" / "caches" / "modules-2" / "files-2.1" / group / artifact / version
    return jar(base / "0123abcd" / f"{artifact}-{version}.jar", classes)


# --- version comparison ----------------------------------------------------------------------


def test_version_order() -> None:
    ordered = ["1.0-alpha", "1.0-beta-2", "1.0-RC1", "1.0", "1.0.1", "1.2", "1.10", "2.0.0-M1", "2.0.0"]
    assert sorted(reversed(ordered), key=version_key) == ordered
    assert version_key("1.0") == version_key("1.0.0")
    assert version_key("v5.4.5") == version_key("5.4.5")


@pytest.mark.parametrize(
    "version", ["1.0-SNAPSHOT", "2.0.0-RC1", "3.0.0-M5", "23.0rc1", "1.0a1", "5.5.0-dev.2024", "1.9.20-Beta2"]
)
def test_prereleases(version: str) -> None:
    assert is_prerelease(version)


@pytest.mark.parametrize("version", ["1.0", "31.1-jre", "5.3.30.RELEASE", "6.4.4.Final", "2.8.9"])
def test_releases(version: str) -> None:
    assert not is_prerelease(version)


@pytest.mark.parametrize(
    ("requested", "available", "expected"),
    [
        ("2.8.99", ["2.8.8", "2.8.9", "2.9.0", "2.10.1", "3.0.0"], "2.8.9"),
        ("3.12.9", ["3.11", "3.12.0", "3.13.0", "3.14.0-beta1"], "3.12.0"),
        ("1.9.27", ["1.9.24", "1.9.25", "2.0.0", "1.9.30-RC"], "1.9.25"),
        ("5.4.9", ["5.4.5", "5.5.0-beta", "5.5.2"], "5.4.5"),
        ("2.0.5", ["2.1.0", "2.2.0", "1.9.9"], "2.1.0"),  # nothing below in major 2: the lowest above
        ("4.0.0", ["3.9.9", "5.0.0"], None),  # no version shares the major
        ("2.0.0-RC9", ["2.0.0-RC1", "2.0.0-RC2", "1.9.0"], None),  # never a pre-release
        ("2.0.0-RC9", ["2.0.0-RC2", "2.0.0", "2.1.0"], "2.0.0"),  # a release of its major instead
        ("0.4.9", ["0.3.2", "0.4.1", "0.5.0"], "0.4.1"),  # below 1.0 the minor is the major
        ("0.4.9", ["0.3.2", "0.5.0"], None),
        ("1.0.0-SNAPSHOT", ["1.0.0-SNAPSHOT", "1.1.0-beta"], None),  # only pre-releases
        ("31.9-jre", ["31.1-android", "31.1-jre", "32.0-jre"], "31.1-jre"),
        ("garbage", ["1.0"], None),
    ],
)
def test_nearest_version(requested: str, available: list[str], expected: str | None) -> None:
    assert nearest_version(requested, available) == expected


# Preference: re-releases of the requested version, then the same major.minor (the nearest newer
# patch, else the nearest older), then the same major; never another major.
@pytest.mark.parametrize(
    ("requested", "available", "python", "expected"),
    [
        # Maven re-releases with a fourth number (testng 6.9.13.1..6.9.13.6): the newest of them.
        ("6.9.13", ["6.9.10", "6.9.12", "6.9.13.1", "6.9.13.6", "7.0.0"], False, "6.9.13.6"),
        ("6.9.13", ["6.9.10", "6.9.13-1", "6.9.14"], False, "6.9.13-1"),  # a build-number re-release
        ("6.9.13", ["6.9.12", "6.9.13.post1", "6.9.14"], True, "6.9.13.post1"),  # a PEP 440 post-release
        ("6.9.13", ["6.9.13.post1", "6.9.13.post2"], True, "6.9.13.post2"),
        ("2.0.1", ["2.0.1-1", "2.0.1-beta"], False, "2.0.1-1"),  # npm-style, never the pre-release
        ("1.2.3", ["1.2.30", "1.2.4"], False, "1.2.4"),  # 1.2.30 is no re-release of 1.2.3
        ("1.2", ["1.2.1", "1.2.5", "1.3"], False, "1.2.1"),  # 1.2 -> 1.2.1 is a patch: the nearest newer
        ("6.9.13", ["6.9.10", "6.9.12", "6.9.14", "6.9.20"], False, "6.9.14"),  # nearest newer patch
        ("6.9.13", ["6.9.10", "6.9.12", "6.10.0"], False, "6.9.12"),  # no newer patch: nearest older
        ("6.9.13", ["6.8.10", "6.10.1", "7.0.0"], False, "6.8.10"),  # same major: highest below
        ("6.9.13", ["5.8.10", "7.10.1"], False, None),  # another major changes the API
        ("6.9.13", ["7.10.1", "8.0"], False, None),
        ("0.4.9", ["0.4.1", "0.4.12", "0.5.0"], False, "0.4.12"),  # 0.4.x is the 0.x "minor"
        ("23.7", ["23.2", "23.8", "24.0"], True, "23.2"),  # no 23.7.x: the same major, highest below
        ("4.17.99", ["4.17.20", "4.17.21", "4.18.0"], False, "4.17.21"),  # npm
        ("1.0.0", ["1.0.0rc1"], True, None),  # nothing but a pre-release
    ],
)
def test_nearest_version_preference(
    requested: str, available: list[str], python: bool, expected: str | None
) -> None:
    assert nearest_version(requested, available, python=python) == expected


def test_nearest_python_version() -> None:
    available = ["22.0", "23.0", "23.1", "23.2", "24.0", "26.0rc1"]
    assert nearest_version("23.7", available, python=True) == "23.2"
    assert newest_version(available, python=True) == "24.0"
    assert newest_version(["1.0rc1"]) == "1.0rc1"
    assert newest_version([]) is None


# --- local caches ----------------------------------------------------------------------------


def test_cached_jvm_versions_skip_failed_downloads(options: BuildOptions) -> None:
    m2_jar(
        options,
        "org.apache.commons",
        "commons-lang3",
        "3.12.0",
        ["org/apache/commons/lang3/StringUtils.class"],
    )
    failed = (
        options.cache_dir / "m2" / "repository" / "org" / "apache" / "commons" / "commons-lang3" / "3.12.9"
    )
    failed.mkdir(parents=True)
    (failed / "commons-lang3-3.12.9.pom.lastUpdated").write_text("")
    gradle_jar(options, "org.apache.commons", "commons-lang3", "3.14.0", ["org/apache/commons/lang3/A.class"])
    assert cached_versions("maven", "org.apache.commons:commons-lang3", options) == {"3.12.0", "3.14.0"}


def test_cached_npm_versions(options: BuildOptions) -> None:
    index = options.cache_dir / "npm" / "_cacache" / "index-v5" / "ab" / "cd"
    index.mkdir(parents=True)
    (index / "entry").write_text(
        'abc\t{"key":"pacote:tarball:@types/node@20.14.10","size":1}\n'
        'def\t{"key":"make-fetch-happen:request-cache:https://registry.npmjs.org/typescript/-/typescript-5.4.5.tgz"}\n'
        'ghi\t{"key":"make-fetch-happen:request-cache:https://registry.npmjs.org/@scope/pkg/-/pkg-1.2.3.tgz"}\n'
    )
    assert cached_versions("npm", "typescript", options) == {"5.4.5"}
    assert cached_versions("npm", "@types/node", options) == {"20.14.10"}
    assert cached_versions("npm", "@scope/pkg", options) == {"1.2.3"}


# --- registries ------------------------------------------------------------------------------


def test_registry_answers_are_cached_for_a_day(
    options: BuildOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def fake_get(url: str, accept: str) -> bytes | None:
        calls.append(url)
        if "pypi.org" in url:
            files = [{"yanked": False}]
            return json.dumps(
                {"releases": {"23.1": files, "23.2": files, "23.3": [{"yanked": True}], "9": []}}
            ).encode()
        return None  # 404 everywhere else

    monkeypatch.setattr(registry, "http_get", fake_get)
    assert registry_versions("python", "packaging", options) == ["23.1", "23.2"]
    assert registry_versions("python", "packaging", options) == ["23.1", "23.2"]
    assert len(calls) == 1
    assert registry_versions("maven", "com.acme:widget", options) == []  # known to be unknown
    assert any("repo1.maven.org/maven2/com/acme/widget/maven-metadata.xml" in c for c in calls)
    # A day later the answer is fetched again.
    for saved in (options.cache_dir / "registry").glob("*.json"):
        data = json.loads(saved.read_text())
        data["time"] = time.time() - 2 * registry.TTL_S
        saved.write_text(json.dumps(data))
    registry_versions("python", "packaging", options)
    assert len([c for c in calls if "pypi" in c]) == 2


def test_registry_failure_and_offline(options: BuildOptions, monkeypatch: pytest.MonkeyPatch) -> None:
    def down(url: str, accept: str) -> bytes | None:
        raise OSError("network is unreachable")

    monkeypatch.setattr(registry, "http_get", down)
    assert registry_versions("npm", "typescript", options) is None
    assert not (options.cache_dir / "registry").exists()  # failures are not remembered
    options.offline = True
    monkeypatch.setattr(registry, "http_get", lambda url, accept: pytest.fail("offline must not fetch"))
    assert registry_versions("npm", "typescript", options) is None


def test_available_versions_unions_caches_and_registry(
    options: BuildOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    m2_jar(options, "com.google.code.gson", "gson", "2.8.9", ["com/google/gson/Gson.class"])
    metadata = b"<metadata><versions><version>2.8.8</version><version>2.10.1</version></versions></metadata>"
    monkeypatch.setattr(registry, "http_get", lambda url, accept: metadata if "repo1" in url else None)
    assert available_versions("gradle", "com.google.code.gson:gson", options) == ["2.8.8", "2.8.9", "2.10.1"]
    urls: list[str] = []
    monkeypatch.setattr(registry, "http_get", lambda url, accept: urls.append(url))
    registry_versions("gradle", "org.x.plugin:org.x.plugin.gradle.plugin", options, ["https://jitpack.io/"])
    assert urls[0].startswith(registry.GRADLE_PLUGINS) and urls[1].startswith(
        "https://jitpack.io/org/x/plugin"
    )


@pytest.mark.skipif(os.environ.get("BUILDFIXER_NO_NETWORK") == "1", reason="no network")
def test_real_registries_when_online(tmp_path: Path) -> None:
    options = BuildOptions(cache_dir=tmp_path / "cache")
    found = registry_versions("maven", "com.google.code.gson:gson", options)
    if found is None:
        pytest.skip("Maven Central is not reachable")
    assert "2.8.9" in found and "2.8.99" not in found
    assert nearest_version("2.8.99", found) == "2.8.9"


# --- package and module indexes --------------------------------------------------------------


def test_jvm_index_picks_the_providing_artifact_and_its_highest_version(options: BuildOptions) -> None:
    for version in ("3.9", "3.12.0"):
        m2_jar(
            options,
            "org.apache.commons",
            "commons-lang3",
            version,
            ["org/apache/commons/lang3/StringUtils.class"],
        )
    # A bundle with a shaded copy: fewer classes, an unrelated group.
    gradle_jar(
        options, "com.fat", "bundle", "1.0", ["org/apache/commons/lang3/StringUtils.class", "com/fat/A.class"]
    )
    m2_jar(
        options,
        "com.google.code.gson",
        "gson",
        "2.10.1",
        ["com/google/gson/Gson.class", "com/google/gson/A.class"],
    )
    jar(options.cache_dir / "m2" / "repository" / "x" / "y" / "1" / "y-1-sources.jar", ["com/nope/A.class"])
    hit = artifact_for_package("org.apache.commons.lang3", options)
    assert hit is not None and hit.coordinate == "org.apache.commons:commons-lang3:3.12.0"
    gson = artifact_for_package("com.google.gson", options)
    assert gson is not None and gson.coordinate == "com.google.code.gson:gson:2.10.1"
    assert artifact_for_package("com.nope", options) is None
    assert (options.cache_dir / "index" / "jvm-packages.json").is_file()


def test_jvm_index_is_incremental(options: BuildOptions, monkeypatch: pytest.MonkeyPatch) -> None:
    m2_jar(options, "a.b", "one", "1.0", ["a/b/one/A.class"])
    artifact_for_package("a.b.one", options)
    opened: list[Path] = []
    original = package_index._read_jar
    monkeypatch.setattr(package_index, "_read_jar", lambda p: opened.append(p) or original(p))
    new = m2_jar(options, "a.b", "two", "1.0", ["a/b/two/A.class"])
    assert artifact_for_package("a.b.two", options) is not None
    assert artifact_for_package("a.b.one", options) is not None
    assert opened == [new]  # only the new jar was read; the first one came from the index


@pytest.fixture
def isolated_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only our cache's venvs and wheels: not the site-packages of the interpreter running the tests."""
    original = package_index._site_dirs
    monkeypatch.setattr(
        package_index, "_site_dirs", lambda o: [d for d in original(o) if d.is_relative_to(o.cache_dir)]
    )


def dist_info(site: Path, name: str, version: str, top_level: str | None, record: str = "") -> None:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    if top_level is not None:
        (info / "top_level.txt").write_text(top_level)
    (info / "RECORD").write_text(record)


def test_python_module_to_distribution(options: BuildOptions, isolated_python: None) -> None:
    venv = options.cache_dir / "state" / "proj-1" / "sandbox" / "venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    dist_info(site, "PyYAML", "6.0.1", "_yaml\nyaml\n")
    dist_info(
        site, "python_dateutil", "2.9.0", None, "dateutil/__init__.py,sha256=x,1\ndateutil/tz/tz.py,,\n"
    )
    dist_info(site, "protobuf", "4.25.0", None, "google/protobuf/__init__.py,,\n")
    dist_info(site, "googleapis_common_protos", "1.6", None, "google/api/__init__.py,,\n")
    wheels = options.cache_dir / "pip" / "wheels" / "ab"
    wheels.mkdir(parents=True)
    with zipfile.ZipFile(wheels / "six-1.16.0-py2.py3-none-any.whl", "w") as wheel:
        wheel.writestr("six.py", "")
        wheel.writestr("six-1.16.0.dist-info/METADATA", "Name: six\nVersion: 1.16.0\n")
        wheel.writestr("six-1.16.0.dist-info/RECORD", "six.py,,\n")
    assert distribution_for_module("yaml", options) == "PyYAML"
    assert distribution_for_module("dateutil.tz", options) == "python_dateutil"
    assert distribution_for_module("google.protobuf", options) == "protobuf"
    assert distribution_for_module("google.api", options) == "googleapis_common_protos"
    assert distribution_for_module("six", options) == "six"
    assert distribution_for_module("nothing_like_it", options) is None
    assert python_distributions(options)["pyyaml"] == {"6.0.1"}
    assert cached_versions("python", "PyYAML", options) == {"6.0.1"}


def test_jvm_index_class_filter_and_ambiguity(options: BuildOptions) -> None:
    m2_jar(options, "org.hamcrest", "hamcrest-core", "1.3", ["org/hamcrest/CoreMatchers.class"])
    m2_jar(options, "org.hamcrest", "hamcrest", "2.2", ["org/hamcrest/Matchers.class"])
    m2_jar(options, "org.hamcrest", "hamcrest", "3.0-rc1", ["org/hamcrest/Matchers.class"])
    hit = artifact_for_package("org.hamcrest", options, "org.hamcrest.Matchers")
    assert hit is not None and hit.coordinate == "org.hamcrest:hamcrest:2.2"  # a release, with the class
    assert artifact_for_package("org.hamcrest", options, "org.hamcrest.Nope") is None
    # The same package and class count in two artifacts of one group: nothing tells them apart.
    m2_jar(options, "javax.annotation", "one-api", "1.0", ["javax/annotation/A.class"])
    m2_jar(options, "javax.annotation", "other-api", "1.0", ["javax/annotation/A.class"])
    assert artifact_for_package("javax.annotation", options) is None


def test_jars_are_indexed_by_their_module_name(options: BuildOptions, tmp_path: Path) -> None:
    """module-info.class (compiled here by javac), then Automatic-Module-Name, then the file name."""
    import shutil
    import subprocess
    import zipfile

    from buildfixer.deps.package_index import artifact_for_module, jvm_modules

    javac = shutil.which("javac")
    assert javac is not None, "javac is required (a JDK: see .ci/setup)"
    src = tmp_path / "src"
    (src / "org" / "slf4j").mkdir(parents=True)
    (src / "module-info.java").write_text("module org.slf4j {\n    exports org.slf4j;\n}\n")
    (src / "org" / "slf4j" / "Logger.java").write_text("package org.slf4j;\npublic interface Logger {}\n")
    out = tmp_path / "classes"
    subprocess.run([javac, "--release", "11", "-d", str(out), *map(str, src.rglob("*.java"))], check=True)
    explicit = m2_jar(options, "org.slf4j", "slf4j-api", "2.0.9", ["org/slf4j/Logger.class"])
    with zipfile.ZipFile(explicit, "a") as jar:
        jar.write(out / "module-info.class", "module-info.class")
    manifest = (
        options.cache_dir / "m2" / "repository" / "com" / "acme" / "acme-core" / "1.0" / "acme-core-1.0.jar"
    )
    manifest.parent.mkdir(parents=True)
    with zipfile.ZipFile(manifest, "w") as jar:
        jar.writestr(
            "META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nAutomatic-Module-Name: com.acme.core\r\n"
        )
        jar.writestr("com/acme/core/A.class", b"\xca\xfe\xba\xbe")
    m2_jar(options, "org.apache.commons", "commons-lang3", "3.12.0", ["org/apache/commons/lang3/S.class"])
    modules = jvm_modules(options)
    assert {"org.slf4j", "com.acme.core", "commons.lang3"} <= set(modules)
    found = artifact_for_module("org.slf4j", options)
    assert found is not None and found.coordinate == "org.slf4j:slf4j-api:2.0.9"
    assert artifact_for_module("nowhere.to.be.found", options) is None
