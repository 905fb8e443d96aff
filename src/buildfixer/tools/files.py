"""File tools: reading, editing, writing and searching files inside the workspace.

Two published agents' file tools, with their names and parameters kept: Gemini-CLI's
(read_file, replace, search_file_content, glob, list_directory) and an industrial build-fixing
agent's (write_file, find_files, find_files_with_text). The descriptions are ours.
Every path is opened through `core.confined`, relative to the workspace's descriptor and without
letting the kernel follow links, so nothing outside the workspace is read or written even while
the tree changes under the tool; files with several hard links are not read or written, `.git`
is never written, and walks skip generated directories and never enter symlinked ones.
"""

from __future__ import annotations

import os
import stat

from buildfixer.core.confined import Node, open_node, writable
from buildfixer.tools.base import DEFAULT_OUTPUT_LIMIT, Tool, ToolError, make_tool
from buildfixer.tools.context import ToolContext
from buildfixer.tools.examples import examples_for, fill
from buildfixer.tools.patterns import LineSearch, PathMatcher, glob_regex, relative_to_base
from buildfixer.tools.walk import encode, is_binary, link_entry, text_files, walk_files

READ_MAX_LINES = 2000
READ_MAX_CHARS = 60_000  # a 2000-line chunk of long lines stops earlier, with an offset to go on
MAX_LINE_CHARS = 2000
MATCH_LINE_CHARS = 300
MAX_MATCHES = 200
MAX_PATHS = 500
LIST_BUDGET = DEFAULT_OUTPUT_LIMIT - 1000  # listings stop here themselves rather than being cut


def _count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}{'es' if word.endswith('ch') else 's'}"


def _clip(line: str, limit: int) -> str:
    return line if len(line) <= limit else f"{line[:limit]} [... {len(line) - limit} more characters]"


def _listing(header: str, lines: list[str], max_items: int, what: str, hint: str, total: int = 0) -> str:
    """Header and lines, stopping at max_items or the character budget with a note of what was left.

    `total` is the number of lines there were, when only the first ones were kept in `lines`.
    """
    total = max(total, len(lines))
    out: list[str] = []
    size = len(header)
    for line in lines[:max_items]:
        if size + len(line) + 1 > LIST_BUDGET and out:
            break
        out.append(line)
        size += len(line) + 1
    if len(out) < total:
        out.append(f"[... {total - len(out)} more {what} not shown; {hint}]")
    return "\n".join([header, *out])


def _directory(ctx: ToolContext, path: str | None) -> Node:
    """The directory `path` names, opened (the caller closes it)."""
    node = open_node(ctx.root, path or ".")
    if not node.is_dir():
        node.close()
        raise ToolError(f"{node.rel} is not a directory")
    return node


def _listable(node: Node) -> int:
    """The descriptor of a directory list_directory may list; ToolError for anything else."""
    if not node.is_dir():
        raise ToolError(f"{node.rel} is not a directory; use read_file to read a file")
    return node.fd


def _read_lines(node: Node, start: int, limit: int | None) -> str:
    """The lines read_file shows of an opened text file, with notes on what is left."""
    rel = node.rel
    if start < 0 or (limit is not None and limit < 1):
        raise ToolError("offset must be 0 or more and limit 1 or more")
    wanted = limit or READ_MAX_LINES
    shown_lines: list[str] = []
    size, total, cut, full = 0, 0, False, False
    with node.text() as fh:
        for number, line in enumerate(fh):
            total = number + 1
            if number < start or full:
                continue
            text = _clip(line.rstrip("\n"), MAX_LINE_CHARS)
            if len(shown_lines) >= wanted or (shown_lines and size + len(text) + 1 > READ_MAX_CHARS):
                full = True
                continue
            cut = cut or len(text) != len(line.rstrip("\n"))
            shown_lines.append(text)
            size += len(text) + 1
    if total == 0:
        return f"[{rel} is empty]"
    if start >= total:
        raise ToolError(f"offset {start} is past the end of {rel}, which has {_plural(total, 'line')}")
    end = start + len(shown_lines)
    notes = []
    if start > 0 or end < total:
        more = f"; use offset={end} to read more" if end < total else ""
        notes.append(f"[showing lines {start + 1}-{end} of {total}{more}]")
    if cut:
        notes.append(f"[lines longer than {MAX_LINE_CHARS} characters were shortened]")
    return "\n".join(notes + shown_lines)


def _replaced(rel: str, content: str, old_string: str, new_string: str, expected_replacements: int) -> bytes:
    """The new content of a replace; ToolError when old_string does not occur as expected."""
    candidates = [(old_string, new_string)]
    if "\r\n" in content and "\n" in old_string and "\r" not in old_string:  # a CRLF file
        candidates.append((old_string.replace("\n", "\r\n"), new_string.replace("\n", "\r\n")))
    old, new = next(((o, n) for o, n in candidates if o in content), candidates[0])
    count = content.count(old)
    if count == 0:
        hint = ""
        if old_string.strip() != old_string and old_string.strip() in content:
            hint = " (the text without its leading/trailing whitespace does occur: check indentation)"
        raise ToolError(
            f"old_string was not found in {rel}{hint}. It must match the file exactly, including "
            "whitespace, indentation and line breaks; use read_file to see the current text"
        )
    if count != expected_replacements:
        raise ToolError(
            f"found {_plural(count, 'occurrence')} of old_string in {rel}, expected "
            f"{expected_replacements}. Add surrounding lines to make old_string unique, or set "
            f"expected_replacements to {count} to replace them all"
        )
    return encode(content.replace(old, new))


def file_tools(ctx: ToolContext) -> list[Tool]:
    """The file tools bound to one workspace."""

    def read_file(path: str, offset: int | None = None, limit: int | None = None) -> str:
        """Read a text file of the workspace and return its content.

        Returns up to 2000 lines (fewer when the lines are long); when more remains, the first line
        of the result says which offset reads the next chunk. Read a file before editing it, so
        that edits quote its exact current text.

        Args:
            path: File path relative to the workspace root, e.g. {build_file}.
            offset: 0-based line number to start reading from (default 0).
            limit: Maximum number of lines to return (default 2000).
        """
        with open_node(ctx.root, path) as node:
            rel = node.rel
            if node.is_dir():
                raise ToolError(f"{rel} is a directory; use list_directory to see its entries")
            if not node.is_file():
                raise ToolError(f"{rel} is not a regular file")
            node.single_link()
            if is_binary(node):
                raise ToolError(f"{rel} is a binary file; read_file only reads text files")
            return _read_lines(node, offset or 0, limit)

    def replace(file_path: str, old_string: str, new_string: str, expected_replacements: int = 1) -> str:
        """Replace exact text in a file (a literal match, not a regular expression).

        old_string must match the file exactly, including whitespace, indentation and line breaks:
        read_file first and copy the text, with a few lines of context so that it is unique. Fails
        when old_string occurs a different number of times than expected_replacements; to change
        every occurrence, set expected_replacements to their number. With an empty old_string and
        a file that does not exist yet, creates that file with new_string as its content.

        Args:
            file_path: Path of the file to edit, relative to the workspace root.
            old_string: The exact text to replace; empty only to create a new file.
            new_string: The text to put in its place.
            expected_replacements: How many occurrences to replace (default 1).
        """
        if expected_replacements < 1:
            raise ToolError("expected_replacements must be 1 or more")
        if old_string == new_string:
            raise ToolError("old_string and new_string are the same: nothing would change")
        with writable(ctx.root, file_path) as target:
            rel = target.rel
            current = target.existing()
            if current is None:
                if old_string:
                    raise ToolError(
                        f"no such file: {rel} (to create it, call replace with an empty old_string)"
                    )
                target.write(encode(new_string))
                return f"created {rel} ({_plural(_count_lines(new_string), 'line')})"
            with current:
                if not current.is_file():
                    raise ToolError(f"{rel} is not a regular file")
                if not old_string:
                    raise ToolError(
                        f"{rel} already exists; an empty old_string only creates new files. "
                        "Give the exact text to replace (read_file shows it)"
                    )
                current.single_link()
                if is_binary(current):
                    raise ToolError(f"{rel} is a binary file; replace only edits text files")
                content = current.read_bytes().decode("utf-8", "surrogateescape")
                mode = stat.S_IMODE(current.st.st_mode)
            target.write(_replaced(rel, content, old_string, new_string, expected_replacements), mode)
        return f"replaced {_plural(expected_replacements, 'occurrence')} in {rel}"

    def search_file_content(pattern: str, path: str | None = None, include: str | None = None) -> str:
        """Search the text files of the workspace for lines matching a regular expression.

        Python syntax, case-insensitive, each line matched on its own. Returns "path:LINE: text"
        lines, at most 200. Skips binary files, files over 5 MB and generated directories such as
        {skipped} (pass one as path to search inside it).

        Args:
            pattern: Regular expression to look for, e.g. {regex}.
            path: Directory (or file) to search, relative to the workspace root; default the root.
            include: Glob restricting which files are searched: on the file name ({names}) or,
                when it contains "/", on the path below path ({source_glob}).
        """
        if not pattern:
            raise ToolError("pattern is empty")
        search = LineSearch(pattern)
        lines: list[str] = []  # only the first MAX_MATCHES are kept; the others are counted
        total = files = 0
        with open_node(ctx.root, path or ".") as base:
            for name, node in text_files(ctx.root, base, include):
                found = total
                with node.text() as fh:
                    for number, line in enumerate(fh, start=1):
                        if search.search(line.rstrip("\n")):
                            total += 1
                            if len(lines) < MAX_MATCHES:
                                lines.append(f"{name}:{number}: {_clip(line.rstrip(), MATCH_LINE_CHARS)}")
                files += total > found
            where = f" in {base.rel}" + (f" (include {include})" if include else "")
        if not total:
            return f"no matches for {pattern!r}{where}"
        header = f"{_plural(total, 'match')} in {_plural(files, 'file')} for {pattern!r}{where}:"
        return _listing(header, lines, MAX_MATCHES, "matches", "narrow the pattern, path or include", total)

    def glob(pattern: str, path: str | None = None, case_sensitive: bool = False) -> str:
        """Find files whose path matches a glob pattern, newest first.

        The pattern is matched against paths relative to path: "{glob_shallow}" only matches files
        directly in it, "**/{glob_shallow}" at any depth; {a,b} and [abc] work too. Returns at most
        500 paths relative to the workspace root. Skips generated directories such as {skipped}
        (pass one as path to look inside it).

        Args:
            pattern: Glob pattern, e.g. {glob}.
            path: Directory to search from, relative to the workspace root; default the root.
            case_sensitive: Whether letter case must match (default false).
        """
        with _directory(ctx, path) as base:
            if not pattern.strip():
                raise ToolError("pattern is empty")
            if pattern.startswith(("/", "~")):
                raise ToolError("pattern must be relative to path (e.g. **/*.java), not an absolute path")
            regex = glob_regex(pattern, case_sensitive)
            hits = [
                (-found.st.st_mtime, found.rel)
                for found in walk_files(ctx.root, base)
                if regex.fullmatch(relative_to_base(found.rel, base.rel))
            ]
            where = base.rel
        if not hits:
            hint = "" if "/" in pattern else f" (use **/{pattern} to search subdirectories too)"
            return f"no files match {pattern!r} in {where}{hint}"
        lines = [name for _, name in sorted(hits)]
        header = f"{_plural(len(lines), 'file')} match {pattern!r} in {where} (newest first):"
        return _listing(header, lines, MAX_PATHS, "files", "use a narrower pattern or path")

    def list_directory(path: str, ignore: list[str] | None = None) -> str:
        """List the entries of a directory: subdirectories first (with a trailing "/"), then files.

        Symbolic links are shown as "name -> target". Nothing is skipped except what ignore excludes.

        Args:
            path: Directory path relative to the workspace root ("." for the root).
            ignore: Glob patterns of entry names to leave out, e.g. {ignore}.
        """
        skip = [glob_regex(p) for p in ignore or []]
        dirs: list[tuple[str, str]] = []
        files: list[tuple[str, str]] = []
        with open_node(ctx.root, path) as node, os.scandir(_listable(node)) as entries:
            rel = node.rel
            for entry in entries:
                if any(r.fullmatch(entry.name) for r in skip):
                    continue
                if entry.is_symlink():
                    is_dir, line = link_entry(ctx.root, rel, entry.name)
                else:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    line = entry.name + ("/" if is_dir else "")
                (dirs if is_dir else files).append((entry.name.lower(), line))
        lines = [line for _, line in sorted(dirs)] + [line for _, line in sorted(files)]
        if not lines:
            return f"{rel} is empty" + (" (after ignore)" if skip else "")
        subdirs = "1 directory" if len(dirs) == 1 else f"{len(dirs)} directories"
        header = f"{rel}: {subdirs}, {_plural(len(files), 'file')}"
        return _listing(header, lines, MAX_PATHS, "entries", "use ignore to leave some out")

    def write_file(path: str, content: str) -> str:
        """Write a whole file: creates it (and its parent directories) or replaces its content.

        content becomes the complete new file, so include every line, not only the changed ones;
        for a small change to an existing file an exact replacement of the lines is safer.

        Args:
            path: File path relative to the workspace root.
            content: The complete text of the file.
        """
        with writable(ctx.root, path) as target:
            mode = None
            if (current := target.existing()) is not None:
                with current:
                    if not current.is_file():
                        raise ToolError(f"{target.rel} is not a regular file")
                    current.single_link()
                    mode = stat.S_IMODE(current.st.st_mode)
            target.write(encode(content), mode)
        return f"wrote {_plural(_count_lines(content), 'line')} to {target.rel}"

    def find_files(pattern: str, path: str | None = None) -> str:
        """Find files by name anywhere below a directory, sorted by path.

        The pattern is a glob on file names, case-insensitive; with a "/" it is matched against the
        path below path instead. Returns paths relative to the workspace root, at most 500. Skips
        generated directories such as {skipped} (pass one as path to look inside).

        Args:
            pattern: File name glob, e.g. {names}, or path glob, e.g. {source_glob}.
            path: Directory to search, relative to the workspace root; default the root.
        """
        with _directory(ctx, path) as base:
            if not pattern.strip():
                raise ToolError("pattern is empty")
            matcher = PathMatcher(pattern, case_sensitive=False)
            lines = sorted(f.rel for f in walk_files(ctx.root, base) if matcher.matches(f.rel, base.rel))
            where = base.rel
        if not lines:
            return f"no files named {pattern!r} in {where}"
        header = f"{_plural(len(lines), 'file')} named {pattern!r} in {where}:"
        return _listing(header, lines, MAX_PATHS, "files", "use a narrower pattern or path")

    def find_files_with_text(text: str, path: str | None = None, include: str | None = None) -> str:
        """Find the files that contain a piece of text (literal and case-sensitive, not a regex).

        Returns one "path:LINE: line" per file, the first line with the text, at most 200 files.
        Skips binary files, files over 5 MB and generated directories such as {skipped}.

        Args:
            text: The exact text to look for, e.g. {text}.
            path: Directory (or file) to search, relative to the workspace root; default the root.
            include: Glob on file names ({names}) or, with a "/", on paths below path.
        """
        if not text:
            raise ToolError("text is empty")
        needle = text.replace("\r\n", "\n")
        lines: list[str] = []
        with open_node(ctx.root, path or ".") as base:
            for name, node in text_files(ctx.root, base, include):
                with node.text() as fh:
                    content = fh.read()
                at = content.find(needle)
                if at < 0:
                    continue
                line_start = content.rfind("\n", 0, at) + 1
                line_end = content.find("\n", at)
                line = content[line_start : line_end if line_end >= 0 else len(content)]
                number = content.count("\n", 0, at) + 1
                lines.append(f"{name}:{number}: {_clip(line.rstrip(), MATCH_LINE_CHARS)}")
            where = f" in {base.rel}" + (f" (include {include})" if include else "")
        if not lines:
            return f"no files contain {text!r}{where}"
        header = f"{_plural(len(lines), 'file')} contain {text!r}{where}:"
        return _listing(header, lines, MAX_MATCHES, "files", "narrow the text, path or include")

    tools = [
        make_tool(
            read_file, output_limit=READ_MAX_CHARS + 2000, more="read it in parts with offset and limit"
        ),
        make_tool(replace),
        make_tool(search_file_content, more="narrow the pattern, path or include"),
        make_tool(glob, more="use a narrower pattern or path"),
        make_tool(list_directory, more="use ignore to leave some out"),
        make_tool(write_file),
        make_tool(find_files, more="use a narrower pattern or path"),
        make_tool(find_files_with_text, more="narrow the text, path or include"),
    ]
    examples = examples_for(ctx.build_system)
    return [fill(tool, examples) for tool in tools]
