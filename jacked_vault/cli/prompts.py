"""Asking a person at a terminal: a line (`ask`), one answer out of a list (`choose`), yes or no
(`confirm`), a text in their editor (`edit_text`).

All talk on stderr (stdout is the command's result) and never echo what the person typed."""

from __future__ import annotations

import sys

from jacked_vault.errors import VaultError


def ask(question: str, default: str = "", *, required: bool = False) -> str:
    """One line typed at the terminal (`default` when empty; asked again while empty when
    `required`). The question goes to stderr and nothing to stdout (click's prompt writes a
    space there, into the command's result); end of input aborts."""
    import typer

    while True:
        sys.stderr.write(f"{question} [{default}]: " if default else f"{question}: ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise typer.Abort()
        answer = line.strip() or default
        if answer or not required:
            return answer


def choose(question: str, answers: dict[str, str], default: str) -> str:
    """Ask `question` until the answer is exactly one of `answers`' keys (`a`) or its whole word
    (`accept`), in any case; return the key. Anything else (`x`, `arduplicate`) asks again."""
    words = {word: key for key, names in answers.items() for word in (key, *names.split("|"))}
    while True:
        answer = ask(question, default).lower()
        if answer in words:
            return words[answer]
        sys.stderr.write(f"please answer {', '.join(answers)} (one letter, or its whole word)\n")


def confirm(question: str, default: bool = True) -> bool:
    """Ask a yes/no `question` (`default` on an empty answer); True for yes."""
    return choose(question + " [y]es, [n]o", {"y": "yes", "n": "no"}, default="y" if default else "n") == "y"


def edit_text(text: str) -> str | None:
    """`text` opened in the person's editor ($VISUAL, else $EDITOR, else vi); returns what they
    saved, or None when they saved an empty text (a failed editor is a USAGE error). The editor gets the terminal
    (stdin, and stderr for its output too, since stdout carries the command's result)."""
    import os
    import shlex
    import subprocess
    import tempfile

    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = []
    if not argv:
        raise VaultError("USAGE", "$EDITOR is not a command line; set it to your editor (e.g. EDITOR=nano)")
    with tempfile.TemporaryDirectory(prefix="jacked-edit-") as folder:
        path = os.path.join(folder, "note.md")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            done = subprocess.run(
                [*argv, path],
                stdin=sys.stdin.fileno(),
                stdout=sys.stderr.fileno(),
                stderr=sys.stderr.fileno(),
                check=False,
            )
        except OSError:
            raise VaultError(
                "USAGE", "the editor could not be started; set $EDITOR to your editor (e.g. EDITOR=nano)"
            ) from None
        if done.returncode != 0:
            raise VaultError("USAGE", f"the editor exited with status {done.returncode}; nothing was saved from it")
        try:
            with open(path, encoding="utf-8") as handle:
                edited = handle.read()
        except (OSError, UnicodeDecodeError):
            raise VaultError(
                "USAGE", "the edited text could not be read back as UTF-8; nothing was saved from it"
            ) from None
    return edited if edited.strip() else None
