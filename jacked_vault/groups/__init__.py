"""Repo groups: repository identity and the repo-to-group mapping."""
