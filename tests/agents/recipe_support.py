"""What the recipe tests share: a tiny executor of planned calls, and synthetic failures."""

from __future__ import annotations

from pathlib import Path

from buildfixer.agents.recipes.base import Repair
from buildfixer.buildsys.options import BuildOptions
from buildfixer.core.build_result import BuildError, BuildResult


def apply_repair(root: Path, repair: Repair, options: BuildOptions) -> None:
    """What the repair tools do with the planned calls (their checks aside)."""
    for call in repair.calls:
        args = call.arguments
        if call.tool == "change_java_version":
            options.jdk = int(args["version"])
            continue
        target = (root / (args.get("file_path") or args["path"])).resolve()
        assert target.is_relative_to(root.resolve()), target
        if call.tool == "write_file":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(args["content"])
        elif call.tool == "replace":
            if args["old_string"] == "":
                assert not target.exists()
                target.write_text(args["new_string"])
                continue
            text = target.read_text()
            assert text.count(args["old_string"]) == args.get("expected_replacements", 1), args
            target.write_text(text.replace(args["old_string"], args["new_string"]))
        else:
            raise AssertionError(f"recipes may only use the three repair tools, not {call.tool}")


def failed(
    tmp_path: Path, system: str, log: str, errors: list[BuildError] | None = None, jdk: int | None = 17
) -> BuildResult:
    log_path = tmp_path / "build.log"
    log_path.write_text(log)
    return BuildResult("failure", 1, 1.0, system, ["build"], jdk, str(log_path), errors or [])


def offline(tmp_path: Path) -> BuildOptions:
    return BuildOptions(cache_dir=tmp_path / "cache", offline=True)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
