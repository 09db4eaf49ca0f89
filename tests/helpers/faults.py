"""Faults injected into a real CLI run: a child script that SIGKILLs itself at one precise write.

Usage: write KILL_AT_WRITE to a file and run `python FILE VAULT N|commit memory ...`.
"""

KILL_AT_WRITE = """
import os, signal, sys

from jacked_vault.cli.main import main
from jacked_vault.safety import fsio
from jacked_vault.store import git

# A real SIGKILL at one precise point of the command in argv[3:]: after the vault's Nth
# working-tree write (a note, index.md, a tombstone or audit file: fsio's create, replace and
# remove below the vault root), or with "commit" right after git moved the branch.
vault, kill_at, command = os.path.realpath(sys.argv[1]), sys.argv[2], sys.argv[3:]
done = 0


def killing(write):
    def counted(root, rel, *args, **kwargs):
        global done
        write(root, rel, *args, **kwargs)
        if os.path.realpath(root) == vault:
            done += 1
            if done == int(kill_at):
                os.kill(os.getpid(), signal.SIGKILL)

    return counted


if kill_at == "commit":
    git._stage = lambda root, paths: os.kill(os.getpid(), signal.SIGKILL)
else:
    for name in ("create_file", "replace_file", "remove_file"):
        setattr(fsio, name, killing(getattr(fsio, name)))
sys.exit(main(command))
"""
