"""Openpedia, the local encyclopedia: ``/wiki/<Title>`` articles, a main page and a site search."""

from __future__ import annotations

from urllib.parse import unquote

from personal_envs.browserarena.web import hosts
from personal_envs.browserarena.web.facts import fact_by_slug, real_facts
from personal_envs.browserarena.web.html import esc, page, q
from personal_envs.browserarena.web.server import Request, Response, Site
from personal_envs.browserarena.web.world import Entity, article_text, encyclopedia_entities


def _by_slug() -> dict[str, Entity]:
    return {entity.slug.lower(): entity for entity in encyclopedia_entities()}


class WikiSite(Site):
    """The Openpedia encyclopedia."""

    hosts = (hosts.WIKI_HOST,)

    def handle(self, request: Request) -> Response:
        path = unquote(request.path)
        if path in ("/", "/wiki", "/wiki/"):
            return Response.redirect("/wiki/Main_Page")
        if path == "/wiki/Main_Page":
            return Response(self._main())
        if path == "/wiki/Special:Search":
            return self._search(request.arg("search"))
        if path.startswith("/wiki/"):
            entity = _by_slug().get(path[6:].replace(" ", "_").lower())
            fact = fact_by_slug(path[6:])
            if entity is None and fact is not None:
                body = f"{self._box()}<h1>{esc(fact.title)}</h1><p>{esc(fact.paragraph)}</p>"
                return Response(page(f"{fact.title} - {hosts.WIKI_BRAND}", body))
            if entity is None:
                body = (f"<h1>{esc(path[6:])}</h1><p>{hosts.WIKI_BRAND} does not have an article with this exact "
                        f"name. <a href='/wiki/Special:Search?search={q(path[6:])}'>Search for it</a>.</p>")
                return Response(page(f"Not found - {hosts.WIKI_BRAND}", self._box() + body), 404)
            paragraphs = "".join(f"<p>{esc(p)}</p>" for p in article_text(entity))
            infobox = (f"<table class='infobox'><tr><th>Type</th><td>{entity.kind}</td></tr>"
                       f"<tr><th>Location</th><td>{esc(entity.city)}</td></tr>"
                       f"<tr><th>Completed</th><td>{entity.year}</td></tr>"
                       f"<tr><th>Designer</th><td>{esc(entity.architect)}</td></tr>"
                       f"<tr><th>Length</th><td>{entity.length_m} m</td></tr></table>")
            body = f"{self._box()}<h1>{esc(entity.title)}</h1>{infobox}{paragraphs}"
            return Response(page(f"{entity.title} - {hosts.WIKI_BRAND}", body))
        return Response(page("Not found", "<p>Not found.</p>"), 404)

    @staticmethod
    def _box(value: str = "") -> str:
        return ("<form action='/wiki/Special:Search' method='get' role='search'>"
                f"<input name='search' aria-label='Search {hosts.WIKI_BRAND}' value='{esc(value)}'>"
                "<button type='submit'>Search</button></form>")

    def _main(self) -> str:
        links = "".join(f"<li><a href='/wiki/{e.slug}'>{esc(e.title)}</a></li>" for e in encyclopedia_entities())
        links += "".join(f"<li><a href='/wiki/{f.slug}'>{esc(f.title)}</a></li>" for f in real_facts())
        body = (f"{self._box()}<h1>Welcome to {hosts.WIKI_BRAND}</h1><p>The free encyclopedia of landmarks.</p>"
                f"<h2>All articles</h2><ul>{links}</ul>")
        return page(f"{hosts.WIKI_BRAND}, the free encyclopedia", body)

    def _search(self, query: str) -> Response:
        words = [w for w in query.lower().split() if w]
        entity = _by_slug().get(query.strip().replace(" ", "_").lower())
        if entity is not None:
            return Response.redirect(f"/wiki/{entity.slug}")
        fact = fact_by_slug(query.strip())
        if fact is not None:
            return Response.redirect(f"/wiki/{fact.slug}")
        hits = [(e.slug, e.title) for e in encyclopedia_entities()
                if words and all(w in (e.title + " " + " ".join(article_text(e))).lower() for w in words)]
        hits += [(f.slug, f.title) for f in real_facts()
                 if words and all(w in (f.title + " " + f.paragraph).lower() for w in words)]
        items = "".join(f"<li><a href='/wiki/{slug}'>{esc(title)}</a></li>" for slug, title in hits)
        body = f"{self._box(query)}<h1>Search results</h1>" + (f"<ul>{items}</ul>" if hits else "<p>No results.</p>")
        return Response(page(f"Search results - {hosts.WIKI_BRAND}", body))
