"""Recipe 5, "undeclared dependency": code imports what no declaration provides -> declare it.

See `buildfixer.agents.recipes.diagnose` for the policy. The work is per build system:
`undeclared_jvm` (Gradle, Maven), `undeclared_python`, `undeclared_npm`; each finds what the
failure says is missing, the artifact a local cache has for it, and plans its declaration.
"""

from __future__ import annotations

from buildfixer.agents.recipes.base import JVM, Evidence, Repair
from buildfixer.agents.recipes.undeclared_jvm import jvm_dependency
from buildfixer.agents.recipes.undeclared_npm import npm_dependency
from buildfixer.agents.recipes.undeclared_python import python_dependency


def undeclared_dependency(ev: Evidence) -> Repair | None:
    """Recipe 5: code imports what no declaration provides, and a local cache has it -> declare it."""
    if ev.system in JVM:
        return jvm_dependency(ev)
    if ev.system == "python":
        return python_dependency(ev)
    if ev.system == "npm":
        return npm_dependency(ev)
    return None
