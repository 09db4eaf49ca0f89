"""store.gitfiles answers what `git rev-parse` answers, from git's files, on real repositories:
a plain work tree, a linked worktree, a `.git` file (separate git dir, as submodules have), a bare
repository, a detached HEAD and packed refs."""

from __future__ import annotations

import subprocess
from pathlib import Path

from jacked_vault.store import gitfiles


def git(cwd: Path, *args: str) -> str:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin", "HOME": str(cwd)}
    done = subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True, env=env)
    return done.stdout.strip()


def make_repo(path: Path, branch: str = "trunk") -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", branch)
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    return path


def test_plain_work_tree(tmp_path):
    root = make_repo(tmp_path / "r")
    (root / "sub" / "deeper").mkdir(parents=True)
    git(root, "config", "remote.origin.url", "git@example.com:a/b.git")
    assert gitfiles.find_work_tree(root / "sub" / "deeper") == root
    assert gitfiles.git_dir(root) == root / ".git"
    assert gitfiles.common_dir(root / ".git") == root / ".git"
    assert gitfiles.head(root) == "ref: refs/heads/trunk"
    assert gitfiles.branch(root) == gitfiles.current_branch(root) == "trunk"
    assert gitfiles.head_commit(root) == git(root, "rev-parse", "HEAD")
    assert gitfiles.origin_url(root) == "git@example.com:a/b.git"
    assert gitfiles.config_values(root, "core", "bare") == ["false"]


def test_linked_worktree_reads_its_own_head_and_the_shared_refs_and_config(tmp_path):
    main = make_repo(tmp_path / "main")
    git(main, "config", "remote.origin.url", "https://example.com/o/main.git")
    git(main, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "wt"))
    wt = tmp_path / "wt"
    assert gitfiles.find_work_tree(wt) == wt
    gitdir = gitfiles.git_dir(wt)
    assert gitdir == Path(git(wt, "rev-parse", "--absolute-git-dir"))
    assert gitfiles.common_dir(gitdir) == Path(git(wt, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    assert gitfiles.branch(wt) == "feature"
    assert gitfiles.branch(main) == "trunk"
    assert gitfiles.head_commit(wt) == git(wt, "rev-parse", "HEAD")  # refs/heads/feature lives in the common dir
    assert gitfiles.origin_url(wt) == "https://example.com/o/main.git"
    assert gitfiles.main_name(wt) == "main"


def test_a_dotgit_file_points_at_a_separate_git_dir(tmp_path):
    store = tmp_path / "modules" / "lib"
    work = tmp_path / "work"
    work.mkdir()
    store.parent.mkdir()
    git(work, "init", "-q", "-b", "main", f"--separate-git-dir={store}")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one")
    assert (work / ".git").is_file()
    assert gitfiles.find_work_tree(work) == work
    assert gitfiles.git_dir(work) == store
    assert gitfiles.head_commit(work) == git(work, "rev-parse", "HEAD")
    assert gitfiles.branch(work) == "main"


def test_a_bare_repository_has_a_git_dir_and_head_but_no_work_tree(tmp_path):
    source = make_repo(tmp_path / "src")
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(bare)], check=True)
    git(bare, "pack-refs", "--all")  # the branch now lives only in packed-refs
    assert not (bare / "refs" / "heads" / "trunk").exists()
    assert gitfiles.git_dir(bare) == bare
    assert gitfiles.find_work_tree(bare) is None
    assert gitfiles.branch(bare) == "trunk"
    assert gitfiles.head_commit(bare) == git(source, "rev-parse", "HEAD")
    assert gitfiles.resolve_ref(bare, "refs/heads/nope") is None


def test_a_detached_head_names_no_branch(tmp_path):
    root = make_repo(tmp_path / "r")
    commit = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "--detach")
    assert gitfiles.head(root) == commit
    assert gitfiles.branch(root) is None
    assert gitfiles.current_branch(root) == gitfiles.DETACHED
    assert gitfiles.head_commit(root) == commit


def test_an_unborn_branch_and_no_repository(tmp_path):
    (tmp_path / "new").mkdir()
    git(tmp_path / "new", "init", "-q", "-b", "main")
    assert gitfiles.branch(tmp_path / "new") == "main"
    assert gitfiles.head_commit(tmp_path / "new") is None
    (tmp_path / "plain").mkdir()
    assert gitfiles.git_dir(tmp_path / "plain") is None
    assert gitfiles.head(tmp_path / "plain") is None
    assert gitfiles.current_branch(tmp_path / "plain") is None
    assert gitfiles.origin_url(tmp_path / "plain") is None


def test_a_ref_name_cannot_climb_out_of_the_git_dir(tmp_path):
    root = make_repo(tmp_path / "r")
    (tmp_path / "outside").write_text("0" * 40 + "\n")
    assert gitfiles.resolve_ref(root, "../../outside") is None
