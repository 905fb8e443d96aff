"""Errors of the Java compiler, as javac, Gradle and Maven print them.

Three shapes:

* javac itself (and Gradle, which passes its output through)::

      /src/demo/App.java:12: error: cannot find symbol
              foo(bar);
                  ^
        symbol:   variable bar
        location: class App

  Gradle 4 prints the task name and the first diagnostic on one line
  (`:compileJava/src/demo/App.java:12: error: ...`), so the header is searched,
  not matched at the line start.
* Maven's compiler plugin: `[ERROR] /src/demo/App.java:[12,5] cannot find symbol`,
  with the detail lines either bare or prefixed by `[ERROR]`. Maven prints the
  list twice (in "COMPILATION ERROR" and again after "Failed to execute goal");
  both copies are reported and `rank` merges them.
* Errors without a file (`error: release version 21 not supported`), which say the
  compiler was configured wrongly rather than the code being wrong.

javac speaks the build machine's language (`App.java:12: 错误: 找不到符号`, `Fehler:`, `エラー:`),
so the severity is read structurally: the word between the line number and the message is an
error unless it is a warning or note word of some locale.

Warnings and notes are ignored. `package x does not exist` names a missing dependency, unless
the package has the same root as the package of the file that imports it (`com.acme.util` in
`src/main/java/com/acme/web/`, a sibling module's `acme.model` in `acme/dao/`): then the code
names a package of the project's own that is not there, a code error. This module owns compiler
diagnostics; maven.py reports Maven's own messages and leaves these lines alone.
"""

from __future__ import annotations

import re

from buildfixer.core.build_result import BuildError
from buildfixer.logs.parsers import ENOUGH, Parser
from buildfixer.logs.taxonomy import classify

# `path.java:12: error: message`, the severity in any language (group 3); the path may be
# Windows-style (`C:\x\A.java`), and then may hold blanks and parentheses (`C:\Program Files
# (x86)\app\A.java`): from the drive letter, everything up to the colon of the position.
# Searched: the match starts at a drive letter or where a run of non-blank, non-colon characters
# starts, the only places a leftmost match can start; tried everywhere, each start would rescan
# the run (quadratic on a long line without blanks). A drive path cannot cross a colon, so each
# drive letter's scan ends at the next colon: linear too.
_WINDOWS_PATH = r"[A-Za-z]:[\\/][^:]*?"
_JAVAC_HEADER = re.compile(
    r"(?:(?<![^\s:])|(?=[A-Za-z]:))((?:" + _WINDOWS_PATH + r"|(?:[A-Za-z]:)?[^\s:]*)\.java)"
    r":(\d+): ([^\W\d_]{1,24}): (.*)$"
)
# Severity words that are not errors, in the languages javac and its translations print: English,
# Chinese, Japanese, German, French, Spanish, Portuguese, Italian, Russian, Korean, Polish,
# Turkish, Swedish, Dutch, Czech. Compared case-folded.
NOT_ERROR_WORDS = frozenset(
    word.casefold()
    for word in (
        "warning", "note", "警告", "注", "注意", "注释", "Warnung", "Hinweis", "avertissement",
        "remarque", "advertencia", "aviso", "nota", "advertência", "avvertenza", "attenzione",
        "предупреждение", "примечание", "замечание", "경고", "참고", "주의", "ostrzeżenie", "uwaga",
        "uyarı", "not", "varning", "waarschuwing", "opmerking", "varování", "poznámka",
    )
)  # fmt: skip
# The error words, stripped where a message repeats its severity (Maven's old compiler plugin).
_ERROR_WORD = re.compile(
    r"^(?:error|错误|錯誤|エラー|Fehler|erreur|erro|errore|ошибка|오류|błąd|hata|fel|fout|chyba): "
)
# Folders below which a source tree's package folders start, and top-level names that are domains
# (`com`, `org`, `io`, `de` ... have at most three letters).
_SOURCE_FOLDERS = frozenset({"java", "kotlin", "groovy", "scala", "src"})
_DOMAINS = frozenset({"info", "mobi", "name"})
# A missing package, as javac words it in English, Chinese, Japanese and German.
_MISSING_PACKAGE = re.compile(
    r"^(?:package ([\w.]+) does not exist|程序包\s*([\w.]+)\s*不存在|パッケージ([\w.]+)は存在しません"
    r"|Package ([\w.]+) (?:ist nicht vorhanden|existiert nicht))"
)
# `[ERROR] path.java:[12,5] message` (Maven); the column is optional in old plugins.
_MAVEN_HEADER = re.compile(
    r"^\[ERROR\] ((?:" + _WINDOWS_PATH + r"|(?:[A-Za-z]:)?\S*?)\.java):\[(\d+)(?:,(\d+))?\] (.*)$"
)
# Gradle 4 glues the task path to the first diagnostic: `:app:compileJava/abs/A.java:3: error:`.
_TASK_PREFIX = re.compile(r"^(?::[\w.-]+)+(?=/|[A-Za-z]:\\)")
# Compiler errors about the compiler's own setup, which carry no file.
_GLOBAL_ERROR = re.compile(
    r"^(?:\[ERROR\] )?(?:Fatal error compiling: )?(?:error|javac): "
    r"((?:invalid (?:source|target) release|release version|invalid flag|Source option|Target option"
    r"|option --release|file not found|warnings found and -Werror|cannot access|"
    r"package [\w.]+ does not exist|Could not find class file).*)$"
)
_CARET = re.compile(r"^\s*\^\s*$")
# Detail lines javac adds below the caret (`symbol: variable x`, `符号: 变量 x`); those worth
# carrying in the message. One word and a colon, in any language; two letters at least, since
# `D:` starts a Windows path (Maven's next `[ERROR] D:\x\A.java:[3,1] ...`), not a detail.
_DETAIL = re.compile(r"^(?:\[ERROR\])?\s+([^\W\d_]{2,16}\s*:.*)$")
# What `cannot access X` says below it: a class file of the wrong version means the JDK and the
# compiler's setup disagree (configuration), which the header alone does not tell.
_CLASS_FILE_DETAIL = re.compile(
    r"^(?:\[ERROR\])?\s+((?:bad class file|class file (?:has wrong version|for )).*)$"
)

_MAX_DETAILS = 3
_SPECIFICITY_LOCATED = 10
_SPECIFICITY_GLOBAL = 8
# A language feature above the Java level the build compiles for (`switch expressions are not
# supported in -source 8`): the level is the cause, and the parse errors around it (`'.class'
# expected` where a record starts) are its consequences, so this one ranks first.
LEVEL_TOO_LOW = re.compile(r"not supported in -(?:source|release) (?:1\.)?(\d+)")
_SPECIFICITY_LEVEL = _SPECIFICITY_LOCATED + 1


def _details(lines: list[str], start: int) -> tuple[list[str], int | None]:
    """Read the caret and the detail lines that follow an error header.

    Args:
        lines: the cleaned log.
        start: index of the line after the header.

    Returns:
        The detail strings (`symbol: variable x`, ...) and the 1-based column of
        the caret, if a caret line was found.
    """
    column = None
    details: list[str] = []
    end = min(len(lines), start + 3)
    i = start
    # The source line comes first and the caret below it; look a few lines ahead
    # only, since a missing caret (trimmed logs) must not swallow later errors.
    for j in range(start, end):
        if _CARET.match(lines[j]):
            source = lines[j - 1] if j > start else ""
            caret_at = lines[j].index("^")
            # Tabs in the source line are echoed as-is; count columns on the source line.
            column = caret_at + 1 if caret_at <= len(source) else None
            i = j + 1
            break
    while i < len(lines) and len(details) < _MAX_DETAILS + 2:
        match = _DETAIL.match(lines[i]) or _CLASS_FILE_DETAIL.match(lines[i])
        if not match:
            break
        detail = match.group(1)
        glued = _JAVAC_HEADER.search(detail)  # a paste that lost the line break before the next error
        details.append(" ".join(detail[: glued.start()].split() if glued else detail.split()))
        i += 1
    return details[:_MAX_DETAILS], column


def _with_details(message: str, details: list[str]) -> str:
    return f"{message.strip()} ({'; '.join(details)})" if details else message.strip()


def _own_package(package: str, file: str) -> bool:
    """True when a package has the same root as the package of the file importing it.

    The root is the first name (`iflyer` of `iflyer.model`), or the first two when the first is a
    domain (`com.acme` of `com.acme.shop`); the file's package is read from its folders below the
    source folder (`src/main/java/`).
    """
    folders = file.replace("\\", "/").split("/")[:-1]
    for n in range(len(folders) - 1, -1, -1):
        if folders[n] in _SOURCE_FOLDERS:
            folders = folders[n + 1 :]
            break
    names = package.split(".")
    root = names[:2] if len(names[0]) <= 3 or names[0] in _DOMAINS else names[:1]
    return folders[: len(root)] == root


def _category(message: str, file: str, tool: str) -> str:
    """The taxonomy's category; a missing package of the project's own is a code error."""
    missing = _MISSING_PACKAGE.match(message)
    if missing:
        package = next(name for name in missing.groups() if name)
        return "syntax" if _own_package(package, file) else "library_unavailable"
    return classify(message, tool)


def _located(message: str, file: str, line: int, column: int | None, index: int, tool: str) -> BuildError:
    return BuildError(
        message=message,
        category=_category(message, file, tool),
        tool=tool,
        file=file,
        line=line,
        column=column,
        log_line=index,
        specificity=_SPECIFICITY_LEVEL if LEVEL_TOO_LOW.search(message) else _SPECIFICITY_LOCATED,
    )


def parse(lines: list[str]) -> list[BuildError]:
    """Find javac errors in cleaned log lines.

    Args:
        lines: the cleaned log.

    Returns:
        One BuildError per compiler error occurrence, tool "javac".
    """
    errors: list[BuildError] = []
    tool = "javac"  # javadoc reports in the same format: the running task tells them apart
    for index, line in enumerate(lines):
        if len(errors) >= ENOUGH:
            break
        if line.startswith(("> Task :", ":", "[INFO] --- ")):
            tool = "javadoc" if "javadoc" in line[:80].lower() else "javac"
        # Cheap substring guards first: a 10 MB log has ~150k lines to skip.
        if ".java:" in line:
            if ": " in line and not line.startswith("[ERROR] "):
                text = _TASK_PREFIX.sub("", line) if line.startswith(":") else line
                match = _JAVAC_HEADER.search(text)
                if match and match.group(3).casefold() not in NOT_ERROR_WORDS:
                    details, column = _details(lines, index + 1)
                    message = _with_details(match.group(4), details)
                    errors.append(_located(message, match.group(1), int(match.group(2)), column, index, tool))
                    continue
            if line.startswith("[ERROR] "):
                match = _MAVEN_HEADER.match(line)
                if match:
                    details, _ = _details(lines, index + 1)
                    message = _with_details(_ERROR_WORD.sub("", match.group(4)), details)
                    column = int(match.group(3)) if match.group(3) else None
                    errors.append(_located(message, match.group(1), int(match.group(2)), column, index, tool))
                    continue
        if "error: " in line or "javac: " in line:
            match = _GLOBAL_ERROR.match(line.strip())
            if match:
                message = match.group(1).removesuffix(" -> [Help 1]").strip()
                errors.append(
                    BuildError(
                        message=message,
                        category=classify(message, "javac"),
                        tool="javac",
                        log_line=index,
                        specificity=_SPECIFICITY_GLOBAL,
                    )
                )
    return errors


PARSER = Parser(name="javac", triggers=(".java:", "error: ", "javac: "), parse=parse)
