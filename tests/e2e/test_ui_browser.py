"""The review page in a real browser (issue 20, "Tested as a person uses it"): `jacked memory ui`
runs as a process, and Debian's headless Chromium, driven by Playwright for Python with that
browser (never a downloaded one: no `playwright install`), searches, opens a note with its history,
and reviews candidates (accept with a click, reject with the keyboard), while the tests read the
commits that result from git. No request leaves 127.0.0.1, no hostile note's script runs (no
dialog ever opens), the console stays free of errors (a CSP violation would show there).

A screenshot of each page is saved as a test artifact: under $JACKED_UI_ARTIFACTS when set, else
a pytest temp folder; the folder is printed. Skipped, saying why, where Playwright or Chromium
is missing (`pip install playwright`, `apt-get install chromium`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import cli_env, git
from helpers.ui_world import UiWorld, build_ui_world

CHROMIUM = os.environ.get("JACKED_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]  # fmt: skip

sync_api = pytest.importorskip(
    "playwright.sync_api",
    reason="Playwright for Python is not installed (`pip install playwright`; the browser is Debian's chromium)",
)
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).is_file(),
    reason=f"no Chromium at {CHROMIUM} (`apt-get install chromium`, or set JACKED_CHROMIUM)",
)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    folder = (
        Path(os.environ["JACKED_UI_ARTIFACTS"])
        if os.environ.get("JACKED_UI_ARTIFACTS")
        else tmp_path_factory.mktemp("ui-screenshots")
    )
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nreview page screenshots: {folder}")
    return folder


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> UiWorld:
    return build_ui_world(tmp_path_factory.mktemp("ui-browser"))


@pytest.fixture(scope="module")
def served(world: UiWorld):
    """`jacked memory ui --json --no-open` in the code repo: (its URL, the page's base)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "jacked_vault.cli.main", "memory", "ui", "--json", "--no-open"],
        cwd=world.repo,
        env=cli_env(world.vault),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = json.loads(proc.stdout.readline())
        yield line["url"], line["url"].split("/?", 1)[0]
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, proc.stderr.read()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


class Watch:
    """What a page did that it must not: a dialog (a script from a note ran), a console error, a
    request outside the page's origin, an error answer."""

    def __init__(self, page, base: str) -> None:
        self.problems: list[str] = []
        page.on("dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss()))
        page.on(
            "console",
            lambda m: self.problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None,
        )
        page.on(
            "request",
            lambda r: None if r.url.startswith(base + "/") else self.problems.append(f"request outside: {r.url}"),
        )
        page.on("response", lambda r: self.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)


@pytest.fixture(scope="module")
def page(browser, served):
    url, base = served
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    watch = Watch(opened, base)
    opened.goto(url)
    assert opened.url == base + "/"  # the token leaves the address bar at once
    yield opened, base, watch
    context.close()
    assert watch.problems == []


def test_find_a_note_and_see_its_history(page, world: UiWorld, artifacts: Path):
    tab, base, _ = page
    tab.goto(base + "/?doctor=wait")
    assert tab.locator("#note-count").inner_text() == "9" and tab.locator("#doctor-verdict").is_visible()
    tab.screenshot(path=str(artifacts / "overview.png"), full_page=True)

    tab.keyboard.press("/")  # the shortcut to the search box
    tab.keyboard.type("fts5")
    tab.keyboard.press("Enter")
    tab.wait_for_url(base + "/search?q=fts5")
    first = tab.locator("li.hit").first
    assert first.get_attribute("data-id") == world.ids["decision"]
    tab.screenshot(path=str(artifacts / "search.png"), full_page=True)

    first.locator("a.title").click()
    tab.wait_for_url(f"{base}/note/{world.ids['decision']}")
    assert tab.locator("h1").inner_text() == "Use SQLite FTS5 for search"
    assert tab.locator("#body strong").inner_text() == "FTS5"
    commits = tab.locator("#history li[data-commit]")
    assert (
        commits.count() == 1
        and commits.first.get_attribute("data-commit")
        == git(
            world.vault, "log", "-1", "--format=%H", "--", "groups/api/decision/use-sqlite-fts5-for-search.md"
        ).strip()
    )
    tab.locator("#neighbourhood").wait_for()
    tab.screenshot(path=str(artifacts / "note.png"), full_page=True)

    tab.goto(f"{base}/note/{world.ids['hostile']}")  # nothing of it runs (Watch: no dialog, no request elsewhere)
    assert "<script>" in tab.locator("h1").inner_text()
    tab.screenshot(path=str(artifacts / "note-hostile.png"), full_page=True)


def test_review_accept_with_a_click_and_reject_with_the_keyboard(page, world: UiWorld, artifacts: Path):
    tab, base, _ = page
    tab.goto(base + "/review")
    tab.screenshot(path=str(artifacts / "review.png"), full_page=True)
    before = world.head()

    with tab.expect_navigation(url=base + "/review"):  # the POST, then its redirect back to the queue
        tab.locator(f'li.candidate[data-id="{world.ids["accept_me"]}"] form.op-accept button').click()
    assert world.subject() == "memory(accept): Retry uploads on 503"
    assert (
        f"Memory-Id: {world.ids['accept_me']}" in world.message()
        and git(world.vault, "rev-parse", "HEAD~1").strip() == before
    )
    assert "is now active, reviewed by you" in tab.locator(".flash").inner_text()

    accepted = world.head()
    ids = [li.get_attribute("data-id") for li in tab.locator("li.candidate").all()]
    for _ in range(ids.index(world.ids["reject_me"])):
        tab.keyboard.press("j")
    tab.keyboard.press("r")  # focus the reason of the selected candidate
    tab.keyboard.type("We deploy on Tuesdays.")
    with tab.expect_navigation(url=base + "/review"):
        tab.keyboard.press("Enter")
    assert world.subject() == "memory(reject): Deploys happen on Fridays"
    assert (
        "Memory-Reason: We deploy on Tuesdays." in world.message()
        and git(world.vault, "rev-parse", "HEAD~1").strip() == accepted
    )
    remaining = {li.get_attribute("data-id") for li in tab.locator("li.candidate").all()}
    assert world.ids["accept_me"] not in remaining and world.ids["reject_me"] not in remaining
    tab.screenshot(path=str(artifacts / "review-after.png"), full_page=True)
    # the timeline filtered by operation shows the reject just made (in this test: under xdist the
    # module's tests may run on different workers, each with its own world)
    tab.goto(base + "/timeline")
    tab.select_option("select[name=op]", "reject")
    tab.locator("#timeline-form button").click()
    tab.wait_for_url(base + "/timeline?group=&harness=&op=reject")
    assert [row.get_attribute("data-op") for row in tab.locator("tr[data-commit]").all()] == ["reject"]


def test_what_the_agent_was_told_and_the_timeline(page, world: UiWorld, artifacts: Path):
    tab, base, _ = page
    tab.goto(base + "/brief")
    assert tab.locator("#brief-text").inner_text().startswith("## jacked-vault memory for github.com/acme/api")
    assert tab.locator("details.given").count() == 1  # the SessionStart hook's brief, logged when it was given
    tab.screenshot(path=str(artifacts / "brief.png"), full_page=True)
    tab.goto(base + "/timeline")
    ops = [row.get_attribute("data-op") for row in tab.locator("tr[data-commit]").all()]
    assert ops[-1] == "maintenance" and "create" in ops and "supersede" in ops  # the world's history, init last
    tab.screenshot(path=str(artifacts / "timeline.png"), full_page=True)


def test_forget_needs_its_box_ticked_then_makes_one_commit(page, world: UiWorld, artifacts: Path):
    """Issue 33.20 in a real browser: the note page's Forget does nothing until its box is ticked
    (the form's `required`), then makes the CLI's one forget commit and lands on the overview."""
    tab, base, _ = page
    target = world.ids["codex"]
    tab.goto(f"{base}/note/{target}")
    before = world.head()
    tab.locator("form.op-forget button").click()  # unticked: the browser keeps the form
    assert tab.url == f"{base}/note/{target}" and world.head() == before
    tab.locator("form.op-forget input[name=sure]").check()
    with tab.expect_navigation(url=base + "/"):
        tab.locator("form.op-forget button").click()
    assert world.subject() == f"memory(forget): {target}" and git(world.vault, "rev-parse", "HEAD~1").strip() == before
    assert "forgot " in tab.locator(".flash").inner_text()
    tab.screenshot(path=str(artifacts / "forgotten.png"), full_page=True)
