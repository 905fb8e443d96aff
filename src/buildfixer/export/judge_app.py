"""The judge as one file a task's verifier can run: a zip application of `buildfixer.judge.verifier`.

A Harbor task's container has Python and git but no buildfixer. The application holds the
modules the verifier imports (found by importing it in a fresh interpreter, so the list follows
the code) and `unidiff`, the one library the judge uses; `python3 judge.pyz --help` runs it.
The modules are read from this installation: the verifier judges exactly as buildfixer does.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

from buildfixer.core.errors import BuildfixerError

ENTRY = "buildfixer.judge.verifier"
_MAIN = f"import sys\n\nfrom {ENTRY} import main\n\nsys.exit(main())\n"
# Fixed timestamps: the same code gives the same bytes (a task's files are compared across exports).
_EPOCH = (1980, 1, 1, 0, 0, 0)
_PROBE = f"""
import importlib, json, sys
importlib.import_module({ENTRY!r})
importlib.import_module("unidiff")
files = {{}}
for name, module in list(sys.modules.items()):
    top = name.split(".")[0]
    path = getattr(module, "__file__", None)
    if top in ("buildfixer", "unidiff") and path:
        files[name] = path
print(json.dumps(files))
"""


def judge_app() -> bytes:
    """The zip application's bytes.

    Raises:
        BuildfixerError: the verifier's modules cannot be imported here.
    """
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        raise BuildfixerError(f"cannot collect the judge's modules: {done.stderr.strip()[-300:]}")
    modules: dict[str, str] = json.loads(done.stdout)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as app:
        for name, path in sorted(modules.items()):
            source = Path(path)
            if source.suffix != ".py":
                continue
            arcname = name.replace(".", "/") + ("/__init__.py" if source.name == "__init__.py" else ".py")
            _add(app, arcname, source.read_bytes())
        _add(app, "__main__.py", _MAIN.encode())
    return buffer.getvalue()


def _add(app: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    app.writestr(info, data)
