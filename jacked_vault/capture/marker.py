"""The distiller's marker: set in a distiller's environment, it tells every hook fired inside
that run (an agent with hooks enabled) to do nothing, so a capture never captures itself.

Kept apart from `distiller` so a hook can check it before importing anything else.
"""

from __future__ import annotations

import os

MARKER_ENV = "JACKED_DISTILLING"


def inside_distiller() -> bool:
    """True when this process runs under a distiller (the marker is set to anything non-empty)."""
    return bool(os.environ.get(MARKER_ENV))
