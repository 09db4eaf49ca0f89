"""Scanning roots for repos and suggesting groups, on a realistic tree of real git repos."""

from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
from pathlib import Path

import pygit2
import pytest
from conftest import make_repo

from jacked_vault.errors import VaultError
from jacked_vault.groups.scan import ScannedRepo, scan_roots
from jacked_vault.groups.suggest import (
    GroupSuggestion,
    apply_suggestions,
    consider_groups,
    duplicate_mappings,
    suggest_groups,
)

# path under the root -> origin URL (None: no remote); every one is a real repo found by a scan
TREE: dict[str, str | None] = {
    "clients/acme/acme-api": "git@github.com:acme/acme-api.git",
    "clients/acme/acme-web-copy": "https://github.com/acme/acme-web",
    "clients/globex/shipping": "git@github.com:globex/shipping.git",
    "clients/globex/ledger": "https://github.com/Globex/Ledger.git",
    "acme-web": "git@github.com:acme/acme-web.git",
    "acme-worker": "ssh://git@github.com:22/acme/acme-worker.git",
    "acme-billing-api": "https://github.com/acme/acme-billing-api.git",
    "acme-billing-web": "https://github.com/acme/acme-billing-web.git",
    "acme-docs": "https://github.com/Acme/Acme-Docs.git",
    "acme-mobile": "git@bitbucket.org:acme/acme-mobile.git",
    "personal/dotfiles": "git@github.com:me/dotfiles.git",
    "personal/blog": "git@github.com:me/blog.git",
    "personal/advent-of-code": "git@github.com:me/advent-of-code.git",
    "personal/raytracer": "git@github.com:me/raytracer.git",
    "personal/website": "https://me@github.com/me/website",
    "personal/tools-cli": "git@github.com:me/tools-cli.git",
    "personal/tools-web": "git@github.com:me/tools-web.git",
    "fans-globex": "https://github.com/fans/globex.git",
    "gitlab/gateway": "https://gitlab.com/bigco/platform/gateway.git",
    "gitlab/scheduler": "git@gitlab.com:bigco/platform/scheduler.git",
    "gitlab/warehouse": "https://gitlab.com/bigco/data/warehouse.git",
    "oss/flask": "https://github.com/pallets/flask.git",
    "oss/requests": "https://github.com/psf/requests.git",
    "oss/linux": "https://github.com/torvalds/linux.git",
    "oss/rust": "https://github.com/rust-lang/rust.git",
    "oss/cpython": "https://github.com/python/cpython.git",
    "infra": "/srv/git/infra.git",
    "Scratch Pad": None,
}
HOSTILE = "evil"  # origin URL with an escape character, written into .git/config directly
WORKTREE_OF = "clients/acme/acme-api"
WORKTREE = "acme-api-hotfix"  # linked worktree of WORKTREE_OF
NOT_FOUND = {  # real repos a scan must not report
    ".archive/old-repo": "git@github.com:me/old-repo.git",  # inside a hidden dir
    "acme-web/vendor/inner-lib": "git@github.com:acme/inner-lib.git",  # inside another repo
}

EXPECTED_IDENTITIES = {
    "clients/acme/acme-api": "github.com/acme/acme-api",
    "clients/acme/acme-web-copy": "github.com/acme/acme-web",
    "clients/globex/shipping": "github.com/globex/shipping",
    "clients/globex/ledger": "github.com/globex/ledger",
    "acme-web": "github.com/acme/acme-web",
    "acme-worker": "github.com/acme/acme-worker",
    "acme-billing-api": "github.com/acme/acme-billing-api",
    "acme-billing-web": "github.com/acme/acme-billing-web",
    "acme-docs": "github.com/acme/acme-docs",
    "acme-mobile": "bitbucket.org/acme/acme-mobile",
    "personal/dotfiles": "github.com/me/dotfiles",
    "personal/blog": "github.com/me/blog",
    "personal/advent-of-code": "github.com/me/advent-of-code",
    "personal/raytracer": "github.com/me/raytracer",
    "personal/website": "github.com/me/website",
    "personal/tools-cli": "github.com/me/tools-cli",
    "personal/tools-web": "github.com/me/tools-web",
    "fans-globex": "github.com/fans/globex",
    "gitlab/gateway": "gitlab.com/bigco/platform/gateway",
    "gitlab/scheduler": "gitlab.com/bigco/platform/scheduler",
    "gitlab/warehouse": "gitlab.com/bigco/data/warehouse",
    "oss/flask": "github.com/pallets/flask",
    "oss/requests": "github.com/psf/requests",
    "oss/linux": "github.com/torvalds/linux",
    "oss/rust": "github.com/rust-lang/rust",
    "oss/cpython": "github.com/python/cpython",
    "infra": "local/infra",
    "Scratch Pad": "scratch-pad",
    WORKTREE: "github.com/acme/acme-api",
    HOSTILE: None,
}

ACME = [  # bitbucket.org/acme/acme-mobile is another owner: owners are a boundary
    "github.com/acme/acme-api",
    "github.com/acme/acme-billing-api",
    "github.com/acme/acme-billing-web",
    "github.com/acme/acme-docs",
    "github.com/acme/acme-web",
    "github.com/acme/acme-worker",
]
PLATFORM = ["gitlab.com/bigco/platform/gateway", "gitlab.com/bigco/platform/scheduler"]
GLOBEX = ["github.com/globex/ledger", "github.com/globex/shipping"]
TOOLS = ["github.com/me/tools-cli", "github.com/me/tools-web"]


def _init(path: Path, origin: str | None) -> None:
    """A real repo without commits (enough for a scan), with an origin remote when given."""
    repo = pygit2.init_repository(str(path), initial_head="main")
    if origin:
        repo.remotes.create("origin", origin)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The realistic root: 28 repos + a hostile one + a worktree, and traps around them."""
    root = Path(os.path.realpath(tmp_path_factory.mktemp("scan"))) / "Github"
    for rel, origin in {**TREE, **NOT_FOUND}.items():
        (root / rel).mkdir(parents=True)
        _init(root / rel, origin)
    (root / HOSTILE).mkdir()
    _init(root / HOSTILE, None)
    with open(root / HOSTILE / ".git" / "config", "a", encoding="utf-8") as config:
        config.write('[remote "origin"]\n\turl = https://github.com/evil/r\x1b[31mred\n')
    main = root / WORKTREE_OF
    make_repo(main).add_worktree("hotfix", str(root / WORKTREE))  # a worktree needs a commit
    (root / "api-link").symlink_to(main, target_is_directory=True)
    (root / "notes").mkdir()
    (root / "notes" / "todo.md").write_text("not a repo\n")
    return root


def _relative(repos: list[ScannedRepo], root: Path) -> dict[str, str | None]:
    return {str(repo.root.relative_to(root)): repo.identity for repo in repos}


def test_scan_finds_exactly_the_expected_repos(tree: Path) -> None:
    calls: list[int] = []
    report = scan_roots([tree], progress=calls.append)
    assert _relative(report.repos, tree) == EXPECTED_IDENTITIES
    assert [repo.root for repo in report.repos] == sorted(repo.root for repo in report.repos)
    assert report.missing_roots == [] and report.unreadable == 0 and not report.truncated
    assert calls == [10, 20, 30, 30]
    scratch = next(r for r in report.repos if r.root.name == "Scratch Pad")
    assert scratch.solo_group == "scratch-pad" and scratch.error is None


def test_hostile_origin_is_reported_not_fatal(tree: Path) -> None:
    report = scan_roots([tree])
    evil = next(r for r in report.repos if r.root.name == HOSTILE)
    assert evil.identity is None and evil.solo_group == "evil"
    assert evil.error is not None and "control or bidi character" in evil.error
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in evil.error)
    assert "\\x1b" in evil.error


def test_broken_gitfile_is_reported(tmp_path: Path) -> None:
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / ".git").write_text("gitdir: /nonexistent/worktrees/gone\n")
    (tmp_path / "gone" / "inner").mkdir()
    _init(tmp_path / "gone" / "inner", "git@github.com:o/inner.git")
    [repo] = scan_roots([tmp_path]).repos
    assert repo.root == tmp_path / "gone" and repo.identity is None
    assert repo.error is not None and "does not point to a git directory" in repo.error


def test_overlapping_roots_symlinked_root_and_missing_roots(tree: Path, tmp_path: Path) -> None:
    alias = tmp_path / "gh-alias"
    alias.symlink_to(tree, target_is_directory=True)
    (tmp_path / "a-file").write_text("x")
    roots = [tree, tree / "clients", str(alias), tmp_path / "nope", str(tmp_path / "a-file")]
    report = scan_roots(roots)
    assert _relative(report.repos, tree) == EXPECTED_IDENTITIES
    assert report.missing_roots == [str(tmp_path / "nope"), str(tmp_path / "a-file")]


def test_tilde_is_expanded(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tree.parent))
    report = scan_roots(["~/Github/clients"])
    assert {repo.identity for repo in report.repos} == {
        "github.com/acme/acme-api",
        "github.com/acme/acme-web",
        *GLOBEX,
    }


def test_a_root_that_is_a_repo_is_reported_itself(tree: Path) -> None:
    report = scan_roots([tree / "acme-web"])
    assert [repo.root for repo in report.repos] == [tree / "acme-web"]


def test_depth_bound_sets_truncated(tree: Path) -> None:
    report = scan_roots([tree], max_depth=2)
    found = _relative(report.repos, tree)
    assert report.truncated
    assert set(EXPECTED_IDENTITIES) - set(found) == {
        "clients/acme/acme-api",
        "clients/acme/acme-web-copy",
        "clients/globex/shipping",
        "clients/globex/ledger",
    }


def test_count_bound_sets_truncated(tree: Path) -> None:
    report = scan_roots([tree, tree / "oss"], max_repos=5)
    assert len(report.repos) == 5 and report.truncated
    exact = scan_roots([tree / "oss"], max_repos=5)
    assert len(exact.repos) == 5 and not exact.truncated


def _unreadable_and_found(root: Path) -> tuple[int, list[str | None]]:
    """Scan `root` as an unprivileged user (root reads any directory whatever its mode)."""
    if os.geteuid() != 0:
        report = scan_roots([root])
        return report.unreadable, [repo.identity for repo in report.repos]
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: drop to `nobody`, scan, send the result; never return to pytest
        code = 1
        try:
            os.setgid(65534)
            os.setuid(65534)
            report = scan_roots([root])
            result = [report.unreadable, [repo.identity for repo in report.repos]]
            os.write(write_end, json.dumps(result).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        unreadable, found = json.loads(pipe.read())
    assert os.waitpid(pid, 0)[1] == 0
    return unreadable, found


def test_unreadable_dirs_are_skipped_and_counted() -> None:
    root = Path(tempfile.mkdtemp())  # pytest's tmp_path is closed to other users
    try:
        root.chmod(0o755)
        _init(root / "ok", None)
        _init(root / "locked" / "hidden-from-us", None)
        (root / "locked").chmod(0)
        assert _unreadable_and_found(root) == (1, ["ok"])
    finally:
        (root / "locked").chmod(0o755)
        shutil.rmtree(root)


def test_two_hundred_repos_are_all_found(tmp_path: Path) -> None:
    for team in range(20):
        for n in range(10):
            path = tmp_path / "root" / f"team{team:02d}" / f"svc{n}"
            path.mkdir(parents=True)
            _init(path, f"git@github.com:team{team:02d}/svc{n}.git")
    calls: list[int] = []
    report = scan_roots([tmp_path / "root"], progress=calls.append)
    assert len(report.repos) == 200 and not report.truncated
    assert len({repo.identity for repo in report.repos}) == 200
    assert calls == [*range(10, 201, 10), 200]


# --- suggestions -------------------------------------------------------------------------


def test_suggestion_on_the_realistic_tree(tree: Path) -> None:
    assert suggest_groups(scan_roots([tree]).repos, personal=["Me"]) == [
        GroupSuggestion("acme", ACME, "6 repos of github.com/acme share the name prefix 'acme'"),
        GroupSuggestion("bigco-platform", PLATFORM, "2 repos share the remote owner gitlab.com/bigco/platform"),
        # `globex` is the solo group of github.com/fans/globex, which stays unmapped
        GroupSuggestion("globex-2", GLOBEX, "2 repos share the remote owner github.com/globex"),
        GroupSuggestion("tools", TOOLS, "2 repos of github.com/me share the name prefix 'tools'"),
    ]
    # github.com/me (git config says it is the person's own account) holds 5 unrelated leftovers


def test_existing_mappings_are_left_out_and_their_names_not_reused(tree: Path) -> None:
    existing = {
        "acme": ["github.com/acme/legacy"],
        "billing": ["github.com/acme/acme-billing-api", "github.com/acme/acme-billing-web"],
        "bigco-platform": [],
    }
    suggestions = suggest_groups(scan_roots([tree]).repos, existing, personal=["me"])
    remaining = [i for i in ACME if "billing" not in i]
    assert suggestions[0] == GroupSuggestion(
        "acme-2", remaining, "4 repos of github.com/acme share the name prefix 'acme'"
    )
    assert [s.name for s in suggestions] == ["acme-2", "bigco-platform-2", "globex-2", "tools"]
    suggested = [i for s in suggestions for i in s.repos]
    assert len(suggested) == len(set(suggested))
    assert not set(suggested) & {i for ids in existing.values() for i in ids}


def test_personal_account_is_left_out_whatever_its_size(tree: Path) -> None:
    repos = scan_roots([tree / "personal", tree / "clients"]).repos
    # me: blog, dotfiles, advent-of-code, raytracer, website (tools-* went to `tools`)
    assert [s.name for s in suggest_groups(repos, personal=["me"])] == ["acme", "globex", "tools"]
    mapped = {"mine": ["github.com/me/blog", "github.com/me/dotfiles", "github.com/me/website"]}
    # me now has 2 leftovers: still the person's own account, still not grouped
    assert suggest_groups(repos, mapped, personal=["me"]) == [
        GroupSuggestion(
            "acme",
            ["github.com/acme/acme-api", "github.com/acme/acme-web"],
            "2 repos of github.com/acme share the name prefix 'acme'",
        ),
        GroupSuggestion("globex", GLOBEX, "2 repos share the remote owner github.com/globex"),
        GroupSuggestion("tools", TOOLS, "2 repos of github.com/me share the name prefix 'tools'"),
    ]
    # Not known to be anyone's own account, it is an owner like any other.
    assert [s.name for s in suggest_groups(repos, mapped)] == ["acme", "globex", "me", "tools"]


def _scanned(*identities: str) -> list[ScannedRepo]:
    """Scan results as data (for rules the realistic tree does not reach)."""
    return [ScannedRepo(Path("/r") / i, i, i.rpartition("/")[2], None) for i in identities]


def test_owner_groups_are_bounded() -> None:
    big = _scanned(*(f"h/big/r{n}" for n in range(21)), *(f"h/top/p{n}" for n in range(20)))
    assert [(s.name, len(s.repos)) for s in suggest_groups(big)] == [("top", 20)]  # OWNER_GROUP_MAX holds
    [too_many] = [c for c in consider_groups(big) if not c.suggested]
    assert (too_many.owner, too_many.code, len(too_many.repos)) == ("h/big", "too-many", 21)
    assert "more than 20" in too_many.reason


def test_large_prefix_group_is_split_by_sub_prefix(tmp_path: Path) -> None:
    names = [
        "initech-billing-api",
        "initech-billing-web",
        "initech-billing-jobs",
        "initech-search-api",
        "initech-search-ui",
        "initech-auth",
        "initech-cli",
        "initech-docs",
        "initech-infra",
        "initech-sdk",
        "initech-site",
        "initech-bots",
        "initech",
        "initech_mobile_app",
    ]
    for name in names:
        _init(tmp_path / name, f"https://github.com/initech/{name}.git")
    suggestions = suggest_groups(scan_roots([tmp_path]).repos)
    ids = {name: f"github.com/initech/{name}" for name in names}
    assert [(s.name, s.reason) for s in suggestions] == [
        ("initech", "9 repos of github.com/initech share the name prefix 'initech'"),
        ("initech-billing", "3 repos of github.com/initech share the name prefix 'initech-billing'"),
        ("initech-search", "2 repos of github.com/initech share the name prefix 'initech-search'"),
    ]
    assert suggestions[1].repos == sorted(ids[n] for n in names if "billing" in n)
    rest = [n for n in names if "billing" not in n and "search" not in n]
    assert suggestions[0].repos == sorted(ids[n] for n in rest)


def test_a_single_repo_left_by_a_split_goes_on_to_the_owner_rule() -> None:
    pairs = [f"h/o/x-{team}-{n}" for team in "abcdef" for n in (1, 2)]
    suggestions = suggest_groups(_scanned(*pairs, "h/o/x", "h/o/other"))
    assert [s.name for s in suggestions] == ["o", "x-a", "x-b", "x-c", "x-d", "x-e", "x-f"]
    assert suggestions[0] == GroupSuggestion("o", ["h/o/other", "h/o/x"], "2 repos share the remote owner h/o")


def test_errors_and_duplicate_identities_are_skipped(tree: Path) -> None:
    suggestions = suggest_groups(scan_roots([tree]).repos)
    assert all(None not in s.repos for s in suggestions)
    suggested = [i for s in suggestions for i in s.repos]
    assert len(suggested) == len(set(suggested))  # two clones of acme-web, acme-api + worktree


# --- applying and checking mappings -------------------------------------------------------


def _config(groups: dict[str, list[str]]) -> dict:
    return {
        "version": 1,
        "roots": ["~/Github"],
        "groups": {name: {"repos": repos} for name, repos in groups.items()},
        "settings": {"lock_timeout_s": 5},
    }


def test_apply_merges_without_double_mapping(tree: Path) -> None:
    stale = suggest_groups(scan_roots([tree]).repos, personal=["me"])  # computed before `billing` existed
    config = _config({"billing": ["github.com/acme/acme-billing-api"]})
    before = copy.deepcopy(config)
    result = apply_suggestions(config, stale)
    assert config == before
    assert result["groups"]["billing"] == {"repos": ["github.com/acme/acme-billing-api"]}
    assert result["groups"]["acme"]["repos"] == [i for i in ACME if i != "github.com/acme/acme-billing-api"]
    assert list(result["groups"]) == ["billing", "acme", "bigco-platform", "globex-2", "tools"]
    assert result["settings"] == before["settings"] and result["roots"] == before["roots"]
    assert duplicate_mappings(result) == []


def test_apply_drops_repeats_and_empty_suggestions() -> None:
    suggestions = [
        GroupSuggestion("one", ["h/o/a", "h/o/b", "h/o/a"], "r"),
        GroupSuggestion("two", ["h/o/b", "h/o/c"], "r"),
        GroupSuggestion("three", ["h/o/c"], "r"),
    ]
    result = apply_suggestions({"version": 1}, suggestions)
    assert result["groups"] == {"one": {"repos": ["h/o/a", "h/o/b"]}, "two": {"repos": ["h/o/c"]}}


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("billing", "CONFIG"),
        ("Bad Name", "VALIDATION"),
        ("-x", "VALIDATION"),
        ("", "VALIDATION"),
        ("a" * 65, "VALIDATION"),
        ("ok\x1b", "VALIDATION"),
    ],
)
def test_apply_refuses_bad_or_taken_names(name: str, code: str) -> None:
    config = _config({"billing": ["h/o/a"]})
    with pytest.raises(VaultError) as raised:
        apply_suggestions(config, [GroupSuggestion(name, ["h/o/new"], "r")])
    assert raised.value.code == code
    assert not any(ord(c) < 0x20 for c in raised.value.message)
    assert config == _config({"billing": ["h/o/a"]})


def test_duplicate_mappings() -> None:
    config = _config({"a": ["x/y/1", "x/y/2"], "c": ["x/y/1", "x/y/2", "x/y/3"], "b": ["x/y/1"]})
    assert duplicate_mappings(config) == [
        {"repo": "x/y/1", "groups": ["a", "b", "c"]},
        {"repo": "x/y/2", "groups": ["a", "c"]},
    ]
    assert duplicate_mappings({"version": 1}) == []


# --- owners are a boundary; every cluster is accounted for ----------------------------------------


def test_one_prefix_under_two_owners_gives_two_groups_named_after_their_owners() -> None:
    repos = _scanned(
        "github.com/orga/hank-x", "github.com/orga/hank-y", "github.com/orgb/hank-p", "github.com/orgb/hank-q"
    )
    assert suggest_groups(repos) == [
        GroupSuggestion(
            "orga-hank",
            ["github.com/orga/hank-x", "github.com/orga/hank-y"],
            "2 repos of github.com/orga share the name prefix 'hank'",
        ),
        GroupSuggestion(
            "orgb-hank",
            ["github.com/orgb/hank-p", "github.com/orgb/hank-q"],
            "2 repos of github.com/orgb share the name prefix 'hank'",
        ),
    ]
    # A prefix only one owner uses keeps its short name.
    assert [
        s.name for s in suggest_groups(repos[:2] + _scanned("github.com/orgb/tools-a", "github.com/orgb/tools-b"))
    ] == ["hank", "tools"]


def test_the_owner_with_the_most_repos_is_not_taken_for_a_personal_account() -> None:
    """Issue 10.2: a newcomer's employer owns more of their repos than they do."""
    acme = ["github.com/acme/billing", "github.com/acme/ledger", "github.com/acme/search"]
    mine = ["github.com/newcomer/blog", "github.com/newcomer/dotfiles"]
    repos = _scanned(*acme, *mine)
    assert suggest_groups(repos, personal=["newcomer"]) == [
        GroupSuggestion("acme", acme, "3 repos share the remote owner github.com/acme"),
    ]
    # Without knowing whose account is whose, size decides nothing: both owners are suggested.
    assert [s.name for s in suggest_groups(repos)] == ["acme", "newcomer"]


def test_every_unmapped_repo_is_in_exactly_one_considered_cluster_with_a_reason(tree: Path) -> None:
    scanned = scan_roots([tree]).repos
    existing = {"billing": ["github.com/acme/acme-billing-api", "github.com/acme/acme-billing-web"]}
    clusters = consider_groups(scanned, existing, personal=["me"])
    placed = [i for c in clusters for i in c.repos]
    mapped = {i for ids in existing.values() for i in ids}
    assert sorted(placed) == sorted({r.identity for r in scanned if r.identity} - mapped)
    assert all(c.reason and (c.name is not None) == c.suggested for c in clusters)
    by_code = {}
    for c in clusters:
        by_code.setdefault(c.code, []).append(c)
    assert [c.owner for c in by_code["personal"]] == ["github.com/me"]
    assert "your own account" in by_code["personal"][0].reason and not by_code["personal"][0].suggested
    assert {c.owner for c in by_code["single"]} >= {"bitbucket.org/acme", "github.com/psf", "gitlab.com/bigco/data"}
    assert [c.repos for c in by_code["no-owner"]] == [("local/infra", "scratch-pad")]
    assert [s.name for s in suggest_groups(scanned, existing, personal=["me"])] == [
        c.name for c in sorted((c for c in clusters if c.suggested), key=lambda c: c.name)
    ]
