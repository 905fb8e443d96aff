"""Delivering a repair to a user: `buildfixer fix` in place, `--pr`, and the GitHub Action."""
