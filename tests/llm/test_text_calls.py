"""Tool calls written as text: every form real models use is read, prose stays prose."""

import json

import pytest

from buildfixer.llm.text_calls import MAX_SCANNED, read_text_calls


def calls_in_text(text: str, tools) -> list[tuple[str, str]]:
    """The (name, arguments JSON) of the calls read in `text`."""
    return [(call.name, call.arguments) for call in read_text_calls(text, tools)[0]]

TOOLS = {"read_file", "replace", "run_build"}
READ = ("read_file", {"file_path": "pom.xml"})


def parsed(text: str) -> list[tuple[str, dict]]:
    return [(name, json.loads(arguments)) for name, arguments in calls_in_text(text, TOOLS)]


@pytest.mark.parametrize(
    "text",
    [
        # Qwen / Hermes chat templates
        '<tool_call>\n{"name": "read_file", "arguments": {"file_path": "pom.xml"}}\n</tool_call>',
        # ... with the end tag cut off by the token limit
        'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"file_path": "pom.xml"}}',
        # fenced, with a language and without
        'I will read it:\n```json\n{"name": "read_file", "arguments": {"file_path": "pom.xml"}}\n```',
        '```\n{"name": "read_file", "arguments": {"file_path": "pom.xml"}}\n```\nThen I build.',
        # bare, and with the doubled braces the 1.5B model copies from its template
        '{"name": "read_file", "arguments": {"file_path": "pom.xml"}}',
        '{{"name": "read_file", "arguments": {"file_path": "pom.xml"}}}',
        # Llama 3.1: python tag and "parameters"
        '<|python_tag|>{"name": "read_file", "parameters": {"file_path": "pom.xml"}}',
        # Mistral: a list after [TOOL_CALLS], and the newer name[ARGS] form
        '[TOOL_CALLS] [{"name": "read_file", "arguments": {"file_path": "pom.xml"}}]',
        '[TOOL_CALLS]read_file[ARGS]{"file_path": "pom.xml"}',
        # the OpenAI shape written out, arguments as a JSON string
        '{"type": "function", "function": {"name": "read_file", '
        '"arguments": "{\\"file_path\\": \\"pom.xml\\"}"}}',
    ],
)
def test_each_form_is_one_call(text: str) -> None:
    assert parsed(text) == [READ]


def test_several_calls_keep_their_order_and_braces_inside_strings() -> None:
    text = (
        '<tool_call>\n{"name": "replace", "arguments": {"file_path": "A.java", "old_string": "f() {", '
        '"new_string": "f() { return; }"}}\n</tool_call>\n<tool_call>\n{"name": "run_build"}\n</tool_call>'
    )
    assert parsed(text) == [
        ("replace", {"file_path": "A.java", "old_string": "f() {", "new_string": "f() { return; }"}),
        ("run_build", {}),
    ]


def test_prose_and_json_that_names_no_offered_tool_are_not_calls() -> None:
    assert parsed("The build fails because `{` is missing on line 3.") == []
    assert parsed('The package.json has {"name": "cart", "version": "1.0.0"}.') == []
    assert parsed('{"name": "delete_everything", "arguments": {}}') == []  # not offered
    assert calls_in_text('{"name": "read_file"}', set()) == []


def test_a_list_gives_the_calls_that_name_offered_tools() -> None:
    text = '[{"name": "read_file", "arguments": {}}, {"name": "rm", "arguments": {}}, {"name": "run_build"}]'
    assert parsed(text) == [("read_file", {}), ("run_build", {})]


def test_malformed_arguments_text_is_passed_on_for_the_tool_to_refuse() -> None:
    (call,) = calls_in_text('{"name": "read_file", "arguments": "{\\"file_path\\": "}', TOOLS)
    assert call == ("read_file", '{"file_path": ')


def test_a_huge_reply_is_not_scanned() -> None:
    call = '{"name": "run_build", "arguments": {}}'
    assert calls_in_text(call + " {" * 1000, TOOLS) == [("run_build", "{}")]
    assert calls_in_text(call + "x" * MAX_SCANNED, TOOLS) == []


@pytest.mark.parametrize(
    ("text", "prose"),
    [
        ('I will read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>',
         "I will read it."),
        ('```json\n{"name": "read_file", "arguments": {}}\n```', ""),
        ('[TOOL_CALLS] [{"name": "read_file", "arguments": {}}]', ""),
        ('First {"name": "read_file", "arguments": {}} then {"name": "nope", "arguments": {}}',
         'First  then {"name": "nope", "arguments": {}}'),
    ],
)  # fmt: skip
def test_the_prose_around_calls_keeps_everything_but_the_calls_read(text, prose):
    calls, kept = read_text_calls(text, {"read_file"})
    assert kept == prose and calls and all(call.id.startswith("textcall_") for call in calls)


def test_a_lone_backslash_copied_from_a_log_is_read_as_a_literal_one():
    """What the 1.5B model wrote: a regex from the build's command line inside a JSON string."""
    text = (
        '```json\n{"name": "run_python_command", "arguments": {"python_command": '
        '"python -m compileall -x (^|/)(\\.[^/]+|venv)(/|$) ."}}\n```\nThen I will look.'
    )
    ((name, arguments),) = calls_in_text(text, {"run_python_command"})
    assert json.loads(arguments)["python_command"] == "python -m compileall -x (^|/)(\\.[^/]+|venv)(/|$) ."
    assert read_text_calls(text, {"run_python_command"})[1] == "Then I will look."
    both = calls_in_text('{"name": "a", "arguments": {"p": "a\\\\b \\q"}} x', {"a"})
    assert both == [("a", '{"p": "a\\\\b \\\\q"}')]  # an escaped backslash stays one
