"""Agreement of the project's PersonalWAB search with a real Lucene run as the official code runs it.

The official index was built by ``pyserini.index.lucene`` (``scripts/tools/build_search_index.sh``: JsonCollection,
DefaultLuceneDocumentGenerator, positions, doc vectors and raw documents stored) and is searched by Pyserini's
``LuceneSearcher.search(query)``; its segment says Lucene 9.5.0, the Lucene of Anserini 0.22 (Pyserini 0.22).  This
script runs that stack itself on the same documents (``functions.search_contents`` of every product) through a small
Java bridge (``benchmarks/lucene/PwabLucene.java``) and compares:

* the analyzer: the terms of every document and query, ours against Lucene's;
* the rankings: identical top-10 lists (ids and order), same top hit, mean overlap, and the official result accuracy
  of the search tasks' targets, for the instruction sentences verbatim, their content words, and product titles;
* with ``--official-index DIR`` (the repository's ``envs/pwab/functions/search/indexes``, whose postings and stored
  fields are not in the snapshot): the official term dictionary, per-document lengths and label terms.

Needs Java 11+ and Anserini's fat jar (``pip download --no-deps pyserini==0.22.1`` holds
``pyserini/resources/jars/anserini-0.22.1-fatjar.jar``).

    python3 benchmarks/personalwab_lucene_agreement.py --jar .../anserini-0.22.1-fatjar.jar [--data-dir DIR]
        [--generate '{"n_users": 200}'] [--official-index DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from statistics import mean
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._measure import machine  # noqa: E402
from personal_envs.core.text import query_from_text  # noqa: E402
from personal_envs.personalwab import functions as fn  # noqa: E402
from personal_envs.personalwab.analysis import analyze  # noqa: E402
from personal_envs.personalwab.data import load  # noqa: E402
from personal_envs.personalwab.scoring import official_result_accuracy, target_position  # noqa: E402
from personal_envs.personalwab.search import ProductSearch  # noqa: E402

BRIDGE = Path(__file__).resolve().parent / "lucene" / "PwabLucene.java"


class Lucene:
    """The Java bridge, compiled once into a temporary directory."""

    def __init__(self, jar: str, work: Path) -> None:
        self.jar = jar
        self.classes = work / "classes"
        self.classes.mkdir()
        subprocess.run(["javac", "-d", str(self.classes), "-cp", jar, str(BRIDGE)], check=True)

    def run(self, *args: str) -> None:
        subprocess.run(["java", "-Xmx2g", "-cp", f"{self.jar}:{self.classes}", "PwabLucene", *args], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def index(self, ids: list[str], texts: list[str], work: Path) -> Path:
        """An index built as ``build_search_index.sh`` builds the official one."""
        corpus = work / "corpus"
        corpus.mkdir()
        with open(corpus / "products.jsonl", "w", encoding="utf-8") as out:
            for asin, text in zip(ids, texts, strict=True):
                out.write(json.dumps({"id": asin, "contents": text}) + "\n")
        index = work / "index"
        subprocess.run(["java", "-Xmx2g", "-cp", self.jar, "io.anserini.index.IndexCollection", "-collection",
                        "JsonCollection", "-input", str(corpus), "-index", str(index), "-generator",
                        "DefaultLuceneDocumentGenerator", "-threads", "1", "-storePositions", "-storeDocvectors",
                        "-storeRaw"], check=True, capture_output=True)
        return index

    def lines(self, command: str, inputs: list[str], work: Path, *extra: str) -> list[Any]:
        source, target = work / f"{command}.in.jsonl", work / f"{command}.out.jsonl"
        source.write_text("".join(json.dumps(x) + "\n" for x in inputs), encoding="utf-8")
        self.run(command, *extra, str(source), str(target))
        return [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]


def compare_analyzer(lucene: Lucene, texts: list[str], work: Path) -> None:
    theirs = lucene.lines("analyze", texts, work)
    differ = [(t, a, b) for t, a, b in zip(texts, (analyze(t) for t in texts), theirs, strict=True) if a != b]
    terms = sum(len(b) for b in theirs)
    print(f"analyzer: {len(texts) - len(differ):,} of {len(texts):,} texts ({terms:,} terms) give Lucene's terms")
    for text, ours, lucenes in differ[:5]:
        print(f"  differs: {text[:80]!r}: ours {sorted(Counter(ours) - Counter(lucenes))} "
              f"lucene {sorted(Counter(lucenes) - Counter(ours))}")


def compare_rankings(name: str, mine: list[list[str]], lucene: list[list[str]]) -> None:
    exact = mean(1.0 if a == b else 0.0 for a, b in zip(mine, lucene, strict=True))
    top1 = mean(1.0 if a[:1] == b[:1] else 0.0 for a, b in zip(mine, lucene, strict=True))
    overlap = mean(len(set(a) & set(b)) / max(len(a), len(b), 1) for a, b in zip(mine, lucene, strict=True))
    print(f"{name:34s} {len(mine):5,} queries: identical top-10 {exact:.4f}  same top hit {top1:.4f}  "
          f"mean top-10 overlap {overlap:.4f}")


def official_index_report(lucene: Lucene, index: Path, work: Path) -> None:
    """What the official index's term dictionary and norms say about its documents."""
    terms_file, docs_file = work / "official_terms.jsonl", work / "official_docs.jsonl"
    lucene.run("dump", str(index), str(terms_file), str(docs_file))
    lines = terms_file.read_text(encoding="utf-8").splitlines()
    stats = json.loads(lines[0])
    rows = [json.loads(line) for line in lines[1:]]
    every = sorted(term for term, df, _ in rows if df == stats["docCount"])
    print(f"official index: Lucene {stats['lucene']}, {stats['docCount']:,} documents, {len(rows):,} terms, "
          f"{stats['sumTotalTermFreq'] / stats['docCount']:.1f} terms per document")
    print(f"  terms in every document ({len(every)}): {' '.join(every)}")
    label_terms = sorted({t for label, _ in fn.SEARCH_FIELDS for t in analyze(label)})
    print(f"  our labels' terms ({len(label_terms)}): {' '.join(label_terms)}; equal: {label_terms == every}")
    docs = [json.loads(line) for line in docs_file.read_text(encoding="utf-8").splitlines()]
    print(f"  mean decoded document length {mean(d[2] for d in docs):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", required=True, help="anserini-0.22.1-fatjar.jar (Lucene 9.5.0)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--generate", default="{}", help="generator keyword arguments as JSON")
    parser.add_argument("--official-index", default=None, help="the official index directory (term dictionary)")
    parser.add_argument("--titles", type=int, default=1000, help="product titles used as queries")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    data = load(args.data_dir, **json.loads(args.generate))
    ids = sorted(data.products)
    texts = [fn.search_contents(data.products[asin]) for asin in ids]
    records = [r for split in ("train", "test") for r in data.instructions.get(split, [])]
    query_sets = {
        "instruction sentences verbatim": [str(r["task"]) for r in records],
        "instruction content words": [query_from_text(str(r["task"])) for r in records],
        "product titles": [str(data.products[a]["title"]) for a in ids[: args.titles]],
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        lucene = Lucene(args.jar, work)
        if args.official_index:
            official_index_report(lucene, Path(args.official_index), work)
        print(f"{len(ids):,} products ({data.source})")
        compare_analyzer(lucene, texts + [q for queries in query_sets.values() for q in queries], work)
        start = time.perf_counter()
        index = lucene.index(ids, texts, work)
        print(f"Lucene index built in {time.perf_counter() - start:.0f} s")
        start = time.perf_counter()
        ours = ProductSearch(ids, texts)
        print(f"ProductSearch built in {time.perf_counter() - start:.1f} s")
        everything: tuple[list[list[str]], list[list[str]]] = ([], [])
        for name, queries in query_sets.items():
            hits = lucene.lines("search", queries, work, str(index))
            theirs = [[hit["docid"] for hit in row] for row in hits]
            mine = [ours.search(q, 10) for q in queries]
            compare_rankings(name, mine, theirs)
            everything[0].extend(mine)
            everything[1].extend(theirs)
            if name.startswith("instruction"):
                search = [(i, r) for i, r in enumerate(records) if r["type"] == "search"]

                def accuracy(lists: list[list[str]], search: list[tuple[int, Any]] = search) -> float:
                    return mean(official_result_accuracy(
                        target_position(lists[i], r["target"]["product_info"]["parent_asin"]), len(lists[i]))
                        for i, r in search)

                print(f"{'':34s} {len(search)} search tasks: result accuracy ours {accuracy(mine):.3f}  "
                      f"lucene {accuracy(theirs):.3f}")
        compare_rankings("all", *everything)


if __name__ == "__main__":
    main()
