"""editors/helix/smoke.py: languages.toml read as Helix reads it, mend started as Helix starts it."""

import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
MEND = os.environ.get("MEND_BIN") or shutil.which("mend") or "mend"


def test_helix_configuration():
    run = subprocess.run(
        [sys.executable, str(ROOT / "editors/helix/smoke.py"), MEND], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "helix smoke: ok" in run.stdout
