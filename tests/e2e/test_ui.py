"""The review page (`jacked memory ui`, issue 20) over HTTP, as a person's browser talks to it:
starlette's TestClient against the real app (routes behind the Guard), a real vault.

Every route answers with its content; every refusal (no token, a wrong token, a foreign Host or
Origin, a POST without its session's CSRF token, a GET on a POST route) gives nothing of the vault
and changes nothing; every page escapes hostile notes (script tags, `javascript:` links, attribute
breakers, an RTL override in a commit subject) and loads nothing from the network; the review
buttons make the same commits as the CLI; a detached HEAD turns them off with the reason shown.
The page in a real browser: tests/e2e/test_ui_browser.py. As a surface of the read-policy matrix:
tests/e2e/test_read_policy.py (`ui`).
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import cli_env, git, run_cli, write_machine_config
from helpers.ui_world import BASE, PORT, TOKEN, UiWorld, build_ui_world, page_client, session_start
from helpers.ui_world import page_hits as _hits  # the page's hits, in order

from jacked_vault.recall.overview import MIN_CHART_WEEKS
from tests.helpers.state import state_dir

BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def csrf_of(html: str) -> str:
    return re.search(r'<meta name="csrf-token" content="([^"]+)"', html)[1]


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> UiWorld:
    return build_ui_world(tmp_path_factory.mktemp("ui"))


@pytest.fixture(scope="module")
def client(world: UiWorld):
    return page_client(world.vault, world.repo)


@pytest.fixture
def fresh(tmp_path: Path) -> UiWorld:
    """A world of its own for a test that writes (no hostile notes, no brief)."""
    return build_ui_world(tmp_path / "w", hostile=False, brief=False)


def post(client, path: str, data: dict, csrf: str | None = None, **headers):
    page = client.get("/review")
    token = csrf if csrf is not None else csrf_of(page.text)
    return client.post(path, data={"csrf": token, **data}, headers=headers)


# -- every route --------------------------------------------------------------------------------


def test_overview_shows_counts_groups_health_and_the_weekly_chart(world: UiWorld, client):
    page = client.get("/?doctor=wait")
    assert page.status_code == 200
    html = page.text
    assert re.search(r'id="note-count">(\d+)<', html)[1] == "9"
    assert re.search(r'id="candidate-count">(\d+)<', html)[1] == "4"
    assert 'href="/search?group=api"' in html and "github.com/acme/api (group api)" in html
    assert re.search(r'id="doctor-verdict"[^>]*>(.*?)</p>', html, re.S)[1].endswith(": ok")
    assert 'id="hooks"' in html and "session-start" in html  # the hook's last run (the world ran it)
    chart = html.split('<svg class="chart" id="weekly-chart"')[1].split("</svg>")[0]
    weeks = re.findall(r'data-week="([\d-]+)" data-total="(\d+)"', chart)
    assert len(weeks) == MIN_CHART_WEEKS and sum(int(n) for _, n in weeks) == 9  # all of it this week
    this_week = re.search(r"<title>week of [\d-]+: 9 note\(s\)(.*?)</title>", chart)[1]
    assert "5 person" in this_week and "1 agent" in this_week and "3 capture" in this_week
    assert chart.count('class="bar bar-person"') >= 2  # a bar and the legend


def test_the_weekly_chart_spans_the_weeks_that_have_notes(world: UiWorld):
    """Issue 33.20: from the first week with a note (at most 26 weeks back) to this one, at least
    MIN_CHART_WEEKS; never 26 weeks for one week of notes."""
    from datetime import UTC, datetime, timedelta

    from jacked_vault.recall.overview import overview

    now = datetime.now(UTC)
    spans = {later: len(overview(world.ctx(), now=now + timedelta(weeks=later)).weeks) for later in (0, 10, 40)}
    assert spans == {0: MIN_CHART_WEEKS, 10: 11, 40: MIN_CHART_WEEKS}, spans
    ten = overview(world.ctx(), now=now + timedelta(weeks=10)).weeks
    assert sum(w[s] for w in ten[:1] for s in ("person", "agent", "capture", "import")) == 9  # the first has them


def test_overview_counts_every_origin_and_status():
    from jacked_vault.document.model import ORIGINS
    from jacked_vault.recall.overview import SOURCE_OF_ORIGIN, SOURCES

    assert set(SOURCE_OF_ORIGIN) == set(ORIGINS) and set(SOURCE_OF_ORIGIN.values()) <= set(SOURCES)


def test_search_ranks_as_the_cli_does_with_every_filter(world: UiWorld, client):
    found = client.get("/search?q=fts5+search")
    assert found.status_code == 200
    hits = _hits(found.text)
    cli = run_cli("memory", "search", "fts5", "search", "--all", "--json", vault=world.vault, cwd=world.repo).json[
        "results"
    ]
    assert list(hits) == [r["id"] for r in cli]  # the same order
    assert (
        "<mark>ships</mark>" in _hits(client.get("/search?q=ships").text)[world.ids["decision"]]
    )  # the excerpt, its match marked
    assert "jacked memory search fts5 search --all" in found.text
    every = client.get("/search?limit=200").text
    assert "for codex" in _hits(every)[world.ids["codex"]]  # a person sees every harness's notes, marked
    assert world.ids["codex"] not in _hits(client.get("/search?limit=200&target=claude").text)
    assert world.ids["accept_me"] not in _hits(every)  # active only, as the CLI
    with_candidates = _hits(client.get("/search?q=retry&include-candidates=1").text)
    assert "candidate" in with_candidates[world.ids["accept_me"]]
    narrowed = client.get(
        "/search?q=search&kind=decision&status=active&status=superseded&scope=group&group=api&tag=search"
        "&repo=github.com/acme/api&limit=5"
    )
    assert list(_hits(narrowed.text)) == [world.ids["decision"]]
    superseded = _hits(client.get("/search?q=grep&status=superseded").text)
    assert "superseded" in superseded[world.ids["old"]]
    assert (
        _hits(client.get("/search?as-of=2020-01-01").text) == {}
        and _hits(client.get("/search?known-at=2020-01-01").text) == {}
    )
    assert _hits(client.get("/search?q=diffing&kind=fact,decision").text).keys() == {world.ids["fact"]}


@pytest.mark.parametrize(
    "query",
    [
        "kind=opinion",
        "as-of=yesterday",
        "limit=0",
        "limit=many",
        "target=Not+a+slug",
        "scope=galaxy",
        "repo=Not+A+Repo",
    ],
)
def test_a_bad_filter_is_refused_with_its_code(client, query: str):
    page = client.get(f"/search?q=x&{query}")
    assert page.status_code == 400 and "[JACKED_MEMORY_USAGE]" in page.text


def test_a_note_page_shows_markdown_metadata_links_and_history_with_diffs(world: UiWorld, client):
    page = client.get(f"/note/{world.ids['decision']}")
    assert page.status_code == 200
    html = page.text
    assert "<strong>FTS5</strong>" in html and "<li>no server</li>" in html
    assert '<th>kind</th><td class="vault">decision</td>' in html and "unreviewed (context, not instructions)" in html
    graph = html.split('id="neighbourhood"')[1].split("</svg>")[0]
    assert f'href="/note/{world.ids["fact"]}"' in graph and "The index refresh diffs trees" in graph
    history = html.split('id="history"')[1]
    created = git(world.vault, "log", "--format=%H", "--", "groups/api/decision/use-sqlite-fts5-for-search.md").split()
    assert [c for c in re.findall(r'data-commit="([0-9a-f]{40})"', history)] == created
    assert '<span class="dadd">+title: &#34;Use SQLite FTS5 for search&#34;</span>' in history
    assert 'action="/note/' + world.ids["decision"] + '/supersede"' in html  # active: supersede, expire, reject, accept
    superseded = client.get(f"/note/{world.ids['old']}").text
    assert "status-superseded" in superseded and "<form" not in superseded.split("<main>")[1].split('id="trust"')[0]
    hot = client.get("/note/hot_api")
    assert hot.status_code == 200 and "Wiring the review page" in hot.text


@pytest.mark.parametrize(
    ("note_id", "code", "status"), [("mem_20260101_absent", "NOT_FOUND", 404), ("ghp_notanid", "NOT_FOUND", 404)]
)
def test_a_missing_note_is_a_coded_error(client, note_id: str, code: str, status: int):
    page = client.get(f"/note/{note_id}")
    assert (
        page.status_code == status
        and f"[JACKED_MEMORY_{code}]" in page.text
        and "ghp_" not in page.text.split("<main>")[1]
    )


def test_review_lists_candidates_with_their_buttons(world: UiWorld, client):
    html = client.get("/review").text
    listed = re.findall(r'<li class="candidate" data-id="([^"]+)"', html)
    assert set(listed) == {world.ids[k] for k in ("accept_me", "reject_me", "edit_me", "hostile_candidate")}
    csrf = csrf_of(html)
    assert html.count(f'name="csrf" value="{csrf}"') >= 4 * 3
    assert "from session-end" in html and "from post-merge" in html and "Agents write: active" in html


def test_brief_shows_what_the_hook_gives_now_and_the_briefs_given(world: UiWorld, client):
    html = client.get("/brief").text
    now = html.split('id="brief-text">')[1].split("</pre>")[0]
    assert now.startswith("## jacked-vault memory for github.com/acme/api (group api")
    given = html.split('id="given"')[1]
    assert given.count('<details class="given"') == 1 and "claude" in given
    codex = client.get("/brief?harness=codex").text
    assert "Codex runs the parser tests" in codex.split('id="brief-text">')[1].split("</pre>")[0]
    assert "Codex runs the parser tests" not in now
    assert 'id="none-given"' in codex  # no codex session was briefed
    assert client.get("/brief?repo=github.com/acme/api").status_code == 200  # a repo briefed before, by identity
    assert client.get(f"/brief?repo={world.repo}").status_code == 200
    for bad in ("repo=/no/such/folder", "repo=github.com/acme/never", "harness=Not+a+slug"):
        refused = client.get(f"/brief?{bad}")
        assert refused.status_code == 400 and "[JACKED_MEMORY_USAGE]" in refused.text


def test_timeline_filters_by_group_harness_and_operation(world: UiWorld, client):
    def rows(q: str) -> list[tuple[str, str]]:
        return re.findall(r'<tr data-commit="([0-9a-f]{40})" data-op="([a-z]+)">', client.get(f"/timeline{q}").text)

    every = rows("")
    assert [c for c, _ in every] == git(world.vault, "log", "--format=%H").split()
    assert [op for _, op in rows("?op=supersede")] == ["supersede"]
    assert {op for _, op in rows("?harness=tester")} == {"create", "supersede", "hot"}
    assert len(rows("?group=api")) == 9 + 1  # every note's create and the supersede
    assert len(rows("?limit=2")) == 2
    assert client.get("/timeline?limit=0").status_code == 400


def test_static_files_come_from_the_package(client):
    for path, kind in (
        ("/static/ui.js", "javascript"),
        ("/static/ui.css", "text/css"),
        ("/static/icon.svg", "image/svg"),
    ):
        answer = client.get(path)
        assert answer.status_code == 200 and kind in answer.headers["content-type"]
    assert client.get("/static/../app.py").status_code == 404


# -- refusals -----------------------------------------------------------------------------------

REQUIRED_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}


def _headers_ok(answer) -> None:
    for name, value in REQUIRED_HEADERS.items():
        assert answer.headers.get(name) == value, (name, answer.headers.get(name))


def test_without_the_token_nothing_is_shown(world: UiWorld):
    anonymous = page_client(world.vault, world.repo, login=False)
    for path in (
        "/",
        "/search?q=fts5",
        f"/note/{world.ids['decision']}",
        "/review",
        "/brief",
        "/timeline",
        "/static/ui.css",
        "/?token=wrong",
    ):
        answer = anonymous.get(path)
        assert answer.status_code == 401, path
        assert "SQLite" not in answer.text and "acme" not in answer.text and "set-cookie" not in answer.headers
        _headers_ok(answer)
    before = world.head()
    assert anonymous.post(f"/note/{world.ids['accept_me']}/accept", data={"csrf": "x"}).status_code == 401
    assert world.head() == before
    forged = page_client(world.vault, world.repo, login=False)
    forged.cookies.set(f"jacked_ui_{PORT}", TOKEN)  # the token itself is not a session
    assert forged.get("/").status_code == 401


def test_the_token_opens_a_session_and_leaves_the_url(world: UiWorld):
    fresh = page_client(world.vault, world.repo, login=False)
    opened = fresh.get(f"/search?q=fts5&token={TOKEN}")
    assert opened.status_code == 303 and opened.headers["location"] == "/search?q=fts5"
    cookie = opened.headers["set-cookie"]
    assert (
        cookie.startswith(f"jacked_ui_{PORT}=")
        and "HttpOnly" in cookie
        and "SameSite=Strict" in cookie
        and TOKEN not in cookie
    )
    _headers_ok(opened)
    page = fresh.get("/search?q=fts5")
    assert page.status_code == 200 and world.ids["decision"] in page.text and TOKEN not in page.text
    _headers_ok(page)
    assert (
        fresh.get(f"{BASE}//evil.example/x?token={TOKEN}").headers["location"] == "/"
    )  # never a redirect off the page
    assert fresh.get(f"/note/%C3%BC?token={TOKEN}").headers["location"] == "/note/%C3%BC"


@pytest.mark.parametrize(
    "host", ["evil.example:8765", "127.0.0.1:9999", "127.0.0.1", "localhost.evil.example:8765", "0.0.0.0:8765"]
)
def test_a_foreign_host_gets_nothing_dns_rebinding(world: UiWorld, client, host: str):
    """A page on evil.example whose name now resolves to 127.0.0.1 sends its own Host: refused,
    with the token and with a session cookie alike."""
    for path in (f"/?token={TOKEN}", "/", "/search?q=fts5"):
        answer = client.get(path, headers={"host": host})
        assert answer.status_code == 403 and "SQLite" not in answer.text and "set-cookie" not in answer.headers
        _headers_ok(answer)
    assert (
        page_client(world.vault, world.repo, base=f"http://localhost:{PORT}").get("/").status_code == 200
    )  # localhost is this host


def test_a_foreign_origin_is_refused_and_changes_nothing(world: UiWorld, client):
    before = world.head()
    assert client.get("/", headers={"origin": "http://evil.example"}).status_code == 403
    target = f"/note/{world.ids['accept_me']}/accept"
    assert post(client, target, {}, origin="http://evil.example").status_code == 403
    assert post(client, target, {}, origin=f"http://127.0.0.1:{PORT + 1}").status_code == 403
    assert post(client, target, {}, referer="http://evil.example/attack.html").status_code == 403
    assert post(client, target, {}, origin="null").status_code == 403
    assert world.head() == before


def test_every_post_needs_its_sessions_csrf_token(world: UiWorld, client):
    before = world.head()
    target = f"/note/{world.ids['accept_me']}/accept"
    assert client.post(target, data={}).status_code == 403
    assert post(client, target, {}, csrf="not-the-token").status_code == 403
    other = page_client(world.vault, world.repo)
    assert post(client, target, {}, csrf=csrf_of(other.get("/review").text)).status_code == 403  # another session's
    assert world.head() == before


def test_state_changes_are_posts_only(world: UiWorld, client):
    before = world.head()
    assert client.get(f"/note/{world.ids['accept_me']}/accept").status_code == 405
    for method in ("PUT", "DELETE", "PATCH"):
        assert client.request(method, f"/note/{world.ids['accept_me']}/accept").status_code == 405
    assert client.post("/search?q=x").status_code == 405
    assert world.head() == before


def test_a_huge_post_is_refused(world: UiWorld, client):
    answer = client.post(
        f"/note/{world.ids['edit_me']}/edit", data={"csrf": csrf_of(client.get("/review").text), "body": "x" * 600_000}
    )
    assert answer.status_code == 413
    chunked = client.post(
        f"/note/{world.ids['edit_me']}/edit",
        content=iter([b"csrf=x&body=y"]),
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert chunked.status_code == 411  # a body that does not say its length is not read


# -- escaping -----------------------------------------------------------------------------------


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of inline scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.inline_script = ""
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.inline_script += data


def _hostile_pages(world: UiWorld) -> list[str]:
    return [
        "/?doctor=wait",
        "/search?q=hostile",
        "/search?q=alert+onerror",
        "/search?q=candidate&include-candidates=1",
        f"/note/{world.ids['hostile']}",
        f"/note/{world.ids['hostile_candidate']}",
        f"/note/{world.ids['decision']}",
        "/review",
        "/timeline",
        "/brief",
        "/brief?given=all",
    ]


def test_hostile_notes_are_escaped_on_every_page(world: UiWorld, client):
    for path in _hostile_pages(world):
        page = client.get(path)
        assert page.status_code == 200, path
        html = page.text
        parsed = Tags()
        parsed.feed(html)
        scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
        assert scripts == [{"src": "/static/ui.js", "defer": None}] and parsed.inline_script.strip() == "", path
        for tag, attrs in parsed.tags:
            assert tag not in ("img", "iframe", "object", "embed", "base", "frame"), (path, tag)
            assert not [a for a in attrs if a.startswith("on")], (path, tag, attrs)
            assert "style" not in attrs, (path, tag, attrs)
            for name in ("href", "src", "action", "formaction", "xlink:href"):
                value = (attrs.get(name) or "").strip()
                if value:
                    assert value.startswith(("/", "#", "http://", "https://")) and not value.startswith("//"), (
                        path,
                        tag,
                        name,
                        value,
                    )
            if tag == "a" and (attrs.get("href") or "").startswith("http"):
                assert attrs.get("rel") == "noopener noreferrer nofollow", (path, attrs)
        for raw in ("<script>alert", "<img src=x", "onerror=alert(1)>", "<svg onload", "<iframe", '"><img'):
            assert raw not in html, (path, raw)
        assert BIDI.search(html) is None, path
    note = client.get(f"/note/{world.ids['hostile']}").text
    body = note.split('id="body"')[1].split("</section>")[0]
    assert "&lt;script&gt;alert(&quot;body&quot;)&lt;/script&gt;" in body  # shown as text
    assert "[click me](javascript:alert(3))" in body and "JaVaScRiPt:alert(4)" in body  # not links: plain text
    assert (
        'href="javascript' not in body.lower()
        and 'href="data' not in body.lower()
        and 'href="vbscript' not in body.lower()
    )
    assert f'<a href="/note/{world.ids["decision"]}">a note</a>' in body  # an in-vault id links to its page
    assert '<a href="https://example.com/docs" rel="noopener noreferrer nofollow">web</a>' in body
    assert (
        'href="https://example.com/%22onmouseover=%22alert(7)"' in body
    )  # the attribute breaker stays inside its quotes
    assert (
        "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt; &#34;&gt;&lt;img src=x onerror=alert(1)&gt; Hostile"
        in note
    )
    timeline = client.get("/timeline").text
    assert "memory(note): gnp.exe &lt;b&gt;bold&lt;/b&gt; isolate" in timeline  # RTL_SUBJECT without its bidi controls


def test_a_merge_notes_header_lines_are_shown_a_line_each():
    """Issue 33.20: `Merge-Commit:`, `Repo:`, `Branch:`… (capture/merge/note.header) are one field a
    line, not one run-on paragraph; a wrapped paragraph of prose stays one paragraph."""
    from jacked_vault.ui.render import markdown

    body = (
        "Merge-Commit: 0123456789abcdef0123456789abcdef01234567\nRepo: github.com/acme/api\n"
        "Branch: main\nKind: merge\n\nMerged into `main` of github.com/acme/api\nby a merge commit.\n"
    )
    html = str(markdown(body))
    assert (
        "<p>Merge-Commit: 0123456789abcdef0123456789abcdef01234567<br />\nRepo: github.com/acme/api<br />\n"
        "Branch: main<br />\nKind: merge</p>" in html
    ), html
    assert "<p>Merged into <code>main</code> of github.com/acme/api\nby a merge commit.</p>" in html, html
    assert "<br" not in str(markdown("Note: this is prose\nwrapped at a colon: still prose.\n"))


def test_markdown_allows_only_http_links_and_note_ids():
    from jacked_vault.ui.render import excerpt, markdown

    assert str(markdown("[x](javascript:alert(1))")) == "<p>[x](javascript:alert(1))</p>\n"
    assert (
        str(markdown("<b>bold</b>\n\n<div onclick=x>y</div>"))
        == "<p>&lt;b&gt;bold&lt;/b&gt;</p>\n<p>&lt;div onclick=x&gt;y&lt;/div&gt;</p>\n"
    )
    assert (
        str(markdown("[n](mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab)"))
        == '<p><a href="/note/mem_20261129_01jdz5k6x9f3q8w2v7n4m1c0ab">n</a></p>\n'
    )
    assert 'rel="noopener noreferrer nofollow"' in str(markdown("<https://example.com>"))
    assert "<img" not in str(markdown("![a](https://example.com/a.png)"))
    for link in (
        "file:///etc/passwd",
        "ftp://x",
        "//evil.example",
        "../../x",
        "mailto:a@b.c",
        "data:text/html,x",
        " javascript:x",
        "java\tscript:x",
    ):
        assert "href" not in str(markdown(f"[x]({link})")), link
    assert "\u202e" not in str(markdown("a\u202eb")) and "\x1b" not in str(markdown("a\x1b[31mb"))
    assert str(excerpt("a **<b>** c")) == "a <mark>&lt;b&gt;</mark> c"
    assert str(excerpt("odd ** mark")) == "odd ** mark"


def test_a_history_version_the_secret_scanner_flags_is_never_shown(fresh: UiWorld):
    """A hand edit committed past the gate puts a token in a note; a second hand commit takes it out:
    the note reads again, and its page shows the history without either version's text."""
    token = "gh" + "p_" + "Q7r8A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"
    path = fresh.vault / "groups/api/fact/the-index-refresh-diffs-trees.md"
    clean = path.read_text()
    path.write_text(clean.replace("The index catches up", f"Token {token}. The index catches up"))
    git(fresh.vault, "commit", "-qam", "by hand")
    path.write_text(clean)
    git(fresh.vault, "commit", "-qam", "by hand again")
    page = page_client(fresh.vault, fresh.repo).get(f"/note/{fresh.ids['fact']}")
    assert page.status_code == 200
    assert token[:12] not in page.text and page.text.count("the secret scanner flags this version") == 2


# -- review: the same commits as the CLI ----------------------------------------------------------


def _changed(world: UiWorld, rev: str = "HEAD") -> list[str]:
    """The kinds of files a commit changed: the note's kind folder, index.md, audit, tombstones."""
    names = git(world.vault, "show", "--name-only", "--format=", rev).split()
    return sorted(
        re.sub(
            r"^groups/[^/]+/([a-z]+)/.*\.md$",
            r"note:\1",
            re.sub(r"^audit/.*", "audit", re.sub(r"^tombstones/.*", "tombstones", n)),
        )
        for n in names
    )


def _trailer_keys(message: str) -> list[str]:
    return [line.split(":", 1)[0] for line in message.splitlines() if line.startswith("Memory-")]


def test_accept_and_reject_from_the_page_make_the_clis_commits(fresh: UiWorld):
    client = page_client(fresh.vault, fresh.repo)
    accepted = post(client, f"/note/{fresh.ids['accept_me']}/accept", {"next": "/review"})
    assert accepted.status_code == 303 and accepted.headers["location"] == "/review"
    assert fresh.subject() == "memory(accept): Retry uploads on 503"
    page_accept = (fresh.message(), _changed(fresh))
    review = client.get("/review").text
    assert (
        "accept: Retry uploads on 503" in review and "is now active, reviewed by you" in review
    )  # the result's own text
    assert fresh.ids["accept_me"] not in re.findall(r'<li class="candidate" data-id="([^"]+)"', review)
    cli = run_cli("memory", "accept", fresh.ids["edit_me"], vault=fresh.vault, cwd=fresh.repo)
    assert cli.code == 0
    assert _trailer_keys(fresh.message()) == _trailer_keys(page_accept[0]) and _changed(fresh) == sorted(
        x.replace("note:lesson", "note:convention") for x in page_accept[1]
    )
    assert (
        "Memory-Harness: unknown" in page_accept[0] and "Memory-Origin: cli" in page_accept[0]
    )  # a person, as at the CLI
    note = client.get(f"/note/{fresh.ids['accept_me']}").text
    reviewed = r'<strong>Reviewed</strong>: <span class="vault">accepted here by [^<]*</span> in <a href="#c-[0-9a-f]+'
    assert "trust-reviewed" in note and re.search(reviewed, note)  # the review, where it came from, its commit

    head = fresh.head()
    rejected = post(
        client, f"/note/{fresh.ids['reject_me']}/reject", {"reason": 'We deploy on Tuesdays <b>"really"</b>.'}
    )
    assert rejected.status_code == 303
    assert (
        fresh.subject() == "memory(reject): Deploys happen on Fridays"
        and git(fresh.vault, "rev-parse", "HEAD~1").strip() == head
    )
    assert 'Memory-Reason: We deploy on Tuesdays <b>"really"</b>.' in fresh.message()
    assert _changed(fresh) == ["audit", "note:fact", "tombstones"]  # a candidate was never in index.md
    shown = client.get(f"/note/{fresh.ids['reject_me']}").text
    assert (
        "rejected: We deploy on Tuesdays &lt;b&gt;&#34;really&#34;&lt;/b&gt;." in shown
        and "<b>" not in shown.split("<main>")[1]
    )


def test_supersede_expire_and_edit_as_new_each_make_one_commit(fresh: UiWorld):
    client = page_client(fresh.vault, fresh.repo)
    count = lambda: int(git(fresh.vault, "rev-list", "--count", "HEAD"))  # noqa: E731
    n = count()
    assert post(client, f"/note/{fresh.ids['codex']}/supersede", {"by": fresh.ids["decision"]}).status_code == 303
    assert fresh.subject() == "memory(supersede): Codex runs the parser tests" and count() == n + 1
    assert post(client, f"/note/{fresh.ids['fact']}/expire", {"at": "2030-01-02"}).status_code == 303
    assert fresh.subject() == "memory(expire): The index refresh diffs trees" and count() == n + 2
    assert '"valid_until": "2030-01-02T00:00:00.000Z"' in json.dumps(
        run_cli("memory", "read", fresh.ids["fact"], "--json", vault=fresh.vault).json
    )
    edited = post(
        client,
        f"/note/{fresh.ids['edit_me']}/edit",
        {"title": "Lint with ruff and mypy", "body": "Run ruff\r\nand mypy.\r\n"},
    )
    assert edited.status_code == 303 and fresh.subject() == "memory(edit): Lint with ruff and mypy" and count() == n + 3
    changed = git(fresh.vault, "show", "--name-status", "--format=", "HEAD")
    assert re.search(r"^A\tgroups/api/convention/lint-with-ruff-and-mypy\.md$", changed, re.M)
    assert re.search(r"^M\tgroups/api/convention/lint-with-ruff\.md$", changed, re.M)
    new = (fresh.vault / "groups/api/convention/lint-with-ruff-and-mypy.md").read_bytes()
    assert b"Run ruff\nand mypy." in new and b"\r" not in new
    answer = post(client, f"/note/{fresh.ids['accept_me']}/accept", {}, accept="application/json")
    assert (
        answer.status_code == 200 and answer.json()["schema"] == "jacked.review.v1" and answer.json()["op"] == "accept"
    )
    assert answer.json()["commit"] == fresh.head()


def test_forget_from_the_page_is_the_clis_one_commit_and_asks_to_be_sure(fresh: UiWorld):
    """Issue 33.20: the page has Forget (a note that should never have been saved): the CLI's
    `forget`, one commit, and a box to tick first; unticked, it is refused and changes nothing."""
    client = page_client(fresh.vault, fresh.repo)
    target = fresh.ids["fact"]
    page = client.get(f"/note/{target}").text
    form = page.split(f'action="/note/{target}/forget"')[1].split("</form>")[0]
    assert 'name="sure"' in form and "required" in form
    head = fresh.head()
    unsure = post(client, f"/note/{target}/forget", {})
    assert unsure.status_code == 400 and "JACKED_MEMORY_USAGE" in unsure.text and fresh.head() == head
    done = post(client, f"/note/{target}/forget", {"sure": "yes", "next": f"/note/{target}"})
    assert done.status_code == 303 and done.headers["location"] == "/"  # its page is gone with it
    assert fresh.subject() == f"memory(forget): {target}" and git(fresh.vault, "rev-parse", "HEAD~1").strip() == head
    assert run_cli("memory", "read", target, vault=fresh.vault).code == 1
    shown = client.get("/").text
    assert "forgot " in shown and "Purge it yourself with git filter-" in shown  # the CLI's own answer
    again = post(client, f"/note/{fresh.ids['decision']}/forget", {"sure": "yes"}, accept="application/json")
    assert again.status_code == 200 and again.json()["schema"] == "jacked.forget.v1", again.text


@pytest.mark.parametrize(
    ("op", "data", "status", "code"),
    [
        ("accept", {}, 400, "VALIDATION"),  # the note is already rejected below
        ("reject", {"reason": " "}, 400, "USAGE"),
        ("supersede", {"by": "mem_20260101_absent"}, 404, "NOT_FOUND"),
        ("expire", {"at": "yesterday"}, 400, "USAGE"),
        ("reject", {"reason": "the key is " + "gh" + "p_" + "Q7r8A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"}, 400, "SECRET"),
        ("edit", {"title": "Deploys happen on Fridays", "body": "A merge said so once."}, 400, "VALIDATION"),
    ],
)
def test_a_refused_review_is_a_coded_error_and_changes_nothing(
    fresh: UiWorld, op: str, data: dict, status: int, code: str
):
    client = page_client(fresh.vault, fresh.repo)
    target = fresh.ids["reject_me"]
    if op == "accept":
        assert post(client, f"/note/{target}/reject", {"reason": "no"}).status_code == 303
    before = fresh.head()
    answer = post(client, f"/note/{target}/{op}", data)
    assert answer.status_code == status and f"[JACKED_MEMORY_{code}]" in answer.text, answer.text[-600:]
    assert "Q7r8A1b2" not in answer.text and fresh.head() == before


def test_a_detached_head_turns_the_buttons_off_with_the_reason(fresh: UiWorld):
    git(fresh.vault, "checkout", "-q", "--detach")
    client = page_client(fresh.vault, fresh.repo)
    review = client.get("/review").text
    assert 'id="writes-blocked"' in review and "detached" in review and "[JACKED_MEMORY_GIT]" in review
    buttons = re.findall(r"<button type=\"submit\"[^>]*>", review)
    assert buttons and all("disabled" in b for b in buttons)
    assert "Review is off" in client.get(f"/note/{fresh.ids['decision']}").text
    before = fresh.head()
    answer = post(client, f"/note/{fresh.ids['accept_me']}/accept", {})
    assert answer.status_code == 409 and "[JACKED_MEMORY_GIT]" in answer.text and fresh.head() == before


def test_agents_write_off_leaves_a_persons_review_on(fresh: UiWorld):
    write_machine_config({"writes": {"agents": "off"}})
    client = page_client(fresh.vault, fresh.repo)
    review = client.get("/review").text
    assert (
        "Agents write: off (agents cannot write; a person's review still can)" in review
        and 'id="writes-blocked"' not in review
    )
    assert post(client, f"/note/{fresh.ids['accept_me']}/accept", {}).status_code == 303
    assert fresh.subject() == "memory(accept): Retry uploads on 503"


def test_next_never_leaves_the_page(fresh: UiWorld):
    from jacked_vault.ui.app import _next

    for bad in (
        "https://evil.example/",
        "//evil.example/x",
        "/\\evil.example",
        "javascript:alert(1)",
        "/ok\r\nSet-Cookie: x=1",
        "",
    ):
        assert _next(bad, "/review") == "/review", bad
    assert _next("/note/mem_x?y=1", "/review") == "/note/mem_x?y=1"


# -- the brief log --------------------------------------------------------------------------------


def test_the_session_start_hook_logs_the_brief_it_gave(fresh: UiWorld):
    from jacked_vault.recall.brief_log import briefs_given

    printed = session_start(fresh)
    session_start(fresh, harness="codex")
    given = briefs_given(state_dir(fresh.vault))
    assert [g["harness"] for g in given] == ["codex", "claude"]
    claude = given[1]
    assert claude["text"] + "\n" == printed and claude["repo"] == "github.com/acme/api" and claude["group"] == "api"
    assert claude["cwd"] == str(fresh.repo) and claude["tokens"] > 0 and claude["trimmed"] == []
    assert oct((state_dir(fresh.vault) / "briefs.jsonl").stat().st_mode & 0o777) == "0o600"
    assert git(fresh.vault, "status", "--porcelain") == ""  # machine-local: never committed


def test_the_brief_log_is_bounded_rotated_and_never_follows_a_symlink(tmp_path: Path, fresh: UiWorld):
    from jacked_vault.recall.brief import Brief
    from jacked_vault.recall.brief_log import LOG, MAX_FILE, MAX_TEXT, briefs_given, record_brief

    cache = state_dir(fresh.vault)
    for n in range(300):
        record_brief(
            fresh.vault,
            Brief(text=f"brief {n} " + "x" * 6000, budget=1500, identity="github.com/acme/api"),
            harness="claude",
            cwd=fresh.repo,
        )
    sizes = [p.stat().st_size for p in (cache / LOG, cache / f"{LOG}.1")]
    assert all(size <= MAX_FILE + MAX_TEXT + 1024 for size in sizes)
    newest = briefs_given(cache, 5)
    assert [g["text"].split()[1] for g in newest] == ["299", "298", "297", "296", "295"]
    record_brief(fresh.vault, Brief(text="y" * (MAX_TEXT + 10), budget=1500), harness="claude", cwd=None)
    assert briefs_given(cache, 1)[0]["text_cut"] is True and len(briefs_given(cache, 1)[0]["text"]) == MAX_TEXT
    assert (
        briefs_given(cache, 10, harness="codex") == [] and len(briefs_given(cache, 3, repo="github.com/acme/api")) == 3
    )

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    linked = tmp_path / "linked-vault"
    (linked / ".git").mkdir(parents=True)
    state_dir(linked).symlink_to(elsewhere)  # the state folder a symlink: never followed
    record_brief(linked, Brief(text="t", budget=1500), harness="claude", cwd=None)
    assert list(elsewhere.iterdir()) == [] and briefs_given(state_dir(linked)) == []
    record_brief(tmp_path / "no-vault", Brief(text="t", budget=1500), harness="claude", cwd=None)
    assert not (tmp_path / "no-vault").exists()


# -- the command ------------------------------------------------------------------------------------


def _serve(world: UiWorld, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "ui", "--no-open", *args],
        cwd=world.repo,
        env=cli_env(world.vault),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_command_prints_its_url_as_it_listens_and_stops_on_ctrl_c(world: UiWorld):
    import http.cookiejar
    import urllib.request

    proc = _serve(world, "--json")
    try:
        line = json.loads(proc.stdout.readline())
        assert line["schema"] == "jacked.ui.v1" and line["ok"] is True and line["vault"] == str(world.vault)
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{43}", line["url"])
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with opener.open(line["url"], timeout=30) as answer:
            html = answer.read().decode()
            assert answer.status == 200 and answer.url == line["url"].split("?")[0] and 'id="note-count"' in html
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(line["url"].split("?")[0], timeout=30)
        assert refused.value.code == 401
        with socket.create_connection(("127.0.0.1", line["port"]), timeout=5):
            pass
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
    assert code == 0, proc.stderr.read()


def test_the_command_refuses_a_taken_port_and_a_missing_vault(world: UiWorld, tmp_path: Path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        result = run_cli(
            "memory", "ui", "--no-open", "--json", "--port", str(taken.getsockname()[1]), vault=world.vault
        )
    finally:
        taken.close()
    assert (
        result.code == 2
        and result.json["schema"] == "jacked.ui.v1"
        and result.json["error"]["code"] == "JACKED_MEMORY_USAGE"
    )
    bad = run_cli("memory", "ui", "--no-open", "--port", "70000", vault=world.vault)
    assert bad.code == 2 and "[JACKED_MEMORY_USAGE]" in bad.err
    missing = run_cli("memory", "ui", "--no-open", "--json", "--vault", str(tmp_path / "none"), vault=world.vault)
    assert missing.code == 1 and missing.json["error"]["code"] == "JACKED_MEMORY_NO_VAULT"


def test_it_listens_on_loopback_only():
    from jacked_vault.ui.server import HOST, bind

    sock = bind(0)
    try:
        assert HOST == "127.0.0.1" and sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()


def test_it_never_opens_a_text_browser_in_the_terminal(monkeypatch):
    from jacked_vault.ui import server

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert server.open_browser("http://127.0.0.1:1/") is False


def test_the_page_routes_are_what_the_registry_classifies():
    from jacked_vault.registry import DOORS, SURFACES
    from jacked_vault.ui.app import route_entries

    registered = {v for d in DOORS for v in d.via} | {v for s in SURFACES for v in s.via}
    assert set(route_entries()) <= registered
    posts = {e for e in route_entries() if e.startswith("ui:POST")}
    assert posts <= {v for d in DOORS if d.name in ("transition", "edit-as-new", "forget") for v in d.via}
    assert "ui:POST /note/{id}/forget" in posts
