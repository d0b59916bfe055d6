#!/usr/bin/env bash
# Makes sure the etcd server the tests start is installed: Debian's `etcd-server` package
# provides /usr/bin/etcd. When it is missing and we are root on a system with apt-get, install it;
# otherwise fail loudly, since the etcd tests never skip.
set -euo pipefail

ETCD_BIN="${ORCH_ETCD_BIN:-/usr/bin/etcd}"

if [ -x "$ETCD_BIN" ]; then
  echo "ensure-etcd: $ETCD_BIN is installed ($("$ETCD_BIN" --version 2>/dev/null | head -n 1))"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-etcd: $ETCD_BIN is missing and this is not root: install it with 'sudo apt-get install -y etcd-server' (or set ORCH_ETCD_BIN), then run the tests again" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-etcd: $ETCD_BIN is missing and there is no apt-get: install etcd 3.4+ and set ORCH_ETCD_BIN to its path" >&2
  exit 1
fi

echo "ensure-etcd: $ETCD_BIN is missing; installing the etcd-server package with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends etcd-server
if [ ! -x "$ETCD_BIN" ]; then
  echo "ensure-etcd: apt-get installed etcd-server but $ETCD_BIN is still missing" >&2
  exit 1
fi
echo "ensure-etcd: installed $("$ETCD_BIN" --version | head -n 1)"
