"""The MCP front end: a stdio server (`jacked-memory-mcp`) and its registration in each harness.

`server` holds the tools; `registration` writes the server entry into Claude Code, Codex,
Cursor and OpenCode configs. Neither imports the MCP SDK until it is needed.
"""

SERVER_NAME = "jacked-memory"
