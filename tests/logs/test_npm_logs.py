import time

import pytest

from buildfixer.logs.parsers.npm import parse


def one(*lines: str):
    errors = parse(list(lines))
    assert len(errors) == 1, errors
    return errors[0]


@pytest.mark.parametrize("prefix", ["npm ERR!", "npm error"])
def test_etarget_both_prefixes(prefix):
    error = one(
        f"{prefix} code ETARGET",
        f"{prefix} notarget No matching version found for left-pad@99.0.0.",
        f"{prefix} notarget In most cases you or one of your dependencies are requesting",
    )
    assert (error.tool, error.category) == ("npm", "library_unavailable")
    assert error.message == "No matching version found for left-pad@99.0.0."


def test_e404():
    error = one(
        "npm ERR! code E404",
        "npm ERR! 404 Not Found - GET https://registry.npmjs.org/nope - Not found",
        "npm ERR! 404 ",
    )
    assert error.category == "library_unavailable"
    assert "registry.npmjs.org/nope" in error.message


def test_eresolve_keeps_the_conflict():
    error = one(
        "npm ERR! code ERESOLVE",
        "npm ERR! ERESOLVE unable to resolve dependency tree",
        "npm ERR! ",
        "npm ERR! Found: react@17.0.2",
        "npm ERR! Could not resolve dependency:",
        'npm ERR! peer react@"^18.2.0" from react-dom@18.2.0',
    )
    assert error.category == "library_unavailable"
    assert 'peer react@"^18.2.0"' in error.message


def test_enoent_names_the_file():
    error = one(
        "npm ERR! code ENOENT",
        "npm ERR! syscall open",
        "npm ERR! path /x/package.json",
        "npm ERR! enoent ENOENT: no such file or directory, open '/x/package.json'",
    )
    assert (error.category, error.file) == ("resource_missing", "/x/package.json")


def test_ejsonparse_is_configuration():
    error = one(
        "npm error code EJSONPARSE",
        "npm error path /x/package.json",
        "npm error JSON.parse Invalid package.json: JSONParseError: Unexpected token",
    )
    assert (error.category, error.file) == ("configuration", "/x/package.json")


@pytest.mark.parametrize("line", ['npm error Missing script: "build"', "npm ERR! missing script: build"])
def test_missing_script(line):
    error = one(line)
    assert error.category == "configuration"
    assert error.message == 'Missing script: "build"'


@pytest.mark.parametrize(
    ("line", "file", "row", "col", "category"),
    [
        (
            "src/index.ts(12,5): error TS2345: Argument of type 'string' is not assignable",
            "src/index.ts",
            12,
            5,
            "syntax",
        ),
        (
            "src/index.ts:12:5 - error TS2554: Expected 2 arguments, but got 1.",
            "src/index.ts",
            12,
            5,
            "syntax",
        ),
        (
            "C:\\my app\\src\\a.tsx(3,1): error TS2307: Cannot find module 'react' or its corresponding type "
            "declarations.",
            "C:\\my app\\src\\a.tsx",
            3,
            1,
            "library_unavailable",
        ),
        (
            "src/a.ts(1,23): error TS2307: Cannot find module './greeter' or its corresponding type "
            "declarations.",
            "src/a.ts",
            1,
            23,
            "resource_missing",
        ),
    ],
)
def test_tsc(line, file, row, col, category):
    error = one(line)
    assert (error.tool, error.file, error.line, error.column, error.category) == (
        "tsc",
        file,
        row,
        col,
        category,
    )


def test_tsc_config_error():
    error = one("error TS5023: Unknown compiler option 'foo'.")
    assert (error.category, error.file) == ("configuration", None)


def test_node_syntax_error_header():
    error = one(
        "/p/server.js:3",
        '  console.log("up", port;',
        "              ^^^^",
        "",
        "SyntaxError: missing ) after argument list",
        "    at wrapSafe (node:internal/modules/cjs/loader:1)",
    )
    assert (error.tool, error.category, error.file, error.line) == ("node", "syntax", "/p/server.js", 3)


def test_node_cannot_find_module():
    error = one(
        "Error: Cannot find module 'express'",
        "Require stack:",
        "- /p/index.js",
        "    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)",
        "    at Object.<anonymous> (/p/index.js:1:17)",
    )
    assert (error.category, error.file, error.line) == ("library_unavailable", "/p/index.js", 1)


def test_node_enoent():
    error = one(
        "Error: ENOENT: no such file or directory, open 'config.json'",
        "    at Object.readFileSync (node:fs:448:20)",
        "    at Object.<anonymous> (/p/app.js:2:27)",
    )
    assert (error.category, error.file, error.line) == ("resource_missing", "/p/app.js", 2)


def test_tap_failure():
    error = one(
        "not ok 1 - adds",
        "  ---",
        "  location: '/p/test/math.test.js:5:1'",
        "  error: |-",
        "    Expected values to be strictly equal:",
        "  ...",
        "# fail 1",
    )
    assert (error.category, error.file, error.line) == ("test_failure", "/p/test/math.test.js", 5)
    assert "adds" in error.message


def test_jest_failure():
    errors = parse(
        [
            "FAIL ./sum.test.js",
            "  ✕ adds (5 ms)",
            "",
            "  ● adds",
            "",
            "    expect(received).toBe(expected)",
            "      at Object.toBe (sum.test.js:4:21)",
            "",
            "Tests:       1 failed, 1 passed, 2 total",
        ]
    )
    assert [(e.category, e.file, e.line) for e in errors] == [("test_failure", "sum.test.js", 4)]


def test_summary_only():
    errors = parse(["Tests:       1 failed, 1 passed, 2 total"])
    assert [(e.category, e.specificity) for e in errors] == [("test_failure", 1)]


def test_successful_and_warning_logs_have_no_errors():
    assert (
        parse(
            [
                "npm warn deprecated inflight@1.0.6: This module is not supported",
                "npm WARN EBADENGINE Unsupported engine {",
                "added 267 packages in 10s",
                "ok 1 - adds",
                "# fail 0",
                "Tests:       2 passed, 2 total",
                "Found 0 errors. Watching for file changes.",
            ]
        )
        == []
    )


def test_large_log_is_fast():
    lines = [
        "npm http fetch GET 200 https://registry.npmjs.org/x 12ms",
        "ok 1 - x",
        "x" * 300,
        "  at Object.<anonymous> (/p/a.js:1:1)",
    ] * 60_000
    start = time.perf_counter()
    parse(lines)
    assert time.perf_counter() - start < 5
