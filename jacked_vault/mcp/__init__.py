"""The MCP front end: a stdio server (`jacked-memory-mcp`) and its registration in each harness.

`server` serves the tools (`tools/`, one module each) with the SDK's low-level `Server` over
the screened stdio of `stdio` and `protocol`; `settings` reads the launch environment;
`registration` writes the server entry into Claude Code, Codex, Cursor and OpenCode configs.
None imports the MCP SDK until it is needed.
"""

SERVER_NAME = "jacked-memory"
