"""Locate the data folders (schemas/, templates/, git_hooks/) in a wheel or a source checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """Return the folder `name`: packaged under `_data/` in a wheel, at the repo top in a checkout."""
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"jacked-vault data folder {name!r} is missing from this install")


def data_file(folder: str, name: str) -> Path:
    return data_dir(folder) / name
