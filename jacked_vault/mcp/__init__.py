"""The MCP front end: a stdio server (`jacked-memory-mcp`).

`server` serves the tools (`tools/`, one module each) with the SDK's low-level `Server` over
the screened stdio of `stdio` and `protocol`; `settings` reads the launch environment. Its
registration in each harness's config is `hooks.mcp`'s, under the name `jacked_vault.SERVER_NAME`.
None imports the MCP SDK until it is needed.
"""
