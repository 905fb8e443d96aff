"""The training environment: `from buildfixer.env import BuildRepairEnv` (see env/episode.py)."""

from buildfixer.env.episode import BuildRepairEnv

__all__ = ["BuildRepairEnv"]
