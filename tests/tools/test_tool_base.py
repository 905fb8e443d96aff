import json

import pytest

from buildfixer.tools.base import ToolError, cap_output, make_tool, parse_arguments


def _sample_tool():
    def sample(path: str, count: int = 1, flags: list[str] | None = None, ratio: float | None = None) -> str:
        """Do a sample thing with a path.

        Second paragraph of description.

        Args:
            path: The path to use,
                continued on a second line.
            count: How many times.
            flags: Extra flags.
            ratio: A ratio.

        Returns:
            Text.
        """
        return json.dumps({"path": path, "count": count, "flags": flags, "ratio": ratio})

    return make_tool(sample)


def test_schema_comes_from_signature_and_docstring():
    tool = _sample_tool()
    fn = tool.schema()["function"]
    assert fn["name"] == "sample"
    assert fn["description"] == "Do a sample thing with a path. Second paragraph of description."
    props = fn["parameters"]["properties"]
    assert props["path"] == {"type": "string", "description": "The path to use, continued on a second line."}
    assert props["count"]["type"] == "integer"
    assert props["flags"] == {"type": "array", "items": {"type": "string"}, "description": "Extra flags."}
    assert props["ratio"]["type"] == "number"
    assert fn["parameters"]["required"] == ["path"]


def test_undocumented_parameter_is_refused_when_building_the_tool():
    def bad(path: str) -> str:
        """No args section."""
        return path

    with pytest.raises(TypeError, match="not documented"):
        make_tool(bad)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('"text"', "must be a JSON object"),
        ("{}", "missing required"),
        ('{"path": 3}', "must be string"),
        ('{"path": "a", "count": "2"}', "must be integer"),
        ('{"path": "a", "count": true}', "must be integer"),
        ('{"path": "a", "count": 1.5}', "must be integer"),
        ('{"path": "a", "flags": "x"}', "must be array"),
        ('{"path": "a", "flags": [1]}', "must be string"),
        ('{"path": "a", "bogus": 1}', "unknown parameter"),
    ],
)
def test_malformed_calls_become_tool_errors(raw, message):
    with pytest.raises(ToolError, match=message):
        _sample_tool().call(raw)


def test_valid_calls_accept_null_optionals_and_integral_floats():
    out = json.loads(_sample_tool().call('{"path": "a", "count": 2.0, "ratio": null, "flags": ["x"]}'))
    assert out == {"path": "a", "count": 2, "flags": ["x"], "ratio": None}
    assert json.loads(_sample_tool().call({"path": "b", "ratio": 3}))["ratio"] == 3


def test_os_errors_go_back_to_the_model():
    def boom(path: str) -> str:
        """Open a file.

        Args:
            path: A file.
        """
        return open(path).read()  # noqa: SIM115

    with pytest.raises(ToolError, match="No such file"):
        make_tool(boom).call({"path": "/nonexistent/x"})


def test_cap_output_keeps_head_and_tail():
    text = "H" * 100 + "M" * 10_000 + "T" * 100
    capped = cap_output(text, 1000)
    assert len(capped) < 1100 and capped.startswith("H") and capped.endswith("T")
    assert "characters omitted" in capped
    assert cap_output("short", 1000) == "short"


def test_parse_arguments_empty_means_no_arguments():
    assert parse_arguments("") == {} and parse_arguments(None) == {} and parse_arguments("null") == {}
