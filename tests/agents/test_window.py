"""fit_window: older tool outputs condensed as the conversation outgrows the budget."""

from __future__ import annotations

import copy
import json

from buildfixer.agents.window import condensed_output, estimate_tokens, fit_window

BIG = "\n".join(f"line {i} of a long build output" for i in range(400))  # ~3,500 tokens


def conversation(outputs: int, output: str = BIG) -> list[dict]:
    """System, first user message, then `outputs` rounds of one tool call and its result."""
    messages: list[dict] = [
        {"role": "system", "content": "You repair builds. " * 50},
        {"role": "user", "content": "The build fails:\n" + "error: cannot find symbol\n" * 100},
    ]
    for i in range(outputs):
        messages.append({
            "role": "assistant", "content": "",
            "tool_calls": [{"id": f"c{i}", "type": "function",
                            "function": {"name": "run_build", "arguments": json.dumps({"n": i})}}],
        })  # fmt: skip
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"RESULT {i}\n{output}"})
    return messages


def tool_contents(messages: list[dict]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "tool"]


def test_a_conversation_that_fits_is_returned_unchanged_as_a_copy() -> None:
    messages = conversation(2)
    fitted = fit_window(messages, 100_000)
    assert fitted == messages and fitted is not messages
    assert all(a is not b for a, b in zip(fitted, messages, strict=True))


def test_oldest_outputs_are_condensed_first_and_the_last_ones_kept() -> None:
    messages = conversation(6)
    original = copy.deepcopy(messages)
    budget = estimate_tokens(messages) - 6_000  # two outputs' worth too much
    fitted = fit_window(messages, budget, keep_last=2)
    assert messages == original  # the caller's conversation is not touched
    assert estimate_tokens(fitted) <= budget
    contents = tool_contents(fitted)
    assert contents[0].startswith("RESULT 0\nline 0 of") and contents[0].endswith(
        "[older output condensed: 401 lines]"
    )
    assert contents[1].endswith("[older output condensed: 401 lines]")
    assert contents[2:] == tool_contents(original)[2:]  # only as many as needed, oldest first
    assert fitted[0] == original[0] and fitted[1] == original[1]


def test_the_pairing_of_calls_and_results_stays_valid() -> None:
    messages = conversation(8)
    fitted = fit_window(messages, 2_000, keep_last=1)
    assert [m["role"] for m in fitted] == [m["role"] for m in messages]
    for call, result in zip(fitted[2::2], fitted[3::2], strict=True):
        assert call["tool_calls"][0]["id"] == result["tool_call_id"]
    assert fitted[2::2] == messages[2::2]  # assistant messages are never changed


def test_system_first_user_and_last_k_results_are_never_condensed() -> None:
    messages = conversation(5)
    fitted = fit_window(messages, 10, keep_last=3)  # an impossible budget: shorten all that may be
    assert fitted[0] == messages[0] and fitted[1] == messages[1]
    contents = tool_contents(fitted)
    assert all(c.endswith("[older output condensed: 401 lines]") for c in contents[:2])
    assert contents[2:] == tool_contents(messages)[2:]
    # The last resort keeps one line of each older output.
    assert contents[0] == "RESULT 0\n[older output condensed: 401 lines]"


def test_keep_last_larger_than_the_outputs_keeps_them_all() -> None:
    messages = conversation(2)
    assert fit_window(messages, 10, keep_last=5) == messages
    assert tool_contents(fit_window(messages, 10, keep_last=0))[1].endswith("lines]")


def test_condensing_again_keeps_the_original_line_count_and_short_outputs_stay() -> None:
    once = condensed_output("a\nb\nc\nd\ne", head_lines=3)
    assert once == "a\nb\nc\n[older output condensed: 5 lines]"
    assert condensed_output(once, head_lines=1) == "a\n[older output condensed: 5 lines]"
    assert condensed_output("x" * 1000, head_lines=1).startswith("x" * 200 + "...\n")
    messages = conversation(3, output="short")
    assert tool_contents(fit_window(messages, 10, keep_last=0)) == tool_contents(messages)


def test_content_given_as_parts_is_counted_and_condensed() -> None:
    messages = conversation(3)
    messages[3]["content"] = [{"type": "text", "text": messages[3]["content"]}]
    assert estimate_tokens(messages) > 3 * 3_000
    fitted = fit_window(messages, estimate_tokens(messages) - 1_000, keep_last=1)
    assert isinstance(fitted[3]["content"], str) and fitted[3]["content"].endswith("401 lines]")
