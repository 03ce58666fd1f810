#!/usr/bin/env bash
# bench/text-raster.sh -- builds bench/text-raster.c with the library's text code (Sources/CText)
# at -O2 and runs it: the text rasterised whole against tile by tile (see the C file's header).
#
#   bash bench/text-raster.sh [RUNS]     # default 9 runs per row
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${TMPDIR:-/tmp}/fg-text-raster
pkgs="harfbuzz freetype2 fontconfig icu-uc"
cc -O2 -std=gnu11 -I"$root/Sources/CText/include" "$root/bench/text-raster.c" "$root"/Sources/CText/*.c \
  $(pkg-config --cflags --libs $pkgs) -lm -o "$out"
echo "text-raster: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), one thread"
"$out" "${1:-9}"
