#!/usr/bin/env bash
# Installs fontTools (PyPI), which scripts/make-colr-font.py needs to remake the COLR test font
# (Tests/TestSupport/Fixtures/text/colr-squares.ttf), in its own venv so the system Python is
# untouched. Idempotent; the venv is .venv-fonttools at the repository root unless FONTTOOLS_VENV
# names another folder. The tests read the committed font and do not need it.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${FONTTOOLS_VENV:-$PWD/.venv-fonttools}
pin="fonttools==4.68.0"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
if "$VENV/bin/python" -c "import fontTools; assert fontTools.version == '4.68.0'" 2>/dev/null; then
  echo "install-font-tools: $pin present in $VENV"
  exit 0
fi
echo "install-font-tools: installing $pin into $VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$pin"
