#!/usr/bin/env python3
"""bench/cluster-bench.py -- fgrun_cluster's throughput and per-file overhead on this machine.

usage: python3 bench/cluster-bench.py [--fgrun PATH] [--photos N] [--tiny N] [--runs R] [--out DIR]
                                      [--photos-from DIR]

Starts a real `dask scheduler` and single-threaded `dask worker` processes on 127.0.0.1 (as the
cluster test does; stopped at the end) and runs the real driver, `python -m fgrun_cluster`, as a
separate process for every row; prints one Markdown table (and writes it to OUT/cluster.md).

  photos  N photos of bench/inputs/w10 (12-24 MP; bench/make-batch-inputs.py makes them from the
          photos in --photos-from DIR, default ../shared/bench/inputs beside the checkout) -> fit 800x800 JPEG Q85 (bench/recipes/W10.txt), fgrun --threads 1 in
          each worker: with 1 and with 2 workers (chunk 2), against one fgrun process on the same
          files with --threads 1 --jobs 1 (one core) and with its defaults (every core).
  tiny    N copies of a 16x16 PNG through `crop size=8x8` (almost no work: what is left is the
          cost of a file in fgrun and of a task in Dask): one fgrun process over all of them,
          then the cluster with 1 worker at chunk 1, 10 and 100. The overhead per file at chunk M
          is (cluster ms/file - fgrun alone ms/file): Dask's task (submit, schedule, run, gather,
          ~1 ms of scheduler time per task by Dask's docs) and one fgrun process start, per M files.

Columns: wall s is the driver's own measure (first submit to last report line; for fgrun alone,
the process's wall time), files/s = files / wall s, ms/file = its inverse; CPU ms/file = user +
system time of every process taking part (driver, scheduler, workers and their fgrun processes,
from /proc and getrusage, less the driver's fixed cost: a run with an empty manifest) / files; scheduler CPU ms/task = the scheduler process's user + system
time over the run / tasks. Numbers on a machine shared with other work are noisy (the header
gives the load average before and after); the CPU columns much less so than the wall times.
"""
import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid, children=False):
    """User + system CPU seconds of process pid so far (with its waited-for children's)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15 if children else 13]) / TICK


def children_cpu():
    """User + system CPU seconds of this process's waited-for children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def load():
    return open("/proc/loadavg").read().split()[0]


class Cluster:
    """A `dask scheduler` and `dask worker --nthreads 1` processes on 127.0.0.1."""

    def __init__(self, folder):
        self.folder = folder
        self.processes = []
        self.worker_processes = []
        self.workers = 0
        scheduler_file = os.path.join(folder, "scheduler.json")
        self.scheduler = self._start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", scheduler_file])
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with open(scheduler_file) as f:
                    self.address = json.load(f)["address"]
                break
            except (OSError, ValueError, KeyError):
                time.sleep(0.1)
        else:
            raise SystemExit("cluster-bench: the dask scheduler did not start")

    def _start(self, arguments):
        environment = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "cluster"))
        process = subprocess.Popen([sys.executable, "-m", "dask", *arguments], cwd=self.folder, env=environment,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.processes.append(process)
        return process

    def add_worker(self):
        """Starts one more single-threaded worker and waits until the scheduler has it."""
        self.workers += 1
        self.worker_processes.append(self._start([
            "worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
            "--name", f"w{self.workers}", "--death-timeout", "60"]))
        from distributed import Client
        with Client(self.address, timeout="60s") as client:
            client.wait_for_workers(self.workers, timeout=120)

    def close(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def cluster_cpu(cluster):
    """CPU seconds so far of the scheduler, the workers and the fgrun processes they ran."""
    return cpu_seconds(cluster.scheduler.pid) + sum(cpu_seconds(w.pid, children=True) for w in cluster.worker_processes)


def driver_run(cluster, fgrun, recipe, listing, out, chunk, options, folder):
    """Runs the driver once; returns (seconds, files, scheduler CPU seconds, CPU seconds of every
    process: driver, scheduler, workers, fgrun)."""
    shutil.rmtree(out, ignore_errors=True)
    os.sync()  # fgrun fsyncs each output; a journal commit would also flush earlier rows' writes
    before = cpu_seconds(cluster.scheduler.pid)
    before_all = cluster_cpu(cluster) + children_cpu()
    environment = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "cluster"))
    done = subprocess.run(
        [sys.executable, "-m", "fgrun_cluster", recipe, "--manifest", listing, "-o", out, "--report",
         out + ".jsonl", "--scheduler", cluster.address, "--chunk", str(chunk), "--fgrun", fgrun, *options],
        cwd=folder, env=environment, capture_output=True, text=True)
    scheduler = cpu_seconds(cluster.scheduler.pid) - before
    total = cluster_cpu(cluster) + children_cpu() - before_all
    if done.returncode != 0:
        raise SystemExit(f"cluster-bench: the driver failed: {done.stderr.strip()[-2000:]}")
    first = done.stdout.splitlines()[0]  # "N files: N ok, 0 skipped, 0 failed in T s (R files/s)"
    files = int(first.split()[0])
    seconds = float(first.split(" in ")[1].split()[0])
    if f"{files} ok" not in first:
        raise SystemExit(f"cluster-bench: not every file was written: {first}")
    return seconds, files, scheduler, total


def fgrun_run(fgrun, recipe, listing, out, options, folder):
    """Runs one fgrun batch; returns (wall seconds, CPU seconds)."""
    shutil.rmtree(out, ignore_errors=True)
    os.sync()  # as in driver_run: no earlier writes left to flush
    cpu = children_cpu()
    started = time.perf_counter()
    done = subprocess.run([fgrun, recipe, "--manifest", listing, "-o", out, *options], cwd=folder,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"cluster-bench: fgrun failed: {done.stderr.strip()[-2000:]}")
    return seconds, children_cpu() - cpu


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    ap.add_argument("--fgrun", default=os.environ.get("FGRUN") or os.path.join(ROOT, ".build", "release", "fgrun"))
    ap.add_argument("--photos", type=int, default=24)
    ap.add_argument("--tiny", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--photos-from", metavar="DIR")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "cluster"))
    a = ap.parse_args()
    fgrun = os.path.abspath(a.fgrun)
    if not os.access(fgrun, os.X_OK):
        raise SystemExit(f"cluster-bench: no fgrun at {fgrun} (swift build -c release --product fgrun)")
    out = os.path.abspath(a.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    started_load = load()
    stamp = time.strftime("%Y-%m-%d %H:%M %Z")

    # Inputs: photos from bench/inputs/w10, tiny PNGs made here.
    source = a.photos_from or os.path.normpath(os.path.join(ROOT, "..", "shared", "bench", "inputs"))
    if not os.path.exists(os.path.join(source, "photo-24mp.jpg")):
        subprocess.run([os.path.join(HERE, "make-inputs.sh")], check=True)
        source = os.path.join(HERE, "inputs")
    subprocess.run([sys.executable, os.path.join(HERE, "make-batch-inputs.py"), "--from", source,
                    os.path.join(HERE, "inputs", "w10")], check=True)
    w10 = os.path.join(HERE, "inputs", "w10")
    photos = sorted(os.path.join(w10, n) for n in os.listdir(w10) if n.endswith(".jpg"))[:a.photos]
    with open(os.path.join(out, "photos.txt"), "w") as f:
        f.write("".join(p + "\n" for p in photos))
    tiny = os.path.join(out, "tiny")
    os.makedirs(tiny)
    subprocess.run([fgrun, "-e", "scale fit=16x16", os.path.join(ROOT, "samples", "flower.jpg"),
                    os.path.join(tiny, "t00000.png")], check=True, stdout=subprocess.DEVNULL)
    for i in range(1, a.tiny):
        shutil.copy(os.path.join(tiny, "t00000.png"), os.path.join(tiny, f"t{i:05d}.png"))
    with open(os.path.join(out, "tiny.txt"), "w") as f:
        f.write("".join(os.path.join(tiny, f"t{i:05d}.png\n") for i in range(a.tiny)))
    with open(os.path.join(out, "tiny-recipe.txt"), "w") as f:
        f.write("crop size=8x8\n")
    w10_recipe = os.path.join(HERE, "recipes", "W10.txt")
    photo_options = ["--quality", "85", "--format", "jpg", "--threads", "1"]
    tiny_recipe = os.path.join(out, "tiny-recipe.txt")
    tiny_options = ["--threads", "1"]

    rows = []

    fixed_cpu = 0.0

    def row(what, workers, files, chunk, seconds, cpu, scheduler=None):
        tasks = -(-files // chunk) if chunk else None
        if workers != "-":
            cpu -= fixed_cpu
        rows.append((what, workers, files, chunk, tasks, seconds, cpu, scheduler))
        print(f"cluster-bench: {what}, {workers} worker(s), chunk {chunk or '-'}: {seconds:.2f} s "
              f"(load {load()})", file=sys.stderr, flush=True)

    def median_of(f):
        results = [f() for _ in range(a.runs)]
        if isinstance(results[0], tuple):
            return tuple(statistics.median(r[i] for r in results) for i in range(len(results[0])))
        return statistics.median(results)

    photos_list, tiny_list = os.path.join(out, "photos.txt"), os.path.join(out, "tiny.txt")
    row("photos, one fgrun --threads 1 --jobs 1", "-", len(photos), None, *median_of(
        lambda: fgrun_run(fgrun, w10_recipe, photos_list, os.path.join(out, "p-alone1"),
                          photo_options + ["--jobs", "1"], out)))
    row("photos, one fgrun (default threads and --jobs)", "-", len(photos), None, *median_of(
        lambda: fgrun_run(fgrun, w10_recipe, photos_list, os.path.join(out, "p-alone"),
                          ["--quality", "85", "--format", "jpg"], out)))
    tiny_alone, tiny_alone_cpu = median_of(lambda: fgrun_run(fgrun, tiny_recipe, tiny_list, os.path.join(out, "t-alone"),
                                                             tiny_options + ["--jobs", "1"], out))
    row("tiny, one fgrun --threads 1 --jobs 1", "-", a.tiny, None, tiny_alone, tiny_alone_cpu)

    cluster = Cluster(out)
    try:
        cluster.add_worker()
        # The driver's fixed cost (starting Python, importing Dask, connecting): an empty manifest.
        empty_list = os.path.join(out, "empty.txt")
        open(empty_list, "w").close()
        fixed_cpu = median_of(lambda: driver_run(
            cluster, fgrun, tiny_recipe, empty_list, os.path.join(out, "empty"), 1, tiny_options, out))[3]
        seconds, files, sched, cpu = median_of(lambda: driver_run(
            cluster, fgrun, w10_recipe, photos_list, os.path.join(out, "p-c1"), 2, photo_options, out))
        row("photos, fgrun_cluster", 1, files, 2, seconds, cpu, sched)
        for chunk in (1, 10, 100):
            seconds, files, sched, cpu = median_of(lambda: driver_run(
                cluster, fgrun, tiny_recipe, tiny_list, os.path.join(out, f"t-c1-{chunk}"), chunk, tiny_options, out))
            row("tiny, fgrun_cluster", 1, files, chunk, seconds, cpu, sched)
        cluster.add_worker()
        seconds, files, sched, cpu = median_of(lambda: driver_run(
            cluster, fgrun, w10_recipe, photos_list, os.path.join(out, "p-c2"), 2, photo_options, out))
        row("photos, fgrun_cluster", 2, files, 2, seconds, cpu, sched)
    finally:
        cluster.close()

    per_file_alone = tiny_alone / a.tiny * 1000
    cpu_alone = tiny_alone_cpu / a.tiny * 1000
    lines = [f"fgrun_cluster on this machine ({os.cpu_count()} cores), {stamp}; load average "
             f"{started_load} at the start, {load()} at the end; median of {a.runs} run(s) per row; "
             f"bench/cluster-bench.py.", "",
             "| run | workers | files | chunk | tasks | wall s | files/s | ms/file | overhead ms/file "
             "| CPU ms/file | CPU overhead ms/file | scheduler CPU ms/task |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for what, workers, files, chunk, tasks, seconds, cpu, sched in rows:
        ms = seconds / files * 1000
        cpu_ms = cpu / files * 1000
        tiny_row = what.startswith("tiny, fgrun_cluster")
        lines.append(f"| {what} | {workers} | {files} | {chunk or '-'} | {tasks or '-'} | {seconds:.2f} | "
                     f"{files / seconds:.1f} | {ms:.2f} | {f'{ms - per_file_alone:.2f}' if tiny_row else ''} | "
                     f"{cpu_ms:.2f} | {f'{cpu_ms - cpu_alone:.2f}' if tiny_row else ''} | "
                     f"{f'{sched / tasks * 1000:.2f}' if sched is not None else ''} |")
    lines += ["", "overhead ms/file = the row's ms/file minus one fgrun's over the same tiny files "
                  f"({per_file_alone:.2f} ms/file, {cpu_alone:.2f} ms of CPU): a Dask task and an fgrun "
                  "process start per chunk, shared by its files. CPU = user + system time of every process "
                  "taking part (for the cluster rows: the driver, the scheduler, the workers and the fgrun "
                  f"processes they ran, less the driver's fixed {fixed_cpu * 1000:.0f} ms measured with an empty "
                  "manifest), which load on the machine does not inflate as it does wall time; "
                  "scheduler CPU is counted in 10 ms clock ticks."]
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out, "cluster.md"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
