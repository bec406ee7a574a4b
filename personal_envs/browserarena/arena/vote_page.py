"""A small local web page to vote on battles and annotate steps (``http://127.0.0.1:<port>/``).

* ``/`` lists the battles (the ones this annotator has not voted on first);
* ``/submit`` is the task box: a checked task (:mod:`~personal_envs.browserarena.arena.submission`: the Open env,
  at most 4,000 characters, an http(s) start URL this machine can reach on the public web) is queued in the store
  (and run at once when the page has an ``on_submit`` hook, e.g. ``personal-envs arena serve --model ...``);
* ``/battle/<id>`` shows the task, the two agents side by side (GIF and the step list with the agent's evaluation,
  memory, next goal, actions and results, anonymous as "Left" and "Right"), vote buttons (left / right / tie / both
  bad) and, for every step, a form to mark it correct or wrong, field by field (the paper's annotation fields) and
  why; the page reveals the two models only after this annotator's vote;
* ``/leaderboard`` shows the Bradley-Terry table of people's votes with intervals (``?votes=judge``: the judges'
  votes; ``?env=ID``: one env) and ``/leaderboard.png`` its plot;
* ``/agreement``: people's agreement (§4.3) and each judge's agreement with people;
* ``/export/votes.jsonl`` and ``/export/annotations.jsonl``: for the operator only (the URLs with
  :attr:`VotePage.operator_token` that ``arena serve`` prints; votes name the models of every battle).

Several annotators can vote on and annotate the same battle: the annotator's name comes from ``?annotator=`` (the
page keeps it in every link and form), else the page's ``voter_name``.  A name belongs to the browser that first
votes or annotates under it (a session cookie; :meth:`ArenaStore.claim_annotator`): another browser can neither
write under it nor see the models that name's votes revealed.  A vote is final (a second, different one is refused).

Every state-changing request is a POST form that must come from the page itself: its ``Origin`` (or ``Referer``)
is this server, and it carries the form token of the browser's session (:class:`~personal_envs.core.http_guard.
FormTokens`); requests whose ``Host`` is not this machine are refused (DNS rebinding).  Pages run no script
(``Content-Security-Policy``), cannot be framed, and escape every stored field.  Everything is stored in the
:class:`ArenaStore`; only GIFs registered with a battle are served (no file paths from the URL).
"""

from __future__ import annotations

import html
import io
import json
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from personal_envs.browserarena.arena.agreement import AgreementRow, agreement_rows, judge_agreement_rows
from personal_envs.browserarena.arena.export import annotations_jsonl, votes_jsonl
from personal_envs.browserarena.arena.leaderboard import compute_leaderboard
from personal_envs.browserarena.arena.plot import plot_ratings
from personal_envs.browserarena.arena.store import (
    STEP_FIELDS,
    Annotation,
    ArenaStore,
    BattleRecord,
    VoteRefused,
)
from personal_envs.browserarena.arena.submission import SubmissionError, check_submission
from personal_envs.browserarena.tasks import MAX_TASK_CHARS
from personal_envs.core.http import LoopbackServer, send_body
from personal_envs.core.http_guard import FormTokens, cross_origin_refusal, host_allowed

CSS = """
body{font-family:Arial,Helvetica,sans-serif;margin:18px;color:#222}
.sides{display:flex;gap:18px}.side{flex:1;border:1px solid #ccc;padding:10px;min-width:0}
.side img{max-width:100%}.step{border-top:1px solid #eee;padding:6px 0;font-size:13px}
.votes button{font-size:16px;margin:6px;padding:8px 16px}.note{color:#666}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px}
.taskbox{border:2px solid #446;padding:10px;margin:10px 0;background:#f5f6fa}.field{margin:2px 0}
"""
#: No script at all, images and forms only from this server, never inside another site's frame.
CONTENT_SECURITY_POLICY = ("default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; "
                           "frame-ancestors 'none'; base-uri 'none'")
_SECURITY_HEADERS = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "X-Frame-Options": "DENY",
                     "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"}
_VOTE_SETS = {"human": "people's votes", "judge": "judges' votes"}
_ANY_ADDRESS = ("", "0.0.0.0", "::")


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _doc(title: str, body: str) -> bytes:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{_esc(title)}</title><style>{CSS}</style>"
            f"</head><body>{body}</body></html>").encode()


@dataclass(frozen=True)
class Visitor:
    """Who is asking: the annotator name, the browser session's stored key and its form token."""

    annotator: str
    session_key: str
    token: str

    def hidden_fields(self) -> str:
        """The hidden inputs every form of the page carries."""
        return (f"<input type='hidden' name='annotator' value='{_esc(self.annotator)}'>"
                f"<input type='hidden' name='csrf' value='{_esc(self.token)}'>")


class VotePage:
    """The vote page server for ``store``; ``start()`` / ``close()`` or use it as a context manager.

    Args:
        store: Where battles, votes and annotations live.
        voter_name: Annotator name when the URL gives none (``?annotator=``).
        on_submit: Called with the task id after a task is submitted (e.g. to run its battle in the background).
        port: Port to bind (0: a free one).
        host: Interface to bind (``127.0.0.1`` by default; ``0.0.0.0`` lets participants on other machines in).
        allowed_origins: The battles' env's allowed origins: submitted start URLs must be on them (``None``: any
            public http(s) site; loopback and private-network addresses are refused unless listed here).
        allowed_hosts: Extra host names participants may use to reach the page (besides IP addresses,
            ``localhost`` and this machine's names).
    """

    def __init__(self, store: ArenaStore, *, voter_name: str = "web",
                 on_submit: Callable[[str], None] | None = None, port: int = 0, host: str = "127.0.0.1",
                 allowed_origins: Sequence[str] | None = None, allowed_hosts: Sequence[str] = ()) -> None:
        self.store = store
        self.voter_name = voter_name
        self.on_submit = on_submit
        self.port = port
        self.host = host
        self.allowed_origins = list(allowed_origins) if allowed_origins is not None else None
        self.allowed_hosts = (*allowed_hosts, *(() if host in _ANY_ADDRESS else (host,)))
        #: The operator's secret: the export URLs need it (``?token=``).
        self.operator_token = secrets.token_urlsafe(24)
        self.tokens = FormTokens("arena_session")
        self._server: LoopbackServer | None = None

    @property
    def url(self) -> str:
        """``http://<host>:<port>`` (127.0.0.1 when the page listens on every interface)."""
        self.start()
        assert self._server is not None
        shown = "127.0.0.1" if self.host in _ANY_ADDRESS else self.host
        return f"http://{shown}:{self._server.port}"

    def export_url(self, what: str = "votes") -> str:
        """The operator's URL of an export (``votes`` or ``annotations``)."""
        return f"{self.url}/export/{what}.jsonl?token={self.operator_token}"

    def start(self) -> None:
        """Serve in a daemon thread (idempotent)."""
        if self._server is not None and self._server.running:
            return
        page = self

        class Handler(_Handler):
            vote_page = page

        self._server = LoopbackServer(Handler, "arena-vote-page", host=self.host, port=self.port)
        self.tokens.cookie_name = f"arena_session_{self._server.port}"  # cookies are shared across ports

    def close(self) -> None:
        """Stop serving (idempotent)."""
        if self._server is not None:
            self._server.close(timeout=10)
        self._server = None

    def __enter__(self) -> VotePage:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------ pages
    def index_page(self, visitor: Visitor) -> bytes:
        annotator = visitor.annotator
        votes = self.store.votes(source="human")
        voted = {v.battle_id for v in votes if v.voter == annotator}
        battles = sorted(self.store.battles(), key=lambda r: (r.battle_id in voted, -r.created))
        counts: dict[str, int] = {}
        for vote in votes:
            counts[vote.battle_id] = counts.get(vote.battle_id, 0) + 1
        who = _who(annotator)
        rows = "".join(
            f"<tr><td><a href='/battle/{_esc(quote(r.battle_id))}{who}'>{_esc(r.battle_id)}</a></td>"
            f"<td>{_esc(r.env_id)}</td><td>{_esc(r.task_text[:90])}</td>"
            f"<td>{'voted' if r.battle_id in voted else 'open'}</td><td>{counts.get(r.battle_id, 0)}</td></tr>"
            for r in battles)
        body = (f"{self._nav(annotator)}<h1>BrowserArena battles</h1>"
                "<table id='battles'><tr><th>battle</th><th>env</th><th>task</th><th>your vote</th><th>votes</th>"
                f"</tr>{rows}</table>")
        return _doc("BrowserArena", body)

    def _nav(self, annotator: str) -> str:
        who = _who(annotator)
        return (f"<p><a href='/{who}'>All battles</a> · <a href='/submit{who}'>Submit a task</a> · "
                f"<a href='/leaderboard{who}'>Leaderboard</a> · <a href='/agreement{who}'>Agreement</a></p>"
                "<form method='get' class='note'>Annotating as "
                f"<input name='annotator' value='{_esc(annotator)}' aria-label='Annotator name' maxlength='80'> "
                "<button type='submit'>Switch annotator</button></form>")

    def submit_page(self, visitor: Visitor, notice: str = "") -> bytes:
        annotator = visitor.annotator
        tasks = "".join(
            f"<tr><td>{_esc(t.task_id)}</td><td>{_esc(t.text[:80])}</td><td class='status'>{_esc(t.status)}</td>"
            f"<td>{self._battle_link(t.battle_id, annotator)}</td><td>{_esc(t.error[:200])}</td></tr>"
            for t in reversed(self.store.tasks()))
        body = (f"{self._nav(annotator)}<h1>Submit a task</h1>"
                f"{'<p class=note id=notice>' + _esc(notice) + '</p>' if notice else ''}"
                f"<form method='post' action='/submit'>{visitor.hidden_fields()}"
                f"<p><textarea name='text' rows='3' cols='90' aria-label='Task' maxlength='{MAX_TASK_CHARS}' "
                "placeholder='What should the two agents do?'></textarea></p>"
                "<p><input name='start_url' size='60' aria-label='Start URL' placeholder='start URL (optional)'></p>"
                "<button type='submit'>Send to two anonymous agents</button></form>"
                f"<h2>Submitted tasks</h2><table id='tasks'><tr><th>task</th><th>text</th><th>status</th>"
                f"<th>battle</th><th>error</th></tr>{tasks}</table>")
        return _doc("Submit a task", body)

    @staticmethod
    def _battle_link(battle_id: str, annotator: str) -> str:
        if not battle_id:
            return ""
        return f"<a href='/battle/{_esc(quote(battle_id))}{_who(annotator)}'>{_esc(battle_id)}</a>"

    def battle_page(self, record: BattleRecord, visitor: Visitor, notice: str = "") -> bytes:
        annotator = visitor.annotator
        mine = self.store.vote_of(record.battle_id, annotator)
        revealed = mine is not None and bool(mine.session) and mine.session == visitor.session_key
        annotations = {(a.side, a.step): a for a in self.store.annotations(record.battle_id)
                       if a.annotator == annotator}
        sides = []
        for tag, label, path in (("a", "Left", record.trace_a), ("b", "Right", record.trace_b)):
            trace = _load_trace(path)
            steps = [self._step_html(record, tag, label, visitor, step, annotations)
                     for step in trace.get("steps", []) if isinstance(step, dict)]
            final = _mapping(trace.get("final"))
            answer = f"<p><b>Answer:</b> {_esc(final.get('answer', ''))}</p>" if final.get("finished") else ""
            model = f" — {_esc(record.model_a if tag == 'a' else record.model_b)}" if revealed else ""
            sides.append(f"<div class='side' id='side-{tag}'><h2>{label}{model}</h2>"
                         f"<img src='/gif/{_esc(quote(record.battle_id))}/{tag}' alt='{label} agent recording'>"
                         f"{answer}{''.join(steps)}</div>")
        count = len(self.store.votes(record.battle_id, source="human"))
        if mine is not None and revealed:
            votes = (f"<p id='vote-result'>Your vote: <b>{_esc(mine.winner)}</b> ({_esc(mine.voter)}); "
                     f"{count} vote(s) on this battle.</p>")
        elif mine is not None:
            votes = (f"<p id='vote-result'>{_esc(annotator)} has already voted on this battle from another browser "
                     "or the terminal; the models stay hidden here.</p>")
        else:
            buttons = "".join(
                f"<button type='submit' name='winner' value='{value}'>{text}</button>"
                for value, text in (("model_a", "👈 Left is better"), ("model_b", "👉 Right is better"),
                                    ("tie", "🤝 Tie"), ("tie (bothbad)", "👎 Both are bad")))
            votes = (f"<form class='votes' method='post' action='/battle/{_esc(quote(record.battle_id))}/vote'>"
                     f"{buttons}{visitor.hidden_fields()}"
                     "<input name='reason' placeholder='reason (optional)' aria-label='Vote reason'></form>")
        body = (f"{self._nav(annotator)}<h1>Which agent did better?</h1>"
                f"<div class='taskbox'><b>Task:</b> {_esc(record.task_text)}</div>"
                f"{'<p class=note id=notice>' + _esc(notice) + '</p>' if notice else ''}{votes}"
                f"<div class='sides'>{''.join(sides)}</div>")
        return _doc(f"Battle {record.battle_id}", body)

    @staticmethod
    def _step_html(record: BattleRecord, tag: str, label: str, visitor: Visitor, step: dict[str, Any],
                   annotations: dict[tuple[str, int], Annotation]) -> str:
        try:
            n = int(step.get("step", 0))
        except (TypeError, ValueError):
            n = 0
        brain = _mapping(step.get("brain"))
        actions = [a for a in step.get("actions", []) if isinstance(a, dict)] if isinstance(
            step.get("actions"), list) else []
        acts = "; ".join(f"{a.get('name')}({json.dumps(a.get('arguments'), ensure_ascii=False)[:120]})"
                         for a in actions)
        results = "; ".join(str(a.get("error") and f"error: {a.get('error')}" or a.get("result") or "ok")[:200]
                            for a in actions)
        shown = {"evaluation": brain.get("evaluation_previous_goal", ""), "memory": brain.get("memory", ""),
                 "next_goal": brain.get("next_goal", ""), "action": acts, "result": results}
        lines = "".join(f"<div class='field'><b>{name.replace('_', ' ').capitalize()}:</b> {_esc(value)}</div>"
                        for name, value in shown.items())
        saved = annotations.get((tag, n))
        state = ""
        if saved is not None:
            wrong = [name for name, ok in saved.fields.items() if not ok]
            state = ("<span class='note saved'>saved: " + ("correct" if saved.correct else "wrong: " + _esc(saved.reason))
                     + (f" (wrong fields: {_esc(', '.join(wrong))})" if wrong else "") + "</span>")
        checks = "".join(
            f"<label><input type='checkbox' name='wrong_{name}' value='1' "
            f"aria-label='{label} step {n} {name.replace('_', ' ')} wrong'>{name.replace('_', ' ')}</label> "
            for name in STEP_FIELDS)
        return (f"<div class='step' id='{tag}-step-{n}'><b>Step {n}</b>{lines}"
                f"<span class='note'>{_esc(step.get('url', ''))}</span>"
                f"<form method='post' action='/battle/{_esc(quote(record.battle_id))}/annotate'>"
                f"{visitor.hidden_fields()}"
                f"<input type='hidden' name='side' value='{tag}'><input type='hidden' name='step' value='{n}'>"
                f"<label><input type='radio' name='correct' value='1' aria-label='{label} step {n} correct'>"
                "correct</label> "
                f"<label><input type='radio' name='correct' value='0' aria-label='{label} step {n} wrong'>"
                "wrong</label> <span class='note'>wrong fields:</span> " + checks +
                f"<input name='reason' placeholder='why not?' aria-label='{label} step {n} reason'> "
                f"<button type='submit' aria-label='Save {label} step {n}'>Save</button> {state}</form></div>")

    def leaderboard_page(self, visitor: Visitor, votes: str = "human", env_id: str = "") -> bytes:
        nav = self._nav(visitor.annotator)
        envs = sorted({r.env_id for r in self.store.battles()})
        choices = " · ".join(
            f"<a href='/leaderboard?{_esc(urlencode({'votes': kind, 'env': env, 'annotator': visitor.annotator}))}'>"
            f"{_esc(_VOTE_SETS[kind])}{', ' + _esc(env) if env else ''}</a>"
            for kind in _VOTE_SETS for env in ["", *envs])
        title = f"Leaderboard: {_VOTE_SETS[votes]}" + (f", {env_id}" if env_id else ", all envs")
        battles = self.store.voted_battles(source=votes, env_id=env_id or None)
        head = f"{nav}<h1>{_esc(title)}</h1><p class='note'>{choices}</p>"
        if not battles:
            return _doc("Leaderboard", f"{head}<p>No votes yet.</p>")
        board = compute_leaderboard(battles)
        rows = "".join(f"<tr><td>{rank}</td><td>{_esc(model)}</td><td>{rating:.1f}</td>"
                       f"<td>[{lo:.1f}, {hi:.1f}]</td><td>{count}</td></tr>"
                       for rank, model, rating, lo, hi, count in board.rows())
        image = "/leaderboard.png?" + urlencode({"votes": votes, "env": env_id})
        body = (f"{head}<table id='leaderboard'><tr><th>rank</th><th>model</th><th>rating</th><th>95% CI</th>"
                f"<th>battles</th></tr>{rows}</table><img src='{_esc(image)}' alt='ratings plot'>"
                f"<pre>{_esc(board.matrix_table('win_fraction'))}\n\n{_esc(board.matrix_table('counts'))}</pre>")
        return _doc("Leaderboard", body)

    def agreement_page(self, visitor: Visitor) -> bytes:
        votes = self.store.votes()

        def table(table_id: str, rows: list[AgreementRow], empty: str) -> str:
            cells = "".join(
                f"<tr><td>{_esc(r.annotators[0])} / {_esc(r.annotators[1])}</td><td>{r.battles_with_ties}</td>"
                f"<td>{r.agree_with_ties:.1f}</td><td>{r.battles_without_ties}</td>"
                f"<td>{r.agree_without_ties:.1f}</td><td>{r.kappa:.2f}</td></tr>" for r in rows)
            return (f"<table id='{table_id}'><tr><th>annotators</th><th>battles</th><th>agree % (with ties)</th>"
                    "<th>battles w/o ties</th><th>agree % (w/o ties)</th><th>kappa</th></tr>"
                    f"{cells or '<tr><td colspan=6>' + empty + '</td></tr>'}</table>")

        body = (f"{self._nav(visitor.annotator)}<h1>Annotator agreement</h1>"
                + table("agreement", agreement_rows(votes), "No battle has votes of two annotators yet.")
                + "<h2>Judges against people</h2>"
                + table("judge-agreement", judge_agreement_rows(votes), "No battle has a judge's and a person's vote."))
        return _doc("Agreement", body)

    def leaderboard_png(self, votes: str = "human", env_id: str = "") -> bytes:
        buffer = io.BytesIO()
        plot_ratings(compute_leaderboard(self.store.voted_battles(source=votes, env_id=env_id or None)), buffer)
        return buffer.getvalue()


def _path_parts(path: str) -> list[str]:
    """The decoded segments of a request path (a battle id in a link is percent-encoded)."""
    return [unquote(part) for part in urlsplit(path).path.split("/") if part]


def _mapping(value: Any) -> dict[str, Any]:
    """A trace field that should be an object (an empty one when the file holds something else)."""
    return value if isinstance(value, dict) else {}


def _who(annotator: str) -> str:
    return f"?annotator={quote(annotator, safe='')}" if annotator else ""


def _load_trace(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


class _Handler(BaseHTTPRequestHandler):
    vote_page: VotePage

    # ------------------------------------------------------------------------------------------ session
    def _session(self) -> tuple[str, bool]:
        """The browser's session id from its cookie, or a new one (second value: whether it is new)."""
        tokens = self.vote_page.tokens
        try:
            cookie = SimpleCookie(self.headers.get("Cookie") or "")
        except Exception:  # noqa: BLE001 - a malformed cookie header counts as none
            cookie = SimpleCookie()
        morsel = cookie.get(tokens.cookie_name)
        value = morsel.value if morsel is not None else ""
        if 20 <= len(value) <= 64 and value.replace("-", "").replace("_", "").isalnum():
            return value, False
        return tokens.new_session(), True

    def _visitor(self, form: dict[str, str] | None = None) -> Visitor:
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        name = (form or {}).get("annotator") or query.get("annotator") or self.vote_page.voter_name
        tokens = self.vote_page.tokens
        return Visitor(name.strip()[:80] or self.vote_page.voter_name, tokens.session_key(self._session_id),
                       tokens.token(self._session_id))

    def _query(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}

    def _begin(self) -> bool:
        """Host check and session; False (after answering) when the request is refused."""
        self._session_id, self._new_session = self._session()
        if not host_allowed(self.headers.get("Host", ""), self.vote_page.allowed_hosts):
            self.close_connection = True
            self._send(403, _doc("Forbidden", "<p>This page answers only to this machine's names.</p>"))
            return False
        return True

    def _operator(self) -> bool:
        token = self._query().get("token", "")
        auth = self.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            token = auth[7:].strip()
        return secrets.compare_digest(token.encode(), self.vote_page.operator_token.encode())

    # ------------------------------------------------------------------------------------------ GET
    def do_GET(self) -> None:  # noqa: N802
        if not self._begin():
            return
        page = self.vote_page
        parts = _path_parts(self.path)
        who = self._visitor()
        query = self._query()
        try:
            if not parts:
                return self._send(200, page.index_page(who))
            if parts == ["submit"]:
                return self._send(200, page.submit_page(who))
            if parts in (["leaderboard"], ["leaderboard.png"]):
                votes = query.get("votes", "human")
                if votes not in _VOTE_SETS:
                    return self._send(400, _doc("Bad request", "<p>votes must be human or judge.</p>"))
                if parts == ["leaderboard"]:
                    return self._send(200, page.leaderboard_page(who, votes, query.get("env", "")))
                return self._send(200, page.leaderboard_png(votes, query.get("env", "")), "image/png")
            if parts == ["agreement"]:
                return self._send(200, page.agreement_page(who))
            if parts in (["export", "votes.jsonl"], ["export", "annotations.jsonl"]):
                if not self._operator():
                    return self._send(403, _doc("Forbidden", "<p>Exports name the models of every battle: they are "
                                                "for the operator (the export URLs <code>arena serve</code> printed, "
                                                "or <code>personal-envs arena export</code>).</p>"))
                text = votes_jsonl(page.store) if parts[1] == "votes.jsonl" else annotations_jsonl(page.store)
                return self._send(200, text.encode(), "application/jsonl; charset=utf-8")
            if len(parts) == 2 and parts[0] == "battle":
                return self._send(200, page.battle_page(page.store.battle(parts[1]), who))
            if len(parts) == 3 and parts[0] == "gif" and parts[2] in ("a", "b"):
                record = page.store.battle(parts[1])
                gif = record.gif_a if parts[2] == "a" else record.gif_b
                with open(gif, "rb") as handle:
                    return self._send(200, handle.read(), "image/gif")
        except KeyError:
            return self._send(404, _doc("Not found", "<p>No such battle.</p>"))
        except OSError:
            return self._send(404, _doc("Not found", "<p>The recording is missing.</p>"))
        return self._send(404, _doc("Not found", "<p>Not found.</p>"))

    # ------------------------------------------------------------------------------------------ POST
    def _read_form(self) -> dict[str, str] | None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= 100_000:
            self.close_connection = True
            self._send(413, _doc("Too large", "<p>The form is too large.</p>"))
            return None
        raw = self.rfile.read(length).decode("utf-8", "replace")
        return {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}

    def _refusal(self, form: dict[str, str], who: Visitor) -> str:
        """Why a write must be refused: not from this page (origin, form token), or a name another browser holds."""
        origin = cross_origin_refusal(dict(self.headers.items()), require_origin=True)
        if origin:
            return origin
        if self._new_session or not self.vote_page.tokens.valid(self._session_id, form.get("csrf", "")):
            return "this form did not come from this page (its token is missing or stale): reload the page"
        if not self.vote_page.store.claim_annotator(who.annotator, who.session_key):
            return (f"the annotator name {who.annotator!r} belongs to another browser; choose your own name at the "
                    "top of the page")
        return ""

    def do_POST(self) -> None:  # noqa: N802
        if not self._begin():
            return
        page = self.vote_page
        form = self._read_form()
        if form is None:
            return
        parts = _path_parts(self.path)
        who = self._visitor(form)
        refusal = self._refusal(form, who)
        if refusal:
            return self._send(403, _doc("Forbidden", f"<p id='notice'>{_esc(refusal)}</p>"))
        if parts == ["submit"]:
            return self._submit(form, who)
        if len(parts) != 3 or parts[0] != "battle":
            return self._send(404, _doc("Not found", "<p>Not found.</p>"))
        battle_id = parts[1]
        try:
            record = page.store.battle(battle_id)
            if parts[2] == "vote":
                try:
                    page.store.record_vote(battle_id, form.get("winner", ""), who.annotator, form.get("reason", ""),
                                           session=who.session_key)
                except VoteRefused as exc:
                    return self._send(409, page.battle_page(record, who, str(exc)))
                return self._redirect(f"/battle/{quote(battle_id)}{_who(who.annotator)}")
            if parts[2] == "annotate":
                return self._annotate(record, form, who)
        except KeyError:
            return self._send(404, _doc("Not found", "<p>No such battle.</p>"))
        except ValueError as exc:
            return self._send(400, _doc("Bad request", f"<p>{_esc(exc)}</p>"))
        return self._send(404, _doc("Not found", "<p>Not found.</p>"))

    def _submit(self, form: dict[str, str], who: Visitor) -> None:
        page = self.vote_page
        try:
            checked = check_submission(form.get("text", ""), start_url=form.get("start_url", ""),
                                       allowed_origins=page.allowed_origins)
            task_id = page.store.submit_task(checked.text, env_id=checked.env_id, start_url=checked.start_url,
                                             submitter=who.annotator)
        except (SubmissionError, ValueError) as exc:
            return self._send(400, page.submit_page(who, str(exc)))
        if page.on_submit is not None:
            page.on_submit(task_id)
        return self._redirect(f"/submit{_who(who.annotator)}")

    def _annotate(self, record: BattleRecord, form: dict[str, str], who: Visitor) -> None:
        page = self.vote_page
        correct, side = form.get("correct"), form.get("side", "")
        if correct not in ("0", "1"):
            return self._send(400, page.battle_page(record, who, "Choose correct or wrong before saving."))
        try:
            step = int(form.get("step", "0"))
        except ValueError:
            return self._send(400, page.battle_page(record, who, "The step number is not a number."))
        fields = {name: form.get(f"wrong_{name}") != "1" for name in STEP_FIELDS}
        page.store.annotate(Annotation(record.battle_id, side, step, correct == "1", form.get("reason", "")[:2000],
                                       who.annotator, fields))
        return self._redirect(f"/battle/{quote(record.battle_id)}{_who(who.annotator)}#{side}-step-{step}")

    # ------------------------------------------------------------------------------------------ answers
    def _headers(self) -> dict[str, str]:
        headers = dict(_SECURITY_HEADERS)
        if self._new_session:
            headers["Set-Cookie"] = self.vote_page.tokens.cookie_header(self._session_id)
        return headers

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8") -> None:
        send_body(self, status, body, content_type, self._headers())

    def _redirect(self, location: str) -> None:
        send_body(self, 303, b"", "text/plain; charset=utf-8", {**self._headers(), "Location": location})

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return
