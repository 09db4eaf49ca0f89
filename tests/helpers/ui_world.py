"""A vault for the review page's tests (tests/e2e/test_ui.py, tests/e2e/test_ui_browser.py): a code repo, a
few notes of each kind and status, links between them, candidates to review, a brief given by the
real SessionStart hook, and hostile notes: script tags, `javascript:` links, attribute breakers,
and a commit subject with an RTL override (a note's own text cannot hold one: the gate refuses it)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from conftest import cli_env, git, make_repo

from jacked_vault.context import Context
from jacked_vault.notes import AddRequest, add
from jacked_vault.write.init import init_vault
from jacked_vault.write.transitions import transition

HOSTILE_TITLE = '<script>alert("title")</script> "><img src=x onerror=alert(1)> Hostile'
HOSTILE_BODY = """A hostile note: <script>alert("body")</script> and <img src=x onerror="alert(2)">.

[click me](javascript:alert(3)) [mixed case](JaVaScRiPt:alert(4)) [data](data:text/html;base64,PHNjcmlwdD5hbGVydCg1KTwvc2NyaXB0Pg==)
[vb](vbscript:msgbox(1)) <a href="javascript:alert(6)">raw anchor</a> ![remote image](http://evil.example/track.png)
[attribute breaker](https://example.com/"onmouseover="alert(7)) and [a note](NOTE_ID) and [web](https://example.com/docs)
<div style="background:url(javascript:alert(8))">styled</div> <svg onload=alert(9)> <iframe src="http://evil.example"></iframe>
"""  # noqa: E501 - the hostile links stay on one line, as a person writes them
RTL = "\u202e"
RTL_SUBJECT = f"memory(note): {RTL}gnp.exe <b>bold</b> \u2066isolate\u2069"


@dataclass
class UiWorld:
    root: Path
    vault: Path
    repo: Path
    ids: dict[str, str] = field(default_factory=dict)

    def ctx(self, harness: str = "tester") -> Context:
        return Context.create(vault=str(self.vault), cwd=self.repo, harness=harness)

    def head(self) -> str:
        return git(self.vault, "rev-parse", "HEAD").strip()

    def subject(self, rev: str = "HEAD") -> str:
        return git(self.vault, "log", "-1", "--format=%s", rev).strip()

    def message(self, rev: str = "HEAD") -> str:
        return git(self.vault, "log", "-1", "--format=%B", rev)


def build_ui_world(root: Path, *, hostile: bool = True, brief: bool = True) -> UiWorld:
    vault, repo = root / "vault", root / "code" / "api"
    init_vault(vault)
    repo.mkdir(parents=True)
    make_repo(repo, "git@github.com:acme/api.git")
    w = UiWorld(root, vault, repo)
    ctx = w.ctx()
    ids = w.ids
    ids["decision"] = add(
        ctx,
        AddRequest(
            title="Use SQLite FTS5 for search",
            kind="decision",
            tags=("search", "sqlite"),
            body="We chose **FTS5** because it ships with Python.\n\n- no server\n- BM25 ranking\n",
        ),
    ).note.id
    ids["fact"] = add(
        ctx,
        AddRequest(
            title="The index refresh diffs trees",
            kind="fact",
            links=(ids["decision"],),
            body="The index catches up by diffing the indexed commit's tree against HEAD.",
        ),
    ).note.id
    ids["codex"] = add(
        ctx, AddRequest(title="Codex runs the parser tests", body="For codex only.", targets=("codex",))
    ).note.id
    ids["accept_me"] = add(
        ctx,
        AddRequest(
            title="Retry uploads on 503",
            kind="lesson",
            status="candidate",
            origin="session-end",
            body="The storage API returns 503 under load; retry with backoff.",
        ),
    ).note.id
    ids["reject_me"] = add(
        ctx,
        AddRequest(
            title="Deploys happen on Fridays",
            kind="fact",
            status="candidate",
            origin="post-merge",
            body="A merge said so once.",
        ),
    ).note.id
    ids["edit_me"] = add(
        ctx,
        AddRequest(
            title="Lint with ruff",
            kind="convention",
            status="candidate",
            origin="session-end",
            body="Run ruff before each commit.",
        ),
    ).note.id
    ids["old"] = add(
        ctx, AddRequest(title="Search with grep", kind="decision", body="Before the index, grep was enough.")
    ).note.id
    transition(ctx, ids["old"], "supersede", by=ids["decision"])
    from jacked_vault.write.hot import set_hot

    set_hot(ctx, "Wiring the review page; tests next.")
    if hostile:
        ids["hostile"] = add(ctx, AddRequest(title=HOSTILE_TITLE, body=HOSTILE_BODY.replace("NOTE_ID", ids["decision"]),
                                             tags=("xss",), links=(ids["decision"],))).note.id  # fmt: skip
        ids["hostile_candidate"] = add(
            ctx,
            AddRequest(
                title='Candidate "><svg onload=alert(10)>',
                status="candidate",
                origin="mcp",
                body="<script>alert('candidate')</script>",
            ),
        ).note.id
        (vault / "planted.txt").write_text(
            "x\n"
        )  # a commit subject only a hand can write, with bidi controls and markup
        git(vault, "add", "planted.txt")
        git(vault, "commit", "-qm", RTL_SUBJECT)
        git(vault, "rm", "-q", "planted.txt")
        git(vault, "commit", "-qm", "remove the planted file")
    if brief:
        session_start(w)
    return w


def session_start(w: UiWorld, harness: str = "claude") -> str:
    """The real SessionStart hook, run in the code repo: it prints the brief and logs it as given."""
    payload = {"session_id": "s1", "cwd": str(w.repo), "hook_event_name": "SessionStart", "source": "startup"}
    args = [sys.executable, "-m", "jacked_vault.cli.main", "_hook", "session-start", "--vault", str(w.vault)]
    if harness != "claude":
        args += ["--harness", harness]
    proc = subprocess.run(
        args, input=json.dumps(payload), capture_output=True, text=True, cwd=w.repo, env=cli_env(w.vault), timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


PORT = 8765
TOKEN = "test-token-" + "x" * 32
BASE = f"http://127.0.0.1:{PORT}"


def page_hits(html: str) -> dict[str, str]:
    """The hits of a page's search result list, in order: note id -> the hit's HTML."""
    return dict(re.findall(r'<li class="hit" data-id="([^"]+)">(.*?)</li>', html, re.S))


def page_client(vault: Path, cwd: Path, *, login: bool = True, base: str = BASE, port: int = PORT):
    """A TestClient for the page of `vault` (started in `cwd`), logged in with the token unless told not to."""
    from starlette.testclient import TestClient

    from jacked_vault.ui.app import UiConfig, create_app

    client = TestClient(
        create_app(UiConfig(vault=vault, cwd=cwd, token=TOKEN, port=port)), base_url=base, follow_redirects=False
    )
    if login:
        opened = client.get(f"/?token={TOKEN}")
        assert opened.status_code == 303, opened.text
    return client
