#!/usr/bin/env bash
# bench/ulimit-v.sh -- fgrun under an address-space limit (`ulimit -v`), issue #28 finding 4: every
# run must end with exit 0 and a complete output, or with a clear error (exit 65 or 73 saying "not
# enough memory" or "out of memory"; a batch's exit 1 with only such errors), never a signal, and
# leave no file but complete outputs. Three kinds of run, each at a sweep of limits:
#   single  one fgrun per row: a 2268x1512 JPEG fitted to 800 px as JPEG, its PNG as PNG, a
#           12-frame 600x400 GIF fitted to 300 px as GIF and as APNG, `text`, the JPEG blurred
#           (sigma 40: the reduced copies held) as WebP, the 24 MP photo fitted to 1000 px;
#   batch   9 files (the JPEG, PNG and GIF thrice, one PNG replaced by the 24 MP photo) at
#           --jobs 2 and --jobs 4 into a folder, as WebP and as PNG;
#   serve   `fgrun serve` on 127.0.0.1 with those files under its root, 12 requests at once
#           (curl: fits to JPEG, WebP, AVIF, the GIF, the 24 MP photo), then /health; every
#           answer must be 200 or a 4xx/5xx with a body, the server must still answer /health
#           after them and exit 0 on SIGTERM.
# Prints one line a run and a tally; a signal, an unclear error or litter exits 3.
#
#   bench/ulimit-v.sh                                   # .build/release/fgrun, the default sweeps
#   FGRUN=/path/fgrun bench/ulimit-v.sh --single "160000 200000" --batch "" --serve "400000"
#
# Results: bench/out/ulimit-v/results.txt. Quote the load (uptime) with the numbers.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fgrun=${FGRUN:-$here/../.build/release/fgrun}
single_limits=$(seq 150000 10000 300000 | tr '\n' ' ')
batch_limits=$(seq 200000 25000 500000 | tr '\n' ' ')
serve_limits=$(seq 250000 50000 800000 | tr '\n' ' ')
port=${PORT:-18490}
while [ $# -gt 0 ]; do
  case "$1" in
    --single) single_limits=$2; shift 2 ;;
    --batch) batch_limits=$2; shift 2 ;;
    --serve) serve_limits=$2; shift 2 ;;
    -h|--help) sed -n 2,20p "$0"; exit 0 ;;
    *) echo "ulimit-v.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
[ -x "$fgrun" ] || { echo "ulimit-v.sh: no fgrun at $fgrun (swift build -c release --product fgrun)" >&2; exit 1; }
fgrun=$(cd "$(dirname "$fgrun")" && pwd)/$(basename "$fgrun")
out=$here/out/ulimit-v; in=$out/in; rm -rf "$out"; mkdir -p "$in" "$out/root"
results=$out/results.txt
inputs=${INPUTS:-$here/inputs}  # the bench inputs (make-inputs.sh makes them there)
photo=$inputs/photo-24mp.jpg
[ -s "$photo" ] || "$here/make-inputs.sh" >/dev/null
gif=$inputs/anim-640x360.gif
[ -s "$gif" ] || "$here/make-inputs.sh" >/dev/null

# Inputs, made without a limit.
cp "$here/../samples/flower.jpg" "$in/flower.jpg"
"$fgrun" -e 'scale factor=1' "$in/flower.jpg" "$in/flower.png" 2>/dev/null
"$fgrun" --frames 1-12 -e 'scale size=600x400' "$gif" "$in/anim12.gif" || exit 1
cp "$photo" "$in/photo.jpg"
for f in flower.jpg flower.png anim12.gif photo.jpg; do cp "$in/$f" "$out/root/$f"; done
# The batch's 9 files, each under its own name (two inputs with one output name are refused).
mkdir "$in/batch"
for i in 1 2 3; do for f in flower.jpg flower.png anim12.gif; do cp "$in/$f" "$in/batch/$i-${f/./-}.${f#*.}"; done; done
rm "$in/batch/3-flower-png.png"; cp "$in/photo.jpg" "$in/batch/photo.jpg"

declare -A tally
count() { tally[$1]=$(( ${tally[$1]:-0} + 1 )); }
bad=0
say() { echo "$*" | tee -a "$results"; }

# Judges one run: STATUS ERRFILE FOLDER EXPECTED-OUTPUTS...
judge() {
  local status=$1 err=$2 folder=$3; shift 3
  local verdict
  if [ "$status" -ge 128 ]; then verdict=signal
  elif [ "$status" = 0 ]; then verdict=ok
  elif [ "$status" = 127 ]; then verdict=loader   # the dynamic loader could not map fgrun's libraries
  elif grep -qiE 'not enough memory|out of memory' "$err"; then verdict="exit$status-memory"
  else verdict="exit$status-other"
  fi
  # Litter: any file in the folder that is not a complete output.
  local f
  for f in "$folder"/* "$folder"/.[!.]*; do
    [ -e "$f" ] || continue
    if ! "$fgrun" info "$f" >/dev/null 2>&1; then verdict="$verdict+litter($(basename "$f"))"; fi
  done
  [ "$status" = 0 ] && for f in "$@"; do [ -s "$folder/$f" ] || verdict="$verdict+missing($f)"; done
  echo "$verdict"
}

say "# fgrun under ulimit -v, $(date -u +%Y-%m-%dT%H:%MZ), $fgrun, load $(cut -d' ' -f1-3 /proc/loadavg)"
rows=(
  "jpeg800|flower.jpg|out.jpg|-e|scale fit=800x800"
  "png800|flower.png|out.png|-e|scale fit=800x800"
  "gif2gif|anim12.gif|out.gif|-e|scale fit=300x300"
  "gif2apng|anim12.gif|out.png|-e|scale fit=300x300"
  "text|flower.jpg|out.png|-e|text string=\"Hostile input, round three\" size=48"
  "blur40webp|flower.jpg|out.webp|-e|blur sigma=40"
  "photo1000|photo.jpg|out.jpg|-e|scale fit=1000x1000"
)
for limit in $single_limits; do
  for row in "${rows[@]}"; do
    IFS='|' read -r name input output flag recipe <<<"$row"
    work=$out/run; rm -rf "$work"; mkdir -p "$work"
    (cd "$work" && ulimit -v "$limit" && SWIFT_BACKTRACE=enable=no exec "$fgrun" $flag "$recipe" "$in/$input" "$output") \
      >/dev/null 2>"$out/err.txt"
    status=$?
    verdict=$(judge $status "$out/err.txt" "$work" "$output")
    count "single $verdict"
    case $verdict in ok|loader|exit65-memory|exit73-memory) ;; *) bad=1; cp "$out/err.txt" "$out/bad-$name-$limit.txt" ;; esac
    say "single $limit $name status=$status $verdict"
  done
done

for limit in $batch_limits; do
  for jobs in 2 4; do
    for format in webp png; do
      work=$out/batch; rm -rf "$work"; mkdir -p "$work"
      (ulimit -v "$limit" && SWIFT_BACKTRACE=enable=no exec "$fgrun" -e 'scale fit=700x700' --jobs $jobs --format $format \
        --report "$out/report.json" -o "$work" "$in"/batch/*) >/dev/null 2>"$out/err.txt"
      status=$?
      verdict=$(judge $status "$out/err.txt" "$work")
      # A batch with failed files: each failure must be a memory sentence.
      if [ "$status" = 1 ]; then
        if grep -vE '^fgrun: warning' "$out/err.txt" | grep -E 'error' | grep -qviE 'not enough memory|out of memory'; then
          verdict="exit1-other"
        else verdict="exit1-memory"; fi
        verdict="$verdict$(judge 0 /dev/null "$work" | sed -n 's/^ok//p')"
      fi
      count "batch $verdict"
      case $verdict in ok|loader|exit1-memory|exit65-memory) ;; *) bad=1; cp "$out/err.txt" "$out/bad-batch-$jobs-$format-$limit.txt" ;; esac
      say "batch $limit jobs=$jobs $format status=$status written=$(ls "$work" | wc -l)/9 $verdict"
    done
  done
done

urls=(
  "/_/rs:fit:800:800/q:80/plain/local:///flower.jpg@jpg"
  "/_/rs:fit:800:800/q:80/plain/local:///flower.jpg@webp"
  "/_/rs:fit:600:600/q:80/plain/local:///flower.png@avif"
  "/_/rs:fit:300:300/plain/local:///anim12.gif@gif"
  "/_/rs:fit:500:500/q:80/plain/local:///photo.jpg@jpg"
  "/_/rs:fit:2000:2000/bl:20/plain/local:///photo.jpg@png"
)
for limit in $serve_limits; do
  (ulimit -v "$limit" && SWIFT_BACKTRACE=enable=no exec setsid "$fgrun" serve --root "$out/root" --allow-unsigned \
    --bind "127.0.0.1:$port" --shutdown-grace 20 --queue-wait 300 --timeout 300) >"$out/server.log" 2>&1 &
  server=$!
  up=no
  for _ in $(seq 100); do
    if curl -fs -o /dev/null "http://127.0.0.1:$port/health"; then up=yes; break; fi
    kill -0 $server 2>/dev/null || break
    sleep 0.1
  done
  if [ $up = no ]; then
    wait $server; status=$?
    verdict=$( [ $status -ge 128 ] && echo signal || { [ $status = 127 ] && echo loader || echo "start-exit$status"; } )
    count "serve $verdict"
    [ "$verdict" = signal ] && bad=1
    say "serve $limit did not start: status=$status $verdict $(tail -1 "$out/server.log")"
    continue
  fi
  codes=()
  for round in 1 2; do
    for url in "${urls[@]}"; do
      curl -s -m 300 -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$port$url?r=$round" >"$out/code-$round-${#codes[@]}.txt" &
      codes+=("$out/code-$round-${#codes[@]}.txt")
    done
  done
  wait $(jobs -p | grep -v "^$server$") 2>/dev/null
  answers=$(cat "${codes[@]}" | sort | uniq -c | awk '{printf "%s×%s ", $1, $2}')
  health=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")
  kill -TERM $server 2>/dev/null
  wait $server; status=$?
  verdict=ok
  [ $status -ge 128 ] && verdict=signal
  [ $status != 0 ] && [ $status -lt 128 ] && verdict="exit$status"
  [ "$health" = 200 ] || verdict="$verdict+health$health"
  # Every answer is 200, 413, 422, 429, 500, 503 or 504 (000: no answer at all, a dead server).
  if cat "${codes[@]}" | grep -qvE '^(200|413|422|429|500|503|504)$'; then verdict="$verdict+no-answer"; fi
  count "serve $verdict"
  [ "$verdict" = ok ] || { bad=1; cp "$out/server.log" "$out/bad-serve-$limit.txt"; }
  say "serve $limit answers: $answers health=$health exit=$status $verdict"
  rm -f "${codes[@]}"
done

say "## tally"
for k in "${!tally[@]}"; do say "$k: ${tally[$k]}"; done
[ $bad = 0 ] || { say "ulimit-v.sh: a signal, an unclear error, litter or a dead server (bench/out/ulimit-v/bad-*)"; exit 3; }
