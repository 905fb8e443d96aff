"""`buildfixer mcp`: buildfixer's domain tools served to any agent over the Model Context Protocol.

The tools work in place on the user's checkout (what an agent's user expects), with the same
sandbox as everywhere else, files confined to the project and the user's git-ignored files never
written. `project.py` holds everything but the protocol (the tools' context, the toolset with
`judge`, the instructions, one call); `server.py` is the protocol, through the official `mcp` SDK
(imported only here, only when the command runs).
"""
