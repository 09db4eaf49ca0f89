"""How long work says how far it is: a callback `(done, total)` the front end draws (on a
terminal: frontend.output.tty_progress), called every PROGRESS_STEP items and once at the end."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[int, int | None], None]  # (done, of how many when known)
PROGRESS_STEP = 50  # items between two calls (the terminal line redraws at most five times a second)
Stages = Callable[[str], Progress]  # work in stages: each stage's label -> its callback
