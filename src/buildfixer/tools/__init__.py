"""The tools an agent may call: typed functions confined to a workspace, grouped into presets."""
