"""buildfixer's own host side never follows what sandboxed code (or the model) wrote into a workspace.

Builds and the model write the workspace; buildfixer reads and writes there too, as root and
outside the sandbox: the condensed error view, `upgrade_gradle`, the dependency tools, the judge,
the edit ledger, the recipes. Each test plants, for each entry point, links to a canary file
outside the workspace holding a secret, three ways: an absolute symlink, a relative one, and a
symlinked parent directory. The secret must never appear in what the entry point returns (the
view, a tool's output or error, a verdict, a planned repair) nor in any file it writes, and the
canary must be byte-identical afterwards.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from buildfixer.agents.recipes.diagnose import diagnose
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildResult
from buildfixer.deps import manage as deps
from buildfixer.judge.judge import judge_patch
from buildfixer.tools.base import Tool, ToolError
from buildfixer.tools.build_support import condensed_view
from buildfixer.tools.build_tools import build_tools
from buildfixer.tools.dependency import dependency_tools
from buildfixer.workspace.ledger import EditLedger, small_ignored_files
from support.git import Repo
from support.projects import stats_project
from support.tools import tool_context, tools_by_name

SECRET = "TOP-SECRET-VALUE-4711"
KINDS = ("absolute", "relative", "parent")
pytestmark = pytest.mark.usefixtures("private_home")  # the user's ~/.m2 and ~/.gradle stay out of sight


@dataclass
class Canary:
    """A file outside the workspace and its bytes as planted."""

    path: Path
    data: bytes

    def intact(self) -> bool:
        return self.path.is_file() and not self.path.is_symlink() and self.path.read_bytes() == self.data


PLANTED: list[Canary] = []  # the canaries of the current case (see run_attacks)


def plant(root: Path, rel: str, kind: str, outside: Path, text: str) -> Canary:
    """Make `root/rel` lead to a canary outside holding `text`, by `kind` of link.

    absolute / relative: `rel` itself is a symlink (absolute or relative target). parent: the
    directory holding `rel` is a symlink to an outside directory that has a file of that name.
    """
    link = root / rel
    if kind == "parent":
        folder = outside / f"dir-{rel.replace('/', '_')}"
        folder.mkdir(parents=True)
        canary = folder / link.name
        canary.write_text(text)
        link.parent.parent.mkdir(parents=True, exist_ok=True)
        link.parent.symlink_to(folder, target_is_directory=True)
    else:
        canary = outside / f"{kind}-{rel.replace('/', '_')}"
        canary.write_text(text)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(canary if kind == "absolute" else os.path.relpath(canary, link.parent))
    assert SECRET in (root / rel).read_text()  # the link works: a naive reader would get the secret
    PLANTED.append(Canary(canary, canary.read_bytes()))
    return PLANTED[-1]


def secret_in_files(root: Path) -> list[str]:
    """Regular files under root (links not followed) that hold the secret."""
    found = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(directory, name)
            if not path.is_symlink() and SECRET.encode() in path.read_bytes():
                found.append(str(path.relative_to(root)))
    return found


def call(tool: Tool, arguments: dict[str, object]) -> str:
    """A tool's output, or its error message (what the model would see either way)."""
    try:
        return tool.call(arguments)
    except ToolError as exc:
        return f"ToolError: {exc}"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    return path


def run_attacks(
    tmp_path: Path, outside: Path, cases: list[tuple[str, str]], attack: Callable[[Path, str, str], str]
) -> None:
    """Run `attack(root, kind, rel)` in a fresh workspace per case; check its result, files and canary.

    `cases` are (kind, path of the planted link); the attack plants it (with `plant`) and returns
    what the entry point produced. All cases run before any assertion, so a failure lists them all.
    """
    broken = []
    for number, (kind, rel) in enumerate(cases):
        root = tmp_path / f"ws{number}"
        root.mkdir()
        PLANTED.clear()
        produced = attack(root, kind, rel)
        assert PLANTED, "the attack planted no canary"
        changed = [str(canary.path) for canary in PLANTED if not canary.intact()]
        leaked = secret_in_files(root)
        if SECRET in produced or leaked or changed:
            broken.append(f"{kind} {rel}: output leaks={SECRET in produced} files={leaked} changed={changed}")
    assert not broken, "\n".join(broken)


# --- the condensed error view (validate_and_build, run_build with build_output="condensed") -------

JAVAC_LOG = """> Task :app:compileJava FAILED
/ci/build/repo/src/main/java/demo/App.java:3: error: cannot find symbol
        System.out.println(s.lenght());
                            ^
FAILURE: Build failed with an exception.
BUILD FAILED in 2s
"""
MISSING_LOG = """> Task :compileJava FAILED
FAILURE: Build failed with an exception.
* What went wrong:
Could not resolve all files for configuration ':compileClasspath'.
   > Could not find com.example:lib:1.0.
BUILD FAILED in 2s
"""
SOURCE = f'package demo;\n// {SECRET}\nclass App {{ String s = "{SECRET}"; }}\n// {SECRET}\n'
GRADLE_WITH_SECRET = (
    f"// {SECRET}\ndependencies {{\n    implementation 'com.example:lib:1.0' // {SECRET}\n}}\n"
)


def failed_build(tmp_path: Path, log: str) -> BuildResult:
    path = tmp_path / f"build-{len(list(tmp_path.glob('build-*.log')))}.log"
    path.write_text(log)
    return BuildResult("failure", 1, 2.0, "gradle", ["gradle", "build"], 17, str(path))


def test_condensed_view_never_shows_source_lines_through_links(tmp_path: Path, outside: Path) -> None:
    # The control: a regular file's lines are shown (the view does read sources).
    control = tmp_path / "control"
    (control / "src/main/java/demo").mkdir(parents=True)
    (control / "src/main/java/demo/App.java").write_text("package demo;\nclass App {\n  int shown;\n}\n")
    assert ">> 3 |   int shown;" in condensed_view(failed_build(tmp_path, JAVAC_LOG), control)

    def attack(root: Path, kind: str, rel: str) -> str:
        text = SOURCE if rel.endswith(".java") else GRADLE_WITH_SECRET
        plant(root, rel, kind, outside, text)
        if rel == "app/build.gradle":
            (root / "settings.gradle").write_text("include 'app'\n")
        view = condensed_view(
            failed_build(tmp_path, JAVAC_LOG if rel.endswith(".java") else MISSING_LOG), root
        )
        assert view.startswith("BUILD FAILED") and "Root error" in view
        return view

    cases = [(kind, "src/main/java/demo/App.java") for kind in KINDS]
    cases += [("absolute", "build.gradle"), ("relative", "build.gradle"), ("parent", "app/build.gradle")]
    run_attacks(tmp_path, outside, cases, attack)


# --- upgrade_gradle ---------------------------------------------------------------------------------

WRAPPER = "gradle/wrapper/gradle-wrapper.properties"
WRAPPER_TEXT = (
    f"# {SECRET}\ndistributionSha256Sum=abcd\n"
    f"distributionUrl=https\\://{SECRET}.example/gradle-4.4-bin.zip\nzipStorePath=wrapper/dists\n"
)
SCRIPT_TEXT = f"// {SECRET}\nwrapper {{\n    gradleVersion = '{SECRET}'\n}}\n"


def test_upgrade_gradle_neither_reads_nor_writes_through_links(tmp_path: Path, outside: Path) -> None:
    def attack(root: Path, kind: str, rel: str) -> str:
        plant(root, rel, kind, outside, WRAPPER_TEXT if rel == WRAPPER else SCRIPT_TEXT)
        if rel == WRAPPER:
            (root / "build.gradle").write_text("apply plugin: 'java'\n")
        tools = tools_by_name(tool_context(root, "gradle"), build_tools)
        return call(tools["upgrade_gradle"], {"version": "8.5"})

    cases = [(kind, WRAPPER) for kind in KINDS] + [("absolute", "build.gradle"), ("relative", "build.gradle")]
    run_attacks(tmp_path, outside, cases, attack)


# --- dependency_upgrade, remove_dependency, deps.apply_edits -------------------------------------------

DEPS_TEXT = (
    f"// {SECRET}\ndependencies {{\n    implementation '{SECRET}:gson:2.8.9'\n"
    "    implementation 'com.google.code.gson:gson:2.8.9'\n}\n"
)
# A bare artifact name declared under two groups: the tools answer with both full names.
POM_TEXT = f"""<project><!-- {SECRET} --><dependencies>
<dependency><groupId>{SECRET}</groupId><artifactId>gson</artifactId><version>2.8.9</version></dependency>
<dependency><groupId>com.google.code.gson</groupId><artifactId>gson</artifactId><version>2.8.9</version></dependency>
</dependencies></project>
"""


def test_dependency_tools_never_read_or_write_build_files_through_links(
    tmp_path: Path, outside: Path
) -> None:
    def attack(root: Path, kind: str, rel: str) -> str:
        maven = rel.endswith("pom.xml")
        plant(root, rel, kind, outside, POM_TEXT if maven else DEPS_TEXT)
        if "/" in rel:  # the module's directory is the link: the root has a build file of its own
            (root / "build.gradle").write_text("apply plugin: 'java'\n")
            (root / "settings.gradle").write_text("include 'app'\n")
        system = "maven" if maven else "gradle"
        context = tool_context(root, system, cache_dir=tmp_path / "cache", offline=True)
        tools = tools_by_name(context, dependency_tools)
        outputs = [
            call(tools["dependency_upgrade"], {"dependency": "gson", "version": "2.10.1"}),
            call(
                tools["dependency_upgrade"], {"dependency": "com.google.code.gson:gson", "version": "2.10.1"}
            ),
            call(tools["remove_dependency"], {"dependency": "gson"}),
            call(tools["remove_dependency"], {"dependency": "com.google.code.gson:gson"}),
        ]
        old = "gson</artifactId><version>2.8.9<" if maven else "gson:2.8.9'\n}"
        edit = deps.Edit(rel, old, old.replace("2.8.9", "2.10.1"))
        try:  # the deps package's own writer
            outputs.append(str(deps.apply_edits(root, [edit])))
        except (ToolError, ValueError) as exc:
            outputs.append(f"{type(exc).__name__}: {exc}")
        return "\n".join(outputs)

    cases = [("absolute", "build.gradle"), ("relative", "build.gradle"), ("parent", "app/build.gradle")]
    cases += [("absolute", "pom.xml"), ("relative", "pom.xml"), ("parent", "app/pom.xml")]
    run_attacks(tmp_path, outside, cases, attack)


# --- the recipes (missing-properties: a template, the keys filtered resources use) ---------------------

POM = """<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId><artifactId>app</artifactId><version>1</version>
  <build>
    <resources><resource><directory>src/main/resources</directory><filtering>true</filtering></resource></resources>
    <plugins><plugin><artifactId>properties-maven-plugin</artifactId>
      <configuration><files><file>keystore.properties</file></files></configuration>
    </plugin></plugins>
  </build>
</project>
"""
PROPS_LOG = "[ERROR] Properties could not be loaded from File: keystore.properties\n[INFO] BUILD FAILURE\n"


def test_recipes_never_copy_or_scan_files_through_links(tmp_path: Path, outside: Path) -> None:
    # The control: a regular template is what the recipe copies.
    control = tmp_path / "control"
    control.mkdir()
    (control / "pom.xml").write_text(POM)
    (control / "keystore.properties.example").write_text("store.password=changeit\n")
    log = tmp_path / "recipes.log"
    log.write_text(PROPS_LOG)
    result = BuildResult("failure", 1, 2.0, "maven", ["mvn", "package"], 17, str(log))
    options = BuildOptions(cache_dir=tmp_path / "cache", offline=True)
    repair = diagnose(control, result, options)
    assert repair is not None and repair.calls[0].arguments["content"] == "store.password=changeit\n"

    def attack(root: Path, kind: str, rel: str) -> str:
        (root / "pom.xml").write_text(POM)
        if rel.startswith("src/"):  # the resources the pom filters: their ${keys} become the file's keys
            plant(root, rel, kind, outside, f"password=${{{SECRET}}}\n")
        else:
            (root / "src/main/resources").mkdir(parents=True)
            (root / "src/main/resources/app.properties").write_text("user=${store.user}\n")
            (root / "lib").mkdir()  # the project's own value for the key the resource needs
            (root / "lib/keystore.properties").write_text("store.user=builder\n")
            plant(root, rel, kind, outside, f"store.password={SECRET}\n")
        repair = diagnose(root, result, options)
        if repair is None:  # no key read (the resource leads out): declined, nothing made up
            return "declined"
        assert repair.recipe == "missing-properties"
        return f"{repair.summary}\n{[c.arguments for c in repair.calls]}"

    cases = [("absolute", "keystore.properties.example"), ("relative", "keystore.properties.example")]
    cases += [("parent", "src/main/resources/app.properties")]
    run_attacks(tmp_path, outside, cases, attack)


# --- the edit ledger -------------------------------------------------------------------------------------


def test_ledger_never_removes_or_reads_files_through_links(tmp_path: Path, outside: Path) -> None:
    def attack(root: Path, kind: str, rel: str) -> str:
        (root / "README").write_text("base\n")
        (root / ".gitignore").write_text("*.local\n")
        Repo(root).commit("base")
        ledger = EditLedger.open(root)
        assert ledger is not None
        # What a build left behind, then swapped for a link between git's listing and the removal.
        plant(root, rel, kind, outside, f"{SECRET}\n")
        ignored = small_ignored_files(root)  # an ignored file is kept when it is small text
        ledger._restore([rel])  # undo a side effect: the path is not in the base commit
        ledger.note_edits()
        return f"{ignored}\n{ledger.patch()}"

    cases = [("absolute", "out.local"), ("relative", "out.local"), ("parent", "gen/out.local")]
    run_attacks(tmp_path, outside, cases, attack)


# --- the judge's test run (reports the patched build wrote) -----------------------------------------

STATS = "def total(values):\n    return sum(values)\n"
TESTS = "from stats import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n"
REPORT = '<testsuite><testcase classname="{}" name="t"><skipped/></testcase></testsuite>\n'
# Planted by the patch's conftest while the build runs, in the sandbox: links to the canaries.
CONFTEST = """import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORTS = os.path.join(ROOT, "target", "surefire-reports")
os.makedirs(REPORTS, exist_ok=True)
os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
LINKS = {{
    os.path.join(REPORTS, "TEST-abs.xml"): {absolute!r},
    os.path.join(REPORTS, "TEST-rel.xml"): os.path.relpath({relative!r}, REPORTS),
    os.path.join(ROOT, "build", "test-results"): {directory!r},
}}
for link, target in LINKS.items():
    if not os.path.lexists(link):
        os.symlink(target, link)
"""


@pytest.mark.slow
def test_judge_never_reads_test_reports_through_links(tmp_path: Path, outside: Path) -> None:
    project = stats_project(tmp_path / "stats", stats=STATS, test=TESTS)
    canaries = {kind: outside / f"{kind}.xml" for kind in ("absolute", "relative")}
    (outside / "dir").mkdir()
    canaries["parent"] = outside / "dir" / "TEST-x.xml"
    for kind, path in canaries.items():
        path.write_text(REPORT.format(f"{SECRET}.{kind}"))
    before = {kind: path.read_bytes() for kind, path in canaries.items()}
    conftest = CONFTEST.format(
        absolute=str(canaries["absolute"]), relative=str(canaries["relative"]), directory=str(outside / "dir")
    )
    patch = "".join(
        difflib.unified_diff([], conftest.splitlines(keepends=True), "/dev/null", "b/tests/conftest.py", n=3)
    )
    verdict = judge_patch(
        patch, project, run_tests=True, options=BuildOptions(cache_dir=Path.cwd() / ".cache" / "test")
    )
    shown = f"{verdict.findings}\n{verdict.notes}"
    assert "after: 1 ran" in shown, shown  # the patched build ran its test: the links were planted
    leaked = [kind for kind in canaries if f"{SECRET}.{kind}" in shown]
    assert not leaked, shown
    assert {kind: path.read_bytes() for kind, path in canaries.items()} == before
    assert secret_in_files(project) == []
