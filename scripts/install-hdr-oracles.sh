#!/usr/bin/env bash
# Installs the Ultra HDR (gain-map JPEG) references the HDR tests compare against, in their own venv so
# the system libvips that other tests and benches use is untouched: pyvips-binary (libvips 8.18 with
# uhdrload/uhdrsave) and imagecodecs (its ultrahdr decoder, libultrahdr). Idempotent; the venv is
# .venv-oracles at the repository root unless HDR_ORACLES_VENV names another folder.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${HDR_ORACLES_VENV:-$PWD/.venv-oracles}
pins=("pyvips-binary==8.18.7" "pyvips==3.2.0" "imagecodecs==2026.3.6" "numpy<2.4")
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if "$VENV/bin/python" -c "import pyvips, imagecodecs; assert pyvips.version(1) >= 18; imagecodecs.ultrahdr_decode" 2>/dev/null; then
  echo "install-hdr-oracles: pyvips 8.18 and imagecodecs present in $VENV"
  exit 0
fi
echo "install-hdr-oracles: installing ${pins[*]} into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}"
