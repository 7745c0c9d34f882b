#!/usr/bin/env bash
# Installs Debian's `redis-server` package (redis-server, redis-cli) for the tests and benchmarks of
# @weft/tps-limiter-redis, which start their own Redis on loopback (no persistence, a temporary directory).
# Idempotent: does nothing when redis-server is already on PATH. Needs root (or sudo) on Debian/Ubuntu.
set -euo pipefail

if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
  echo "[weft] Redis is installed ($(redis-server --version | head -n 1))."
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "[weft] apt-get not found: install Redis 6.2+ yourself (redis-server and redis-cli on PATH, or set REDIS_SERVER and REDIS_CLI)." >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "[weft] installing the redis-server package needs root (or sudo)." >&2
    exit 1
  fi
fi

echo "[weft] installing Debian's redis-server package…"
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server redis-tools
# The package starts a system-wide server on port 6379; the tests start their own on free ports and do not need it.
command -v redis-server >/dev/null 2>&1
echo "[weft] Redis installed: $(redis-server --version | head -n 1)"
