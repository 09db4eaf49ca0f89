"""Install, uninstall and report the `post-merge` hook of a code repository, politely.

Rules (the model is pre-commit's legacy mode):

- The hooks folder is the repo's common git dir `hooks/` (shared by linked worktrees). When
  `core.hooksPath` is set, git runs hooks from there instead; that folder is often shared by
  many repos or owned by a tool, so every operation on it is refused with a CONFIG error
  unless the caller passes `follow_hooks_path=True`. A folder there that git tracks is refused
  even then, unless `force=True`: installing would put this machine's absolute paths into a
  file a commit shares (the portable way is the line below, added to the folder's own hook).
- Our hook is recognised by its marker line (`MARKER`) near the top of a regular file.
- A hook already there is never deleted: install moves it aside to `post-merge.jacked-legacy`
  (a rename, so bytes, mode and even a symlink are kept) and our hook runs it first with the
  same arguments, returning its exit status. Uninstall removes our hook and renames the
  legacy file back, so the folder is exactly as it was.
- Hook frameworks own their hook files and are chained the way each supports, never by moving
  their file aside:
  - pre-commit runs `post-merge.legacy` first ("migration mode"): our hook goes there (a hook
    already there is chained as above), and when pre-commit is installed after us it moves
    ours there itself. Status and uninstall find it there.
  - husky runs `.husky/post-merge` (the repo's, tracked), lefthook the commands of its config,
    overcommit, yorkie and simple-git-hooks theirs: jacked cannot add to those without editing
    a shared file, so install refuses with the exact line to add (`FRAMEWORK_LINE`, the same
    on every machine: it runs `<common git dir>/hooks/jacked-post-merge` when that exists and
    does nothing elsewhere). Once the line is there, install writes that script, per machine,
    untracked, out of every framework's way; re-installing the framework never drops it.
  - A hook of ours that a framework moved where nothing runs it (lefthook renames a hook it
    replaces to `post-merge.old` and never runs it) is `stranded`: status says so (the command
    exits 1) and install moves to the framework's way. So is one left in `.git/hooks` when
    core.hooksPath took over (husky activated after jacked): status gives the framework's line.
  - A `.husky` folder not active yet (core.hooksPath unset): install and status warn how the hook
    will chain when husky activates; with the line already in `.husky/post-merge`, install also
    writes the line script, so activating husky keeps capture running.
- Install is idempotent: our hook is rewritten only when its content would change (for
  example, jacked moved to another Python).

Everything is local file work: the repo is located with pygit2, nothing runs `git`.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jacked_vault.errors import VaultError
from jacked_vault.groups.scan import local_clones
from jacked_vault.resources import data_file
from jacked_vault.safety import fsio
from jacked_vault.store import gitfiles
from jacked_vault.store.launcher import jacked_script

if TYPE_CHECKING:
    import pygit2

    from jacked_vault.context import Context

HOOK_NAME = "post-merge"
MARKER = "# jacked-vault post-merge hook"
LEGACY_SUFFIX = ".jacked-legacy"
PRE_COMMIT_SLOT = HOOK_NAME + ".legacy"  # what pre-commit's hook runs first (its "migration mode")
LEFTHOOK_OLD = HOOK_NAME + ".old"  # where lefthook puts a hook it replaces (and never runs it)
LINE_SCRIPT = "jacked-post-merge"  # our hook for a framework's line, in <common git dir>/hooks/
MAX_HOOK_BYTES = 1024 * 1024
_MARKER_LINES = 5

# The line a framework's post-merge runs (shell; lefthook's `{0}` stands for git's arguments).
FRAMEWORK_LINE = (
    'jacked_hook="$(git rev-parse --git-common-dir)/hooks/jacked-post-merge"; '
    'if [ -x "$jacked_hook" ]; then "$jacked_hook" "$@"; fi'
)
LEFTHOOK_SNIPPET = (
    "post-merge:\n  commands:\n    jacked-vault:\n      run: '" + FRAMEWORK_LINE.replace('"$@"', "{0}") + "'\n"
)
LEFTHOOK_CONFIGS = tuple(
    f"{stem}{local}{ext}"
    for stem in ("lefthook", ".lefthook", ".config/lefthook")
    for local in ("", "-local")
    for ext in (".yml", ".yaml", ".json", ".jsonc", ".toml")
)
OTHER_CONFIGS = (
    "package.json",
    ".huskyrc",
    ".huskyrc.json",
    ".huskyrc.js",
    "husky.config.js",
    ".overcommit.yml",
    ".simple-git-hooks.json",
    ".simple-git-hooks.js",
    ".simple-git-hooks.cjs",
    "simple-git-hooks.json",
    "simple-git-hooks.js",
)

# (framework, byte strings whose presence in a hook file marks it as that framework's: what each
# one's generated script says, not a bare name a person's hook may hold in a path)
FRAMEWORKS: tuple[tuple[str, tuple[bytes, ...]], ...] = (
    ("pre-commit", (b"File generated by pre-commit", b"pre-commit.com", b"pre_commit hook-impl")),
    ("husky", (b"husky.sh", b"husky-run", b"husky - ")),
    ("lefthook", (b"call_lefthook", b"LEFTHOOK_BIN", b"lefthook run", b"LEFTHOOK=")),
    ("overcommit", (b"overcommit", b"OVERCOMMIT")),
    ("yorkie", (b"yorkie",)),
    ("simple-git-hooks", (b"simple-git-hooks", b"SIMPLE_GIT_HOOKS")),
)


@dataclass(frozen=True)
class HookLocation:
    """Where git looks for this repo's hooks."""

    root: Path  # the work tree
    default_dir: Path  # <common git dir>/hooks
    hooks_path: str | None  # core.hooksPath as configured (None when unset)
    hooks_path_dir: Path | None  # core.hooksPath resolved (relative to the work tree, ~ expanded)

    @property
    def effective_dir(self) -> Path:
        """The folder git runs hooks from."""
        return self.hooks_path_dir if self.hooks_path_dir is not None else self.default_dir

    @property
    def line_script(self) -> Path:
        """Our hook when a framework's line runs it."""
        return self.default_dir / LINE_SCRIPT


@dataclass(frozen=True)
class LineHost:
    """A framework that runs jacked only through a line in its own configuration."""

    framework: str
    files: tuple[Path, ...]  # where the line may be (the first is where to add it)
    how: str  # the exact text to add, and where

    def has_line(self) -> bool:
        return self.line_file() is not None

    def line_file(self) -> Path | None:
        """The file that holds the line (lefthook's may be its -local file), None when none does."""
        return next((path for path in self.files if LINE_SCRIPT.encode() in _head_bytes(path)), None)


@dataclass(frozen=True)
class GitHookReport:
    """The hook state of one repo after an install/uninstall/status call."""

    repo: Path
    hooks_dir: Path
    state: str  # installed, legacy-chained, stranded, foreign or not-installed
    active: bool  # git runs hooks from hooks_dir (false when core.hooksPath points elsewhere)
    hooks_path: str | None
    framework: str | None  # the framework owning the post-merge git runs, if recognised
    legacy: Path | None  # the chained previous hook, when present
    actions: list[str] = field(default_factory=list)  # what this call changed, in order
    via: str | None = None  # the framework that runs our hook (pre-commit, husky, lefthook, …), None when git runs it
    jacked_hook: Path | None = None  # where our hook is, wherever a framework moved it
    problem: str | None = None  # stranded: why nothing runs our hook, and the fix
    warnings: list[str] = field(default_factory=list)

    @property
    def hook(self) -> Path:
        return self.hooks_dir / HOOK_NAME

    @property
    def changed(self) -> bool:
        return bool(self.actions)

    def to_json(self) -> dict[str, Any]:
        out = {
            "repo": str(self.repo),
            "hooks_dir": str(self.hooks_dir),
            "hook": str(self.hook),
            "state": self.state,
            "active": self.active,
            "hooks_path": self.hooks_path,
            "framework": self.framework,
            "legacy": None if self.legacy is None else str(self.legacy),
            "changed": self.changed,
            "actions": list(self.actions),
            "via": self.via,
            "jacked_hook": None if self.jacked_hook is None else str(self.jacked_hook),
        }
        if self.problem:
            out["problem"] = self.problem
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


# --- locating -------------------------------------------------------------------------------


def locate(repo: str | os.PathLike[str]) -> HookLocation:
    """The work tree containing `repo` and its hook folders; NOT_FOUND outside a work tree."""
    import pygit2

    start = Path(repo).expanduser()
    if not start.exists():
        raise VaultError("NOT_FOUND", f"{start}: no such directory")
    found = pygit2.discover_repository(str(start))
    if found is None:
        raise VaultError("NOT_FOUND", f"{start}: not inside a git repository")
    try:
        handle = pygit2.Repository(found)
    except pygit2.GitError as exc:
        raise VaultError("CONFIG", f"{start}: cannot open the git repository ({exc})") from None
    if handle.is_bare or handle.workdir is None:
        raise VaultError("USAGE", f"{start}: a bare repository has no merges to capture")
    root = Path(handle.workdir).absolute()
    git_dir = Path(handle.path)
    common = gitfiles.common_dir(git_dir)
    hooks_path = _config_value(handle, "core.hooksPath")
    hooks_path_dir = None
    if hooks_path:
        expanded = Path(os.path.expanduser(hooks_path))
        hooks_path_dir = Path(os.path.normpath(expanded if expanded.is_absolute() else root / expanded))
    return HookLocation(
        root=root, default_dir=common / "hooks", hooks_path=hooks_path or None, hooks_path_dir=hooks_path_dir
    )


def _config_value(handle: pygit2.Repository, key: str) -> str | None:
    try:
        value = handle.config[key]
    except (KeyError, ValueError):
        return None
    except Exception:  # an unreadable config: act as unset, status shows it
        return None
    return value if isinstance(value, str) else None


def _hooks_path_refusal(location: HookLocation) -> VaultError:
    return VaultError(
        "CONFIG",
        f"{location.root}: core.hooksPath is set to {location.hooks_path!r}, so git runs hooks from "
        f"{location.hooks_path_dir}, a folder other repos or a hook tool may share; nothing was changed. "
        "Pass --follow-hooks-path to manage the post-merge hook there, "
        "or unset it (`git config --unset core.hooksPath`) to use .git/hooks.",
    )


def _target_dir(location: HookLocation, follow_hooks_path: bool) -> Path:
    if location.hooks_path_dir is None:
        return location.default_dir
    if not follow_hooks_path:
        raise _hooks_path_refusal(location)
    return location.hooks_path_dir


def _tracked(location: HookLocation, hooks_dir: Path) -> bool:
    """Whether git tracks `hooks_dir/post-merge` or anything else in `hooks_dir` (a hooks folder
    kept in the repo, shared by commits)."""
    import pygit2

    try:
        rel = Path(os.path.realpath(hooks_dir)).relative_to(os.path.realpath(location.root)).as_posix()
    except ValueError:
        return False  # outside the work tree
    if rel in ("", ".") or rel == ".git" or rel.startswith(".git/"):
        return False
    try:
        index = pygit2.Repository(str(location.root)).index
    except (pygit2.GitError, ValueError):
        return False
    prefix = rel + "/"
    return any(entry.path.startswith(prefix) for entry in index)


# --- reading hook files ---------------------------------------------------------------------


def _head_bytes(path: Path) -> bytes:
    """The first MAX_HOOK_BYTES of a hook (through a symlink), b"" when unreadable."""
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_HOOK_BYTES)
    except OSError:
        return b""


def is_ours(path: Path) -> bool:
    """A regular file (not a symlink) carrying our marker line near its top."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
    except OSError:
        return False
    lines = _head_bytes(path).splitlines()[:_MARKER_LINES]
    return any(line.strip() == MARKER.encode() for line in lines)


def framework_of(path: Path) -> str | None:
    """The hook framework that wrote `path` (by marker strings, or a `.husky` folder), or None."""
    if ".husky" in path.parent.parts:
        return "husky"
    data = _head_bytes(path)
    for name, needles in FRAMEWORKS:
        if any(needle in data for needle in needles):
            return name
    return None


def _lexists(path: Path) -> bool:
    return os.path.lexists(path)


def _husky_dir(location: HookLocation) -> Path | None:
    """The husky folder (its `post-merge` is the repo's script) when husky runs this repo's hooks:
    core.hooksPath is `<dir>/_` holding husky's `h` (v9) or a `.husky` folder (v4-8)."""
    folder = location.hooks_path_dir
    if folder is None:
        return None
    if folder.name == "_" and (folder.parent.name == ".husky" or b"husky" in _head_bytes(folder / "h")):
        return folder.parent
    if folder.name == ".husky" or framework_of(folder / HOOK_NAME) == "husky":
        return folder
    return None


def line_host(location: HookLocation) -> LineHost | None:
    """The framework that runs this repo's post-merge from its own configuration, if one does."""
    husky = _husky_dir(location)
    if husky is not None:
        return _husky_host(husky)
    hook = location.effective_dir / HOOK_NAME
    owner = None if is_ours(hook) else framework_of(hook) if _lexists(hook) else None
    if owner is None and _lexists(hook) and not is_ours(hook) and LINE_SCRIPT.encode() in _head_bytes(hook):
        return LineHost(
            "repo-hook", (hook,), f"keep this line in {hook}:\n{FRAMEWORK_LINE}"
        )  # a tracked hooks folder done the portable way
    lefthook = [location.root / name for name in LEFTHOOK_CONFIGS if (location.root / name).is_file()]
    lefthook_runs = owner == "lefthook" or is_ours(location.effective_dir / LEFTHOOK_OLD)
    if lefthook_runs or (owner is None and any(LINE_SCRIPT.encode() in _head_bytes(path) for path in lefthook)):
        return _lefthook_host(location, lefthook)
    if owner in ("husky", "overcommit", "yorkie", "simple-git-hooks"):  # husky 4 and older: its runner in .git/hooks
        files = (hook, *(location.root / name for name in OTHER_CONFIGS if (location.root / name).is_file()))
        return LineHost(
            owner,
            files,
            f"add this command to {owner}'s post-merge configuration, then let {owner} install its hooks "
            f"again:\n{FRAMEWORK_LINE}",
        )
    return None


def _husky_host(husky: Path) -> LineHost:
    script = husky / HOOK_NAME
    return LineHost(
        "husky",
        (script,),
        f"add this line to {script} (create it if needed; husky runs it on every merge):\n{FRAMEWORK_LINE}",
    )


def _lefthook_host(location: HookLocation, configs: list[Path]) -> LineHost:
    """lefthook's configuration files; the command goes in the first, or in the -local file lefthook
    reads beside it (same name and extension, kept on this machine)."""
    files = tuple(configs) or (location.root / "lefthook.yml",)
    main = files[0]
    lead = "." if main.name.startswith(".") else ""
    stem, _, ext = main.name[len(lead) :].partition(".")
    local = main.with_name(f"{lead}{stem}-local.{ext}")
    also = "" if stem.endswith("-local") else f" (or to {local}, which stays on this machine)"
    return LineHost(
        "lefthook",
        files,
        f"add this command to {main}{also}, merging it into a post-merge section already there:\n"
        f"{LEFTHOOK_SNIPPET.rstrip()}",
    )


def _dormant_husky(location: HookLocation) -> LineHost | None:
    """husky's folder in a repo where husky is not active yet (core.hooksPath unset: a clone before
    `npm install` runs husky's prepare script)."""
    folder = location.root / ".husky"
    return _husky_host(folder) if location.hooks_path is None and folder.is_dir() else None


def _dormant_note(location: HookLocation, host: LineHost) -> str:
    """How jacked's hook chains once the dormant framework `host` activates."""
    activates = (
        f"{host.framework} is not active in this repo yet (core.hooksPath is unset); when it is (`npm install` "
        f"runs husky, which sets core.hooksPath to .husky/_), git stops running {location.default_dir / HOOK_NAME}"
    )
    if host.has_line():
        return f"{activates} and the line in {host.line_file()} runs jacked's hook {location.line_script} instead"
    return (
        f"{activates}, so merges would no longer be captured. To keep them captured then, {host.how}\n"
        f"Then run `jacked memory hooks install --git {location.root}` again: it writes the script that line runs"
    )


def _took_over(location: HookLocation, path: Path) -> str:
    """Why our hook at `path` (in .git/hooks) no longer runs: core.hooksPath points elsewhere, and the fix."""
    over = (
        f"core.hooksPath is {location.hooks_path!r}, so git runs hooks from {location.hooks_path_dir} and no longer "
        f"runs jacked's hook {path}: merges are not captured"
    )
    host = line_host(location)
    if host is not None:
        return (
            f"{host.framework} took over ({over}). To capture them again, {host.how}\n"
            f"Then run `jacked memory hooks install --git {location.root}`, which moves jacked's hook to the "
            "script that line runs"
        )
    return (
        f"{over}. Run `jacked memory hooks install --git {location.root} --follow-hooks-path` to install it there "
        "(a hook already there is chained), or unset core.hooksPath"
    )


@dataclass(frozen=True)
class _Found:
    """Where our hook is and whether anything runs it."""

    path: Path | None = None
    via: str | None = None
    problem: str | None = None


def _find_ours(location: HookLocation, hooks_dir: Path) -> _Found:
    """Our hook wherever it is (git's own slot, pre-commit's, lefthook's `.old`, the line script)."""
    hook = hooks_dir / HOOK_NAME
    if is_ours(hook):
        return _Found(hook)
    slot = hooks_dir / PRE_COMMIT_SLOT
    if is_ours(slot):
        if framework_of(hook) == "pre-commit":
            return _Found(slot, via="pre-commit")
        return _Found(slot, problem=f"jacked's hook is {slot.name}, which only pre-commit's post-merge runs, and "
                                    f"{hook.name} is not pre-commit's; "
                      "run `jacked memory hooks install --git REPO` again")  # fmt: skip
    old = hooks_dir / LEFTHOOK_OLD
    if is_ours(old):
        return _Found(old, problem=f"lefthook moved jacked's hook to {old.name}, where it never runs; run `jacked "
                                   "memory hooks install --git REPO` "
                      "again for the line lefthook's configuration needs")  # fmt: skip
    script = location.line_script
    if is_ours(script):
        host = line_host(location)
        if host is not None and host.has_line():
            return _Found(script, via=host.framework)
        if host is None:
            return _Found(script, problem=f"nothing runs {script}: no hook framework's configuration calls it")
        return _Found(script, problem=f"{host.framework} does not run jacked's hook yet: {host.how}")
    if hooks_dir != location.default_dir:  # core.hooksPath took over from a hook of ours in .git/hooks
        for name in (HOOK_NAME, PRE_COMMIT_SLOT):
            if is_ours(location.default_dir / name):
                return _Found(location.default_dir / name, problem=_took_over(location, location.default_dir / name))
    return _Found()


def _report(
    location: HookLocation, hooks_dir: Path, actions: list[str] | None = None, warnings: list[str] | None = None
) -> GitHookReport:
    hook = hooks_dir / HOOK_NAME
    legacy = hooks_dir / (HOOK_NAME + LEGACY_SUFFIX)
    found = _find_ours(location, hooks_dir)
    framework = None if not _lexists(hook) or is_ours(hook) else framework_of(hook)
    if found.path is None:
        state = "foreign" if _lexists(hook) else "not-installed"
    elif found.problem:
        state = "stranded"
    else:
        chains = found.path.name != LINE_SCRIPT and found.path.parent == hooks_dir  # the line script chains nothing
        state = "legacy-chained" if chains and _lexists(legacy) else "installed"
    framework = framework or (found.via if found.via != "repo-hook" else None)
    dormant = _dormant_husky(location)
    if dormant is not None and found.path is not None:
        warnings = [*(warnings or []), _dormant_note(location, dormant)]
    return GitHookReport(
        repo=location.root,
        hooks_dir=hooks_dir,
        state=state,
        active=hooks_dir == location.effective_dir,
        hooks_path=location.hooks_path,
        framework=framework,
        legacy=legacy if _lexists(legacy) else None,
        actions=actions or [],
        via=found.via,
        jacked_hook=found.path,
        problem=found.problem,
        warnings=warnings or [],
    )


# --- rendering our hook ---------------------------------------------------------------------


def jacked_executable() -> str:
    """The `jacked` script of the running install (beside this Python), else one on PATH, else ""."""

    return jacked_script() or ""


def render_hook(
    jacked_bin: str | None = None, python: str | None = None, vault: str | os.PathLike[str] | None = None
) -> bytes:
    """Our hook script with this install's jacked executable and Python (and a fixed vault, when
    given) substituted, shell-quoted."""

    template = data_file("git_hooks", HOOK_NAME).read_text(encoding="utf-8")
    jacked_bin = jacked_executable() if jacked_bin is None else jacked_bin
    python = sys.executable if python is None else python
    vault_text = "" if vault is None else str(Path(vault).expanduser().absolute())
    for name, value in (("@JACKED_BIN@", jacked_bin), ("@JACKED_PYTHON@", python), ("@JACKED_VAULT@", vault_text)):
        if name not in template:
            raise VaultError("CONFIG", f"the packaged post-merge template lacks {name}")
        template = template.replace(name, shlex.quote(value) if value else "''")
    return template.encode("utf-8")


def _write_hook(target: Path, data: bytes, *, replace: bool) -> None:
    """Write our hook atomically (temp file, fsync, 0755); create-only unless `replace`."""

    try:
        fsio.write_file(target, data, replace=replace, mode=0o755)
    except FileExistsError:
        raise VaultError("EXISTS", f"{target} appeared while installing; nothing was changed") from None


def _place(target: Path, data: bytes, actions: list[str], *, runs: str = "") -> None:
    """Our hook at `target` (a slot git or a framework runs): rewritten if it is ours and differs;
    a hook of someone else's there is moved aside to `post-merge.jacked-legacy` and run first."""
    legacy = target.parent / (HOOK_NAME + LEGACY_SUFFIX)
    if os.path.isdir(target) and not os.path.islink(target):
        raise VaultError("CONFIG", f"{target} is a folder, not a hook script; nothing was changed")
    if _lexists(target) and is_ours(target):
        if _head_bytes(target) != data or stat.S_IMODE(os.stat(target).st_mode) & 0o111 == 0:
            _write_hook(target, data, replace=True)
            actions.append(f"updated {target}")
        return
    if not _lexists(target):
        _write_hook(target, data, replace=False)
        actions.append(f"installed {target}{runs}")
        return
    if _lexists(legacy):
        raise VaultError(
            "CONFIG",
            f"{target} is not ours and {legacy.name} already exists beside it; nothing was changed. "
            f"Move one of them away by hand (both are kept), then install again.",
        )
    os.rename(target, legacy)
    actions.append(f"moved {target} to {legacy.name}")
    try:
        _write_hook(target, data, replace=False)
    except BaseException:
        if not _lexists(target):
            os.rename(legacy, target)
        raise
    actions.append(f"installed {target} (runs {legacy.name} first){runs}")


# --- the three operations -------------------------------------------------------------------


def install_git_hook(
    repo: str | os.PathLike[str],
    *,
    follow_hooks_path: bool = False,
    force: bool = False,
    vault: str | os.PathLike[str] | None = None,
    jacked_bin: str | None = None,
) -> GitHookReport:
    """Install our post-merge hook in `repo`, chaining any hook already there, the way its
    framework supports when a framework owns it (module docstring).

    `vault`: a vault path to write into the hook (`--vault`); None leaves the choice to the
    merge's environment (`$JACKED_VAULT_DIR`, else ~/jacked-vault). `jacked_bin` overrides the
    jacked executable written into the hook (default: this install's).

    Refuses (VaultError CONFIG, nothing changed) when core.hooksPath is set and
    `follow_hooks_path` is false (unless husky set it: husky's line is the way), when that folder
    is tracked by git and `force` is false, when husky, lefthook, overcommit, yorkie or
    simple-git-hooks runs the repo's post-merge and its configuration lacks the line (the
    message gives it), when the hook path is a folder, or when a foreign hook and a
    `post-merge.jacked-legacy` are both present (someone replaced our hook: sort that out by
    hand; we never drop either file). Idempotent.
    """
    location = locate(repo)
    data = render_hook(jacked_bin, vault=vault)
    actions: list[str] = []
    host = line_host(location)
    if host is not None:
        return _install_for_line(location, host, data, actions)
    hooks_dir = _target_dir(location, follow_hooks_path)
    hook = hooks_dir / HOOK_NAME
    warnings: list[str] = []
    if not (_lexists(hook) and is_ours(hook)) and _tracked(location, hooks_dir):
        if not force:
            raise VaultError(
                "CONFIG",
                f"{hooks_dir} is tracked in {location.root}: installing would put this machine's absolute paths "
                f"(jacked's and the vault's) into {hook}, which a commit would share; nothing was changed. "
                f"The portable way: add this line to {hook} (it runs jacked's hook where jacked is installed and "
                f"nothing elsewhere), then install again:\n{FRAMEWORK_LINE}\n"
                "Or pass --force to install into the tracked folder anyway (then keep it out of commits).",
            )
        warnings.append(
            f"{hooks_dir} is tracked in {location.root}: {hook} now holds this machine's absolute paths; keep it out "
            "of commits"
        )
    _uninstall_line_script(location, actions)  # a line script left from before stays only where a line runs it
    if _lexists(hook) and framework_of(hook) == "pre-commit" and not is_ours(hook):
        _place(hooks_dir / PRE_COMMIT_SLOT, data, actions, runs=" (pre-commit's post-merge runs it first)")
    else:
        for name in (PRE_COMMIT_SLOT, LEFTHOOK_OLD):  # a copy a framework left where nothing runs it now
            if is_ours(hooks_dir / name):
                os.unlink(hooks_dir / name)
                actions.append(f"removed {hooks_dir / name}")
        _place(hook, data, actions)
    dormant = _dormant_husky(location)
    if dormant is not None and dormant.has_line():
        runs = f" (run by the line in {dormant.line_file()} once husky is active)"
        _place(location.line_script, data, actions, runs=runs)
    return _report(location, hooks_dir, actions, warnings)


def _install_for_line(location: HookLocation, host: LineHost, data: bytes, actions: list[str]) -> GitHookReport:
    """husky, lefthook and the like: our hook is the line script, run by the line the framework's
    configuration holds; a hook of ours left where the framework does not run it is taken back."""
    hooks_dir = location.effective_dir
    # .git/hooks too: git no longer runs a hook there once husky's core.hooksPath took over
    for folder in dict.fromkeys((hooks_dir, location.default_dir)):
        for name in (HOOK_NAME, PRE_COMMIT_SLOT, LEFTHOOK_OLD):
            if is_ours(folder / name):
                actions += _remove_ours(
                    folder, name
                )  # where the framework does not run it (an old --force over husky: husky's file goes back)
    if not host.has_line():
        done = (
            f"jacked's hook was where {host.framework} does not run it, so it was taken back ({'; '.join(actions)})"
            if actions
            else "nothing was changed"
        )
        raise VaultError(
            "CONFIG",
            f"{location.root}: {host.framework} runs this repo's post-merge from its own configuration, which jacked "
            "does not edit; "
            f"{done}. To capture merges, {host.how}\nThen run `jacked memory hooks install --git {location.root}` "
            "again.",
        )
    script = location.line_script
    script.parent.mkdir(parents=True, exist_ok=True)
    if not (_lexists(script) and is_ours(script)) and _lexists(script):
        raise VaultError(
            "CONFIG", f"{script} exists and is not jacked's; nothing was changed. Move it away, then install again."
        )
    _place(script, data, actions, runs=f" (run by the line in {host.line_file()})")
    return _report(location, hooks_dir, actions)


def _remove_ours(hooks_dir: Path, name: str) -> list[str]:
    """Remove our hook at `hooks_dir/name` and put back the hook it chained (`.jacked-legacy`) there."""
    target = hooks_dir / name
    legacy = hooks_dir / (HOOK_NAME + LEGACY_SUFFIX)
    actions: list[str] = []
    if _lexists(target) and is_ours(target):
        os.unlink(target)
        actions.append(f"removed {target}")
    if _lexists(legacy) and not _lexists(target):
        os.rename(legacy, target)
        actions.append(f"restored {target} from {legacy.name}")
    return actions


def _uninstall_line_script(location: HookLocation, actions: list[str]) -> None:
    script = location.line_script
    if _lexists(script) and is_ours(script):
        os.unlink(script)
        actions.append(f"removed {script}")


def _uninstall_in(hooks_dir: Path) -> list[str]:
    """Our hook in each slot of `hooks_dir` (git's, pre-commit's, lefthook's `.old`), removed."""
    actions: list[str] = []
    for name in (HOOK_NAME, PRE_COMMIT_SLOT, LEFTHOOK_OLD):
        if is_ours(hooks_dir / name):
            actions += _remove_ours(hooks_dir, name)
    return actions


def uninstall_git_hook(repo: str | os.PathLike[str], *, follow_hooks_path: bool = False) -> GitHookReport:
    """Remove our post-merge hook from `repo`, wherever it is (git's slot, pre-commit's
    `post-merge.legacy`, lefthook's `.old`, the line script a framework runs), and put back the
    hook it chained (byte-identical, same mode: it is a rename). A foreign hook is never touched.

    Cleans `<git dir>/hooks` always (an inactive copy left there from before core.hooksPath was
    set is removed too); the core.hooksPath folder only with `follow_hooks_path` — without it,
    finding our hook there is a CONFIG error and nothing is changed.
    """
    location = locate(repo)
    dirs = [location.default_dir]
    if location.hooks_path_dir is not None and location.hooks_path_dir != location.default_dir:
        shared = location.hooks_path_dir
        if follow_hooks_path:
            dirs.append(shared)
        elif any(is_ours(shared / name) for name in (HOOK_NAME, PRE_COMMIT_SLOT, LEFTHOOK_OLD)) or (
            not _lexists(shared / HOOK_NAME) and _lexists(shared / (HOOK_NAME + LEGACY_SUFFIX))
        ):
            raise _hooks_path_refusal(location)
    actions: list[str] = []
    host = line_host(location)
    _uninstall_line_script(location, actions)
    if actions and host is not None and host.has_line():
        line = host.line_file()
        actions.append(f"the line in {line} now does nothing on this machine (remove it if no one needs it)")
    for hooks_dir in dirs:
        actions += _uninstall_in(hooks_dir)
    return _report(location, location.effective_dir, actions)


def git_hook_status(repo: str | os.PathLike[str]) -> GitHookReport:
    """The state of the hooks folder git actually uses (core.hooksPath when set), our hook found
    wherever a framework put it. Read-only."""
    location = locate(repo)
    return _report(location, location.effective_dir)


# --- --git-all ------------------------------------------------------------------------------


def group_repo_paths(ctx: Context, group: str, roots: Sequence[str] = ()) -> list[Path]:
    """This machine's clones of the repos of `group` (mapped in vault.json, or `group` is their solo
    group), wherever under its roots (`groups.scan.local_clones`). Sorted; bounded by the scan."""
    from jacked_vault.store.config import group_for

    config = ctx.config
    clones, _ = local_clones(lambda identity, solo: group_for(config, identity, solo) == group, roots)
    return clones
