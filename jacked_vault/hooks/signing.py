"""Signed reviews in one step (SPEC 5.5 as amended): `jacked memory signing`, and what `enable`
offers.

A review counts on another machine only when git verifies its commit against a key that machine
trusts. This sets that up with what the person already has: the ssh key their git signs with
(`user.signingkey`, `gpg.format ssh`), else their own ssh key (`~/.ssh/id_ed25519`, …), which it
then names to git for the vault only. It writes three things, each machine-local and none in the
vault: the allowed-signers file (git's ssh format: this person's key and the teammates' keys given
with `--add`, each a public key file or line), `settings.review.allowed_signers` in the machine
config, and the vault's own git config. Nothing is written until every key was read and checked;
a second run adds only what is missing. git signs (`commit-tree -S`) and git verifies
(`%G?` against the file): no signature code here.

GPG keys are not taken: the allowed-signers file, which is what lets a team's machines agree on
whom to trust without a shared keyring, holds ssh keys only.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.errors import VaultError
from jacked_vault.safety import fsio
from jacked_vault.store.git import open_repo

if TYPE_CHECKING:
    import pygit2

KEY_TYPES = frozenset(
    {
        "ssh-ed25519",
        "ssh-rsa",
        "ecdsa-sha2-nistp256",
        "ecdsa-sha2-nistp384",
        "ecdsa-sha2-nistp521",
        "sk-ssh-ed25519@openssh.com",
        "sk-ecdsa-sha2-nistp256@openssh.com",
    }
)
DEFAULT_KEYS = ("id_ed25519", "id_ecdsa", "id_rsa")  # what ssh-keygen makes, most wanted first
SIGNERS_NAME = "allowed_signers"  # beside the machine config, unless it names another file
MAX_KEY_FILE = 64 * 1024
_PRINCIPAL = re.compile(r"[^A-Za-z0-9@._+*-]+")


@dataclass(frozen=True)
class Key:
    """One public key, as an allowed-signers line gives it."""

    principal: str
    kind: str
    blob: str  # base64

    @property
    def fingerprint(self) -> str:
        """`SHA256:…`, as `ssh-keygen -l` shows it."""
        digest = hashlib.sha256(base64.b64decode(self.blob)).digest()
        return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")

    def line(self) -> str:
        return f'{self.principal} namespaces="git" {self.kind} {self.blob}'

    def to_json(self) -> dict[str, Any]:
        return {"principal": self.principal, "type": self.kind, "fingerprint": self.fingerprint}


@dataclass(frozen=True)
class SigningPlan:
    """What `setup_signing` would do on this machine, read without writing anything: the key git
    signs with (and whether git must be told of it), and where the trusted keys go."""

    key: Key
    signing_key: str  # what `user.signingkey` names (a key file, or `key::…`)
    tell_git: bool  # the vault's git config must name the key (it signs with nothing yet)
    signers: Path

    def offer(self) -> str:
        """One line for `enable` to ask with."""
        return (
            f"sign your reviews with your ssh key {self.signing_key} ({self.key.fingerprint}) and trust it on this "
            f"machine ({self.signers})"
        )


@dataclass(frozen=True)
class SigningSetup:
    """What `setup_signing` did."""

    signers: Path
    machine_config: Path
    keys: list[Key]  # every key the allowed-signers file trusts for git
    added: list[Key] = field(default_factory=list)
    git_config: list[str] = field(default_factory=list)  # `key=value` set in the vault's git config
    config_changed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "signers": str(self.signers),
            "machine_config": str(self.machine_config),
            "keys": [k.to_json() for k in self.keys],
            "added": [k.to_json() for k in self.added],
            "git_config": self.git_config,
            "config_changed": self.config_changed,
        }

    def to_text(self) -> str:
        lines = [f"trusted keys: {self.signers} ({len(self.keys)})"]
        lines += [f"  added {k.principal} {k.kind} {k.fingerprint}" for k in self.added]
        if self.config_changed:
            lines.append(f"{self.machine_config}: review.allowed_signers names it")
        lines += [f"vault git config: {setting}" for setting in self.git_config]
        if not (self.added or self.config_changed or self.git_config):
            lines.append("already set up: nothing changed")
        lines.append(
            "your accepts and forgets are signed from now on; a teammate's count here once their key is added "
            "(`jacked memory signing --add THEIR_KEY.pub`)"
        )
        return "\n".join(lines)


def plan_signing(vault: Path) -> SigningPlan:
    """This person's signing key and where trusted keys go; USAGE when there is no ssh key to use."""
    from jacked_vault.store.config import machine_config_path, machine_review

    config = open_repo(vault).config  # git's own settings as they apply to the vault (global ones included)
    fmt = _setting(config, "gpg.format") or "openpgp"
    named = _setting(config, "user.signingkey")
    principal = _principal(_setting(config, "user.email") or _setting(config, "user.name") or "me")
    signers = machine_review().signers or machine_config_path().parent / SIGNERS_NAME
    if named and fmt != "ssh":
        raise VaultError(
            "USAGE",
            f"your git signs with {fmt} (user.signingkey {named}); trusted review keys are ssh keys (git's "
            "allowed-signers format). Point git at an ssh key, e.g. `git config --global gpg.format ssh` and "
            "`git config --global user.signingkey ~/.ssh/id_ed25519.pub`, then run this again; nothing was changed",
        )
    if named:
        return SigningPlan(_key_of(named, principal), named, False, signers)
    home = Path(os.path.expanduser("~")) / ".ssh"
    for name in DEFAULT_KEYS:
        if (home / f"{name}.pub").is_file():
            chosen = home / name if (home / name).is_file() else home / f"{name}.pub"
            return SigningPlan(_key_of(str(chosen), principal), str(chosen), True, signers)
    raise VaultError(
        "USAGE",
        f"no ssh key to sign with: git names no user.signingkey and {home} holds none of "
        f"{', '.join(n + '.pub' for n in DEFAULT_KEYS)}. Make one (`ssh-keygen -t ed25519`), then run this again; "
        "nothing was changed",
    )


def setup_signing(vault: Path, add: Sequence[str] = ()) -> SigningSetup:
    """Trust this person's key and the teammates' (`add`: public key files or lines), name the
    allowed-signers file in the machine config, and have git sign with the key (see the module)."""
    plan = plan_signing(vault)
    given = [key for spec in add for key in _keys_given(spec)]  # every key read and checked before a write
    held = _held(plan.signers)
    known = {(k.kind, k.blob) for k in held}
    added = []
    for key in [plan.key, *given]:
        if (key.kind, key.blob) not in known:
            added.append(key)
            known.add((key.kind, key.blob))
    from jacked_vault.store.config import machine_config_edit

    def named(current: object) -> object:
        same = isinstance(current, str) and Path(os.path.expanduser(current)) == plan.signers
        return current if same else str(plan.signers)

    edit = machine_config_edit(["settings", "review", "allowed_signers"], named)  # checked before any write
    if added:
        _write_signers(plan.signers, added)
    edit.write()
    settings = [("gpg.format", "ssh"), ("user.signingkey", plan.signing_key)] if plan.tell_git else []
    if settings:
        config = open_repo(vault).config
        for name, value in settings:
            config[name] = value  # the vault's own .git/config: this machine, this vault only
    return SigningSetup(
        plan.signers, edit.path, [*held, *added], added, [f"{n}={v}" for n, v in settings], edit.text is not None
    )


# -- keys -------------------------------------------------------------------------------------------


def _key_of(named: str, principal: str) -> Key:
    """The public key `user.signingkey` names: a literal (`key::ssh-…`, `ssh-…`), a `.pub` file, or a
    private key file whose `.pub` lies beside it."""
    literal = named.removeprefix("key::")
    if literal.split(" ", 1)[0] in KEY_TYPES:
        return _parse_line(literal, principal, named)
    path = Path(os.path.expanduser(named))
    public = path if path.name.endswith(".pub") else path.with_name(path.name + ".pub")
    keys = _keys_in(public, principal)
    if len(keys) != 1:
        raise VaultError("USAGE", f"{public}: not one ssh public key; nothing was changed")
    return keys[0]


def _keys_given(spec: str) -> list[Key]:
    """The keys one `--add` gives: a file of public keys (or allowed-signers lines), or one line."""
    if spec.split(" ", 1)[0] in KEY_TYPES or " ssh-" in spec or " ecdsa-" in spec or " sk-" in spec:
        return [_parse_line(spec, "", "--add")]
    path = Path(os.path.expanduser(spec))
    keys = _keys_in(path, _principal(path.name.removesuffix(".pub")))
    if not keys:
        raise VaultError("USAGE", f"{path}: holds no ssh public key; nothing was changed")
    return keys


def _keys_in(path: Path, principal: str) -> list[Key]:
    try:
        raw = fsio.read_capped(path, MAX_KEY_FILE)
    except VaultError as exc:
        raise VaultError("USAGE", f"{path}: {exc.message}; nothing was changed") from None
    if raw is None:
        raise VaultError("USAGE", f"{path}: no such key file; nothing was changed")
    lines = [line.strip() for line in raw.decode("utf-8", "replace").splitlines()]
    return [_parse_line(line, principal, str(path)) for line in lines if line and not line.startswith("#")]


def _parse_line(line: str, principal: str, source: str) -> Key:
    """`[principal [options]] type base64 [comment]` -> Key; USAGE when it holds no valid key."""
    words = line.split()
    at = next((i for i, word in enumerate(words) if word in KEY_TYPES), None)
    if at is None or at + 1 >= len(words) or not _valid(words[at], words[at + 1]):
        raise VaultError("USAGE", f"{source}: not an ssh public key line; nothing was changed")
    named = words[0] if at > 0 else (words[at + 2] if at + 2 < len(words) else "")
    return Key(_principal(named) if named else principal or "team", words[at], words[at + 1])


def _valid(kind: str, blob: str) -> bool:
    """The blob is base64 of an ssh public key of that type (its first field names the type)."""
    try:
        raw = base64.b64decode(blob, validate=True)
    except ValueError:
        return False
    size = int.from_bytes(raw[:4], "big") if len(raw) >= 4 else -1
    return raw[4 : 4 + size] == kind.encode() and len(raw) > 4 + size


def _principal(text: str) -> str:
    """An allowed-signers principal (no spaces or quotes): `ada@example.org`."""
    return _PRINCIPAL.sub("-", text).strip("-") or "me"


# -- the files ---------------------------------------------------------------------------------------


def _held(signers: Path) -> list[Key]:
    """The keys the allowed-signers file already trusts (none when there is no file)."""
    if not signers.exists():
        return []
    return _keys_in(signers, "")


def _write_signers(signers: Path, added: list[Key]) -> None:
    before = fsio.read_capped(signers, MAX_KEY_FILE) or b""
    if before and not before.endswith(b"\n"):
        before += b"\n"
    fsio.write_file(signers, before + "".join(k.line() + "\n" for k in added).encode(), through_symlink=True)


def _setting(config: pygit2.Config, name: str) -> str | None:
    try:
        value = config[name]
    except KeyError:
        return None
    return value.strip() or None if isinstance(value, str) else None
