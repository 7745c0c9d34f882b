#!/usr/bin/env bash
# Installs Debian's `python3-grpcio` (gRPC's C-core implementation, for Python) for the interop tests of
# @weft/protocol-triple, which run a grpcio client and server against Weft on loopback. Idempotent: does nothing
# when `python3` or Debian's /usr/bin/python3 (which the tests also try, e.g. behind pyenv) imports grpc. Needs root
# (or sudo) on Debian/Ubuntu.
set -euo pipefail

for py in python3 /usr/bin/python3; do
  # google.protobuf too: the built-in reflection test decodes FileDescriptorProtos with it.
  if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import grpc; import google.protobuf' >/dev/null 2>&1; then
    echo "[weft] grpcio is installed for $py ($("$py" -c 'import grpc; print(grpc.__version__)'))."
    exit 0
  fi
done

if ! command -v apt-get >/dev/null 2>&1; then
  echo "[weft] apt-get not found: install Python 3 with grpcio (pip install grpcio) yourself." >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "[weft] installing the python3-grpcio package needs root (or sudo)." >&2
    exit 1
  fi
fi

echo "[weft] installing Debian's python3-grpcio package…"
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-grpcio python3-protobuf
/usr/bin/python3 -c 'import grpc'
echo "[weft] python3-grpcio installed: $(/usr/bin/python3 -c 'import grpc; print(grpc.__version__)')"
