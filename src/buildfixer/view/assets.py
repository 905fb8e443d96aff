"""The page's static files (in `static/`) and the data scripts that feed it.

Data reaches the page as small JavaScript files that call `bfView.receive(token, data)`: a script
tag loads from `file://` as well as from the live server, where `fetch` of a local file would be
refused by the browser. The data is JSON with every non-ASCII character escaped, so the script's
encoding never matters, and the page only ever puts it into the document as text. Both kinds of
script are the viewer's only way out: each string passes `Places.shared` there (no local paths, no
raw control characters), whichever page it belongs to.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from buildfixer.view.local_paths import Places

# The files of the page, in the order index.html loads them (data.js comes last, from the data).
STATIC = ("index.html", "app.css", "dom.js", "pages.js", "app.js")
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
}


def static_file(name: str) -> bytes:
    """One file of the page, read from the installed package."""
    if name not in STATIC:
        raise KeyError(name)
    return resources.files("buildfixer.view").joinpath("static", name).read_bytes()


def data_script(token: str, data: Any, places: Places) -> str:
    """A script that hands `data` to the page under `token` ("index", "attempt/...", "search", ...).

    The token is shared like the data: the page asks for it by the (shared) ids the data gave it.
    """
    body = json.dumps(places.shared(data), ensure_ascii=True, separators=(",", ":"))
    return f"bfView.receive({json.dumps(places.shared(token))},{body});\n"


def failure_script(token: str, message: str, places: Places) -> str:
    """A script that tells the page why the data under `token` cannot be shown."""
    shared = [json.dumps(places.shared(text), ensure_ascii=True) for text in (token, message)]
    return f"bfView.fail({shared[0]},{shared[1]});\n"
