#!/usr/bin/env bash
# The test command (README): system packages, formatting and lints (rustfmt, clippy with
# warnings as errors), then every Rust test (unit, fixture
# snapshots, interpreter-vs-gcc over IntroClass, end-to-end LSP over stdio), then the
# real-client stage (editors/tests/run.sh: pytest-lsp per recorded client, headless Neovim
# alone and beside clangd, Neovim in tmux, the Helix smoke script, the VS Code .vsix) against
# the debug `mend` that `cargo test` built.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
bash editors/tests/run.sh
