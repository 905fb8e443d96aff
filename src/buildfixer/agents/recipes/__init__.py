"""The `recipes` policy: deterministic repairs of known build failures (`diagnose`), no model involved."""

# The built-in offline policy's name: the model string that selects it (`fix --model recipes`),
# and the name of its agent (`--agent recipes`). Nothing is imported here, so every layer that
# spells the name (the CLI's defaults, the attempt settings) can import it cheaply.
RECIPES = "recipes"
