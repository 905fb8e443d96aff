"""Generate large, realistic Gradle logs for speed tests (never committed: built on the fly)."""

HOOK = (
    "java.lang.ClassNotFoundException: org.debian.gradle.plugin.MavenResolverHook\n"
    "\tat java.base/jdk.internal.loader.BuiltinClassLoader.loadClass(BuiltinClassLoader.java:641)\n"
    "\tat java.base/java.lang.ClassLoader.loadClass(ClassLoader.java:525)\n"
)

TAIL = """> Task :module7:compileJava FAILED
/home/ci/work/big/module7/src/main/java/org/big/m7/Service.java:88: error: cannot find symbol
        return repository.findAllActive(limit);
                         ^
  symbol:   method findAllActive(int)
  location: variable repository of type Repository
1 error

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':module7:compileJava'.
> Compilation failed; see the compiler error output for details.

BUILD FAILED in 4m 12s
"""


def big_gradle_log(size: int = 10 * 1024 * 1024) -> str:
    """A Gradle log of about `size` bytes: tasks, warnings, downloads, progress, hook spam, one error."""
    chunk_lines = []
    for n in range(200):
        chunk_lines += [
            f"> Task :module{n % 40}:compileJava UP-TO-DATE",
            f"Download https://repo.maven.apache.org/maven2/org/lib{n}/lib{n}/1.{n}/lib{n}-1.{n}.jar",
            f"\x1b[1m<=====--------> 42% EXECUTING [{n}s]\x1b[m",
            "> IDLE",
            f"/home/ci/work/big/module{n % 40}/src/main/java/org/big/Util{n}.java:{n + 1}: "
            "warning: [unchecked] unchecked call",
            "        list.add(item);",
            "                ^",
            f"INFO: processed {n} files in module{n % 40}; cache hit ratio 0.{n:03d}",
        ]
        if n % 50 == 0:
            chunk_lines.append(HOOK.rstrip("\n"))
    chunk = "\n".join(chunk_lines) + "\n"
    repeats = max(1, (size - len(TAIL)) // len(chunk))
    return chunk * repeats + TAIL
