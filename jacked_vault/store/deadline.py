"""A point in time that bounded work must end by (the SessionStart pull's cap, SPEC 10).

The work asks `check(doing)` between steps it can stop at without leaving anything half done,
and gives what it waits on `left()` seconds at most; past the deadline `check` raises
`OutOfTime`, which says where the work stopped. Time is `now()` (the monotonic clock).
"""

from __future__ import annotations

import time
from dataclasses import dataclass


class OutOfTime(Exception):
    """The deadline passed before the work was done; `doing` says what was left undone."""

    def __init__(self, doing: str) -> None:
        super().__init__(doing)
        self.doing = doing


def now() -> float:
    """The clock every deadline reads (seconds, monotonic)."""
    return time.monotonic()


@dataclass(frozen=True)
class Deadline:
    at: float  # `now()` value the work must end by
    seconds: float  # the cap it was given, for messages

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(now() + seconds, seconds)

    def left(self) -> float:
        """Seconds until the deadline (0 once it has passed)."""
        return max(0.0, self.at - now())

    def check(self, doing: str) -> None:
        """OutOfTime(`doing`) once the deadline has passed."""
        if now() >= self.at:
            raise OutOfTime(doing)
