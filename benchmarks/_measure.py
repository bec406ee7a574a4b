"""Small helpers shared by the benchmark scripts: percentiles, peak memory, machine description."""

from __future__ import annotations

import os
import platform
import resource
import time
from collections.abc import Callable, Sequence

import numpy as np


def percentiles(samples_s: Sequence[float]) -> tuple[float, float]:
    """p50 and p99 in milliseconds."""
    values = np.asarray(samples_s, dtype=np.float64) * 1000.0
    return float(np.percentile(values, 50)), float(np.percentile(values, 99))


def time_calls(fn: Callable[[], object], repeats: int) -> list[float]:
    """Wall time of each of ``repeats`` calls, in seconds."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def peak_rss_mb() -> float:
    """Peak resident memory of this process (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def process_tree(pid: int | None = None) -> list[int]:
    """``pid`` (default: this process) and all its descendants, read from /proc."""
    root = pid or os.getpid()
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(children.get(current, []))
    return found


def _sum_field_mb(pids: list[int], path: str, field: str) -> float:
    total_kb = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/{path}") as handle:
                total_kb += sum(int(line.split()[1]) for line in handle if line.startswith(field))
        except (OSError, ValueError, IndexError):
            continue
    return total_kb / 1024.0


def tree_rss_mb(pid: int | None = None) -> float:
    """Current resident memory of a process and all its descendants (MB; shared pages counted per process)."""
    return _sum_field_mb(process_tree(pid), "status", "VmRSS:")


def tree_pss_mb(pid: int | None = None) -> float:
    """Proportional set size of a process and its descendants (MB; shared pages split among their sharers)."""
    return _sum_field_mb(process_tree(pid), "smaps_rollup", "Pss:")


def machine() -> str:
    """One line describing the machine the figures come from."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {mem_gb:.0f} GiB, Python {platform.python_version()}"


def cpu_reference_s(repeats: int = 3) -> float:
    """Best of ``repeats`` timings of a pure-Python loop of 10 million additions (seconds).

    Shared virtual machines run at different speeds from hour to hour; printing this next to the figures lets two
    runs be compared (about 0.5 s on a recent desktop core; 1.4 to 2.3 s on the 2-core machine of docs/performance.md).
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.perf_counter() - start)
    return best
