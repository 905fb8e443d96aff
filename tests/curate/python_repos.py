"""Python repositories with planted instances and planted non-instances, one per curation mode.

Each function writes the repository and returns what a correct curation must find: the commits
that must become instances, and for each planted non-instance the filter that must reject it.
"""

from pathlib import Path

from support.git import Repo

PYPROJECT = """[project]
name = "calc"
version = "0.1.0"
dependencies = []

[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"
"""
ADD = "def add(a, b):\n    return a + b\n"
TEST_ADD = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def flaky_test(counter: Path, fail_first: bool) -> str:
    """A test that alternates between failing and passing, counting its runs in a file outside the repo."""
    first = "n % 2 == 1" if fail_first else "n % 2 == 0"
    return (
        f"import pathlib\n\nCOUNTER = pathlib.Path({str(counter)!r})\n\n\ndef test_alternates():\n"
        "    n = int(COUNTER.read_text()) if COUNTER.exists() else 0\n"
        "    COUNTER.write_text(str(n + 1))\n"
        f"    assert {first}\n"
    )


def initial(repo: Repo) -> str:
    files = {"pyproject.toml": PYPROJECT, "src/calc/__init__.py": ADD, "tests/test_calc.py": TEST_ADD}
    return repo.commit("Initial calculator", files)


def human_repo(path: Path, counters: Path) -> dict:
    """Merged branches: two real instances; a duplicate, a flaky failure, a too-large fix and a flaky fix."""
    repo = Repo(path)
    initial(repo)
    mul = ADD + "\n\ndef mul(a, b):\n    return a * b\n"
    repo.branch("mul")
    syntax = repo.commit("Add mul", {"src/calc/__init__.py": mul.replace("mul(a, b):", "mul(a, b)")})
    same_error = repo.commit("Document mul", {"README.md": "mul multiplies.\n"})
    repo.commit("Fix the mul signature", {"src/calc/__init__.py": mul})
    repo.checkout("main")
    repo.merge("mul")

    repo.branch("sub")
    sub_code = mul + "\n\ndef sub(a, b):\n    return a + b\n"
    sub_test = (
        TEST_ADD.replace("import add", "import add, sub") + "\n\ndef test_sub():\n    assert sub(5, 3) == 2\n"
    )
    test_failure = repo.commit("Add sub", {"src/calc/__init__.py": sub_code, "tests/test_calc.py": sub_test})
    repo.commit("Fix sub", {"src/calc/__init__.py": mul + "\n\ndef sub(a, b):\n    return a - b\n"})
    repo.checkout("main")
    repo.merge("sub")

    repo.branch("flaky")
    flaky = repo.commit("Count runs", {"tests/test_flaky.py": flaky_test(counters / "flaky-bad", True)})
    repo.commit("Drop the run counter", {"tests/test_flaky.py": None})
    repo.checkout("main")
    repo.merge("flaky")

    repo.branch("big")
    big_break = repo.commit("Start the stats module", {"src/calc/stats.py": "def mean(xs)\n    pass\n"})
    stats = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(20))
    repo.commit("Write the stats module", {"src/calc/stats.py": stats})
    repo.checkout("main")
    repo.merge("big")

    repo.branch("flaky-fix")
    fix_flaky = repo.commit("Add neg", {"src/calc/neg.py": "def neg(a)\n    return -a\n"})
    repo.commit("Fix neg, count runs", {
        "src/calc/neg.py": "def neg(a):\n    return -a\n",
        "tests/test_flaky.py": flaky_test(counters / "flaky-good", False),
    })  # fmt: skip
    repo.checkout("main")
    repo.merge("flaky-fix")

    # Merged while still broken (last: the branches after it would inherit the breakage).
    repo.branch("never")
    repo.commit("Try pow", {"src/calc/pow.py": "def pow(a, b)\n"})
    repo.commit("Still trying pow", {"src/calc/pow.py": "def pow(a, b)\n    return a ** b\n"})
    repo.checkout("main")
    repo.merge("never")
    return {
        "repo": path,
        "instances": {syntax: "syntax", test_failure: "test_failure"},
        "rejected": {
            same_error: "duplicate",
            flaky: "fails_bad",
            big_break: "size",
            fix_flaky: "builds_good",
        },
    }


def duplicate_repo(path: Path) -> dict:
    """One merged branch whose first two commits fail with the same error: one instance, one duplicate."""
    repo = Repo(path)
    initial(repo)
    mul = ADD + "\n\ndef mul(a, b):\n    return a * b\n"
    repo.branch("mul")
    syntax = repo.commit("Add mul", {"src/calc/__init__.py": mul.replace("mul(a, b):", "mul(a, b)")})
    same_error = repo.commit("Document mul", {"README.md": "mul multiplies.\n"})
    repo.commit("Fix the mul signature", {"src/calc/__init__.py": mul})
    repo.checkout("main")
    repo.merge("mul")
    return {"repo": path, "instances": {syntax: "syntax"}, "rejected": {same_error: "duplicate"}}


def dependency_repo(path: Path) -> dict:
    """Commits changing build files and code: one needs its build change, one does not, one never built."""
    repo = Repo(path)
    initial(repo)
    # six: a small dependency that pytest does not bring along (it does bring packaging).
    uses_six = ADD + "\n\ndef is_text(x):\n    import six\n\n    return isinstance(x, six.string_types)\n"
    test_text = (
        TEST_ADD + "\n\ndef test_is_text():\n    from calc import is_text\n\n    assert is_text('a')\n"
    )
    with_six = PYPROJECT.replace("dependencies = []", 'dependencies = ["six>=1.10"]')
    needs_it = repo.commit("Tell text from other values with six", {
        "pyproject.toml": with_six, "src/calc/__init__.py": uses_six, "tests/test_calc.py": test_text,
    })  # fmt: skip
    repo.commit("Explain is_text", {"src/calc/__init__.py": uses_six + "\n# is_text accepts str\n"})
    independent = repo.commit("Release 0.2.0 with a docstring", {
        "pyproject.toml": with_six.replace('"0.1.0"', '"0.2.0"'),
        "src/calc/__init__.py": '"""A calculator."""\n' + uses_six + "\n# is_text accepts str\n",
    })  # fmt: skip
    never_built = repo.commit("Add a CLI entry point", {
        "pyproject.toml": with_six.replace('"0.1.0"', '"0.3.0"'),
        "src/calc/cli.py": "def main()\n    print('calc')\n",
    })  # fmt: skip
    return {
        "repo": path,
        "instances": {needs_it: None},
        "rejected": {independent: "fails_bad", never_built: "builds_good"},
    }


def llm_repo(path: Path) -> dict:
    """Three commits a model re-implements: wrongly, correctly, and not at all."""
    repo = Repo(path)
    initial(repo)
    code = ADD
    commits = {}
    for name, op in (("sub", "-"), ("mul", "*"), ("neg", None)):
        code += (
            f"\n\ndef {name}(a, b):\n    return a {op} b\n" if op else f"\n\ndef {name}(a):\n    return -a\n"
        )
        commits[name] = repo.commit(f"Add {name}\n\nA new operation: {name}.", {"src/calc/__init__.py": code})
    return {
        "repo": path,
        "commits": commits,
        "instances": {commits["sub"]: "syntax"},
        "rejected": {commits["mul"]: "fails_bad", commits["neg"]: "model"},
    }


def branches_repo(path: Path, count: int) -> dict:
    """`count` merged branches, each a commit with a syntax error and then its fix: `count` instances."""
    repo = Repo(path)
    initial(repo)
    code = ADD
    broken = []
    for n in range(count):
        repo.branch(f"f{n}")
        good = code + f"\n\ndef plus{n}(a):\n    return a + {n}\n"
        broken.append(
            repo.commit(f"Add plus{n}", {"src/calc/__init__.py": good.replace(f"plus{n}(a):", f"plus{n}(a)")})
        )
        repo.commit(f"Fix plus{n}", {"src/calc/__init__.py": good})
        repo.checkout("main")
        repo.merge(f"f{n}")
        code = good
    return {"repo": path, "instances": {sha: "syntax" for sha in broken}, "rejected": {}}
