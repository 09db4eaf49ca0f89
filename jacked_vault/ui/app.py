"""The review page's routes: each one calls the library function its CLI command calls and renders
the result (server-side; the page's small script only adds keyboard shortcuts).

GET  /                      overview: groups and repos, counts, candidates, health, notes per week
GET  /search?q=…            search with the CLI's filters (scope, group, kind, tag, repo, status,
                            include-candidates, target, all, as-of, known-at, limit)
GET  /note/<id>             a note: Markdown, metadata, trust and its evidence, validity, its
                            links as a small graph, its history with every diff
GET  /review                the candidates waiting, with their buttons
GET  /brief?repo=…&harness=…  the brief the SessionStart hook would give now, and the briefs given
GET  /timeline              the vault's history, by group, harness and operation
POST /note/<id>/accept | reject (reason) | supersede (by) | expire (at) | edit (title, body)

The page reads as a person (no harness: every note, each marked; `search.policy`), and writes as a
person at the CLI does: the same `write.transitions` calls, one commit each. Writes from the page
are serialised (one at a time); reads run side by side.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route

from jacked_vault.context import Context
from jacked_vault.document import timestamps
from jacked_vault.document.lifecycle import ALLOWED_FROM
from jacked_vault.document.model import KINDS, STATUSES, UNKNOWN_HARNESS
from jacked_vault.errors import VaultError, from_unexpected
from jacked_vault.frontend.actions import MAX_SEARCH_LIMIT
from jacked_vault.frontend.inputs import check_limit, time_option
from jacked_vault.groups.mapping import list_groups
from jacked_vault.harnesses import names as registered
from jacked_vault.recall.brief_log import briefs_given
from jacked_vault.recall.versions import note_versions
from jacked_vault.review import candidates
from jacked_vault.store import git
from jacked_vault.store.git import fast_head
from jacked_vault.store.layout import state_dir
from jacked_vault.store.vault import check_store_gitignore
from jacked_vault.ui import render as r
from jacked_vault.ui.security import Guard, Sessions, check_csrf

if TYPE_CHECKING:
    from starlette.datastructures import FormData, QueryParams

    from jacked_vault.context import Context
    from jacked_vault.search.service import SearchResult
    from jacked_vault.write.forget import Forgotten
    from jacked_vault.write.transitions import EditedAsNew, Transitioned

MAX_BODY = 512 * 1024  # a POST: an edited note (64 KiB) and its form fields, with room to spare
REVIEW_BODIES = 25  # candidates shown with their whole body (the rest: their summary and a link)
HISTORY_LIMIT = 200  # commits of one note
TIMELINE_LIMIT, TIMELINE_MAX, TIMELINE_SCAN = (
    100,
    500,
    1000,
)  # a filter looks at the newest 1,000 commits (~100 ms of `log` at 10k)
DOCTOR_WAIT_S = 0.15  # how long the overview waits for a doctor run before showing "checking"
STATUS_OF = {"NOT_FOUND": 404, "NOT_VISIBLE": 404, "USAGE": 400, "VALIDATION": 400, "SECRET": 400, "TOMBSTONED": 400,
             "EXISTS": 409, "INCOMPLETE": 409, "LOCKED": 409, "GIT": 409, "GITIGNORE": 409, "READ_ONLY": 409,
             "SYNC": 409}  # fmt: skip
TRANSITIONS = ("accept", "reject", "supersede", "expire")


@dataclass
class UiConfig:
    vault: Path  # the vault's folder
    cwd: Path  # where `jacked memory ui` was started: its repo's project store is seen, its brief is the default
    token: str
    port: int
    harness: str = "claude"  # whose brief /brief shows first


@dataclass
class DoctorRun:
    head: str | None = None
    report: object = None
    error: str | None = None
    seconds: float = 0.0
    at: float = 0.0


class Doctor:
    """`doctor` for the overview, run in the background and kept for the HEAD it checked (it takes
    ~0.5 s at 10k notes, over a page's budget); a new HEAD starts a new run."""

    def __init__(self, make_ctx: Callable[[], Context], write_lock: threading.Lock) -> None:
        self.make_ctx = make_ctx
        self.write_lock = write_lock
        self.last = DoctorRun()
        self.running: str | None = None
        self.finished = threading.Condition()

    def state(self, head: str | None, wait: float) -> tuple[DoctorRun, bool]:
        """(the last run, whether it is for `head`), after starting a run for `head` if none is
        and waiting up to `wait` seconds for it."""
        with self.finished:
            if self.last.head != head or self.last.at == 0.0:
                if self.running != head:
                    self.running = head
                    threading.Thread(target=self._run, args=(head,), name="jacked-ui-doctor", daemon=True).start()
                self.finished.wait_for(lambda: self.last.head == head and self.last.at > 0.0, timeout=wait)
            return self.last, self.last.head == head and self.last.at > 0.0

    def _run(self, head: str | None) -> None:
        from jacked_vault.doctor import doctor

        started = time.perf_counter()
        run = DoctorRun(head=head)
        try:
            with self.write_lock:  # never judged half-way through one of the page's own writes
                run.report = doctor(self.make_ctx())
        except VaultError as exc:
            run.error = f"{exc.message} [{exc.full_code}]"
        except Exception as exc:  # shown on the page, never a traceback
            error = from_unexpected(exc)
            run.error = f"{error.message} [{error.full_code}]"
        run.seconds = time.perf_counter() - started
        run.at = time.time()
        with self.finished:
            if self.running == head:
                self.running = None
            self.last = run
            self.finished.notify_all()


@dataclass
class Page:
    config: UiConfig
    sessions: Sessions = field(default_factory=Sessions)
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    doctor: Doctor = field(init=False)

    def __post_init__(self) -> None:
        self.doctor = Doctor(self.person, self.write_lock)

    # -- who reads and writes --------------------------------------------------------------------

    def person(self, cwd: Path | None = None, harness: str | None = None) -> Context:
        """The context of a person at this vault (no harness: every note, each marked), or of
        `harness` when a page asks as one (the brief)."""

        return Context.create(
            vault=str(self.config.vault), cwd=cwd or self.config.cwd, harness=harness or UNKNOWN_HARNESS
        )

    def writes_blocked(self, ctx: Context) -> str | None:
        """Why a transition would be refused before it starts (a detached HEAD, a changed
        .gitignore), as the write path itself says it; None when writes can go ahead."""

        try:
            git.require_branch(ctx.vault.root)
            check_store_gitignore(ctx.vault)
        except VaultError as exc:
            return f"{exc.message} [{exc.full_code}]"
        return None

    # -- rendering -------------------------------------------------------------------------------

    def html(self, request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        session = request.scope.get("state", {}).get("session")
        flash, session.flash[:] = list(session.flash), []
        return HTMLResponse(
            r.render(template, csrf=session.csrf, flash=flash, path=request.url.path, **values), status_code=status
        )

    def error(self, request: Request, exc: VaultError, *, title: str = "Not shown") -> Response:
        status = STATUS_OF.get(exc.code, 500)
        if _wants_json(request):
            return JSONResponse({"schema": "jacked.ui.v1", **exc.to_json()}, status_code=status)
        return self.html(request, "error.html", status, title=title, message=exc.message, code=exc.full_code)

    async def call(
        self, request: Request, fn: Callable[[], Any], *, title: str = "Not shown"
    ) -> tuple[Any, Response | None]:
        """Run a library call off the event loop; (result, None) or (None, the error page)."""
        try:
            return await run_in_threadpool(fn), None
        except VaultError as exc:
            return None, self.error(request, exc, title=title)
        except Exception as exc:  # a coded error page, never a traceback (JACKED_DEBUG=1: on the server's stderr)
            import os

            if os.environ.get("JACKED_DEBUG") == "1":
                import traceback

                traceback.print_exc()
            return None, self.error(request, from_unexpected(exc), title=title)

    # -- GET -------------------------------------------------------------------------------------

    async def overview(self, request: Request) -> Response:
        from jacked_vault.recall.overview import SOURCES, overview
        from jacked_vault.status import status

        def build() -> dict[str, Any]:
            ctx = self.person()
            found = status(ctx)
            counts = overview(ctx)
            return {"state": found.to_json(), "groups": list_groups(ctx).groups,
                    "overview": counts, "chart": r.chart(counts.weeks, SOURCES), "blocked": self.writes_blocked(ctx),
                    "head": fast_head(ctx.vault.root)}  # fmt: skip

        data, failed = await self.call(request, build)
        if failed is not None:
            return failed
        wait = 60.0 if request.query_params.get("doctor") == "wait" else DOCTOR_WAIT_S
        run, current = await run_in_threadpool(self.doctor.state, data["head"], wait)
        return self.html(request, "overview.html", doctor=run, doctor_current=current, **data)

    async def search(self, request: Request) -> Response:
        from jacked_vault.recall.overview import describe
        from jacked_vault.search.policy import SCOPES
        from jacked_vault.search.query import Filters
        from jacked_vault.search.service import search

        params = request.query_params
        form = _search_form(params)

        def build() -> tuple[SearchResult, dict[str, dict[str, Any]]]:
            statuses = tuple(form["status"] or ("active",)) + (("candidate",) if form["include-candidates"] else ())
            try:
                limit = int(form["limit"] or 20)
            except ValueError:
                raise VaultError("USAGE", "limit: give a number") from None
            filters = Filters(
                scopes=frozenset(form["scope"]) if form["scope"] else None,
                group=form["group"] or None,
                kinds=tuple(form["kind"]),
                tags=tuple(form["tag"]),
                repo=form["repo"] or None,
                statuses=tuple(dict.fromkeys(statuses)),
                as_of=time_option(form["as-of"] or None, "as-of"),
                known_at=time_option(form["known-at"] or None, "known-at"),
                limit=check_limit(limit, MAX_SEARCH_LIMIT),
            )
            filters.target = form["target"] or None  # none: a person, who sees every harness's notes, each marked
            ctx = self.person()
            found = search(ctx, form["q"], filters)
            return found, describe(ctx, [d.id for d in found.results if d.tier == "note"])

        asked = any(params.get(k) for k in params)
        if not asked:
            return self.html(
                request,
                "search.html",
                form=form,
                found=None,
                hit_marks={},
                command=None,
                now=_now(),
                kinds=KINDS,
                statuses=STATUSES,
                scopes=SCOPES,
            )
        result, failed = await self.call(request, build, title="Search refused")
        if failed is not None:
            return failed
        found, marks = result
        return self.html(
            request,
            "search.html",
            form=form,
            found=found,
            hit_marks=marks,
            command=_command(form),
            now=_now(),
            kinds=KINDS,
            statuses=STATUSES,
            scopes=SCOPES,
        )

    async def note(self, request: Request) -> Response:
        from jacked_vault.notes import note_history, read
        from jacked_vault.recall.overview import describe
        from jacked_vault.search.policy import EVERYTHING

        note_id = request.path_params["id"]

        def build() -> dict[str, Any]:
            ctx = self.person()
            found = read(ctx, note_id, EVERYTHING)
            if found.note is None:  # hot.md or an episodic file search gave an id for
                return {"found": found, "note": None, "fields": found._fields()}
            note = found.note
            history = note_history(ctx, note.id, HISTORY_LIMIT)  # the whole id: the page's address may be a short one
            versions = {
                v.commit: v
                for v in note_versions(found.doc.store, found.doc.path, note.id, [e["commit"] for e in history.entries])
            }
            known = describe(ctx, [*note.links, *(b["id"] for b in found.backlinks), *note.supersedes])
            links = [{"id": i, **known.get(i, {"title": i}), "known": i in known} for i in note.links]
            backlinks = [
                {"id": b["id"], **known.get(b["id"], {"title": b["title"]}), "known": True} for b in found.backlinks
            ]
            verdict = found.doc.verdict
            ops = [op for op in TRANSITIONS if note.status in ALLOWED_FROM[op]]
            if note.status == "active" and verdict.reviewed:
                ops.remove("accept")
            return {"found": found, "note": note, "fields": found._fields(), "memory": found.memory(),
                    "history": history.entries, "versions": versions,
                    "graph": r.neighbourhood(note.id, note.title, links, backlinks), "links": links,
                    "backlinks": backlinks, "verdict": verdict, "ops": ops, "editable": note.status == "candidate",
                    "blocked": self.writes_blocked(ctx)}  # fmt: skip

        data, failed = await self.call(request, build, title="Note not shown")
        if failed is not None:
            return failed
        return self.html(request, "note.html", note_id=note_id, **data)

    async def review(self, request: Request) -> Response:
        from jacked_vault.notes import read
        from jacked_vault.search.policy import EVERYTHING

        def build() -> dict[str, Any]:
            ctx = self.person()
            queue = candidates(ctx)
            notes = {}
            for doc in queue[:REVIEW_BODIES]:
                try:
                    notes[doc.id] = read(ctx, doc.id, EVERYTHING).note
                except VaultError:
                    continue
            ops = [op for op in TRANSITIONS if "candidate" in ALLOWED_FROM[op]]
            return {
                "queue": queue,
                "notes": notes,
                "ops": ops,
                "blocked": self.writes_blocked(ctx),
                "agents": ctx.settings.agents,
            }

        data, failed = await self.call(request, build)
        if failed is not None:
            return failed
        return self.html(request, "review.html", **data)

    async def brief(self, request: Request) -> Response:
        from jacked_vault.recall.brief import build_brief
        from jacked_vault.search.query import require_slug

        params = request.query_params
        harness = params.get("harness") or self.config.harness
        repo = params.get("repo") or ""
        every = params.get("given") == "all"

        def build() -> dict[str, Any]:
            require_slug("harness", harness)
            cache = state_dir(self.config.vault)
            given = briefs_given(cache, 200)
            folders = _known_folders(self.config.cwd, given)
            folder = _folder_for(repo, folders) if repo else self.config.cwd
            made = build_brief(self.person(cwd=folder, harness=harness))
            shown = (
                given if every else [g for g in given if g.get("harness") == harness and g.get("repo") == made.identity]
            )
            harnesses = sorted({*registered(), *(g["harness"] for g in given if isinstance(g.get("harness"), str))})
            return {
                "brief": made,
                "folder": folder,
                "folders": folders,
                "given": shown[:20],
                "every": every,
                "harnesses": harnesses,
            }

        data, failed = await self.call(request, build, title="No brief")
        if failed is not None:
            return failed
        return self.html(request, "brief.html", harness=harness, repo=repo, **data)

    async def timeline(self, request: Request) -> Response:
        from jacked_vault.notes import note_history
        from jacked_vault.recall.history import _mark

        params = request.query_params
        wanted = {k: params.get(k) or "" for k in ("group", "harness", "op")}

        def build() -> dict[str, Any]:
            try:
                limit = int(params.get("limit") or TIMELINE_LIMIT)
            except ValueError:
                raise VaultError("USAGE", "limit: give a number") from None
            if not 1 <= limit <= TIMELINE_MAX:
                raise VaultError("USAGE", f"limit {limit}: give a number from 1 to {TIMELINE_MAX}")
            scan = TIMELINE_SCAN if any(wanted.values()) else limit
            history = note_history(self.person(), None, scan)
            now = timestamps.utc_now()
            rows = []
            for entry in history.entries:
                op = r.operation(entry["summary"])
                note = entry["note"] or {}
                if (wanted["op"] and op != wanted["op"]) or (
                    wanted["harness"] and entry["harness"] != wanted["harness"]
                ):
                    continue
                if wanted["group"] and note.get("group") != wanted["group"]:
                    continue
                rows.append({**entry, "op": op, "mark": _mark(entry["note"], now) if entry["memory_id"] else ""})
                if len(rows) >= limit:
                    break
            return {"rows": rows, "scanned": len(history.entries), "scan": scan, "filtered": any(wanted.values())}

        data, failed = await self.call(request, build)
        if failed is not None:
            return failed
        return self.html(request, "timeline.html", wanted=wanted, operations=r.OPERATIONS, **data)

    # -- POST ------------------------------------------------------------------------------------

    async def _form(self, request: Request) -> FormData | None:
        """The POST's form when it carries its session's CSRF token; else None."""
        form = await request.form()
        session = request.scope.get("state", {}).get("session")
        if not check_csrf(session, form.get("csrf") or request.headers.get("x-csrf-token")):
            return None
        return form

    async def change(self, request: Request) -> Response:
        from jacked_vault.write.forget import forget
        from jacked_vault.write.transitions import edit_as_new, transition

        note_id = request.path_params["id"]
        op = request.url.path.rsplit("/", 1)[-1]
        form = await self._form(request)
        if form is None:
            return PlainRefusal(
                403, "refused: the form's CSRF token is missing or not this session's; reload the page\n"
            )

        def text(name: str) -> str | None:
            value = form.get(name)
            return value if isinstance(value, str) else None

        def act() -> Forgotten | EditedAsNew | Transitioned:
            with self.write_lock:
                ctx = self.person()
                if op == "forget":
                    if text("sure") != "yes":
                        raise VaultError("USAGE", "forget: tick the box that says to remove this note's text")
                    return forget(ctx, note_id)
                if op == "edit":
                    return edit_as_new(
                        ctx, note_id, title=text("title") or "", body=(text("body") or "").replace("\r\n", "\n")
                    )
                kwargs = {}
                if op == "reject":
                    kwargs["reason"] = text("reason")
                elif op == "supersede":
                    kwargs["by"] = (text("by") or "").strip()
                elif op == "expire":
                    kwargs["valid_until"] = time_option(text("at") or None, "at")
                return transition(ctx, note_id, op, **kwargs)

        done, failed = await self.call(request, act, title=f"{op.capitalize()} refused")
        if failed is not None:
            return failed
        schema = "jacked.forget.v1" if op == "forget" else "jacked.review.v1"
        if _wants_json(request):
            return JSONResponse({"schema": schema, "ok": True, **done.to_json()})
        session = request.scope["state"]["session"]
        session.flash.append(("done", done.to_text()))
        after = "/" if op == "forget" else _next(text("next"), f"/note/{note_id}")  # a forgotten note has no page
        return RedirectResponse(after, status_code=303)


def PlainRefusal(status: int, text: str) -> Response:  # a response, named like one
    return Response(text, status_code=status, media_type="text/plain")


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def _next(value: str | None, default: str) -> str:
    """Where a POST sends the browser back: a path on this server, never another site."""
    if (
        value
        and value.startswith("/")
        and not value.startswith("//")
        and "\\" not in value
        and "\n" not in value
        and "\r" not in value
    ):
        return value
    return default


def _now() -> str:
    return timestamps.utc_now()


MULTI = ("scope", "kind", "tag", "status")
SINGLE = ("q", "group", "repo", "target", "as-of", "known-at", "limit")
FLAGS = ("include-candidates", "all")


def _search_form(params: QueryParams) -> dict[str, Any]:
    """The search parameters, named as the CLI's options (`--as-of` is `as-of`); repeatable ones
    may be repeated or given comma- or space-separated."""
    form: dict[str, Any] = {name: (params.get(name) or "").strip() for name in SINGLE}
    for name in MULTI:
        form[name] = [v for value in params.getlist(name) for v in value.replace(",", " ").split()]
    for name in FLAGS:
        form[name] = params.get(name) not in (None, "", "0", "false")
    return form


def _command(form: dict[str, Any]) -> str:
    """The CLI command that gives the same answer (shown under the form)."""
    import shlex

    words = ["jacked", "memory", "search", *form["q"].split()]
    for name in MULTI:
        for value in form[name]:
            words += [f"--{name}", value]
    for name in ("group", "repo", "target", "as-of", "known-at", "limit"):
        if form[name]:
            words += [f"--{name}", form[name]]
    if form["include-candidates"]:
        words.append("--include-candidates")
    if not form["target"]:
        words.append("--all")
    return shlex.join(words)


def _known_folders(cwd: Path, given: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Repo folders this machine has briefed ({"folder", "repo"}), the page's own first."""
    seen: dict[str, str | None] = {str(cwd): None}
    for record in given:
        folder = record.get("cwd")
        if isinstance(folder, str) and (folder not in seen or seen.get(folder) is None):
            seen[folder] = record.get("repo")
    return [{"folder": f, "repo": repo} for f, repo in seen.items()]


def _folder_for(repo: str, folders: list[dict[str, Any]]) -> Path:
    """The folder to brief: `repo` when it is a folder here, else a folder briefed before for the
    repo identity `repo`."""
    path = Path(repo).expanduser()
    if path.is_absolute():
        try:
            if path.is_dir():
                return path
        except (OSError, ValueError):
            pass
        raise VaultError(
            "USAGE",
            "repo: not a folder on this machine (give the repo's folder, or a repo identity briefed here before)",
        )
    for known in folders:
        if known["repo"] == repo:
            return Path(known["folder"])
    raise VaultError("USAGE", "repo: no session here was briefed for that repo yet; give the repo's folder instead")


def create_app(config: UiConfig) -> Guard:
    """The ASGI app: the routes behind the Guard (Host, Origin, token, headers)."""
    from starlette.staticfiles import StaticFiles

    page = Page(config)
    routes = [
        Route("/", page.overview, methods=["GET"]),
        Route("/search", page.search, methods=["GET"]),
        Route("/note/{id}", page.note, methods=["GET"]),
        *(Route(f"/note/{{id}}/{op}", page.change, methods=["POST"]) for op in (*TRANSITIONS, "edit", "forget")),
        Route("/review", page.review, methods=["GET"]),
        Route("/brief", page.brief, methods=["GET"]),
        Route("/timeline", page.timeline, methods=["GET"]),
        Mount("/static", StaticFiles(directory=str(r.STATIC)), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.page = page
    return Guard(app, token=config.token, port=config.port, sessions=page.sessions, max_body=MAX_BODY)


def route_entries() -> list[str]:
    """`ui:<METHOD> <path>` of every page route (what jacked_vault/registry.py classifies)."""
    app = cast(Starlette, create_app(UiConfig(vault=Path("."), cwd=Path("."), token="-", port=0)).app)
    return sorted(
        f"ui:{method} {route.path}"
        for route in app.routes
        if isinstance(route, Route) and route.methods is not None
        for method in route.methods - {"HEAD"}
    )
