"""Planned edits of dependency declarations in Gradle, Maven, Python and npm build files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from buildfixer.deps.manage import (
    Edit,
    add_dependency,
    apply_edits,
    declared_jvm_names,
    find_declaration,
    remove_dependency,
    set_version,
    span_edit,
    staged,
)


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def applied(root: Path, edits: list[Edit] | Edit | None) -> None:
    assert edits, "no edit planned"
    apply_edits(root, edits if isinstance(edits, list) else [edits])


GROOVY = """
buildscript {
    dependencies {
        classpath 'com.android.tools.build:gradle:8.1.0'
    }
}
plugins {
    id 'java'
    id 'org.springframework.boot' version '3.1.99'
}
ext {
    jacksonVersion = '2.15.99'
}
dependencies {
    implementation 'com.google.code.gson:gson:2.8.99'
    implementation "com.fasterxml.jackson.core:jackson-databind:$jacksonVersion"
    implementation "com.fasterxml.jackson.core:jackson-core:${jacksonVersion}"
    api group: 'org.slf4j', name: 'slf4j-api', version: '1.7.99'
    testImplementation 'junit:junit:4.13.2'
}
"""


def test_gradle_groovy_forms(tmp_path: Path) -> None:
    write(tmp_path, "build.gradle", GROOVY)
    (gson,) = find_declaration(tmp_path, "com.google.code.gson:gson")
    assert (gson.file, gson.version, gson.kind) == ("build.gradle", "2.8.99", "gradle")
    (slf4j,) = find_declaration(tmp_path, "org.slf4j:slf4j-api")
    assert slf4j.version == "1.7.99"
    (boot,) = find_declaration(tmp_path, "org.springframework.boot")
    assert (boot.version, boot.kind) == ("3.1.99", "gradle-plugin")
    assert find_declaration(tmp_path, "com.google.code.gson:gson-extras") == []

    applied(tmp_path, set_version(tmp_path, "com.google.code.gson:gson", "2.8.9"))
    applied(tmp_path, set_version(tmp_path, "org.slf4j:slf4j-api", "1.7.36"))
    applied(tmp_path, set_version(tmp_path, "org.springframework.boot", "3.1.12"))
    text = (tmp_path / "build.gradle").read_text()
    assert "implementation 'com.google.code.gson:gson:2.8.9'\n" in text
    assert "version: '1.7.36'" in text and "id 'org.springframework.boot' version '3.1.12'" in text


def test_gradle_version_in_a_variable_is_changed_once(tmp_path: Path) -> None:
    write(tmp_path, "build.gradle", GROOVY)
    databind, core = (
        find_declaration(tmp_path, f"com.fasterxml.jackson.core:{a}")[0]
        for a in ("jackson-databind", "jackson-core")
    )
    assert databind.version == core.version == "2.15.99"
    assert databind.version_file == "build.gradle"
    edits = set_version(tmp_path, "com.fasterxml.jackson.core:jackson-databind", "2.15.2")
    assert edits == [
        Edit("build.gradle", "    jacksonVersion = '2.15.99'\n", "    jacksonVersion = '2.15.2'\n")
    ]


def test_gradle_properties_variable(tmp_path: Path) -> None:
    write(
        tmp_path,
        "build.gradle",
        'dependencies {\n    implementation "org.jetbrains.kotlin:kotlin-stdlib:$kotlin_version"\n}\n',
    )
    write(tmp_path, "gradle.properties", "org.gradle.jvmargs=-Xmx2g\nkotlin_version=1.9.27\n")
    (decl,) = find_declaration(tmp_path, "org.jetbrains.kotlin:kotlin-stdlib")
    assert (decl.version, decl.version_file) == ("1.9.27", "gradle.properties")
    applied(tmp_path, set_version(tmp_path, "org.jetbrains.kotlin:kotlin-stdlib", "1.9.25"))
    assert (
        tmp_path / "gradle.properties"
    ).read_text() == "org.gradle.jvmargs=-Xmx2g\nkotlin_version=1.9.25\n"


def test_gradle_add_uses_the_top_level_block_and_the_projects_configuration(tmp_path: Path) -> None:
    write(tmp_path, "build.gradle", GROOVY)
    applied(tmp_path, add_dependency(tmp_path, "gradle", "org.apache.commons:commons-lang3", "3.12.0"))
    text = (tmp_path / "build.gradle").read_text()
    assert (
        "dependencies {\n    implementation 'org.apache.commons:commons-lang3:3.12.0'\n"
        "    implementation 'com.google" in text
    )
    assert text.count("commons-lang3") == 1
    old = write(
        tmp_path / "old",
        "build.gradle",
        "dependencies {\n  compile 'a:b:1'\n  testCompile 'junit:junit:4.12'\n}\n",
    )
    applied(tmp_path, add_dependency(tmp_path, "gradle", "c:d", "2", test=True, module="old"))
    assert (
        old.read_text()
        == "dependencies {\n  testCompile 'c:d:2'\n  compile 'a:b:1'\n  testCompile 'junit:junit:4.12'\n}\n"
    )


def test_gradle_add_without_a_dependencies_block(tmp_path: Path) -> None:
    path = write(tmp_path, "build.gradle", "apply plugin: 'java'\n")
    applied(tmp_path, add_dependency(tmp_path, "gradle", "c:d", "2"))
    assert path.read_text() == "apply plugin: 'java'\n\ndependencies {\n    implementation 'c:d:2'\n}\n"


def test_gradle_remove(tmp_path: Path) -> None:
    write(tmp_path, "build.gradle", GROOVY)
    applied(tmp_path, remove_dependency(tmp_path, "com.google.code.gson:gson"))
    applied(tmp_path, remove_dependency(tmp_path, "org.slf4j:slf4j-api"))
    text = (tmp_path / "build.gradle").read_text()
    assert "gson" not in text and "slf4j" not in text
    assert 'dependencies {\n    implementation "com.fasterxml' in text


KTS = """
plugins {
    kotlin("jvm") version "1.9.27"
    id("com.diffplug.spotless") version "6.25.0"
}
val ktorVersion = "2.3.99"
dependencies {
    implementation("io.ktor:ktor-server-core:$ktorVersion")
    implementation("com.squareup.okhttp3:okhttp:4.12.0")
}
"""


def test_gradle_kotlin_dsl(tmp_path: Path) -> None:
    path = write(tmp_path, "build.gradle.kts", KTS)
    (kotlin,) = find_declaration(tmp_path, "org.jetbrains.kotlin.jvm")
    assert kotlin.version == "1.9.27"
    (ktor,) = find_declaration(tmp_path, "io.ktor:ktor-server-core")
    assert ktor.version == "2.3.99"
    applied(tmp_path, set_version(tmp_path, "org.jetbrains.kotlin.jvm", "1.9.25"))
    applied(tmp_path, set_version(tmp_path, "io.ktor:ktor-server-core", "2.3.12"))
    applied(tmp_path, add_dependency(tmp_path, "gradle", "com.google.code.gson:gson", "2.10.1"))
    applied(tmp_path, remove_dependency(tmp_path, "com.squareup.okhttp3:okhttp"))
    text = path.read_text()
    assert 'kotlin("jvm") version "1.9.25"' in text and 'val ktorVersion = "2.3.12"' in text
    assert 'dependencies {\n    implementation("com.google.code.gson:gson:2.10.1")\n' in text
    assert "okhttp" not in text


def test_version_catalog(tmp_path: Path) -> None:
    write(tmp_path, "build.gradle.kts", "dependencies {\n    implementation(libs.gson)\n}\n")
    catalog = write(
        tmp_path,
        "gradle/libs.versions.toml",
        """
        [versions]
        kotlin = "1.9.27"

        [libraries]
        gson = { module = "com.google.code.gson:gson", version = "2.8.99" }
        kotlin-stdlib = { module = "org.jetbrains.kotlin:kotlin-stdlib", version.ref = "kotlin" }

        [plugins]
        kotlin-jvm = { id = "org.jetbrains.kotlin.jvm", version.ref = "kotlin" }
        """,
    )
    assert find_declaration(tmp_path, "com.google.code.gson:gson")[0].version == "2.8.99"
    (stdlib,) = find_declaration(tmp_path, "org.jetbrains.kotlin:kotlin-stdlib")
    (plugin,) = find_declaration(tmp_path, "org.jetbrains.kotlin.jvm")
    assert stdlib.version == plugin.version == "1.9.27"
    assert (stdlib.version_start, stdlib.version_file) == (plugin.version_start, "gradle/libs.versions.toml")
    applied(tmp_path, set_version(tmp_path, "org.jetbrains.kotlin.jvm", "1.9.25"))
    applied(tmp_path, set_version(tmp_path, "com.google.code.gson:gson", "2.8.9"))
    text = catalog.read_text()
    assert 'kotlin = "1.9.25"' in text and 'version = "2.8.9"' in text
    assert remove_dependency(tmp_path, "com.google.code.gson:gson") == []  # libs.gson users would break


POM = """
<project>
  <properties>
    <kotlin.version>1.9.27</kotlin.version>
  </properties>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>com.fasterxml.jackson</groupId>
        <artifactId>jackson-bom</artifactId>
        <version>2.15.2</version>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>org.jetbrains.kotlin</groupId>
      <artifactId>kotlin-stdlib</artifactId>
      <version>${kotlin.version}</version>
    </dependency>
    <!-- <dependency><groupId>x</groupId><artifactId>commented</artifactId></dependency> -->
    <dependency>
      <groupId>com.fasterxml.jackson.core</groupId>
      <artifactId>jackson-databind</artifactId>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.jetbrains.kotlin</groupId>
        <artifactId>kotlin-maven-plugin</artifactId>
        <version>${kotlin.version}</version>
        <dependencies>
          <dependency>
            <groupId>org.jetbrains.kotlin</groupId>
            <artifactId>kotlin-allopen</artifactId>
            <version>${kotlin.version}</version>
          </dependency>
        </dependencies>
      </plugin>
      <plugin>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>3.1.2</version>
      </plugin>
    </plugins>
  </build>
</project>
"""


def test_maven_declarations_and_property_versions(tmp_path: Path) -> None:
    pom = write(tmp_path, "pom.xml", POM)
    (plugin,) = find_declaration(tmp_path, "org.jetbrains.kotlin:kotlin-maven-plugin")
    assert (plugin.kind, plugin.version) == ("maven-plugin", "1.9.27")
    (surefire,) = find_declaration(tmp_path, "org.apache.maven.plugins:maven-surefire-plugin")
    assert surefire.version == "3.1.2"
    (managed,) = find_declaration(tmp_path, "com.fasterxml.jackson.core:jackson-databind")
    assert managed.version is None and managed.version_file is None
    assert find_declaration(tmp_path, "x:commented") == []
    edits = set_version(tmp_path, "org.jetbrains.kotlin:kotlin-maven-plugin", "1.9.25", only_version="1.9.27")
    assert edits == [
        Edit(
            "pom.xml",
            "    <kotlin.version>1.9.27</kotlin.version>\n",
            "    <kotlin.version>1.9.25</kotlin.version>\n",
        )
    ]
    assert (
        set_version(tmp_path, "org.jetbrains.kotlin:kotlin-maven-plugin", "1.9.25", only_version="1.0") == []
    )
    applied(tmp_path, edits)
    assert "<kotlin.version>1.9.25</kotlin.version>" in pom.read_text()


def test_maven_add_goes_to_the_projects_dependencies(tmp_path: Path) -> None:
    pom = write(tmp_path, "pom.xml", POM)
    applied(tmp_path, add_dependency(tmp_path, "maven", "com.google.code.gson:gson", "2.10.1", test=True))
    text = pom.read_text()
    expected = (
        "      <artifactId>jackson-databind</artifactId>\n    </dependency>\n    <dependency>\n"
        "      <groupId>com.google.code.gson</groupId>\n      <artifactId>gson</artifactId>\n"
        "      <version>2.10.1</version>\n      <scope>test</scope>\n    </dependency>\n"
        "  </dependencies>\n  <build>"
    )
    assert expected in text


def test_maven_add_creates_the_block(tmp_path: Path) -> None:
    pom = write(tmp_path, "pom.xml", "<project>\n  <modelVersion>4.0.0</modelVersion>\n</project>\n")
    applied(tmp_path, add_dependency(tmp_path, "maven", "g:a", "1"))
    assert pom.read_text() == (
        "<project>\n  <modelVersion>4.0.0</modelVersion>\n  <dependencies>\n    <dependency>\n"
        "      <groupId>g</groupId>\n      <artifactId>a</artifactId>\n      <version>1</version>\n"
        "    </dependency>\n  </dependencies>\n</project>\n"
    )


def test_maven_remove(tmp_path: Path) -> None:
    pom = write(tmp_path, "pom.xml", POM)
    applied(tmp_path, remove_dependency(tmp_path, "org.jetbrains.kotlin:kotlin-stdlib"))
    text = pom.read_text()
    assert "kotlin-stdlib" not in text and "<dependencies>\n    <!--" in text


PYPROJECT = """
[project]
name = "demo"
dependencies = [
    "packaging==23.7",
    "requests>=2.31.9,<3",
    "rich",
]

[project.optional-dependencies]
test = ["pytest>=7"]

[tool.setuptools]
packages = ["rich"]
"""


def test_pyproject_requirements(tmp_path: Path) -> None:
    path = write(tmp_path, "pyproject.toml", PYPROJECT)
    (packaging,) = find_declaration(tmp_path, "Packaging")
    assert (packaging.version, packaging.text) == ("23.7", "packaging==23.7")
    assert len(find_declaration(tmp_path, "rich")) == 1  # not the packages = [...] entry
    applied(tmp_path, set_version(tmp_path, "packaging", "23.2", only_version="23.7"))
    applied(tmp_path, set_version(tmp_path, "requests", "2.31.0"))
    applied(tmp_path, set_version(tmp_path, "pytest", "8.0"))
    text = path.read_text()
    assert '"packaging==23.2",' in text and '"requests>=2.31.0,<3",' in text and '["pytest>=8.0"]' in text


def test_pyproject_add_and_remove(tmp_path: Path) -> None:
    path = write(tmp_path, "pyproject.toml", PYPROJECT)
    applied(tmp_path, add_dependency(tmp_path, "python", "PyYAML", None))
    applied(tmp_path, add_dependency(tmp_path, "python", "hypothesis", "6.0", test=True))
    text = path.read_text()
    assert '    "rich",\n    "PyYAML",\n]' in text and 'test = ["pytest>=7", "hypothesis>=6.0"]' in text
    applied(tmp_path, remove_dependency(tmp_path, "PyYAML"))
    applied(tmp_path, remove_dependency(tmp_path, "packaging"))
    assert path.read_text() == PYPROJECT.lstrip("\n").replace('    "packaging==23.7",\n', "").replace(
        '["pytest>=7"]', '["pytest>=7", "hypothesis>=6.0"]'
    )


def test_pyproject_without_dependencies_gets_the_key(tmp_path: Path) -> None:
    path = write(tmp_path, "pyproject.toml", '[project]\nname = "demo"\n')
    applied(tmp_path, add_dependency(tmp_path, "python", "PyYAML", None))
    assert path.read_text() == '[project]\nname = "demo"\ndependencies = ["PyYAML"]\n'


def test_requirements_setup_cfg_setup_py_and_poetry(tmp_path: Path) -> None:
    req = write(tmp_path, "requirements.txt", "# pinned\nflask==2.3.99  # web\n-r other.txt\n")
    (flask,) = find_declaration(tmp_path, "flask")
    assert flask.version == "2.3.99"
    applied(tmp_path, set_version(tmp_path, "flask", "2.3.3"))
    assert req.read_text() == "# pinned\nflask==2.3.3  # web\n-r other.txt\n"
    applied(tmp_path, add_dependency(tmp_path, "python", "PyYAML", None))
    assert req.read_text().endswith("-r other.txt\nPyYAML\n")
    applied(tmp_path, remove_dependency(tmp_path, "flask"))
    assert "flask" not in req.read_text()

    cfg_root = tmp_path / "cfg"
    cfg = write(cfg_root, "setup.cfg", "[options]\ninstall_requires =\n    click>=8\npackages = find:\n")
    applied(cfg_root, add_dependency(cfg_root, "python", "PyYAML", None))
    assert cfg.read_text() == "[options]\ninstall_requires =\n    click>=8\n    PyYAML\npackages = find:\n"

    py_root = tmp_path / "py"
    setup = write(py_root, "setup.py", 'setup(name="x", packages=["click"], install_requires=["click>=8"])\n')
    assert len(find_declaration(py_root, "click")) == 1
    applied(py_root, add_dependency(py_root, "python", "PyYAML", None))
    assert 'install_requires=["click>=8", "PyYAML"]' in setup.read_text()

    poetry_root = tmp_path / "poetry"
    pyproject = write(
        poetry_root, "pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.9"\nhttpx = "^0.99.1"\n'
    )
    assert find_declaration(poetry_root, "httpx")[0].version == "0.99.1"
    applied(poetry_root, set_version(poetry_root, "httpx", "0.27.0"))
    applied(poetry_root, add_dependency(poetry_root, "python", "PyYAML", None))
    assert (
        pyproject.read_text()
        == '[tool.poetry.dependencies]\npython = "^3.9"\nhttpx = "^0.27.0"\nPyYAML = "*"\n'
    )


PACKAGE_JSON = """
{
  "name": "app",
  "dependencies": {
    "express": "^4.18.99",
    "lodash": "4.17.21"
  },
  "devDependencies": {
    "typescript": "5.4.9"
  }
}
"""


def test_package_json(tmp_path: Path) -> None:
    path = write(tmp_path, "package.json", PACKAGE_JSON)
    (express,) = find_declaration(tmp_path, "express")
    assert express.version == "4.18.99"
    applied(tmp_path, set_version(tmp_path, "express", "4.18.2"))
    applied(tmp_path, set_version(tmp_path, "typescript", "5.4.5"))
    applied(tmp_path, add_dependency(tmp_path, "npm", "left-pad", "1.3.0"))
    applied(tmp_path, add_dependency(tmp_path, "npm", "zod", "3.23.8"))
    text = path.read_text()
    assert (
        '"express": "^4.18.2",\n    "left-pad": "^1.3.0",\n    "lodash": "4.17.21",\n    "zod": "^3.23.8"\n'
        in text
    )
    assert '"typescript": "5.4.5"' in text
    applied(tmp_path, remove_dependency(tmp_path, "zod"))
    applied(tmp_path, remove_dependency(tmp_path, "express"))
    applied(tmp_path, remove_dependency(tmp_path, "typescript"))
    import json

    data = json.loads(path.read_text())
    assert data["dependencies"] == {"left-pad": "^1.3.0", "lodash": "4.17.21"}
    assert data["devDependencies"] == {}


def test_span_edit_widens_until_unique() -> None:
    text = "a {\n  x = 1\n}\nb {\n  x = 1\n}\n"
    start = text.rindex("1")
    edit = span_edit("f", text, start, start + 1, "2")
    assert text.count(edit.old_text) == 1
    assert text.replace(edit.old_text, edit.new_text) == "a {\n  x = 1\n}\nb {\n  x = 2\n}\n"


def test_apply_edits_refuses_stale_or_existing(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "one\n")
    with pytest.raises(ValueError, match="0 times"):
        apply_edits(tmp_path, [Edit("a.txt", "two\n", "three\n")])
    with pytest.raises(ValueError, match="already exists"):
        apply_edits(tmp_path, [Edit("a.txt", "", "new\n")])
    assert apply_edits(tmp_path, [Edit("b/c.properties", "", "k=v\n")]) == ["b/c.properties"]
    assert (tmp_path / "b" / "c.properties").read_text() == "k=v\n"


def test_staged_edits_of_one_file_compose(tmp_path: Path) -> None:
    pom = write(
        tmp_path,
        "pom.xml",
        """
        <project>
        \t<dependencies>
        \t\t<dependency>
        \t\t\t<groupId>junit</groupId>
        \t\t\t<artifactId>junit</artifactId>
        \t\t</dependency>
        \t</dependencies>
        </project>
        """,
    )
    before = pom.read_text()
    with staged(tmp_path) as stage:
        # Each planner sees the file as the edits before it leave it: both insert at one place.
        assert stage.add([add_dependency(tmp_path, "maven", "g:one", "1.0")])  # type: ignore[list-item]
        assert stage.add([add_dependency(tmp_path, "maven", "g:two", None, test=True)])  # type: ignore[list-item]
        assert not stage.add([Edit("pom.xml", "<absent/>", "x")])
        edits = stage.edits()
    assert pom.read_text() == before  # planned, not written
    assert len(edits) == 1
    applied(tmp_path, edits)
    assert pom.read_text() == before.replace(
        "\t\t</dependency>\n",
        "\t\t</dependency>\n"
        "\t\t<dependency>\n\t\t\t<groupId>g</groupId>\n\t\t\t<artifactId>one</artifactId>\n"
        "\t\t\t<version>1.0</version>\n\t\t</dependency>\n"
        "\t\t<dependency>\n\t\t\t<groupId>g</groupId>\n\t\t\t<artifactId>two</artifactId>\n"
        "\t\t\t<scope>test</scope>\n\t\t</dependency>\n",
    )


def test_maven_managed_declarations_are_marked(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pom.xml",
        """
        <project>
          <dependencyManagement><dependencies>
            <dependency><groupId>g</groupId><artifactId>a</artifactId><version>1.0</version></dependency>
          </dependencies></dependencyManagement>
          <dependencies>
            <dependency><groupId>g</groupId><artifactId>b</artifactId><version>2.0</version></dependency>
          </dependencies>
        </project>
        """,
    )
    (managed,) = find_declaration(tmp_path, "g:a")
    (own,) = find_declaration(tmp_path, "g:b")
    assert managed.managed and not own.managed
    assert declared_jvm_names(tmp_path) == ["g:a", "g:b"]


def test_python_test_requirements_go_where_the_tests_ones_are(tmp_path: Path) -> None:
    write(tmp_path, "setup.py", 'setup(name="x", install_requires=["click>=8"])\n')
    dev = write(tmp_path, "requirements-dev.txt", "pytest\n")
    applied(tmp_path, add_dependency(tmp_path, "python", "PyYAML", None, test=True))
    assert dev.read_text() == "pytest\nPyYAML\n"
    applied(tmp_path, add_dependency(tmp_path, "python", "attrs", None))
    assert 'install_requires=["click>=8", "attrs"]' in (tmp_path / "setup.py").read_text()


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "setup.cfg",
            "[options]\ninstall_requires =\n    rich\n\n[options.extras_require]\ntest =\n    pytest\n",
            "[options.extras_require]\ntest =\n    pytest\n    PyYAML\n",
        ),
        (
            "setup.py",
            'setup(install_requires=["rich"], extras_require={"dev": ["black"], "tests": ["pytest"]})\n',
            'extras_require={"dev": ["black"], "tests": ["pytest", "PyYAML"]})\n',
        ),
    ],
)
def test_test_requirement_goes_to_a_setuptools_test_extra(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    """The extra buildsys.python installs for the tests (test, tests, testing, dev: the first there)."""
    path = write(tmp_path, name, text)
    applied(tmp_path, add_dependency(tmp_path, "python", "PyYAML", None, test=True))
    assert path.read_text().endswith(expected), path.read_text()
