#!/usr/bin/env bash
# Installs the system packages mend builds against (idempotent): Debian's Z3 4.8.12 for the
# z3 crate 0.12, libclang for its bindgen step, gcc for the interpreter-vs-gcc tests.
# `--editors` adds what the real-client tests need: clangd (coexistence), tmux (the screen
# test), a venv-capable Python and npm.
set -euo pipefail
need=()
dpkg -s libz3-dev >/dev/null 2>&1 || need+=(libz3-dev)
dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
command -v clang >/dev/null 2>&1 || need+=(clang)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
if [ "${1:-}" = "--editors" ]; then
  command -v clangd >/dev/null 2>&1 || need+=(clangd)
  command -v tmux >/dev/null 2>&1 || need+=(tmux)
  command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
  python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
fi
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
