"""The benchmark: datasets of build failures, their validation, and resumable runs of agents on them.

Reports of the runs live in `report`. Submodules import their heavy dependencies (pydantic)
themselves; importing this package is free.
"""
