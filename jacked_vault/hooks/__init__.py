"""Harness hooks: the fail-open `jacked _hook` dispatcher and installers for harness settings."""
