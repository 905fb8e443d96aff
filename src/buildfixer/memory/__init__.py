"""The fix memory: past repairs, gold patches and notes in an embedded SQLite database (FTS5)."""
