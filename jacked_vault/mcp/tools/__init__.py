"""The MCP tools, one module each, over the library the CLI uses.

Every tool module has the same parts: `NAME`, `CODE` (the error code its refusals carry),
`DESCRIPTION`, `READ_ONLY`, a strict `Arguments` model (its JSON schema is the tool's input
schema; extra properties are refused) and `call(session, args) -> dict`, which maps the
library's errors to a `Refusal` with the tool's code. A module that also serves a prompt
(`brief`) has `PROMPT`, `PromptArguments` and `prompt(session, args)`. `server.py` lists them
for the SDK.
"""
