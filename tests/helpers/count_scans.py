"""Child process for tests/e2e/test_scan_once.py: the real `jacked` CLI, every secret scan recorded.

Usage: count_scans.py RECORD ARGS...   (ARGS as for `jacked`)

Each call of `safety.secrets.scan_fields` (what every field scan comes down to: the gate's
`scan`, an episodic entry) appends one JSON line to RECORD: the fields that call scanned.
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    record, args = sys.argv[1], sys.argv[2:]
    from jacked_vault.cli.main import main as jacked
    from jacked_vault.safety import secrets

    real = secrets.scan_fields

    def recorded(fields):
        with open(record, "a", encoding="utf-8") as out:
            out.write(json.dumps(fields, default=str) + "\n")
        return real(fields)

    secrets.scan_fields = recorded
    return jacked(args)


if __name__ == "__main__":
    sys.exit(main())
