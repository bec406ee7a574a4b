"""How fast ``personal-envs eval --policy llm`` ends against endpoints that misbehave (real loopback servers).

For each fault the eval command runs in a subprocess, as a user would run it; the script prints its exit status,
its wall time, the records it wrote, the chat requests the server received, and the one error line.

    python -m benchmarks.llm_faults [--timeout 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from personal_envs.llm.testing import ScriptedChatServer

REPO = Path(__file__).resolve().parents[1]
ENV = "PersonalWAB-SingleTurn-v0"
SEARCH = {"tool_calls": [{"name": "search_product_by_query", "arguments": {"query": "usb cable"}}]}

FAULTS: dict[str, dict[str, Any] | None] = {
    "200 that is not JSON": {"raw_body": "<html>proxy login</html>"},
    "no choices": {"raw_body": json.dumps({"id": "x", "object": "chat.completion"})},
    "HTTP 500": {"status": 500, "message": "out of memory"},
    "hung (accepts, never answers)": {"sleep": 3600, "content": "never"},
    "dead port": None,
}


def run(fault: str, reply: dict[str, Any] | None, workers: int, timeout: float, folder: Path) -> str:
    server = ScriptedChatServer(lambda request: reply or SEARCH).start()
    url = server.base_url
    if reply is None:
        server.close()
    out = folder / f"{len(list(folder.iterdir()))}.jsonl"
    command = [sys.executable, "-m", "personal_envs", "eval", "--env", ENV, "--policy", "llm", "--episodes", "6",
               "--workers", str(workers), "--out", str(out), "--no-progress", "--no-trajectories",
               "--env-kwargs", json.dumps({"task_type": "search"}),
               "--policy-kwargs", json.dumps({"base_url": url, "model": "m", "timeout": timeout})]
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=1800)
    elapsed = time.perf_counter() - started
    requests = len(server.requests)
    server.close()
    records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    scored = sum(1 for r in records if r.get("score") is not None)
    return (f"| {fault} | {workers} | {result.returncode} | {elapsed:.1f} | {len(records)} ({scored} scored) | "
            f"{requests} | {(errors or ['(none)'])[0][:110]} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=5.0, help="the policy's request timeout (s)")
    args = parser.parse_args()
    print(f"eval --env {ENV} --policy llm --episodes 6, request timeout {args.timeout:g} s")
    print("| fault | workers | exit | seconds | records | chat requests | error line |")
    print("| --- | ---: | ---: | ---: | --- | ---: | --- |")
    with tempfile.TemporaryDirectory() as folder:
        for fault, reply in FAULTS.items():
            for workers in (1, 2):
                print(run(fault, reply, workers, args.timeout, Path(folder)), flush=True)


if __name__ == "__main__":
    main()
