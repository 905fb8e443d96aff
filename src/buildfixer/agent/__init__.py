"""Agents that repair builds: the tool loop, its baselines, the recipes policy, trajectories."""
