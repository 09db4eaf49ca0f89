"""Repo identity: URL normalisation, git config reading and discovery on real repos."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from urllib.parse import quote

import pygit2
import pytest

from jacked_vault.errors import VaultError
from jacked_vault.safety.text import check_text
from jacked_vault.store.gitfiles import MAX_CONFIG_BYTES, MAX_LEVELS, find_work_tree, origin_url
from jacked_vault.store.identity import RepoInfo, normalise_remote, repo_for, slugify

URL_SHAPES = [
    ("git@github.com:O/R.git", "github.com/o/r"),
    ("git@github.com:O/R", "github.com/o/r"),
    ("ssh://git@github.com:22/O/R.git", "github.com/o/r"),
    ("ssh://git@github.com/O/R", "github.com/o/r"),
    ("https://github.com/O/R.git", "github.com/o/r"),
    ("https://u@github.com/O/R", "github.com/o/r"),
    ("https://u:tok@github.com/O/R.git", "github.com/o/r"),
    ("http://github.com/O/R/", "github.com/o/r"),
    ("git://github.com/O/R.git", "github.com/o/r"),
    ("https://gitlab.com/group/subgroup/repo.git", "gitlab.com/group/subgroup/repo"),
    ("ssh://git@gitlab.example.com:2222/g/r.git", "gitlab.example.com/g/r"),
    ("https://dev.azure.com/org/proj/_git/repo", "dev.azure.com/org/proj/git/repo"),
    (
        "org-123@vs-ssh.visualstudio.com:v3/org/proj/repo",
        "vs-ssh.visualstudio.com/v3/org/proj/repo",
    ),
    ("https://bitbucket.org/O/R.git", "bitbucket.org/o/r"),
    ("git@bitbucket.org:O/R.git", "bitbucket.org/o/r"),
    ("https://github.com/O/R.git/", "github.com/o/r"),
    ("HTTPS://GitHub.com/O/R", "github.com/o/r"),
    ("file:///srv/git/r.git", "local/r"),
    ("/srv/git/r.git", "local/r"),
    ("../r.git", "local/r"),
    ("C:\\repos\\R.git", "local/r"),
    ("github.com:O/R", "github.com/o/r"),
    ("ssh://git@[::1]:22/o/r.git", "ipv6---1/o/r"),
    ("git@[::1]:o/r.git", "ipv6---1/o/r"),
    ("https://github.com/o/r?tab=readme#top", "github.com/o/r"),
    ("https://example.com/~alice/My%20Repo.git", "example.com/alice/my-repo"),
    ("alice@server:~/repos/r.git", "server/repos/r"),
    ("https://github.com/o/r/.git", "github.com/o/r"),
    ("git+ssh://git@github.com/O/R.git", "github.com/o/r"),
]

HOSTILE_URLS = [
    pytest.param("https://github.com/o/r\x1b[31m", id="escape"),
    pytest.param("https://github.com/o/r\nurl=evil", id="newline"),
    pytest.param("https://github.com/o/r\x00", id="nul"),
    pytest.param("https://github.com/o/\u202er", id="bidi"),
    pytest.param("https://github.com/o/%0ar", id="encoded-newline"),
    pytest.param("https://github.com/o/../../etc", id="dotdot"),
    pytest.param("git@github.com:o/./r", id="dot"),
    pytest.param("https://github.com/o/%2e%2e/r", id="encoded-dotdot"),
    pytest.param("https://github.com/" + "a" * 2100, id="too-long"),
    pytest.param("", id="empty"),
    pytest.param("   ", id="blank"),
    pytest.param("https://github.com", id="host-only"),
    pytest.param("https://github.com/", id="host-slash"),
    pytest.param("git@github.com:", id="scp-no-path"),
    pytest.param("https:///o/r", id="no-host"),
    pytest.param("ssh://git@github.com:O/R", id="bad-port"),
    pytest.param("https://h/" + "/".join("abcdefgh"), id="nine-segments"),
    pytest.param("https://h/o/" + "r" * 300, id="identity-too-long"),
    pytest.param("https://h/~/---", id="no-usable-segment"),
    pytest.param("..", id="local-dotdot"),
]


def _no_raw_control(text: str) -> bool:
    return not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or 0x202A <= ord(c) <= 0x202E for c in text)


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real git CLI, isolated from the user's global and system config."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _init(path: Path, url: str | None = None) -> pygit2.Repository:
    repo = pygit2.init_repository(str(path))
    if url is not None:
        repo.remotes.create("origin", url)
    return repo


def _commit(repo: pygit2.Repository) -> None:
    sig = pygit2.Signature("Test", "test@example.com")
    repo.create_commit("HEAD", sig, sig, "init", repo.TreeBuilder().write(), [])


def _write_config(path: Path, remote_lines: str) -> None:
    """Replace a repo's config with core settings plus `remote_lines` (raw config text)."""
    core = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
    (path / ".git" / "config").write_text(core + remote_lines, encoding="utf-8")


# --- normalise_remote and slugify ----------------------------------------------------------


@pytest.mark.parametrize(("url", "identity"), URL_SHAPES)
def test_normalise_remote_real_world_shapes(url: str, identity: str) -> None:
    assert normalise_remote(url) == identity


@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_hostile_urls_raise_config_without_raw_controls(url: str) -> None:
    with pytest.raises(VaultError) as caught:
        normalise_remote(url)
    assert caught.value.code == "CONFIG"
    assert _no_raw_control(caught.value.message)
    assert len(caught.value.message) < 300


def test_a_remote_url_refuses_what_single_line_text_refuses_plus_tab_and_bidi_marks() -> None:
    """One rule owner (safety/text.py): a remote URL, raw or percent-encoded, is refused for every
    control and bidi control a single-line note field refuses, and also for tab and the invisible
    bidi marks (ALM, LRM, RLM), which a note's prose may hold."""
    controls = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))]
    marks = ["\u061c", "\u200e", "\u200f"]
    for char in controls + marks:
        in_text = char != "\t" and char not in marks
        try:
            check_text("title", f"a{char}b", multiline=False)
        except VaultError:
            refused_in_text = True
        else:
            refused_in_text = False
        assert refused_in_text == in_text, f"U+{ord(char):04X}"
        for url in (f"https://github.com/o/r{char}x", f"https://github.com/o/r{quote(char)}x"):
            with pytest.raises(VaultError) as caught:
                normalise_remote(url)
            assert caught.value.code == "CONFIG", f"U+{ord(char):04X}"


def test_hostile_message_hides_credentials() -> None:
    with pytest.raises(VaultError) as caught:
        normalise_remote("https://u:s3cretTok@github.com/o/../x")
    assert "s3cretTok" not in caught.value.message
    assert "github.com/o/../x" in caught.value.message


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("My_Repo", "my_repo"),
        ("api", "api"),
        ("--Cool Repo!", "cool-repo-"),
        ("x" * 100, "x" * 64),
        ("___", "repo"),
        ("", "repo"),
    ],
)
def test_slugify(text: str, slug: str) -> None:
    assert slugify(text) == slug


# --- real repositories --------------------------------------------------------------------


def test_identity_from_origin(tmp_path: Path) -> None:
    _init(tmp_path / "api", "git@github.com:Acme/My_Repo.git")
    info = repo_for(tmp_path / "api")
    assert info == RepoInfo(
        root=tmp_path / "api",
        identity="github.com/acme/my_repo",
        solo_group="my_repo",
        remote_url="github.com:Acme/My_Repo.git",
    )


def test_remote_url_drops_credentials(tmp_path: Path) -> None:
    _init(tmp_path / "r", "https://u:tok@github.com/O/R.git")
    info = repo_for(tmp_path / "r")
    assert info is not None
    assert info.remote_url == "https://github.com/O/R.git"
    assert info.identity == "github.com/o/r"


def test_repo_without_remote_uses_dir_name(tmp_path: Path) -> None:
    _init(tmp_path / "My Project")
    info = repo_for(tmp_path / "My Project")
    assert info is not None
    assert (info.identity, info.solo_group, info.remote_url) == ("my-project", "my-project", None)


def test_subdirectory_and_file_resolve_to_root(tmp_path: Path) -> None:
    _init(tmp_path / "r", "https://github.com/o/r")
    deep = tmp_path / "r" / "src" / "pkg"
    deep.mkdir(parents=True)
    (deep / "mod.py").write_text("x = 1\n")
    assert find_work_tree(deep) == tmp_path / "r"
    assert find_work_tree(deep / "mod.py") == tmp_path / "r"
    info = repo_for(deep)
    assert info is not None and info.root == tmp_path / "r" and info.identity == "github.com/o/r"


def test_linked_worktree_shares_identity(tmp_path: Path) -> None:
    repo = _init(tmp_path / "main", "ssh://git@github.com:22/Acme/API.git")
    _commit(repo)
    repo.add_worktree("feature", str(tmp_path / "feature"))
    assert (tmp_path / "feature" / ".git").is_file()
    main, linked = repo_for(tmp_path / "main"), repo_for(tmp_path / "feature")
    assert main is not None and linked is not None
    assert linked.root == tmp_path / "feature"
    assert linked.identity == main.identity == "github.com/acme/api"
    assert _git(tmp_path / "feature", "config", "--get", "remote.origin.url").stdout.strip() == (
        origin_url(tmp_path / "feature")
    )


def test_gitfile_with_relative_gitdir(tmp_path: Path) -> None:
    _init(tmp_path / "work", "https://gitlab.com/g/sub/r.git")
    (tmp_path / "store").mkdir()
    (tmp_path / "work" / ".git").rename(tmp_path / "store" / "r.git")
    (tmp_path / "work" / ".git").write_text("gitdir: ../store/r.git\n")
    (tmp_path / "work" / "sub").mkdir()
    assert find_work_tree(tmp_path / "work" / "sub") == tmp_path / "work"
    assert origin_url(tmp_path / "work") == "https://gitlab.com/g/sub/r.git"
    info = repo_for(tmp_path / "work" / "sub")
    assert info is not None and info.identity == "gitlab.com/g/sub/r"
    toplevel = _git(tmp_path / "work", "rev-parse", "--show-toplevel")
    assert toplevel.stdout.strip() == str(tmp_path / "work")


def test_invalid_gitfile_and_symlinked_dotgit_are_not_markers(tmp_path: Path) -> None:
    (tmp_path / "bogus").mkdir()
    (tmp_path / "bogus" / ".git").write_text("not a pointer\n")
    (tmp_path / "dangling").mkdir()
    (tmp_path / "dangling" / ".git").write_text("gitdir: ../missing\n")
    _init(tmp_path / "real")
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / ".git").symlink_to(tmp_path / "real" / ".git")
    for name in ("bogus", "dangling", "linked"):
        assert find_work_tree(tmp_path / name) is None


def test_config_with_comments_spacing_and_quotes(tmp_path: Path) -> None:
    _init(tmp_path / "r")
    _write_config(
        tmp_path / "r",
        "# a comment\n"
        '; another [remote "origin"]\n'
        '[remote "upstream"]\n\turl = git@github.com:up/r.git\n'
        '[REMOTE "origin"]   # trailing comment\n'
        "\tFetch=+refs/heads/*:refs/remotes/origin/*\n"
        '  URL   =   "git@github.com:Acme/Quoted Repo.git"   ; why not\n',
    )
    assert origin_url(tmp_path / "r") == "git@github.com:Acme/Quoted Repo.git"
    info = repo_for(tmp_path / "r")
    assert info is not None and info.identity == "github.com/acme/quoted-repo"


def test_hostile_origin_is_reported_not_replaced(tmp_path: Path) -> None:
    _init(tmp_path / "r", "https://github.com/o/../../etc")
    with pytest.raises(VaultError) as caught:
        repo_for(tmp_path / "r")
    assert caught.value.code == "CONFIG"
    assert str(tmp_path / "r") in caught.value.message


def test_oversized_config_reads_as_no_origin(tmp_path: Path) -> None:
    _init(tmp_path / "r")
    filler = "[x]\n" + "# " + "y" * MAX_CONFIG_BYTES + "\n"
    _write_config(tmp_path / "r", filler + '[remote "origin"]\n\turl = git@github.com:o/r.git\n')
    assert origin_url(tmp_path / "r") is None


def test_non_repo_dir_is_none(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert find_work_tree(tmp_path / "plain") is None
    assert repo_for(tmp_path / "plain") is None
    assert origin_url(tmp_path / "plain") is None


def test_walk_stops_at_filesystem_root() -> None:
    assert not Path("/.git").exists()
    assert find_work_tree(Path("/")) is None


def test_walk_is_bounded(tmp_path: Path) -> None:
    _init(tmp_path / "top")
    deep = tmp_path / "top" / Path(*["d"] * (MAX_LEVELS + 2))
    deep.mkdir(parents=True)
    assert find_work_tree(deep) is None
    shallow = tmp_path / "top" / Path(*["d"] * (MAX_LEVELS - 1))
    assert find_work_tree(shallow) == tmp_path / "top"


# --- cross-check against the git CLI ----------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:O/R.git",
        "https://u:tok@github.com/O/R.git",
        "ssh://git@[::1]:22/o/r.git",
        "https://dev.azure.com/org/proj/_git/repo",
        "/srv/git/r.git",
        "https://example.com/a b/r#x;y",
    ],
)
def test_origin_url_agrees_with_git_for_remotes(tmp_path: Path, url: str) -> None:
    _init(tmp_path / "r", url)
    git = _git(tmp_path / "r", "config", "--get", "remote.origin.url")
    assert git.returncode == 0
    assert origin_url(tmp_path / "r") == git.stdout.rstrip("\n") == url


@pytest.mark.parametrize(
    "remote_lines",
    [
        '[remote "origin"] url = git@github.com:o/same-line.git\n',
        "[remote.origin]\n\turl = https://github.com/o/legacy\n",
        "[Remote.Origin]\n\tURL = https://github.com/o/legacy-upper\n",
        '[remote "origin"]\n\turl = "https://github.com/o/a;b#c"\n',
        '[remote "origin"]\n\turl = https://github.com/o/\\\n  continued\n',
        '[remote "origin"]\n\turl = https://github.com/o/"qu"oted  \t two\n',
        '[remote "origin"]\n\turl = https://github.com/o/esc\\"aped\\\\\n',
        '[remote "origin"]\n\turl = https://github.com/o/first\n\turl = https://h/o/second\n',
        '[remote "origin"]\r\n\turl = https://github.com/o/crlf\r\n',
        '[remote "Origin"]\n\turl = https://github.com/o/wrong-case\n',
        '[remote "orig\\in"]\n\turl = https://github.com/o/escaped-subsection\n',
        '[remote "origin"]\n\turl\n',
        '[remote "origin"]\n\turl =\n',
        '[remote "origin"]\n\turl = "unterminated\n',
        '[remote "origin"]\n\turl = bad\\escape\n',
        '[remote "origin"]\n\turl # no equals\n',
        '[remote "origin" ]\n\turl = https://github.com/o/space\n',
        '[remote "origin"]\n\turl = https://github.com/o/r.git\n[broken\n',
    ],
)
def test_config_parser_agrees_with_git(tmp_path: Path, remote_lines: str) -> None:
    """`git remote get-url origin` is the oracle; `git config` must agree when there is a URL."""
    _init(tmp_path / "r")
    _write_config(tmp_path / "r", remote_lines)
    config = _git(tmp_path / "r", "config", "--get-all", "remote.origin.url")
    remote = _git(tmp_path / "r", "remote", "get-url", "origin")
    ours = origin_url(tmp_path / "r")
    assert ours == (remote.stdout.rstrip("\n") if remote.returncode == 0 else None)
    if ours is not None:
        assert ours == config.stdout.split("\n")[0]
