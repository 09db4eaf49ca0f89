"""The registries the safety matrices are generated from (issue 17): every door (a way bytes enter
a vault commit), every kind of file the team's repository shares (issue 31.6), and every recall
surface (a way a note's text or existence reaches a reader).

The code owns these lists, and tests hold them complete: every function that makes a commit is
claimed by a door (or is the plumbing every door goes through), every CLI command, MCP tool and
hook is a door, a surface or says why it is neither; and the matrices cross every door with
every rule of the gate and every surface with every note that must stay hidden or marked, so a
door or surface added without registering it, or registered without passing every cell, fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The rules every door is checked against (tests/e2e/test_gate_doors.py). A door says why a rule
# does not apply to it, or it is checked.
RULES = (
    "schema",  # invalid input: refused (or, arriving, quarantined), nothing written
    "secret:raw",  # a credential, as is
    "secret:json-escape",  # behind a JSON escape
    "secret:percent",  # percent-encoded
    "secret:zero-width",  # split by a zero-width space
    "secret:split-lines",  # split over two lines
    "tombstone",  # a rejected value is not brought back
    "trust",  # nothing it writes shows as reviewed without a person's accept
    "audit",  # every commit it makes carries its audit line; an unaudited arrival is quarantined
    "create-only",  # it never rewrites a note's value (a hand edit or an arriving rewrite is quarantined)
    "containment",  # a symlink in the way or a path outside the layout: refused, nothing outside written
    "cap",  # a file over its size cap (or a field over its bound): refused (arriving: quarantined), nothing written
)


@dataclass(frozen=True)
class Door:
    """One way bytes enter a vault commit."""

    name: str
    # front-end entries: CLI commands (`memory add`), MCP tools (`mcp:memory_save`), hooks
    # (`hook:session-end`), page routes (`ui:POST /note/{id}/accept`)
    via: tuple[str, ...]
    functions: tuple[str, ...]  # the library functions that make its commits (`module:qualname`)
    not_applicable: dict[str, str] = field(default_factory=dict)  # rule -> why it cannot apply


# The kinds of file the team's repository carries (contract section 3). Each arrives only through
# the one gate (store/gate.py), and FILE_RULES are crossed with every one of them over every
# arrival door (tests/e2e/test_gate_doors.py, "the shared files"): a kind added here without a
# hostile version for each rule that applies, or a rule that applies and is not kept, fails.
FILE_RULES = ("tombstone", "audit", "secret", "cap")


@dataclass(frozen=True)
class SharedFile:
    """One kind of file the team's repository shares."""

    name: str
    example: str  # a path of this kind (store.layout.classify_path gives `layout` for it)
    layout: str  # its layout kind
    not_applicable: dict[str, str] = field(default_factory=dict)  # file rule -> why it cannot apply


_EPISODIC = "groups/tools/episodic/github.com__acme__tools"
_DERIVED = "derived: never taken from an arrival (regenerated here from the notes)"
SHARED_FILES: tuple[SharedFile, ...] = (
    SharedFile("note", "groups/tools/note/planted.md", "note"),
    SharedFile("archived-note", "archive/groups/tools/note/planted.md", "note"),
    SharedFile("hot", "groups/tools/hot.md", "hot"),
    SharedFile("day-file", f"{_EPISODIC}/today-2026-12-01.md", "episodic"),
    SharedFile("recent", f"{_EPISODIC}/recent.md", "episodic"),
    SharedFile("archive-md", f"{_EPISODIC}/archive.md", "episodic"),
    SharedFile("core-memories", f"{_EPISODIC}/core-memories.md", "episodic"),
    SharedFile("readme", "README.md", "readme"),
    SharedFile("archive-other", "archive/groups/tools/notes.md", "archive"),  # a file under archive/ not a note
    SharedFile(
        "vault-json", "vault.json", "config", {"tombstone": "settings, group slugs, repo identities: no note's value"}
    ),
    SharedFile(
        "gitignore",
        ".gitignore",
        "gitignore",
        {rule: "its bytes are fixed: the gate takes only the shipped template" for rule in FILE_RULES},
    ),
    SharedFile("index-md", "groups/tools/index.md", "index", {rule: _DERIVED for rule in FILE_RULES}),
    SharedFile(
        "audit-log",
        "audit/m-pusher/2026-12.jsonl",
        "audit",
        {
            "tombstone": "ids, paths, hashes and names: no note's title or body",
            "audit": "it is the audit: each line is judged as one (keys, values, the secret scan)",
        },
    ),
    SharedFile(
        "tombstones",
        "tombstones/m-pusher.txt",
        "tombstones",
        {
            "tombstone": "it is the tombstones",
            "audit": "tombstones only grow: what an arrival adds can only keep a value out, what it drops is kept",
            "secret": "a line that is not a sha256 is refused: no text can stand there",
        },
    ),
    SharedFile(
        "forgotten",
        "tombstones/m-pusher.forgotten.txt",
        "tombstones",
        {
            "tombstone": "it is the tombstones",
            "audit": "tombstones only grow: what an arrival adds can only keep a value out, what it drops is kept",
            "secret": "a line that is not a sha256 is refused: no text can stand there",
        },
    ),
)

NOTE_WRITERS = ("jacked_vault.write.create:create_note",)
NO_NOTE = "writes no note"

DOORS: tuple[Door, ...] = (
    Door("add", ("memory add",), NOTE_WRITERS),
    Door("add-body-file", ("memory add",), NOTE_WRITERS),
    Door("add-stdin", ("memory add",), NOTE_WRITERS),
    Door("handoff", ("memory handoff",), NOTE_WRITERS),
    Door("mcp-save", ("mcp:memory_save",), NOTE_WRITERS),
    Door(
        "session-end", ("hook:session-end", "hook:drain"), (*NOTE_WRITERS, "jacked_vault.episodic.entries:append_entry")
    ),
    Door("pre-compact", ("hook:pre-compact",), (*NOTE_WRITERS, "jacked_vault.episodic.entries:append_entry")),
    Door("post-merge", ("memory capture-merge", "git:post-merge"), NOTE_WRITERS),
    Door("carry", ("memory carry",), NOTE_WRITERS),  # an old clone's notes re-added after a rewrite (issue 32.6)
    Door("migrate", ("memory migrate", "memory enable"), ("jacked_vault.episodic.migrate:migrate",)),
    Door(
        "rollup",
        ("memory rollup", "hook:drain"),
        ("jacked_vault.episodic.rollup:rollup",),
        {"trust": NO_NOTE, "create-only": "rewrites only derived episodic files (recent.md, archive.md)"},
    ),  # schema, secrets, tombstones and caps apply: it reads the day files in the working tree, where a hand
    # may have put anything
    Door(
        "transition",
        (
            "memory accept",
            "memory reject",
            "memory supersede",
            "memory expire",
            "memory review",
            "ui:POST /note/{id}/accept",
            "ui:POST /note/{id}/reject",
            "ui:POST /note/{id}/supersede",
            "ui:POST /note/{id}/expire",
        ),
        ("jacked_vault.write.transitions:transition",),
        {"tombstone": "changes a note's status, never its value"},
    ),
    Door(  # the librarian's move of closed notes to archive/ (issue 24.5): one rename per note, the committed bytes
        "archive",
        ("memory librarian",),
        ("jacked_vault.write.transitions:archive",),
        {
            "tombstone": "moves a note's file, never its value",
            "cap": "moves the committed bytes, which passed the cap when they were committed",
        },
    ),
    Door(
        "edit-as-new", ("memory review", "ui:POST /note/{id}/edit"), ("jacked_vault.write.transitions:edit_as_new",)
    ),  # a new note and the reject of the candidate, one commit
    Door(
        "forget",
        ("memory forget", "ui:POST /note/{id}/forget"),
        ("jacked_vault.write.forget:forget",),
        {
            "trust": "writes no note: it removes one (and its twins) and adds a tombstone line",
            "cap": "writes no file but a tombstone line (a sha256) and audit lines",
        },
    ),  # a person takes a note's text back: removed, tombstoned
    Door(
        "hot-set",
        ("memory hot set",),
        ("jacked_vault.write.hot:set_hot",),
        {"trust": NO_NOTE, "create-only": "hot.md is the one file a person overwrites"},
    ),
    Door(
        "config",
        ("memory group map", "memory group unmap", "memory enable"),
        ("jacked_vault.groups.mapping:write_config",),
        {"tombstone": NO_NOTE, "trust": NO_NOTE, "create-only": "vault.json is settings, rewritten by design"},
    ),
    Door(
        "init",
        ("memory init", "memory enable"),
        ("jacked_vault.write.init:_init_store",),
        {
            "tombstone": "a new store has no tombstones yet",
            "trust": NO_NOTE,
            "create-only": "writes only the layout files of a new store, never over one",
        },
    ),  # schema and secrets apply: a README.md or vault.json already in the folder is committed as it is
    Door(
        "repair",
        ("memory doctor",),
        ("jacked_vault.doctor.repair:_settle_working_tree", "jacked_vault.doctor.repair:_regenerate_derived"),
    ),
    Door(
        "sync-ff",
        ("memory sync", "hook:push", "hook:drain"),
        ("jacked_vault.sync.__init__:_integrate", "jacked_vault.sync.__init__:regenerate_indexes"),
    ),
    Door(
        "sync-merge",
        ("memory sync", "hook:push", "hook:drain"),
        ("jacked_vault.sync.__init__:_integrate", "jacked_vault.sync.__init__:regenerate_indexes"),
    ),
    Door("session-start-pull", ("hook:session-start", "hook:pull"), ("jacked_vault.sync.__init__:_integrate",)),
    Door(
        "init-from",
        ("memory init", "memory enable"),
        ("jacked_vault.sync.clone:_check_out", "jacked_vault.sync.clone:_settle"),
    ),
    Door(
        "remote-set-adopt",
        ("memory remote set", "memory enable"),
        ("jacked_vault.sync.__init__:_integrate", "jacked_vault.sync.__init__:regenerate_indexes"),
    ),
    Door(
        "remote-set-join",
        ("memory remote set", "memory enable"),
        ("jacked_vault.sync.__init__:_integrate", "jacked_vault.sync.__init__:regenerate_indexes"),
    ),
)

# What every door goes through: the one commit path and the one checkout.
PLUMBING = (
    "jacked_vault.write.transaction:Transaction.commit",
    # a given tree and parents (the sync merge): the doors calling it claim it
    "jacked_vault.write.transaction:commit_tree",
    "jacked_vault.store.git:commit_files",
    "jacked_vault.store.git:advance_to",
)


@dataclass(frozen=True)
class Surface:
    """One way a note's text or existence reaches a reader."""

    name: str
    via: tuple[str, ...]
    reader: str  # person (no harness) | harness


SURFACES: tuple[Surface, ...] = (
    Surface("cli-search", ("memory search",), "harness"),
    Surface("cli-search-person", ("memory search",), "person"),  # a person sees every target, marked
    Surface("cli-read", ("memory read",), "harness"),
    Surface("cli-read-person", ("memory read",), "person"),
    Surface("cli-brief", ("memory brief",), "harness"),
    Surface("cli-hot", ("memory hot show",), "harness"),
    Surface("cli-log", ("memory log",), "harness"),
    Surface("cli-log-person", ("memory log",), "person"),  # a person sees every entry, marked: another window
    Surface("cli-status", ("memory status",), "harness"),
    Surface("cli-review", ("memory review",), "person"),
    Surface("cli-doctor", ("memory doctor",), "person"),
    Surface("cli-group-list", ("memory group list",), "person"),
    Surface("index-md", ("file:groups/<group>/index.md",), "harness"),
    Surface("session-start-hook", ("hook:session-start",), "harness"),
    Surface("mcp-search", ("mcp:memory_search",), "harness"),
    Surface("mcp-read", ("mcp:memory_read",), "harness"),
    Surface("mcp-doctor", ("mcp:memory_doctor",), "harness"),
    Surface("mcp-brief", ("mcp:memory_brief",), "harness"),  # the SessionStart brief, for harnesses without hooks
    Surface("mcp-prompt-brief", ("mcp-prompt:brief",), "harness"),
    Surface(  # the review page (`jacked memory ui`): a person reads, every note marked; /brief shows a harness's brief
        "ui",
        (
            "memory ui",
            "ui:GET /",
            "ui:GET /search",
            "ui:GET /note/{id}",
            "ui:GET /review",
            "ui:GET /brief",
            "ui:GET /timeline",
        ),
        "person",
    ),
)

# Front-end entries that are neither a door nor a recall surface, and why.
NEITHER = {
    "memory hooks install": "writes harness configuration outside the vault, never a note",
    "memory hooks uninstall": "restores harness configuration outside the vault",
    "memory hooks status": "reports installed hooks and their last runs, no note",
    "memory mcp": "starts the MCP server, whose tools are registered one by one",
    "memory push": "sends commits already made; writes nothing locally",
    "memory group suggest": "scans repo folders for groups; reads no note",
    "memory disable": "removes jacked's hooks, registrations and command files outside the vault; writes nothing in it",
    "hook:catch-up": "brings this machine's index (derived, machine-local) up to HEAD; makes no commit, shows nothing",
    "memory signing": "sets up this machine's review signing (the machine config, its allowed-signers file, the "
    "vault's git config); writes nothing in the vault",
}
