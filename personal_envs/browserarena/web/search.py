"""Seekr, the local search engine: web results, a cache of pages, a flights vertical and a JSON search API.

* ``/search?q=`` web results; each result has a "Cached" link.  A query ``cache:<url>`` opens the cached copy.
* ``/cache?url=`` the cached copy of a page (rendered internally, so no captcha).
* ``/travel?from=&to=&date=`` "Seekr Flights": SkyRoute's flight offers inside the search engine.
* ``/api/search?q=`` the same results as JSON (used by the ``search_api`` action of the DirectNavigation env).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from personal_envs.browserarena.web import hosts
from personal_envs.browserarena.web.facts import real_facts
from personal_envs.browserarena.web.html import esc, page, q
from personal_envs.browserarena.web.mirrors import inject_banner
from personal_envs.browserarena.web.server import LocalWeb, Request, Response, Site, not_found
from personal_envs.browserarena.web.world import (
    CITIES,
    NEWS_SECTIONS,
    all_headlines,
    article_text,
    encyclopedia_entities,
    flight_offers,
)

RESULTS_PER_PAGE = 8


@dataclass(frozen=True)
class Document:
    """One indexed page."""

    url: str
    title: str
    text: str


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@lru_cache(maxsize=1)
def static_index() -> tuple[Document, ...]:
    """Pages of the local web the engine knows about."""
    docs = [
        Document(f"http://{hosts.TRAVEL_HOST}/", f"{hosts.TRAVEL_BRAND} - Cheap flights, hotels and car rentals",
                 "Compare flights hotels rental cars travel deals booking skyroute"),
        Document(f"http://{hosts.TRAVEL_MOBILE_HOST}/", f"{hosts.TRAVEL_BRAND} Mobile",
                 "SkyRoute mobile site flights hotels cars on the go"),
        Document(f"http://{hosts.TRAVEL_COUNTRY_HOST}/", f"{hosts.TRAVEL_BRAND} UK - flights and hotels",
                 "SkyRoute United Kingdom flights hotels cars prices in pounds"),
        Document(f"http://{hosts.COMPETITOR_HOST}/", f"{hosts.COMPETITOR_BRAND} - find flights, hotels and cars",
                 "FlyFinder travel search flights hotels rental cars compare"),
        Document(f"http://{hosts.SEARCH_HOST}/travel", f"{hosts.SEARCH_BRAND} Flights",
                 "Seekr Flights search flights between cities travel integration"),
        Document(f"http://{hosts.ARCHIVE_HOST}/", "Web Archive - snapshots of the web",
                 "archive wayback snapshots saved pages history"),
        Document(f"http://{hosts.TEXT_PROXY_HOST}/", "Text-only view of any web page",
                 "text only render plain text proxy textise"),
        Document(f"http://{hosts.PUBLIC_PROXY_HOST}/", "AllOrigins-style public proxy",
                 "public proxy cors fetch any page allorigins"),
        Document(f"http://{hosts.NEWS_HOST}/", f"{hosts.NEWS_BRAND} - news", "daily herald news headlines sections "
                 + " ".join(NEWS_SECTIONS)),
        Document(f"http://{hosts.WIKI_HOST}/wiki/Main_Page", f"{hosts.WIKI_BRAND}, the free encyclopedia",
                 "openpedia encyclopedia articles landmarks"),
    ]
    for section in NEWS_SECTIONS:
        items = all_headlines()[section]
        docs.append(Document(f"http://{hosts.NEWS_HOST}/section/{section}",
                             f"{section.capitalize()} | {hosts.NEWS_BRAND}",
                             f"{section} news latest headlines daily herald"))
        for item in items:
            docs.append(Document(f"http://{hosts.NEWS_HOST}/article/{item.article_id}",
                                 f"{item.title} | {hosts.NEWS_BRAND}", f"{section} {item.day}"))
    for entity in encyclopedia_entities():
        docs.append(Document(f"http://{hosts.WIKI_HOST}/wiki/{entity.slug}", f"{entity.title} - {hosts.WIKI_BRAND}",
                             " ".join(article_text(entity))))
    for fact in real_facts():
        docs.append(Document(f"http://{hosts.WIKI_HOST}/wiki/{fact.slug}", f"{fact.title} - {hosts.WIKI_BRAND}",
                             fact.paragraph))
    return tuple(docs)


def search(query: str, limit: int = RESULTS_PER_PAGE) -> list[dict[str, str]]:
    """Ranked results ``{"title", "url", "snippet"}`` for ``query`` (token overlap, titles weigh triple)."""
    words = set(_tokens(query)) - {"the", "a", "of", "in", "on", "to", "and", "for", "what", "is", "was"}
    docs = list(static_index())
    codes = [code for code, city in CITIES.items() if city.lower() in query.lower() or code.lower() in words]
    if len(codes) >= 2 and words & {"flight", "flights", "fly", "airfare"}:
        origin, dest = codes[0], codes[1]
        tail = f"from={origin}&to={dest}&date=2025-07-14"
        route = f"{CITIES[origin]} to {CITIES[dest]} flights"
        docs.extend([
            Document(f"http://{hosts.TRAVEL_HOST}/flights?{tail}", f"{route} | {hosts.TRAVEL_BRAND}",
                     f"cheap flights {route} skyroute"),
            Document(f"http://{hosts.TRAVEL_MOBILE_HOST}/flights?{tail}", f"{route} | {hosts.TRAVEL_BRAND} mobile",
                     f"flights {route} mobile"),
            Document(f"http://{hosts.COMPETITOR_HOST}/flights?{tail}", f"{route} | {hosts.COMPETITOR_BRAND}",
                     f"flights {route} flyfinder"),
            Document(f"http://{hosts.SEARCH_HOST}/travel?{tail}", f"{route} | {hosts.SEARCH_BRAND} Flights",
                     f"flights {route} seekr flights"),
        ])
    scored = []
    for rank, doc in enumerate(docs):
        title_words = set(_tokens(doc.title))
        body_words = set(_tokens(doc.text))
        score = 3 * len(words & title_words) + len(words & body_words)
        if score:
            scored.append((-score, rank, doc))
    scored.sort()
    return [{"title": d.title, "url": d.url, "snippet": d.text[:160]} for _, _, d in scored[:limit]]


def _search_box(value: str = "") -> str:
    return ("<form action='/search' method='get' role='search'>"
            f"<input name='q' aria-label='Search' value='{esc(value)}' size='50'>"
            "<button type='submit'>Seekr Search</button></form>")


class SearchSite(Site):
    """The Seekr search engine."""

    hosts = (hosts.SEARCH_HOST, hosts.SEARCH_WWW_HOST)

    def __init__(self, web: LocalWeb) -> None:
        self.web = web

    def handle(self, request: Request) -> Response:
        path = request.path.rstrip("/") or "/"
        if path == "/":
            return Response(page(hosts.SEARCH_BRAND, f"<h1>{hosts.SEARCH_BRAND}</h1>{_search_box()}"))
        if path == "/search":
            query = request.arg("q").strip()
            if query.lower().startswith("cache:"):
                return self._cache(query[6:].strip())
            return Response(self._results(query))
        if path == "/cache":
            return self._cache(request.arg("url"))
        if path == "/travel":
            return Response(self._travel(request))
        if path == "/api/search":
            query = request.arg("q").strip()
            return Response.json({"query": query, "results": search(query)})
        return not_found(request)

    def _results(self, query: str) -> str:
        results = search(query) if query else []
        items = []
        for result in results:
            items.append(
                f"<div class='card result'><a href='{esc(result['url'])}'>{esc(result['title'])}</a>"
                f"<div class='note'>{esc(result['url'])} · "
                f"<a href='/cache?url={q(result['url'])}'>Cached</a></div><div>{esc(result['snippet'])}</div></div>"
            )
        listing = "".join(items) or "<p>No results found.</p>"
        return page(f"{query} - {hosts.SEARCH_BRAND} Search", f"{_search_box(query)}{listing}")

    def _cache(self, url: str) -> Response:
        if not url:
            return Response(page("Cache", "<p>Give a URL to see its cached copy.</p>"), 400)
        if "://" not in url:
            url = "http://" + url
        url = url.replace("https://", "http://", 1)
        copy = self.web.fetch_internal(url)
        if copy.status >= 400:
            return Response(page("No cached copy", f"<p>{hosts.SEARCH_BRAND} has no cached copy of {esc(url)}.</p>"),
                            404)
        banner = (f"<div class='card' id='cache-banner'>This is {hosts.SEARCH_BRAND}'s cache of {esc(url)}. "
                  "It is a snapshot of the page as it appeared when it was crawled.</div>")
        return Response(inject_banner(copy.text, banner))

    def _travel(self, request: Request) -> str:
        origin, dest, day = request.arg("from").upper(), request.arg("to").upper(), request.arg("date")
        options = "".join(f"<option value='{c}'>{esc(n)} ({c})</option>" for c, n in CITIES.items())
        form = ("<form action='/travel' method='get'>"
                f"<select name='from' aria-label='From'>{options}</select>"
                f"<select name='to' aria-label='To'>{options}</select>"
                "<input name='date' type='date' aria-label='Date' value='2025-07-14'>"
                "<button type='submit'>Find flights</button></form>")
        body = f"<h1>{hosts.SEARCH_BRAND} Flights</h1>{form}"
        if origin in CITIES and dest in CITIES and day:
            offers = flight_offers(origin, dest, day, site="skyroute")
            rows = "".join(f"<tr><td>{esc(o.name)}</td><td>{esc(o.detail)}</td><td>${o.price_usd}</td>"
                           f"<td>via {hosts.TRAVEL_BRAND}</td></tr>" for o in offers)
            body += (f"<h2>{CITIES[origin]} to {CITIES[dest]} on {esc(day)}</h2>"
                     f"<table><tr><th>Airline</th><th>Departure</th><th>Price</th><th>Seller</th></tr>{rows}</table>")
        return page(f"{hosts.SEARCH_BRAND} Flights", body)
