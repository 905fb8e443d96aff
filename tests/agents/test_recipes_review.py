"""Recipe defects a review of real projects found, each repaired for real on a fixture project.

Each real-build test builds its fixture (Maven, Gradle 4.4.1, pip or npm, online, with the
shared caches), lets `diagnose` plan the repair, applies it and builds again. The caches are
filled by building a working state of the same fixture first, as a user's machine would have.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from recipe_support import apply_repair, failed, offline, write

from buildfixer.agents.recipes.agent import RecipesAgent
from buildfixer.agents.recipes.base import Repair
from buildfixer.agents.recipes.diagnose import diagnose
from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.buildsys.project import stop_daemons
from buildfixer.core.build_result import BuildError
from buildfixer.core.stops import StopKind
from buildfixer.deps.jars import automatic_name, module_name
from support.git import Repo


def _build_ok(root: Path, options: BuildOptions) -> None:
    result, _ = build_and_analyze(root, options)
    assert result.ok, Path(result.log_path).read_text()[-3000:]


def _repair_for_real(root: Path, options: BuildOptions, recipe: str, origin: Path | None = None) -> Repair:
    """Build (it must fail), diagnose, apply the repair, build again (it must succeed)."""
    result, _ = build_and_analyze(root, options)
    assert result.status == "failure", Path(result.log_path).read_text()[-2000:]
    repair = diagnose(root, result, options, origin=origin)
    assert repair is not None, (result.errors[:3], Path(result.log_path).read_text()[-2000:])
    assert repair.recipe == recipe, repair
    apply_repair(root, repair, options)
    after, _ = build_and_analyze(root, options)
    assert after.status == "success", (repair, after.errors[:3], Path(after.log_path).read_text()[-3000:])
    return repair


@pytest.fixture
def shared() -> BuildOptions:
    """Online, with the shared caches: what a user's `buildfixer fix` runs with."""
    return BuildOptions(timeout_s=600)


# --- 1. a dependency's scope follows where it is imported -------------------------------------

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "scopedemo"
version = "0.1.0"
dependencies = []

[project.optional-dependencies]
tests = ["pytest"]

[tool.setuptools]
packages = ["scopedemo"]
"""
PY_TEST = """import yaml

from scopedemo import answer


def test_it():
    assert yaml.safe_load("a: 42")["a"] == answer()
"""


@pytest.mark.slow
def test_real_python_test_only_import_goes_to_the_tests_extra(tmp_path: Path, shared: BuildOptions) -> None:
    write(tmp_path, {"pyproject.toml": PYPROJECT, "scopedemo/__init__.py": "def answer():\n    return 42\n",
                     "tests/test_answer.py": PY_TEST})  # fmt: skip
    repair = _repair_for_real(tmp_path, shared, "undeclared-dependency")
    text = (tmp_path / "pyproject.toml").read_text()
    assert 'tests = ["pytest", "PyYAML"]' in text and "dependencies = []" in text, (repair, text)


def test_python_import_used_at_runtime_too_is_a_runtime_dependency(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": PYPROJECT, "scopedemo/__init__.py": "from yaml import safe_load\n",
                     "tests/test_answer.py": PY_TEST})  # fmt: skip
    errors = [BuildError("E   ModuleNotFoundError: No module named 'yaml'", "library_unavailable", "pytest",
                         "tests/test_answer.py", 1)]  # fmt: skip
    repair = diagnose(tmp_path, failed(tmp_path, "python", "x", errors), offline(tmp_path))
    assert repair is not None
    apply_repair(tmp_path, repair, offline(tmp_path))
    text = (tmp_path / "pyproject.toml").read_text()
    assert 'dependencies = ["PyYAML"]' in text and 'tests = ["pytest"]' in text


def test_python_test_import_without_a_named_file_still_goes_to_the_tests_extra(tmp_path: Path) -> None:
    """pytest's collection error names no file the parser keeps: the importers decide."""
    write(
        tmp_path,
        {"pyproject.toml": PYPROJECT, "scopedemo/__init__.py": "", "tests/conftest.py": "import yaml\n"},
    )
    errors = [BuildError("ModuleNotFoundError: No module named 'yaml'", "library_unavailable", "pytest")]
    repair = diagnose(tmp_path, failed(tmp_path, "python", "x", errors), offline(tmp_path))
    assert repair is not None
    apply_repair(tmp_path, repair, offline(tmp_path))
    assert 'tests = ["pytest", "PyYAML"]' in (tmp_path / "pyproject.toml").read_text()


def test_python_dependency_takes_the_lockfile_version(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": PYPROJECT, "scopedemo/__init__.py": "import yaml\n",
                     "poetry.lock": '[[package]]\nname = "pyyaml"\nversion = "6.0.1"\n\n'
                                    '[[package]]\nname = "pytest"\nversion = "8.0.0"\n'})  # fmt: skip
    errors = [
        BuildError("No module named 'yaml'", "library_unavailable", "python", "scopedemo/__init__.py", 1)
    ]
    repair = diagnose(tmp_path, failed(tmp_path, "python", "x", errors), offline(tmp_path))
    assert repair is not None
    apply_repair(tmp_path, repair, offline(tmp_path))
    assert 'dependencies = ["PyYAML==6.0.1"]' in (tmp_path / "pyproject.toml").read_text()


GROUPS = """[project]
name = "scopedemo"
version = "1.0"
dependencies = []

[dependency-groups]
tests = [
    "pytest",{extra}
]
"""


def test_python_module_no_cache_knows_comes_back_as_history_declared_it(tmp_path: Path) -> None:
    # freezegun, never installed here, dropped from a PEP 735 group: the history names it.
    repo = Repo(tmp_path)
    files = {"scopedemo/__init__.py": "", "tests/test_timed.py": "import freezegun\n"}
    repo.commit("with freezegun", {**files, "pyproject.toml": GROUPS.format(extra='\n    "freezegun>=1.2",')})
    repo.commit("dropped", {"pyproject.toml": GROUPS.format(extra="")})
    errors = [BuildError("ModuleNotFoundError: No module named 'freezegun'", "library_unavailable", "pytest",
                         "tests/test_timed.py", 1)]  # fmt: skip
    elsewhere = tmp_path / "elsewhere"  # the build log and the caches: out of the project
    elsewhere.mkdir()
    options = offline(elsewhere)
    repair = diagnose(tmp_path, failed(elsewhere, "python", "x", errors), options, origin=tmp_path)
    assert repair is not None and "git history" in repair.summary, repair
    apply_repair(tmp_path, repair, options)
    assert '"pytest",\n    "freezegun>=1.2",\n]' in (tmp_path / "pyproject.toml").read_text()
    # Without that history, a module no cache knows is no distribution's name we may guess.
    Repo(tmp_path / "fresh").commit("only", {**files, "pyproject.toml": GROUPS.format(extra="")})
    fresh = tmp_path / "fresh"
    assert diagnose(fresh, failed(elsewhere, "python", "x", errors), options, origin=fresh) is None


def _npm_cached(options: BuildOptions, *packages: str) -> None:
    index = options.cache_dir / "npm" / "_cacache" / "index-v5" / "ab"
    index.mkdir(parents=True, exist_ok=True)
    (index / "cd").write_text("".join(f'{{"key":"pacote:tarball:{p}"}}\n' for p in packages))


@pytest.mark.parametrize(
    ("files", "section"),
    [
        ({"src/app.test.js": "const debug = require('debug');\n"}, "devDependencies"),
        ({"__tests__/a.js": "import debug from 'debug';\n"}, "devDependencies"),
        (
            {"src/app.test.js": "require('debug')\n", "src/app.js": "import d from 'debug/src/node';\n"},
            "dependencies",
        ),
    ],
)
def test_npm_scope_follows_the_importers(tmp_path: Path, files: dict[str, str], section: str) -> None:
    options = offline(tmp_path)
    _npm_cached(options, "debug@4.4.3")
    write(
        tmp_path,
        {"package.json": '{\n  "name": "x",\n  "dependencies": {\n    "ms": "^2.1.3"\n  }\n}\n', **files},
    )
    log = f"Error: Cannot find module 'debug'\nRequire stack:\n- {tmp_path}/src/app.test.js\n"
    repair = diagnose(tmp_path, failed(tmp_path, "npm", log), options)
    assert repair is not None
    apply_repair(tmp_path, repair, options)
    data = json.loads((tmp_path / "package.json").read_text())
    assert data[section]["debug"] == "^4.4.3", data


# --- 2. `module not found` of module-info.java -------------------------------------------------

JPMS_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>jpms-app</artifactId>
  <version>1.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
{deps}  </dependencies>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.11.0</version>
        <configuration><release>17</release></configuration>
      </plugin>
    </plugins>
  </build>
</project>
"""
SLF4J = """    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-api</artifactId>
      <version>2.0.9</version>
    </dependency>
"""
MODULE_INFO = "module com.acme.app {\n    requires org.slf4j;\n}\n"
APP = """package com.acme.app;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class App {
    private static final Logger LOG = LoggerFactory.getLogger(App.class);

    public static void main(String[] args) {
        LOG.info("hello");
    }
}
"""


@pytest.mark.slow
def test_real_maven_module_not_found_declares_the_module(tmp_path: Path, shared: BuildOptions) -> None:
    files = {"src/main/java/module-info.java": MODULE_INFO, "src/main/java/com/acme/app/App.java": APP}
    write(tmp_path, {"pom.xml": JPMS_POM.format(deps=SLF4J), **files})
    try:
        _build_ok(tmp_path, shared)  # the cache gets slf4j-api, as a user's would
        shutil.rmtree(tmp_path / "target")  # a fresh checkout: nothing compiled
        write(tmp_path, {"pom.xml": JPMS_POM.format(deps="")})
        repair = _repair_for_real(tmp_path, shared, "undeclared-dependency")
    finally:
        stop_daemons(tmp_path, shared)
    assert "requires the module org.slf4j" in repair.summary, repair.summary
    pom = (tmp_path / "pom.xml").read_text()
    assert "<artifactId>slf4j-api</artifactId>" in pom and pom.count("<dependency>") == 1


def test_module_names_of_jars(tmp_path: Path) -> None:
    assert automatic_name("commons-lang3-3.12.0.jar") == "commons.lang3"
    assert automatic_name("foo-bar_baz-1.0-SNAPSHOT.jar") == "foo.bar.baz"
    jar_path = tmp_path / "x-1.0.jar"
    with zipfile.ZipFile(jar_path, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nAutomatic-Module-Name: org.example.x\n")
    with zipfile.ZipFile(jar_path) as jar:
        assert module_name(jar, jar_path.name) == "org.example.x"


# --- 3. TypeScript's missing type definitions -------------------------------------------------

TS_PACKAGE = {"name": "tsdemo", "version": "1.0.0", "private": True, "scripts": {"build": "tsc -p ."}}
TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "types": ["node"],
        "outDir": "dist",
        "target": "es2020",
        "module": "commonjs",
    },
    "include": ["src"],
}


@pytest.mark.slow
def test_real_typescript_missing_node_types(tmp_path: Path, shared: BuildOptions) -> None:
    def package(dev: dict[str, str]) -> str:
        return json.dumps({**TS_PACKAGE, "devDependencies": dev}, indent=2) + "\n"

    write(tmp_path, {"tsconfig.json": json.dumps(TSCONFIG), "src/index.ts":
                     'export const home: string = process.env.HOME ?? "";\n'})  # fmt: skip
    write(tmp_path, {"package.json": package({"@types/node": "20.11.30", "typescript": "5.4.5"})})
    _build_ok(tmp_path, shared)  # the npm cache gets @types/node
    write(tmp_path, {"package.json": package({"typescript": "5.4.5"})})
    shutil.rmtree(tmp_path / "node_modules", ignore_errors=True)  # a fresh checkout: nothing installed
    _repair_for_real(tmp_path, shared, "undeclared-dependency")
    data = json.loads((tmp_path / "package.json").read_text())
    assert re.fullmatch(r"\^\d+\.\d+\.\d+", data["devDependencies"]["@types/node"]), data
    assert "dependencies" not in data, data


@pytest.mark.parametrize(
    ("message", "declared", "expected"),
    [
        ("TS7016: Could not find a declaration file for module 'lodash'.", True, "@types/lodash"),
        (
            "TS2307: Cannot find module '@babel/core' or its corresponding type declarations.",
            True,
            "@types/babel__core",
        ),
        ("TS2307: Cannot find module 'lodash' or its corresponding type declarations.", False, None),
    ],
)
def test_typescript_types_packages(
    tmp_path: Path, message: str, declared: bool, expected: str | None
) -> None:
    options = offline(tmp_path)
    _npm_cached(options, "@types/lodash@4.17.0", "@types/babel__core@7.20.5")
    deps = '"lodash": "^4.17.21", "@babel/core": "^7.24.0"' if declared else '"ms": "^2.1.3"'
    write(tmp_path, {"package.json": f'{{\n  "name": "x",\n  "dependencies": {{{deps}}}\n}}\n'})
    errors = [BuildError(message, "library_unavailable", "tsc", "src/index.ts", 1)]
    repair = diagnose(tmp_path, failed(tmp_path, "npm", message, errors), options)
    if expected is None:
        assert repair is None or "@types" not in repair.summary
        return
    assert repair is not None
    apply_repair(tmp_path, repair, options)
    assert expected in json.loads((tmp_path / "package.json").read_text())["devDependencies"]


# --- 4. properties files get only the keys read from them --------------------------------------

PROPS_GRADLE = """apply plugin: 'java'

def properties = new Properties()
properties.load(file('secrets.properties').newInputStream())
def apiKey = properties['api.key']
def region = properties.getProperty('deploy.region')
def who = System.properties['user.name']
def javaVersion = System.getProperty("java.version")
def home = System.getenv("HOME")
def flavor = project.findProperty('flavor') ?: System.getProperty('app.flavor')

task show {
    doLast { println "$apiKey $region $who $javaVersion $home $flavor" }
}
"""


@pytest.mark.slow
def test_real_gradle_properties_without_system_or_environment_keys(
    tmp_path: Path, shared: BuildOptions
) -> None:
    # The values come from another module's copy of the file; its other keys are not read here.
    sibling = "api.key=k-123\ndeploy.region=eu-west-1\nuser.name=bob\nflavor=free\n"
    write(tmp_path, {"build.gradle": PROPS_GRADLE, "settings.gradle": "rootProject.name = 'props'\n",
                     "tools/secrets.properties": sibling})  # fmt: skip
    try:
        _repair_for_real(tmp_path, shared, "missing-properties")
    finally:
        stop_daemons(tmp_path, shared)
    keys = [line.split("=")[0] for line in (tmp_path / "secrets.properties").read_text().splitlines()
            if line and not line.startswith("#")]  # fmt: skip
    assert keys == ["api.key", "deploy.region"]


def test_kotlin_properties_skip_providers_and_environment(tmp_path: Path) -> None:
    script = (
        "import java.util.Properties\n"
        'val props = Properties().apply { load(file("keys.properties").inputStream()) }\n'
        'val token = props.getProperty("token") ?: error("token is required")\n'
        'val region = props.getProperty("region") ?: System.getenv("REGION")\n'
        'val user = providers.systemProperty("user.name").orNull\n'
        'val ci = providers.environmentVariable("CI").orNull\n'
        'val jv = System.getProperty("java.version")\n'
    )
    # Another module's keys.properties has a value for every key: only `token` is needed from the
    # file (`region` falls back to the environment).
    sibling = "token=abc\nregion=eu\nuser.name=bob\nCI=true\njava.version=17\nTOKEN=x\n"
    write(tmp_path, {"build.gradle.kts": script, "cli/keys.properties": sibling})
    log = f"java.io.FileNotFoundException: {tmp_path}/keys.properties (No such file or directory)"
    repair = diagnose(tmp_path, failed(tmp_path, "gradle", log), offline(tmp_path))
    assert repair is not None
    content = repair.calls[0].arguments["content"]
    assert "token=abc" in content, content
    assert not re.search(r"region|user\.name|CI=|java\.version|TOKEN", content), content


# --- 5. a missing version moves to a re-release of it -----------------------------------------

TESTNG_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>testng-app</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.source>11</maven.compiler.source>
    <maven.compiler.target>11</maven.compiler.target>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.testng</groupId>
      <artifactId>testng</artifactId>
      <version>6.9.13</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>
"""


@pytest.mark.slow
def test_real_maven_missing_version_moves_to_its_rerelease(tmp_path: Path, shared: BuildOptions) -> None:
    # Maven Central has testng 6.9.10 and 6.9.13.3..6.9.13.6, never 6.9.13 itself.
    write(
        tmp_path, {"pom.xml": TESTNG_POM, "src/main/java/com/acme/A.java": "package com.acme;\nclass A {}\n"}
    )
    repair = _repair_for_real(tmp_path, shared, "missing-version")
    assert "<version>6.9.13.6</version>" in (tmp_path / "pom.xml").read_text(), repair


# --- 6. a restored dependency is the one the project's history declared -------------------------

JACKSON = """    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
      <version>{version}</version>
    </dependency>
"""
PLAIN_POM = JPMS_POM.replace("<release>17</release>", "<release>11</release>").replace(
    "jpms-app", "jackson-app"
)
JACKSON_APP = """package com.acme.app;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;

public class App {
    @JsonProperty("n")
    public int n = 1;

    public static String json() throws Exception {
        return new ObjectMapper().writeValueAsString(new App());
    }
}
"""


@pytest.mark.slow
def test_real_restored_dependency_takes_the_version_of_the_history(
    tmp_path: Path, shared: BuildOptions
) -> None:
    write(tmp_path, {"pom.xml": PLAIN_POM.format(deps=JACKSON.format(version="2.15.2")),
                     "src/main/java/com/acme/app/App.java": JACKSON_APP})  # fmt: skip
    _build_ok(tmp_path, shared)  # a newer jackson in the cache: what the defect picked
    write(tmp_path, {"pom.xml": PLAIN_POM.format(deps=JACKSON.format(version="2.9.8"))})
    _build_ok(tmp_path, shared)
    repo = Repo(tmp_path)
    repo.commit("jackson 2.9.8")
    repo.commit("drop jackson", {"pom.xml": PLAIN_POM.format(deps="")})
    shutil.rmtree(tmp_path / "target")  # a fresh checkout: nothing compiled
    repair = _repair_for_real(tmp_path, shared, "undeclared-dependency", origin=tmp_path)
    pom = (tmp_path / "pom.xml").read_text()
    assert pom.count("<dependency>") == 1, pom  # jackson-annotations comes with databind
    assert JACKSON.format(version="2.9.8") in pom, (repair.summary, pom)


MS_LOCK = {
    "name": "lockdemo",
    "version": "1.0.0",
    "lockfileVersion": 3,
    "requires": True,
    "packages": {
        "": {"name": "lockdemo", "version": "1.0.0", "dependencies": {"ms": "^2.1.2"}},
        "node_modules/ms": {
            "version": "2.1.2",
            "resolved": "https://registry.npmjs.org/ms/-/ms-2.1.2.tgz",
            "integrity": "sha512-sGkPx+VjMtmA6MX27oA4FBFELFCZZ4S4XqeGOXCv68tT+jb3vk/RyaKWP0PTKyWtmLSM0b+"
            "adUTEvbs1PEaH2w==",
        },
    },
}
MS_PACKAGE = {"name": "lockdemo", "version": "1.0.0", "scripts": {"test": "node index.js"}}


@pytest.mark.slow
def test_real_npm_restored_dependency_takes_the_lockfile_version(
    tmp_path: Path, shared: BuildOptions
) -> None:
    # package.json lost `ms`; package-lock.json still installs 2.1.2 (the registry's newest is 2.1.3).
    write(tmp_path, {"package.json": json.dumps(MS_PACKAGE, indent=2) + "\n",
                     "package-lock.json": json.dumps(MS_LOCK, indent=2) + "\n",
                     "index.js": "console.log(require('ms')('2h'));\n"})  # fmt: skip
    _repair_for_real(tmp_path, shared, "undeclared-dependency")
    assert json.loads((tmp_path / "package.json").read_text())["dependencies"] == {"ms": "^2.1.2"}


def test_npm_lockfile_version_wins_over_the_cache_and_absent_ones_are_declined(tmp_path: Path) -> None:
    options = offline(tmp_path)
    _npm_cached(options, "ms@2.1.3", "debug@4.4.3")
    write(tmp_path, {"package.json": json.dumps(MS_PACKAGE), "package-lock.json": json.dumps(MS_LOCK)})
    log = "Error: Cannot find module 'ms'\nError: Cannot find module 'debug'\n"
    repair = diagnose(tmp_path, failed(tmp_path, "npm", log), options)
    assert repair is not None
    apply_repair(tmp_path, repair, options)
    # debug is cached but not in the lockfile: `npm ci` would refuse it.
    assert json.loads((tmp_path / "package.json").read_text())["dependencies"] == {"ms": "^2.1.2"}


def test_jvm_restored_from_history_in_a_unit_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """History names the artifact and version; the sibling (annotations) that databind brings is not added."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRADLE_USER_HOME", raising=False)
    options = offline(tmp_path / "o")
    repo = options.cache_dir / "m2" / "repository" / "com" / "fasterxml" / "jackson" / "core"
    for artifact, version, classes, pom in [
        ("jackson-databind", "2.9.8", "com/fasterxml/jackson/databind/ObjectMapper.class",
         "<project><dependencies><dependency><groupId>com.fasterxml.jackson.core</groupId>"
         "<artifactId>jackson-annotations</artifactId><version>2.9.0</version></dependency>"
         "</dependencies></project>"),
        ("jackson-databind", "2.15.2", "com/fasterxml/jackson/databind/ObjectMapper.class", "<project/>"),
        ("jackson-annotations", "2.15.2", "com/fasterxml/jackson/annotation/JsonProperty.class",
         "<project/>"),
    ]:  # fmt: skip
        base = repo / artifact / version
        base.mkdir(parents=True, exist_ok=True)
        (base / f"{artifact}-{version}.pom").write_text(pom)
        with zipfile.ZipFile(base / f"{artifact}-{version}.jar", "w") as jar:
            jar.writestr(classes, b"\xca\xfe\xba\xbe")
    project = tmp_path / "p"
    write(project, {"pom.xml": PLAIN_POM.format(deps=JACKSON.format(version="2.9.8")),
                    "src/main/java/com/acme/app/App.java": JACKSON_APP})  # fmt: skip
    history = Repo(project)
    history.commit("jackson 2.9.8")
    history.commit("drop jackson", {"pom.xml": PLAIN_POM.format(deps="")})
    file = "src/main/java/com/acme/app/App.java"
    errors = [
        BuildError(
            "package com.fasterxml.jackson.annotation does not exist", "library_unavailable", "javac", file, 3
        ),
        BuildError(
            "package com.fasterxml.jackson.databind does not exist", "library_unavailable", "javac", file, 4
        ),
    ]
    repair = diagnose(project, failed(project, "maven", "x", errors), options, origin=project)
    assert repair is not None
    apply_repair(project, repair, options)
    pom = (project / "pom.xml").read_text()
    assert JACKSON.format(version="2.9.8") in pom and pom.count("<dependency>") == 1, (repair.summary, pom)


def test_a_decline_names_files_as_the_users_not_by_the_workspace_path(tmp_path: Path) -> None:
    workspace = tmp_path / "ws-17594-1njv6j26"
    write(workspace, {"build.gradle": "dependencies {\n"})
    message = f"Could not compile build file '{workspace}/build.gradle'. > startup failed"
    result = failed(
        workspace, "gradle", message, [BuildError(message, "configuration", "gradle", None, None)]
    )
    result.category = "configuration"
    ctx = SimpleNamespace(root=workspace, options=offline(tmp_path), ledger=None)
    context = SimpleNamespace(
        initial=result, ctx=ctx, trajectory=SimpleNamespace(meta={}), all_tools=lambda: {}
    )
    stop = RecipesAgent().run(context)  # type: ignore[arg-type]
    assert stop.kind is StopKind.DECLINED
    expected = "configuration: Could not compile build file 'build.gradle'. > startup failed"
    assert stop.detail == f"declined: no recipe for this failure ({expected})", stop.detail
