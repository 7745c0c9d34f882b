#!/usr/bin/env bash
# Installs Debian's `openssl` command, with which the TLS tests of tri and dubbo generate their throwaway
# certificates (@weft/test-utils createTestPki). Idempotent: does nothing when openssl is on PATH.
set -euo pipefail

if command -v openssl >/dev/null 2>&1; then
  echo "[weft] openssl is installed ($(openssl version))."
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "[weft] apt-get not found: install OpenSSL 3 yourself (the openssl command on PATH)." >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "[weft] installing the openssl package needs root (or sudo)." >&2
    exit 1
  fi
fi

echo "[weft] installing Debian's openssl package…"
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openssl
echo "[weft] openssl installed: $(openssl version)"
