"""Build tools ("tool bridging"): the build, the build system's command, the JDK and Gradle versions.

Every build goes through the build layer with the context's options (timeout, warm or cold,
offline, sandbox), and every result is appended to `ctx.builds`. Made everywhere: run_build,
validate_and_build and change_java_version. On Gradle projects also run_gradle_command and
upgrade_gradle; elsewhere the build system's command tool (see build_commands). Which of them a
toolset offers is the presets' choice (change_java_version only on JVM projects).
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from buildfixer.buildsys import gradle
from buildfixer.buildsys.jdk import discover_jdks
from buildfixer.buildsys.jdk_pin import READERS, launcher_pin, pin_jdk
from buildfixer.buildsys.plan import version_from_jar_dir
from buildfixer.buildsys.project import JVM_SYSTEMS
from buildfixer.core import confined
from buildfixer.tools.base import Tool, ToolError, make_tool
from buildfixer.tools.build_commands import command_tools
from buildfixer.tools.build_support import (
    MORE_OUTPUT,
    condensed_view,
    format_build_output,
    run_tool_build,
    standard_command,
)
from buildfixer.tools.context import ToolContext

__all__ = ["build_tools", "format_build_output", "pin_choice", "set_gradle_version"]

WRAPPER_PROPERTIES = "gradle/wrapper/gradle-wrapper.properties"
# Gradle release names: 8.5, 7.6.4, 8.0-rc-1, 8.10-milestone-2.
_GRADLE_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?(?:-(?:rc|milestone)-\d+)?")
_DIST_URL_LINE = re.compile(r"^(distributionUrl\s*[=:]\s*)(.*?)\s*$", re.MULTILINE)
_DIST_FILE = re.compile(r"gradle-[^/]+?(-bin|-all)?\.zip$")
_CHECKSUM_LINE = re.compile(r"^distributionSha256Sum\s*[=:].*\n?", re.MULTILINE)
# `wrapper { gradleVersion = '4.4' }`, `task wrapper(type: Wrapper) { gradleVersion = "4.4" }`,
# `wrapper.gradleVersion = '4.4'`, `tasks.wrapper { gradleVersion = "8.5" }`.
_SCRIPT_VERSION = re.compile(r"""(gradleVersion\s*=\s*)(['"])([^'"\n]*)\2""")


def _run_build_tool(ctx: ToolContext) -> Tool:
    def run_build() -> str:
        """Run the project's standard build and return its output.

        Run it after each change to see whether the build is fixed or what fails next. The result
        starts with a status line (succeeded or failed, exit code, time, command), then {shown}.
        This project's build: {build}.
        """
        return format_build_output(ctx, run_tool_build(ctx))

    tool = make_tool(run_build, more=MORE_OUTPUT)
    if ctx.build_output == "condensed":
        shown = "a failure's errors (the root error first, at its file and line) or a success's last lines"
    else:
        shown = "the build's output; a long output keeps its beginning and end"
    build = standard_command(ctx)
    if ctx.build_system in JVM_SYSTEMS:
        build += ", on the JDK chosen with change_java_version"
    tool.description = tool.description.replace("{shown}", shown).replace("{build}", build)
    return tool


def _validate_tool(ctx: ToolContext) -> Tool:
    def validate_and_build() -> str:
        """Build the project to check the current state and report the errors it finds.

        When the build fails, returns an analysis instead of the raw log: the root error with its
        file and line, the log and source lines around it, the other errors, and the end of the
        log. A successful build returns its status line and last lines. Call it after each change.
        This project's build: {build}.
        """
        return condensed_view(run_tool_build(ctx), ctx.root)

    tool = make_tool(validate_and_build)
    tool.description = tool.description.replace("{build}", standard_command(ctx))
    return tool


def _java_tool(ctx: ToolContext) -> Tool:
    installed = sorted(set(ctx.installed_jdks or [jdk.version for jdk in discover_jdks()]))

    def change_java_version(version: int) -> str:
        """Choose the Java version (JDK) that later builds and commands use.

        Builds compile and run with the chosen JDK (JAVA_HOME and PATH point at it). Switch when
        the build needs a newer or older Java: "release version 21 not supported", "Unsupported
        class file major version 61", a plugin version that does not run on this Java. Only
        installed versions can be chosen.

        Args:
            version: Major Java version to build with, e.g. 17 or 21.
        """
        available = ", ".join(map(str, installed)) or "none"
        jdk = next((j for j in discover_jdks() if j.version == version), None)
        if version not in installed or jdk is None:
            raise ToolError(f"Java {version} is not installed; available versions: {available}")
        ctx.options.jdk = version
        message = f"Java version set to {version} (JAVA_HOME={jdk.path})"
        if ctx.build_system not in JVM_SYSTEMS:
            return message + (
                f". Note: this is a {ctx.build_system} project; the JDK only matters to JVM builds "
                "(Gradle, Maven) and to Java tools the build calls"
            )
        return message + pin_choice(ctx, version)

    tool = make_tool(change_java_version)
    if ctx.build_system == "gradle":
        tool.description += (
            " Gradle cleans once after a switch so that no task keeps a result of the old JDK; a Gradle "
            "version too old for this Java is another reason to switch."
        )
    schema = tool.parameters["properties"]["version"]
    if installed:
        schema["enum"] = installed
        schema["description"] += f" Installed here: {', '.join(map(str, installed))}."
    return tool


def pin_choice(ctx: ToolContext, version: int) -> str:
    """Pin the chosen JDK in the project (`jdk_pin.pin_jdk`), so that it is part of the repair.

    Returns what to tell the model: the file that pins it now, or why none could.
    """
    try:
        changed = pin_jdk(ctx.root, version, ctx.pins_created)
    except ToolError as exc:
        return f"; the project's JDK pin could not be written ({exc})"
    pin = launcher_pin(ctx.root)
    if not changed or pin is None:
        return ""
    return f"; pinned in {pin.file}, which later builds and the developers' {READERS[pin.file]} read"


def set_gradle_version(root: Path, version: str) -> list[str]:
    """Point the project's Gradle wrapper (or its wrapper task) at another Gradle release.

    Files are read and written through `core.confined`: a wrapper file that is a link out of the
    workspace (or through a linked directory) is neither read nor overwritten.

    Returns:
        One line per change made.

    Raises:
        ToolError: bad version, or neither wrapper properties nor a wrapper task to change.
    """
    version = version.strip().removeprefix("v")
    if not _GRADLE_VERSION.fullmatch(version):
        raise ToolError(f"{version!r} is not a Gradle version; give one like 8.5, 7.6.4 or 8.0-rc-1")
    changes: list[str] = []

    def set_url(text: str | None) -> str | None:
        return None if text is None else _set_wrapper_url(text, version, changes)

    # Absent: nothing written; a link out of the workspace: ToolError, nothing read or written.
    confined.rewrite(root, WRAPPER_PROPERTIES, set_url)
    if changes:
        return changes

    def set_task_version(name: str, text: str | None) -> str | None:
        old = _SCRIPT_VERSION.search(text or "")
        if text is None or "wrapper" not in text.lower() or old is None:
            return None  # nothing to change: nothing written
        changes.append(f"{name}: wrapper gradleVersion {old.group(3)} -> {version}")
        return _SCRIPT_VERSION.sub(lambda m: f"{m.group(1)}{m.group(2)}{version}{m.group(2)}", text)

    for name in ("build.gradle", "build.gradle.kts"):
        confined.rewrite(root, name, partial(set_task_version, name))
    if not changes:
        system = version_from_jar_dir("gradle", "gradle-launcher")
        raise ToolError(
            f"this project has no Gradle wrapper ({WRAPPER_PROPERTIES} is missing) and its build script "
            f"sets no wrapper gradleVersion: it builds with the Gradle installed on the machine "
            f"(Gradle {system} here), whose version no project file chooses. To pin a version, add "
            f"{WRAPPER_PROPERTIES} with distributionUrl=https\\://services.gradle.org/distributions/"
            f"gradle-{version}-bin.zip"
        )
    return changes


def _set_wrapper_url(text: str, version: str, changes: list[str]) -> str:
    """The wrapper properties pointing at `version`; the changes are appended to `changes`."""
    found = _DIST_URL_LINE.search(text)
    if not found:
        raise ToolError(f"{WRAPPER_PROPERTIES} has no distributionUrl line to change")
    old_url = found.group(2).replace("\\:", ":")
    base, _, file_name = old_url.rpartition("/")
    kind_match = _DIST_FILE.search(file_name)
    kind = kind_match.group(1) if kind_match and kind_match.group(1) else "-bin"
    base = base or "https://services.gradle.org/distributions"
    new_url = f"{base}/gradle-{version}{kind}.zip"
    line = f"{found.group(1)}{new_url.replace(':', chr(92) + ':')}"
    text = text[: found.start()] + line + text[found.end() :]
    changes.append(f"{WRAPPER_PROPERTIES}: distributionUrl {old_url} -> {new_url}")
    if _CHECKSUM_LINE.search(text):
        # The checksum was of the old distribution: the wrapper would refuse the new one.
        text = _CHECKSUM_LINE.sub("", text)
        changes.append(f"{WRAPPER_PROPERTIES}: removed distributionSha256Sum (it was the old version's)")
    return text


def _upgrade_tool(ctx: ToolContext) -> Tool:
    def upgrade_gradle(version: str) -> str:
        """Change the Gradle version this Gradle project builds with, and return what changed.

        Rewrites `distributionUrl` in gradle/wrapper/gradle-wrapper.properties to the given release
        (keeping the -bin or -all distribution, dropping a checksum of the old one); a project
        without wrapper files whose build script configures the wrapper task (`wrapper {
        gradleVersion = ... }`) gets that setting changed instead. Use it when the Gradle version
        is too old or too new for the JDK, the Android Gradle plugin or another plugin. Check the
        result with a build.

        Args:
            version: Gradle release to use, e.g. 8.5, 7.6.4 or 8.0-rc-1.
        """
        changes = set_gradle_version(ctx.root, version)
        result = "Changed:\n" + "\n".join(f"- {change}" for change in changes)
        homes = [ctx.options.gradle_home, Path.home() / ".gradle"]
        wrapper = confined.is_file(ctx.root, WRAPPER_PROPERTIES)
        if wrapper and gradle.wrapper_distribution(ctx.root, homes) is None:
            system = version_from_jar_dir("gradle", "gradle-launcher")
            result += (
                f"\nNote: the Gradle {version} distribution is not available on this machine (builds here "
                f"never download one), so builds here keep using the installed Gradle {system}; the "
                "change takes effect wherever the wrapper can download its distribution."
            )
        return result

    return make_tool(upgrade_gradle)


def build_tools(ctx: ToolContext) -> list[Tool]:
    """The build tools for this context's build system."""
    tools = [_run_build_tool(ctx), _validate_tool(ctx), _java_tool(ctx), *command_tools(ctx)]
    if ctx.build_system == "gradle":
        tools.append(_upgrade_tool(ctx))
    return tools
