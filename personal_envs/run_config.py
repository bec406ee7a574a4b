"""The configuration fingerprint that lets a results file be resumed only by the run that wrote it.

Beside ``results.jsonl`` the runner keeps ``results.jsonl.config.json``: for each ``env id | policy`` in the file,
the env kwargs, the policy kwargs (secrets such as ``api_key`` left out) and, for LLM policies, the model and
endpoint (from the kwargs or ``$PERSONAL_ENVS_LLM_MODEL`` / ``$OPENAI_MODEL`` / ``$OPENAI_BASE_URL``).  A run
whose configuration differs is refused with :class:`ConfigMismatch` naming what differs; a results file written
before fingerprints existed resumes with a warning.

The model named in the configuration is only what was asked for; the sidecar also keeps ``served_model``, the model
the server reported answering with (:func:`store_served_model`), and the runner refuses to add episodes from another
served model to the file, whatever the environment variables say (:func:`served_model_on_file`).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

from personal_envs.core.errors import InputError, ReportedError
from personal_envs.core.schema import read_json, validate
from personal_envs.llm.client import BASE_URL_ENV, MODEL_ENV, MODEL_FALLBACK_ENV

#: Sidecar key of the model the server reported answering with (not part of the configuration comparison).
SERVED_MODEL_KEY = "served_model"
#: Policy kwargs never written to the sidecar (secrets) or irrelevant to the results (worker plumbing).
EXCLUDED_POLICY_KEYS = frozenset({"api_key", "client"})


class ConfigMismatch(InputError, ReportedError):
    """The results file was written by a run with another configuration (or model), or its sidecar is
    unreadable."""


#: The sidecar: ``"<env id> | <policy>"`` -> the :func:`fingerprint` of the run that wrote those records.
SidecarFile = dict[str, dict[str, Any]]


def sidecar_path(results: Path) -> Path:
    """``<results>.config.json``."""
    return results.with_name(results.name + ".config.json")


def fingerprint(env_id: str, policy: str, env_kwargs: dict[str, Any], policy_kwargs: dict[str, Any],
                seed: int = 0) -> dict[str, Any]:
    """The configuration that decides an episode's result, as JSON-compatible data."""
    kwargs = {k: v for k, v in sorted(policy_kwargs.items()) if k not in EXCLUDED_POLICY_KEYS}
    config: dict[str, Any] = {
        "env_id": env_id, "env_kwargs": _jsonable(env_kwargs), "policy": policy, "policy_kwargs": _jsonable(kwargs),
        "seed": seed,
    }
    if policy == "llm" or "model" in policy_kwargs or "base_url" in policy_kwargs:
        config["model"] = policy_kwargs.get("model") or os.environ.get(MODEL_ENV) or os.environ.get(
            MODEL_FALLBACK_ENV) or None
        config["endpoint"] = policy_kwargs.get("base_url") or os.environ.get(BASE_URL_ENV) or None
    return config


def check_and_store(results: Path, config: dict[str, Any], has_records: bool) -> None:
    """Refuse to resume ``results`` under another configuration; record ``config`` for the next resume.

    Raises:
        ConfigMismatch: the sidecar holds a different configuration for the same env id and policy, or it is not
            the sidecar's JSON (:data:`SidecarFile`), or it cannot be written.
    """
    path = sidecar_path(results)
    key = f"{config['env_id']} | {config['policy']}"
    stored = _read(path)
    previous = stored.get(key)
    compared = None if previous is None else {k: v for k, v in previous.items() if k != SERVED_MODEL_KEY}
    if compared is not None and has_records and compared != config:
        differing = [name for name in sorted(set(compared) | set(config)) if compared.get(name) != config.get(name)]
        details = "; ".join(f"{name}: file has {json.dumps(compared.get(name))}, this run "
                            f"{json.dumps(config.get(name))}" for name in differing)
        raise ConfigMismatch(f"{results} was written with another configuration ({details}); use another --out "
                             "or delete the file to start over")
    if previous is None and has_records:
        warnings.warn(f"{results} has no configuration record ({path.name}); resuming it as before without "
                      "checking that the configuration matches", stacklevel=2)
    if compared != config:
        kept = {SERVED_MODEL_KEY: previous[SERVED_MODEL_KEY]} if has_records and previous and previous.get(
            SERVED_MODEL_KEY) else {}
        stored[key] = {**config, **kept}
        _write(path, stored)


def _write(path: Path, stored: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(stored, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise ConfigMismatch(f"cannot write the configuration sidecar {path} "
                             f"({exc.strerror or type(exc).__name__}); use another --out") from None


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        stored = read_json(path, "configuration sidecar")
        validate(SidecarFile, stored, str(path))
    except InputError as exc:
        raise ConfigMismatch(f"{exc}; delete {path.name} (the check of the next resume starts over) or use "
                             "another --out") from None
    return dict(stored)


class ServedModelChanged(ReportedError):
    """The endpoint answered with another model than the one the results file's episodes came from (the server
    changed under the run: a run failure, exit code 1, not a bad argument)."""


def store_served_model(results: Path, env_id: str, policy: str, model: str) -> None:
    """Record in the sidecar the model the server reported answering with for ``env id | policy``."""
    path = sidecar_path(results)
    stored = _read(path)
    entry = stored.get(f"{env_id} | {policy}")
    if not isinstance(entry, dict) or entry.get(SERVED_MODEL_KEY) == model:
        return
    entry[SERVED_MODEL_KEY] = model
    _write(path, stored)


def record_served_model(record: dict[str, Any]) -> str | None:
    """The model that answered an episode, from its ``llm`` entry (``None`` when it has none or no reply came)."""
    llm = record.get("llm")
    if not isinstance(llm, dict) or not llm.get("ok_calls"):
        return None
    model = llm.get("model")
    return str(model) if model else None


def served_model_on_file(results: Path, env_id: str, policy: str, records: list[dict[str, Any]]) -> str | None:
    """The model the file's episodes came from: the newest record's served model, else the sidecar's.

    Raises:
        ConfigMismatch: the file already mixes episodes of several models.
    """
    models = [m for m in (record_served_model(r) for r in records) if m]
    if len(set(models)) > 1:
        raise ConfigMismatch(f"{results} mixes episodes of several models ({', '.join(sorted(set(models)))}); "
                             "split it or start over with another --out")
    if models:
        return models[-1]
    entry = _read(sidecar_path(results)).get(f"{env_id} | {policy}")
    model = entry.get(SERVED_MODEL_KEY) if isinstance(entry, dict) and records else None
    return str(model) if model else None


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=repr))
