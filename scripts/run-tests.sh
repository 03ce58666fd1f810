#!/usr/bin/env bash
# Runs the built test suite as several processes side by side, one test class at a time each.
#
#   scripts/run-tests.sh BUILD_DIR [SKIP_REGEX]
#
# BUILD_DIR holds FilterGraphPackageTests.xctest (`.build/debug`, `.build-tsan/debug`); classes whose
# name ("Module.Class") matches SKIP_REGEX (Perl syntax) are left out. `swift test` runs the classes
# one after another in one process, which keeps the machine about half idle: many tests wait on a
# child fgrun, a server on loopback, a decoder's single thread or a file. Here TEST_JOBS processes
# (default: the number of cores) each take the next class from a queue, the slowest known classes
# first so that none is left running alone at the end. Each class's output goes to
# BUILD_DIR/test-logs/CLASS.log; a line per class is printed as it ends, and the whole output of
# every class that failed (a failed assertion, a crash, or a sanitizer's report, which ends its
# process with a non-zero status) is printed at the end. Exit status 1 when any class failed.
set -euo pipefail
build=${1:?usage: scripts/run-tests.sh BUILD_DIR [SKIP_REGEX]}
skip=${2:-}
bundle="$build/FilterGraphPackageTests.xctest"
[ -x "$bundle" ] || { echo "run-tests: $bundle is not built" >&2; exit 2; }
jobs=${TEST_JOBS:-$(nproc)}
logs="$build/test-logs"
rm -rf "$logs" && mkdir -p "$logs"

# The classes that take longest (tens of seconds each, more under a sanitizer); started first.
slowest='fgrunTests.BatchTests FilterGraphTests.MemoryEstimateTests FilterGraphTests.FilterConformanceTests
FilterGraphTests.GaussianBlurPyramidTests FilterGraphTests.ColorManagementTests FilterGraphTests.RecipeExamplesTests
fgrunTests.FGRunTests fgrunTests.FaultTests FilterGraphTests.ShrinkOnLoadQualityTests FilterGraphTests.MedianTests
FilterGraphTests.SmartCropTests'

all=$("$bundle" --list-tests | sed -n 's#^\([A-Za-z0-9_]*\.[A-Za-z0-9_]*\)/.*#\1#p' | sort | uniq -c | sort -k1,1nr -k2 | awk '{print $2}')
if [ -n "$skip" ]; then all=$(printf '%s\n' "$all" | grep -Pv "^(?:$skip)" || true); fi
queue=$( { for c in $slowest; do printf '%s\n' "$all" | grep -Fx "$c" || true; done; printf '%s\n' "$all"; } | awk '!seen[$0]++')
count=$(printf '%s\n' "$queue" | grep -c . || true)
[ "$count" -gt 0 ] || { echo "run-tests: $bundle lists no test class to run" >&2; exit 2; }
echo "run-tests: $count classes from $bundle, $jobs at a time; logs in $logs"

# ThreadSanitizer sleeps a second at each process's exit (atexit_sleep_ms) so that threads still
# running can report; a class's tests have all ended by then, and a second a class is minutes.
export TSAN_OPTIONS="atexit_sleep_ms=0${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
started=$(date +%s)
export bundle logs
printf '%s\n' "$queue" | xargs -P "$jobs" -I{} bash -c '
  log="$logs/{}.log"; t0=$(date +%s)
  if "$bundle" "{}" >"$log" 2>&1; then status=ok; else status="FAILED (exit $?)"; touch "$logs/{}.failed"; fi
  tests=$(grep -oE "Executed [0-9]+ tests?, with [0-9]+ tests? skipped|Executed [0-9]+ tests?" "$log" | tail -1)
  echo "$status {} ($tests, $(( $(date +%s) - t0 )) s)"' || true

failed=$(cd "$logs" && ls -- *.failed 2>/dev/null | sed 's/\.failed$//' || true)
total=$(cat "$logs"/*.log | grep -cE "^Test Case '.*' (passed|failed|skipped) \(" || true)
failures=$(cat "$logs"/*.log | grep -cE "^Test Case '.*' failed \(" || true)
echo "run-tests: $count classes, $total tests, $failures failed tests, in $(( $(date +%s) - started )) s"
if [ -n "$failed" ]; then
  for c in $failed; do echo; echo "===== $c ====="; cat "$logs/$c.log"; done
  echo; echo "run-tests: failed: $(echo $failed)"
  exit 1
fi
