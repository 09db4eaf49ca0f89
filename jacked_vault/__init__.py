"""jacked-vault: a git-native memory vault for coding agents."""

__version__ = "0.1.0"
