#!/usr/bin/env bash
# bench/serve.sh -- `fgrun serve` under load (issue #22's workloads), on loopback only, each
# workload bounded in time, beside the same work through `fgrun` batch (the engine's own ceiling)
# and through thumbor (the peer server, its default Pillow engine). Needs wrk, curl and GNU time
# (scripts/install-deps.sh --bench), a release fgrun (built when .build/release/fgrun is missing)
# and thumbor in bench/.venv-thumbor (bench/install-thumbor.sh, run when missing).
#
#   bench/serve.sh                        # S1, S2, S3 for 30 s each, with thumbor
#   bench/serve.sh -d 10 -w S1,S3         # shorter, some workloads
#   bench/serve.sh -w SOAK --soak-minutes 10
#   bench/serve.sh -w OVERLOAD --soak-minutes 10 --no-thumbor
#   bench/serve.sh --no-thumbor --fgrun PATH
#   bench/serve.sh --thumbor-processes 1   # thumbor as it starts by default: one process
#
# S1    imgproxy's published benchmark: one large camera JPEG fitted to 500 px, JPEG Q80,
#       4 connections (../shared/bench/inputs/photo-24mp.jpg, else bench/inputs/photo-24mp.jpg).
# S2    20 photos (bench/inputs/w10, from make-batch-inputs.py) fitted to 400 px as JPEG, 800 px as
#       WebP and 1200 px as AVIF (Q80), the format negotiated from Accept, 8 connections.
# S3    one URL again and again with If-None-Match: the 304 path, 8 connections.
# SOAK  S2's load for --soak-minutes (default 10); the server's RSS sampled every 5 s; drift is
#       the last minute's mean RSS against the mean of the minute after the first (warm-up).
# OVERLOAD  SOAK at 3x the server's capacity: 3 x (renders in flight + requests that may wait)
#       connections (--overload-connections; 3 x (cores + 64) by default), so most requests are
#       refused 429. Then the drain: 8 S1 renders asked at once, SIGTERM 1 s later; every one
#       must end 200 and the server exit 0. Statuses from the server's /metrics.
# Batch rows do the same renders (S1: 16 copies of the photo; S2: the 20 photos once per size and
# format) with `--jobs 2`; files/s and peak RSS by GNU time. thumbor runs with one process per
# core (--thumbor-processes), AUTO_WEBP/AUTO_AVIF on, QUALITY 80, no storage; its peak RSS is the sum over its processes.
# Each server starts afresh for each workload, so its peak RSS (VmHWM) is that workload's. The
# memory targets (S2 peak RSS <= 1.5x the batch's, SOAK drift <= 5 %) are checked after the table:
# the script exits 3 when one is not met.
# Results: bench/out/serve-results.md. Quote the machine's load with the numbers.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
duration=30 workloads=S1,S2,S3 soak_minutes=10 thumbor=yes thumbor_processes=$(nproc) overload_connections=$((3 * ($(nproc) + 64)))
fgrun=${FGRUN:-$here/../.build/release/fgrun} port=${PORT:-18480} thumbor_port=$((${PORT:-18480} + 1))
while [ $# -gt 0 ]; do
  case "$1" in
    -d) duration=$2; shift 2 ;;
    -w) workloads=$2; shift 2 ;;
    --soak-minutes) soak_minutes=$2; shift 2 ;;
    --overload-connections) overload_connections=$2; shift 2 ;;
    --no-thumbor) thumbor=no; shift ;;
    --thumbor-processes) thumbor_processes=$2; shift 2 ;;
    --fgrun) fgrun=$2; shift 2 ;;
    -h|--help) sed -n 2,32p "$0"; exit 0 ;;
    *) echo "serve.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
for tool in wrk curl; do command -v $tool >/dev/null || { echo "serve.sh: needs $tool (scripts/install-deps.sh --bench)" >&2; exit 1; }; done
[ -x /usr/bin/time ] || { echo "serve.sh: needs GNU time (scripts/install-deps.sh --bench)" >&2; exit 1; }
[ -x "$fgrun" ] || (cd "$here/.." && swift build -c release --product fgrun >/dev/null)
venv=$here/.venv-thumbor
[ $thumbor = no ] || [ -x "$venv/bin/thumbor" ] || "$here/install-thumbor.sh" >/dev/null

out=$here/out/serve; root=$out/root; mkdir -p "$root/s2" "$out/batch"
s1=$here/../../shared/bench/inputs/photo-24mp.jpg
[ -s "$s1" ] || { "$here/make-inputs.sh" >/dev/null; s1=$here/inputs/photo-24mp.jpg; }
# Hard links (or copies): the server refuses symlinks that lead out of its root.
place() { ln -f "$1" "$2" 2>/dev/null || cp -f "$1" "$2"; }
place "$s1" "$root/s1.jpg"
if [[ $workloads == *S2* || $workloads == *SOAK* || $workloads == *OVERLOAD* ]]; then
  [ -d "$here/inputs/w10" ] || "${PYTHON:-python3}" "$here/make-batch-inputs.py" >/dev/null
  for f in $(ls "$here/inputs/w10"/*.jpg | head -20); do place "$f" "$root/s2/$(basename "$f")"; done
fi
results=$out/../serve-results.md
{
  echo "# fgrun serve, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), ${duration} s a workload"
  echo
  echo "| workload | server | requests/s | p50 | p99 | p99/p50 | errors | peak RSS | batch files/s | batch peak RSS |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$results"

pids=() checks=()
# Each server runs in its own process group (setsid), so stopping it stops the processes it forked.
stop_servers() { for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done; pids=(); }
trap stop_servers EXIT
wait_ready() {  # URL LOG
  for _ in $(seq 200); do curl -fs -o /dev/null "$1" && return; sleep 0.1; done
  echo "serve.sh: a server did not start (see $2)" >&2; exit 1
}
start_fgrun() {
  setsid "$fgrun" serve --root "$root" --allow-unsigned --bind "127.0.0.1:$port" --accept-formats avif,webp \
    >"$out/fgrun-server.log" 2>&1 &
  pids=($!)
  wait_ready "http://127.0.0.1:$port/ready" "$out/fgrun-server.log"
}
start_thumbor() {
  cat > "$out/thumbor.conf" <<CONF
LOADER = 'thumbor.loaders.file_loader'
FILE_LOADER_ROOT_PATH = '$root'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
QUALITY = 80
WEBP_QUALITY = 80
AUTO_WEBP = True
AUTO_AVIF = True
CONF
  setsid "$venv/bin/thumbor" -i 127.0.0.1 -p "$thumbor_port" -c "$out/thumbor.conf" --processes "$thumbor_processes" -l error \
    >"$out/thumbor.log" 2>&1 &
  pids=($!)
  wait_ready "http://127.0.0.1:$thumbor_port/healthcheck" "$out/thumbor.log"
}
# Peak RSS of the running server: VmHWM summed over the process and its children (thumbor forks).
peak_rss_kb() {
  local all="${pids[0]} $(pgrep -P "${pids[0]}" | tr '\n' ' ')"
  for p in $all; do cat "/proc/$p/status"; done 2>/dev/null | awk '/VmHWM/ { kb += $2 } END { print kb }'
}
peak_rss() { echo "$(($(peak_rss_kb) / 1024)) MB"; }
current_rss_kb() { awk '/VmRSS/ { print $2 }' "/proc/${pids[0]}/status"; }
# wrk's summary -> "req/s | p50 | p99 | p99/p50 | errors"
summarise() {
  awk 'function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /m$/) return v * 60000; return v * 1000 }
       /Requests\/sec/ { rps = $2 } /^ +50%/ { p50 = $2 } /^ +99%/ { p99 = $2 }
       /Non-2xx or 3xx/ { err += $NF } /Socket errors/ { err += 1 }
       END { printf "%s | %s | %s | %.2f | %d", rps, p50, p99, ms(p99) / ms(p50), err }' "$1"
}
# The batch rows: `batch_run RECIPE FORMAT FILES…` once per size and format, then `batch_rate` sets
# batch_result to the files/s over all of them and the highest peak RSS.
batch_files=0 batch_peak=0 batch_start=
batch_run() {
  local recipe=$1 format=$2; shift 2
  [ -n "$batch_start" ] || batch_start=$(date +%s.%N)
  /usr/bin/time -f %M -o "$out/batch.time" "$fgrun" -e "$recipe" --quality 80 --format "$format" "$@" \
    -o "$out/batch" --jobs 2 >"$out/batch.log" 2>&1 || { echo "serve.sh: the batch failed (see $out/batch.log)" >&2; exit 1; }
  local kb; kb=$(tail -1 "$out/batch.time"); [ "$kb" -gt "$batch_peak" ] && batch_peak=$kb
  batch_files=$((batch_files + $#))
}
batch_rate() {
  batch_result=$(echo "$batch_files $batch_start $(date +%s.%N) $batch_peak" | awk '{ printf "%.2f | %.0f MB", $1 / ($3 - $2), $4 / 1024 }')
  batch_files=0 batch_peak=0 batch_start=
}
s2_lua() {  # PATH-PREFIX -> a wrk script cycling through every (photo, size+format) pair
  cat > "$out/s2.lua" <<LUA
local files, sizes = {}, {400, 800, 1200}
local accepts = {"image/jpeg", "image/webp", "image/avif"}
for name in io.popen('ls "$root/s2"'):lines() do files[#files + 1] = name end
local n = 0
request = function()
  n = n + 1
  local f, i = files[math.floor(n / 3) % #files + 1], n % 3 + 1
  return wrk.format("GET", string.format("$1", sizes[i], sizes[i], f), {["Accept"] = accepts[i]})
end
LUA
}
fgrun_s2="/_/rs:fit:%d:%d/q:80/plain/local:///s2/%s"
thumbor_s2="/unsafe/fit-in/%dx%d/s2/%s"

# `soak NAME CONNECTIONS`: S2's URLs for --soak-minutes at CONNECTIONS, the server's RSS sampled
# every 5 s into NAME-rss.csv; sets `drift` (mean RSS of minute 2 against the last minute's).
soak() {
  start_fgrun; s2_lua "$fgrun_s2"
  local minutes=$soak_minutes t
  wrk -t2 -c"$2" -d"$((minutes * 60))s" --timeout 30s --latency -s "$out/s2.lua" "http://127.0.0.1:$port" > "$out/$1-fgrun.txt" &
  local load=$!
  : > "$out/$1-rss.csv"
  # Sampled while the load runs, by the time since it started (a count of 5 s sleeps overruns it).
  local began=$SECONDS
  while sleep 5; kill -0 $load 2>/dev/null; do echo "$((SECONDS - began)),$(current_rss_kb)" >> "$out/$1-rss.csv"; done
  wait $load
  drift=$(awk -F, -v end="$(tail -1 "$out/$1-rss.csv" | cut -d, -f1)" '
    $1 > 60 && $1 <= 120 { early += $2; ne++ }
    $1 > end - 60 { late += $2; nl++ }
    END { early /= ne; late /= nl; d = (late - early) * 100 / early
          printf "mean RSS %.0f MB (minute 2) -> %.0f MB (last minute): drift %+.1f %% (target <= 5 %%): %s", early / 1024, late / 1024, d, d <= 5 ? "met" : "NOT MET" }' "$out/$1-rss.csv")
}
# A row: the workload's wrk summary and the running server's peak RSS; the batch columns follow.
row() {
  local server=$2; [ "$2" = thumbor ] && server="thumbor ($thumbor_processes processes)"
  printf "| %s | %s | %s | %s | " "$1" "$server" "$(summarise "$out/$1-$2.txt")" "$(peak_rss)" >> "$results"
}
end_row() { echo "$1 |" >> "$results"; }
for w in ${workloads//,/ }; do
  case $w in
    S1)
      mkdir -p "$out/s1copies"
      for i in $(seq 16); do place "$root/s1.jpg" "$out/s1copies/s1-$i.jpg"; done
      start_fgrun
      wrk -t2 -c4 -d"${duration}s" --timeout 30s --latency "http://127.0.0.1:$port/_/rs:fit:500:500/q:80/plain/local:///s1.jpg@jpg" > "$out/S1-fgrun.txt"
      row S1 fgrun; stop_servers
      batch_run "scale fit=500x500" jpeg "$out"/s1copies/*.jpg
      batch_rate; end_row "$batch_result"
      if [ $thumbor = yes ]; then
        start_thumbor
        wrk -t2 -c4 -d"${duration}s" --timeout 30s --latency "http://127.0.0.1:$thumbor_port/unsafe/fit-in/500x500/s1.jpg" > "$out/S1-thumbor.txt"
        row S1 thumbor; end_row "- | -"; stop_servers
      fi ;;
    S2)
      start_fgrun; s2_lua "$fgrun_s2"
      wrk -t2 -c8 -d"${duration}s" --timeout 30s --latency -s "$out/s2.lua" "http://127.0.0.1:$port" > "$out/S2-fgrun.txt"
      row S2 fgrun; serve_peak=$(peak_rss_kb); stop_servers
      batch_run "scale fit=400x400" jpeg "$root"/s2/*.jpg
      batch_run "scale fit=800x800" webp "$root"/s2/*.jpg
      batch_run "scale fit=1200x1200" avif "$root"/s2/*.jpg
      checks+=("$(echo "$serve_peak $batch_peak" | awk '{ r = $1 / $2
        printf "S2 peak RSS: server %.0f MB = %.2f x the batch'"'"'s %.0f MB (target <= 1.5 x): %s", $1 / 1024, r, $2 / 1024, r <= 1.5 ? "met" : "NOT MET" }')")
      batch_rate; end_row "$batch_result"
      if [ $thumbor = yes ]; then
        start_thumbor; s2_lua "$thumbor_s2"
        wrk -t2 -c8 -d"${duration}s" --timeout 30s --latency -s "$out/s2.lua" "http://127.0.0.1:$thumbor_port" > "$out/S2-thumbor.txt"
        row S2 thumbor; end_row "- | -"; stop_servers
      fi ;;
    S3)
      start_fgrun
      url="http://127.0.0.1:$port/_/rs:fit:500:500/q:80/plain/local:///s1.jpg@jpg"
      etag=$(curl -fs -D - -o /dev/null "$url" | awk -F': ' 'tolower($1) == "etag" { print $2 }' | tr -d '\r')
      wrk -t2 -c8 -d"${duration}s" --latency -H "If-None-Match: $etag" "$url" > "$out/S3-fgrun.txt"
      row S3 fgrun; end_row "- | -"; stop_servers
      if [ $thumbor = yes ]; then
        start_thumbor
        url="http://127.0.0.1:$thumbor_port/unsafe/fit-in/500x500/s1.jpg"
        etag=$(curl -fs -D - -o /dev/null "$url" | awk -F': ' 'tolower($1) == "etag" { print $2 }' | tr -d '\r')
        wrk -t2 -c8 -d"${duration}s" --latency -H "If-None-Match: $etag" "$url" > "$out/S3-thumbor.txt"
        row S3 thumbor; end_row "- | -"; stop_servers
      fi ;;
    SOAK)
      soak SOAK 8
      row SOAK fgrun; end_row "- | -"; stop_servers
      checks+=("SOAK, ${soak_minutes} min of S2: $drift (samples: bench/out/serve/SOAK-rss.csv)") ;;
    OVERLOAD)
      soak OVERLOAD "$overload_connections"
      statuses=$(curl -fs "http://127.0.0.1:$port/metrics" | awk -F'[{}"]' '/^fgrun_serve_requests_total/ { split($0, f, " "); printf "%s %s, ", $3, f[2] }')
      row OVERLOAD fgrun; end_row "- | -"
      # The drain: renders in flight (and waiting) when SIGTERM comes still end 200.
      for i in $(seq 8); do
        curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$port/_/rs:fit:500:500/q:80/plain/local:///s1.jpg@jpg?$i" > "$out/drain-$i.txt" &
      done
      sleep 1; term=$(date +%s.%N); kill -TERM "${pids[0]}"; wait "${pids[0]}" && code=0 || code=$?
      took=$(echo "$term $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }'); wait; pids=()
      drained=$(cat "$out"/drain-*.txt | sort | uniq -c | awk '{ printf "%s x %s ", $1, $2 }')
      ok=$([ "$code" = 0 ] && [ "$(grep -c '^200$' "$out"/drain-*.txt | awk -F: '{ n += $2 } END { print n }')" = 8 ] && echo met || echo "NOT MET")
      checks+=("OVERLOAD, ${soak_minutes} min at $overload_connections connections: $drift; statuses ${statuses%, } (samples: bench/out/serve/OVERLOAD-rss.csv)")
      checks+=("OVERLOAD drain: SIGTERM with 8 renders asked, answers ${drained% }, server exit $code after $took s (target all 200, exit 0): $ok") ;;
    *) echo "serve.sh: unknown workload $w" >&2; exit 64 ;;
  esac
done
# The memory targets, checked: the script fails (exit 3) when one is not met.
[ ${#checks[@]} -eq 0 ] || { echo; printf '%s\n' "${checks[@]}"; } >> "$results"
cat "$results"
for c in "${checks[@]}"; do [[ $c != *"NOT MET"* ]] || exit 3; done
