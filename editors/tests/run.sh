#!/usr/bin/env bash
# The real-client stage (scripts/test.sh runs it after `cargo test`): installs what it needs
# and packages the VS Code extension (editors/tests/setup.sh), then runs pytest over
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
start=$(date +%s)

target=$(cargo metadata --format-version 1 --no-deps --offline 2>/dev/null \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
mend=${1:-${MEND_BIN:-$target/debug/mend}}
if [ $# -gt 0 ]; then shift; fi  # the rest goes to pytest
[ -x "$mend" ] || { echo "editors: $mend is not built (run cargo test or cargo build first)" >&2; exit 1; }
mend=$(realpath "$mend")  # the tests run in editors/tests

# scripts/test.sh has run the set-up already, beside the test build.
[ -n "${MEND_EDITORS_SET_UP:-}" ] || bash editors/tests/setup.sh
venv=$target/editors-venv
cs=$target/code-server

export MEND_BIN=$mend NVIM_BIN=$venv/bin/nvim MEND_TARGET_DIR=$target CODE_SERVER_BIN=$cs/node_modules/.bin/code-server
cd editors/tests
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
echo "editors: real-client stage took $(( $(date +%s) - start )) s"
