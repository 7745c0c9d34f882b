#!/usr/bin/env bash
# Installs Debian's `chromium` package for the docs-site browser test (packages/docs-site-test), which drives a
# headless Chromium with puppeteer-core (no browser is ever downloaded). Idempotent: does nothing when chromium
# is already on PATH. Needs root (or sudo) on Debian/Ubuntu.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  echo "[weft] Chromium is installed ($(command -v chromium))."
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "[weft] apt-get not found: install Chromium yourself and set CHROMIUM_PATH to its executable." >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "[weft] installing the chromium package needs root (or sudo)." >&2
    exit 1
  fi
fi

echo "[weft] installing Debian's chromium package…"
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-dejavu-core
command -v chromium >/dev/null
echo "[weft] Chromium installed: $(chromium --version 2>/dev/null || command -v chromium)"
