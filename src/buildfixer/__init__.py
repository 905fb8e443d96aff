"""buildfixer: repair broken builds with LLM agents, measure them, and train them.

Importing the package must stay cheap: heavy dependencies (litellm, rich, typer)
are imported inside the functions that need them.
"""

__version__ = "0.1.0"
