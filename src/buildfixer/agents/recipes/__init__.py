"""The `recipes` policy: deterministic repairs of known build failures (`diagnose`), no model involved."""
