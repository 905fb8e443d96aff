"""Exceptions that carry a message meant for the user."""


class BuildfixerError(Exception):
    """Bad usage or setup: the CLI prints the message on one line and exits with code 2."""

    exit_code = 2
