#!/usr/bin/env bash
# Installs thumbor, bench/serve.sh's peer image server (its default Pillow engine), into a virtual
# environment beside this script (bench/.venv-thumbor, git-ignored) so nothing touches the system
# Python. A benchmark peer only, never a dependency of FilterGraph. pillow-avif-plugin gives
# thumbor AVIF output for S2's negotiated AVIF requests. Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv-thumbor"
python="${PYTHON:-python3}"
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "thumbor==7.8.0" pillow-avif-plugin
echo "install-thumbor: $venv ready"
