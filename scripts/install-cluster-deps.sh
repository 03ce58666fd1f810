#!/usr/bin/env bash
# Installs the Python packages the cluster driver (cluster/, docs/Batches.md) and its test need:
# Dask and Dask distributed at pinned, mutually compatible versions, and bokeh for the dashboard, only when missing or at
# another version. Uses the python3 on PATH (PYTHON overrides it); idempotent.
set -euo pipefail
PYTHON=${PYTHON:-python3}
pins=("dask==2026.8.0" "distributed==2026.8.0" "bokeh==3.9.2")
missing=()
for pin in "${pins[@]}"; do
  name=${pin%%==*}
  want=${pin##*==}
  have=$("$PYTHON" -c "import importlib.metadata as m; print(m.version('$name'))" 2>/dev/null || true)
  [ "$have" = "$want" ] || missing+=("$pin")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-cluster-deps: dask, distributed and bokeh present"
  exit 0
fi
echo "install-cluster-deps: installing ${missing[*]}"
"$PYTHON" -m pip install --quiet --disable-pip-version-check "${missing[@]}"
