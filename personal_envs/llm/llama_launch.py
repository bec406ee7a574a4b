"""The process ``personal-envs llm serve`` runs: llama-cpp-python's OpenAI-compatible server with two adjustments.

* **No extra weight buffers on CPUs with AMX** (``--extra-bufts off``; ``auto`` chooses it when ``/proc/cpuinfo``
  lists an ``amx`` flag).  A native build of llama.cpp uses its AMX matrix kernel for the repacked weights, and that
  kernel segfaults on the first chat request (llama.cpp issue 20824), so the server died silently on common cloud
  Xeons.  llama-cpp-python does not expose llama.cpp's ``use_extra_bufts`` model parameter, so the launcher sets it
  in the library's default model parameters before the model is loaded (the weights then stay in plain CPU
  buffers: no AMX and no repacking).
* **Completion length bounded on every chat format.**  llama-cpp-python's ``chatml-function-calling`` format
  ignores ``max_tokens`` whenever ``tool_choice="auto"`` is sent (it generates the call with ``max_tokens=None``:
  up to the end of the context, ``max_tokens=4`` returned 50 tokens).  Every registered chat handler is wrapped so
  that the completions it asks the model for share the request's ``max_tokens``: the first one (the format's
  choice between a message and a function name, bounded by its own grammar) is left as it is, each later one is
  capped to what remains (at least one token).

Run: ``python -m personal_envs.llm.llama_launch [--extra-bufts auto|on|off] [--no-bound] -- <llama_cpp.server
arguments>``.  Needs the ``local-llm`` extra.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: Where Linux lists the CPU's feature flags.
CPUINFO = Path("/proc/cpuinfo")


def cpu_flags(cpuinfo: Path = CPUINFO) -> set[str]:
    """The feature flags of the first CPU in ``cpuinfo`` (empty when it cannot be read, e.g. not on Linux)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return set(value.split())
    return set()


def amx_flags(flags: set[str]) -> list[str]:
    """The AMX flags among ``flags`` (``amx_tile``, ``amx_int8``, ``amx_bf16``...)."""
    return sorted(flag for flag in flags if flag.startswith("amx"))


def extra_buffers_wanted(choice: str, flags: set[str]) -> bool:
    """Whether llama.cpp may use its extra weight buffers: ``on``, ``off``, or ``auto`` (off on a CPU with AMX)."""
    if choice not in ("auto", "on", "off"):
        raise ValueError(f"extra-bufts must be 'auto', 'on' or 'off', got {choice!r}")
    if choice == "auto":
        return not amx_flags(flags)
    return choice == "on"


def disable_extra_buffers() -> None:
    """Make every model llama-cpp-python loads from now on use plain CPU weight buffers (``use_extra_bufts=False``)."""
    import llama_cpp.llama_cpp as bindings

    original = bindings.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    bindings.llama_model_default_params = without_extra_buffers


class BoundedModel:
    """A stand-in for a ``Llama`` inside one chat request: its completions share ``budget`` tokens.

    The first completion is left as it is (a format's routing step, bounded by its grammar); each later one gets
    ``max_tokens`` capped to the tokens left (at least 1).  Everything else is the model's own.
    """

    def __init__(self, model: Any, budget: int) -> None:
        self._model = model
        self.remaining = int(budget)
        self.completions = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def create_completion(self, *args: Any, **kwargs: Any) -> Any:
        self.completions += 1
        if self.completions > 1:
            asked = kwargs.get("max_tokens")
            allowed = max(1, self.remaining)
            kwargs["max_tokens"] = allowed if asked is None or asked <= 0 else min(int(asked), allowed)
        result = self._model.create_completion(*args, **kwargs)
        if self.completions > 1 and isinstance(result, dict):
            used = (result.get("usage") or {}).get("completion_tokens")
            if isinstance(used, int):
                self.remaining -= used
        return result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.create_completion(*args, **kwargs)


def bounded_handler(handler: Callable[..., Any]) -> Callable[..., Any]:
    """``handler`` (a llama-cpp-python chat handler) with its completions sharing the request's ``max_tokens``."""

    def handle(*args: Any, llama: Any = None, max_tokens: int | None = None, **kwargs: Any) -> Any:
        if llama is None or max_tokens is None or max_tokens <= 0:
            return handler(*args, llama=llama, max_tokens=max_tokens, **kwargs)
        return handler(*args, llama=BoundedModel(llama, max_tokens), max_tokens=max_tokens, **kwargs)

    handle.__wrapped__ = handler  # type: ignore[attr-defined]
    return handle


def bound_every_chat_format() -> list[str]:
    """Wrap every chat handler llama-cpp-python has registered with :func:`bounded_handler`; returns their names."""
    from llama_cpp import llama_chat_format

    registry = llama_chat_format.LlamaChatCompletionHandlerRegistry()
    names = sorted(registry._chat_handlers)
    for name in names:
        handler = registry._chat_handlers[name]
        if not hasattr(handler, "__wrapped__"):
            registry.register_chat_completion_handler(name, bounded_handler(handler), overwrite=True)
    return names


def parse_args(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """The launcher's own options and the arguments passed on to ``llama_cpp.server``."""
    own, _, server = _split(argv)
    parser = argparse.ArgumentParser(prog="python -m personal_envs.llm.llama_launch")
    parser.add_argument("--extra-bufts", default="auto", choices=["auto", "on", "off"])
    parser.add_argument("--no-bound", action="store_true", help="leave max_tokens as each chat format treats it")
    return parser.parse_args(own), server


def _split(argv: Sequence[str]) -> tuple[list[str], str, list[str]]:
    items = list(argv)
    if "--" not in items:
        return items, "", []
    index = items.index("--")
    return items[:index], "--", items[index + 1:]


def main(argv: Sequence[str] | None = None) -> int:
    """Apply the adjustments, then run llama-cpp-python's server with the remaining arguments."""
    args, server_args = parse_args(sys.argv[1:] if argv is None else argv)
    flags = cpu_flags()
    amx = amx_flags(flags)
    if not extra_buffers_wanted(args.extra_bufts, flags):
        disable_extra_buffers()
        why = f"the CPU has AMX ({', '.join(amx)})" if amx and args.extra_bufts == "auto" else "--extra-bufts off"
        print(f"personal-envs: llama.cpp extra weight buffers off ({why})", file=sys.stderr, flush=True)
    if not args.no_bound:
        bound_every_chat_format()
    from llama_cpp.server.__main__ import main as server_main

    sys.argv = ["llama_cpp.server", *server_args]
    server_main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
