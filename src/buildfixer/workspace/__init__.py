"""Isolated working copies of a repository at a commit."""
