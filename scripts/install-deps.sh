#!/usr/bin/env bash
# Installs the system packages mend builds against (idempotent): Debian's Z3 4.8.12 for the
# z3 crate 0.12, libclang for its bindgen step, gcc for the interpreter-vs-gcc tests.
# `--editors` adds what the real-client tests need: clangd (coexistence), tmux (the screen
# test), a venv-capable Python and npm; Chromium for the real VS Code test (code-server in a
# browser), and what code-server's npm install needs to build VS Code's native modules (a C++
# toolchain, pkg-config, Kerberos headers) and ripgrep (editors/tests/run.sh seeds the ripgrep
# download of VS Code's search with Debian's `rg`).
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
  command -v chromium >/dev/null 2>&1 || need+=(chromium)
  command -v g++ >/dev/null 2>&1 || need+=(g++)
  command -v make >/dev/null 2>&1 || need+=(make)
  command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
  command -v rg >/dev/null 2>&1 || need+=(ripgrep)
fi
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
