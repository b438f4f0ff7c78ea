#!/usr/bin/env bash
# What the real-client stage needs, installed once (idempotent, quiet): the system packages,
# code-server, the Python tools and the packaged VS Code extension. editors/tests/run.sh calls
# it; scripts/test.sh also starts it beside the test build, where its downloads and npm builds
# use the time the compiler leaves a core idle.
#
#   bash editors/tests/setup.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)

target=$(cargo metadata --format-version 1 --no-deps --offline 2>/dev/null \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')

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
