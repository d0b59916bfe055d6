#!/usr/bin/env bash
# Makes sure the official Kubernetes Python client the tests drive orch-apiserver with is
# installed: Debian's `python3-kubernetes` package, for Debian's own /usr/bin/python3. When it is
# missing and we are root on a system with apt-get, install it; otherwise fail loudly, since the
# Python client test never skips.
set -euo pipefail

PYTHON="${ORCH_PYTHON:-/usr/bin/python3}"

if [ -x "$PYTHON" ] && "$PYTHON" -c "import kubernetes" >/dev/null 2>&1; then
  echo "ensure-python-client: the kubernetes package of $PYTHON is installed ($("$PYTHON" -c "import kubernetes; print(kubernetes.__version__)"))"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-python-client: $PYTHON cannot import kubernetes and this is not root: install it with 'sudo apt-get install -y python3-kubernetes' (or set ORCH_PYTHON to a python3 that has it), then run the tests again" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-python-client: $PYTHON cannot import kubernetes and there is no apt-get: install the kubernetes Python client and set ORCH_PYTHON to its python3" >&2
  exit 1
fi

echo "ensure-python-client: installing the python3-kubernetes package with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends python3-kubernetes || { apt-get update && apt-get install -y --no-install-recommends python3-kubernetes; }
"$PYTHON" -c "import kubernetes" || {
  echo "ensure-python-client: apt-get installed python3-kubernetes but $PYTHON still cannot import it" >&2
  exit 1
}
