"""History of the Maven fixture repository `wordstats` (see `history_format` for the format)."""

from __future__ import annotations

from buildfixer.bench.data.history_format import (
    Branch,
    FixtureCommit,
    Import,
    InstanceSpec,
    Move,
    Patch,
    Replace,
    RepoSpec,
    Write,
    revert_commit,
)

_WC = "src/main/java/com/example/wordstats/WordCounter.java"
_REPORT = "src/main/java/com/example/wordstats/Report.java"
_WC_TEST = "src/test/java/com/example/wordstats/WordCounterTest.java"

WORDSTATS = RepoSpec(
    name="wordstats",
    build_system="maven",
    start="2024-03-04T09:12:00+00:00",
    main=(
        FixtureCommit("Initial import: word counter and plain-text report", "ada", (Import("maven-app"),)),
        FixtureCommit(
            "WordCounter.top: skip words seen fewer than minCount times",
            "bo",
            (Patch("maven-app", "missing-parameter"),),
            "top-min-count",
        ),
        FixtureCommit(
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
        FixtureCommit(
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
        FixtureCommit(
            "Compile for Java 21",
            "bo",
            (Replace("pom.xml", "<maven.compiler.release>17<", "<maven.compiler.release>21<"),),
            "java-21",
        ),
        FixtureCommit(
            "Back to Java 17: the CI image ships JDK 17 only",
            "ada",
            (Replace("pom.xml", "<maven.compiler.release>21<", "<maven.compiler.release>17<"),),
            "java-21-fix",
        ),
        FixtureCommit(
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
                FixtureCommit(
                    "Bump commons-lang3 from 3.12.0 to 3.12.9",
                    "deps",
                    (Replace("pom.xml", "<version>3.12.0</version>", "<version>3.12.9</version>"),),
                    "lang3-missing-version",
                ),
                revert_commit(
                    'Revert "Bump commons-lang3 from 3.12.0 to 3.12.9"', "lang3-missing-version-fix"
                ),
            ),
        ),
        Branch(
            "deps/drop-commons-lang3",
            (
                FixtureCommit(
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
                revert_commit('Revert "Drop the commons-lang3 dependency"', "lang3-removed-fix"),
            ),
        ),
        Branch(
            "llm/rename-distinct-words",
            (
                FixtureCommit(
                    "Rename WordCounter.distinctWords to uniqueWordCount",
                    "llm",
                    (Replace(_WC, "public int distinctWords()", "public int uniqueWordCount()"),),
                    "rename-distinct-words",
                ),
                revert_commit("Revert the distinctWords rename", "rename-distinct-words-fix", "llm"),
            ),
        ),
        Branch(
            "llm/rename-build-properties",
            (
                FixtureCommit(
                    "Rename build.properties to report-settings.properties",
                    "llm",
                    (Move("build.properties", "report-settings.properties"),),
                    "rename-build-properties",
                ),
                revert_commit("Revert the build.properties rename", "rename-build-properties-fix", "llm"),
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
