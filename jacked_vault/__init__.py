"""jacked-vault: a git-native memory vault for coding agents."""

__version__ = "0.1.0"
SERVER_NAME = "jacked-memory"  # the name our MCP server has in every harness's config and in its handshake
