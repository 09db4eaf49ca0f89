"""Health check of every visible store (`checks`) and the one safe repair (`repair`)."""

from __future__ import annotations

from jacked_vault.context import Context
from jacked_vault.doctor.report import Report
from jacked_vault.errors import VaultError
from jacked_vault.groups.suggest import duplicate_mappings
from jacked_vault.search.index import SearchIndex
from jacked_vault.store import git
from jacked_vault.store.digests import Digests
from jacked_vault.store.progress import Stages
from jacked_vault.store.queue import queue_counts

__all__ = ["Report", "doctor"]


def doctor(
    ctx: Context, *, repair: bool = False, reindex: bool = False, full: bool = False, stages: Stages | None = None
) -> Report:
    """Check every visible store, taking the gate's verdicts from its index (caught up with HEAD
    first) rather than judging every file again; `stages` (label -> progress callback) is told
    how far each long check is. `full`: every object of the current tree read and checked, and
    git's own `git fsck` over each store's whole history (`doctor.damage.fsck`)."""
    from jacked_vault.doctor.checks import (
        check_git,
        check_history,
        check_local,
        check_store,
        check_unreadable,
        held_repair,
    )
    from jacked_vault.doctor.repair import repair as repair_store
    from jacked_vault.search import wikilinks
    from jacked_vault.store.config import read_config

    report = Report(reindexed=reindex, full=full, captures=queue_counts(ctx.vault.state).to_json())
    config = read_config(ctx.vault)
    report.config_problems = [{"code": "DUPLICATE_MAPPING", **d} for d in duplicate_mappings(config.effective)]
    report.config_warnings = config.warnings
    stores = ctx.stores()
    held: list[tuple[str, Digests]] = []  # each store's label and note ids but the last's (compact: 100k in a few MB)
    shared: dict[str, list[str]] = {}  # note id -> the stores holding it, for ids held by more than one
    links: list[tuple[str, str]] = []  # (source, target) of the links no store checked so far holds
    wiki: list[tuple[str, str]] = []  # (source, target) of the [[wikilinks]] likewise
    for position, store in enumerate(stores):
        try:
            repo = git.open_repo(store.root)
            git.head_commit(repo)
        except VaultError as exc:
            report.git_problems.append({"path": store.label, "code": "HEAD_UNRESOLVABLE", "problem": exc.message})
            check_local(store, report)  # nothing of git can be read until HEAD resolves
            continue
        index = SearchIndex(store, progress=stages("indexing files") if stages else None)  # opened when first asked
        try:
            objects = stages("checking objects") if stages else None
            walk = check_git(repo, store, report, full=full, progress=objects, index=index)
            if full:
                check_history(store, repo, report)
            if walk is None or walk.unsafe:
                check_local(store, report)  # the rest waits while a tree cannot be read (readers would fail or hang)
                continue
            if repair and walk.damaged:
                report.git_problems.append(held_repair(store))
            elif repair:
                repair_store(store, report, harness=ctx.harness, settings=ctx.settings)
            index.rebuild() if reindex else index.refresh()
            check_unreadable(repo, store, index, report, walk)  # what the index could not read: read in full
            audited = stages("checking notes against the audit log") if stages else None
            check_store(store, index, repo, report, walk.damaged_files(), progress=audited)
            report.duplicate_ids += index.read.duplicate_ids()
            links = [(src, dst) for src, dst in links if not index.read.holds_note(dst)]  # the earlier stores' links
            wiki = [(src, target) for src, target in wiki if not index.read.holds_note(target)]
            ids = Digests() if position < len(stores) - 1 else None  # the last store's: asked of its index
            for doc_id in index.read.each_id() if held or ids is not None else ():
                if ids is not None:
                    ids.add(doc_id)
                holders = shared.get(doc_id) or [label for label, other in held if doc_id in other]
                if holders:
                    shared[doc_id] = [*holders, store.label]
            links += [(src, dst) for src, dst in index.read.unresolved_links() if not _held(held, dst)]
            wiki += [(src, target) for src, target in wikilinks.broken(index.db) if not _held(held, target)]
            if ids is not None:
                held.append((store.label, ids))
        finally:
            index.close()
    report.broken_links = [{"id": src, "missing": dst} for src, dst in links]
    report.broken_wikilinks = [{"id": src, "target": target} for src, target in wiki]
    report.duplicate_ids += [{"id": doc_id, "stores": labels} for doc_id, labels in sorted(shared.items())]
    report.skipped_symlinks = sorted(set(report.skipped_symlinks))
    return report


def _held(held: list[tuple[str, Digests]], doc_id: str) -> bool:
    """Whether one of the stores checked before holds a note with this id."""
    return any(doc_id in ids for _, ids in held)
