#!/usr/bin/env bash
# Bytes at equal look (issue 27): fgrun's JPEG encoders against libjpeg-turbo and jpegli at equal
# SSIMULACRA2 over the shared corpus photos, at 800 px and full size. Writes bench/out/bytes/
# (bytes.md: BD-rate table and CPU time; bytes.json; bytes-rate-quality.png: the plot).
#   bench/bytes.sh [--butteraugli] [--sizes 800,full] [--encoders fgrun-fast,fgrun-small,...]
# Needs bench/install-bytes.sh (run here when its venv is missing) and a release fgrun
# ($FGRUN or .build/release/fgrun, built when missing). Bytes and scores are deterministic;
# CPU times depend on the machine's load.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/bench/.venv-bytes"
[ -x "$venv/bin/python" ] || bash "$root/bench/install-bytes.sh"
fgrun="${FGRUN:-$root/.build/release/fgrun}"
[ -x "$fgrun" ] || (cd "$root" && swift build -c release --product fgrun)
corpus="${CORPUS:-$root/../shared/corpus/photos}"
[ -d "$corpus" ] || corpus=/work/shared/corpus/photos
exec "$venv/bin/python" "$root/bench/bytes.py" --corpus "$corpus" --fgrun "$fgrun" --out "$root/bench/out/bytes" "$@"
