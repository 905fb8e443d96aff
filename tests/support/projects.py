"""The small projects many tests repair.

`stats_project`: Python, its `mean` floors, so `test_mean` fails. `npm_project`: npm, its build
(`node --check app.js`) fails on a stray brace.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.git import git

PYPROJECT = '[project]\nname = "stats"\nversion = "1"\n'
FLOORED = "def mean(values):\n    return sum(values) // len(values)\n"  # test_mean fails
RIGHT = "def mean(values):\n    return sum(values) / len(values)\n"
TEST = "from stats import mean\n\n\ndef test_mean():\n    assert mean([1, 2]) == 1.5\n"


def stats_project(root: Path, stats: str = FLOORED, test: str = TEST) -> Path:
    """Write the project at root (pyproject.toml, stats.py, tests/test_stats.py); returns root."""
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "stats.py").write_text(stats)
    (root / "tests" / "test_stats.py").write_text(test)
    return root


def broken(project: Path, stats: str) -> Path:
    """The stats project (a git checkout) at a new commit whose stats.py is `stats`, clean otherwise."""
    git(project, "reset", "-q", "--hard")
    git(project, "clean", "-qfdx", "-e", ".venv")
    (project / "stats.py").write_text(stats)
    git(project, "commit", "-qam", "break", "--allow-empty")
    return project


BROKEN_JS = "function total(a, b) {\n  return a + b\n}}\n"
FIXED_JS = "function total(a, b) {\n  return a + b\n}\n"


def npm_project(root: Path, app: str = BROKEN_JS) -> Path:
    """Write the project at root (package.json, app.js); returns root."""
    root.mkdir(parents=True, exist_ok=True)
    package = {"name": "demo", "version": "1.0.0", "scripts": {"build": "node --check app.js"}}
    (root / "package.json").write_text(json.dumps(package))
    (root / "app.js").write_text(app)
    return root


# A Maven project that compiles for Java 21 (a switch over a sealed interface's records): JDK 17
# cannot build it ("release version 21 not supported"), a JDK 21 or newer can. Plugins pinned to
# the bundled maven-app's versions, which the test cache already holds.
RELEASE_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>shapes</artifactId>
  <version>1.0.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>{release}</maven.compiler.release>
  </properties>
  <build>
    <plugins>
      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version></plugin>
      <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.1.2</version></plugin>
      <plugin><artifactId>maven-jar-plugin</artifactId><version>3.3.0</version></plugin>
    </plugins>
  </build>
</project>
"""
SHAPES = """package com.example.shapes;

public class Shapes {
    sealed interface Shape permits Circle, Square {}

    record Circle(double radius) implements Shape {}

    record Square(double side) implements Shape {}

    static double area(Shape shape) {
        return switch (shape) {
            case Circle c -> Math.PI * c.radius() * c.radius();
            case Square s -> s.side() * s.side();
        };
    }
}
"""


def maven_release_project(root: Path, release: int = 21) -> Path:
    """Write a Maven project compiling for Java `release` at root (pom.xml, one class); returns root."""
    source = root / "src" / "main" / "java" / "com" / "example" / "shapes"
    source.mkdir(parents=True, exist_ok=True)
    (root / "pom.xml").write_text(RELEASE_POM.format(release=release))
    (source / "Shapes.java").write_text(SHAPES)
    return root
