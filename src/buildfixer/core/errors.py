"""Exceptions that carry a message meant for the user."""


class BuildfixerError(Exception):
    """Bad usage or setup: the CLI prints the message on one line and exits with code 2."""

    exit_code = 2


class ToolError(Exception):
    """A failure the model should see and can act on ("no such file: app/build.gradle").

    Defined here, at the bottom of the import graph, because `core.confined` (used by every
    layer) raises it; the tools import it from `tools.base`.
    """
