"""What checking files against their schemas costs: load times of the readers that validate what they read.

Measured on files of the official releases' size, written to a temporary folder:

* a PersonalWAB release (generated data in the official layout; ``--users`` users, ``--products`` products; the
  official one has 1,000 users, 35,772 products, 40,648 history entries, 9,070 instructions):
  ``personalwab.data.load_official``;
* a results file of ``--records`` records: ``runner.resumable_records`` (the resume and the viewer's reader);
* the four WebMall product CSVs of the project's catalog: ``webmall.catalog.read_csv_rows``;
* a KnowU persona's profile and clean log: ``knowu.personas.load_profile`` / ``load_logs``.

Run it on two checkouts (``PYTHONPATH=<checkout>``) to compare the readers with and without the checks.

    python -m benchmarks.schema_cost                   # release size (about a minute to generate the data)
    python -m benchmarks.schema_cost --users 100 --products 2000 --records 2000
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def timed(function: Callable[[], Any], repeats: int) -> float:
    """Median wall time of ``repeats`` calls, in seconds."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def write_personalwab(folder: Path, users: int, products: int, tasks_per_user: int) -> dict[str, int]:
    from personal_envs.personalwab.data import generate

    data = generate(seed=0, n_users=users, n_products=products, tasks_per_user=tasks_per_user)
    files = {
        "user_profiles.json": {uid: {"user_profile": p} for uid, p in data.profiles.items()},
        "user_instructions.json": data.instructions,
        "user_history.json": data.histories,
        "all_products.json": data.products,
    }
    for name, value in files.items():
        (folder / name).write_text(json.dumps(value), encoding="utf-8")
    return {"users": len(data.profiles), "products": len(data.products),
            "history entries": sum(len(v) for v in data.histories.values()),
            "instructions": sum(len(v) for v in data.instructions.values()),
            "MB": round(sum((folder / name).stat().st_size for name in files) / 1e6)}


def write_results(path: Path, records: int) -> None:
    lines = []
    for episode in range(records):
        lines.append(json.dumps({
            "env_id": "PersonalWAB-SingleTurn-v0", "episode": episode, "task_index": episode, "task_id": str(episode),
            "seed": episode, "policy": "heuristic", "reward": 1.0, "score": 1.0, "steps": 3,
            "metrics": {"function_accuracy": 1.0, "result_accuracy": 0.9, "task_type": "search"},
            "task_info": {"task_type": "search"}, "runtime_s": 0.5, "error": "",
        }))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--products", type=int, default=35_000)
    parser.add_argument("--tasks-per-user", type=int, default=9)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    import personal_envs
    from personal_envs.knowu.personas import DEFAULT_DIR, load_logs, load_profile
    from personal_envs.personalwab.data import load_official
    from personal_envs.runner import resumable_records
    from personal_envs.webmall.catalog import read_csv_rows
    from personal_envs.webmall.shipped_catalog import write_csvs

    print(f"personal_envs from {Path(personal_envs.__file__).parent}")
    with tempfile.TemporaryDirectory(prefix="schema-cost-") as tmp:
        root = Path(tmp)
        (root / "pwab").mkdir()
        sizes = write_personalwab(root / "pwab", args.users, args.products, args.tasks_per_user)
        print(f"PersonalWAB release: {', '.join(f'{v:,} {k}' for k, v in sizes.items())}")
        seconds = timed(lambda: load_official(root / "pwab"), args.repeats)
        print(f"  load_official: {seconds:.2f} s")

        write_results(root / "r.jsonl", args.records)
        seconds = timed(lambda: resumable_records(root / "r.jsonl", warn=False), args.repeats)
        print(f"results file, {args.records:,} records: {seconds * 1000:.0f} ms "
              f"({seconds / args.records * 1e6:.1f} us per record)")

        csvs = write_csvs(root / "wm")
        rows = sum(len(read_csv_rows(path)) for path in csvs)
        seconds = timed(lambda: [read_csv_rows(path) for path in csvs], args.repeats)
        print(f"WebMall CSVs, {rows:,} rows: {seconds * 1000:.0f} ms")

        profile = DEFAULT_DIR / "user_profile" / "engineer.yaml"
        seconds = timed(lambda: load_profile(profile), args.repeats * 10)
        print(f"KnowU profile {profile.name} ({profile.stat().st_size / 1e3:.1f} kB): {seconds * 1000:.1f} ms")
        logs = DEFAULT_DIR / "user_logs" / "engineer.json"
        seconds = timed(lambda: load_logs(logs), args.repeats * 10)
        print(f"KnowU log {logs.name} ({logs.stat().st_size / 1e3:.1f} kB): {seconds * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
