#!/usr/bin/env bash
# The real-client stage (scripts/test.sh runs it after `cargo test`): installs what it needs
# (idempotent, quiet), builds and packages the VS Code extension, then runs pytest over
# editors/tests: pytest-lsp per recorded client, headless Neovim (alone and beside clangd),
# Neovim in tmux, the Helix smoke script, the .vsix and its package.json, and the .vsix in a
# real VS Code (code-server, installed once under the target dir, driven by Playwright through
# Debian's Chromium; screenshots in <target>/editors-artifacts). The extension's own logic runs
# under node's test runner (editors/vscode/test) before packaging.
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
mend=$(realpath "$mend")  # the tests run in editors/tests

# System packages: clangd (coexistence tests), tmux (screen test), a venv-capable Python, npm,
# Chromium and code-server's build needs.
bash scripts/install-deps.sh --editors

# code-server (VS Code in the browser) for test_vscode_real.py, once under the target dir.
# 4.100.3 (VS Code 1.100.3) is the last release for Node 20, the machine's node. Its install
# script builds VS Code's native modules with node-gyp (Node's headers from /usr/include/node:
# nodedir), runs `npx node-gyp` (hence npm_config_yes), wants npm_config_unsafe_perm as root,
# and has @vscode/ripgrep 1.15.11 download rg v13.0.0-10 from GitHub, which is not reachable
# here: that download's cache (under TMPDIR) is seeded with Debian's rg 13.0.0 instead. When
# the install fails the test is skipped, naming install.log.
cs_version=4.100.3
cs=$target/code-server
if [ "$(cat "$cs/installed" 2>/dev/null)" != "$cs_version" ]; then
  cs_start=$(date +%s)
  rm -rf "$cs"
  rg_cache=$cs/tmp/vscode-ripgrep-cache-1.15.11
  mkdir -p "$rg_cache"
  if (rg=$(command -v rg) \
      && tar czf "$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$(dirname "$rg")" rg \
      && cd "$cs" \
      && TMPDIR=$cs/tmp npm_config_yes=true npm_config_unsafe_perm=true npm_config_nodedir=/usr \
         npm install --prefix "$cs" --no-audit --no-fund --loglevel=error "code-server@$cs_version") \
      >"$cs/install.log" 2>&1; then
    echo "$cs_version" >"$cs/installed"
    rm -rf "$cs/tmp"
    echo "editors: code-server $cs_version installed in $(( $(date +%s) - cs_start )) s"
  else
    echo "editors: code-server $cs_version could not be installed, test_vscode_real.py is skipped; $cs/install.log ends:" >&2
    grep -v nodedir "$cs/install.log" | tail -n 15 >&2 || true
  fi
fi

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

export MEND_BIN=$mend NVIM_BIN=$venv/bin/nvim MEND_TARGET_DIR=$target CODE_SERVER_BIN=$cs/node_modules/.bin/code-server
cd editors/tests
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
echo "editors: real-client stage took $(( $(date +%s) - start )) s"
