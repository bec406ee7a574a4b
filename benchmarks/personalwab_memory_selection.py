"""The ``relevant`` memory baseline against the official selection code, task by task.

For every task of the split, the official agents' own ``retrieve_top_k_memories`` (read from the release files
under ``$PERSONAL_ENVS_DATA/personalwab/official``, run with MiniLM through ``transformers``) picks the 10 records of
the visible history; ``HistoryMemory("relevant")`` picks from the env's ``logs``.  Prints how many tasks get the same
10 records in the same order.

    python3 benchmarks/personalwab_memory_selection.py [--data-dir DIR] [--split test] [--official DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._measure import machine  # noqa: E402
from benchmarks._pwab_official import official_memory_code, official_relevant  # noqa: E402
from personal_envs.core.download import data_home  # noqa: E402
from personal_envs.personalwab.env import PersonalWABEnv  # noqa: E402
from personal_envs.personalwab.memory import HistoryMemory  # noqa: E402
from personal_envs.personalwab.official_texts import Release  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--split", default="test")
    parser.add_argument("--official", default=str(data_home() / "personalwab" / "official"))
    args = parser.parse_args()
    official = Path(args.official)
    print(f"machine: {machine()}  release texts: {official}")
    code = official_memory_code(official)
    env = PersonalWABEnv(mode="single", split=args.split, data_dir=args.data_dir)
    memory = HistoryMemory("relevant", k=10, release=Release(official))
    same = same_set = 0
    start = time.perf_counter()
    for index in range(env.num_tasks):
        obs, _ = env.reset(seed=index, options={"task_index": index})
        record = env.tasks[index].record
        history = env.backend.data.history_before(record["user_id"], int(record["timestamp"]))
        theirs = official_relevant(code, record["task"], history)
        ours = [str(r["parent_asin"]) for r in memory.select(obs)]
        same += ours == theirs
        same_set += set(ours) == set(theirs)
    env.close()
    print(f"{env.backend.data.source}, split {args.split}: {same} of {env.num_tasks} tasks pick the official 10 "
          f"records in the official order ({same_set} the same set); {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
