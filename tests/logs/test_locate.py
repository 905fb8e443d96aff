from pathlib import Path

from buildfixer.core.build_result import BuildError
from buildfixer.core.confined import WorkspaceFiles
from buildfixer.logs.locate import locate_in_project

POM = """<project>
  <properties>
    <maven.compiler.release>21</maven.compiler.release>
    <kotlin.version>1.9.27</kotlin.version>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.apache.commons</groupId>
      <artifactId>commons-lang3</artifactId>
      <version>3.12.9</version>
    </dependency>
  </dependencies>
  <build><plugins><plugin>
    <artifactId>kotlin-maven-plugin</artifactId>
    <version>${kotlin.version}</version>
  </plugin></plugins></build>
</project>
"""

GRADLE = """apply plugin: 'java'
dependencies {
    compile 'com.google.code.gson:gson:2.8.99'
    compile files('/home/alice/libs/secret.jar')
}
def props = new Properties()
props.load(new FileInputStream(file('keystore.properties')))
sourceCompatibility = JavaVersion.VERSION_21
"""


def locate(project: Path, message: str, file: str | None = None) -> BuildError:
    error = BuildError(message, file=file)
    locate_in_project([error], WorkspaceFiles(project))
    return error


def test_maven_artifact_version_and_property(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text(POM)
    missing = locate(
        tmp_path,
        "Could not resolve dependencies for project com.example:app:jar:1.0.0: Could not find artifact "
        "org.apache.commons:commons-lang3:jar:3.12.9 in central",
    )
    assert (missing.file, missing.line) == ("pom.xml", 10)
    plugin = locate(tmp_path, "Plugin org.jetbrains.kotlin:kotlin-maven-plugin:1.9.27 could not be resolved")
    assert (plugin.file, plugin.line) == ("pom.xml", 4)
    level = locate(tmp_path, "Fatal error compiling: error: release version 21 not supported")
    assert (level.file, level.line) == ("pom.xml", 3)


def test_gradle_coordinates_paths_and_files(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text(GRADLE)
    assert locate(tmp_path, "Could not find com.google.code.gson:gson:2.8.99.").line == 3
    assert locate(tmp_path, "File /home/alice/libs/secret.jar does not exist").line == 4
    assert locate(tmp_path, "keystore.properties (No such file or directory)").line == 7
    assert locate(tmp_path, "Unsupported class file major version 65").line == 8


def test_npm_and_pip_specs(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{\n  "devDependencies": {\n    "typescript": "5.4.9"\n  }\n}\n')
    (tmp_path / "requirements.txt").write_text("requests==2.31.0\npackaging==23.7\n")
    assert locate(tmp_path, "No matching version found for typescript@5.4.9.").line == 3
    pip = locate(tmp_path, "Could not find a version that satisfies the requirement packaging==23.7")
    assert (pip.file, pip.line) == ("requirements.txt", 2)


def test_foreign_paths_are_mapped_onto_the_project(tmp_path: Path) -> None:
    source = tmp_path / "src" / "main" / "java" / "com" / "x" / "AppTest.java"
    source.parent.mkdir(parents=True)
    source.write_text("class AppTest {}")
    from_class_name = locate(tmp_path, "AppTest > t FAILED", file="com/x/AppTest.java")
    assert from_class_name.file == "src/main/java/com/x/AppTest.java"
    other_machine = locate(tmp_path, "error", file="/home/ci/work/app/src/main/java/com/x/AppTest.java")
    assert other_machine.file == "src/main/java/com/x/AppTest.java"
    unknown = locate(tmp_path, "error", file="/elsewhere/Nope.java")
    assert unknown.file == "/elsewhere/Nope.java"


def test_nothing_to_find_leaves_the_error_alone(tmp_path: Path) -> None:
    (tmp_path / "build.gradle").write_text(GRADLE)
    error = locate(tmp_path, "Something odd happened")
    assert error.file is None and error.line is None


def test_paths_inside_the_project_become_relative(tmp_path: Path) -> None:
    source = tmp_path / "src" / "App.java"
    source.parent.mkdir()
    source.write_text("class App {}")
    assert locate(tmp_path, "';' expected", file=str(source)).file == "src/App.java"


def test_directory_property_is_located_where_it_is_set(tmp_path: Path) -> None:
    (tmp_path / "android").mkdir()
    (tmp_path / "android" / "gradle.properties").write_text(
        "org.gradle.jvmargs=-Xmx2g\norg.gradle.java.home=C:\\\\jdk8\n"
    )
    (tmp_path / "android" / "local.properties").write_text(
        "## generated\nsdk.dir=/Users/someone/Library/Android/sdk\n"
    )
    java = BuildError(
        "Value 'C:jdk8' given for org.gradle.java.home Gradle property is invalid", "configuration"
    )
    sdk = BuildError(
        "The SDK directory '/x' does not exist. Please fix the 'sdk.dir' property", "configuration"
    )
    locate_in_project([java, sdk], WorkspaceFiles(tmp_path))
    assert (java.file, java.line) == ("android/gradle.properties", 2)
    assert (sdk.file, sdk.line) == ("android/local.properties", 2)


def test_a_feature_above_the_java_level_is_the_levels_declaration(tmp_path: Path) -> None:
    # javac reports it where the code uses the feature; the level (written 1.8 for -source 8) is the cause.
    from buildfixer.logs.analyze import analyze_text

    level = "    <maven.compiler.source>1.8</maven.compiler.source>\n"
    (tmp_path / "pom.xml").write_text(f"<project>\n  <properties>\n{level}  </properties>\n</project>\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "Range.java").write_text("class Range {}\n")
    log = (
        "[ERROR] COMPILATION ERROR : \n"
        f"[ERROR] {tmp_path}/src/Parser.java:[91,21] '.class' expected\n"
        f"[ERROR] {tmp_path}/src/Range.java:[100,16] switch expressions are not supported in -source 8\n"
        "  (use -source 14 or higher to enable switch expressions)\n"
        "[INFO] BUILD FAILURE\n"
    )
    analysis = analyze_text(log)
    root = analysis.errors[0]
    assert (root.category, analysis.category) == ("configuration", "configuration"), analysis.errors
    locate_in_project(analysis.errors, WorkspaceFiles(tmp_path))
    assert (root.file, root.line) == ("pom.xml", 3)
    # The plain code error stays where it is.
    assert analysis.errors[1].message == "'.class' expected" and analysis.errors[1].line == 91


def test_a_pnpm_lockfile_out_of_step_names_the_dependency_to_look_at(tmp_path: Path) -> None:
    from buildfixer.logs.analyze import analyze_text

    dev = '  "devDependencies": {\n    "jest": "29.7.0",\n    "ts-jest": "29.99.0"\n  }\n'
    manifest = '{\n  "name": "ms",\n' + dev + "}\n"
    (tmp_path / "package.json").write_text(manifest)
    log = (
        "$ pnpm install --frozen-lockfile\n"
        ' ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml '
        "is not up to date with <ROOT>/package.json\n\n"
        "Note that in CI environments this setting is true by default.\n\n"
        "  Failure reason:\n  specifiers in the lockfile don't match specifiers in package.json:\n"
        "* 1 dependencies are mismatched:\n  - ts-jest (lockfile: 29.4.0, manifest: 29.99.0)\n\n"
    )
    analysis = analyze_text(log)
    root = analysis.errors[0]
    assert root.category == "library_unavailable" and root.tool == "pnpm", analysis.errors
    assert "- ts-jest (lockfile: 29.4.0, manifest: 29.99.0)" in root.message
    locate_in_project(analysis.errors, WorkspaceFiles(tmp_path))
    assert (root.file, root.line) == ("package.json", 5)
