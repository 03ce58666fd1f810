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
#   FUZZ_PARALLEL=1 FUZZ_NICE=19 make fuzz   every target at once, at the lowest priority (a shared machine)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-180}
timeout=${FUZZ_TIMEOUT:-10}
rss=${FUZZ_RSS_MB:-2560}
parallel=${FUZZ_PARALLEL:-0}
niceness=${FUZZ_NICE:-0}
work=.build-fuzz
fixtures=Tests/TestSupport/Fixtures
export SWIFT_BACKTRACE=enable=no   # a crash report from libFuzzer, not an interactive backtrace
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"   # a leak inside libdav1d

# SwiftPM passes `-sanitize=fuzzer -sanitize=address` to swiftc, and swiftc keeps only the last
# `-sanitize=`: Swift code would get AddressSanitizer and no coverage counters (libFuzzer would see
# only the C shims' edges). One combined flag, last, gives it both.
build=(swift build --package-path Fuzz -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
"${build[@]}" 2>&1 | grep -v "ld.gold: warning" | tail -n 3
bin=$("${build[@]}" --show-bin-path 2>/dev/null)
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

# fuzz-animation: every GIF behind 0 (GIF reader) and 2 (frames skipped), every WebP behind 1 and 3,
# every APNG behind 4 and 6.
seed fuzz-animation "0 2" "$fixtures"/gif/*.gif "$fixtures"/animation/*.gif
seed fuzz-animation "1 3" "$fixtures"/webp/*.webp "$fixtures"/animation/*.webp
seed fuzz-animation "4 6" "$fixtures"/animation/*.png

# fuzz-gainmap: Ultra HDR and plain JPEGs behind 0, the XMP packets behind 1, and the ISO 21496-1
# blocks (2) and MPF payloads (3) of the primary image and the map cut out of the Ultra HDR fixtures.
seed fuzz-gainmap "0" "$fixtures"/uhdr/*.jpg "$fixtures"/jpeg/*.jpg
seed fuzz-gainmap "1" "$fixtures"/uhdr/*.xmp
python3 - "$fixtures" "$work/corpus/fuzz-gainmap" <<'PY'
import glob, os, struct, sys
fixtures, out = sys.argv[1], sys.argv[2]
for path in glob.glob(fixtures + '/uhdr/*.jpg'):
    b, name = open(path, 'rb').read(), os.path.basename(path)
    for n, (signature, selector) in enumerate([(b'urn:iso:std:iso:ts:21496:-1\0', 2), (b'MPF\0', 3)] * 2):
        i = b.find(signature, 0 if n < 2 else b.find(b'\xff\xd8', 2))
        if i >= 4:
            length = struct.unpack('>H', b[i - 2:i])[0]
            payload = b[i + len(signature):i - 2 + length]
            open(os.path.join(out, '%d-%s-%d' % (selector, name, n)), 'wb').write(bytes([selector]) + payload)
PY

# fuzz-text: strings in several scripts, in the families (selector bits 0-1), and after a NUL in
# the font fixture and a few small installed fonts (TrueType outlines, CFF, COLR).
mkdir -p "$work/corpus/fuzz-text"
strings=("Hello, world" "fi ffl AV To. 1/2" $'Two\nlines' "שלום עולם abc" "مرحبا بالعالم" "สวัสดีครับ" "👋🏽 🇫🇷 a😀b" "ᚠᚢᚦᚨᚱᚲ")
for i in "${!strings[@]}"; do
  for s in 0 3 84 201; do printf "\\x$(printf %02x $((s + i)))%s" "${strings[$i]}" > "$work/corpus/fuzz-text/$s-$i"; done
done
for f in "$fixtures"/text/*.ttf /usr/share/fonts/truetype/noto/NotoSansRunic-Regular.ttf \
    /usr/share/fonts/truetype/noto/NotoSerifHebrew-Bold.ttf /usr/share/fonts/opentype/urw-base35/D050000L.otf; do
  [ -f "$f" ] && { printf '\x25ABC ᚠᚢ שלום\0'; cat "$f"; } > "$work/corpus/fuzz-text/font-$(basename "$f")"
done

# fuzz-server-url: imgproxy URLs (docs/Server.md's options), unsigned behind 1, signed with the
# target's key ("secret", salt "hello") behind 0; the option names as a dictionary.
mkdir -p "$work/corpus/fuzz-server-url"
python3 - "$work/corpus/fuzz-server-url" <<'PY'
import base64, hashlib, hmac, os, sys
out = sys.argv[1]
paths = ['/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png',
         '/w:10/plain/local:///photo.jpg@png', '/rs:fit:20:10:1:1:so/bg:ff8000/plain/local:///a.png',
         '/s:8:8/rt:fill/g:noea:2:0.5/plain/local:///a%20b.jpg@webp', '/c:0.5:10:we/t:10:ffffff/rot:90/plain/x@jpg',
         '/bl:2/sh:1.5/pd:1:2:3:4/dpr:2/q:50/sm:0/cb:x/plain/http://example.com/i.gif@gif',
         '/ex:1:ce/el:1/h:12/f:avif/plain/local:///i.png', '/wm:0.5:soea:2:2:0.2/recipe:a:b/plain/local:///i.png',
         '/g:fp:0.3:0.7/rs:auto:0:9/aHR0cHM6Ly9leGFtcGxlLmNvbS9hLnBuZw']
for n, p in enumerate(paths):
    signature = base64.urlsafe_b64encode(hmac.new(b'secret', b'hello' + p.encode(), hashlib.sha256).digest()).rstrip(b'=')
    open(os.path.join(out, '0-%d' % n), 'wb').write(b'\0/' + signature + p.encode())
    open(os.path.join(out, '1-%d' % n), 'wb').write(b'\1/_' + p.encode() + (b'\nimage/avif,image/webp,*/*;q=0.8' if n % 2 else b''))
PY
sed -n 's/^| `\([a-z_]*\)` | `\([a-z]*\)`.*/"\1:"\n"\2:"/p' docs/Server.md > "$work/url.dict"
printf '%s\n' '"/plain/"' '"local:///"' '"http://"' '"@"' '":"' '"%2F"' '"fill"' '"fit"' '"sm"' '"fp"' >> "$work/url.dict"

targets=${FUZZ_TARGETS:-"fuzz-jpeg fuzz-png fuzz-webp fuzz-gif fuzz-heif fuzz-tiff fuzz-exif fuzz-metadata fuzz-recipe fuzz-deflate fuzz-animation fuzz-gainmap fuzz-text fuzz-server-url"}
failed=()
# fuzz_one TARGET: runs it for `seconds`, its output in $work/TARGET.log; fails on a finding.
fuzz_one() {
  local t=$1 exe="$bin/$1" dict=()
  [ "$t" = fuzz-deflate ] && exe="$work/bin/fuzz-deflate"
  [ "$t" = fuzz-recipe ] && dict=(-dict="$work/recipe.dict")
  [ "$t" = fuzz-server-url ] && dict=(-dict="$work/url.dict")
  mkdir -p "Fuzz/findings/$t"
  nice -n "$niceness" "$exe" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" -print_final_stats=1 \
    -artifact_prefix="Fuzz/findings/$t/" "${dict[@]}" "$work/corpus/$t" > "$work/$t.log" 2>&1
}
# summarise TARGET STATUS: what a run found and how far it got.
summarise() {
  if [ "$2" != 0 ]; then
    failed+=("$1")
    grep -E "ERROR|SUMMARY|Test unit written|error" "$work/$1.log" | head -n 5 || true
  fi
  grep -E "stat::number_of_executed_units|cov:" "$work/$1.log" | tail -n 2 || true
}
pids=()
for t in $targets; do
  echo "fuzz: $t for ${seconds}s"
  if [ "$parallel" = 1 ]; then
    fuzz_one "$t" & pids+=("$!")
  else
    status=0; fuzz_one "$t" || status=$?
    summarise "$t" "$status"
  fi
done
k=0
for t in $targets; do
  [ "$parallel" = 1 ] || break
  status=0; wait "${pids[$k]}" || status=$?
  echo "fuzz: $t"; summarise "$t" "$status"
  k=$((k + 1))
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in Fuzz/findings/)"
  exit 1
fi
echo "fuzz: every target ran ${seconds}s without a crash, leak or timeout"
