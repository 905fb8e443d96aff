"""`import buildfixer` and the build/log layers must stay cheap: no CLI or UI libraries at import."""

import subprocess
import sys

HEAVY = ("typer", "click", "rich", "pydantic", "litellm", "ray", "torch")


def imported_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return {name.split(".")[0] for name in out.split()}


def test_package_import_pulls_in_nothing_heavy() -> None:
    assert not imported_after("import buildfixer") & set(HEAVY)


def test_build_and_log_layers_stay_free_of_cli_libraries() -> None:
    loaded = imported_after(
        "import buildfixer.buildsys.project, buildfixer.logs.analyze, buildfixer.buildsys.analyzed, "
        "buildfixer.workspace.workspace"
    )
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


def test_a_build_command_loads_the_light_command_line_only(tmp_path) -> None:
    """`buildfixer build` (run again and again) imports no other command, nor the parsers on success."""
    (tmp_path / "package.json").write_text('{"name": "quiet", "version": "1.0.0", "scripts": {}}')
    code = (
        "import sys, runpy; sys.argv = ['buildfixer', 'build', sys.argv[1], '--no-sandbox', '--json']\n"
        "try:\n    runpy.run_module('buildfixer', run_name='__main__')\n"
        "except SystemExit as exit:\n    print('exit', exit.code, file=sys.stderr)\n"
        "print('\\n'.join(sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    loaded = set(done.stderr.split())
    assert "exit 0" in done.stderr and '"status": "success"' in done.stdout, done.stdout + done.stderr
    assert "buildfixer.cli.light" in loaded
    others = {
        "buildfixer.cli.main", "buildfixer.cli.bench", "buildfixer.cli.fix_commands",
        "buildfixer.logs.analyze", "buildfixer.agents", "buildfixer.buildsys.dated_index", "pydantic",
    }  # fmt: skip
    assert not loaded & others, loaded & others
