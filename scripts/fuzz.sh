#!/usr/bin/env bash
# make fuzz — builds the libFuzzer targets in Fuzz/ (AddressSanitizer on, leak detection on) and
# runs each for FUZZ_SECONDS (default 180) on a corpus seeded from the test fixtures. Fails on any
# crash, leak, timeout (FUZZ_TIMEOUT seconds for one input, default 10) or memory blow-up
# (FUZZ_RSS_MB, default 2560). Findings land in Fuzz/findings/TARGET/; commit each as a regression
# case under Tests/TestSupport/Fixtures/fuzz-regressions/ (the test suite replays those).
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
seed fuzz-tiff "0 1 2 3 4 8" "$fixtures"/tiff/*.tif
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

targets=${FUZZ_TARGETS:-"fuzz-jpeg fuzz-png fuzz-tiff fuzz-exif fuzz-recipe fuzz-deflate"}
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
