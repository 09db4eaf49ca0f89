"""The secret scanner compiles its rules on first use: a process that scans nothing (most CLI
calls) does not pay for them, and the first scan finds what it always found."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import re
import jacked_vault.safety.secrets as secrets
compiled = sum('pattern' in vars(rule) for rule in secrets._RULES)
found = secrets.scan_text('ci uses ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 here')
print(compiled, sum('pattern' in vars(rule) for rule in secrets._RULES), len(secrets._RULES), found)
"""


def test_rules_compile_on_the_first_scan() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    before, after, rules, found = out.split(maxsplit=3)
    assert int(before) == 0
    assert 40 < int(after) <= int(rules)  # gated rules wait for their context word
    assert found.strip() == "['GitHub token']"
