"""A tool is a typed Python function; its JSON schema comes from the signature and the docstring.

The function's Google-style docstring gives the description (everything before `Args:`) and
one line per parameter. Calls arrive as raw JSON text from the model: `Tool.call` parses and
checks them, so bad JSON, unknown parameters and wrong types come back to the model as errors.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from buildfixer.core.errors import ToolError as ToolError  # defined low: core.confined raises it

# Output sent back to the model is capped: a 10 MB build log would blow any context window.
DEFAULT_OUTPUT_LIMIT = 16_000
# What a capped output's note tells the model when the tool says nothing better.
MORE = "ask for a smaller part to see them"


def cap_output(text: str, limit: int = DEFAULT_OUTPUT_LIMIT, more: str = "") -> str:
    """Keep the head and the (usually more telling) tail of a long output, saying what was cut.

    `more` says how to see what was cut (e.g. "filter the output with grep, head or tail").
    """
    if len(text) <= limit:
        return text
    note = f"; {more}" if more else ""
    head = limit // 4
    tail = max(limit - head - len(note), 0)
    cut = len(text) - head - tail
    return f"{text[:head]}\n[... {cut} characters omitted{note} ...]\n{text[len(text) - tail :]}"


@dataclass
class Tool:
    """A callable tool with the schema the model sees.

    Attributes:
        name: Name offered to the model.
        description: What the tool does, for the model.
        parameters: JSON schema (type object) of the arguments.
        fn: The implementation; returns the text result or raises ToolError.
        output_limit: Results longer than this are capped.
        more: How to see what a capped result left out (said in the cap's note).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., str]
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    more: str = MORE

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def call(self, arguments: str | dict[str, Any] | None) -> str:
        """Parse, check and run; raises ToolError for anything the model got wrong."""
        args = parse_arguments(arguments)
        props = self.parameters.get("properties", {})
        unknown = sorted(set(args) - set(props))
        if unknown:
            known = ", ".join(props) or "none"
            raise ToolError(
                f"unknown parameter(s) {', '.join(unknown)} for {self.name} (parameters: {known})"
            )
        missing = [p for p in self.parameters.get("required", []) if p not in args]
        if missing:
            raise ToolError(f"missing required parameter(s) for {self.name}: {', '.join(missing)}")
        for key, value in args.items():
            if value is None and key not in self.parameters.get("required", []):
                continue  # an optional parameter sent as null means its default
            args[key] = _check_type(key, value, props[key])
        args = {k: v for k, v in args.items() if v is not None}
        try:
            result = self.fn(**args)
        except UnicodeDecodeError as exc:
            raise ToolError(f"not a text file ({exc.reason})") from None
        except OSError as exc:
            raise ToolError(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")) from None
        return cap_output(result, self.output_limit, self.more)


def parse_arguments(arguments: str | dict[str, Any] | None) -> dict[str, Any]:
    """Arguments as a dict; ToolError for anything that is not a JSON object."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, dict):
        return dict(arguments)
    try:  # strict=False: raw newlines in a string (a file's content) are a small model's habit
        value = json.loads(arguments, strict=False)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ToolError(f"arguments are not valid JSON ({exc}); send a JSON object") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ToolError(f"arguments must be a JSON object, got {type(value).__name__}")
    return value


_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _check_type(name: str, value: Any, schema: dict[str, Any]) -> Any:
    """The value if it fits the schema (ints accepted for numbers); ToolError otherwise."""
    kind = schema.get("type")
    ok = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
    }.get(str(kind), True)
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        value, ok = int(value), True  # 3.0 is a fine 3
    if not ok:
        raise ToolError(f"parameter {name} must be {kind}, got {type(value).__name__}: {str(value)[:80]}")
    if kind == "array":
        item_kind = schema.get("items", {}).get("type")
        for item in value:
            _check_type(f"{name}[]", item, {"type": item_kind})
    if "enum" in schema and value not in schema["enum"]:
        raise ToolError(f"parameter {name} must be one of {schema['enum']}, got {value!r}")
    return value


def _json_type(annotation: Any) -> dict[str, Any]:
    """JSON schema of a parameter annotation (str, int, float, bool, list[str], X | None)."""
    origin = typing.get_origin(annotation)
    if origin in (types.UnionType, typing.Union):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _json_type(inner[0]) if len(inner) == 1 else {}
    if origin is list:
        (item,) = typing.get_args(annotation) or (str,)
        return {"type": "array", "items": _json_type(item)}
    if annotation in _JSON_TYPES:
        return {"type": _JSON_TYPES[annotation]}
    raise TypeError(f"unsupported tool parameter type: {annotation!r}")


def _docstring_parts(doc: str) -> tuple[str, dict[str, str]]:
    """Description (before `Args:`) and per-parameter text of a Google-style docstring."""
    doc = inspect.cleandoc(doc)
    description, _, rest = doc.partition("\nArgs:\n")
    params: dict[str, str] = {}
    current = None
    for line in rest.splitlines():
        if re.match(r"^\S", line):  # the next section (Returns:, Raises:) ends Args
            break
        if match := re.match(r"^\s{2,6}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line):
            current = match.group(1)
            params[current] = match.group(2).strip()
        elif current and line.strip():
            params[current] += " " + line.strip()
    return " ".join(description.split()), params


def make_tool(
    fn: Callable[..., str], name: str | None = None, output_limit: int = DEFAULT_OUTPUT_LIMIT,
    more: str = MORE,
) -> Tool:  # fmt: skip
    """Build a Tool from a typed function with a Google-style docstring.

    Every parameter must be annotated and documented: a schema with an undocumented parameter
    would leave the model guessing, so it fails here, when the toolset is built.
    """
    description, docs = _docstring_parts(fn.__doc__ or "")
    if not description:
        raise TypeError(f"tool {fn.__name__} has no docstring")
    hints = typing.get_type_hints(fn)
    props: dict[str, Any] = {}
    required: list[str] = []
    for param in inspect.signature(fn).parameters.values():
        if param.name not in docs:
            raise TypeError(f"tool {fn.__name__}: parameter {param.name} is not documented under Args:")
        schema = _json_type(hints[param.name])
        schema["description"] = docs[param.name]
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
        props[param.name] = schema
    parameters: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    return Tool(name or fn.__name__, description, parameters, fn, output_limit, more)
