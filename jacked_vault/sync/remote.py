"""The network side of sync, through the person's own `git` (their credentials and ssh config):
fetch, push, and the `origin` URL. Nothing here resets or force-pushes; a URL is never printed
with the credentials it may embed."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.safety.text import check_text, strip_terminal
from jacked_vault.store.children import run_tethered
from jacked_vault.store.gitfiles import child_env, origin_url

NETWORK_TIMEOUT_S = 60.0
_USERINFO = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<user>[^/@]*)@")


def display_url(url: str | None) -> str | None:
    """`url` with any password or token in it replaced by `***` (`https://***@host/…`)."""
    if not url:
        return url
    match = _USERINFO.match(url)
    if match is None:
        return url
    user = match.group("user")
    shown = "***" if ":" in user or len(user) > 20 else user  # a long bare "user" is a token
    return f"{match.group('scheme')}{shown}@{url[match.end() :]}"


def check_url(url: str) -> str:
    """`url` stripped, or USAGE/VALIDATION when empty, over-long or holding control characters."""

    url = url.strip()
    if not url or len(url) > 2048:
        raise VaultError("USAGE", "give a remote URL (at most 2048 characters)")
    check_text("remote URL", url, multiline=False)
    return url


def git_env(root: Path | None, timeout: float = NETWORK_TIMEOUT_S) -> dict[str, str]:
    """The environment of a network git for the vault at `root` (None: no vault yet, a clone):
    the store's repository, never a hook's (`child_env`); the person's own ssh command with only
    the no-prompt options added (`ssh_command`, its config read within `timeout`); and git's
    messages in its own words (the C locale; `LANGUAGE` would still translate them), since
    `fetch` and `push` read them."""
    env = child_env({"LC_ALL": "C", **NO_PROMPT_ENV, "GIT_SSH_COMMAND": ssh_command(root, timeout)})
    env.pop("LANGUAGE", None)
    return env


# What keeps a network git and its ssh from ever waiting on a person (a hook has none to ask);
# credential helpers, which answer without one, still run.
NO_PROMPT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",  # git never asks on a terminal
    "GIT_ASKPASS": "",  # nor runs an askpass program: set and empty, it stops git before core.askPass and SSH_ASKPASS
    "SSH_ASKPASS_REQUIRE": "never",  # ssh never runs one either (OpenSSH 8.4+; BatchMode before)
    "GCM_INTERACTIVE": "never",  # Git Credential Manager answers from its store, never opens a window
}
# The options that stop an ssh command prompting, by git's ssh variant (`ssh.variant`): OpenSSH's
# BatchMode (for an unknown program too, which git also takes for OpenSSH when it answers `-G`),
# PuTTY's `-batch`; git gives tortoiseplink `-batch` itself, and a `simple` command takes no options.
BATCH_OPTIONS = {"ssh": " -o BatchMode=yes", "auto": " -o BatchMode=yes", "plink": " -batch", "putty": " -batch"}


def ssh_command(root: Path | None, timeout: float = NETWORK_TIMEOUT_S) -> str:
    """The ssh command git would run for the vault at `root`, chosen in git's own order
    (`GIT_SSH_COMMAND`, else `core.sshCommand` from the vault's or the person's git config,
    else the program `GIT_SSH`, else `ssh`), with the options that keep it from prompting added
    (`BATCH_OPTIONS`): the person's key, port, config and known hosts all still apply."""
    import shlex

    config = _ssh_config(root, timeout)
    command = os.environ.get("GIT_SSH_COMMAND") or config.get("core.sshcommand")
    if not command:
        program = os.environ.get("GIT_SSH")
        command = shlex.quote(program) if program else "ssh"
    variant = os.environ.get("GIT_SSH_VARIANT") or config.get("ssh.variant") or _variant(command)
    return command + BATCH_OPTIONS.get(variant.lower(), "")


def _variant(command: str) -> str:
    """git's ssh variant from the command's program name (`connect.c`): ssh, plink, putty,
    tortoiseplink, or auto (any other program)."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    name = os.path.basename(words[0]).lower().removesuffix(".exe") if words else ""
    return name if name in ("ssh", "plink", "putty", "tortoiseplink") else "auto"


def _ssh_config(root: Path | None, timeout: float) -> dict[str, str]:
    """`core.sshcommand` and `ssh.variant` as git reads them for the vault at `root` (its own,
    the person's global and the system config, includes followed), the global and system ones
    only when `root` is None; {} when git cannot say within `timeout`."""
    args = ["git", "config", "--includes", "--get-regexp", r"^(core\.sshcommand|ssh\.variant)$"]
    env = child_env({"LC_ALL": "C"})
    if root is None:
        env["GIT_DIR"] = os.devnull  # no repository: git reads the global and system config only
    else:
        args[1:1] = ["-C", str(root)]
    try:
        done = subprocess.run(
            args, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace", env=env, timeout=timeout
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    found: dict[str, str] = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition(" ")
        found[key.lower()] = value  # the last value wins, as in git
    return found


def run_git(
    root: Path, *args: str, timeout: float = NETWORK_TIMEOUT_S, in_vault: bool = True
) -> subprocess.CompletedProcess[str]:
    """`git -C root args…` with a hard timeout; SYNC if it cannot run or takes too long. git runs
    tethered (`store.children`): in a process group of its own, which a timeout ends, and which
    dies with this process however it dies (its ssh child too). `in_vault`: `root` is the vault
    (False for a clone into a new folder: the config of whatever repository holds `root` is none
    of its business)."""
    import time

    command = ["git", "-C", str(root), *args]
    started = time.monotonic()
    env = git_env(root if in_vault else None, timeout)  # within the same timeout: it is git's too
    try:
        return run_tethered(
            command, timeout=max(0.0, timeout - (time.monotonic() - started)), stdin=subprocess.DEVNULL, text=True,
            env=env,
        )  # fmt: skip
    except OSError as exc:
        raise VaultError("SYNC", f"git could not run: {exc.strerror}") from None
    except subprocess.TimeoutExpired:
        raise VaultError(
            "SYNC", f"`git {args[0]}` took longer than {round(timeout, 1):g} s; nothing was changed locally"
        ) from None


def one_line(text: str, url: str | None = None) -> str:
    """git's stderr as one bounded line, terminal controls stripped, the remote's credentials masked."""

    text = " ".join(strip_terminal(text).split())[:400]
    if url and display_url(url) != url:
        text = text.replace(url, display_url(url) or "")
    return text


SERVER_WORDS_MAX = 160  # characters of what a server says that a message quotes


def quoted(text: str, limit: int = SERVER_WORDS_MAX) -> str:
    """Words a server chose, as data: terminal controls stripped, one line, bounded, in JSON quotes."""
    import json

    words = " ".join(strip_terminal(text).split())
    if len(words) > limit:
        words = words[:limit] + "…"
    return json.dumps(words, ensure_ascii=False)


def server_said(stderr: str) -> str:
    """What the server printed (git's `remote: ` lines), one by one, as it said it."""
    lines = (line.strip() for line in re.split(r"[\r\n]", stderr))
    return " / ".join(said for line in lines if line.startswith("remote:") and (said := line[7:].strip()))


def origin(root: Path) -> str | None:
    return origin_url(root)


def fetch(root: Path, branch: str, timeout: float = NETWORK_TIMEOUT_S) -> None:
    """Fetch `origin/<branch>` into its remote-tracking ref (never touches the working tree)."""
    url = origin(root)
    if not url:
        raise VaultError("SYNC", "no remote is set; run `jacked memory remote set URL`")
    proc = run_git(
        root,
        "fetch",
        "--quiet",
        "--no-tags",
        "origin",
        f"+refs/heads/{branch}:refs/remotes/origin/{branch}",
        timeout=timeout,
    )
    if proc.returncode != 0:
        if "couldn't find remote ref" in proc.stderr:
            return  # an empty remote: nothing to fetch yet
        raise VaultError("SYNC", f"fetch failed: {one_line(proc.stderr, url)}")


class PushRace(VaultError):
    """The push lost a race: the remote's branch moved between this machine's fetch and its push
    (another machine pushed first). Fetching and integrating again settles it; `reason` is git's."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            "SYNC",
            "the remote has commits this vault does not (another machine pushed first); run `jacked memory sync` "
            "(nothing was overwritten)",
            details={"push": "race"},
        )
        self.reason = reason


def push(root: Path, branch: str) -> None:
    """`git push origin <branch>:<branch>` (never forced). A failure says which it was
    (`details["push"]`): `race` (PushRace: the remote moved on, someone pushed first, or the server
    could not lock the branch for another push; fetching and integrating again settles it),
    `refused` (the server's own rule declined it: its reason and what it said, quoted as data) or
    `failed` (the link, the credentials: git's reason). Only a race is ever worth trying again."""
    url = origin(root)
    if not url:
        raise VaultError("SYNC", "no remote is set; run `jacked memory remote set URL`")
    proc = run_git(
        root, "push", "--quiet", "--porcelain", "--set-upstream", "origin", f"refs/heads/{branch}:refs/heads/{branch}"
    )
    summary = _ref_summary(proc.stdout, branch)
    if proc.returncode == 0 and not summary:
        return
    race = lost_race(summary, proc.stderr)
    if race is not None:
        raise PushRace(race)
    if summary.startswith("[remote rejected]"):
        reason = one_line(summary.removeprefix("[remote rejected]").strip().removeprefix("(").removesuffix(")"), url)
        said = one_line(server_said(proc.stderr), url)
        raise VaultError(
            "SYNC",
            "the remote refused the push"
            + (f"; the server said: {quoted(said)}" if said else "")
            + f" (reason: {quoted(reason or 'none given', 60)}). Nothing was pushed. It is the server's rule "
            "(a protected branch, a size limit, a policy), not a race: ask whoever runs the server",
            details={"push": "refused"},
        )
    raise VaultError("SYNC", f"push failed: {one_line(proc.stderr, url)}", details={"push": "failed"})


def _ref_summary(porcelain: str, branch: str) -> str:
    """The summary `git push --porcelain` gave the branch's ref (`[rejected] (fetch first)`,
    `[remote rejected] (pre-receive hook declined)`…); '' when git reported none (it never got that far)."""
    ref = f"refs/heads/{branch}:refs/heads/{branch}"
    for line in porcelain.splitlines():
        flag, _, rest = line.partition("\t")
        name, _, summary = rest.partition("\t")
        if flag == "!" and name == ref:
            return summary.strip()
    return ""


def lost_race(summary: str, stderr: str) -> str | None:
    """git's reason when the push was turned down because the branch had moved since the fetch, else
    None: `[rejected] (fetch first)` or `(non-fast-forward)` (git saw it before sending), or the
    server's `[remote rejected]` with "cannot lock ref" (another push updated or held the branch
    while this one was received). A pre-receive hook's refusal or a failed login is not a race."""
    if summary.startswith("[rejected]") and ("fetch first" in summary or "non-fast-forward" in summary):
        return summary.removeprefix("[rejected]").strip(" ()")
    if summary.startswith("[remote rejected]") and "cannot lock ref" in stderr:
        return "cannot lock ref"
    return None
