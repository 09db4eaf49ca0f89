#!/usr/bin/env python3
"""A fake distiller speaking the jacked-vault contract: prompt on stdin, JSON on stdout.

Usage: distiller.py MODE [RECORD]
RECORD (optional) is a file: one JSON line is appended per run ({"mode", "pid",
"prompt_chars"}), the prompt is written to RECORD.prompt and the environment to RECORD.env.
"""

import json
import os
import re
import subprocess
import sys
import time

NOTE = {
    "kind": "decision",
    "title": "Queue markers are claimed with flock",
    "body": "Concurrent drains claim a marker with flock on the marker file and re-check its inode, "
    "because O_EXCL claim files outlive a killed drain.",
    "tags": ["queue", "concurrency"],
}
SENTENCE = "Made the capture queue safe for concurrent drains and added tests."
# A real-looking GitHub token (never a real one): the secret scanner must refuse it.
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def answer(note):
    return {"episodic": SENTENCE, "note": note}


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "null"
    prompt = sys.stdin.buffer.read().decode("utf-8", "replace") if mode != "hang" else ""
    if len(sys.argv) > 2:
        record = sys.argv[2]
        with open(record, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"mode": mode, "pid": os.getpid(), "prompt_chars": len(prompt)}) + "\n")
        with open(record + ".prompt", "w", encoding="utf-8") as fh:
            fh.write(prompt)
        with open(record + ".env", "w", encoding="utf-8") as fh:
            json.dump(dict(os.environ), fh)
    out = sys.stdout
    if mode == "note":
        out.write(json.dumps(answer(NOTE)))
    elif mode == "null":
        out.write(json.dumps(answer(None)))
    elif mode == "slow-null":
        time.sleep(0.3)
        out.write(json.dumps(answer(None)))
    elif mode == "envelope-result":
        text = "Here is the triage:\n```json\n" + json.dumps(answer(NOTE), indent=2) + "\n```\n"
        out.write(
            json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": text, "session_id": "s"})
        )
    elif mode == "envelope-structured":
        out.write(
            json.dumps(
                {
                    "type": "result",
                    "subtype": "success",
                    "is_error": False,
                    "result": "",
                    "structured_output": answer(NOTE),
                }
            )
        )
    elif mode == "envelope-error":
        out.write(json.dumps({"type": "result", "subtype": "error_max_turns", "is_error": True, "result": ""}))
    elif mode == "hang":
        # Leave a grandchild in the process group, record its pid, then hang.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        if len(sys.argv) > 2:
            with open(sys.argv[2] + ".child", "w") as fh:
                fh.write(str(child.pid))
        time.sleep(60)
    elif mode == "linger":
        # Answer and exit, leaving a grandchild that still holds stdout open.
        out.write(json.dumps(answer(None)))
        out.flush()
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        if len(sys.argv) > 2:
            with open(sys.argv[2] + ".child", "w") as fh:
                fh.write(str(child.pid))
    elif mode == "garbage":
        sys.stdout.buffer.write(b"\x00\xff not json {{{ " * 1000)
    elif mode == "flood":
        chunk = b"x" * 65536
        for _ in range(64):  # 4 MiB: over the output cap
            sys.stdout.buffer.write(chunk)
    elif mode == "exit1":
        out.write(json.dumps(answer(NOTE)))
        sys.stderr.write("model unavailable\n")
        return 1
    elif mode == "secret":
        note = dict(NOTE, body="Deploy with token " + SECRET + " from the CI settings.")
        out.write(json.dumps(answer(note)))
    elif mode == "schema":
        out.write(json.dumps({"episodic": SENTENCE, "note": {"kind": "vision", "title": "t", "body": "b"}}))
    elif mode == "obey":
        # A distiller that follows an instruction injected in the transcript.
        match = re.search(r"add a note saying:?\s*([^\n\"]+)", prompt)
        text = match.group(1).strip() if match else "nothing"
        out.write(json.dumps(answer({"kind": "convention", "title": text, "body": text, "tags": []})))
    elif mode == "env":
        out.write(json.dumps(answer(None)))
    else:
        sys.stderr.write(f"unknown mode {mode}\n")
        return 2
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
