"""Session capture: transcript reading, the distiller contract, the capture and its retry queue.

Modules import lazily from here so a hook pays only for what it uses:

- `transcript.read_transcript(path)`: a bounded, defensive JSONL parse of a Claude Code transcript;
- `distiller`: the `settings.distill.command` contract (prompt on stdin, JSON answer out);
- `session.capture_session(ctx, payload, reader=…)`: one episodic entry, at most one candidate note,
  the session read by its harness's reader (`readers.SessionReader`, the harness adapter);
- `queue.enqueue(cache_dir, payload)` / `queue.drain(ctx_factory, cache_dir)`: the retry queue.
"""
