"""The Python peers of bench/compare.py: one workload per process.

usage: python3 bench/peer_ops.py TOOL-WORKLOAD IN OUT      (e.g. pillow-W2, opencv-W5, pyvips-W2)

Each tool's module is imported only by its own operations, so a row pays the start-up of the
library it measures and no other. What each operation computes, per workload (the same maths
as the fgrun recipes in bench/recipes/, so the PSNR column compares like with like):

  W1  fit in 800x800, Lanczos3 (OpenCV has none: INTER_AREA after a 1/4 DCT shrink), JPEG Q85
  W2  x0.5 Lanczos3 (OpenCV: INTER_AREA), then out = 0.7*in + 0.3*#FF8000 on stored sRGB values,
      Gaussian sigma 2 on stored values, Rec. 709 luma of stored values, PNG level 6
  W3  Gaussian sigma 5 on stored values, PNG level 6
  W4a decode, PNG level 6;  W4b decode, JPEG Q90 4:2:0
  W9  fit in 800x800, Lanczos3, on the stored 16-bit values, 16-bit PNG level 6
  W5  sRGB curve removed, classic sepia 3x3 matrix in linear light, clipped to 0..1, sRGB curve,
      JPEG Q90 4:2:0 (pyvips-W5 writes PNG level 1 instead when OUT ends in .png: compare.py's
      lossless variant)

  W11norm  normalize low=1% high=99% (pyvips only): one histogram of the r, g and b values
      together (hist_find, the three bands' counts added), lo and hi its 1st and 99th
      percentiles (the smallest stored value with at least that share of the values at or below
      it), then out = (in - lo) * 255 / (hi - lo) on the stored values, clipped, JPEG Q90 4:2:0.
      Two sequential decodes: one for the histogram, one for the output. W11norm-half takes the
      histogram of the 1/2 shrink-on-load decode instead (as fgrun's analysis reads a reduced
      view; fgrun box-averages that to 4 MP and interpolates within 4096 bins).
  W11mod   modulate as sharp does it in libvips (pyvips only): sRGB to CIE LCh (D65), L x 1.1,
      C x 1.2, h + 10 degrees, back to 8-bit sRGB, JPEG Q90 4:2:0. fgrun's modulate computes the
      same multipliers in Oklch (on linear sRGB), so the pixels differ by the spaces' difference.

  W14 (pyvips only) recipes/social-card.txt as libvips users write it: thumbnail to 1200 wide
      (shrink-on-load, Lanczos3), smartcrop 1200x630 attention, gaussblur 12, stored values x 0.55
      (fgrun scales Oklab L), then the title (DejaVu Sans Bold 72 px) and the subtitle (36 px,
      85 % opaque) set by `vips text` (Pango) wrapped to 1040 px and centred, white, each laid on
      with composite2 where the recipe puts it (title's bottom and subtitle's top 20 px from the
      middle), JPEG Q90 4:2:0. bench/vips-cli-W14.sh is W14's second libvips row: the same
      steps as `vips` commands with `.v` files between them, as command-line users chain them.

  W12 (pyvips818 only, libvips 8.18 from the oracles' venv): thumbnail to fit 800x800 (Lanczos3;
      libvips shrinks the gain map with the image), uhdrsave Q85.
  W12c (pyvips818 only): every page of the 100-frame animated WebP cropped to its central 480x270,
      the pages resized by 2/3 (Lanczos3, as one strip), animated WebP Q75 with the delays and loop.

OpenCV's thread pool is capped by BENCH_THREADS when set (bench/compare.py --threads).
"""
import os
import sys

SEPIA = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
REC709 = [0.2126, 0.7152, 0.0722]
ORANGE = (255, 128, 0)
TINT = 0.3


def fit(w, h, box=800):
    s = min(box / w, box / h)
    return round(w * s), round(h * s)


def srgb_to_linear_table():
    import numpy as np

    v = np.arange(256, dtype=np.float64) / 255
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(np.float32)


# --- Pillow (single-threaded) ------------------------------------------------------------
def pillow(op, inp, out):
    from PIL import Image, ImageFilter

    lanczos = Image.Resampling.LANCZOS
    if op == "W1":  # thumbnail(): draft() = libjpeg DCT shrink on load, reduce(), then Lanczos3
        im = Image.open(inp)
        im.thumbnail((800, 800), lanczos)
        im.save(out, quality=85)
    elif op == "W2":
        im = Image.open(inp)
        im = im.resize((im.width // 2, im.height // 2), lanczos)
        lut = []
        for c in ORANGE:
            lut += [min(255, int(v * (1 - TINT) + c * TINT + 0.5)) for v in range(256)]
        im = im.point(lut)
        im = im.filter(ImageFilter.GaussianBlur(2.0))  # three box passes (an approximation)
        im = im.convert("L", matrix=tuple(REC709) + (0,))
        im.save(out, compress_level=6)
    elif op == "W3":
        Image.open(inp).filter(ImageFilter.GaussianBlur(5.0)).save(out, compress_level=6)
    elif op == "W4a":
        Image.open(inp).save(out, compress_level=6)
    elif op == "W4b":
        Image.open(inp).save(out, quality=90, subsampling=2)
    elif op == "W5":  # no float RGB operations in Pillow: NumPy does the maths
        import numpy as np

        a = np.asarray(Image.open(inp).convert("RGB"))
        lin = srgb_to_linear_table()[a] @ np.asarray(SEPIA, dtype=np.float32).T
        np.clip(lin, 0, 1, out=lin)
        q = np.arange(65536, dtype=np.float64) / 65535
        enc = np.where(q <= 0.0031308, q * 12.92, 1.055 * q ** (1 / 2.4) - 0.055)
        enc = np.clip(enc * 255 + 0.5, 0, 255).astype(np.uint8)
        Image.fromarray(enc[(lin * 65535 + 0.5).astype(np.uint16)]).save(out, quality=90, subsampling=2)
    else:
        raise SystemExit(f"peer_ops: pillow has no {op}")


# --- OpenCV (BGR order; all cores unless BENCH_THREADS) ----------------------------------
def opencv(op, inp, out):
    import cv2
    import numpy as np

    if os.environ.get("BENCH_THREADS"):
        cv2.setNumThreads(int(os.environ["BENCH_THREADS"]))
    png6 = [cv2.IMWRITE_PNG_COMPRESSION, 6]
    if op == "W1":  # 1/4 DCT shrink on load, then area average (OpenCV has no Lanczos3)
        img = cv2.imread(inp, cv2.IMREAD_REDUCED_COLOR_4)
        h, w = img.shape[:2]
        small = cv2.resize(img, fit(w * 4, h * 4), interpolation=cv2.INTER_AREA)
        cv2.imwrite(out, small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    elif op == "W2":
        img = cv2.imread(inp)
        h, w = img.shape[:2]
        img = cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        v = np.arange(256, dtype=np.float64)
        lut = np.stack([v * (1 - TINT) + c * TINT for c in ORANGE[::-1]], axis=-1)
        img = cv2.LUT(img, np.clip(lut + 0.5, 0, 255).astype(np.uint8).reshape(1, 256, 3))
        img = cv2.GaussianBlur(img, (0, 0), 2.0)
        img = cv2.transform(img, np.array([REC709[::-1]], dtype=np.float32))
        cv2.imwrite(out, img, png6)
    elif op == "W3":
        cv2.imwrite(out, cv2.GaussianBlur(cv2.imread(inp), (0, 0), 5.0), png6)
    elif op == "W4a":
        cv2.imwrite(out, cv2.imread(inp), png6)
    elif op == "W4b":
        cv2.imwrite(out, cv2.imread(inp), [cv2.IMWRITE_JPEG_QUALITY, 90])
    elif op == "W5":
        img = cv2.imread(inp)
        lin = cv2.LUT(img, srgb_to_linear_table())
        m = np.asarray(SEPIA, dtype=np.float32)[::-1, ::-1].copy()  # rows and columns in B,G,R order
        lin = cv2.transform(lin, m)
        np.clip(lin, 0, 1, out=lin)
        enc = cv2.pow(lin, 1 / 2.4) * 1.055 - 0.055
        np.copyto(enc, lin * 12.92, where=lin <= 0.0031308)
        cv2.imwrite(out, cv2.convertScaleAbs(enc, alpha=255), [cv2.IMWRITE_JPEG_QUALITY, 90])
    else:
        raise SystemExit(f"peer_ops: opencv has no {op}")


# --- pyvips (the multi-step libvips workloads; the others use the vips programs) -----------
def pyvips_(op, inp, out):
    import pyvips

    im = pyvips.Image.new_from_file(inp, access="sequential")
    if op == "W2":
        im = im.resize(0.5, kernel="lanczos3")
        im = im.linear([1 - TINT] * 3, [TINT * c for c in ORANGE], uchar=True)
        im = im.gaussblur(2.0, min_ampl=0.01)
        im = im.recomb([REC709]).rint().cast("uchar").copy(interpretation="b-w")
        im.pngsave(out, compression=6, filter="all")
    elif op == "W5":
        lin = im.colourspace("scrgb").recomb(SEPIA)
        if out.endswith(".png"):  # compare.py's lossless variant
            lin.colourspace("srgb").pngsave(out, compression=1, strip=True)
        else:
            lin.colourspace("srgb").jpegsave(out, Q=90, subsample_mode="on", strip=True)
    elif op == "W9":
        scale = min(800 / im.width, 800 / im.height)
        im.resize(scale, kernel="lanczos3").pngsave(out, compression=6, strip=True)
    elif op in ("W11norm", "W11norm-half"):
        view = im if op == "W11norm" else pyvips.Image.new_from_file(inp, access="sequential", shrink=2)
        hist = view.hist_find()  # 256 x 1, one band per colour channel
        counts = (hist[0] + hist[1] + hist[2]).tolist()[0]
        total = sum(counts)

        def percentile(q):
            below = 0
            for v, c in enumerate(counts):
                below += c
                if below >= q * total:
                    return v
            return 255

        lo, hi = percentile(0.01), percentile(0.99)
        im = pyvips.Image.new_from_file(inp, access="sequential")
        if hi - lo >= 255 / 1024:
            im = im.linear([255 / (hi - lo)] * 3, [-lo * 255 / (hi - lo)] * 3, uchar=True)
        im.jpegsave(out, Q=90, subsample_mode="on", strip=True)
    elif op == "W14":
        im = pyvips.Image.thumbnail(inp, 1200, height=100000).copy_memory()  # smartcrop reads it twice
        im = im.smartcrop(1200, 630, interesting="attention").gaussblur(12, min_ampl=0.01)
        im = im.linear([0.55] * 3, [0] * 3, uchar=True)

        def caption(text, font, opacity):
            mask = pyvips.Image.text(text, font=font, width=1040, align="centre", dpi=72)
            white = mask.new_from_image([255, 255, 255]).copy(interpretation="srgb")
            return white.bandjoin((mask * opacity).cast("uchar"))

        title = caption("Roses of the Summer Garden", "DejaVu Sans Bold 72", 1)
        subtitle = caption("A walk through twelve varieties — and how to keep them blooming", "DejaVu Sans 36", 217 / 255)
        im = im.composite2(title, "over", x=(1200 - title.width) // 2, y=315 - 20 - title.height)
        im = im.composite2(subtitle, "over", x=(1200 - subtitle.width) // 2, y=315 + 20)
        im.jpegsave(out, Q=90, subsample_mode="on", strip=True)
    elif op == "W11mod":
        im = im.colourspace("lch").linear([1.1, 1.2, 1], [0, 0, 10]).colourspace("srgb")
        im.jpegsave(out, Q=90, subsample_mode="on", strip=True)
    else:
        raise SystemExit(f"peer_ops: pyvips has no {op}")


def pyvips818(op, inp, out):
    import pyvips

    if op == "W12":
        pyvips.Image.thumbnail(inp, 800, height=800).uhdrsave(out, Q=85)
    elif op == "W12c":
        # Every page of the animation (n=-1: one strip, page-height tall pages) cropped to its
        # central 480x270, the crops joined into a strip again and resized by 2/3 (Lanczos3) to
        # 320x180 pages, then WebP Q75 (vipsthumbnail cannot crop an animation: it crops the strip).
        im = pyvips.Image.new_from_file(inp, n=-1, access="sequential")
        page = im.get("page-height")
        crops = [im.crop((im.width - 480) // 2, k * page + (page - 270) // 2, 480, 270) for k in range(im.height // page)]
        strip = pyvips.Image.arrayjoin(crops, across=1).resize(320 / 480, kernel="lanczos3").copy()
        strip.set_type(pyvips.GValue.gint_type, "page-height", 180)
        strip.set_type(pyvips.GValue.array_int_type, "delay", im.get("delay"))
        strip.set_type(pyvips.GValue.gint_type, "loop", im.get("loop"))
        strip.webpsave(out, Q=75)
    else:
        raise SystemExit(f"peer_ops: pyvips818 has no {op}")


if __name__ == "__main__":
    name, inp, out = sys.argv[1:4]
    tool, op = name.split("-", 1)
    {"pillow": pillow, "opencv": opencv, "pyvips": pyvips_, "pyvips818": pyvips818}[tool](op, inp, out)
