#!/usr/bin/env bash
# make fuzz — builds the libFuzzer targets in Fuzz/ (AddressSanitizer on, leak detection on) and
# runs each for FUZZ_SECONDS (default 180) on a corpus seeded from the test fixtures. Fails on any
# crash, leak, timeout (FUZZ_TIMEOUT seconds for one input, default 10) or memory blow-up
# (FUZZ_RSS_MB, default 2560). Findings land in Fuzz/findings/TARGET/; commit each as a regression
# case under Tests/TestSupport/Fixtures/fuzz-regressions/ (the test suite replays those). The
# timeout is wall time: on a loaded machine raise it (FUZZ_TIMEOUT=60) and replay a reported
# timeout or slow unit alone (`.../fuzz-tiff -timeout=120 FILE`) before calling it a finding.
#   FUZZ_SECONDS=600 make fuzz          longer runs
#   FUZZ_TARGETS="fuzz-png fuzz-recipe" make fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-180}
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2560}
work=.build-fuzz
fixtures=Tests/TestSupport/Fixtures
export SWIFT_BACKTRACE=enable=no   # a crash report from libFuzzer, not an interactive backtrace
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"   # a leak inside libdav1d

swift build --package-path Fuzz -c release --sanitize=fuzzer --sanitize=address 2>&1 | grep -v "ld.gold: warning" | tail -n 3
bin=$(swift build --package-path Fuzz -c release --sanitize=fuzzer --sanitize=address --show-bin-path 2>/dev/null)
clang=$(dirname "$(command -v swift)")/clang
mkdir -p "$work/bin"
"$clang" -O1 -g -fsanitize=fuzzer,address -ISources/CPNG/include Fuzz/deflate/fuzz_deflate.c \
  Sources/CPNG/deflatescan.c Sources/CPNG/pngfast.c -ldeflate -lz -o "$work/bin/fuzz-deflate"

# Seeds: each file of a kind, behind every selector byte the target reads first.
seed() { # seed TARGET SELECTORS FILES…
  local target=$1 selectors=$2; shift 2
  mkdir -p "$work/corpus/$target"
  for f in "$@"; do
    [ -f "$f" ] || continue
    for s in $selectors; do
      { printf "\\x$(printf %02x "$s")"; cat "$f"; } > "$work/corpus/$target/$s-$(basename "$f")"
    done
  done
}
seed fuzz-jpeg "0 9 14" "$fixtures"/jpeg/*.jpg "$fixtures"/jpeg/*/*.jpg
seed fuzz-png "0 1" "$fixtures"/pngsuite/*.png
# Codec-protocol targets: whole, strips (32), scaled (1, 2), strict (4), page 1 (8).
seed fuzz-webp "0 1 2 32 4" "$fixtures"/webp/*.webp
seed fuzz-gif "0 32 4" "$fixtures"/gif/*.gif
seed fuzz-tiff "0 1 2 3 4 8" "$fixtures"/tiff/*.tif
seed fuzz-heif "0 4 8 32" "$fixtures"/heif/*.avif "$fixtures"/heif/*.heic
mkdir -p "$work/corpus/fuzz-exif" "$work/corpus/fuzz-recipe" "$work/corpus/fuzz-deflate"
python3 - "$fixtures" "$work/corpus/fuzz-exif" <<'PY'
import glob, os, sys
# APP1 Exif payloads of the JPEG fixtures, and eXIf chunks of the PNG ones.
fixtures, out = sys.argv[1], sys.argv[2]
n = 0
for path in glob.glob(fixtures + '/**/*.jpg', recursive=True) + glob.glob(fixtures + '/**/*.png', recursive=True):
    b = open(path, 'rb').read()
    i = b.find(b'Exif\0\0')
    if i >= 0:
        open(os.path.join(out, '%d-app1' % n), 'wb').write(b[i:i + 65533]); n += 1
    j = b.find(b'eXIf')
    if j >= 4:
        length = int.from_bytes(b[j - 4:j], 'big')
        open(os.path.join(out, '%d-tiff' % n), 'wb').write(b[j + 4:j + 4 + length]); n += 1
PY
fgrun=$(swift build -c release --product fgrun --show-bin-path 2>/dev/null)/fgrun
[ -x "$fgrun" ] || swift build -c release --product fgrun 2>&1 | tail -n 1
"$fgrun" filters | sed -n 's/^ *example: //p' | awk '{ print > "'"$work/corpus/fuzz-recipe/"'" NR ".txt" }'
cp recipes/*.txt "$work/corpus/fuzz-recipe/"
{
  "$fgrun" filters | sed -n 's/^  \([a-z][a-z-]*\) — .*/"\1"/p'
  "$fgrun" filters | sed -n 's/^      \([a-z][a-z-]*\)  .*/"\1="/p' | sort -u
  printf '%s\n' '"="' '"#"' '"\x0A"' '";"' '" of="' '"#FF8000"' '"800x600"' '"0.5"' '"1e308"' '"-1"' '"nan"' '"output"' '"input"'
} > "$work/recipe.dict"
python3 -c "
import zlib, sys
for i, level in enumerate([0, 1, 6, 9]):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    open('$work/corpus/fuzz-deflate/%d' % i, 'wb').write(c.compress(bytes(range(256)) * (i + 1) + b'abc' * 300) + c.flush())
"

# fuzz-metadata: the EXIF seeds behind selector 0 (EXIF.upright), JPEG segment payloads behind 1
# and 4 (APP13) and 7 (COM), the PNG fixtures' chunks after IHDR behind 2.
mkdir -p "$work/corpus/fuzz-metadata"
for f in "$work"/corpus/fuzz-exif/*-tiff; do [ -f "$f" ] && { printf '\x00'; cat "$f"; } > "$work/corpus/fuzz-metadata/0-$(basename "$f")"; done
for f in "$fixtures"/metadata/*.jpg; do
  [ -f "$f" ] || continue
  python3 - "$f" "$work/corpus/fuzz-metadata" <<'PY'
import os, struct, sys
b = open(sys.argv[1], 'rb').read()
out, name, i = sys.argv[2], os.path.basename(sys.argv[1]), 2
while i + 4 <= len(b) and b[i] == 0xFF and b[i + 1] != 0xDA:
    n = struct.unpack('>H', b[i + 2:i + 4])[0]
    payload, marker = b[i + 4:i + 2 + n], b[i + 1]
    selector = {0xE1: 1, 0xED: 4, 0xFE: 7}.get(marker)
    if selector is not None:
        open(os.path.join(out, '%d-%s-%x' % (selector, name, i)), 'wb').write(bytes([selector]) + payload)
    if marker == 0xE1 and payload.startswith(b'Exif\0\0'):
        open(os.path.join(out, '0-%s' % name), 'wb').write(b'\0' + payload[6:])
    i += 2 + n
PY
done
for f in "$fixtures"/pngsuite/ct*.png "$fixtures"/pngsuite/exif2c08.png; do
  [ -f "$f" ] && { printf '\x02'; tail -c +34 "$f"; } > "$work/corpus/fuzz-metadata/2-$(basename "$f")"
done

targets=${FUZZ_TARGETS:-"fuzz-jpeg fuzz-png fuzz-webp fuzz-gif fuzz-heif fuzz-tiff fuzz-exif fuzz-metadata fuzz-recipe fuzz-deflate"}
failed=()
for t in $targets; do
  exe="$bin/$t"; [ "$t" = fuzz-deflate ] && exe="$work/bin/fuzz-deflate"
  dict=(); [ "$t" = fuzz-recipe ] && dict=(-dict="$work/recipe.dict")
  mkdir -p "Fuzz/findings/$t"
  echo "fuzz: $t for ${seconds}s"
  if ! "$exe" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" -print_final_stats=1 \
      -artifact_prefix="Fuzz/findings/$t/" "${dict[@]}" "$work/corpus/$t" > "$work/$t.log" 2>&1; then
    failed+=("$t")
    grep -E "ERROR|SUMMARY|Test unit written|error" "$work/$t.log" | head -n 5 || true
  fi
  grep -E "stat::number_of_executed_units|cov:" "$work/$t.log" | tail -n 2 || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in Fuzz/findings/)"
  exit 1
fi
echo "fuzz: every target ran ${seconds}s without a crash, leak or timeout"
