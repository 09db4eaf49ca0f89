"""Stable error codes and the one exception type every front end renders."""

from __future__ import annotations

from typing import Any

CODES = frozenset(
    {
        "USAGE",
        "VALIDATION",
        "SECRET",
        "EXISTS",
        "NOT_FOUND",
        "NOT_VISIBLE",
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

    def __init__(self, code: str, message: str, *, details: dict[str, Any] | None = None) -> None:
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

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.full_code, "message": self.message}
        if self.details:
            error["details"] = self.details
        return {"ok": False, "error": error}


def from_unexpected(exc: BaseException) -> VaultError:
    """What a front end shows for an exception no library function turned into a VaultError:
    a coded error with the next step, never a traceback or a repr (and never the exception's
    text, which may quote vault content)."""
    import errno

    kind = type(exc).__name__
    if type(exc).__module__ in ("_pygit2", "pygit2"):
        return VaultError(
            "GIT", f"git could not read the vault ({kind}); run `jacked memory doctor` to find what is damaged"
        )
    if type(exc).__module__ == "sqlite3":
        return VaultError(
            "INCOMPLETE",
            f"the search index failed ({kind}); it is derived: `jacked memory doctor --reindex` rebuilds it",
        )
    if isinstance(exc, OSError):
        if exc.errno == errno.ENAMETOOLONG:
            return VaultError("USAGE", "a path is longer than the file system allows (a name over 255 bytes?)")
        if exc.errno in (errno.EACCES, errno.EPERM):
            return VaultError("CONFIG", f"permission denied: {exc.filename or 'a vault file'}")
        if exc.errno == errno.ENOSPC:
            return VaultError("CONFIG", "the disk is full; nothing more could be written")
        return VaultError("INTERNAL", f"a file operation failed ({exc.strerror or kind})")
    return VaultError("INTERNAL", f"internal error ({kind}); set JACKED_DEBUG=1 to see where")
