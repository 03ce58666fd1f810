#!/usr/bin/env bash
# bench/serve.sh -- `fgrun serve` under load (issue #22's workloads), on loopback only, each
# workload bounded in time. Needs wrk and curl (scripts/install-deps.sh --bench) and a release
# fgrun (built when .build/release/fgrun is missing).
#
#   bench/serve.sh                 # S1, S2, S3 for 30 s each
#   bench/serve.sh -d 10 -w S1,S3  # shorter, some workloads
#   bench/serve.sh --fgrun PATH    # another build
#
# S1  imgproxy's published benchmark: one large camera JPEG fitted to 500 px, 4 connections
#     (../shared/bench/inputs/photo-24mp.jpg, else bench/inputs/photo-24mp.jpg from make-inputs.sh).
# S2  20 photos (bench/inputs/w10, from make-batch-inputs.py) to 400/800/1200 px, the format
#     negotiated from Accept among JPEG, WebP and AVIF, 8 connections.
# S3  one URL again and again with If-None-Match: the 304 path, 8 connections.
# Beside S1 and S2, the same work through `fgrun` batch (--jobs 2) gives the engine's own
# files/s. The server is started afresh for each workload, so its peak RSS (VmHWM) is that
# workload's. Results: bench/out/serve-results.md. Quote the machine's load with the numbers.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
duration=30 workloads=S1,S2,S3 fgrun=${FGRUN:-$here/../.build/release/fgrun} port=${PORT:-18480}
while [ $# -gt 0 ]; do
  case "$1" in
    -d) duration=$2; shift 2 ;;
    -w) workloads=$2; shift 2 ;;
    --fgrun) fgrun=$2; shift 2 ;;
    -h|--help) sed -n 2,20p "$0"; exit 0 ;;
    *) echo "serve.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
for tool in wrk curl; do command -v $tool >/dev/null || { echo "serve.sh: needs $tool (scripts/install-deps.sh --bench)" >&2; exit 1; }; done
[ -x "$fgrun" ] || (cd "$here/.." && swift build -c release --product fgrun >/dev/null)

out=$here/out/serve; root=$out/root; mkdir -p "$root/s2" "$out/batch"
s1=$here/../../shared/bench/inputs/photo-24mp.jpg
[ -s "$s1" ] || { "$here/make-inputs.sh" >/dev/null; s1=$here/inputs/photo-24mp.jpg; }
# Hard links (or copies): the server refuses symlinks that lead out of its root.
place() { ln -f "$1" "$2" 2>/dev/null || cp -f "$1" "$2"; }
place "$s1" "$root/s1.jpg"
if [[ $workloads == *S2* ]]; then
  [ -d "$here/inputs/w10" ] || "${PYTHON:-python3}" "$here/make-batch-inputs.py" >/dev/null
  for f in $(ls "$here/inputs/w10"/*.jpg | head -20); do place "$f" "$root/s2/$(basename "$f")"; done
fi
results=$out/../serve-results.md
echo "# fgrun serve, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), ${duration} s a workload" > "$results"
echo "| workload | requests/s | p50 | p99 | errors | peak RSS | batch files/s |" >> "$results"
echo "|---|---|---|---|---|---|---|" >> "$results"

pid=
stop_server() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=; }
trap stop_server EXIT
start_server() {
  "$fgrun" serve --root "$root" --allow-unsigned --bind "127.0.0.1:$port" --accept-formats avif,webp 2>"$out/server.log" &
  pid=$!
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/ready" >/dev/null && return; sleep 0.1; done
  echo "serve.sh: the server did not start (see $out/server.log)" >&2; exit 1
}
peak_rss() { awk '/VmHWM/ { printf "%.0f MB", $2 / 1024 }' "/proc/$pid/status"; }
# wrk's summary -> "req/s | p50 | p99 | errors"
summarise() {
  awk '/Requests\/sec/ { rps = $2 } /^ +50%/ { p50 = $2 } /^ +99%/ { p99 = $2 }
       /Non-2xx or 3xx/ { err += $NF } /Socket errors/ { err += 1 }
       END { printf "%s | %s | %s | %d", rps, p50, p99, err }' "$1"
}
batch_rate() {  # files/s of `fgrun -e RECIPE FILES -o DIR --jobs 2`
  local recipe=$1; shift
  local start end; start=$(date +%s.%N)
  "$fgrun" -e "$recipe" "$@" -o "$out/batch" --jobs 2 >/dev/null 2>&1
  end=$(date +%s.%N)
  echo "$# $start $end" | awk '{ printf "%.2f", $1 / ($3 - $2) }'
}

for w in ${workloads//,/ }; do
  start_server
  case $w in
    S1)
      wrk -t2 -c4 -d"${duration}s" --timeout 30s --latency "http://127.0.0.1:$port/_/rs:fit:500:500/plain/local:///s1.jpg@jpg" > "$out/S1.txt"
      mkdir -p "$out/s1copies"
      for i in 1 2 3 4 5 6 7 8; do ln -sf "$root/s1.jpg" "$out/s1copies/s1-$i.jpg"; done
      batch=$(batch_rate "scale fit=500x500" "$out"/s1copies/*.jpg) ;;
    S2)
      cat > "$out/s2.lua" <<LUA
local files, sizes = {}, {400, 800, 1200}
local accepts = {"image/jpeg", "image/webp,*/*", "image/avif,image/webp,*/*"}
for name in io.popen('ls "$root/s2"'):lines() do files[#files + 1] = name end
local n = 0
request = function()
  n = n + 1
  local f, s, a = files[n % #files + 1], sizes[n % 3 + 1], accepts[n % 3 + 1]
  return wrk.format("GET", "/_/rs:fit:" .. s .. ":" .. s .. "/plain/local:///s2/" .. f, {["Accept"] = a})
end
LUA
      wrk -t2 -c8 -d"${duration}s" --timeout 30s --latency -s "$out/s2.lua" "http://127.0.0.1:$port" > "$out/S2.txt"
      batch=$(batch_rate "scale fit=800x800" "$root"/s2/*.jpg) ;;
    S3)
      url="http://127.0.0.1:$port/_/rs:fit:500:500/plain/local:///s1.jpg@jpg"
      etag=$(curl -fs -D - -o /dev/null "$url" | awk -F': ' 'tolower($1) == "etag" { print $2 }' | tr -d '\r')
      wrk -t2 -c8 -d"${duration}s" --latency -H "If-None-Match: $etag" "$url" > "$out/S3.txt"
      batch="-" ;;
    *) echo "serve.sh: unknown workload $w" >&2; exit 64 ;;
  esac
  echo "| $w | $(summarise "$out/$w.txt") | $(peak_rss) | $batch |" >> "$results"
  stop_server
done
cat "$results"
