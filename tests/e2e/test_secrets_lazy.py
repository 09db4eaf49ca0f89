"""The secret scanner compiles its rules on first use: a process that scans nothing (most CLI
calls) does not pay for them (nor imports RE2), and the first scan finds what it always found,
compiling only the exact rules its RE2 prefilter set hit."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import re, sys
import jacked_vault.safety.secrets as secrets
assert 're2' not in sys.modules
compiled = sum('pattern' in vars(rule) for rule in secrets._RULES)
found = secrets.scan_text('ci uses ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 here')
print(compiled, sum('pattern' in vars(rule) for rule in secrets._RULES), len(secrets._RULES), found)
"""


def test_rules_compile_on_the_first_scan() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    before, after, rules, found = out.split(maxsplit=3)
    assert int(before) == 0
    assert int(after) == 1 < int(rules)  # only the rule whose prefilter hit: GitHub's
    assert found.strip() == "['GitHub token']"
