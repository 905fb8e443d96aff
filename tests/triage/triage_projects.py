"""Small projects that fail in each of triage's ways, built for real (npm, Maven, Python).

npm projects without dependencies build in about a second, so most classes are shown on them;
the out-of-memory one is a JUnit test under Maven, the way a JVM runs out of heap.
"""

from __future__ import annotations

import json
from pathlib import Path

# A node:test test that fails on its first run and passes after: it leaves a mark in the project
# (the workspace triage builds again, unchanged).
FLAPPING_TEST = """const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

test('passes the second time', () => {
  const mark = path.join(__dirname, '.ran-once');
  const first = !fs.existsSync(mark);
  fs.writeFileSync(mark, 'ran');
  assert.strictEqual(first, false, 'the first run fails');
});
"""
# Writes 8 MiB to /tmp: the sandbox's /tmp, bounded with BUILDFIXER_SANDBOX_TMP_SIZE, fills up.
SCRATCH_TEST = """const test = require('node:test');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

test('writes a large scratch file', () => {
  fs.writeFileSync(path.join(os.tmpdir(), 'scratch.bin'), Buffer.alloc(8 * 1024 * 1024));
});
"""
# Keeps 4 GiB outside node's heap: the sandbox's memory, bounded with BUILDFIXER_SANDBOX_MEMORY, runs out.
HUNGRY_TEST = """const test = require('node:test');

test('keeps every image in memory', () => {
  const kept = [];
  for (let i = 0; i < 4096; i++) kept.push(Buffer.alloc(1024 * 1024, 1));
});
"""
GOOD_JS = "function total(a, b) {\n  return a + b;\n}\nmodule.exports = { total };\n"
BROKEN_JS = "function total(a, b) {\n  return a + b;\n}}\nmodule.exports = { total };\n"


def npm_project(root: Path, files: dict[str, str], **package: object) -> Path:
    """An npm project at root: package.json (name, version and `package`) and `files`."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": root.name, "version": "1.0.0", **package}))
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def flapping(root: Path) -> Path:
    return npm_project(root, {"flap.test.js": FLAPPING_TEST}, scripts={"test": "node --test"})


def refused_registry(root: Path) -> Path:
    """Its registry (`.npmrc`) is a closed port on loopback: every fetch is refused, at once."""
    npmrc = "registry=http://127.0.0.1:9/\nfetch-retries=0\n"
    return npm_project(root, {".npmrc": npmrc}, dependencies={"left-pad": "1.3.0"})


def scratch_writer(root: Path) -> Path:
    return npm_project(root, {"scratch.test.js": SCRATCH_TEST}, scripts={"test": "node --test"})


def hungry(root: Path) -> Path:
    return npm_project(root, {"cache.test.js": HUNGRY_TEST}, scripts={"test": "node --test"})


def checked(root: Path, app: str) -> Path:
    """Its build checks app.js's syntax (`node --check`): BROKEN_JS fails it, GOOD_JS passes."""
    return npm_project(root, {"app.js": app}, scripts={"build": "node --check app.js"})


# A JUnit 4 test whose forked JVM gets 16 MiB of heap and needs 64 MiB: OutOfMemoryError. Plugins
# pinned to the bundled maven-app's versions, which the test cache already holds.
THUMBS_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>thumbs</artifactId>
  <version>1.0.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version></plugin>
      <plugin>
        <artifactId>maven-surefire-plugin</artifactId><version>3.1.2</version>
        <configuration><argLine>-Xmx16m</argLine></configuration>
      </plugin>
      <plugin><artifactId>maven-jar-plugin</artifactId><version>3.3.0</version></plugin>
    </plugins>
  </build>
</project>
"""
THUMBS = """package demo;

public class Thumbs {
    public static byte[][] load(int count, int size) {
        byte[][] images = new byte[count][];
        for (int i = 0; i < count; i++) {
            images[i] = new byte[size];
        }
        return images;
    }
}
"""
THUMBS_TEST = """package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class ThumbsTest {
    @Test
    public void loadsEveryImage() {
        assertEquals(64, Thumbs.load(64, 1024 * 1024).length);
    }
}
"""


def thumbs(root: Path) -> Path:
    """A Maven project whose JUnit test runs out of heap."""
    files = {
        "pom.xml": THUMBS_POM,
        "src/main/java/demo/Thumbs.java": THUMBS,
        "src/test/java/demo/ThumbsTest.java": THUMBS_TEST,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root
