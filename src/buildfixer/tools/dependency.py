"""Dependency tools of the second study: change a declared dependency's version, or remove it.

Both edit the build files through `buildfixer.deps.manage` (every Gradle, Maven, pip and npm
declaration form it knows, versions held in properties included). The build files are read
inside `deps.base.confined_to(workspace)`, and the planned edits are applied through `core.confined`,
like every file tool's write: inside the workspace only, no link followed out, no hard-linked
file, nothing in `.git`, each file replaced atomically.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps

from buildfixer.core import confined
from buildfixer.deps import manage as deps
from buildfixer.deps.registry import available_versions
from buildfixer.deps.versions import newest_version
from buildfixer.tools.base import Tool, ToolError, make_tool
from buildfixer.tools.build_commands import run_npm
from buildfixer.tools.context import ToolContext
from buildfixer.tools.examples import examples_for, fill

_JVM = ("gradle", "maven")


def _show(edits: list[deps.Edit]) -> str:
    """The edits as a small diff per file."""
    out: list[str] = []
    for edit in edits:
        out.append(f"--- {edit.file}")
        out += [f"-{line}" for line in edit.old_text.splitlines()]
        out += [f"+{line}" for line in edit.new_text.splitlines()]
    return "\n".join(out)


def _qualified(ctx: ToolContext, dependency: str) -> list[str]:
    """group:artifact names declared in the JVM build files whose artifact is `dependency`."""
    name = re.escape(dependency)
    groups: list[str] = []
    for path in deps.find_build_files(
        ctx.root, ("build.gradle", "build.gradle.kts", "*.versions.toml", "pom.xml")
    ):
        text = deps.read(path)
        groups += re.findall(rf"['\"]([\w.-]+):{name}(?=[:'\"@])", text)
        groups += re.findall(
            rf"<groupId>\s*([\w.-]+)\s*</groupId>\s*<artifactId>\s*{name}\s*</artifactId>", text
        )
    return list(dict.fromkeys(f"{group}:{dependency}" for group in groups))


def _find(ctx: ToolContext, dependency: str) -> list[deps.Declaration]:
    """deps.find_declaration; ToolError, not a crash, when a build file is a link out of the root."""
    try:
        return deps.find_declaration(ctx.root, dependency)
    except ValueError:  # deps could not place a build file below the root
        raise ToolError(
            "a build file of the project leads outside the workspace (a symbolic link?): "
            "the dependency tools do not read or edit it"
        ) from None


def split_spec(build_system: str, dependency: str) -> tuple[str, str | None]:
    """A dependency as the ecosystem writes it with its version: the name and the version, if any.

    `lodash@4.17.21` and `@types/node@20.1.0` (npm), `requests==2.31.0` (pip),
    `org.example:lib:1.2` (Gradle and Maven); anything else is a bare name.
    """
    spec = dependency.strip()
    if build_system == "npm" and "@" in spec[1:]:
        name, _, version = spec.rpartition("@")
        return (name, version or None) if name else (spec, None)
    if build_system == "python" and "==" in spec:
        name, _, version = spec.partition("==")
        return name.strip(), version.strip() or None
    if build_system in _JVM and spec.count(":") == 2:
        group, artifact, version = spec.split(":")
        return f"{group}:{artifact}", version or None
    return spec, None


def _declarations(ctx: ToolContext, dependency: str) -> tuple[str, list[deps.Declaration]]:
    """The dependency's full name and declarations; ToolError when undeclared or ambiguous."""
    dependency = dependency.strip()
    if not dependency:
        raise ToolError("dependency is empty: pass group:artifact (Gradle/Maven) or a package name")
    found = _find(ctx, dependency)
    if not found and ctx.build_system in _JVM and ":" not in dependency:
        names = _qualified(ctx, dependency)
        if len(names) > 1:
            raise ToolError(f"{dependency} is ambiguous: declared as {', '.join(names)}; pass one of them")
        if names:
            dependency, found = names[0], _find(ctx, names[0])
    if not found:
        form = "group:artifact (or a plugin id)" if ctx.build_system in _JVM else "the package name"
        raise ToolError(f"{dependency} is not declared in the project's build files (name it as {form})")
    return dependency, found


def _write(ctx: ToolContext, edits: list[deps.Edit]) -> None:
    """Apply planned edits file by file (each one's old text must occur exactly once)."""
    for edit in edits:

        def change(before: str | None, edit: deps.Edit = edit) -> str:
            before = before or ""
            if not edit.old_text:
                if before.strip():
                    raise ToolError(f"the build file changed under the edit: {edit.file} already exists")
                return edit.new_text
            if (count := before.count(edit.old_text)) != 1:
                raise ToolError(
                    f"the build file changed under the edit: {edit.file}: the text to replace occurs "
                    f"{count} times (expected once)"
                )
            return before.replace(edit.old_text, edit.new_text, 1)

        confined.rewrite(ctx.root, edit.file, change)


def _confined(ctx: ToolContext, tool: Callable[..., str]) -> Callable[..., str]:
    """The tool with every build file read inside `deps.base.confined_to(ctx.root)`."""

    @wraps(tool)
    def run(*args: object, **kwargs: object) -> str:
        with deps.confined_to(ctx.root):
            return tool(*args, **kwargs)

    return run


def _update_lockfile(ctx: ToolContext) -> str:
    """Bring package-lock.json in line with package.json (`npm ci` refuses a lockfile that disagrees)."""
    args = ["install", "--package-lock-only", "--ignore-scripts"]
    run, output = run_npm(ctx, args)
    if run.exit_code == 0 and not run.timed_out:
        return "\npackage-lock.json updated (npm install --package-lock-only)."
    last = "\n".join(output.strip().splitlines()[-5:])
    return f"\nNote: package-lock.json still pins the old version; updating it failed:\n{last}"


def dependency_tools(ctx: ToolContext) -> list[Tool]:
    """`dependency_upgrade` and `remove_dependency` bound to a workspace."""

    def dependency_upgrade(dependency: str, version: str | None = None) -> str:
        """Set a declared dependency to another version and return what changed.

        Edits every declaration of it in the build files ({manifests}). Without a version, the
        newest published release is used (from the local caches and, when online, {registries}).

        Args:
            dependency: {dependency}.
            version: The version to ask for, e.g. {version}; omitted: the newest release.
        """
        dependency, attached = split_spec(ctx.build_system, dependency)
        if attached and version and attached != version.strip():
            raise ToolError(f"two versions given: {attached} in dependency and {version} in version")
        version = version or attached
        name, found = _declarations(ctx, dependency)
        if version is None:
            registry_name = name
            if ctx.build_system in _JVM and ":" not in name:  # a Gradle plugin, through its marker
                registry_name = f"{name}:{name}.gradle.plugin"
            system = ctx.build_system if ctx.build_system in (*_JVM, "python", "npm") else found[0].kind
            repos = deps.declared_repositories(ctx.root) if system in _JVM else []
            known = available_versions(system, registry_name, ctx.options, repos)
            version = newest_version(known, python=system == "python")
            if version is None:
                raise ToolError(f"no published versions of {name} are known here (offline?); pass a version")
        version = version.strip()
        if not re.fullmatch(r"[\w.+!~^*<>=-]+", version):
            raise ToolError(f"not a version: {version!r}")
        edits = deps.set_version(ctx.root, name, version)
        if not edits:
            current = ", ".join(sorted({f"{d.file}: {d.version or 'no version'}" for d in found}))
            return f"{name} already asks for {version}, or no build file writes its version ({current})"
        _write(ctx, edits)
        before = ", ".join(sorted({d.version or "unversioned" for d in found}))
        note = ""
        lockfile = confined.is_file(ctx.root, "package-lock.json")
        if lockfile and any(e.file.endswith("package.json") for e in edits):
            note = _update_lockfile(ctx)
        return f"{name}: {before} -> {version}\n{_show(edits)}{note}"

    def remove_dependency(dependency: str) -> str:
        """Remove a declared dependency from the build files and return what changed.

        Deletes each declaration ({declaration}). Code that still uses the dependency will then
        fail to build.

        Args:
            dependency: {dependency}.
        """
        name, found = _declarations(ctx, split_spec(ctx.build_system, dependency)[0])
        edits = deps.remove_dependency(ctx.root, name)
        if not edits:
            where = "; ".join(f"{d.file}: {d.text.splitlines()[0]}" for d in found)
            raise ToolError(
                f"{name} is declared in a form this tool cannot remove ({where}); edit it with replace"
            )
        _write(ctx, edits)
        return f"removed {name}\n{_show(edits)}"

    examples = examples_for(ctx.build_system)
    tools = [make_tool(_confined(ctx, dependency_upgrade)), make_tool(_confined(ctx, remove_dependency))]
    return [fill(tool, examples) for tool in tools]
