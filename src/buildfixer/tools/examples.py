"""Examples in tool descriptions, in the form of the project's own build system.

A small model copies a description's examples into its arguments: shown `app/src/main/**/*.kt`
on a Python project, it globs for Kotlin files there. So every example a tool description or a
parameter description gives comes from here, chosen by `ToolContext.build_system`: paths,
globs, patterns and coordinates of that ecosystem (a pip requirement, an npm `name@version`, a
Maven `group:artifact:version`). Gradle keeps the first study's examples. Keep them short: the
schemas are sent with every request.
"""

from __future__ import annotations

from dataclasses import dataclass

from buildfixer.tools.base import Tool


@dataclass(frozen=True)
class Examples:
    """The examples of one build system.

    Attributes:
        build_file: A build file to read (read_file's path).
        glob: A glob on paths (glob's pattern): the build files or the sources.
        glob_shallow: A glob on names in one directory, as the glob description explains `**/`.
        names: A file-name glob (find_files, include of the searches).
        source_glob: A path glob below a directory (include with a "/").
        regex: A search pattern (search_file_content).
        text: A literal text (find_files_with_text).
        dependency: How the dependency tools name a dependency, with an example.
        version: A version of that dependency.
        manifests: The files the dependency tools edit.
        declaration: What remove_dependency deletes.
        registries: Where the newest release is looked up.
        query: A web search query: an error message of this ecosystem.
        question: A question for the knowledge base.
        shell: A shell command (run_shell).
        sh: A shell command (run_sh).
        ignore: Names list_directory may leave out.
        skipped: The generated directories the walks skip that this ecosystem makes.
    """

    build_file: str
    glob: str
    glob_shallow: str
    names: str
    source_glob: str
    regex: str
    text: str
    dependency: str
    version: str
    manifests: str
    declaration: str
    registries: str
    query: str
    question: str
    shell: str
    sh: str
    ignore: str
    skipped: str


_GRADLE = Examples(
    build_file='"app/build.gradle"',
    glob='"**/build.gradle*" or "app/src/main/**/*.xml"',
    glob_shallow="*.gradle",
    names='"*.java", "*.{kt,kts}"',
    source_glob='"src/**/*.kt"',
    regex='"sourceCompatibility|targetCompatibility"',
    text='"com.android.tools.build:gradle"',
    dependency='"group:artifact" or a plugin id, e.g. "com.google.code.gson:gson"',
    version='"2.10.1"',
    manifests="build.gradle[.kts], version catalogs, gradle.properties; a version held in a property "
    "($gsonVersion) is changed where it is defined",
    registries="Maven Central, Google and the Gradle plugin portal",
    declaration="an `implementation '...'` line, a plugin, a catalog entry; a version property it used stays",
    query='"Could not find com.android.tools.build:gradle:7.0.0"',
    question="\"Gradle 4.4 fails with 'Could not determine java version from 17.0.2': how was this fixed?\"",
    shell='"grep -rn compileSdk --include=*.gradle ." or "./gradlew dependencies --configuration '
    'runtimeClasspath"',
    sh='"cat gradle/wrapper/gradle-wrapper.properties"',
    ignore='["*.class", ".idea"]',
    skipped=".git, .gradle, build",
)

EXAMPLES: dict[str, Examples] = {
    "gradle": _GRADLE,
    "maven": Examples(
        build_file='"pom.xml"',
        glob='"src/main/java/**/*.java"',
        glob_shallow="pom.xml",
        names='"*.java", "pom.xml"',
        source_glob='"src/main/java/**/*.java"',
        regex='"maven.compiler|<release>"',
        text='"maven-compiler-plugin"',
        dependency='"group:artifact", e.g. "org.apache.commons:commons-lang3"',
        version='"3.14.0"',
        manifests="pom.xml files; a version held in a property (${commons.version}) is changed where it is "
        "defined",
        registries="Maven Central",
        declaration="its <dependency> block; a version property it used stays",
        query='"Could not find artifact org.apache.commons:commons-lang3:jar:3.99"',
        question="\"mvn package fails with 'invalid target release: 21': how was this fixed?\"",
        shell='"grep -rn maven.compiler --include=pom.xml ." or "mvn -B dependency:tree"',
        sh='"cat pom.xml"',
        ignore='["*.class", ".idea"]',
        skipped=".git, target",
    ),
    "python": Examples(
        build_file='"pyproject.toml"',
        glob='"src/**/*.py"',
        glob_shallow="*.py",
        names='"*.py", "*.{cfg,toml}"',
        source_glob='"src/**/*.py"',
        regex='"requires-python|python_requires"',
        text='"import requests"',
        dependency='the distribution name, e.g. "requests"',
        version='"2.31.0"',
        manifests="pyproject.toml, setup.py/setup.cfg, requirements files",
        registries="PyPI",
        declaration="its requirement line or entry",
        query='"No matching distribution found for requests==9.0"',
        question="\"pip fails with 'No matching distribution found for requests==9.0': how was this fixed?\"",
        shell='"pip list" or "grep -rn requests --include=*.toml ."',
        sh='"cat pyproject.toml"',
        ignore='["*.pyc", ".tox"]',
        skipped=".git, .venv, __pycache__, build",
    ),
    "npm": Examples(
        build_file='"package.json"',
        glob='"src/**/*.ts"',
        glob_shallow="*.json",
        names='"*.ts", "*.{js,json}"',
        source_glob='"src/**/*.ts"',
        regex='"typescript|engines"',
        text='"typescript"',
        dependency='the package name, e.g. "lodash"',
        version='"4.17.21"',
        manifests="package.json, and package-lock.json after it",
        registries="the npm registry",
        declaration="its package.json entry",
        query='"No matching version found for lodash@9.0.0"',
        question="\"npm ci fails with 'ERESOLVE unable to resolve dependency tree' for react@18: how was "
        'this fixed?"',
        shell='"npm ls --depth=0" or "grep -rn typescript --include=package.json ."',
        sh='"cat package.json"',
        ignore='["dist", "coverage"]',
        skipped=".git, node_modules, build",
    ),
}


def examples_for(build_system: str) -> Examples:
    """The examples of a build system (Gradle's for one buildfixer does not know)."""
    return EXAMPLES.get(build_system, _GRADLE)


def fill(tool: Tool, examples: Examples) -> Tool:
    """The tool with `{name}` placeholders of its descriptions replaced by the examples.

    Placeholders are field names in braces (`{build_file}`); other braces, such as a glob's
    `{a,b}`, are left alone.
    """
    values = {f"{{{name}}}": value for name, value in vars(examples).items()}

    def filled(text: str) -> str:
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        return text

    tool.description = filled(tool.description)
    for schema in tool.parameters.get("properties", {}).values():
        if "description" in schema:
            schema["description"] = filled(schema["description"])
    return tool
