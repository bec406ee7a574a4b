"""The trajectory viewer: a run page (paper table, episode list with filters), episode pages and side-by-side pages.

:class:`ViewerSite` renders every page of one or more runs as HTML whose data is embedded in the page, so the same
pages are served on loopback by :func:`serve` (``personal-envs view RUN``), written to a folder by :meth:`export`
(``personal-envs view RUN --export DIR``) and shown inline in Jupyter by :func:`show_episode`.

URL layout (the same in the server and in an export)::

    index.html                          runs, tables and the episode list
    r<run>/episode_<n>/index.html       one episode
    r<run>/episode_<n>/images/<file>    its screenshots
    compare/r<a>e<n>-r<b>e<m>/index.html  two episodes of the same task side by side
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from importlib import resources
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError
from personal_envs.core.http import LoopbackServer, send_body
from personal_envs.core.http_guard import host_allowed
from personal_envs.run_records import Warn, print_warning
from personal_envs.trajectories.recorder import episode_dirname
from personal_envs.trajectories.store import (
    Run,
    category_of,
    load_runs,
    load_trajectory,
    split_of,
    success_of,
)

_EPISODE_PATH = re.compile(r"^/r(\d+)/episode_(\d+)/(index\.html|images/[\w.-]+)$")
#: A screenshot's name in a trajectory: a file of the episode's ``images`` folder (nothing outside it).
_IMAGE_NAME = re.compile(r"^images/(?!\.\.?$)[\w.-]+$")
_COMPARE_PATH = re.compile(r"^/compare/r(\d+)e(\d+)-r(\d+)e(\d+)/index\.html$")


def _static(name: str) -> str:
    return resources.files("personal_envs.trajectories").joinpath("static", name).read_text(encoding="utf-8")


def _json_for_script(value: Any) -> str:
    """JSON safe inside a ``<script>`` element."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")


def _script_hash(code: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(scripts: Sequence[str]) -> str:
    """The pages' Content-Security-Policy: only the page's own inline scripts (by hash) run, images come from the
    viewer itself or ``data:`` URLs, nothing else loads.  A field that escaped escaping still cannot run script."""
    hashes = " ".join(_script_hash(code) for code in scripts)
    return (f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src 'self' data: file:; "
            "base-uri 'none'; form-action 'none'")


def _page(title: str, body: str, data: Any = None, *, root: str | None = "") -> str:
    scripts = ([f"window.PE_DATA = {_json_for_script(data)};"] if data is not None else []) + [_static("viewer.js")]
    home = f'<a href="{root}index.html">all episodes</a>' if root is not None else ""
    policy = html.escape(content_security_policy(scripts), quote=True)
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{policy}\">"
        f"<title>{html.escape(title)}</title><style>{_static('viewer.css')}</style>"
        + "".join(f"<script>{code}</script>" for code in scripts) + "</head><body>"
        f"<header class='top'><h1>{html.escape(title)}</h1>{home}</header><main>{body}</main></body></html>"
    )


def _text(value: Any) -> str:
    """Any value of a results line or a side file as escaped HTML text."""
    return html.escape("" if value is None else str(value), quote=True)


def _number(value: Any) -> float:
    """A numeric field as a float (0.0 when the file holds something else)."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def _size_note(info: dict[str, Any] | None) -> str:
    """The ``size.json`` line of a run (empty when the run has no valid one: :meth:`Run.size` warned then)."""
    if info is None:
        return ""
    return (f"<div class='kbd'>trajectories: {_text(info.get('episodes'))} episodes, "
            f"{_number(info.get('bytes', 0)) / 1e6:.2f} MB "
            f"({_number(info.get('bytes_per_episode', 0)) / 1e3:.0f} kB per episode)</div>")


@dataclass(frozen=True)
class EpisodeRow:
    """One line of the episode list."""

    run: int
    record: dict[str, Any]

    @property
    def episode(self) -> int:
        return int(self.record["episode"])


class ViewerSite:
    """Every page of the viewer for ``runs`` (see the module docstring for the URLs)."""

    def __init__(self, runs: Sequence[Run], warn: Warn = print_warning) -> None:
        if not runs:
            raise InputError("no runs to show")
        self.runs = list(runs)
        #: Where problems with the trajectory files go (default: ``warning: ...`` on stderr).
        self.warn = warn
        self._reported: set[tuple[int, int]] = set()

    # ----------------------------------------------------------------------------------------------- pages
    def rows(self) -> list[EpisodeRow]:
        """Every episode of every run."""
        return [EpisodeRow(i, record) for i, run in enumerate(self.runs) for record in run.records]

    def comparisons(self) -> dict[tuple[int, int], list[tuple[int, int]]]:
        """For each (run, episode), the (run, episode) pairs of other runs with the same env id and task id."""
        by_task: dict[tuple[str, str], list[tuple[int, int]]] = {}
        for row in self.rows():
            key = (self.runs[row.run].env_id, str(row.record.get("task_id")))
            by_task.setdefault(key, []).append((row.run, row.episode))
        out: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for members in by_task.values():
            for member in members:
                out[member] = [m for m in members if m[0] != member[0]]
        return out

    def index_html(self) -> str:
        """The run page: each run's paper table and the filterable episode list."""
        from personal_envs.runner import report

        parts: list[str] = []
        for i, run in enumerate(self.runs):
            try:
                table = report(run.env_id, run.records)
            except Exception as exc:  # a report that cannot be built must not hide the episodes
                table = f"(no table: {type(exc).__name__}: {exc})"
            size = _size_note(run.size())
            parts.append(f"<h2 id='run{i}'>r{i}: {html.escape(run.env_id)} / {html.escape(run.policy)} "
                         f"<span class='kbd'>{html.escape(str(run.results))}</span></h2>"
                         f"<pre class='paper-table'>{html.escape(table)}</pre>{size}")
        rows = self.rows()
        options = {
            "category": sorted({category_of(r.record) for r in rows}),
            "split": sorted({split_of(r.record) for r in rows}),
        }
        selects = "".join(
            f"<label>{name}<select data-filter='{name}'><option value=''>any</option>"
            + "".join(f"<option>{html.escape(v)}</option>" for v in values) + "</select></label>"
            for name, values in options.items()
        )
        filters = (
            "<div class='filters'><label>task<input data-filter='task' placeholder='task id contains'></label>"
            f"{selects}"
            "<label>success<select data-filter='success'><option value=''>any</option><option>yes</option>"
            "<option>no</option></select></label>"
            "<label>error<select data-filter='error'><option value=''>any</option><option value='run'>run error"
            "</option><option value='action'>action errors</option><option value='none'>none</option></select>"
            "</label>"
            f"<label>run<select data-filter='run'><option value=''>any</option>"
            + "".join(f"<option value='r{i}'>r{i} {html.escape(r.policy)}</option>" for i, r in enumerate(self.runs))
            + "</select></label><span>shown: <b id='shown'>0</b></span></div>"
        )
        comparisons = self.comparisons()
        lines = []
        for row in rows:
            run, record = self.runs[row.run], row.record
            success = success_of(record)
            action_errors = run.summary(row.episode).get("action_errors", 0)
            error_kind = "run" if record.get("error") else ("action" if action_errors else "none")
            link = (f"<a href='r{row.run}/{episode_dirname(row.episode)}/index.html'>episode {row.episode}</a>"
                    if run.has_trajectory(row.episode) else f"episode {row.episode} (no trajectory)")
            compare = " ".join(
                f"<a class='compare' href='compare/r{row.run}e{row.episode}-r{o_run}e{o_ep}/index.html'>"
                f"vs r{o_run}</a>" for o_run, o_ep in comparisons.get((row.run, row.episode), [])
                if run.has_trajectory(row.episode) and self.runs[o_run].has_trajectory(o_ep)
            )
            task = str(record.get("task_id"))
            lines.append(
                f"<tr data-task='{html.escape(task)}' data-category='{html.escape(category_of(record))}' "
                f"data-split='{html.escape(split_of(record))}' data-success='{'yes' if success else 'no'}' "
                f"data-error='{error_kind}' data-run='r{row.run}'>"
                f"<td>r{row.run}</td><td>{link}</td><td>{html.escape(task)}</td>"
                f"<td>{html.escape(category_of(record))}</td><td>{html.escape(split_of(record))}</td>"
                f"<td class='{'ok' if success else 'bad'}'>{_number(record.get('score')):.3f}</td>"
                f"<td>{_text(record.get('steps', ''))}</td>"
                f"<td class='bad'>{html.escape(str(record.get('error') or '').splitlines()[0][:120]) if record.get('error') else ''}"
                f"</td><td>{compare}</td></tr>"
            )
        table_html = ("<table id='episodes'><thead><tr><th>run</th><th>episode</th><th>task</th><th>category</th>"
                      "<th>split</th><th>score</th><th>steps</th><th>error</th><th>compare</th></tr></thead><tbody>"
                      + "".join(lines) + "</tbody></table>")
        return _page("personal-envs runs", "".join(parts) + "<h2>Episodes</h2>" + filters + table_html, root=None)

    def episode_html(self, run_index: int, episode: int, *, inline_images: bool = False) -> str | None:
        """One episode's page (``None`` if it has no trajectory)."""
        run = self.runs[run_index]
        try:
            trajectory = load_trajectory(run, episode)
        except InputError as exc:
            return self._unreadable_page(run_index, episode, exc, root=None if inline_images else "../../")
        if trajectory is None:
            return None
        if inline_images:
            trajectory = _inline_images(trajectory, run.episode_dir(episode))
        view = {"traj": trajectory, "base": "", "title": f"r{run_index}: {run.env_id} / {run.policy} / episode "
                                                             f"{episode}"}
        return _page(f"{run.env_id} episode {episode}", "<div id='views' class='views'></div>",
                     {"views": [view]}, root=None if inline_images else "../../")

    def compare_html(self, left: tuple[int, int], right: tuple[int, int]) -> str | None:
        """Two episodes side by side (the keys step both)."""
        views: list[dict[str, Any]] = []
        titles: list[str] = []
        for run_index, episode in (left, right):
            run = self.runs[run_index]
            try:
                trajectory = load_trajectory(run, episode)
            except InputError as exc:
                return self._unreadable_page(run_index, episode, exc, root="../../")
            if trajectory is None:
                return None
            titles.append(str(trajectory.get("task_id")))
            views.append({"traj": trajectory, "base": f"../../r{run_index}/{episode_dirname(episode)}/",
                          "title": f"r{run_index}: {run.policy} / episode {episode}"})
        title = f"{self.runs[left[0]].env_id}: {titles[0]} side by side"
        return _page(title, "<div id='views' class='views'></div>", {"views": views}, root="../../")

    def _unreadable_page(self, run_index: int, episode: int, problem: InputError, *, root: str | None) -> str:
        """The page of an episode whose trajectory cannot be read: what is wrong, reported once as a warning too."""
        key = (run_index, episode)
        if key not in self._reported:
            self._reported.add(key)
            self.warn(f"{problem}; its episode page says so")
        run = self.runs[run_index]
        body = (f"<p class='bad'>The trajectory of r{run_index} episode {episode} cannot be shown: "
                f"{html.escape(str(problem))}</p><p>The episode's record in the results file is not affected.</p>")
        return _page(f"{run.env_id} episode {episode}", body, root=root)

    # ---------------------------------------------------------------------------------------------- routing
    def resolve(self, path: str) -> tuple[bytes, str] | None:
        """The body and content type of ``path`` (a URL path), or ``None`` for an unknown page."""
        path = path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            return self.index_html().encode(), "text/html; charset=utf-8"
        match = _EPISODE_PATH.match(path)
        if match:
            run_index, episode, rest = int(match[1]), int(match[2]), match[3]
            if run_index >= len(self.runs):
                return None
            if rest == "index.html":
                page = self.episode_html(run_index, episode)
                return None if page is None else (page.encode(), "text/html; charset=utf-8")
            file = self.runs[run_index].episode_dir(episode) / rest
            if file.is_file():
                kind = "image/png" if file.suffix == ".png" else "image/jpeg"
                return file.read_bytes(), kind
            return None
        match = _COMPARE_PATH.match(path)
        if match:
            a, ea, b, eb = (int(g) for g in match.groups())
            if max(a, b) >= len(self.runs):
                return None
            page = self.compare_html((a, ea), (b, eb))
            return None if page is None else (page.encode(), "text/html; charset=utf-8")
        return None

    def export(self, directory: str | os.PathLike[str]) -> Path:
        """Write every page and screenshot to ``directory`` (static HTML, open ``index.html``); return it."""
        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        (target / "index.html").write_text(self.index_html(), encoding="utf-8")
        for row in self.rows():
            page = self.episode_html(row.run, row.episode)
            if page is None:
                continue
            folder = target / f"r{row.run}" / episode_dirname(row.episode)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "index.html").write_text(page, encoding="utf-8")
            images = self.runs[row.run].episode_dir(row.episode) / "images"
            if images.is_dir():
                shutil.copytree(images, folder / "images", dirs_exist_ok=True)
        for (a, ea), others in self.comparisons().items():
            for b, eb in others:
                page = self.compare_html((a, ea), (b, eb))
                if page is not None:
                    folder = target / "compare" / f"r{a}e{ea}-r{b}e{eb}"
                    folder.mkdir(parents=True, exist_ok=True)
                    (folder / "index.html").write_text(page, encoding="utf-8")
        return target


def _inline_images(trajectory: dict[str, Any], episode_dir: Path) -> dict[str, Any]:
    """A copy of ``trajectory`` whose screenshot paths are ``data:`` URLs (for pages without a server)."""
    cache: dict[str, str] = {}

    def inline(observation: dict[str, Any]) -> None:
        for value in observation.values():
            if isinstance(value, dict) and isinstance(value.get("image"), str):
                name = value["image"]
                if name not in cache:
                    cache[name] = _data_url(episode_dir, name)
                value["image"] = cache[name]

    copy = json.loads(json.dumps(trajectory))
    inline(copy.get("initial_observation") or {})
    for step in copy.get("steps", []):
        inline(step.get("observation") or {})
    return copy


def _data_url(episode_dir: Path, name: str) -> str:
    """A screenshot of the episode's ``images`` folder as a ``data:`` URL ("" for any other name or a missing file:
    a trajectory cannot make the page embed a file from elsewhere)."""
    if not _IMAGE_NAME.match(name):
        return ""
    try:
        data = (episode_dir / name).read_bytes()
    except OSError:
        return ""
    return "data:image/jpeg;base64," + base64.b64encode(data).decode()


def _handler_for(site: ViewerSite, host_names: tuple[str, ...] = ()) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if not host_allowed(self.headers.get("Host", ""), host_names):  # a rebound foreign domain
                send_body(self, 403, b"this viewer answers only to this machine's names", "text/plain; charset=utf-8")
                return
            found = site.resolve(self.path)
            if found is None:
                send_body(self, 404, b"not found", "text/plain; charset=utf-8")
            else:
                send_body(self, 200, found[0], found[1], {"X-Content-Type-Options": "nosniff"})

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's signature)
            return

    return Handler


def serve(runs: Sequence[Run], *, host: str = "127.0.0.1", port: int = 0) -> LoopbackServer:
    """Serve the viewer of ``runs`` on ``host:port`` from a background thread (close the returned server)."""
    return LoopbackServer(_handler_for(ViewerSite(runs), (host,)), "trajectory-viewer-{port}", host=host, port=port)


class EpisodeHTML:
    """An episode view for Jupyter: displays itself inline (``_repr_html_``), in an isolated ``<iframe>``."""

    def __init__(self, page: str, height: int = 900) -> None:
        #: The full standalone page (screenshots inlined); save it to a ``.html`` file to share.
        self.page = page
        self.height = height

    def _repr_html_(self) -> str:
        # sandboxed: the page runs its own scripts in an opaque origin, never with the notebook's origin
        return (f"<iframe sandbox=\"allow-scripts\" srcdoc=\"{html.escape(self.page, quote=True)}\" "
                f"style=\"width:100%;"
                f"height:{self.height}px;border:1px solid #ccc\"></iframe>")


def show_episode(results: str | os.PathLike[str], episode: int = 0, *, env_id: str | None = None,
                 policy: str | None = None, height: int = 900) -> EpisodeHTML:
    """The viewer's episode page for ``episode`` of a results file, to display inline in Jupyter.

    Args:
        results: The results file of ``personal-envs eval`` (its trajectories directory sits beside it).
        episode: Episode number.
        env_id: Which env id of the file (default: the first).
        policy: Which policy of the file (default: the first).
        height: Height of the inline frame in pixels.
    """
    runs = [r for r in load_runs([results]) if (env_id is None or r.env_id == env_id)
            and (policy is None or r.policy == policy)]
    if not runs:
        raise ValueError(f"no run for env_id={env_id!r} policy={policy!r} in {results}")
    page = ViewerSite(runs[:1]).episode_html(0, episode, inline_images=True)
    if page is None:
        raise FileNotFoundError(f"episode {episode} of {runs[0].key} has no trajectory in {runs[0].trajectory_dir}")
    return EpisodeHTML(page, height)
