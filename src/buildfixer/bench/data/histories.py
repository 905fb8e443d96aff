"""Histories of the fixture repositories of the bundled benchmark, commit by commit.

Each repository starts from a bundled example base (`buildfixer/examples/<project>/base`) and
grows on `main` with ordinary developer commits, some of which break the build and are fixed by a
later commit (origin `human`). Branches off `main` hold synthetic breakages and their reverts:
`deps/*` change a dependency (origin `dependency`), `llm/*` apply a plausible code change such
as a rename (origin `llm`; scripted here, no model involved). `make_dataset.py` turns this into
git bundles and instances.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Import:
    """Copy an example project's base into the repository."""

    project: str


@dataclass(frozen=True)
class Replace:
    """Replace the single occurrence of `old` in a file by `new`."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Write:
    """Create or overwrite a file."""

    path: str
    text: str


@dataclass(frozen=True)
class Move:
    """Rename a file."""

    path: str
    to: str


@dataclass(frozen=True)
class Patch:
    """Apply one of the bundled examples' variant patches (`examples/<project>/variants/<name>.patch`)."""

    project: str
    variant: str


@dataclass(frozen=True)
class Revert:
    """Undo the previous commit's changes."""


Edit = Import | Replace | Write | Move | Patch | Revert


@dataclass(frozen=True)
class Commit:
    """One commit: its message, author key (see `AUTHORS`), edits, and an optional label."""

    message: str
    author: str
    edits: tuple[Edit, ...]
    label: str | None = None


@dataclass(frozen=True)
class Branch:
    """A branch off the tip of `main`."""

    name: str
    commits: tuple[Commit, ...]


@dataclass(frozen=True)
class InstanceSpec:
    """A benchmark instance: failing commit `base` and fixing commit `fix` (labels)."""

    instance_id: str
    origin: str
    category: str
    base: str
    fix: str
    jdk: int | None = None


@dataclass(frozen=True)
class RepoSpec:
    """A fixture repository: its bundle name, build system, history and instances."""

    name: str
    build_system: str
    start: str  # ISO date of the first commit; later commits follow at fixed steps
    main: tuple[Commit, ...]
    branches: tuple[Branch, ...] = ()
    instances: tuple[InstanceSpec, ...] = field(default=())


AUTHORS: dict[str, tuple[str, str]] = {
    "ada": ("Ada Moreau", "ada.moreau@example.com"),
    "bo": ("Bo Lindqvist", "bo.lindqvist@example.com"),
    "chen": ("Chen Wei", "chen.wei@example.com"),
    "deps": ("dependency-augmenter", "augment@buildfixer.invalid"),
    "llm": ("llm-mutation", "mutation@buildfixer.invalid"),
}


def _revert(message: str, label: str, author: str = "deps") -> Commit:
    return Commit(message, author, (Revert(),), label)


# --- wordstats: Maven (examples/maven-app) -----------------------------------------------------

_WC = "src/main/java/com/example/wordstats/WordCounter.java"
_REPORT = "src/main/java/com/example/wordstats/Report.java"
_WC_TEST = "src/test/java/com/example/wordstats/WordCounterTest.java"

WORDSTATS = RepoSpec(
    name="wordstats",
    build_system="maven",
    start="2024-03-04T09:12:00+00:00",
    main=(
        Commit("Initial import: word counter and plain-text report", "ada", (Import("maven-app"),)),
        Commit(
            "WordCounter.top: skip words seen fewer than minCount times",
            "bo",
            (Patch("maven-app", "missing-parameter"),),
            "top-min-count",
        ),
        Commit(
            "Report: pass the minimum count from the report settings to top()",
            "ada",
            (
                Replace(_REPORT, "counter.top(topCount())", "counter.top(topCount(), minCount())"),
                Replace(
                    _REPORT,
                    "    public String render(",
                    "    public int minCount() {\n"
                    '        return Integer.parseInt(settings.getProperty("min", "1"));\n'
                    "    }\n\n"
                    "    public String render(",
                ),
            ),
            "top-min-count-fix",
        ),
        Commit(
            "Add WordCounter.totalWords",
            "chen",
            (
                Replace(
                    _WC,
                    "    public int distinctWords() {\n        return counts.size();\n    }\n",
                    "    public int distinctWords() {\n        return counts.size();\n    }\n\n"
                    "    public int totalWords() {\n        int total = 0;\n"
                    "        for (int n : counts.values()) {\n            total += n;\n        }\n"
                    "        return total;\n    }\n",
                ),
                Replace(
                    _WC_TEST,
                    "    @Test\n    public void reportListsTopWordsFromFilteredSettings",
                    "    @Test\n    public void totalWordsCountsRepeats() {\n"
                    "        WordCounter counter = new WordCounter();\n"
                    '        counter.addText("one two two three three three");\n'
                    "        assertEquals(6, counter.totalWords());\n    }\n\n"
                    "    @Test\n    public void reportListsTopWordsFromFilteredSettings",
                ),
            ),
        ),
        Commit(
            "Compile for Java 21",
            "bo",
            (Replace("pom.xml", "<maven.compiler.release>17<", "<maven.compiler.release>21<"),),
            "java-21",
        ),
        Commit(
            "Back to Java 17: the CI image ships JDK 17 only",
            "ada",
            (Replace("pom.xml", "<maven.compiler.release>21<", "<maven.compiler.release>17<"),),
            "java-21-fix",
        ),
        Commit(
            "Add a README",
            "chen",
            (
                Write(
                    "README.md",
                    "# wordstats\n\nCounts words in a text and prints the most frequent ones.\n\n"
                    "    mvn package\n"
                    "    java -cp target/classes com.example.wordstats.Report some words here\n",
                ),
            ),
        ),
    ),
    branches=(
        Branch(
            "deps/commons-lang3-3.12.9",
            (
                Commit(
                    "Bump commons-lang3 from 3.12.0 to 3.12.9",
                    "deps",
                    (Replace("pom.xml", "<version>3.12.0</version>", "<version>3.12.9</version>"),),
                    "lang3-missing-version",
                ),
                _revert('Revert "Bump commons-lang3 from 3.12.0 to 3.12.9"', "lang3-missing-version-fix"),
            ),
        ),
        Branch(
            "deps/drop-commons-lang3",
            (
                Commit(
                    "Drop the commons-lang3 dependency",
                    "deps",
                    (
                        Replace(
                            "pom.xml",
                            "    <dependency>\n      <groupId>org.apache.commons</groupId>\n"
                            "      <artifactId>commons-lang3</artifactId>\n"
                            "      <version>3.12.0</version>\n    </dependency>\n",
                            "",
                        ),
                    ),
                    "lang3-removed",
                ),
                _revert('Revert "Drop the commons-lang3 dependency"', "lang3-removed-fix"),
            ),
        ),
        Branch(
            "llm/rename-distinct-words",
            (
                Commit(
                    "Rename WordCounter.distinctWords to uniqueWordCount",
                    "llm",
                    (Replace(_WC, "public int distinctWords()", "public int uniqueWordCount()"),),
                    "rename-distinct-words",
                ),
                _revert("Revert the distinctWords rename", "rename-distinct-words-fix", "llm"),
            ),
        ),
        Branch(
            "llm/rename-build-properties",
            (
                Commit(
                    "Rename build.properties to report-settings.properties",
                    "llm",
                    (Move("build.properties", "report-settings.properties"),),
                    "rename-build-properties",
                ),
                _revert("Revert the build.properties rename", "rename-build-properties-fix", "llm"),
            ),
        ),
    ),
    instances=(
        InstanceSpec("wordstats-top-min-count", "human", "syntax", "top-min-count", "top-min-count-fix"),
        InstanceSpec("wordstats-java-21", "human", "configuration", "java-21", "java-21-fix", jdk=17),
        InstanceSpec(
            "wordstats-lang3-missing-version",
            "dependency",
            "library_unavailable",
            "lang3-missing-version",
            "lang3-missing-version-fix",
        ),
        InstanceSpec(
            "wordstats-lang3-removed",
            "dependency",
            "library_unavailable",
            "lang3-removed",
            "lang3-removed-fix",
        ),
        InstanceSpec(
            "wordstats-rename-distinct-words",
            "llm",
            "syntax",
            "rename-distinct-words",
            "rename-distinct-words-fix",
        ),
        InstanceSpec(
            "wordstats-rename-build-properties",
            "llm",
            "resource_missing",
            "rename-build-properties",
            "rename-build-properties-fix",
        ),
    ),
)


# --- inventory: Gradle (examples/gradle-app) ---------------------------------------------------

_ITEM = "src/main/java/com/example/inventory/Item.java"
_ITEM_VALUE = "    public long totalValueCents() {\n        return quantity * priceCents;\n    }\n"

INVENTORY = RepoSpec(
    name="inventory",
    build_system="gradle",
    start="2024-04-15T08:40:00+00:00",
    main=(
        Commit("Initial import: inventory with JSON export", "chen", (Import("gradle-app"),)),
        Commit(
            "Value bulk stock (100+ units) at a 10% discount",
            "bo",
            (
                Replace(
                    _ITEM,
                    _ITEM_VALUE,
                    "    public long totalValueCents() {\n        long gross = quantity * priceCents;\n"
                    "        // Bulk stock is valued with a 10% discount.\n"
                    "        return quantity >= 100 ? gross * 9 / 10 : gross;\n    }\n",
                ),
            ),
            "bulk-discount",
        ),
        Commit(
            "Keep totalValueCents undiscounted; the bulk discount gets its own method",
            "chen",
            (
                Replace(
                    _ITEM,
                    "    public long totalValueCents() {\n        long gross = quantity * priceCents;\n"
                    "        // Bulk stock is valued with a 10% discount.\n"
                    "        return quantity >= 100 ? gross * 9 / 10 : gross;\n    }\n",
                    _ITEM_VALUE + "\n    /** Value with a 10% discount on bulk stock (100+ units). */\n"
                    "    public long discountedValueCents() {\n        long gross = totalValueCents();\n"
                    "        return quantity >= 100 ? gross * 9 / 10 : gross;\n    }\n",
                ),
            ),
            "bulk-discount-fix",
        ),
        Commit(
            "Compile with the team's JDK 8",
            "bo",
            (Patch("gradle-app", "hardcoded-path"),),
            "jdk8-fork",
        ),
        Commit(
            "Stop forking javac from a local JDK 8: sourceCompatibility already targets 1.8",
            "ada",
            (Revert(),),
            "jdk8-fork-fix",
        ),
    ),
    branches=(
        Branch(
            "llm/inventory-add-location",
            (
                Commit(
                    "Track a storage location per item in Inventory.add",
                    "llm",
                    (Patch("gradle-app", "missing-parameter"),),
                    "add-location",
                ),
                _revert("Revert the storage location parameter", "add-location-fix", "llm"),
            ),
        ),
    ),
    instances=(
        InstanceSpec(
            "inventory-bulk-discount", "human", "test_failure", "bulk-discount", "bulk-discount-fix"
        ),
        InstanceSpec("inventory-jdk8-fork", "human", "configuration", "jdk8-fork", "jdk8-fork-fix"),
        InstanceSpec("inventory-add-location", "llm", "syntax", "add-location", "add-location-fix"),
    ),
)
