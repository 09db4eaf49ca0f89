"""The write path: one transaction per commit, through the gate (SPEC 5)."""
