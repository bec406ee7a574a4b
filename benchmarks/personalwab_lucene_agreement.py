"""Rank agreement of the project's Lucene-style BM25 with a real Lucene (Anserini, as Pyserini runs it).

Builds an Anserini index over the same ``contents`` (JsonCollection, default English analyzer) and runs the same
queries with ``-bm25`` (k1 = 0.9, b = 0.4, top 10), then compares each top-10 list with ``ProductSearch``: exact
list match, same top hit, mean overlap of the top 10 and the official result accuracy of the search tasks' targets.
Needs a JDK and Anserini's fat jar (e.g. from ``pip install --no-deps pyserini==0.21.0``, which works with Java 17).

    python3 benchmarks/personalwab_lucene_agreement.py --jar .../anserini-0.21.0-fatjar.jar [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import mean

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._measure import machine  # noqa: E402
from personal_envs.core.text import query_from_text  # noqa: E402
from personal_envs.personalwab import functions as fn  # noqa: E402
from personal_envs.personalwab.data import load  # noqa: E402
from personal_envs.personalwab.scoring import official_result_accuracy, target_position  # noqa: E402
from personal_envs.personalwab.search import ProductSearch  # noqa: E402


def lucene_runs(jar: str, ids: list[str], texts: list[str], queries: list[str], work: Path) -> list[list[str]]:
    corpus = work / "corpus"
    corpus.mkdir()
    with open(corpus / "docs.jsonl", "w", encoding="utf-8") as out:
        for asin, text in zip(ids, texts, strict=True):
            out.write(json.dumps({"id": asin, "contents": text}) + "\n")
    subprocess.run(["java", "-cp", jar, "io.anserini.index.IndexCollection", "-collection", "JsonCollection",
                    "-input", str(corpus), "-index", str(work / "index"), "-generator",
                    "DefaultLuceneDocumentGenerator", "-threads", "1", "-storeRaw"],
                   check=True, capture_output=True)
    topics = work / "topics.tsv"
    topics.write_text("".join(f"{i}\t{' '.join(q.split()) or 'zzzz'}\n" for i, q in enumerate(queries)),
                      encoding="utf-8")
    run = work / "run.txt"
    subprocess.run(["java", "-cp", jar, "io.anserini.search.SearchCollection", "-index", str(work / "index"),
                    "-topics", str(topics), "-topicreader", "TsvInt", "-output", str(run), "-bm25",
                    "-hits", "10", "-threads", "1"], check=True, capture_output=True)
    results: list[list[str]] = [[] for _ in queries]
    for line in run.read_text(encoding="utf-8").splitlines():
        qid, _, docid, _rank, _score, _tag = line.split()
        results[int(qid)].append(docid)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", required=True)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    data = load(args.data_dir)
    ids = sorted(data.products)
    texts = [fn.search_contents(data.products[asin]) for asin in ids]
    records = [r for split in ("train", "test") for r in data.instructions.get(split, [])]
    queries = [query_from_text(r["task"]) for r in records]
    queries += [str(data.products[a]["title"]) for a in ids[:500]]
    ours = ProductSearch(ids, texts)
    with tempfile.TemporaryDirectory() as tmp:
        lucene = lucene_runs(args.jar, ids, texts, queries, Path(tmp))
    mine = [ours.search(q, 10) for q in queries]
    exact = mean(1.0 if a == b else 0.0 for a, b in zip(mine, lucene, strict=True))
    top1 = mean(1.0 if a[:1] == b[:1] else 0.0 for a, b in zip(mine, lucene, strict=True))
    overlap = mean(len(set(a) & set(b)) / max(len(a), len(b), 1) for a, b in zip(mine, lucene, strict=True))
    print(f"{len(ids):,} products, {len(queries):,} queries (instruction content words and product titles)")
    print(f"identical top-10 lists {exact:.3f}  same top hit {top1:.3f}  mean top-10 overlap {overlap:.3f}")
    search = [(i, r) for i, r in enumerate(records) if r["type"] == "search"]
    if search:
        def accuracy(lists: list[list[str]]) -> float:
            return mean(official_result_accuracy(target_position(lists[i], r["target"]["product_info"]["parent_asin"]),
                                                 len(lists[i])) for i, r in search)
        print(f"search tasks {len(search)}: result accuracy ours {accuracy(mine):.3f}  lucene {accuracy(lucene):.3f}")


if __name__ == "__main__":
    main()
