"""The VS Code extension package: editors/vscode/mend.vsix (built by `npm run package`) holds the
compiled extension, its runtime dependency and a manifest equal to package.json, and
package.json passes scripts/validate.js."""

import json
import pathlib
import shutil
import subprocess
import zipfile

import pytest

VSCODE = pathlib.Path(__file__).resolve().parents[2] / "editors/vscode"


def test_vsix_contents():
    vsix = VSCODE / "mend.vsix"
    if not vsix.exists():
        pytest.fail("editors/vscode/mend.vsix is missing: run `npm ci && npm run compile && npm run package` there")
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
        vsixmanifest = z.read("extension.vsixmanifest").decode()
    source = json.loads((VSCODE / "package.json").read_text())
    assert manifest["contributes"] == source["contributes"]
    assert (manifest["name"], manifest["version"], manifest["main"]) == (source["name"], source["version"], "./out/extension.js")
    assert "extension/out/extension.js" in names
    assert "extension/node_modules/vscode-languageclient/node.js" in names
    assert "extension/readme.md" in names, "the students' README is the extension page"
    assert not any(n.startswith(("extension/src/", "extension/test/")) or n.endswith(".ts") for n in names), "sources and tests are not shipped"
    assert not any("/typescript/" in n or "/@vscode/vsce/" in n for n in names), "dev dependencies are not shipped"
    assert 'Id="mend"' in vsixmanifest and 'Publisher="mend"' in vsixmanifest


def test_package_json_validates():
    if not shutil.which("node"):
        pytest.fail("node is not installed")
    run = subprocess.run(["node", str(VSCODE / "scripts/validate.js")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "package.json: ok" in run.stdout
