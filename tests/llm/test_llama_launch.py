"""``llm serve`` on any x86-64 CPU: the AMX decision read from a cpuinfo file, and the one line that says why a
server died, for real processes ended by real signals (the server itself runs in test_real_models.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from personal_envs.llm.llama_launch import amx_flags, cpu_flags, extra_buffers_wanted, parse_args
from personal_envs.llm.serve import death_reason

SAPPHIRE_RAPIDS = ("processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu sse2 avx2 avx512f avx512_bf16 "
                   "amx_bf16 amx_tile amx_int8 arch_lbr\n\nprocessor\t: 1\nflags\t\t: fpu\n")
ICE_LAKE = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n"


def test_amx_is_read_from_the_first_cpu_and_turns_extra_buffers_off(tmp_path: Path) -> None:
    amx_cpu, plain_cpu = tmp_path / "amx", tmp_path / "plain"
    amx_cpu.write_text(SAPPHIRE_RAPIDS)
    plain_cpu.write_text(ICE_LAKE)
    assert amx_flags(cpu_flags(amx_cpu)) == ["amx_bf16", "amx_int8", "amx_tile"]
    assert amx_flags(cpu_flags(plain_cpu)) == []
    assert cpu_flags(tmp_path / "missing") == set()
    assert extra_buffers_wanted("auto", cpu_flags(amx_cpu)) is False
    assert extra_buffers_wanted("auto", cpu_flags(plain_cpu)) is True
    assert extra_buffers_wanted("on", cpu_flags(amx_cpu)) is True
    assert extra_buffers_wanted("off", cpu_flags(plain_cpu)) is False
    with pytest.raises(ValueError):
        extra_buffers_wanted("maybe", set())


def test_this_machines_flags_are_read() -> None:
    if not Path("/proc/cpuinfo").exists():
        pytest.skip("no /proc/cpuinfo")
    flags = cpu_flags()
    assert "fpu" in flags or "fp" in flags  # x86 or ARM: a real flag list, not an empty guess


def test_the_launcher_passes_everything_after_the_separator_to_the_server() -> None:
    args, server = parse_args(["--extra-bufts", "off", "--", "--model", "m.gguf", "--port", "1"])
    assert args.extra_bufts == "off" and not args.no_bound and server == ["--model", "m.gguf", "--port", "1"]


def _died(code: str) -> int:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60).returncode


def test_a_segfault_on_an_amx_cpu_names_the_cure_in_one_line() -> None:
    code = _died("import os, signal, sys; print('llama_model_load: AMX buffer'); sys.stdout.flush(); "
                 "os.kill(os.getpid(), signal.SIGSEGV)")
    assert code == -signal.SIGSEGV
    reason = death_reason(code, ["load_tensors: AMX model buffer size = 90 MiB\n", "\n"], extra_bufts=True,
                          flags={"avx2", "amx_tile", "amx_int8"})
    assert "\n" not in reason
    assert "SIGSEGV" in reason and "segmentation fault" in reason and "--extra-bufts off" in reason
    assert "AMX model buffer" in reason  # the last line it printed
    plain = death_reason(code, [], extra_bufts=True, flags={"avx2"})
    assert "SIGSEGV" in plain and "--extra-bufts" not in plain


def test_an_exit_code_and_the_last_error_line_are_named() -> None:
    code = _died("import sys; print('ERROR: [Errno 98] address already in use'); sys.exit(1)")
    reason = death_reason(code, ["INFO: Started server process\n", "ERROR: [Errno 98] address already in use\n",
                                 "INFO: Waiting for application shutdown.\n"], flags=set())
    assert reason == ("the model server exited with code 1; last output: ERROR: [Errno 98] address already in use")
    killed = _died("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert "out-of-memory killer" in death_reason(killed, [], flags=set())
