"""Pages of a "simple" package index (PEP 503 HTML, PEP 691 JSON): read them, write them.

`IndexFile` is one distribution file of a page with what pip needs of it (requires-python,
yanked, metadata) and its upload time, which `dated_index` filters on. `normalize_dist` is the
PEP 503 name of a project, as its page's URL spells it and as names are compared everywhere.
"""

from __future__ import annotations

import html
import json
import re
import urllib.parse
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
_HTML_TYPES = ("text/html", "application/vnd.pypi.simple.v1+html", "application/vnd.pypi.simple.latest+html")
JSON_TYPES = (JSON_TYPE, "application/vnd.pypi.simple.latest+json")


def normalize_dist(name: str) -> str:
    """PEP 503 normal form of a distribution (project) name: "PyYAML" -> "pyyaml", "a_b.c" -> "a-b-c"."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class IndexFile:
    """One file of a project's page, in the terms both page formats share (None: not given).

    Attributes:
        filename: The file's name (the anchor text, or the URL's last segment).
        url: Absolute download URL without the hash fragment.
        hashes: Hash name -> hex digest.
        requires_python: The `Requires-Python` specifier.
        yanked: Why the file was yanked ("" when no reason was given); None when it was not.
        metadata: PEP 714 core-metadata as the HTML attribute spells it ("true", "sha256=<hex>").
        upload_time: ISO 8601 upload time.
    """

    filename: str
    url: str
    hashes: dict[str, str] = field(default_factory=dict)
    requires_python: str | None = None
    yanked: str | None = None
    metadata: str | None = None
    upload_time: str | None = None


def wants_json(accept: str) -> bool:
    """Whether the Accept header prefers PEP 691 JSON to HTML (no header, or `*/*`: HTML)."""
    best = {True: 0.0, False: 0.0}
    for item in accept.lower().split(","):
        media, *params = (p.strip() for p in item.split(";"))
        if media in (*JSON_TYPES, *_HTML_TYPES, "*/*"):
            best[media in JSON_TYPES] = max(best[media in JSON_TYPES], _quality(params))
    return best[True] > 0 and best[True] >= best[False]


def _quality(params: list[str]) -> float:
    """The `q` of a media range's parameters: 1 when absent, 0 when unreadable."""
    for param in params:
        name, _, value = param.partition("=")
        if name.strip() == "q":
            try:
                return float(value)
            except ValueError:
                return 0.0
    return 1.0


def _metadata(value: object) -> str | None:
    """A JSON core-metadata value (true, or hashes) as the HTML attribute spells it."""
    if isinstance(value, dict) and value:
        name, digest = next(iter(value.items()))
        return f"{name}={digest}"
    return "true" if value is True else None


def parse_json(data: Any, page_url: str) -> list[IndexFile]:
    """The files of a PEP 691 JSON page (relative URLs made absolute against `page_url`)."""
    files = []
    for item in data.get("files", []) if isinstance(data, dict) else []:
        url, hashes = _split_hash(urllib.parse.urljoin(page_url, item["url"]))
        yanked = item.get("yanked")
        files.append(
            IndexFile(
                filename=item["filename"],
                url=url,
                hashes={**hashes, **(item.get("hashes") or {})},
                requires_python=item.get("requires-python") or None,
                yanked=(yanked if isinstance(yanked, str) else "") if yanked else None,
                metadata=_metadata(item.get("core-metadata", item.get("dist-info-metadata"))),
                upload_time=item.get("upload-time"),
            )
        )
    return files


class _Anchors(HTMLParser):
    """The `<a>` elements of a page: attributes (entities decoded) and text."""

    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[tuple[dict[str, str | None], str]] = []
        self._open: tuple[dict[str, str | None], list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._open = (dict(attrs), [])

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open[1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open is not None:
            self.anchors.append((self._open[0], "".join(self._open[1]).strip()))
            self._open = None


def parse_html(text: str, page_url: str) -> list[IndexFile]:
    """The files of a PEP 503 HTML page, with the `data-*` attributes pip and the date filter use."""
    parser = _Anchors()
    parser.feed(text)
    parser.close()
    files = []
    for attrs, label in parser.anchors:
        if not attrs.get("href"):
            continue
        url, hashes = _split_hash(urllib.parse.urljoin(page_url, attrs["href"]))
        metadata = attrs.get("data-core-metadata", attrs.get("data-dist-info-metadata"))
        files.append(
            IndexFile(
                filename=label or urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1]),
                url=url,
                hashes=hashes,
                requires_python=attrs.get("data-requires-python") or None,
                yanked=(attrs["data-yanked"] or "") if "data-yanked" in attrs else None,
                metadata=(metadata or "true") if metadata is not None else None,
                upload_time=attrs.get("data-upload-time") or None,
            )
        )
    return files


def _split_hash(url: str) -> tuple[str, dict[str, str]]:
    """The URL without its fragment, and the `#sha256=<hex>` hash the fragment names."""
    bare, _, fragment = url.partition("#")
    name, _, digest = fragment.partition("=")
    return bare, ({name: digest} if name and digest else {})


# --- rendering --------------------------------------------------------------------------------


def render_index_html(project: str, files: list[IndexFile]) -> bytes:
    """A PEP 503 HTML page of the files (requires-python, yanked and metadata kept)."""
    rows = []
    for f in files:
        name, digest = next(iter(sorted(f.hashes.items(), key=lambda h: h[0] != "sha256")), ("", ""))
        attrs = {"href": f"{f.url}#{name}={digest}" if digest else f.url}
        if f.requires_python:
            attrs["data-requires-python"] = f.requires_python  # pip skips versions it cannot run
        if f.yanked is not None:
            attrs["data-yanked"] = f.yanked
        if f.metadata:
            attrs["data-core-metadata"] = attrs["data-dist-info-metadata"] = f.metadata
        if f.upload_time:
            attrs["data-upload-time"] = f.upload_time
        spelled = " ".join(f'{k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())
        rows.append(f"<a {spelled}>{html.escape(f.filename)}</a><br/>")
    title = f"Links for {html.escape(project)}"
    return (
        '<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.0">'
        f"<title>{title}</title></head>\n<body><h1>{title}</h1>\n" + "\n".join(rows) + "\n</body></html>\n"
    ).encode()


def render_index_json(project: str, files: list[IndexFile]) -> bytes:
    """A PEP 691 JSON page of the files, with their upload times."""
    items = []
    for f in files:
        item: dict[str, Any] = {"filename": f.filename, "url": f.url, "hashes": f.hashes}
        if f.requires_python:
            item["requires-python"] = f.requires_python
        item["yanked"] = (f.yanked or True) if f.yanked is not None else False
        if f.metadata:
            name, _, digest = f.metadata.partition("=")
            item["core-metadata"] = item["dist-info-metadata"] = {name: digest} if digest else True
        item["upload-time"] = f.upload_time
        items.append(item)
    return json.dumps({"meta": {"api-version": "1.0"}, "name": project, "files": items}).encode()


# --- the cache --------------------------------------------------------------------------------
