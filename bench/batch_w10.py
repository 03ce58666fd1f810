"""W10, the batch workload of bench/compare.sh: 100 photos of 12-24 MP -> fit 800x800 Lanczos3 ->
JPEG Q85, by fgrun's batch mode against vipsthumbnail over the same files in one process and in
two processes side by side (`xargs -P 2`). See bench/README.md.

Rows (each one whole command per run, one warm-up run, then N measured runs, under GNU time):
  fgrun     fgrun --quality 85 --format jpg [--jobs J] bench/recipes/W10.txt --manifest LIST -o DIR
            (--jobs at its default; `--w10-jobs 1,2,3` adds one row per value)
  vips      vipsthumbnail -s 800x800 -o 'DIR/%s.jpg[Q=85,strip]' FILE... (one process, 100 files)
  vips x2   xargs -P 2 -n 50 vipsthumbnail ... < LIST (two processes of 50 files each, at once)
Files/s = 100 / wall time. Peak RSS is GNU time's %M: the process's largest resident set (for the
xargs row, that of its largest process); for the xargs row the sum of its two processes' own peaks
(each under its own GNU time) is given too, an upper bound of what the two held at once. Times,
files/s and RSS are medians over the measured runs.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TITLE = "W10 batch: 100 photos of 12-24 MP, fit 800x800 Lanczos3, JPEG Q85"


def make_inputs(photo):
    """The 100 inputs in bench/inputs/w10, made from the photos beside `photo` (photo-24mp.jpg,
    photo-12mp.jpg) by make-batch-inputs.py when missing or stale."""
    folder = os.path.join(HERE, "inputs", "w10")
    subprocess.run([sys.executable, os.path.join(HERE, "make-batch-inputs.py"), "--from", os.path.dirname(photo),
                    folder], check=True)
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".jpg"))


def rows(files, out, fgrun, fgrun_options, threads, jobs_rows):
    """(tool, variant, output folder, argv, file of per-process peaks or None)."""
    listing = os.path.join(out, "W10-list.txt")
    with open(listing, "w") as f:
        f.write("".join(p + "\n" for p in files))
    recipe = os.path.join(HERE, "recipes", "W10.txt")
    extra = fgrun_options + ["--format", "jpg"] + (["--threads", str(threads)] if threads else [])
    result = []
    for jobs in jobs_rows:
        folder = os.path.join(out, "W10-fgrun" + (f"-j{jobs}" if jobs else ""))
        opts = extra + (["--jobs", str(jobs)] if jobs else [])
        result.append(("fgrun", f"--manifest, {' '.join(opts)}" + ("" if jobs else " (--jobs default)"), folder,
                       [fgrun, *opts, recipe, "--manifest", listing, "-o", folder], None))
    one = os.path.join(out, "W10-vips")
    result.append(("vips", "vipsthumbnail, one process", one,
                   ["vipsthumbnail", "-s", "800x800", "-o", f"{one}/%s.jpg[Q=85,strip]", *files], None))
    two = os.path.join(out, "W10-vips2")
    peaks = os.path.join(out, "W10-vips2.rss")
    half = (len(files) + 1) // 2
    result.append(("vips", "xargs -P 2 vipsthumbnail, two processes", two,
                   ["sh", "-c", f"exec xargs -P 2 -n {half} /usr/bin/time -f %M -a -o '{peaks}' "
                                f"vipsthumbnail -s 800x800 -o '{two}/%s.jpg[Q=85,strip]' < '{listing}'"], peaks))
    return result


def measure(argv, folder, peaks, count, runs, env):
    """One warm-up and `runs` runs: [(wall s, cpu s, peak RSS KB, summed peaks KB or None)], or an
    error string."""
    results = []
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        for i in range(runs + 1):
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            if peaks and os.path.exists(peaks):
                os.remove(peaks)
            t0 = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", tf.name, *argv],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            wall = time.perf_counter() - t0
            if p.returncode != 0:
                msg = p.stderr.decode(errors="replace").strip().splitlines()
                return f"failed (exit {p.returncode}): {msg[-1] if msg else ''}"[:160]
            written = len([n for n in os.listdir(folder) if n.endswith(".jpg")])
            if written != count:
                return f"failed: wrote {written} of {count} files"
            tf.seek(0)
            _, us, sy, rss = tf.read().split()[-4:]
            summed = None
            if peaks:
                with open(peaks) as f:
                    summed = sum(int(x) for x in f.read().split() if x.isdigit())
            if i > 0:
                results.append((wall, float(us) + float(sy), int(rss), summed))
    return results


def psnr_median(reference, folder):
    """Median PSNR (dB, 8-bit RGB values as stored) of folder's files against reference's."""
    try:
        import numpy as np
        from PIL import Image
    except ImportError:
        return ""
    values, other_size = [], 0
    for name in sorted(os.listdir(reference)):
        a, b = os.path.join(reference, name), os.path.join(folder, name)
        if not os.path.exists(b):
            continue
        x = np.asarray(Image.open(a).convert("RGB"), dtype=np.float64)
        y = np.asarray(Image.open(b).convert("RGB"), dtype=np.float64)
        if x.shape != y.shape:  # a fit rounded the other way (533 or 534 rows)
            other_size += 1
            continue
        mse = float(np.mean((x - y) ** 2))
        values.append(float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse))
    text = f"{statistics.median(values):.2f}" if values else ""
    return text + (f" ({other_size} of another size)" if other_size else "")


def run(photo, out, fgrun, fgrun_options, threads, runs, env, tools, jobs_rows, psnr=True):
    """Measures W10 on inputs made from the photos beside `photo`; returns (Markdown lines, the
    summary table's row)."""
    files = make_inputs(photo)
    n = len(files)
    measured = []
    for tool, variant, folder, argv, peaks in rows(files, out, fgrun, fgrun_options, threads, [None] + list(jobs_rows)):
        if tool not in tools:
            continue
        if shutil.which(argv[0]) is None and not os.path.exists(argv[0]):
            measured.append((tool, variant, folder, f"not available: {argv[0]}"))
            continue
        m = measure(argv, folder, peaks, n, runs, env)
        measured.append((tool, variant, folder, m))
        note = m if isinstance(m, str) else f"median {statistics.median(x[0] for x in m):.2f} s"
        print(f"   {tool} [{variant}]: {note}", file=sys.stderr, flush=True)

    def rate(m):
        return n / statistics.median(x[0] for x in m) if isinstance(m, list) else None

    def rss(m):
        return statistics.median(x[2] for x in m) / 1024 if isinstance(m, list) else None

    fg = next(((v, m) for t, v, _, m in measured if t == "fgrun" and "default" in v and isinstance(m, list)),
              next(((v, m) for t, v, _, m in measured if t == "fgrun" and isinstance(m, list)), None))
    vips_one = next((m for t, v, _, m in measured if v.startswith("vipsthumbnail, one") and isinstance(m, list)), None)
    reference = os.path.join(out, "W10-vips")
    table = [f"### {TITLE}", "",
             f"{n} files ({sum(os.path.getsize(f) for f in files) / 1e6:.0f} MB, bench/make-batch-inputs.py); "
             "files/s, wall and CPU time and peak RSS are medians of the runs; `fgrun ÷ this` is fgrun's (--jobs "
             "default) files/s divided by this row's (> 1: fgrun is faster); PSNR: the median over the files "
             "against vipsthumbnail's (one process) output, of those of the same size (a fit to 800 rounds "
             "some sizes the other way: 533 or 534 pixels).", "",
             "| tool | variant | files/s | median s | min–max s | CPU s | peak RSS MB | fgrun ÷ this | PSNR vs libvips dB |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |"]
    for tool, variant, folder, m in measured:
        if isinstance(m, str):
            table.append(f"| {tool} | {variant} | {m} | | | | | | |")
            continue
        walls = [x[0] for x in m]
        cpu = statistics.median(x[1] for x in m)
        peak = f"{rss(m):.0f}"
        if m[0][3] is not None:
            peak += f" (two processes: {statistics.median(x[3] for x in m) / 1024:.0f})"
        ratio = f"{rate(fg[1]) / rate(m):.2f}" if fg and m is not fg[1] else ""
        ps = ""
        if psnr and os.path.isdir(reference) and folder != reference:
            ps = psnr_median(reference, folder)
        elif folder == reference:
            ps = "(reference)"
        cell = variant.replace("|", "\\|")
        table.append(f"| {tool} | {cell} | {rate(m):.2f} | {statistics.median(walls):.2f} | "
                     f"{min(walls):.2f}–{max(walls):.2f} | {cpu:.2f} | {peak} | {ratio} | {ps} |")
    peers = [(rate(m), v, m) for t, v, _, m in measured if t != "fgrun" and isinstance(m, list)]
    fastest = max(peers, key=lambda p: p[0]) if peers else None
    if fg and fastest:
        speed = rate(fg[1]) / fastest[0]
        memory = rss(fg[1]) / rss(vips_one) if vips_one else None
        table += ["", f"Target: fgrun's files/s ≥ 1.2× the faster libvips row ({fastest[1]}): **{speed:.2f}×** "
                      f"({'met' if speed >= 1.2 else 'not met'}); peak RSS ≤ 1.5× vipsthumbnail's (one process): "
                      + (f"**{memory:.2f}×** ({'met' if memory <= 1.5 else 'not met'})." if memory else "n/a.")]
    table.append("")
    fg_s = f"{statistics.median(x[0] for x in fg[1]):.2f}" if fg else "n/a"
    fast_s = f"{fastest[1].split(',')[0]} {statistics.median(x[0] for x in fastest[2]):.2f}" if fastest else "n/a"
    ratio_fast = f"{statistics.median(x[0] for x in fg[1]) / statistics.median(x[0] for x in fastest[2]):.2f}" \
        if fg and fastest else ""
    ratio_vips = f"{rate(vips_one) / rate(fg[1]):.2f}" if fg and vips_one else ""
    ratio_rss = f"{rss(fg[1]) / rss(vips_one):.2f}" if fg and vips_one else ""
    summary = f"| W10 | {fg_s} | {fast_s} | {ratio_fast} | {ratio_vips} | {ratio_rss} | | |"
    return table, summary
