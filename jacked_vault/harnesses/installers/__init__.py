"""The files each harness reads its session hooks from, written, reported and removed: one module
per harness (Claude's settings.json, Codex's config.toml, Cursor's hooks.json, OpenCode's plugin).
The adapters (`harnesses.<name>`) call them; nothing here asks the registry."""
