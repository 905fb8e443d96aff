"""Benchmark harness: datasets of build failures, their validation, runs and reports.

Submodules import their heavy dependencies (pydantic) themselves; importing this package is free.
"""
