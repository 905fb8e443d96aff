"""Build-log analysis: parse logs into BuildError records, classify, rank, condense."""
