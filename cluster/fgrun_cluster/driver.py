"""The driver: split the manifest into chunks, run them as Dask tasks, gather one report.

At most ``window`` chunks are submitted at a time (four per worker thread by default), so a
manifest of millions of lines is read as the work goes and never held whole, by the driver or
by the scheduler.
"""

import argparse
import collections
import itertools
import json
import os
import shutil
import sys
import time

from .task import FgrunFailed, FgrunMissing, remove_stale_chunks, run_chunk

WARNING = "fgrun: warning: "


def warnings_by_input(stderr, inputs):
    """fgrun's `fgrun: warning: FILE: …` lines of a chunk, given to the report entries whose
    input FILE names (by path or file name); the rest under None."""
    found = collections.defaultdict(list)
    names = {}
    for path in inputs:
        names.setdefault(path, path)
        names.setdefault(os.path.basename(path), path)
    for line in stderr.splitlines():
        if not line.startswith(WARNING):
            continue
        text = line[len(WARNING):]
        owner = names.get(text.split(": ", 1)[0]) if ": " in text else None
        found[owner].append(text)
    return found


class Progress:
    """One line on a terminal, redrawn at most every half second: files done, files/s, failures,
    and the ETA when the manifest's length is known."""

    def __init__(self, stream, total=None):
        self.stream, self.total = stream, total
        self.live = hasattr(stream, "isatty") and stream.isatty()
        self.started = self.drawn = time.monotonic()

    def update(self, done, failed, force=False):
        now = time.monotonic()
        if not self.live or (not force and now - self.drawn < 0.5):
            return
        self.drawn = now
        rate = done / (now - self.started) if now > self.started else 0.0
        parts = [f"{done}/{self.total} files" if self.total else f"{done} files", f"{rate:.1f} files/s", f"{failed} failed"]
        if self.total and rate > 0:
            parts.append(f"ETA {int((self.total - done) / rate)} s")
        width = shutil.get_terminal_size((80, 20)).columns
        self.stream.write("\r" + ", ".join(parts)[: max(width - 1, 10)] + "\x1b[K")
        self.stream.flush()

    def finish(self):
        if self.live:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


USAGE = """python -m fgrun_cluster RECIPE --manifest FILE -o DIR --report FILE.jsonl
       (--scheduler tcp://HOST:PORT | --local N) [--chunk M] [--fgrun PATH] [fgrun options…]"""


def parse(argv):
    """The driver's options, and the rest, passed on to fgrun."""
    parser = argparse.ArgumentParser(
        prog="python -m fgrun_cluster", usage=USAGE,
        description="Runs an fgrun batch on a Dask cluster: the manifest is split into chunks, each run as "
                    "`fgrun RECIPE --manifest CHUNK --resume --report …` on a worker. Paths must be reachable "
                    "by every worker (a shared filesystem); relative ones start from this folder. Options not "
                    "listed here (--format, --quality, --threads, --timeout…) are passed to fgrun.")
    parser.add_argument("recipe", help="the recipe file (a path every worker can read)")
    parser.add_argument("--manifest", required=True, help="INPUT or INPUT<TAB>OUTPUT a line ('-': standard input)")
    parser.add_argument("-o", "--output-dir", help="folder for inputs without an OUTPUT of their own")
    parser.add_argument("--report", required=True, help="the gathered report, one JSON line per input (replaced)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="address of a running Dask scheduler, tcp://HOST:PORT")
    where.add_argument("--local", type=int, metavar="N", help="start a LocalCluster of N single-threaded workers")
    parser.add_argument("--chunk", type=int, default=100, metavar="M", help="files per task (default 100)")
    parser.add_argument("--fgrun", default="fgrun", metavar="PATH", help="fgrun on the workers (default: their PATH)")
    parser.add_argument("--window", type=int, metavar="K", help="chunks in flight (default 4 per worker thread)")
    parser.add_argument("--dashboard", metavar="ADDRESS",
                        help="with --local: serve Dask's dashboard at ADDRESS (:8787; needs bokeh)")
    options, rest = parser.parse_known_args(argv)
    if options.chunk < 1:
        parser.error("--chunk must be at least 1")
    if options.local is not None and options.local < 1:
        parser.error("--local must be at least 1")
    for forbidden in ("--manifest", "--report", "--resume", "--shard"):
        if forbidden in rest:
            parser.error(f"{forbidden} is set by the driver")
    return options, rest


def chunks(manifest, size):
    """The manifest's non-empty lines, `size` at a time."""
    stream = sys.stdin if manifest == "-" else open(manifest, encoding="utf-8")
    with stream:
        lines = (line.rstrip("\r\n") for line in stream)
        lines = (line for line in lines if line)
        while True:
            batch = list(itertools.islice(lines, size))
            if not batch:
                return
            yield batch


def count_lines(manifest):
    """The manifest's non-empty lines, or None for standard input."""
    if manifest == "-":
        return None
    with open(manifest, encoding="utf-8") as stream:
        return sum(1 for line in stream if line.strip())


def run_batch(client, options, fgrun_args, out=sys.stdout, progress_stream=sys.stderr):
    """Runs the batch on `client`'s cluster; returns the summary as a dict."""
    from distributed import as_completed

    recipe = os.path.abspath(options.recipe)
    args = list(fgrun_args)
    if options.output_dir:
        args = ["-o", os.path.abspath(options.output_dir)] + args
    threads = sum(client.nthreads().values()) or 1
    window = options.window or max(4 * threads, 4)
    counts = collections.Counter()
    per_worker = collections.Counter()
    started = time.monotonic()
    source = chunks(options.manifest, options.chunk)
    pending = as_completed()

    def submit(n):
        for batch in itertools.islice(source, n):
            pending.add(client.submit(run_chunk, batch, recipe, args, options.fgrun, os.getcwd(), pure=False))

    progress = Progress(progress_stream, count_lines(options.manifest))
    failures, loose_warnings = [], []
    with open(options.report, "w", encoding="utf-8") as report:
        submit(window)
        for future in pending:
            try:
                result = future.result()
            except (FgrunMissing, FgrunFailed) as error:
                for other in list(pending.futures):
                    other.cancel()
                progress.finish()
                raise SystemExit(f"fgrun_cluster: error: {error}")
            entries = [json.loads(line) for line in result["report"]]
            found = warnings_by_input(result.get("stderr", ""), [e.get("input", "") for e in entries])
            for entry in entries:
                entry["worker"] = result["worker"]
                # fgrun's stderr warnings, kept with the input they are about.
                extra = [w for w in found.get(entry.get("input"), []) if w not in entry.get("warnings", [])]
                if extra:
                    entry["warnings"] = entry.get("warnings", []) + extra
                report.write(json.dumps(entry, separators=(",", ":")) + "\n")
                counts[entry["status"]] += 1
                # fgrun marks a decoder's patched-up data `damaged`; other warnings are counted apart.
                if entry["status"] != "failed" and entry.get("damaged"):
                    counts["damaged"] += 1
                elif entry["status"] != "failed" and entry.get("warnings"):
                    counts["warned"] += 1
                per_worker[result["worker"]] += 1
                if entry["status"] == "failed":
                    failures.append((entry.get("input"), entry.get("error", "failed")))
                elif entry.get("warnings"):
                    kind = "damaged" if entry.get("damaged") else "warning"
                    failures.append((entry.get("input"), f"{kind}: " + "; ".join(entry["warnings"])))
            loose_warnings += found.get(None, [])
            report.flush()
            progress.update(sum(counts[k] for k in ("ok", "skipped", "failed")), counts["failed"])
            submit(1)
    progress.finish()
    # Chunk folders of workers killed part-way are removed on every worker.
    try:
        client.run(remove_stale_chunks)
    except Exception:  # a worker gone by now: its machine's next task sweeps
        pass
    seconds = time.monotonic() - started
    files = sum(counts[k] for k in ("ok", "skipped", "failed"))
    summary = {"files": files, "ok": counts["ok"], "skipped": counts["skipped"], "failed": counts["failed"],
               "seconds": seconds, "files_per_second": files / seconds if seconds > 0 else 0.0,
               "workers": dict(per_worker)}
    summary["damaged"] = counts["damaged"]
    summary["warned"] = counts["warned"]
    notes = [f"{counts['damaged']} damaged"] * bool(counts["damaged"]) + [f"{counts['warned']} with warnings"] * bool(counts["warned"])
    damaged = f" ({', '.join(notes)})" if notes else ""
    print(f"{files} files: {counts['ok']} ok{damaged}, {counts['skipped']} skipped, {counts['failed']} failed "
          f"in {seconds:.2f} s ({summary['files_per_second']:.1f} files/s)", file=out)
    for path, reason in failures:
        print(f"  {path}: {reason}", file=out)
    for text in loose_warnings:
        print(f"  warning: {text}", file=out)
    for worker, n in sorted(per_worker.items()):
        print(f"  {worker}: {n} files", file=out)
    return summary


def start_local_cluster(workers, dashboard=None):
    """A LocalCluster of `workers` single-threaded worker processes on 127.0.0.1, serving Dask's
    dashboard at `dashboard` (HOST:PORT or :PORT) when given."""
    from distributed import LocalCluster

    if dashboard:
        try:
            import bokeh  # noqa: F401  (Dask serves no dashboard without it, silently)
        except ImportError:
            raise SystemExit("fgrun_cluster: error: --dashboard needs bokeh: run scripts/install-cluster-deps.sh")
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                        dashboard_address=dashboard, host="127.0.0.1")


def main(argv=None):
    """The command; exit status 0 when every file was written or skipped, 1 when some failed."""
    options, fgrun_args = parse(sys.argv[1:] if argv is None else argv)
    from distributed import Client

    if options.local is not None:
        cluster = start_local_cluster(options.local, options.dashboard)
        if options.dashboard:
            print(f"fgrun_cluster: dashboard at {cluster.dashboard_link}", file=sys.stderr)
        client = Client(cluster)
    else:
        cluster = None
        client = Client(options.scheduler, timeout="30s")
    try:
        summary = run_batch(client, options, fgrun_args)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 1 if summary["failed"] else 0
