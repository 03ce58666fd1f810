#!/usr/bin/env python3
"""Bytes at equal look: JPEG encoders compared at equal SSIMULACRA2 (bench/bytes.sh runs this).

For each photo of the corpus, at 800 px (Pillow Lanczos, the long side) and at full size, every
encoder writes JPEGs over a ladder of quality settings; each file's SSIMULACRA2 against the
reference (PyPI `ssimulacra2`) and, with --butteraugli, its Butteraugli distance (Debian's
`butteraugli`) are measured. Per image and size, an encoder's BD-rate against the first encoder is
the mean difference of log(bytes) between their rate-quality curves (piecewise-linear in score)
over SSIMULACRA2 60-90, as exp(mean) - 1 (Bjontegaard's method with linear interpolation).

Encoders: fgrun-fast (today's fgrun: libjpeg-turbo, baseline, standard Huffman tables, 4:2:0),
ljt-opt-prog (libjpeg-turbo through Pillow with optimised Huffman tables, progressive, 4:2:0),
fgrun-small (`--encoder small`), jpegli (PyPI pyjpegli: an oracle, never a FilterGraph dependency).
Encode CPU time is the children's user+system time around each fgrun call (the reference PNG is
decoded in it too, the same for both fgrun encoders).
"""
import argparse, json, os, resource, subprocess, sys, time
import numpy as np
from PIL import Image, ImageOps
from ssimulacra2 import compute_ssimulacra2

QUALITIES = [30, 40, 50, 60, 70, 80, 85, 90, 94, 97]
ENCODERS = ["fgrun-fast", "ljt-opt-prog", "fgrun-small", "jpegli"]


def references(corpus, out, sizes):
    refs = []
    for name in sorted(os.listdir(corpus)):
        if not name.lower().endswith((".jpg", ".jpeg", ".png")):
            continue
        im = ImageOps.exif_transpose(Image.open(os.path.join(corpus, name)))
        if im.mode in ("RGBA", "LA", "P"):
            im = im.convert("RGBA")
            flat = Image.new("RGB", im.size, (255, 255, 255))
            flat.paste(im, mask=im.split()[3])
            im = flat
        im = im.convert("RGB")
        stem = os.path.splitext(name)[0]
        for size in sizes:
            if size == "full" and "800" in sizes and max(im.size) <= 800:
                continue  # the same pixels as its 800 px row
            scaled = im
            if size == "800" and max(im.size) > 800:
                s = 800 / max(im.size)
                scaled = im.resize((round(im.width * s), round(im.height * s)), Image.LANCZOS)
            path = os.path.join(out, f"{stem}-{size}.png")
            if not os.path.exists(path):
                # No ICC profile: fgrun would embed it and Pillow and jpegli would not, and a
                # 3 KB profile is a large share of a small file's bytes.
                scaled.info.pop("icc_profile", None)
                scaled.save(path, icc_profile=None)
            refs.append((f"{stem}-{size}", path, scaled.width * scaled.height))
    return refs


def encode(encoder, ref, q, dst, fgrun):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    if encoder == "fgrun-fast":
        subprocess.run([fgrun, "-e", "input", ref, dst, "--quality", str(q)], check=True)
    elif encoder == "fgrun-small":
        subprocess.run([fgrun, "-e", "input", ref, dst, "--quality", str(q), "--encoder", "small"], check=True)
    elif encoder == "ljt-opt-prog":
        Image.open(ref).save(dst, quality=q, optimize=True, progressive=True, subsampling=2)
    elif encoder == "jpegli":
        import pyjpegli
        im = Image.open(ref).convert("RGB")
        with open(dst, "wb") as f:
            f.write(pyjpegli.encode(im.tobytes(), im.width, im.height, q))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def butteraugli(ref, dst):
    png = dst + ".png"
    Image.open(dst).convert("RGB").save(png)
    out = subprocess.run(["butteraugli", ref, png], check=True, capture_output=True, text=True).stdout
    os.remove(png)
    return float(out.split()[0])


def bd_rate(base, other, lo=60.0, hi=90.0):
    """exp(mean log-rate difference of `other` vs `base` over scores lo..hi) - 1, or None."""
    def curve(points):
        points = sorted(points, key=lambda p: p[1])
        score = np.maximum.accumulate(np.array([p[1] for p in points]))
        return score, np.log([p[0] for p in points])
    sb, rb = curve(base)
    so, ro = curve(other)
    a, b = max(lo, sb[0], so[0]), min(hi, sb[-1], so[-1])
    if b - a < 5:
        return None
    grid = np.linspace(a, b, 121)
    return float(np.exp(np.mean(np.interp(grid, so, ro) - np.interp(grid, sb, rb))) - 1)


def plot(results, refs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sizes = [size for size in ["800", "full"] if any(r[0].endswith("-" + size) for r in refs)]
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 5), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        names = [r[0] for r in refs if r[0].endswith("-" + size)]
        pixels = {r[0]: r[2] for r in refs}
        for encoder in results:
            bpp = [np.mean([results[encoder][n][i]["bytes"] * 8 / pixels[n] for n in names]) for i in range(len(QUALITIES))]
            score = [np.mean([results[encoder][n][i]["ssimulacra2"] for n in names]) for i in range(len(QUALITIES))]
            ax.plot(bpp, score, marker="o", label=encoder)
        ax.axhspan(60, 90, color="0.93")
        ax.set_title(f"{len(names)} corpus photos, {'800 px' if size == '800' else 'full size'}: mean over photos per quality")
        ax.set_xlabel("bits per pixel")
        ax.set_ylabel("SSIMULACRA2")
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--fgrun", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="800,full")
    ap.add_argument("--encoders", default=",".join(ENCODERS))
    ap.add_argument("--butteraugli", action="store_true", help="also Butteraugli distances (slow)")
    ap.add_argument("--from-log", help="report from the progress lines of an earlier (perhaps unfinished) run")
    ap.add_argument("--report-only", action="store_true", help="report from the bytes.json of a finished run in --out")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    refs = references(args.corpus, args.out, args.sizes.split(","))
    encoders = args.encoders.split(",")
    results = {e: {} for e in encoders}
    if args.report_only:
        results = json.load(open(os.path.join(args.out, "bytes.json")))
        report(results, refs, encoders, args)
        return
    if args.from_log:
        for line in open(args.from_log):
            fields = line.split()
            if len(fields) == len(QUALITIES) + 2 and fields[1] in results:
                results[fields[1]][fields[0]] = [
                    {"q": q, "bytes": int(f.split(":")[0]), "ssimulacra2": float(f.split(":")[1]), "cpu": 0.0}
                    for q, f in zip(QUALITIES, fields[2:])]
        done = [r for r in refs if all(r[0] in results[e] for e in encoders)]
        report(results, done, encoders, args)
        return
    for name, ref, pixels in refs:
        for e in encoders:
            rows = []
            for q in QUALITIES:
                dst = os.path.join(args.out, f"{name}-{e}-q{q}.jpg")
                cpu = encode(e, ref, q, dst, args.fgrun)
                row = {"q": q, "bytes": os.path.getsize(dst), "cpu": cpu, "ssimulacra2": compute_ssimulacra2(ref, dst)}
                if args.butteraugli:
                    row["butteraugli"] = butteraugli(ref, dst)
                rows.append(row)
            results[e][name] = rows
            print(f"{name:28s} {e:13s} " + " ".join(f"{r['bytes']}:{r['ssimulacra2']:.1f}" for r in rows), flush=True)
        json.dump(results, open(os.path.join(args.out, "bytes.json"), "w"), indent=1)
    report(results, refs, encoders, args)


def report(results, refs, encoders, args):
    base = encoders[0]
    # Columns: each encoder against the first; then fgrun-small against jpegli (the issue's
    # "within 5 % of jpegli"), when both ran.
    pairs = [(base, e) for e in encoders[1:]]
    if "fgrun-small" in encoders and "jpegli" in encoders:
        pairs.append(("jpegli", "fgrun-small"))
    title = lambda pair: pair[1] if pair[0] == base else f"{pair[1]} vs {pair[0]}"
    lines = [f"BD-rate against {base} (last column: against the encoder named) over SSIMULACRA2 60-90 "
             "(negative = fewer bytes at the same score):", ""]
    lines.append("| image | " + " | ".join(title(p) for p in pairs) + " |")
    lines.append("|---|" + "---|" * len(pairs))
    per = {p: {} for p in pairs}
    for name, _, _ in refs:
        cells = []
        for p in pairs:
            v = bd_rate([(r["bytes"], r["ssimulacra2"]) for r in results[p[0]][name]],
                        [(r["bytes"], r["ssimulacra2"]) for r in results[p[1]][name]])
            per[p][name] = v
            cells.append("n/a" if v is None else f"{v * 100:+.1f} %")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for size in args.sizes.split(","):
        if not any(n.endswith("-" + size) for n, _, _ in refs):
            continue
        cells = []
        for p in pairs:
            vals = [v for n, v in per[p].items() if n.endswith("-" + size) and v is not None]
            cells.append(f"**{np.mean(vals) * 100:+.1f} %**" if vals else "n/a")
        lines.append(f"| mean, {size} | " + " | ".join(cells) + " |")
    if args.butteraugli:
        lines += ["", "Cross-check: BD-rate over Butteraugli distance 1.0-4.0 (lower distance = better; mean over images):", ""]
        for e in encoders[1:]:
            vals = []
            for name, _, _ in refs:
                # Negated distance as a score so the same BD routine applies.
                v = bd_rate([(r["bytes"], -r["butteraugli"]) for r in results[base][name]],
                            [(r["bytes"], -r["butteraugli"]) for r in results[e][name]], lo=-4.0, hi=-1.0)
                if v is not None:
                    vals.append(v)
            lines.append(f"- {e}: {np.mean(vals) * 100:+.1f} % ({len(vals)} images)" if vals else f"- {e}: n/a")
    lines += ["", "Encode CPU time per file (user+system, summed over the quality ladder and images):", ""]
    for e in encoders:
        total = sum(r["cpu"] for n, _, _ in refs for r in results[e][n])
        lines.append(f"- {e}: {total:.2f} s" + ("" if e.startswith("fgrun") else " (in this Python process: not measured)"))
    text = "\n".join(lines) + "\n"
    open(os.path.join(args.out, "bytes.md"), "w").write(text)
    print(text)
    plot(results, refs, os.path.join(args.out, "bytes-rate-quality.png"))


if __name__ == "__main__":
    main()
