"""Damage as a disk or a copy gone wrong does it, for the doctor's tests."""

from __future__ import annotations

from pathlib import Path


def flip(path: Path, at: int | None = None) -> None:
    """One byte of `path` damaged in place (its middle unless `at`): same size, name and folder."""
    data = bytearray(path.read_bytes())
    at = len(data) // 2 if at is None else at
    data[at] ^= 0xFF
    path.chmod(0o644)
    path.write_bytes(bytes(data))
