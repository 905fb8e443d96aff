"""The records of a model conversation: OpenAI-format messages in, a reply with tool calls out.

Messages are plain dicts in the OpenAI chat format (the format litellm speaks for every
provider), so a trajectory can be replayed against any model and exported for training as is.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]

# Two estimates of a text's tokens, for two uses (neither needs a tokenizer): `tokens_by_pieces`
# errs high, for budgets; `tokens_by_length` is the usage recorded when no provider counted it.

# Word pieces and single punctuation marks. Tokenizers (tiktoken's cl100k and
# its kin) need about one token per short word and one per punctuation mark, and
# split long identifiers and numbers into pieces of roughly four characters;
# counting ceil(len/4) per word overestimates slightly, which is the safe side
# for a budget. No network is needed, unlike tiktoken's encoding download.
_PIECE = re.compile(r"\w+|([^\w\s])\1*")


def tokens_by_pieces(text: str) -> int:
    """How many LLM tokens a text takes, erring high: what a log view takes of a token budget.

    `logs.condense` fits its view within a budget by it; the report's token kinds use it too.

    Args:
        text: any text.

    Returns:
        One token per started four characters of every run of word characters
        or of one repeated punctuation mark (`----`), at least one per run.
    """
    return sum(math.ceil(len(match.group()) / 4) for match in _PIECE.finditer(text))


def tokens_by_length(text: str) -> int:
    """The usage a call is given when no provider counted it: one token per four characters, rounded up.

    What the scripted model and the fake server report, what `LiteLLMModel` records when a reply
    has no usage, and the size `export sft` gives a tool output it leaves out.
    """
    return (len(text) + 3) // 4


@dataclass
class ToolCall:
    """One tool call as the model produced it.

    Attributes:
        id: The call id the tool result must answer.
        name: Tool name (may name a tool that does not exist).
        arguments: The raw JSON text of the arguments (may be malformed): parsing is the tools' job,
            so a malformed call becomes an error the model sees, never a crash.
    """

    id: str
    name: str
    arguments: str


@dataclass
class Usage:
    """Tokens and money of one or more model calls.

    Attributes:
        input_tokens: Prompt tokens (as reported by the provider, else estimated).
        output_tokens: Completion tokens (as reported, else estimated).
        cost_usd: Cost from the provider's price table or configured prices.
        cost_known: False when some call had no price (a local model without configured prices):
            the cost is then a lower bound, never a silent 0 presented as exact.
        estimated: True when some token count was estimated because the provider sent none.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    estimated: bool = False

    def add(self, other: Usage) -> None:
        """Accumulate another call's usage into this total."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cost_usd += other.cost_usd
        self.cost_known = self.cost_known and other.cost_known
        self.estimated = self.estimated or other.estimated

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON form."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "cost_known": self.cost_known,
            "estimated": self.estimated,
        }


@dataclass
class ModelReply:
    """The model's answer to one request.

    Attributes:
        content: Text of the reply ("" when it only calls tools).
        tool_calls: Calls to run, in order.
        usage: Tokens and cost of this call.
        duration_s: Wall time of the call, retries included.
        written: The reply's text as the model wrote it when its calls were read from that text
            (`content` is then the prose around them); "" otherwise.
    """

    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    duration_s: float = 0.0
    written: str = ""

    def message(self) -> Message:
        """The assistant message to append to the conversation."""
        # Without calls the content stays a string, even empty: a message with neither (its
        # content None, dropped by some clients) is one llama.cpp's server refuses.
        msg: Message = {"role": "assistant", "content": self.content or (None if self.tool_calls else "")}
        if self.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return msg


@dataclass(frozen=True)
class CallLimits:
    """Bounds of one model call, from what is left of the attempt's budget; None means no bound.

    Attributes:
        timeout_s: Longest wait for the reply; a call still running then is abandoned
            (`ModelTimeout`), so `--max-time` also ends a slow generation.
        max_tokens: Longest reply, in tokens (the model's own maximum still applies).
    """

    timeout_s: float | None = None
    max_tokens: int | None = None


class ModelError(Exception):
    """The model could not be reached or answered unusably after retries (fails the attempt)."""


class ModelTimeout(ModelError):
    """A call did not answer within its timeout; it is not sent again (a busy local server would queue it)."""
