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
