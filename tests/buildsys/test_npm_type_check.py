"""A type error behind a build that strips types (a bundler, ts-jest in isolated mode) fails the build.

The fixture's `build` transpiles each file alone, as esbuild, tsdown or swc do, so it passes on a
type error; the project's own `typecheck` script (`tsc --noEmit`) is what sees it, and the default
npm build runs it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from buildfixer.buildsys.analyzed import build_and_analyze
from buildfixer.buildsys.options import BuildOptions
from buildfixer.examples import materialize_base

TRANSPILE_ONLY = """import ts from "typescript";
import fs from "node:fs";
import path from "node:path";
fs.mkdirSync("dist", { recursive: true });
for (const name of fs.readdirSync("src").filter((f) => f.endsWith(".ts"))) {
  const source = fs.readFileSync(path.join("src", name), "utf8");
  const options = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, esModuleInterop: true };
  const out = ts.transpileModule(source, { compilerOptions: options });
  fs.writeFileSync(path.join("dist", name.replace(/\\.ts$/, ".js")), out.outputText);
}
"""


@pytest.mark.slow
def test_a_type_error_the_build_strips_fails_through_the_type_check_script(tmp_path: Path) -> None:
    project = materialize_base("npm-app", tmp_path / "project")
    manifest = json.loads((project / "package.json").read_text())
    manifest["scripts"] = {"build": "node build.mjs", "typecheck": "tsc --noEmit -p tsconfig.json",
                           "test": "node --test dist/"}  # fmt: skip
    (project / "package.json").write_text(json.dumps(manifest, indent=2))
    (project / "build.mjs").write_text(TRANSPILE_ONLY)
    options = BuildOptions(timeout_s=600)
    assert build_and_analyze(project, options)[0].status == "success"

    money = project / "src" / "money.ts"
    money.write_text("export const unused: number = '1000';\n" + money.read_text())
    result, _analysis = build_and_analyze(project, options)
    assert result.status == "failure", Path(result.log_path).read_text()[-2000:]
    assert "typecheck" in result.command
    first = result.errors[0]
    assert (first.file, first.line, first.category) == ("src/money.ts", 1, "syntax"), result.errors
    assert "TS2322" in first.message
