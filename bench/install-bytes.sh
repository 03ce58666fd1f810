#!/usr/bin/env bash
# Installs what bench/bytes.sh measures with, into a virtual environment beside this script
# (bench/.venv-bytes, git-ignored) so nothing touches the system Python:
#   ssimulacra2 (PyPI, pure Python: the reference score), pyjpegli (PyPI wheel: jpegli, the oracle
#   encoder — a benchmark peer only, never a dependency of FilterGraph), Pillow (libjpeg-turbo
#   encodes and decoding), NumPy, Matplotlib (the rate–quality plot);
#   butteraugli (Debian) for the cross-check.
# Idempotent; run as root (or with sudo available for apt).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv-bytes"
python="${PYTHON:-python3}"
if ! dpkg-query -W -f='${Status}' butteraugli 2>/dev/null | grep -q "install ok installed"; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq butteraugli >/dev/null
fi
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check \
  "ssimulacra2==0.3.0" "pyjpegli==0.3.2" pillow numpy matplotlib
echo "install-bytes: $venv ready"
