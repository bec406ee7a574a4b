"""A small local web page to vote on battles and annotate steps (``http://127.0.0.1:<port>/``).

* ``/`` lists the battles (the ones this annotator has not voted on first);
* ``/submit`` is the task box: a submitted task is queued in the store (and run at once when the page has a
  ``on_submit`` hook, e.g. ``personal-envs arena serve --model ...``);
* ``/battle/<id>`` shows the task, the two agents side by side (GIF and the step list with the agent's evaluation,
  memory, next goal, actions and results, anonymous as "Left" and "Right"), vote buttons (left / right / tie / both
  bad) and, for every step, a form to mark it correct or wrong, field by field (the paper's annotation fields) and
  why; the page reveals the two models only after this annotator's vote;
* ``/leaderboard`` shows the Bradley-Terry table with intervals and ``/leaderboard.png`` its plot;
* ``/agreement`` the annotators' agreement (§4.3); ``/export/votes.jsonl`` and ``/export/annotations.jsonl``.

Several annotators can vote on and annotate the same battle: the annotator's name comes from ``?annotator=`` (the
page keeps it in every link and form), else the page's ``voter_name``.  Everything is stored in the
:class:`ArenaStore`.  Only GIFs registered with a battle are served (no file paths from the URL), and every write
comes as a POST form.
"""

from __future__ import annotations

import html
import io
import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from personal_envs.browserarena.arena.agreement import agreement_rows
from personal_envs.browserarena.arena.export import annotations_jsonl, votes_jsonl
from personal_envs.browserarena.arena.leaderboard import compute_leaderboard
from personal_envs.browserarena.arena.plot import plot_ratings
from personal_envs.browserarena.arena.store import STEP_FIELDS, Annotation, ArenaStore, BattleRecord
from personal_envs.core.http import LoopbackServer, send_body

CSS = """
body{font-family:Arial,Helvetica,sans-serif;margin:18px;color:#222}
.sides{display:flex;gap:18px}.side{flex:1;border:1px solid #ccc;padding:10px;min-width:0}
.side img{max-width:100%}.step{border-top:1px solid #eee;padding:6px 0;font-size:13px}
.votes button{font-size:16px;margin:6px;padding:8px 16px}.note{color:#666}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px}
.taskbox{border:2px solid #446;padding:10px;margin:10px 0;background:#f5f6fa}.field{margin:2px 0}
"""


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _doc(title: str, body: str) -> bytes:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{_esc(title)}</title><style>{CSS}</style>"
            f"</head><body>{body}</body></html>").encode()


class VotePage:
    """The vote page server for ``store``; ``start()`` / ``close()`` or use it as a context manager.

    Args:
        store: Where battles, votes and annotations live.
        voter_name: Annotator name when the URL gives none (``?annotator=``).
        on_submit: Called with the task id after a task is submitted (e.g. to run its battle in the background).
        port: Port to bind (0: a free one).
    """

    def __init__(self, store: ArenaStore, *, voter_name: str = "web",
                 on_submit: Callable[[str], None] | None = None, port: int = 0) -> None:
        self.store = store
        self.voter_name = voter_name
        self.on_submit = on_submit
        self.port = port
        self._server: LoopbackServer | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        self.start()
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.port}"

    def start(self) -> None:
        """Serve in a daemon thread (idempotent)."""
        if self._server is not None and self._server.running:
            return
        page = self

        class Handler(_Handler):
            vote_page = page

        self._server = LoopbackServer(Handler, "arena-vote-page", port=self.port)

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
    def index_page(self, annotator: str) -> bytes:
        voted = {v.battle_id for v in self.store.votes() if v.voter == annotator}
        battles = sorted(self.store.battles(), key=lambda r: (r.battle_id in voted, -r.created))
        counts: dict[str, int] = {}
        for vote in self.store.votes():
            counts[vote.battle_id] = counts.get(vote.battle_id, 0) + 1
        who = _who(annotator)
        rows = "".join(
            f"<tr><td><a href='/battle/{_esc(r.battle_id)}{who}'>{_esc(r.battle_id)}</a></td><td>{_esc(r.env_id)}</td>"
            f"<td>{_esc(r.task_text[:90])}</td><td>{'voted' if r.battle_id in voted else 'open'}</td>"
            f"<td>{counts.get(r.battle_id, 0)}</td></tr>" for r in battles)
        body = (f"{self._nav(annotator)}<h1>BrowserArena battles</h1>"
                "<table><tr><th>battle</th><th>env</th><th>task</th><th>your vote</th><th>votes</th></tr>"
                f"{rows}</table>")
        return _doc("BrowserArena", body)

    def _nav(self, annotator: str) -> str:
        who = _who(annotator)
        return (f"<p><a href='/{who}'>All battles</a> · <a href='/submit{who}'>Submit a task</a> · "
                f"<a href='/leaderboard{who}'>Leaderboard</a> · <a href='/agreement{who}'>Agreement</a> · "
                "<a href='/export/votes.jsonl'>votes.jsonl</a> · <a href='/export/annotations.jsonl'>"
                "annotations.jsonl</a></p><form method='get' class='note'>Annotating as "
                f"<input name='annotator' value='{_esc(annotator)}' aria-label='Annotator name'> "
                "<button type='submit'>Switch annotator</button></form>")

    def submit_page(self, annotator: str, notice: str = "") -> bytes:
        tasks = "".join(
            f"<tr><td>{_esc(t.task_id)}</td><td>{_esc(t.text[:80])}</td><td class='status'>{_esc(t.status)}</td>"
            f"<td>{self._battle_link(t.battle_id, annotator)}</td></tr>" for t in reversed(self.store.tasks()))
        body = (f"{self._nav(annotator)}<h1>Submit a task</h1>{'<p class=note>' + _esc(notice) + '</p>' if notice else ''}"
                "<form method='post' action='/submit'>"
                f"<input type='hidden' name='annotator' value='{_esc(annotator)}'>"
                "<p><textarea name='text' rows='3' cols='90' aria-label='Task' "
                "placeholder='What should the two agents do?'></textarea></p>"
                "<p><input name='start_url' size='60' aria-label='Start URL' placeholder='start URL (optional)'></p>"
                "<button type='submit'>Send to two anonymous agents</button></form>"
                f"<h2>Submitted tasks</h2><table id='tasks'><tr><th>task</th><th>text</th><th>status</th>"
                f"<th>battle</th></tr>{tasks}</table>")
        return _doc("Submit a task", body)

    @staticmethod
    def _battle_link(battle_id: str, annotator: str) -> str:
        if not battle_id:
            return ""
        return f"<a href='/battle/{_esc(battle_id)}{_who(annotator)}'>{_esc(battle_id)}</a>"

    def battle_page(self, record: BattleRecord, annotator: str, notice: str = "") -> bytes:
        mine = self.store.vote_of(record.battle_id, annotator)
        annotations = {(a.side, a.step): a for a in self.store.annotations(record.battle_id)
                       if a.annotator == annotator}
        sides = []
        for tag, label, path in (("a", "Left", record.trace_a), ("b", "Right", record.trace_b)):
            trace = _load_trace(path)
            steps = [self._step_html(record, tag, label, annotator, step, annotations)
                     for step in trace.get("steps", [])]
            final = trace.get("final") or {}
            answer = f"<p><b>Answer:</b> {_esc(final.get('answer', ''))}</p>" if final.get("finished") else ""
            model = f" — {_esc(record.model_a if tag == 'a' else record.model_b)}" if mine else ""
            sides.append(f"<div class='side' id='side-{tag}'><h2>{label}{model}</h2>"
                         f"<img src='/gif/{_esc(record.battle_id)}/{tag}' alt='{label} agent recording'>"
                         f"{answer}{''.join(steps)}</div>")
        count = len(self.store.votes(record.battle_id))
        if mine:
            votes = (f"<p id='vote-result'>Your vote: <b>{_esc(mine.winner)}</b> ({_esc(mine.voter)}); "
                     f"{count} vote(s) on this battle.</p>")
        else:
            buttons = "".join(
                f"<button type='submit' name='winner' value='{value}'>{text}</button>"
                for value, text in (("model_a", "👈 Left is better"), ("model_b", "👉 Right is better"),
                                    ("tie", "🤝 Tie"), ("tie (bothbad)", "👎 Both are bad")))
            votes = (f"<form class='votes' method='post' action='/battle/{_esc(record.battle_id)}/vote'>{buttons}"
                     f"<input type='hidden' name='annotator' value='{_esc(annotator)}'>"
                     "<input name='reason' placeholder='reason (optional)' aria-label='Vote reason'></form>")
        body = (f"{self._nav(annotator)}<h1>Which agent did better?</h1>"
                f"<div class='taskbox'><b>Task:</b> {_esc(record.task_text)}</div>"
                f"{'<p class=note>' + _esc(notice) + '</p>' if notice else ''}{votes}"
                f"<div class='sides'>{''.join(sides)}</div>")
        return _doc(f"Battle {record.battle_id}", body)

    @staticmethod
    def _step_html(record: BattleRecord, tag: str, label: str, annotator: str, step: dict[str, Any],
                   annotations: dict[tuple[str, int], Annotation]) -> str:
        n = int(step.get("step", 0))
        brain = step.get("brain") or {}
        actions = step.get("actions", [])
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
                f"<form method='post' action='/battle/{_esc(record.battle_id)}/annotate'>"
                f"<input type='hidden' name='annotator' value='{_esc(annotator)}'>"
                f"<input type='hidden' name='side' value='{tag}'><input type='hidden' name='step' value='{n}'>"
                f"<label><input type='radio' name='correct' value='1' aria-label='{label} step {n} correct'>"
                "correct</label> "
                f"<label><input type='radio' name='correct' value='0' aria-label='{label} step {n} wrong'>"
                "wrong</label> <span class='note'>wrong fields:</span> " + checks +
                f"<input name='reason' placeholder='why not?' aria-label='{label} step {n} reason'> "
                f"<button type='submit' aria-label='Save {label} step {n}'>Save</button> {state}</form></div>")

    def leaderboard_page(self, annotator: str) -> bytes:
        battles = self.store.voted_battles()
        nav = self._nav(annotator)
        if not battles:
            return _doc("Leaderboard", f"{nav}<h1>Leaderboard</h1><p>No votes yet.</p>")
        board = compute_leaderboard(battles)
        rows = "".join(f"<tr><td>{rank}</td><td>{_esc(model)}</td><td>{rating:.1f}</td>"
                       f"<td>[{lo:.1f}, {hi:.1f}]</td><td>{count}</td></tr>"
                       for rank, model, rating, lo, hi, count in board.rows())
        body = (f"{nav}<h1>Leaderboard</h1>"
                "<table id='leaderboard'><tr><th>rank</th><th>model</th><th>rating</th><th>95% CI</th>"
                f"<th>battles</th></tr>{rows}</table><img src='/leaderboard.png' alt='ratings plot'>"
                f"<pre>{_esc(board.matrix_table('win_fraction'))}\n\n{_esc(board.matrix_table('counts'))}</pre>")
        return _doc("Leaderboard", body)

    def agreement_page(self, annotator: str) -> bytes:
        rows = "".join(
            f"<tr><td>{_esc(r.annotators[0])} / {_esc(r.annotators[1])}</td><td>{r.battles_with_ties}</td>"
            f"<td>{r.agree_with_ties:.1f}</td><td>{r.battles_without_ties}</td><td>{r.agree_without_ties:.1f}</td>"
            f"<td>{r.kappa:.2f}</td></tr>" for r in agreement_rows(self.store.votes()))
        body = (f"{self._nav(annotator)}<h1>Annotator agreement</h1>"
                "<table id='agreement'><tr><th>annotators</th><th>battles</th><th>agree % (with ties)</th>"
                "<th>battles w/o ties</th><th>agree % (w/o ties)</th><th>kappa</th></tr>"
                f"{rows or '<tr><td colspan=6>No battle has votes of two annotators yet.</td></tr>'}</table>")
        return _doc("Agreement", body)

    def leaderboard_png(self) -> bytes:
        buffer = io.BytesIO()
        plot_ratings(compute_leaderboard(self.store.voted_battles()), buffer)
        return buffer.getvalue()


def _who(annotator: str) -> str:
    return f"?annotator={quote(annotator)}" if annotator else ""


def _load_trace(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
        return value if isinstance(value, dict) else {}
    except (OSError, json.JSONDecodeError):
        return {}


class _Handler(BaseHTTPRequestHandler):
    vote_page: VotePage

    def _annotator(self, form: dict[str, str] | None = None) -> str:
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        name = (form or {}).get("annotator") or query.get("annotator") or self.vote_page.voter_name
        return name.strip()[:80] or self.vote_page.voter_name

    def do_GET(self) -> None:  # noqa: N802
        page = self.vote_page
        path = urlsplit(self.path).path
        parts = [p for p in path.split("/") if p]
        who = self._annotator()
        try:
            if not parts:
                return self._send(200, page.index_page(who))
            if parts == ["submit"]:
                return self._send(200, page.submit_page(who))
            if parts == ["leaderboard"]:
                return self._send(200, page.leaderboard_page(who))
            if parts == ["agreement"]:
                return self._send(200, page.agreement_page(who))
            if parts == ["leaderboard.png"]:
                return self._send(200, page.leaderboard_png(), "image/png")
            if parts == ["export", "votes.jsonl"]:
                return self._send(200, votes_jsonl(page.store).encode(), "application/jsonl; charset=utf-8")
            if parts == ["export", "annotations.jsonl"]:
                return self._send(200, annotations_jsonl(page.store).encode(), "application/jsonl; charset=utf-8")
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

    def do_POST(self) -> None:  # noqa: N802
        page = self.vote_page
        parts = [p for p in urlsplit(self.path).path.split("/") if p]
        length = min(int(self.headers.get("Content-Length") or 0), 100_000)
        form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode("utf-8", "replace")).items()}
        who = self._annotator(form)
        if parts == ["submit"]:
            try:
                task_id = page.store.submit_task(form.get("text", ""), start_url=form.get("start_url", "").strip(),
                                                 submitter=who)
            except ValueError as exc:
                return self._send(400, page.submit_page(who, str(exc)))
            if page.on_submit is not None:
                page.on_submit(task_id)
            return self._redirect(f"/submit{_who(who)}")
        if len(parts) != 3 or parts[0] != "battle":
            return self._send(404, _doc("Not found", "<p>Not found.</p>"))
        battle_id = parts[1]
        try:
            if parts[2] == "vote":
                page.store.record_vote(battle_id, form.get("winner", ""), who, form.get("reason", ""))
                return self._redirect(f"/battle/{battle_id}{_who(who)}")
            if parts[2] == "annotate":
                correct = form.get("correct")
                if correct not in ("0", "1"):
                    return self._send(400, page.battle_page(page.store.battle(battle_id), who,
                                                            "Choose correct or wrong before saving."))
                fields = {name: form.get(f"wrong_{name}") != "1" for name in STEP_FIELDS}
                page.store.annotate(Annotation(battle_id, form.get("side", ""), int(form.get("step", "0")),
                                               correct == "1", form.get("reason", "")[:2000], who, fields))
                return self._redirect(f"/battle/{battle_id}{_who(who)}#{form.get('side', 'a')}-step-"
                                      f"{form.get('step', '0')}")
        except KeyError:
            return self._send(404, _doc("Not found", "<p>No such battle.</p>"))
        except ValueError as exc:
            return self._send(400, _doc("Bad request", f"<p>{_esc(exc)}</p>"))
        return self._send(404, _doc("Not found", "<p>Not found.</p>"))

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8") -> None:
        send_body(self, status, body, content_type)

    def _redirect(self, location: str) -> None:
        self.send_response(303)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return
