#!/usr/bin/env bash
# The test command (README): system packages, then every Rust test (unit, fixture
# snapshots, interpreter-vs-gcc over IntroClass, end-to-end LSP over stdio).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cargo test --locked
