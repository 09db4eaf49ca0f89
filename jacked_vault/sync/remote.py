"""The network side of sync, through the person's own `git` (their credentials and ssh config):
fetch, push, and the `origin` URL. Nothing here resets or force-pushes; a URL is never printed
with the credentials it may embed."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
from pathlib import Path

from jacked_vault.errors import VaultError
from jacked_vault.store.gitfiles import child_env

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
    return f"{match.group('scheme')}{shown}@{url[match.end():]}"


def check_url(url: str) -> str:
    """`url` stripped, or USAGE/VALIDATION when empty, over-long or holding control characters."""
    from jacked_vault.safety.text import check_text

    url = url.strip()
    if not url or len(url) > 2048:
        raise VaultError("USAGE", "give a remote URL (at most 2048 characters)")
    check_text("remote URL", url, multiline=False)
    return url


def git_env() -> dict[str, str]:
    """The environment of a network git: the store's repository, never a hook's (`child_env`), never
    a prompt, and git's messages in its own words (the C locale; `LANGUAGE` would still translate
    them), since `fetch` and `push` read them."""
    env = child_env({"LC_ALL": "C"})
    env.pop("LANGUAGE", None)
    env.setdefault("GIT_TERMINAL_PROMPT", "0")  # never wait for a password on a hook path
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def run_git(root: Path, *args: str, timeout: float = NETWORK_TIMEOUT_S) -> subprocess.CompletedProcess:
    """`git -C root args…` with a hard timeout; SYNC if it cannot run or takes too long. git runs
    in its own process group, and a timeout ends the whole group: its ssh child too."""
    command = ["git", "-C", str(root), *args]
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=git_env(),
            start_new_session=True,
        )
    except OSError as exc:
        raise VaultError("SYNC", f"git could not run: {exc.strerror}") from None
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _end_group(proc)
        raise VaultError(
            "SYNC", f"`git {args[0]}` took longer than {timeout:g}s; nothing was changed locally"
        ) from None
    except BaseException:  # an interrupt: leave nothing running either
        _end_group(proc)
        raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def _end_group(proc: subprocess.Popen) -> None:
    """Kill git's process group and reap git; its pipes are closed unread (a child that left the
    group could hold them open for ever)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


def one_line(text: str, url: str | None = None) -> str:
    """git's stderr as one bounded line, terminal controls stripped, the remote's credentials masked."""
    from jacked_vault.safety.text import strip_terminal

    text = " ".join(strip_terminal(text).split())[:400]
    if url and display_url(url) != url:
        text = text.replace(url, display_url(url) or "")
    return text


SERVER_WORDS_MAX = 160  # characters of what a server says that a message quotes


def quoted(text: str, limit: int = SERVER_WORDS_MAX) -> str:
    """Words a server chose, as data: terminal controls stripped, one line, bounded, in JSON quotes."""
    import json

    from jacked_vault.safety.text import strip_terminal

    words = " ".join(strip_terminal(text).split())
    if len(words) > limit:
        words = words[:limit] + "…"
    return json.dumps(words, ensure_ascii=False)


def server_said(stderr: str) -> str:
    """What the server printed (git's `remote: ` lines), one by one, as it said it."""
    lines = (line.strip() for line in re.split(r"[\r\n]", stderr))
    return " / ".join(said for line in lines if line.startswith("remote:") and (said := line[7:].strip()))


def origin(root: Path) -> str | None:
    from jacked_vault.store.gitfiles import origin_url

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


def push(root: Path, branch: str) -> None:
    """`git push origin <branch>:<branch>` (never forced). A failure is SYNC saying which it was
    (`details["push"]`): `race` (the remote moved on: someone pushed first; sync settles it),
    `refused` (the server's own rule declined it: its reason and what it said, quoted as data) or
    `failed` (the link, the credentials: git's reason)."""
    url = origin(root)
    if not url:
        raise VaultError("SYNC", "no remote is set; run `jacked memory remote set URL`")
    proc = run_git(
        root, "push", "--quiet", "--porcelain", "--set-upstream", "origin", f"refs/heads/{branch}:refs/heads/{branch}"
    )
    summary = _ref_summary(proc.stdout, branch)
    if proc.returncode == 0 and not summary:
        return
    if summary.startswith("[rejected]"):
        raise VaultError(
            "SYNC",
            "the remote has commits this vault does not (another machine pushed first); run `jacked memory sync` "
            "(nothing was overwritten)",
            details={"push": "race"},
        )
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
