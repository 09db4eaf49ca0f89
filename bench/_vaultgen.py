"""Build large, realistic jacked vaults fast, for benchmarks.

`generate_vault(path, n)` creates a vault with `init_vault`, writes `n` valid rendered notes
straight into `groups/g<i % groups>/<kind>/<slug>.md` (no `add` per note: that would take
minutes) with the audit line each note's `add` would have written (staged by the library's own
`audit.stage`, in the month the note was created, on one of a few teammates' machines), then
commits them all at once with the real git CLI (`git add -A` + `git commit`), which also writes
the git index so `git status` is clean afterwards. Then each group's derived `index.md` is
rendered by the library and committed, so `jacked memory doctor` accepts the vault as it
accepts one built by `add`.

Everything is seeded: the same (n, seed) gives the same titles, bodies, tags and layout
(note ids carry random bits, as real ids do).

Shared by `bench/bench_core.py`; importable on its own:

    from bench._vaultgen import generate_vault, WORDS, note_text
"""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock

from jacked_vault.document import new_note_id, render_note, slugify_title
from jacked_vault.document.timestamps import format_timestamp
from jacked_vault.store import audit
from jacked_vault.write.create import build_note
from jacked_vault.write.init import init_vault

# Kinds a coding agent writes most (the spec's full list also has vision, handoff, progress,
# context; they live in other folders and change nothing for these figures).
KINDS = ("fact", "decision", "convention", "lesson", "note", "reference", "runbook", "preference")
KIND_WEIGHTS = (30, 18, 14, 12, 12, 6, 5, 3)

# The vocabulary titles, bodies, tags and benchmark queries are drawn from.
WORDS = tuple(
    """
    api auth cache cli config database deploy docker endpoint error feature fixture flaky
    git handler index lint logging merge migration mock module parser payload pipeline
    queue release request retry schema script search server session sqlite storage test
    timeout token upload worker yaml build branch commit coverage dependency docs import
    interface kubernetes latency memory metric network package patch plugin pool proxy
    python react redis refactor registry replica router runtime rust sandbox secret
    serializer service shard signal snapshot socket stream sync template tenant thread
    trace typescript validation vault webhook websocket window backoff batch billing
    bucket bundle callback certificate checkout cluster compiler container cursor daemon
    debounce decorator deadlock digest dispatcher encoding enum executor exporter fallback
    feed filter firewall formatter gateway graph hash header heap hook idempotent image
    ingest invoice job journal kernel keychain lambda layout lease limiter loader lock
    mailer manifest mapper middleware mirror monitor mutex namespace notifier oauth offset
    orchestrator pagination partition permission pod policy poller postgres prefetch
    profile prompt protocol publisher quota ranking reader reconciler reducer renderer
    resolver resource rollback rotation sampler scheduler scraper selector semaphore
    sharding sidecar signer slug spool stash subscriber supervisor swagger tagger tarball
    telemetry terraform throttle tokenizer topic tracker transaction transformer tunnel
    uploader upstream user vendor version watcher wheel widget workflow writer zone
    always avoid because before careful check choose default disable enable ensure expect
    explicit fails fast first keep large later local manual never prefer remote review
    safe slow small stable strict use when without async blocking cold warm stale fresh
    nightly weekly staging production laptop linux macos windows ci cron lockfile monorepo
    """.split()  # noqa: SIM905 - a word list reads best as words
)

# The teammates' machines whose audit logs hold the generated notes' lines (this machine's own
# audit month stays as `init` left it, so a bench can fill it as it needs).
MACHINES = ("m-bench-ana", "m-bench-ben", "m-bench-cho", "m-bench-dev")

_TITLE_STARTS = (
    "Use",
    "Prefer",
    "Avoid",
    "Always",
    "Never",
    "Keep",
    "Retry",
    "Pin",
    "Split",
    "Cache",
    "Validate",
    "Document",
    "Run",
    "Skip",
    "Check",
    "Move",
    "Rename",
    "Limit",
    "Batch",
    "Log",
)
_SENTENCE_GLUE = ("because", "so that", "when", "unless", "after", "before", "while", "and")


def _zipf_weights(n: int, s: float = 0.9) -> list[float]:
    return [1.0 / (rank**s) for rank in range(1, n + 1)]


_WORD_WEIGHTS = _zipf_weights(len(WORDS))


@dataclass(frozen=True)
class NoteText:
    title: str
    body: str
    kind: str
    tags: tuple[str, ...]


def note_text(rng: random.Random, *, min_body: int = 300, max_body: int = 800) -> NoteText:
    """A realistic-looking note: a 4-9 word title, a 300-800 byte body of sentences, 1-4 tags."""
    words = rng.choices(WORDS, weights=_WORD_WEIGHTS, k=rng.randint(3, 8))
    title = " ".join([rng.choice(_TITLE_STARTS), *words])
    target = rng.randint(min_body, max_body)
    sentences: list[str] = []
    size = 0
    while size < target:
        left = rng.choices(WORDS, weights=_WORD_WEIGHTS, k=rng.randint(4, 9))
        right = rng.choices(WORDS, weights=_WORD_WEIGHTS, k=rng.randint(3, 8))
        sentence = f"{' '.join(left).capitalize()} {rng.choice(_SENTENCE_GLUE)} {' '.join(right)}."
        if rng.random() < 0.15:
            sentence += f" See `{rng.choice(WORDS)}/{rng.choice(WORDS)}.py`."
        sentences.append(sentence)
        size += len(sentence) + 1
    paragraphs = []
    while sentences:
        cut = rng.randint(2, 4)
        paragraphs.append(" ".join(sentences[:cut]))
        sentences = sentences[cut:]
    body = "\n\n".join(paragraphs)[:max_body].rstrip()
    if not body.endswith("."):
        body += "."
    tags = tuple(dict.fromkeys(rng.choices(WORDS, weights=_WORD_WEIGHTS, k=rng.randint(1, 4))))
    kind = rng.choices(KINDS, weights=KIND_WEIGHTS)[0]
    return NoteText(title=title, body=body, kind=kind, tags=tags)


# The real git CLI as every bench runs it: a fixed identity and no hooks, signing or auto-gc (auto-gc
# would detach a background repack in the middle of a measurement).
GIT = [
    "git",
    *("-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "commit.gpgsign=false"),
    *("-c", "core.hooksPath=/dev/null", "-c", "gc.auto=0", "-c", "maintenance.auto=false"),
]


def git_cli(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """`GIT` in `root`."""
    return subprocess.run([*GIT, *args], cwd=root, check=check, capture_output=True, text=True)


@dataclass
class GenStats:
    notes: int
    bytes_written: int
    init_s: float
    render_write_s: float
    git_add_s: float
    git_commit_s: float
    pack_s: float = 0.0
    audit_lines: int = 0
    index_md_s: float = 0.0

    @property
    def total_s(self) -> float:
        return self.init_s + self.render_write_s + self.git_add_s + self.git_commit_s + self.pack_s + self.index_md_s


def generate_vault(
    path: Path,
    n: int,
    *,
    seed: int = 1234,
    groups: int = 50,
    harness: str = "bench",
    pack: bool = False,
    now: datetime | None = None,
    kind: str | None = None,
    index_md: bool = True,
) -> GenStats:
    """Create a vault at `path` (must not exist or be empty) holding `n` committed notes, their
    audit lines and (`index_md`) each group's index.md (`kind`: every note of that kind, so with
    `groups=1` all of them in one folder). The search index built to render the index.md files
    is removed again, so a caller's first search still builds it from HEAD."""
    t0 = time.perf_counter()
    init_vault(path)
    root = path.resolve()
    t1 = time.perf_counter()

    rng = random.Random(seed)
    now = now or datetime.now(UTC)
    written, events = write_notes(root, n, rng, groups=groups, now=now, harness=harness, kind=kind)
    write_audit_history(root, events)
    t2 = time.perf_counter()

    git_cli(root, "add", "-A")
    t3 = time.perf_counter()
    git_cli(root, "commit", "-q", "-m", f"bench: {n} generated notes")
    t4 = time.perf_counter()
    pack_s = 0.0
    if pack:
        git_cli(root, "gc", "-q")
        pack_s = time.perf_counter() - t4
    status = git_cli(root, "status", "--porcelain").stdout
    if status.strip():
        raise RuntimeError(f"generated vault is not clean:\n{status[:2000]}")
    t5 = time.perf_counter()
    if index_md:
        write_group_index_mds(root, groups)
        from jacked_vault.search.index import INDEX_DB
        from jacked_vault.store.vault import open_vault

        cache = open_vault(root).state
        for suffix in ("", "-wal", "-shm"):
            (cache / f"{INDEX_DB}{suffix}").unlink(missing_ok=True)
    return GenStats(
        notes=n,
        bytes_written=written,
        init_s=t1 - t0,
        render_write_s=t2 - t1,
        git_add_s=t3 - t2,
        git_commit_s=t4 - t3,
        pack_s=pack_s,
        audit_lines=sum(len(v) for v in events.values()),
        index_md_s=time.perf_counter() - t5,
    )


def write_notes(
    root: Path,
    n: int,
    rng: random.Random,
    *,
    groups: int,
    now: datetime,
    harness: str = "bench",
    kind: str | None = None,
    spread_s: int = 365 * 86400,
    machines: tuple[str, ...] = MACHINES,
) -> tuple[int, dict[tuple[str, str], list[audit.AuditEvent]]]:
    """Write `n` notes into `root` (created up to `spread_s` seconds before `now`), uncommitted;
    returns the bytes written and their audit lines by (machine, month), for `write_audit_history`."""
    made_dirs: set[str] = set()
    events: dict[tuple[str, str], list[audit.AuditEvent]] = defaultdict(list)
    written = 0
    for i in range(n):
        text = note_text(rng)
        group = f"g{i % groups}"
        created = now - timedelta(seconds=rng.randint(min(3600, spread_s), spread_s), milliseconds=rng.randint(0, 999))
        stamp = format_timestamp(created)
        note = build_note(
            title=text.title,
            body=text.body,
            kind=kind or text.kind,
            scope="group",
            group=group,
            repos=[f"github.com/acme/{group}-api"],
            source_harness=harness,
            origin="cli",
            tags=list(text.tags),
            now=stamp,
        )
        note = dataclasses.replace(note, id=new_note_id(created))
        data = render_note(note)  # validates, exactly as the library writes it
        folder = f"groups/{group}/{note.kind}"
        stem = slugify_title(note.title)
        rel = f"{folder}/{stem}.md"
        k = 2
        while os.path.lexists(root / rel):
            rel = f"{folder}/{stem}-{k}.md"
            k += 1
        if folder not in made_dirs:
            os.makedirs(root / folder, exist_ok=True)
            made_dirs.add(folder)
        with open(root / rel, "wb") as fh:
            fh.write(data)
        written += len(data)
        event = audit.AuditEvent(stamp, "create", note.id, rel, audit.content_hash(data), harness, "cli")
        events[(rng.choice(machines), stamp[:7])].append(event)
    return written, events


def write_audit_history(root: Path, events: dict[tuple[str, str], list[audit.AuditEvent]]) -> None:
    """Write each machine's audit months, oldest first, each chained to the one before, as the
    library stages them (`audit.stage` with the clock set in that month)."""
    for machine, month in sorted(events):
        batch = sorted(events[(machine, month)], key=lambda e: e.ts)
        with mock.patch("jacked_vault.document.timestamps.utc_now", return_value=batch[-1].ts):
            pending = audit.stage(root, machine, batch)
        for rel, data in pending.files.items():
            os.makedirs((root / rel).parent, exist_ok=True)
            with open(root / rel, "wb") as fh:
                fh.write(data)


def write_group_index_mds(path: Path, groups: int) -> int | None:
    """Write each group's derived `index.md` as the library renders it, and commit them (one
    `git add -A` + `git commit`), so the vault looks like one built by `add`. Needs the search
    index (call after the first search). None when this library version has no index.md."""
    try:
        from jacked_vault.recall.index_md import index_path, render_index
    except ImportError:
        return None
    from jacked_vault.search.index import SearchIndex
    from jacked_vault.store.vault import open_vault

    store = open_vault(path.resolve())
    index = SearchIndex(store)
    try:
        index.refresh()
        for i in range(groups):
            group = f"g{i}"
            with open(store.root / index_path(store, group), "wb") as fh:
                fh.write(render_index(index.read, store, group))
    finally:
        index.close()
    git_cli(store.root, "add", "-A")
    if git_cli(store.root, "diff", "--cached", "--quiet", check=False).returncode:
        git_cli(store.root, "commit", "-q", "-m", "bench: derived index.md per group")
    status = git_cli(store.root, "status", "--porcelain").stdout
    if status.strip():
        raise RuntimeError(f"vault is not clean after writing index.md files:\n{status[:2000]}")
    return groups


if __name__ == "__main__":  # tiny manual check: python bench/_vaultgen.py DIR N
    import sys

    target, count = Path(sys.argv[1]), int(sys.argv[2])
    print(generate_vault(target, count))
