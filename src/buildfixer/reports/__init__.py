"""Reports of benchmark runs: pass@k with intervals, the studies' tables, comparisons, charts.

Read-only over run directories (`bench.rundir`) and datasets (`bench.dataset`); nothing here runs a build.
"""
