"""Locations the analyzer got wrong on real projects: pseudo-files, Python pins in tox and nox, npm
dependencies beside scripts of the same name, jest failures whose frame comes late or cannot be read.

The logs are written here after each tool's documented output format.
"""

from pathlib import Path

import pytest

from buildfixer.core.build_result import BuildError
from buildfixer.core.confined import WorkspaceFiles
from buildfixer.logs.analyze import analyze_text
from buildfixer.logs.locate import locate_in_project


def located(log: str, project: Path | None = None) -> list[BuildError]:
    errors = analyze_text(log).errors
    if project is not None:
        locate_in_project(errors, WorkspaceFiles(project))
    return errors


# --- a. pseudo-files ------------------------------------------------------------------------

AST_PARSE = """Traceback (most recent call last):
  File "/home/ci/work/shop/tools/gen_docs.py", line 41, in <module>
    main()
  File "/home/ci/work/shop/tools/gen_docs.py", line 37, in main
    tree = ast.parse(source)
  File "/usr/lib/python3.11/ast.py", line 50, in parse
    return compile(source, filename, mode, flags,
  File "<unknown>", line 1
    def broken(:
               ^
SyntaxError: invalid syntax
"""


def test_a_syntax_error_in_text_compiled_as_unknown_points_at_the_frame_that_parsed_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools/gen_docs.py").write_text("import ast\n")
    [error] = located(AST_PARSE, tmp_path)
    assert (error.category, error.file, error.line) == ("syntax", "tools/gen_docs.py", 37)


def test_a_syntax_error_printed_as_text_points_at_the_file_it_names() -> None:
    log = """Traceback (most recent call last):
  File "/usr/lib/python3/dist-packages/versioncheck/cli.py", line 10, in main
    check(path)
  File "/usr/lib/python3/dist-packages/versioncheck/cli.py", line 5, in check
    raise SyntaxError(str(err))
SyntaxError: invalid syntax (versioneer.py, line 12)
"""
    [error] = located(log)
    assert (error.file, error.line) == ("versioneer.py", 12)


def test_pseudo_files_are_never_the_file() -> None:
    # `python -c` compiles "<string>": no file of the project to point at.
    bare = located(
        '  File "<string>", line 1\n    import foo bar\n               ^^^\nSyntaxError: invalid syntax\n'
    )
    assert [(e.category, e.file) for e in bare] == [("syntax", None)]
    # The import machinery's frozen frames are passed over for the project's.
    frozen = located("""Traceback (most recent call last):
  File "/home/ci/shop/app/main.py", line 3, in <module>
    import settings_local
  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load
  File "<frozen importlib._bootstrap>", line 1140, in _find_and_load_unlocked
  File "/home/ci/shop/settings_local.py", line 2
    DEBUG = = True
            ^
SyntaxError: invalid syntax
""")
    assert [(e.file, e.line) for e in frozen] == [("/home/ci/shop/settings_local.py", 2)]


def test_a_pytest_collection_error_in_unknown_keeps_the_frame_above_it() -> None:
    log = """==================================== ERRORS ====================================
____________________ ERROR collecting tests/test_config.py _____________________
tests/test_config.py:5: in <module>
    CONFIG = load_config("settings.txt")
src/shop/config.py:12: in load_config
    return ast.literal_eval(text)
/usr/lib/python3.11/ast.py:64: in literal_eval
    node_or_string = parse(node_or_string.lstrip(" \\t"), mode='eval')
/usr/lib/python3.11/ast.py:50: in parse
    return compile(source, filename, mode, flags,
E     File "<unknown>", line 1
E       {'a': 1,
E       ^
E   SyntaxError: '{' was never closed
=========================== short test summary info ============================
ERROR tests/test_config.py
=============================== 1 error in 0.12s ===============================
"""
    errors = located(log)
    assert [(e.tool, e.category, e.file, e.line) for e in errors] == [
        ("pytest", "syntax", "src/shop/config.py", 12)
    ]


# --- b. Python pins in tox.ini, noxfile.py, .python-version and tox sections ----------------

TOX = """[tox]
envlist = py38, py311

[testenv]
deps =
    pytest
    foo==1.0
commands = pytest

[testenv:legacy]
basepython = python3.7
"""


@pytest.mark.parametrize(
    ("log", "line"),
    [
        # tox 3, with and without its summary line.
        ("py37 create: /home/ci/shop/.tox/legacy\nERROR: InterpreterNotFound: python3.7\n", 11),
        # tox 4
        ("py38: skipped because could not find python interpreter with spec(s): py38\n"
         "  py38: SKIP (0.01 seconds)\n  evaluation failed :( (0.08 seconds)\n", 2),
        # a test dependency pinned in the environment's deps
        ("ERROR: Could not find a version that satisfies the requirement foo==1.0 (from versions: 0.1, 0.2)\n"
         "ERROR: No matching distribution found for foo==1.0\n", 7),
    ],
)  # fmt: skip
def test_tox_pins_are_located_in_tox_ini(tmp_path: Path, log: str, line: int) -> None:
    (tmp_path / "tox.ini").write_text(TOX)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "shop"\nrequires-python = ">=3.7"\n')
    error = located(log, tmp_path)[0]
    assert (error.file, error.line) == ("tox.ini", line), error


def test_nox_and_pyenv_pins(tmp_path: Path) -> None:
    (tmp_path / "noxfile.py").write_text(
        'import nox\n\n\n@nox.session(python=["3.9", "3.12"])\ndef tests(session):\n    session.run("x")\n'
    )
    (tmp_path / ".python-version").write_text("3.11.4\n")
    nox = located(
        "nox > Running session tests-3.9\nnox > Session tests-3.9 skipped: Python interpreter 3.9 not found.",
        tmp_path,
    )
    assert (nox[0].category, nox[0].file, nox[0].line) == ("configuration", "noxfile.py", 4)
    pyenv = located(
        "pyenv: version `3.11.4' is not installed (set by /home/ci/shop/.python-version)\n", tmp_path
    )
    assert (pyenv[0].file, pyenv[0].line) == (".python-version", 1)


def test_tox_sections_of_pyproject_and_setup_cfg_not_a_formatters_target(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "shop"\n\n[tool.black]\ntarget-version = ["py38"]\n\n'
        '[tool.tox]\nlegacy_tox_ini = """\n[tox]\nenvlist = py38\n"""\n'
    )
    error = located("ERROR: InterpreterNotFound: python3.8\n", tmp_path)[0]
    assert (error.file, error.line) == ("pyproject.toml", 10)
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "setup.cfg").write_text("[metadata]\nname = shop\n\n[tox:tox]\nenvlist = py{38,311}\n")
    error = located("ERROR: InterpreterNotFound: python3.8\n", tmp_path)[0]
    assert (error.file, error.line) == ("setup.cfg", 5)


# --- c. npm dependencies at their own key -----------------------------------------------------

PACKAGE = """{
  "name": "shop",
  "scripts": {
    "left-pad": "node scripts/pad.js",
    "lint": "eslint",
    "test": "jest"
  },
  "dependencies": {
    "left-pad": "^9.0.0",
    "@acme/widgets": "^1.0.0"
  },
  "devDependencies": {
    "eslint": "^99.0.0",
    "jest": "29"
  },
  "overrides": {
    "glob": "99.0.0"
  }
}
"""


@pytest.mark.parametrize(
    ("log", "line"),
    [
        ("npm ERR! code ETARGET\nnpm ERR! notarget No matching version found for left-pad@^9.0.0.\n", 9),
        ("npm error code ETARGET\nnpm error notarget No matching version found for eslint@99.0.0.\n", 13),
        # The version npm resolved is not the range written: the key decides, not the script `"test": "jest"`.
        ("npm ERR! code ETARGET\nnpm ERR! notarget No matching version found for jest@29.99.0.\n", 14),
        ("npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/@acme%2fwidgets\n"
         "npm ERR! 404\nnpm ERR! 404  '@acme/widgets@^1.0.0' is not in this registry.\n", 10),
        ("npm error code E404\nnpm error 404 Not Found - GET "
         "https://registry.npmjs.org/left-pad/-/left-pad-9.0.0.tgz - Not found\n", 9),
        ("npm ERR! code ETARGET\nnpm ERR! notarget No matching version found for glob@99.0.0.\n", 17),
        ('error Couldn\'t find any versions for "left-pad" that matches "^9.0.0"\n', 9),
    ],
)  # fmt: skip
def test_an_npm_dependency_error_points_at_the_dependency_not_a_script(
    tmp_path: Path, log: str, line: int
) -> None:
    (tmp_path / "package.json").write_text(PACKAGE)
    error = located(log, tmp_path)[0]
    assert (error.file, error.line) == ("package.json", line), error


def test_a_package_no_section_declares_is_not_pinned_on_a_script(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(PACKAGE.replace('"lint": "eslint"', '"lint": "minimatch"'))
    error = located(
        "npm ERR! code ETARGET\nnpm ERR! notarget No matching version found for minimatch@^99.0.0.\n",
        tmp_path,
    )
    assert (error[0].file, error[0].line) == (
        None,
        None,
    )  # a transitive dependency: no line of ours asks for it


# --- d. jest failures --------------------------------------------------------------------------


def jest_failure(file: str, expected_lines: int, frame: str | None = None) -> str:
    """A failing `toEqual` as jest prints it: the diff, the code frame at line 12, the stack frame."""
    diff = "".join(f'        "item{n}": {n},\n' for n in range(expected_lines))
    frame = f"      at Object.toEqual ({file}:12:26)\n" if frame is None else frame
    return f""" FAIL  {file}
  ● cart › totals every item

    expect(received).toEqual(expected) // deep equality

    - Expected  - {expected_lines}
    + Received  + 1

      Object {{
    -   "items": Object {{
{diff}    -   }},
    +   "items": Object {{}},
      }}

      10 | describe('cart', () => {{
      11 |   test('totals every item', () => {{
    > 12 |     expect(totals(cart)).toEqual(expected);
         |                          ^
      13 |   }});
      14 | }});

{frame}
  ● cart › is empty at first

    expect(received).toBe(expected) // Object.is equality

    Expected: 0
    Received: 1

      17 |   test('is empty at first', () => {{
    > 18 |     expect(new Cart().size).toBe(0);
         |                             ^
      19 |   }});

      at Object.toBe ({file}:18:29)

Test Suites: 1 failed, 1 total
Tests:       2 failed, 2 total
"""


@pytest.mark.parametrize(
    ("file", "diff", "frame"),
    [
        ("src/__tests__/cart.test.js", 3, None),
        ("src/__tests__/cart.test.js", 80, None),  # the stack frame 90 lines below the block's name
        ("app/(shop)/__tests__/cart.test.tsx", 3, None),  # a folder in parentheses (a route group)
        ("src/__tests__/cart.test.js", 3, ""),  # no stack frame: the code frame's line
    ],
)
def test_a_jest_failure_is_at_its_assertion_in_the_test_file(file: str, diff: int, frame: str | None) -> None:
    errors = located(jest_failure(file, diff, frame))
    assert [(e.file, e.line) for e in errors] == [(file, 12), (file, 18)]
    assert errors[0].message.startswith("cart › totals every item: expect(received).toEqual(expected)")


def test_a_late_frame_in_another_failure_is_not_taken() -> None:
    """A block with no frame of its own does not borrow the next failure's: its code frame answers."""
    log = jest_failure("src/__tests__/cart.test.js", 80, "")
    assert [e.line for e in located(log)] == [12, 18]


# --- a missing file named in prose: where the build names it, when it does ------------------


def test_a_missing_file_the_build_names_is_located_at_the_build_line(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    pom = "<project>\n  <build>\n    <plugins>\n      <file>${basedir}/build.properties</file>\n"
    (project / "pom.xml").write_text(pom + "    </plugins>\n  </build>\n</project>\n")
    log = f"[ERROR] Properties could not be loaded from File: {project}/build.properties\n"
    log += "[INFO] BUILD FAILURE\n"
    errors = analyze_text(log).errors
    assert errors[0].file == f"{project}/build.properties"  # the log alone names the missing file
    locate_in_project(errors, WorkspaceFiles(project))
    assert (errors[0].file, errors[0].line) == ("pom.xml", 4)


def test_a_missing_file_no_build_file_names_stays_the_location(tmp_path: Path) -> None:
    project = tmp_path / "web"
    project.mkdir()
    (project / "package.json").write_text('{"name": "web"}\n')
    errors = [BuildError("ENOENT: no such file or directory, open 'src/data.json'", "resource_missing", "npm",
                         "src/data.json")]  # fmt: skip
    locate_in_project(errors, WorkspaceFiles(project))
    assert (errors[0].file, errors[0].line) == ("src/data.json", None)


def test_a_java_level_kept_in_a_property_named_for_the_jdk_is_located(tmp_path: Path) -> None:
    project = tmp_path / "lib"
    project.mkdir()
    pom = "<project>\n  <properties>\n    <version.jdk>25</version.jdk>\n  </properties>\n</project>\n"
    (project / "pom.xml").write_text(pom)
    message = "Fatal error compiling: error: invalid target release: 25"
    errors = [BuildError(message, "configuration", "maven")]
    locate_in_project(errors, WorkspaceFiles(project))
    assert (errors[0].file, errors[0].line) == ("pom.xml", 3)
