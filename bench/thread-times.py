#!/usr/bin/env python3
"""bench/thread-times.py COMMAND... -- how a command's threads spent their time: running, waiting
for a core (runnable, in the run queue) and asleep (blocked: on a lock, a condition, I/O).

Runs COMMAND, reads /proc/PID/task/*/schedstat (nanoseconds on a core, nanoseconds runnable but
waiting, per thread) every 50 ms, and prints one line per thread that ran at least 50 ms:
run s, run-queue wait s, and asleep s = the time the thread was seen alive - run - wait.

Run time and sleep time are what the program controls; the run-queue wait is the machine's load.
So on a loaded machine, a worker pool that is never starved shows sleep near zero whatever the
load, while its wall time depends on the load: this is how docs/Batches.md measures whether
fgrun's workers are kept busy (W10: `python3 bench/thread-times.py fgrun --quality 85 --format jpg
bench/recipes/W10.txt --manifest LIST -o DIR`). Linux only.
"""
import os
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    seen = {}  # tid -> (first seen, run s, wait s, name, last seen)
    start = time.time()
    while process.poll() is None:
        now = time.time()
        try:
            tids = os.listdir(f"/proc/{process.pid}/task")
        except OSError:
            break
        for tid in tids:
            try:
                with open(f"/proc/{process.pid}/task/{tid}/schedstat") as f:
                    run, wait, _ = f.read().split()
                with open(f"/proc/{process.pid}/task/{tid}/comm") as f:
                    name = f.read().strip()
            except OSError:
                continue
            first = seen[tid][0] if tid in seen else now
            seen[tid] = (first, int(run) / 1e9, int(wait) / 1e9, name, now)
        time.sleep(0.05)
    wall = time.time() - start
    print(f"wall {wall:.2f} s, exit {process.wait()}")
    print(f"{'thread':>24} {'run s':>8} {'wait s':>8} {'asleep s':>9} {'asleep %':>9}")
    rows = sorted(seen.items(), key=lambda item: -item[1][1])
    for tid, (first, run, wait, name, last) in rows:
        if run < 0.05:
            continue
        alive = last - first
        asleep = max(0.0, alive - run - wait)
        print(f"{name + ':' + tid:>24} {run:8.2f} {wait:8.2f} {asleep:9.2f} {100 * asleep / max(alive, 1e-9):8.1f}%")


if __name__ == "__main__":
    main()
