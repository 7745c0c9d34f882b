#!/usr/bin/env bash
# Installs Debian's `zookeeper` package (server, zkCli.sh, Java client libraries) for the tests of
# @weft/registry-zookeeper, which start their own ZooKeeper on loopback. Idempotent: does nothing when
# /usr/share/java/zookeeper.jar is already there. Needs root (or sudo) on Debian/Ubuntu.
set -euo pipefail

if [ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null 2>&1; then
  echo "[weft] ZooKeeper is installed ($(readlink -f /usr/share/java/zookeeper.jar))."
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "[weft] apt-get not found: install ZooKeeper 3.8+ and Java 11+ yourself, and set ZOOKEEPER_HOME to its directory." >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "[weft] installing the zookeeper package needs root (or sudo)." >&2
    exit 1
  fi
fi

echo "[weft] installing Debian's zookeeper package…"
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends zookeeper
test -f /usr/share/java/zookeeper.jar
echo "[weft] ZooKeeper installed: $(readlink -f /usr/share/java/zookeeper.jar)"
