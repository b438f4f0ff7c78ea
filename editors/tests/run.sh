#!/usr/bin/env bash
# The real-client stage (scripts/test.sh runs it after `cargo test`): installs what it needs
# (idempotent, quiet), builds and packages the VS Code extension, then runs pytest over
# editors/tests: pytest-lsp per recorded client, headless Neovim (alone and beside clangd),
# Neovim in tmux, the Helix smoke script, the .vsix and its package.json. The extension's
# own logic runs under node's test runner (editors/vscode/test) before packaging.
#
#   bash editors/tests/run.sh [MEND_BIN [PYTEST_ARGS...]]
# MEND_BIN defaults to the debug binary `cargo test` built (target dir from cargo metadata).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
start=$(date +%s)

target=$(cargo metadata --format-version 1 --no-deps --offline 2>/dev/null \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
mend=${1:-${MEND_BIN:-$target/debug/mend}}
if [ $# -gt 0 ]; then shift; fi  # the rest goes to pytest
[ -x "$mend" ] || { echo "editors: $mend is not built (run cargo test or cargo build first)" >&2; exit 1; }

# System packages: clangd (coexistence tests), tmux (screen test), a venv-capable Python, npm.
bash scripts/install-deps.sh --editors

# Python tools in a venv under the cargo target dir (Debian's Python is externally managed).
venv=$target/editors-venv
req=editors/tests/requirements.txt
if ! cmp -s "$req" "$venv/requirements.installed" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
  cp "$req" "$venv/requirements.installed"
fi

# The VS Code extension: npm ci (skipped when node_modules matches the lock), compile, package.
(
  cd editors/vscode
  if ! cmp -s package-lock.json node_modules/.mend-lock 2>/dev/null; then
    npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.mend-lock
  fi
  npm run --silent compile
  npm test --silent
  npx --no-install vsce package --skip-license --allow-missing-repository --out mend.vsix >/dev/null
) 2> >(grep -v -e nodedir -e 'you should bundle your extension' >&2)
echo "editors: installs, compile and package took $(( $(date +%s) - start )) s"

export MEND_BIN=$mend NVIM_BIN=$venv/bin/nvim
cd editors/tests
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
echo "editors: real-client stage took $(( $(date +%s) - start )) s"
