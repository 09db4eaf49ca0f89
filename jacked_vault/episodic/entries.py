"""Appending one `## HH:MM | <branch>` entry to a repo's day file, under the lock, as one commit."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from jacked_vault.document import format_timestamp
from jacked_vault.errors import VaultError
from jacked_vault.safety.text import check_text
from jacked_vault.store.layout import Store, episodic_dir
from jacked_vault.store.settings import DEFAULT_SETTINGS, Settings

MAX_SENTENCE = 600
MAX_BRANCH = 120
MAX_DAY_FILE = 1024 * 1024
COMPACT_PREFIX = "compact handover: "
_BRANCH_UNSAFE = re.compile(r"[^A-Za-z0-9._/@+-]")


def day_file(group: str, identity: str, day: str) -> str:
    return f"{episodic_dir(group, identity)}/today-{day}.md"


def clean_branch(branch: str | None) -> str:
    """A branch name safe for a header line: no controls, no `|`, bounded; `-` when unknown."""
    text = _BRANCH_UNSAFE.sub("-", (branch or "").strip())[:MAX_BRANCH]
    return text or "-"


def clean_sentence(sentence: str) -> str:
    """One line of text: whitespace folded, bounded, checked for controls and secrets."""
    from jacked_vault.safety.secrets import assert_no_secrets

    text = " ".join(sentence.split())
    if not text:
        raise VaultError("VALIDATION", "an episodic entry needs a sentence")
    if len(text) > MAX_SENTENCE:
        text = text[: MAX_SENTENCE - 1].rstrip() + "…"
    check_text("entry", text, multiline=False)
    assert_no_secrets({"entry": text})
    return text


@dataclass(frozen=True)
class Entry:
    group: str
    identity: str
    when: datetime  # aware, local time
    branch: str
    sentence: str

    def header(self) -> str:
        return f"## {self.when.strftime('%H:%M')} | {clean_branch(self.branch)}"


def render_entry(entry: Entry) -> str:
    return f"{entry.header()}\n{clean_sentence(entry.sentence)}\n"


def append_entry(
    store: Store, entry: Entry, *, harness: str, origin: str, settings: Settings = DEFAULT_SETTINGS
) -> tuple[str, str]:
    """Append the entry to its committed day file (created with a title line) in one commit:
    (path, commit). The append starts from HEAD's version, never from the working tree."""
    from jacked_vault.write.transaction import write_transaction

    text = render_entry(entry)
    day = entry.when.strftime("%Y-%m-%d")
    rel = day_file(entry.group, entry.identity, day)
    with write_transaction(store, harness=harness, origin=origin, settings=settings) as tx:
        current = tx.committed(rel)
        if current is None:
            current = f"# {entry.identity} — {day}\n".encode()
        data = current.rstrip(b"\n") + b"\n\n" + text.encode("utf-8")
        if len(data) > MAX_DAY_FILE:
            raise VaultError("VALIDATION", f"{rel} is over {MAX_DAY_FILE} bytes; run `jacked memory rollup`")
        tx.replace(rel, data)
        tx.event("episodic", f"episodic:{entry.identity}", rel, data, ts=format_timestamp(entry.when))
        commit = tx.commit(f"memory(episodic): {entry.identity} {entry.when.strftime('%H:%M')}")
    return rel, commit
