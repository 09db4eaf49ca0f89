"""`enable` and `disable`: the one switch that turns memory on and off on this machine.

`enable` runs, in order, each step reporting its outcome: the vault (`init`, or `init --from URL`
to join a shared one), the group suggestions (reviewed on a terminal, accepted with --yes), the
session hooks, MCP registration, `/remember`·`/learn` commands and librarian skill of every
harness found on this machine (per-person files only: nothing lands in a code repo), the post-merge hook of each mapped
repo (asked per repo, or all with --yes), the import of any `.remember/` folder of those repos
(`migrate`) and a remote for the vault. Every step reuses the command that owns it (`init`,
`hooks install`, `migrate`, `remote set`); nothing here edits a config itself.

`disable` removes every hook, registration, command and skill jacked installed: the per-person files of
every harness (found or not), and, in code repos, exactly what this machine's record of installs
(`hooks.installed`) names, plus the current repo's project files. The vault and its notes are never
touched.

A file `enable` changed is put back byte for byte: before its first change the file's bytes are
kept in the ledger (`switch.json` in the vault's state folder `.git/jacked/`, where git never
writes) with a hash of what `enable` left; `disable` writes those bytes back (or removes a file
`enable` created, with the backups the installers made beside it and the folders `enable` made)
when the file is still as `enable` left it, and only for the per-person harness files `enable`
manages: a ledger entry naming any other path is refused, whoever wrote it. A file changed since is
only cleaned of jacked's entries by its installer's own uninstall, which keeps everything else.

Code repos are found by their identity wherever this machine keeps its clones
(`groups.scan.local_clones`: `--root`, else the machine config's roots, else the usual folders).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault import environment, harnesses
from jacked_vault.episodic.migrate import default_sources, migrate
from jacked_vault.errors import VaultError
from jacked_vault.gitflow import githooks
from jacked_vault.groups.scan import local_clones
from jacked_vault.hooks import commands, skills
from jacked_vault.hooks.installed import drop_installs, read_installed, unrecorded_hooks
from jacked_vault.hooks.integrations import Selection, manage
from jacked_vault.hooks.signing import SIGNERS_NAME, plan_signing, setup_signing
from jacked_vault.safety import fsio
from jacked_vault.store.layout import state_dir
from jacked_vault.sync import remote, set_remote
from jacked_vault.sync.clone import clone_vault

if TYPE_CHECKING:
    from jacked_vault.context import Context
    from jacked_vault.groups.mapping import Suggested
    from jacked_vault.store.config import Roots
    from jacked_vault.store.progress import Stages

LEDGER = "switch.json"

Ask = Callable[[str], bool]


@dataclass
class Step:
    """One step of `enable`/`disable`: its name, outcome and what it did (lines and raw items)."""

    name: str
    outcome: str  # done, unchanged, skipped, offered, restored, removed, error
    detail: str
    items: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"step": self.name, "outcome": self.outcome, "detail": self.detail, "items": self.items}


@dataclass
class SwitchReport:
    """What `enable` or `disable` did, one step after the other."""

    action: str
    vault: str
    steps: list[Step] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(step.outcome == "error" for step in self.steps)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "vault": self.vault, "steps": [s.to_json() for s in self.steps]}

    def to_text(self) -> str:
        lines = []
        for step in self.steps:
            lines.append(f"{step.name:<10} {step.outcome:<9} {step.detail}")
            lines += [f"  {line}" for line in step.lines]
        if self.action == "disable":
            kept = (
                f"the vault at {self.vault} and its notes are untouched"
                if Path(self.vault, "vault.json").exists()
                else f"no vault at {self.vault}"
            )
            lines.append(kept)
        return "\n".join(lines)


# -- where things are ------------------------------------------------------------------------------


def harnesses_found(environ: dict[str, str] | None = None) -> list[str]:
    """The harnesses on this machine: their per-person config folder exists, or their binary is on PATH."""
    env = dict(os.environ) if environ is None else environ
    path = env.get("PATH", "")
    return list(
        harnesses.names(lambda h: h.config_home(env).is_dir() or any(shutil.which(b, path=path) for b in h.binaries))
    )


def _files(harness: str) -> list[Path]:
    """Every per-person file `enable` may change for `harness`: its session hooks', its MCP
    config, its commands and skills (one path once: Codex keeps hooks and MCP in one file)."""
    from jacked_vault.hooks import mcp as reg

    adapter = harnesses.get(harness)
    files = [*adapter.hook_files(), reg.default_config_path(harness, user=True)]
    files += commands.paths(harness) if harness in commands.names() else []
    files += skills.install_paths(harness) if harness in skills.names() else []
    return list(dict.fromkeys(Path(os.path.realpath(p)) for p in files))


def _machine_config() -> Path:
    from jacked_vault.store.config import machine_config_path

    return machine_config_path()


def _managed() -> list[Path]:
    """Every per-person file `enable` may change: each harness's, the machine config (`--root`,
    signing) and the allowed-signers file beside it."""

    config = _machine_config()
    own = [config, config.parent / SIGNERS_NAME]
    return [*(p for harness in harnesses.names() for p in _files(harness)), *(Path(os.path.realpath(p)) for p in own)]


def _selection(harness: str) -> Selection:
    """What `hooks install` is asked for one harness: its session hooks, its MCP server, its
    commands and the librarian skill, all in per-person files."""

    return Selection(
        hooks=(harness,),
        mcp=(harness,),
        user=True,
        commands=(harness,) if harness in commands.names() else (),
        skills=(harness,) if harness in skills.names() else (),
    )


# -- the ledger ------------------------------------------------------------------------------------


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        return b""  # unreadable: never matches a recorded hash, so never restored over


def _backups(path: Path) -> set[str]:
    """The installers' backups of `path` (`store.configfile` names them)."""
    from jacked_vault.store import configfile

    return {str(p) for p in configfile.backups(path)}


def _missing_dirs(path: Path) -> list[str]:
    """The folders above `path` that do not exist yet (the deepest first)."""
    out = []
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        out.append(str(folder))
        folder = folder.parent
    return out


class Ledger:
    """What `enable` changed on this machine, so `disable` can put it back."""

    def __init__(self, path: Path) -> None:
        self.path = path
        data = {}
        with suppress(OSError, ValueError):
            data = json.loads(path.read_text(encoding="utf-8"))
        self.files: dict[str, dict[str, Any]] = data.get("files", {}) if isinstance(data, dict) else {}
        self.dirs: list[str] = data.get("dirs", []) if isinstance(data, dict) else []
        # the repos an older version's enable hooked (its ledger kept them; `hooks.installed` does now)
        self.repos: list[str] = data.get("repos", []) if isinstance(data, dict) else []

    def snapshot(self, paths: list[Path]) -> dict[str, tuple[bytes | None, set[str], list[str]]]:
        return {str(p): (_read(p), _backups(p), _missing_dirs(p)) for p in paths}

    def record(self, before: dict[str, tuple[bytes | None, set[str], list[str]]]) -> None:
        """After an install: keep each changed file's first bytes and what the install left."""
        for name, (data, backups, missing) in before.items():
            path = Path(name)
            after = _read(path)
            if after == data:
                continue
            entry = self.files.get(name)
            if entry is None or entry.get("after") != _sha(data):
                original = None if data is None else base64.b64encode(data).decode("ascii")
                entry = {"before": original, "existed": data is not None, "backups": [], "restore": entry is None}
            entry["after"] = _sha(after)
            entry["backups"] = sorted(set(entry["backups"]) | (_backups(path) - backups))
            self.files[name] = entry
            self.dirs = list(dict.fromkeys([*self.dirs, *missing]))

    def save(self) -> None:
        data = {"version": 1, "files": self.files, "dirs": self.dirs}
        fsio.write_file(self.path, (json.dumps(data, indent=2) + "\n").encode("utf-8"), mode=0o600)

    def restore(self) -> list[str]:
        """Put back every managed file still as `enable` left it; the paths restored or removed, and
        each entry refused because it names a file `enable` never manages."""
        from jacked_vault.store import configfile

        done = []
        managed = {str(p) for p in _managed()}
        for name, entry in sorted(self.files.items()):
            path = Path(name)
            if name not in managed:
                done.append(f"refused {name}: not a harness file enable manages (left as it is)")
                continue
            if not entry.get("restore", True) or _sha(_read(path)) != entry.get("after"):
                continue
            if entry.get("existed"):
                fsio.write_file(path, base64.b64decode(entry["before"]), through_symlink=True)
                done.append(f"restored {name}")
            elif path.exists():
                path.unlink()
                done.append(f"removed {name} (enable created it)")
            for backup in entry.get("backups", []):
                Path(backup).unlink(missing_ok=True)
        configfile.prune_created()  # first: its record may sit in a folder enable made (the machine config's)
        for folder in sorted(self.dirs, key=lambda f: f.count(os.sep), reverse=True):  # the deepest first
            with suppress(OSError):  # not empty (someone else's files), or gone already
                Path(folder).rmdir()
        return done

    def forget(self) -> None:
        self.path.unlink(missing_ok=True)


def _ledger(vault_root: Path) -> Ledger:
    return Ledger(state_dir(vault_root) / LEDGER)


# -- enable ----------------------------------------------------------------------------------------


def enable(
    vault: str | None,
    *,
    from_url: str | None,
    yes: bool,
    ask: Ask | None,
    ask_url: Callable[[], str | None] | None,
    review: Callable[[Context], Suggested],
    roots: Sequence[str] = (),
    stages: Stages | None = None,
) -> SwitchReport:
    """Turn memory on. `ask` (a yes/no question on a terminal) and `ask_url` are None when nobody
    can answer (JSON, no terminal); `review` runs init's group review (the CLI's own); `roots`, the
    `--root` folders where this machine keeps its clones (else its configured or usual ones);
    `stages`, told how joining a vault with --from goes (store.progress)."""

    ctx = environment.context(vault)
    report = SwitchReport("enable", str(ctx.vault_path))
    report.steps.append(_vault_step(ctx, from_url, vault is not None, stages))  # a refusal here stops everything
    ledger = _ledger(ctx.vault_path)
    try:
        if roots:
            report.steps.append(_guard("roots", lambda: _roots_step(roots, ledger)))
        report.steps.append(_guard("groups", lambda: _groups_step(ctx, from_url, review, asked=ask is not None)))
        report.steps += _harness_steps(vault, ledger)
        repos, looked = _mapped_repos(ctx)
        report.steps.append(_guard("post-merge", lambda: _post_merge_step(vault, repos, looked, yes, ask)))
        report.steps.append(_guard("migrate", lambda: _migrate_step(vault, repos, yes, ask, ledger)))
        report.steps.append(_guard("remote", lambda: _remote_step(ctx, ask_url)))
        report.steps.append(_guard("signing", lambda: _signing_step(ctx, ask, ledger)))
    finally:
        ledger.save()
    return report


def _guard(name: str, run: Callable[[], Step]) -> Step:
    try:
        return run()
    except VaultError as exc:
        return Step(name, "error", f"{exc.message} [{exc.full_code}]")


def _vault_step(ctx: Context, from_url: str | None, named: bool, stages: Stages | None = None) -> Step:
    from jacked_vault.write.init import init_vault

    if from_url is not None and not (ctx.vault_path / "vault.json").exists():
        cloned = clone_vault(from_url, ctx.vault_path, harness=ctx.harness, name_vault=named, stages=stages)
        return Step(
            "vault", "done", f"joined {cloned.url}: {cloned.store.root} ({cloned.notes} notes)", [cloned.to_json()]
        )
    result = init_vault(ctx.vault_path, harness=ctx.harness)
    detail = f"created {result.store.root}" if result.created else f"already a vault: {result.store.root}"
    if from_url is not None and not result.created:
        detail += " (--from: nothing cloned over an existing vault)"
    return Step("vault", "done" if result.created else "unchanged", detail, [result.to_json()])


def _groups_step(ctx: Context, from_url: str | None, review: Callable[[Context], Suggested], *, asked: bool) -> Step:
    """The group review; with nobody to ask (no terminal, no --yes) the suggestions are offered, never accepted."""
    if from_url is not None:
        return Step("groups", "skipped", "a joined vault keeps the groups it was shared with")
    suggested = review(ctx)
    accepted = suggested.accepted
    where = suggested.suggestion.where()
    if accepted:
        return Step("groups", "done", f"accepted {', '.join(accepted)}", [suggested.to_json()], where)
    groups = suggested.suggestion.groups
    if groups and not asked:
        named = ", ".join(f"{g.name} ({len(g.repos)} repo{'s' if len(g.repos) != 1 else ''})" for g in groups)
        detail = (
            f"suggested {named}: `jacked memory group suggest` reviews them on a terminal, "
            "`jacked memory group suggest --yes` accepts them all"
        )
        return Step("groups", "offered", detail, [suggested.to_json()], where)
    detail = "no groups to suggest" if not groups else "none accepted (map repos later with `jacked memory group map`)"
    return Step("groups", "unchanged", detail, [suggested.to_json()], where)


def _harness_steps(vault: str | None, ledger: Ledger) -> list[Step]:
    found = harnesses_found()
    if not found:
        return [
            Step(
                "harnesses",
                "skipped",
                "no harness found (~/.claude, ~/.codex, ~/.config/opencode, ~/.cursor, or one on PATH)",
            )
        ]
    steps = []
    for harness in found:
        before = ledger.snapshot(_files(harness))
        try:
            result = manage("install", _selection(harness), vault)
        except VaultError as exc:
            steps.append(Step(harness, "error", f"{exc.message} [{exc.full_code}]"))
            continue
        finally:
            ledger.record(before)
        items = [item for results in result.families.values() for item in results]
        changed = any(item.get("action") in ("installed", "created", "updated") for item in items)
        outcome = "error" if not result.ok else "done" if changed else "unchanged"
        selection = _selection(harness)
        parts = [
            "session hooks",
            "MCP server",
            *(["/remember and /learn"] if selection.commands else []),
            *(["the librarian skill"] if selection.skills else []),
        ]
        steps.append(Step(harness, outcome, ", ".join(parts), items, result.to_text().splitlines()))
    return steps


def _roots_step(roots: Sequence[str], ledger: Ledger) -> Step:
    """`--root`: remembered as this machine's roots (the machine config), which every later scan
    reads; `disable` puts the machine config back."""
    from jacked_vault.store.config import machine_config_path, remember_roots

    before = ledger.snapshot([Path(os.path.realpath(_machine_config()))])
    try:
        written = remember_roots(roots)
    finally:
        ledger.record(before)
    if written is None:
        return Step("roots", "unchanged", f"already this machine's roots ({machine_config_path()})")
    return Step("roots", "done", f"remembered {', '.join(roots)} as this machine's roots in {written}")


def _mapped_repos(ctx: Context) -> tuple[list[Path], Roots]:
    """This machine's clones of the repos vault.json maps to a group (read again: the group review
    may just have written it), wherever under its roots, and the roots looked in."""
    from jacked_vault.store.config import load_config

    config = load_config(ctx.vault)
    mapped = {
        r for group in (config.get("groups") or {}).values() if isinstance(group, dict) for r in group.get("repos", ())
    }
    return local_clones(lambda identity, _solo: identity in mapped)


def _post_merge_step(vault: str | None, repos: list[Path], looked: Roots, yes: bool, ask: Ask | None) -> Step:
    if not repos:
        where = "the usual folders" if looked.usual else looked.source
        return Step(
            "post-merge",
            "skipped",
            f"no clone of a mapped repo on this machine (looked in {where}: {', '.join(looked.folders)}; "
            "--root DIR for others)",
        )
    wanted, items, lines = [], [], []
    for repo in repos:
        if githooks.git_hook_status(repo).state in ("installed", "legacy-chained"):
            lines.append(f"already installed in {repo}")
        elif yes or (ask is not None and ask(f"install the post-merge hook (merge capture) in {repo}?")):
            wanted.append(repo)
        else:
            lines.append(f"not installed in {repo}: `jacked memory hooks install --git {repo}`")
    if wanted:
        result = manage("install", Selection(git=tuple(str(r) for r in wanted)), vault)  # recorded by manage
        items = result.families["git"]
        lines = result.to_text().splitlines() + lines
        outcome = "done" if result.ok else "error"
    else:
        outcome = "unchanged" if all(line.startswith("already") for line in lines) else "offered"
    return Step("post-merge", outcome, f"{len(wanted)} of {len(repos)} mapped repo(s) hooked now", items, lines)


def _migrate_step(vault: str | None, repos: list[Path], yes: bool, ask: Ask | None, ledger: Ledger) -> Step:
    from jacked_vault.harnesses.installers.claude import default_settings_path, retire_plugin

    found = []
    for root in repos:
        ctx = environment.context(vault, root)
        if ctx.repo is not None and any(p.is_dir() and not p.is_symlink() for p in default_sources(ctx.repo)):
            found.append(ctx)
    if not found:
        return Step("migrate", "skipped", "no .remember/ folder in the mapped repos or ~/.remember/")
    items, lines, done = [], [], 0
    for ctx in found:
        where = ctx.repo.root
        if yes or (
            ask is not None and ask(f"import the remember plugin's .remember/ of {where} (read only, counts checked)?")
        ):
            result = migrate(ctx, None)
            before = ledger.snapshot(
                [Path(os.path.realpath(default_settings_path()))]
            )  # turning the plugin off edits Claude's settings: disable puts them back
            result = retire_plugin(result, lambda question: yes or (ask is not None and ask(question)))
            ledger.record(before)
            items.append(result.to_json())
            text = result.to_text().splitlines()
            lines += [
                f"{where}: {line}"
                for line in text
                if line.startswith(("Imported", "Nothing new", "Turned off", "The remember plugin"))
            ]
            done += 1
        else:
            lines.append(f"{where}: `cd {where} && jacked memory migrate`")
    return Step(
        "migrate", "done" if done else "offered", f"{done} of {len(found)} .remember/ source(s) imported", items, lines
    )


def _remote_step(ctx: Context, ask_url: Callable[[], str | None] | None) -> Step:
    origin = remote.origin(ctx.vault_path)
    if origin is not None:
        return Step("remote", "unchanged", f"origin {remote.display_url(origin)}")
    url = ask_url() if ask_url is not None else None
    if not url:
        return Step(
            "remote", "offered", "no remote: `jacked memory remote set URL` shares the vault with your other machines"
        )

    result = set_remote(ctx, url)
    return Step("remote", "done", result.to_text().splitlines()[0], [result.to_json()])


def _signing_step(ctx: Context, ask: Ask | None, ledger: Ledger) -> Step:
    """Signed reviews in one step (`hooks.signing`): offered when this machine trusts no keys yet,
    done only on a person's yes (never by `--yes` alone: from then on only verified accepts count,
    so this machine's earlier unsigned ones stop counting); `disable` puts the machine config and
    the allowed-signers file back."""
    from jacked_vault.store.config import machine_review

    if machine_review().signers is not None:
        return Step("signing", "unchanged", f"reviews are verified against {machine_review().signers}")
    try:
        plan = plan_signing(ctx.vault_path)
    except VaultError:  # no ssh key, or git signs with gpg: the command itself says what it needs
        return Step("signing", "skipped", "no ssh signing key here: `jacked memory signing` says what it needs")
    if ask is None or not ask(f"{plan.offer()}?"):
        return Step("signing", "offered", "signed reviews for a team: `jacked memory signing` (your ssh key)")
    touched = [Path(os.path.realpath(p)) for p in (_machine_config(), plan.signers)]
    before = ledger.snapshot(touched)
    try:
        done = setup_signing(ctx.vault_path)
    finally:
        ledger.record(before)
    lines = done.to_text().splitlines()
    return Step("signing", "done", f"reviews signed with {plan.signing_key}", [done.to_json()], lines)


# -- disable ---------------------------------------------------------------------------------------


def disable(vault: str | None) -> SwitchReport:
    """Turn memory off: every hook, registration and command jacked installed is removed; the
    vault is left as it is."""

    ctx = environment.context(vault)
    report = SwitchReport("disable", str(ctx.vault_path))
    ledger = _ledger(ctx.vault_path)
    restored = ledger.restore()
    report.steps.append(
        Step(
            "restore",
            "restored" if restored else "unchanged",
            f"{len(restored)} file(s) put back as they were before enable",
            lines=restored,
        )
    )
    for harness in harnesses.names():
        report.steps.append(_guard(harness, partial(_uninstall_harness, harness, vault)))
    report.steps.append(_guard("projects", lambda: _uninstall_projects(ctx)))
    report.steps.append(_guard("post-merge", lambda: _uninstall_post_merge(ctx, ledger)))
    ledger.forget()
    return report


def _outcome(items: list[dict[str, Any]]) -> str:
    if any("error" in i for i in items):
        return "error"
    return "removed" if any(i.get("action") in ("removed", "restored", "deleted") for i in items) else "unchanged"


def _uninstall_harness(harness: str, vault: str | None) -> Step:
    result = manage("uninstall", _selection(harness), vault)
    items = [item for results in result.families.values() for item in results]
    outcome = _outcome(items)
    lines = [line for line in result.to_text().splitlines() if " unchanged" not in line and " absent" not in line]
    return Step(
        harness,
        outcome,
        "nothing of jacked's left" if outcome == "unchanged" else "jacked's entries removed, the rest kept",
        items,
        lines,
    )


def _repos_recorded(ctx: Context, kind: str, legacy: list[str]) -> set[Path]:
    """The repos this machine's record of installs names for `kind` (`hooks.installed`), the current
    repo, and `legacy` (an older ledger's). Without any record yet, the clones under this machine's
    roots that hold jacked's hook (an older version kept no record)."""

    record = read_installed(ctx.vault_path)
    repos = {Path(r) for r in [*getattr(record, kind), *legacy]}
    if not record.known and kind == "post_merge":
        repos |= set(unrecorded_hooks())
    return repos | ({ctx.repo.root} if ctx.repo is not None else set())


def _uninstall_projects(ctx: Context) -> Step:
    """Project files (`.mcp.json`, `.cursor/`, `.opencode/`, `opencode.json`) of the current repo and
    of every repo this machine recorded one in."""
    from jacked_vault.hooks import mcp as reg

    roots = _repos_recorded(ctx, "project", [])
    items = []
    for root in sorted(roots):
        project = harnesses.all_harnesses(lambda h: h.mcp_project_file)
        changes = [reg.uninstall(h.name, reg.default_config_path(h.name, cwd=root)) for h in project]
        items += [c.to_json() for c in changes if c.action == "removed"]
        for adapter in harnesses.all_harnesses():
            items += [{"path": path, "action": "removed"} for path in adapter.uninstall_project_hooks(root)]
    lines = [f"removed jacked's entry from {i['path']}" for i in items]
    return Step("projects", "removed" if items else "unchanged", f"{len(roots)} repo(s) checked", items, lines)


def _uninstall_post_merge(ctx: Context, ledger: Ledger) -> Step:
    """The post-merge hook of every repo this machine recorded installing it in (and the current
    repo's); each taken off the record, and a recorded repo that is gone with it."""

    repos = _repos_recorded(ctx, "post_merge", ledger.repos)
    items, lines = [], []
    for repo in sorted(repos):
        if not repo.is_dir():
            lines.append(f"{repo}: gone (nothing to remove)")
            continue
        try:
            if githooks.git_hook_status(repo).state == "not-installed":
                continue
            report = githooks.uninstall_git_hook(repo)
        except VaultError as exc:
            items.append({"repo": str(repo), "error": {"code": exc.full_code, "message": exc.message}})
            lines.append(f"error: {repo}: {exc.message}")
            continue
        items.append(report.to_json())
        lines.append(f"{repo}: " + "; ".join(report.actions or ["nothing to remove"]))
    drop_installs(ctx.vault_path, "post_merge", [str(r) for r in repos if not any(
        i["repo"] == str(r) and "error" in i for i in items)])  # fmt: skip
    outcome = "error" if any("error" in i for i in items) else "removed" if items else "unchanged"
    return Step("post-merge", outcome, f"{len(repos)} repo(s) checked", items, lines)
