"""Maven and Gradle repositories with planted instances (human and dependency modes)."""

from pathlib import Path

from support.git import Repo

PLUGINS = "".join(
    f"      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-{name}-plugin</artifactId>"
    f"<version>{version}</version></plugin>\n"
    for name, version in (("clean", "3.3.1"), ("resources", "3.3.1"), ("compiler", "3.11.0"),
                          ("surefire", "3.1.2"), ("jar", "3.3.0"), ("install", "3.1.1"), ("deploy", "3.1.1"))
)  # fmt: skip
LANG3 = """    <dependency>
      <groupId>org.apache.commons</groupId>
      <artifactId>commons-lang3</artifactId>
      <version>3.12.0</version>
    </dependency>
"""
POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>greeter</artifactId>
  <version>1.0.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
%s    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.13.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
%s    </plugins>
  </build>
</project>
"""
GREETER = """package com.example;

public class Greeter {
    public String greet(String name) {
        return "Hello, " + %s + "!";
    }
}
"""
GREETER_TEST = """package com.example;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class GreeterTest {
    @Test
    public void greetsByName() {
        assertEquals("Hello, Ada!", new Greeter().greet("ada"));
    }
}
"""
MAIN = "src/main/java/com/example/Greeter.java"
TEST = "src/test/java/com/example/GreeterTest.java"
CAPITALIZED = "name.substring(0, 1).toUpperCase() + name.substring(1)"


def maven_repo(path: Path) -> dict:
    """Merged branches with a compile error and a Java level the default JDK (17) lacks (human), and a
    commit that needs its new dependency."""
    repo = Repo(path)
    repo.commit("Greeter", {"pom.xml": POM % ("", PLUGINS), MAIN: GREETER % CAPITALIZED, TEST: GREETER_TEST})
    repo.branch("shout")
    broken = repo.commit("Shout greetings", {MAIN: (GREETER % CAPITALIZED).replace(' + "!"', " + bang()")})
    bang = '    private static String bang() {\n        return "!";\n    }\n\n    public String greet'
    fixed = (GREETER % CAPITALIZED).replace(' + "!"', " + bang()").replace("    public String greet", bang)
    repo.commit("Define bang", {MAIN: fixed})
    repo.checkout("main")
    repo.merge("shout")
    repo.branch("java25")
    java25 = (POM % ("", PLUGINS)).replace("<maven.compiler.release>17<", "<maven.compiler.release>25<")
    too_new = repo.commit("Compile for Java 25", {"pom.xml": java25})
    repo.commit("Back to Java 17", {"pom.xml": POM % ("", PLUGINS)})
    repo.checkout("main")
    repo.merge("java25")
    uses_lang3 = (GREETER % "StringUtils.capitalize(name)").replace(
        "package com.example;\n", "package com.example;\n\nimport org.apache.commons.lang3.StringUtils;\n"
    )
    needs_lang3 = repo.commit(
        "Capitalize with commons-lang3", {"pom.xml": POM % (LANG3, PLUGINS), MAIN: uses_lang3}
    )
    # A release: the pom's version and the code change together, but the code needs nothing new.
    release = repo.commit("Release 1.1.0", {
        "pom.xml": (POM % (LANG3, PLUGINS)).replace("<version>1.0.0</version>", "<version>1.1.0</version>"),
        MAIN: uses_lang3.replace("public class Greeter {", "/** Greets people. */\npublic class Greeter {"),
    })  # fmt: skip
    return {
        "repo": path,
        "human": {broken: "syntax", too_new: "configuration"},
        "dependency": {needs_lang3: "library_unavailable"},
        "rejected": {release: "fails_bad"},
    }


BUILD_GRADLE = """apply plugin: 'java'

// Gradle 4.4.1 on JDK 17 would otherwise emit Java 12 class files.
sourceCompatibility = 1.8
targetCompatibility = 1.8

repositories {
    mavenCentral()
}

dependencies {
    testCompile 'junit:junit:4.13.2'
}
"""


def gradle_repo(path: Path) -> dict:
    """A merged branch whose first commit breaks a test and whose second fixes it."""
    repo = Repo(path)
    repo.commit("Greeter", {"build.gradle": BUILD_GRADLE, "settings.gradle": "rootProject.name = 'greeter'\n",
                            MAIN: GREETER % CAPITALIZED, TEST: GREETER_TEST})  # fmt: skip
    repo.branch("plain")
    broken = repo.commit("Greet as given", {MAIN: GREETER % "name"})
    repo.commit("Capitalize again", {MAIN: GREETER % CAPITALIZED})
    repo.checkout("main")
    repo.merge("plain")
    return {"repo": path, "human": {broken: "test_failure"}}
