"""The recipes policy: unit tests on synthetic failures, and real repairs of the bundled examples."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from buildfixer.agent import recipes
from buildfixer.agent.recipes import PlannedCall, Repair, diagnose
from buildfixer.agent.recipes_files import placeholder
from buildfixer.build.api import stop_daemons
from buildfixer.build.jdk import Jdk
from buildfixer.build.options import BuildOptions
from buildfixer.examples import Example, load_examples, materialize, materialize_base
from buildfixer.logs.result import build_and_analyze
from buildfixer.records import BuildError, BuildResult

# --- a tiny executor of planned calls (what the tools do, minus their checks) -----------------


def apply_repair(root: Path, repair: Repair, options: BuildOptions) -> None:
    for call in repair.calls:
        args = call.arguments
        if call.tool == "change_java_version":
            options.jdk = int(args["version"])
            continue
        target = (root / (args.get("file_path") or args["path"])).resolve()
        assert target.is_relative_to(root.resolve()), target
        if call.tool == "write_file":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(args["content"])
        elif call.tool == "replace":
            if args["old_string"] == "":
                assert not target.exists()
                target.write_text(args["new_string"])
                continue
            text = target.read_text()
            assert text.count(args["old_string"]) == args.get("expected_replacements", 1), args
            target.write_text(text.replace(args["old_string"], args["new_string"]))
        else:
            raise AssertionError(f"recipes may only use the three repair tools, not {call.tool}")


# --- unit tests on synthetic failures --------------------------------------------------------


def failed(
    tmp_path: Path, system: str, log: str, errors: list[BuildError] | None = None, jdk: int | None = 17
) -> BuildResult:
    log_path = tmp_path / "build.log"
    log_path.write_text(log)
    return BuildResult("failure", 1, 1.0, system, ["build"], jdk, str(log_path), errors or [])


@pytest.fixture
def jdks(monkeypatch: pytest.MonkeyPatch) -> list[Jdk]:
    installed = [Jdk(8, "/jdks/8"), Jdk(11, "/jdks/11"), Jdk(17, "/jdks/17"), Jdk(21, "/jdks/21")]
    monkeypatch.setattr(recipes, "discover_jdks", lambda: installed)
    return installed


def offline(tmp_path: Path) -> BuildOptions:
    return BuildOptions(cache_dir=tmp_path / "cache", offline=True)


@pytest.mark.parametrize(
    ("log", "current", "expected"),
    [
        ("[ERROR] Fatal error compiling: error: release version 21 not supported", 17, 21),
        ("error: invalid target release: 11", 8, 11),
        ("error: invalid source release: 1.8", 17, None),  # JDK 17 compiles for 8: not the JDK's fault
        ("class file has wrong version 65.0, should be 61.0", 17, 21),
        ("> Android Gradle plugin requires Java 17 to run. You are currently using Java 11.", 11, 17),
        ("Dependency requires at least JVM runtime version 21. This build uses a Java 17 JVM.", 17, 21),
    ],
)
def test_jdk_needed_at_least(
    tmp_path: Path, jdks: list[Jdk], log: str, current: int, expected: int | None
) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    repair = diagnose(tmp_path, failed(tmp_path, "maven", log, jdk=current), offline(tmp_path))
    if expected is None:
        assert repair is None
        return
    assert repair is not None and repair.recipe == "jdk-level"
    assert repair.calls == [PlannedCall("change_java_version", {"version": expected})]


def test_jdk_too_new_for_gradle_picks_an_older_one(tmp_path: Path, jdks: list[Jdk]) -> None:
    (tmp_path / "build.gradle").write_text("apply plugin: 'java'\nsourceCompatibility = 1.8\n")
    wrapper = tmp_path / "gradle" / "wrapper"
    wrapper.mkdir(parents=True)
    wrapper.joinpath("gradle-wrapper.properties").write_text(
        "distributionUrl=https\\://services.gradle.org/distributions/gradle-6.8-bin.zip\n"
    )
    log = "Could not open cp_settings class cache\n> BUG! Unsupported class file major version 61"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None
    assert repair.calls[0].arguments == {"version": 11}  # Gradle 6.8 runs on Java 15 at most


def test_jdk_kotlin_unknown_target(tmp_path: Path, jdks: list[Jdk]) -> None:
    (tmp_path / "build.gradle").write_text("plugins { id 'org.jetbrains.kotlin.jvm' version '1.4.32' }\n")
    log = "e: Unknown JVM target version: 17\nSupported versions: 1.6, 1.8, 9, 10, 11, 12, 13, 14, 15"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None and repair.calls[0].arguments == {"version": 11}


def test_jdk_recipe_declines_without_a_fitting_jdk(tmp_path: Path, jdks: list[Jdk]) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    log = "error: release version 26 not supported"
    assert diagnose(tmp_path, failed(tmp_path, "maven", log), offline(tmp_path)) is None


def test_hardcoded_jdk_home_in_gradle_properties(
    tmp_path: Path, jdks: list[Jdk], monkeypatch: pytest.MonkeyPatch
) -> None:
    from buildfixer.agent import recipes_files

    home = tmp_path / "jdk11"
    (home / "bin").mkdir(parents=True)
    monkeypatch.setattr(recipes_files, "discover_jdks", lambda: [Jdk(11, str(home)), Jdk(17, "/nowhere")])
    (tmp_path / "build.gradle").write_text("apply plugin: 'java'\n")
    (tmp_path / "gradle.properties").write_text("org.gradle.java.home=/opt/oldjdks/jdk1.8.0_202\n")
    log = "Value '/opt/oldjdks/jdk1.8.0_202' given for org.gradle.java.home Gradle property is invalid"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None and repair.recipe == "hardcoded-path"
    assert repair.calls == [
        PlannedCall(
            "replace",
            {
                "file_path": "gradle.properties",
                "old_string": "/opt/oldjdks/jdk1.8.0_202",
                "new_string": str(home),
                "expected_replacements": 1,
            },
        )
    ]


def test_hardcoded_windows_jdk_in_gradle_properties(
    tmp_path: Path, jdks: list[Jdk], monkeypatch: pytest.MonkeyPatch
) -> None:
    from buildfixer.agent import recipes_files

    home = tmp_path / "jdk17"
    home.mkdir()
    monkeypatch.setattr(recipes_files, "discover_jdks", lambda: [Jdk(17, str(home))])
    (tmp_path / "build.gradle").write_text("apply plugin: 'java'\n")
    (tmp_path / "gradle.properties").write_text(
        "org.gradle.java.home=C\\:\\\\Program Files\\\\Java\\\\jdk1.8.0_202\n"
    )
    log = "Value 'C:\\Program Files\\Java\\jdk1.8.0_202' given for org.gradle.java.home is invalid"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None
    apply_repair(tmp_path, repair, offline(tmp_path))
    assert (tmp_path / "gradle.properties").read_text() == f"org.gradle.java.home={home}\n"


def test_missing_path_only_in_source_code_is_declined(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    (tmp_path / "App.java").write_text('new File("/data/input/words.txt")')
    log = "java.io.FileNotFoundException: /data/input/words.txt (No such file or directory)"
    assert diagnose(tmp_path, failed(tmp_path, "maven", log), offline(tmp_path)) is None


def test_missing_properties_from_kotlin_dsl(tmp_path: Path) -> None:
    (tmp_path / "build.gradle.kts").write_text(
        "import java.util.Properties\n"
        "val keystoreProperties = Properties().apply {\n"
        '    load(rootProject.file("keystore.properties").inputStream())\n'
        "}\n"
        'val alias = keystoreProperties["keyAlias"] as String\n'
        'val count = keystoreProperties.getProperty("retry.count")\n'
    )
    log = f"java.io.FileNotFoundException: {tmp_path}/keystore.properties (No such file or directory)"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None and repair.recipe == "missing-properties"
    (call,) = repair.calls
    assert call.tool == "write_file" and call.arguments["path"] == "keystore.properties"
    content = call.arguments["content"]
    assert content.startswith("# Created by buildfixer")
    assert "keyAlias=placeholder\n" in content and "retry.count=1\n" in content


def test_missing_properties_copied_from_template(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text(
        "def p = new Properties()\nfile('secrets.properties').withInputStream { p.load(it) }\n"
    )
    (tmp_path / "secrets.properties.example").write_text("api.key=CHANGE_ME\n")
    log = "> /x/secrets.properties (No such file or directory)"
    # The log's path is not inside the project: declined (a file somewhere else is not ours to create).
    assert diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path)) is None
    log = f"> {tmp_path}/secrets.properties (No such file or directory)"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None and repair.calls[0].arguments["content"] == "api.key=CHANGE_ME\n"


def test_missing_properties_restored_from_git_history(tmp_path: Path) -> None:
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    (tmp_path / "build.gradle").write_text(
        "def p = new Properties()\nfile('app.properties').withInputStream { p.load(it) }\n"
    )
    (tmp_path / "app.properties").write_text("name=real value\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "one")
    git("rm", "-q", "app.properties")
    git("commit", "-qm", "two")
    log = f"> {tmp_path}/app.properties (No such file or directory)"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None and "git history" in repair.summary
    assert repair.calls[0].arguments == {"path": "app.properties", "content": "name=real value\n"}


def test_missing_data_file_that_is_not_properties_is_declined(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text(
        "def cfg = new groovy.json.JsonSlurper().parse(file('cfg.json'))\n"
    )
    log = f"> {tmp_path}/cfg.json (No such file or directory)"
    assert diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path)) is None


@pytest.mark.parametrize(
    ("key", "value"),
    [("app.version", "0.0.0"), ("versionCode", "1"), ("report.top", "1"), ("server.port", "1"),
     ("feature.enabled", "false"), ("app.vendor", "placeholder"), ("storePassword", "placeholder")],
)  # fmt: skip
def test_placeholders(key: str, value: str) -> None:
    assert placeholder(key) == value


def test_missing_version_uses_the_caches_offline(tmp_path: Path) -> None:
    options = offline(tmp_path)
    jar_dir = options.cache_dir / "m2" / "repository" / "com" / "acme" / "widget" / "2.4.1"
    jar_dir.mkdir(parents=True)
    (jar_dir / "widget-2.4.1.pom").write_text("<project/>")
    (tmp_path / "build.gradle").write_text("dependencies {\n    implementation 'com.acme:widget:2.4.7'\n}\n")
    log = "> Could not find com.acme:widget:2.4.7.\n  Required by:\n      project :"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), options)
    assert repair is not None and repair.recipe == "missing-version"
    assert repair.calls[0].arguments["new_string"] == "    implementation 'com.acme:widget:2.4.1'\n"


def test_npm_missing_version_falls_back_to_the_lockfile(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{\n  "devDependencies": {\n    "typescript": "5.4.9"\n  }\n}\n')
    lock = {"packages": {"node_modules/typescript": {"version": "5.4.5"}}}
    (tmp_path / "package-lock.json").write_text(__import__("json").dumps(lock))
    log = "npm error notarget No matching version found for typescript@5.4.9."
    repair = diagnose(tmp_path, failed(tmp_path, "npm", log, jdk=None), offline(tmp_path))
    assert repair is not None
    assert repair.calls[0].arguments["new_string"] == '    "typescript": "5.4.5"\n'


def test_missing_version_declines_a_transitive_dependency(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text("dependencies {\n    implementation 'com.acme:app:1.0'\n}\n")
    log = "> Could not find com.acme:widget:2.4.7.\n  Required by:\n      project : > com.acme:app:1.0"
    assert diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path)) is None


def test_pip_versions_listed_in_the_log(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("requests==2.31.9\n")
    log = (
        "ERROR: Could not find a version that satisfies the requirement requests==2.31.9 "
        "(from versions: 2.30.0, 2.31.0, 2.32.0)\n"
        "ERROR: No matching distribution found for requests==2.31.9\n"
    )
    repair = diagnose(tmp_path, failed(tmp_path, "python", log, jdk=None), offline(tmp_path))
    assert repair is not None
    assert repair.calls[0].arguments["new_string"] == "requests==2.31.0\n"


def test_kotlin_unresolved_reference_off_an_import_is_declined(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    src = tmp_path / "A.kt"
    src.write_text("package a\n\nfun f(x: Shape) = x.radus\n")
    errors = [BuildError("Unresolved reference: radus", "syntax", "kotlinc", "A.kt", 3)]
    assert (
        diagnose(
            tmp_path,
            failed(tmp_path, "maven", "e: A.kt:3 Unresolved reference: radus", errors),
            offline(tmp_path),
        )
        is None
    )


def test_success_is_never_diagnosed(tmp_path: Path) -> None:
    result = BuildResult("success", 0, 1.0, "maven", ["mvn"], 17, str(tmp_path / "none.log"))
    assert diagnose(tmp_path, result, offline(tmp_path)) is None


def test_a_recipe_bug_declines_instead_of_raising(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_ev: Any) -> Repair:
        raise RuntimeError("bug")

    monkeypatch.setattr(recipes, "_recipes", lambda: [broken])
    assert diagnose(tmp_path, failed(tmp_path, "maven", "x"), offline(tmp_path)) is None


# --- real repairs of the bundled examples ----------------------------------------------------

EXAMPLES = load_examples()
REPAIRED = {
    "gradle-app/undeclared-dependency": "undeclared-dependency",
    "gradle-app/missing-version": "missing-version",
    "gradle-app/missing-properties": "missing-properties",
    "gradle-app/hardcoded-path": "hardcoded-path",
    "maven-app/undeclared-dependency": "undeclared-dependency",
    "maven-app/missing-version": "missing-version",
    "maven-app/jdk-level": "jdk-level",
    "maven-app/missing-config": "missing-properties",
    "kotlin-app/missing-version": "missing-version",
    "python-app/undeclared-dependency": "undeclared-dependency",
    "python-app/missing-version": "missing-version",
    "npm-app/missing-version": "missing-version",
}
# Repaired as far as a policy that invents no data can: build.properties is recreated with
# placeholders, so the build gets past properties-maven-plugin, and then a test that pins the
# real values ("Word statistics") fails.
ADVANCED = {"maven-app/missing-config": "test_failure"}


@pytest.fixture(scope="module")
def filled_caches(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Build the JVM bases once: their builds bring gson and commons-lang3 into the caches."""
    from buildfixer.build.package_index import artifact_for_package

    needed = {"gradle-app": "com.google.gson", "maven-app": "org.apache.commons.lang3"}
    for project, package in needed.items():
        if artifact_for_package(package, BuildOptions()) is not None:
            continue  # already cached (a warm machine): the base build would only cost time
        root = materialize_base(project, tmp_path_factory.mktemp("bases") / project)
        options = BuildOptions(timeout_s=600)
        try:
            result, _ = build_and_analyze(root, options)
        finally:
            stop_daemons(root, options)
        assert result.ok, Path(result.log_path).read_text()[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example_is_repaired_or_declined(example: Example, tmp_path: Path, filled_caches: None) -> None:
    root = materialize(example, tmp_path / "project")
    options = BuildOptions(timeout_s=600, jdk=example.jdk)
    try:
        result, _ = build_and_analyze(root, options)
        assert result.status == "failure"
        began = time.monotonic()
        repair = diagnose(root, result, options)
        assert time.monotonic() - began < 30
        if example.name not in REPAIRED:
            assert repair is None, repair
            return
        assert repair is not None, (result.errors[:2], result.category)
        assert repair.recipe == REPAIRED[example.name]
        assert repair.summary and repair.calls
        apply_repair(root, repair, options)
        after, _ = build_and_analyze(root, options)
        if example.name in ADVANCED:
            assert after.category == ADVANCED[example.name], after.errors[:3]
            assert diagnose(root, after, options) is None
            return
        assert after.status == "success", (repair, after.errors[:3], Path(after.log_path).read_text()[-3000:])
    finally:
        stop_daemons(root, options)
