#!/usr/bin/env bash
# The test command (README): system packages, formatting and lints (rustfmt, clippy with
# warnings as errors), then every Rust test (unit, fixture
# snapshots, interpreter-vs-gcc over IntroClass, end-to-end LSP over stdio), then the
# real-client stage (editors/tests/run.sh: pytest-lsp per recorded client, headless Neovim
# alone and beside clangd, Neovim in tmux, the Helix smoke script, the VS Code .vsix) against
# the debug `mend` that `cargo test` built.
#
# Clippy and the editors' set-up (downloads, npm builds) run beside the test build: on two
# cores the compiler leaves one idle for much of a clean build. Clippy has its own target dir
# so that neither waits for the other's lock; each log is shown once the build is done.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo fmt --check
logs=$(mktemp -d)
# Made before the jobs run side by side: each cargo creates a missing target directory
# through a temporary one and a rename, and two doing so at once can fail (a CI run lost
# clippy's `target/clippyXXXXXX` that way).
mkdir -p target/clippy
CARGO_TARGET_DIR=target/clippy cargo clippy --locked --all-targets -- -D warnings >"$logs/clippy" 2>&1 &
clippy=$!
bash editors/tests/setup.sh >"$logs/editors" 2>&1 &
editors=$!
cargo test --locked --no-run
clippy_ok=0; wait $clippy || clippy_ok=$?
grep -v -e '^ *Compiling' -e '^ *Checking' "$logs/clippy" || true
[ $clippy_ok -eq 0 ] || { echo "clippy failed" >&2; exit 1; }
editors_ok=0; wait $editors || editors_ok=$?
cat "$logs/editors"
[ $editors_ok -eq 0 ] || { echo "the editors' set-up failed" >&2; exit 1; }
cargo test --locked
MEND_EDITORS_SET_UP=1 bash editors/tests/run.sh
