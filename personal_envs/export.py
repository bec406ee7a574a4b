"""Results and trajectories as a dataset: one row per episode, for SFT on successful trajectories or offline RL.

``personal-envs export RESULTS --format parquet|hf --out PATH`` reads a results file of ``personal-envs eval`` (the
conversation of each episode comes from its trajectory: the last request an LLM policy sent and the reply, see
:mod:`personal_envs.chat.records`) or a rollouts file of ``personal-envs rollout`` (whose records hold the
conversation), keeps the latest record of each episode, and writes:

* ``parquet``: one Parquet file at ``PATH`` (``datasets.load_dataset("parquet", data_files=PATH)``);
* ``hf``: a Hugging Face dataset folder at ``PATH`` (``datasets.load_from_disk(PATH)``).

Columns (:data:`SCHEMA`): ``env_id``, ``task_id``, ``split``, ``policy``, ``episode``, ``seed``, ``messages`` (the
OpenAI chat format: ``role``, ``content``, ``tool_calls`` with JSON ``arguments``, ``tool_call_id``), ``tools``
(the OpenAI tool schemas, as JSON text: their shapes differ from env to env), ``reward``, ``score``, ``success``,
``steps``, ``metrics`` (JSON text), ``error``.  An episode of a policy without a model has no messages (``[]``).
Both files are written through a temporary path and renamed, so a reader never sees half of one.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from personal_envs.chat.records import episode_messages
from personal_envs.core.errors import InputError
from personal_envs.trajectories.store import load_runs, load_trajectory, split_of, success_of

__all__ = ["FORMATS", "export", "export_rows", "normalized_message"]

#: The output formats.
FORMATS: tuple[str, ...] = ("parquet", "hf")


def _schema() -> Any:
    import pyarrow as pa

    call = pa.struct([("id", pa.string()), ("type", pa.string()),
                      ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())]))])
    message = pa.struct([("role", pa.string()), ("content", pa.string()), ("tool_calls", pa.list_(call)),
                         ("tool_call_id", pa.string())])
    return pa.schema([
        ("env_id", pa.string()), ("task_id", pa.string()), ("split", pa.string()), ("policy", pa.string()),
        ("episode", pa.int64()), ("seed", pa.int64()), ("messages", pa.list_(message)), ("tools", pa.string()),
        ("reward", pa.float64()), ("score", pa.float64()), ("success", pa.bool_()), ("steps", pa.int64()),
        ("metrics", pa.string()), ("error", pa.string()),
    ])


def export(results: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str], fmt: str = "parquet") -> int:
    """Write the episodes of ``results`` to ``out`` in format ``fmt``; returns the number of rows.

    Raises:
        InputError: an unknown format, a missing or unreadable results file, or no episode in it.
    """
    if fmt not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    rows = export_rows(results)
    if not rows:
        raise InputError(f"no episodes in {', '.join(str(path) for path in results)}")
    import pyarrow as pa

    table = pa.Table.from_pylist(rows, schema=_schema())
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, temporary)
        os.replace(temporary, target)
    else:
        import datasets

        datasets.Dataset(datasets.table.InMemoryTable(table)).save_to_disk(str(temporary))
        if target.exists():
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        os.replace(temporary, target)
    return len(rows)


def export_rows(results: Sequence[str | os.PathLike[str]]) -> list[dict[str, Any]]:
    """One row per episode (the latest record of each) of every run in ``results`` (see the module docstring)."""
    rows = []
    for run in load_runs(results):
        for record in run.records:
            trajectory = None if "messages" in record else load_trajectory(run, int(record["episode"]))
            if "messages" in record:
                messages = record.get("messages") or []
                tools = record.get("tools") or []
            else:
                steps = (trajectory or {}).get("steps") or []
                messages = episode_messages(steps)
                tools = (trajectory or {}).get("tools") or []
            task_id = record.get("task_id", (record.get("task_info") or {}).get("task_id"))
            rows.append({
                "env_id": run.env_id, "task_id": None if task_id is None else str(task_id),
                "split": str(record.get("split") or split_of(record)), "policy": run.policy,
                "episode": int(record["episode"]), "seed": record.get("seed"),
                "messages": [normalized_message(message) for message in messages],
                "tools": json.dumps(tools, ensure_ascii=False), "reward": float(record.get("reward") or 0.0),
                "score": float(record.get("score") or 0.0), "success": success_of(record),
                "steps": int(record.get("steps") or 0),
                "metrics": json.dumps(record.get("metrics") or {}, ensure_ascii=False, sort_keys=True),
                "error": str(record.get("error") or ""),
            })
    return rows


def normalized_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A chat message in the export's one shape: text ``content`` (the text parts of a multi-part content, an
    image part as ``[image]``), ``tool_calls`` with JSON-text arguments, ``tool_call_id``."""
    content = message.get("content")
    if isinstance(content, list):
        content = "\n".join(str(part.get("text", "")) if part.get("type") == "text" else "[image]"
                            for part in content if isinstance(part, Mapping))
    calls = []
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        arguments = function.get("arguments")
        calls.append({"id": str(call.get("id") or ""), "type": str(call.get("type") or "function"),
                      "function": {"name": str(function.get("name") or ""),
                                   "arguments": arguments if isinstance(arguments, str)
                                   else json.dumps(arguments or {}, ensure_ascii=False)}})
    tool_call_id = message.get("tool_call_id")
    return {"role": str(message.get("role") or ""), "content": None if content is None else str(content),
            "tool_calls": calls or None, "tool_call_id": None if tool_call_id is None else str(tool_call_id)}
