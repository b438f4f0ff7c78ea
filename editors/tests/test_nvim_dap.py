"""editors/neovim/dap.lua in headless Neovim 0.11, against a stand-in for nvim-dap: the
adapter it registers starts `mend dap`, its launch configuration asks for the input, and
:MendHeap shows the heap in a float. The assertions live in nvim_dap.lua."""

import pathlib
import subprocess

from test_nvim_headless import NVIM, ROOT


def test_the_debugger_config_loads_and_draws_the_heap(tmp_path: pathlib.Path):
    run = subprocess.run(
        [NVIM, "--clean", "--headless", "-l", str(ROOT / "editors/tests/nvim_dap.lua"), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert run.returncode == 0, f"stdout:\n{run.stdout}\nstderr:\n{run.stderr}"
    assert "ok: the adapter, the configuration and the heap float" in run.stdout + run.stderr
