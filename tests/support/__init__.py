"""What many tests share, one helper per concept (importable as `support`: see pytest's `pythonpath`).

- `support.git`: `git(cwd, *args)` runs the tests' own git; `Repo` writes a repository with a history.
- `support.model`: `scripted(path, steps)` writes a scripted model's replies and names the model.
- `support.tools`: `tool_context(root, system, ...)` and `tools_by_name(ctx, *families)`.
- `support.projects`: `stats_project(root)` (Python) and `npm_project(root)`, small projects to repair.
- `support.fixtures`: the fixtures every test may ask for (a pytest plugin, loaded by tests/conftest.py).
"""
