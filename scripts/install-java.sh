#!/usr/bin/env bash
# Installs what @weft/serialization-hessian2's oracle tests need: a JDK (`javac`, to build Apache dubbo-hessian-lite
# 4.0.3 from ../shared/oracles and the package's test/java harness) and Debian's `libhessian-java` (Caucho Hessian
# 4.0.38, /usr/share/java/hessian.jar, the second decoder). Idempotent: does nothing when both are present.
# Needs root (or sudo) on Debian/Ubuntu.
set -euo pipefail

have_jar() { ls /usr/share/java/hessian*.jar >/dev/null 2>&1; }

if command -v javac >/dev/null 2>&1 && have_jar; then
  echo "[weft] JDK and libhessian-java are installed ($(javac -version 2>&1))."
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "[weft] apt-get not found: install a JDK 17 (javac on PATH) and Caucho Hessian 4.0.38 at /usr/share/java/hessian.jar yourself." >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "[weft] installing default-jdk-headless and libhessian-java needs root (or sudo)." >&2
    exit 1
  fi
fi

echo "[weft] installing Debian's default-jdk-headless and libhessian-java packages…"
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends default-jdk-headless libhessian-java
command -v javac >/dev/null 2>&1 && have_jar
echo "[weft] installed: $(javac -version 2>&1), $(ls /usr/share/java/hessian*.jar | head -n 1)"
