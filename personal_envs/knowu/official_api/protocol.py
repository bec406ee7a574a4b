"""What the official KnowU / MobileWorld server API looks like (``core/server.py`` and ``runtime/client.py`` of
ZJU-REAL/KnowU-Bench at 0dd7989), as facts both our server and our client use.

Routes: ``GET /health`` -> ``{"ok", "devices", "device_status"}``; ``POST /init {"device"}`` ->
``{"device", "viewport_size"}``; ``GET /screenshot?device&return_b64=true`` -> ``{"device", "path", "b64_png"}``;
``GET /xml?device&mode=uia&return_content=true`` -> ``{"device", "mode", "path", "content"}``;
``POST /step {"device", "action"}`` -> ``{"device", "action", "result"}`` (``ask_user``'s result is the user's
reply); ``GET /task/list`` -> ``[{"name", "tags", "apps"}]``; ``GET /task/goal?task_name`` -> the goal string;
``GET /task/metadata?task_name``; ``POST /task/init {"task_name", "req_device"}`` -> ``"OK"``;
``GET /task/eval`` with a JSON body ``{"task_name", "req_device", "actions"?}`` -> ``{"score", "reason"?}``;
``POST /task/tear_down``; ``GET /task/complexity?task_name``; ``POST /suite_family/switch?target_family&user_log_mode
&rag_top_k&rag_backend&user_log_source`` -> ``{"message", "suite_family", "switched"}``.  Errors are HTTP 4xx/5xx with ``{"detail"}``.
"""

from __future__ import annotations

from typing import Any

DEFAULT_DEVICE = "emulator-5554"
#: The official server's port inside its image, and the official image (``runtime/utils/models.py``).
SERVER_PORT = 6800
OFFICIAL_IMAGE = "ghcr.io/yaosqz/knowu-bench:latest"
#: Ports the official launcher publishes: backend, viewer, VNC, ADB (``core/api/env.py``).
OFFICIAL_PORTS = {6800: 6800, 7860: 7860, 5800: 5800, 5556: 5556}

#: Keys of the official JSON action (``JSONAction``); everything else in an action is dropped.
ACTION_KEYS = ("action_type", "index", "x", "y", "text", "direction", "app_name", "goal_status",
               "start_x", "start_y", "end_x", "end_y")
#: The family tag of each of our splits (the official classes carry it in ``task_tags``).
SPLIT_TAG = {"general": "general", "personalized": "preference", "proactive": "routine"}


def to_official(action: dict[str, Any]) -> dict[str, Any]:
    """Our flat action as the official JSON action (every official key present, ``None`` where unused)."""
    official: dict[str, Any] = dict.fromkeys(ACTION_KEYS)
    for key, value in action.items():
        if key in official:
            official[key] = value
    return official


def from_official(action: dict[str, Any]) -> dict[str, Any]:
    """An official JSON action as our flat action: ``None`` values dropped; ``swipe`` keeps its start (``x``, ``y``)
    and ``direction``, "up" when none is given, as the official server; the official ``unknown`` becomes ``wait``."""
    flat = {key: value for key, value in action.items() if key in ACTION_KEYS and value is not None}
    kind = flat.get("action_type")
    if kind == "swipe":
        return {"action_type": "swipe", "direction": str(flat.get("direction") or "up"),
                **{key: flat[key] for key in ("x", "y") if key in flat}}
    if kind == "unknown":
        return {"action_type": "wait"}
    return flat
