"""Every shell command in README.md and docs/*.md runs as written, in a fresh HOME.

Each page gets its own HOME: git identity, two repos of one organisation under `~/Github`
(`acme-api`, whose HEAD is a merged pull request, and `acme-web`), a `remember` plugin folder
for acme-api and a bare remote. Its
`bash`/`sh` blocks run in page order, each in one `bash -euo pipefail` from
`~/Github/acme-api`, as a person reading the page would paste them; each must exit 0.

A block is skipped only when the line above it says why: `<!-- not run: <reason> -->`
(README's own two commands are what `.ci/run` runs; a command of another tool), or
`<!-- run: <machine> -->` (docs/second-machine.md, run on two HOMEs by
tests/e2e/test_docs_second_machine.py). Usage synopses with `[optional]` parts are `text` blocks;
every command they name must also be run by some block.

Placeholders a reader replaces are replaced here too (PLACEHOLDERS): the path of this checkout,
the remote URL, and three sample note ids, each replaced by a command substitution that finds,
when its line runs, the note a reader would pick (the newest active note, the one before it,
the oldest candidate in the review queue).

The user guide starts with its install block, so its commands run with the `jacked` that block
installed (`~/.local/bin` on PATH, this test's interpreter not); every other page uses the
`jacked` of this test's environment.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import git

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))]
RUN_LANGS = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^```(?P<lang>[\w+-]*)\s*$")
NOT_RUN = re.compile(r"^<!-- not run: (?P<reason>\S.*?) -->$")
RUN_ELSEWHERE = re.compile(r"^<!-- run: \w+ -->$")
COMMAND = re.compile(r"\bjacked memory ((?:[a-z][a-z-]*)(?: (?:show|set|list|map|unmap|suggest))?)")
REMOTE = "git@github.com:me/my-vault.git"
NEWEST_ACTIVE = "mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab"
OLDER_ACTIVE = "mem_20261128_01jdw0a1b2c3d4e5f6g7h8j9kq"
CANDIDATE = "mem_20261130_01jf2c8h3k5m7p9r1t3v5x7z9b"
PLACEHOLDERS = ("/path/to/jacked-vault", REMOTE, NEWEST_ACTIVE, OLDER_ACTIVE, CANDIDATE)


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    skip: str | None  # why it is not run here, or None


def blocks(page: str, text: str | None = None) -> list[Block]:
    """The fenced blocks of `page` (or of `text`, named `page`)."""
    lines = (text if text is not None else (ROOT / page).read_text(encoding="utf-8")).splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        start, body = i, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        above = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        skip = None
        if m := NOT_RUN.match(above):
            skip = m["reason"]
        elif RUN_ELSEWHERE.match(above):
            skip = "run by tests/e2e/test_docs_second_machine.py"
        found.append(Block(page, start + 1, opened["lang"], "\n".join(body) + "\n", skip))
        i += 1
    return found


def runnable(page: str) -> list[Block]:
    return [b for b in blocks(page) if b.lang in RUN_LANGS and b.skip is None]


# ---------------------------------------------------------------- a person's machine


def make_home(home: Path) -> Path:
    """A fresh HOME: git identity, ~/Github/acme-api (HEAD a merged PR) and acme-web, a bare remote."""
    (home / "Github").mkdir(parents=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Ada Doc\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n"
    )
    env = person_env(home, tool_bin=None)
    for name in ("api", "web"):
        repo = home / "Github" / f"acme-{name}"

        def run_git(*a: str, repo: Path = repo) -> None:
            subprocess.run(["git", "-C", str(repo), *a], env=env, check=True, capture_output=True)

        subprocess.run(["git", "init", "-q", str(repo)], env=env, check=True)
        run_git("remote", "add", "origin", f"git@github.com:acme/{name}.git")
        (repo / "README.md").write_text(f"# {name}\n")
        run_git("add", "README.md")
        run_git("commit", "-qm", "Initial commit")
        if name == "api":
            run_git("checkout", "-qb", "feat/login")
            (repo / "login.py").write_text("def login():\n    return True\n")
            run_git("add", "login.py")
            run_git("commit", "-qm", "Add the login endpoint")
            run_git("checkout", "-q", "main")
            run_git(
                "merge",
                "-q",
                "--no-ff",
                "feat/login",
                "-m",
                "Merge pull request #7 from acme/feat/login",
                "-m",
                "Add the login endpoint",
            )
            remember = home / ".remember" / "acme-api"  # what the `remember` plugin left behind
            remember.mkdir(parents=True)
            (remember / "today-2026-11-20.md").write_text("## 10:00 | main\nSketched the login endpoint.\n")
    subprocess.run(
        ["git", "init", "-q", "--bare", "-b", "main", str(home / "remotes" / "my-vault.git")], env=env, check=True
    )
    return home / "Github" / "acme-api"


def person_env(home: Path, tool_bin: Path | None) -> dict[str, str]:
    """The environment of a person whose HOME is `home`; `tool_bin` (if any) first on PATH."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JACKED_", "XDG_", "GIT_", "VIRTUAL_ENV", "CODEX_", "CLAUDE"))
    }
    test_bin = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", os.defpath).split(os.pathsep) if p and p != test_bin]
    first = [str(tool_bin)] if tool_bin else []
    env.update(HOME=str(home), PATH=os.pathsep.join(first + path))
    return env


# `note_id KEY N ARGS…`: the N-th mem_ id (negative: from the end) in KEY of `jacked memory ARGS… --json`.
PRELUDE = f"""note_id() {{ local key=$1 n=$2; shift 2; jacked memory "$@" --json | {sys.executable} -c '
import json, sys
ids = [r["id"] for r in json.load(sys.stdin)[sys.argv[1]] if r["id"].startswith("mem_")]
print(ids[int(sys.argv[2])])' "$key" "$n"; }}
"""


def resolve(text: str, home: Path) -> str:
    """`text` with every placeholder a reader would replace replaced by what it stands for here."""
    text = text.replace("/path/to/jacked-vault", str(ROOT)).replace(
        REMOTE, (home / "remotes" / "my-vault.git").as_uri()
    )
    text = text.replace(NEWEST_ACTIVE, '"$(note_id results 0 search --limit 50)"')
    text = text.replace(OLDER_ACTIVE, '"$(note_id results 1 search --limit 50)"')
    return text.replace(CANDIDATE, '"$(note_id candidates -1 review)"')


def run_block(text: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", PRELUDE + text],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


# ---------------------------------------------------------------- the tests


@pytest.mark.parametrize("page", [p for p in PAGES if runnable(p)])
def test_every_command_on_the_page_runs(page: str, tmp_path: Path):
    home = tmp_path / "home"
    cwd = make_home(home)
    installs = page == "docs/user-guide.md"
    env = person_env(home, tool_bin=home / ".local" / "bin" if installs else Path(sys.executable).parent)
    for block in runnable(page):
        proc = run_block(resolve(block.text, home), env, cwd)
        assert proc.returncode == 0, (
            f"{page}:{block.line}: exited {proc.returncode}\n{block.text}\n{proc.stdout}\n{proc.stderr}"
        )
    if installs:
        assert (home / ".local" / "bin" / "jacked").exists()


def test_every_skipped_block_says_why_and_readme_commands_are_what_ci_runs():
    readme = [b for b in blocks("README.md") if b.lang in RUN_LANGS]
    assert len(readme) == 2 and all(b.skip for b in readme)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for block in readme:
        assert block.text.strip() in ci, f"README.md:{block.line} is not what .ci/run runs"
    for page in PAGES:
        for block in blocks(page):
            if block.lang in RUN_LANGS and block.skip:
                assert len(block.skip) >= 10, f"{page}:{block.line}: say why the block is not run"


def test_every_command_a_synopsis_names_is_run_somewhere():
    ran = {m[1] for p in PAGES for b in runnable(p) for m in COMMAND.finditer(b.text)}
    ran |= {m[1] for p in PAGES for b in blocks(p) if b.skip and b.lang in RUN_LANGS for m in COMMAND.finditer(b.text)}
    shown = {(p, m[1]) for p in PAGES for b in blocks(p) if b.lang == "text" for m in COMMAND.finditer(b.text)}
    missing = sorted(f"{p}: jacked memory {c}" for p, c in shown if c not in ran)
    assert not missing, "shown in a synopsis but run by no block:\n" + "\n".join(missing)


def test_every_placeholder_is_still_used():
    text = "".join((ROOT / p).read_text(encoding="utf-8") for p in PAGES)
    assert all(placeholder in text for placeholder in PLACEHOLDERS)


def test_a_failing_command_is_caught(tmp_path: Path):
    page = "docs/example.md"
    text = (
        "Intro.\n\n```bash\njacked memory init --no-scan\n"
        "jacked memory read mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab\necho after\n```\n\n"
        "<!-- not run: needs a tool this machine lacks -->\n```bash\nfalse\n```\n\n"
        "```text\njacked memory read [ID]\n```\n"
    )
    found = blocks(page, text)
    assert [(b.lang, b.skip, b.line) for b in found] == [
        ("bash", None, 3),
        ("bash", "needs a tool this machine lacks", 10),
        ("text", None, 14),
    ]
    home = tmp_path / "home"
    cwd = make_home(home)
    env = person_env(home, tool_bin=Path(sys.executable).parent)
    failed = run_block(resolve(found[0].text, home), env, cwd)
    assert (
        failed.returncode != 0 and "after" not in failed.stdout
    )  # the empty vault has no note to stand for the sample id
    assert git(home / "jacked-vault", "status", "--porcelain") == ""
    added = run_block("jacked memory add --group demo --kind fact --title 'A fact' --body 'It holds.'\n", env, cwd)
    assert added.returncode == 0
    assert run_block(resolve(found[0].text, home), env, cwd).stdout.rstrip().endswith("after")


LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the headings of `page`."""
    out = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"#{1,6} (.+)", line):
            out.add(re.sub(r"[^\w\- ]", "", m[1].strip().lower()).replace(" ", "-"))
    return out


def test_every_relative_link_and_anchor_resolves():
    broken = []
    for page in PAGES:
        prose = re.sub(
            r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", (ROOT / page).read_text(encoding="utf-8"), flags=re.S | re.M)
        )
        for m in LINK.finditer(prose):  # links in code are examples, not links
            target = m["target"]
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto: not checked offline
            path, _, anchor = target.partition("#")
            dest = (ROOT / page).parent / path if path else ROOT / page
            if not dest.exists() or (ROOT not in dest.resolve().parents and dest.resolve() != ROOT):
                broken.append(f"{page}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page}: {target} (no such heading)")
    assert not broken, "\n".join(broken)
