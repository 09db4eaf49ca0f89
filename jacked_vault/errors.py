"""Stable error codes and the one exception type every front end renders."""

from __future__ import annotations

CODES = frozenset(
    {
        "USAGE",
        "VALIDATION",
        "SECRET",
        "EXISTS",
        "NOT_FOUND",
        "INCOMPLETE",
        "UNSAFE_PATH",
        "GITIGNORE",
        "LOCKED",
        "TOMBSTONED",
        "NO_VAULT",
        "CONFIG",
        "SYNC",
        "GIT",
        "READ_ONLY",
        "INTERNAL",
    }
)


class VaultError(Exception):
    """An expected failure with a stable code (`JACKED_MEMORY_<code>`) and a safe message.

    Messages never contain note bodies or secret values.
    """

    def __init__(self, code: str, message: str, *, details: dict | None = None) -> None:
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    @property
    def full_code(self) -> str:
        return f"JACKED_MEMORY_{self.code}"

    @property
    def exit_code(self) -> int:
        return 2 if self.code == "USAGE" else 1

    def to_json(self) -> dict:
        error: dict = {"code": self.full_code, "message": self.message}
        if self.details:
            error["details"] = self.details
        return {"ok": False, "error": error}
