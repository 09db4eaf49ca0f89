"""Episodic memory: per-repo day files of one-line session entries, rolled up into recent/archive."""
