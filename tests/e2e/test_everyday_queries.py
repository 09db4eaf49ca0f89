"""Search finds what people type (issue 33.1): every spelling of a word a note holds finds the
note, on every surface a person or an agent searches from: the real CLI in a subprocess, the
real MCP server over stdio, and the review page's search.

The spellings cross case (lower, UPPER, Capitalised, CamelCase), compounds joined and split
(`PagerDuty` / `pagerduty` / `pager duty`), snake_case, kebab-case, dotted and path names and
plurals. Each note holds one word in one spelling; every other spelling must rank it first.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli
from helpers.mcp_server import call, lib_add, ok, run, stdio
from helpers.ui_world import page_client, page_hits

# The words notes hold (key -> (title, body)): each in one spelling.
NOTES = {
    "pagerduty": ("Alerts go to PagerDuty", "The on-call rota is kept there."),
    "launchdarkly": ("Feature flags live in LaunchDarkly", "Ship dark, then turn them on."),
    "cloudfront": ("Static assets are served by CloudFront", "Invalidate after each deploy."),
    "github": ("Releases are cut on github", "A tag starts the release workflow."),
    "retry_budget": ("Every client keeps a retry_budget", "Past it, calls fail fast."),
    "rate-limiter": ("The rate-limiter sits in front of the API", "It counts per token."),
    "werkzeug.routing": ("URL rules come from werkzeug.routing", "Converters are registered once."),
    "main.py": ("The entry point is src/app/main.py", "It reads the settings first."),
    "flaky tests": ("Quarantine flaky tests", "They run in a separate job."),
    "statuspage": ("Incidents are posted on statuspage", "Customers subscribe to it."),  # joined, lowercase
    # neighbours sharing a part of a compound: a spelling must still rank its own note first
    "pager": ("Old pager hardware", "The pager is kept in the drawer."),
    "budget": ("Cloud budget alarms", "Finance reviews the monthly budget."),
}

# Every spelling a person or an agent may type for the word a note holds.
SPELLINGS = {
    "pagerduty": ["PagerDuty", "pagerduty", "PAGERDUTY", "Pagerduty", "pager duty", "pager-duty", "pager_duty"],
    "launchdarkly": ["launchdarkly", "LAUNCHDARKLY", "Launchdarkly", "LaunchDarkly", "launch darkly"],
    "cloudfront": ["cloudfront", "CLOUDFRONT", "Cloudfront", "cloud front", "CloudFront"],
    "github": ["github", "GitHub", "GITHUB", "Github"],
    "retry_budget": ["retry_budget", "retry budget", "retrybudget", "RetryBudget", "retryBudget", "RETRY_BUDGET"],
    "rate-limiter": ["rate-limiter", "rate limiter", "ratelimiter", "RateLimiter", "rate_limiter", "RATE-LIMITER"],
    "werkzeug.routing": ["werkzeug.routing", "WERKZEUG.ROUTING", "Werkzeug.Routing", "werkzeug routing", "routing"],
    "main.py": ["src/app/main.py", "app/main.py", "main.py", "MAIN.PY"],
    "flaky tests": ["flaky tests", "flaky test", "Flaky Tests", "FLAKY TEST", "flaky-tests"],
    "statuspage": ["statuspage", "StatusPage", "status page", "Status Page", "status-page", "STATUS_PAGE"],
}


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """A vault holding NOTES (group `ops`, for every harness) and a work folder outside any repo."""
    from jacked_vault.write.init import init_vault

    root = tmp_path_factory.mktemp("everyday")
    vault, work = root / "vault", root / "work"
    init_vault(vault)
    work.mkdir()
    ids = {key: lib_add(vault, work, "tester", title, body, group="ops") for key, (title, body) in NOTES.items()}
    return vault, work, ids


def _misses(ranked: dict[str, list[str]], ids: dict[str, str]) -> dict[str, list[str]]:
    """Each spelling whose note is not the first hit, with the keys of what came first instead."""
    names = {note_id: key for key, note_id in ids.items()}
    return {
        spelling: [names.get(hit, hit) for hit in ranked[spelling][:3]]
        for key, spellings in SPELLINGS.items()
        for spelling in spellings
        if ranked[spelling][:1] != [ids[key]]
    }


def _every_spelling() -> list[str]:
    return [spelling for spellings in SPELLINGS.values() for spelling in spellings]


def test_the_cli_finds_every_spelling(world):
    vault, work, ids = world
    ranked = {}
    for spelling in _every_spelling():
        found = run_cli("memory", "search", "--json", "--limit", "5", "--", spelling, vault=vault, cwd=work)
        assert found.code == 0, found.err
        ranked[spelling] = [hit["id"] for hit in found.json["results"]]
    assert _misses(ranked, ids) == {}


def test_the_mcp_server_finds_every_spelling(world):
    vault, work, ids = world

    async def go() -> dict[str, list[str]]:
        async with stdio(vault, work, harness="claude") as client:
            ranked = {}
            for spelling in _every_spelling():
                found = ok(await call(client, "memory_search", {"query": spelling, "limit": 5}))
                ranked[spelling] = [hit["id"] for hit in found["results"]]
            return ranked

    assert _misses(run(go), ids) == {}


def test_the_page_finds_every_spelling(world):
    vault, work, ids = world
    client = page_client(vault, work)
    ranked = {}
    for spelling in _every_spelling():
        page = client.get("/search", params={"q": spelling})
        assert page.status_code == 200, page.text
        ranked[spelling] = list(page_hits(page.text))
    assert _misses(ranked, ids) == {}
