#!/usr/bin/env python3
"""fgrun against its peers, workload by workload, in one run: see bench/README.md.

usage: bench/compare.sh [options] [INPUT.jpg]     (compare.sh runs this file with python3)

  -n RUNS        measured runs per row, after one warm-up run (default 5)
  -q, --quick    one measured run (-n 1)
  -w LIST        workloads, comma-separated: W1,W1a,W2,W3,W3s50,W3s200,W3s500,W4a,W4b,W5,W6,W7,W8,W9,W9p,
                 W10,W11rot,W11aff,W11pad,W11ext,W11flat,W11trim,W11smart,W11med,W11conv,W11norm,W11mod,W12,W12sdr,
                 W12a,W12b,W12c,W13,W14
                 (W4 = W4a,W4b; W3s = the three large-sigma rows; W11 = every W11 row; default all but the
                 W3s rows, whose libvips runs take minutes to hours)
  -t LIST        tools: fgrun,vips,imagemagick,graphicsmagick,pillow,opencv,libjpeg-turbo,gifsicle (default all)
  --threads N    cap every tool's threads (fgrun --threads, VIPS_CONCURRENCY, MAGICK_THREAD_LIMIT,
                 OMP_NUM_THREADS, OpenCV's pool); default: each tool's own (all cores)
  --fgrun PATH   the fgrun program (default $FGRUN, else .build/release/fgrun, built when missing)
  --out DIR      where outputs and results.md go (default bench/out)
  --no-psnr      skip the PSNR column (it decodes two 24 MP images per row)
  --w10-jobs L   W10: one fgrun row per --jobs value in L (comma-separated; default: one row, --jobs
                 at its default)
  --no-lossless  skip the lossless variant of the JPEG workloads (W1, W4b, W5: fgrun and libvips
                 once each with PNG output, untimed, for the PSNR of the pixels before JPEG)
  INPUT          a JPEG photo (default: ../shared/bench/inputs/photo-24mp.jpg beside the checkout
                 when it exists, else bench/inputs/photo-24mp.jpg, made by bench/make-inputs.sh).
                 W8 reads photo-24mp-rgba.png beside it, made from it by bench/make-rgba-input.py
                 when missing; W9 photo-24mp-16bit.tif, made by bench/make-tiff16-input.py; W9p
                 photo-24mp-pyramid.tif, made from it by vips tiffsave (tiled, pyramid, JPEG Q90).

Every row is one whole process per run, timed by GNU time (/usr/bin/time -f "%e %U %S %M"):
wall time, CPU time (user + system) and peak resident set size. The Markdown table goes to
standard output and to OUT/results.md.
"""
import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import batch_w10

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ALL_WORKLOADS = ["W1", "W1a", "W2", "W3", "W3s50", "W3s200", "W3s500", "W4a", "W4b", "W5", "W6", "W7", "W8", "W9",
                 "W9p", "W10",
                 "W11rot", "W11aff", "W11pad", "W11ext", "W11flat", "W11trim", "W11smart",
                 "W11med", "W11conv", "W11norm", "W11mod", "W12", "W12sdr", "W12a", "W12b", "W12c", "W13",
                 "W14"]
ALL_TOOLS = ["fgrun", "vips", "imagemagick", "graphicsmagick", "pillow", "opencv", "libjpeg-turbo", "gifsicle"]
SEPIA = "0.393 0.769 0.189 0.349 0.686 0.168 0.272 0.534 0.131"
TITLES = {
    "W1": "W1 thumbnail: 24 MP JPEG, fit 800x800 Lanczos3, JPEG Q85",
    "W1a": "W1a thumbnail of an Adobe RGB 24 MP JPEG, converted to sRGB, fit 800x800, JPEG Q85",
    "W2": "W2 chain: x0.5 Lanczos3, tint 30% #FF8000, Gaussian sigma 2, Rec. 709 gray, PNG level 6",
    "W3": "W3 Gaussian sigma 5 at full size, PNG level 6",
    "W3s50": "W3s50 Gaussian sigma 50 at full size, PNG level 6 (peak memory beside W3's)",
    "W3s200": "W3s200 Gaussian sigma 200 at full size, PNG level 6 (peak memory beside W3's)",
    "W3s500": "W3s500 Gaussian sigma 500 at full size, PNG level 6 (peak memory beside W3's; libvips takes minutes)",
    "W4a": "W4a JPEG to PNG level 6",
    "W4b": "W4b JPEG to JPEG Q90 4:2:0",
    "W5": "W5 sRGB to linear, sepia 3x3 matrix, to sRGB, JPEG Q90",
    "W6": "W6 thumbnail to WebP: 24 MP JPEG, fit 800x800 Lanczos3, WebP Q80",
    "W7": "W7 thumbnail to AVIF: 24 MP JPEG, fit 2048x2048 Lanczos3, AVIF Q50 at each library's default speed",
    "W8": "W8 PNG thumbnail: 24 MP RGBA PNG, fit 800x800 Lanczos3, JPEG Q85",
    "W9": "W9 16-bit TIFF thumbnail: 24 MP 16-bit RGB LZW TIFF, fit 800x800 Lanczos3, 16-bit PNG",
    "W9p": "W9p pyramidal TIFF thumbnail: 24 MP tiled (256x256) pyramidal JPEG-Q90 TIFF, fit 800x800 Lanczos3, JPEG Q85",
    "W10": batch_w10.TITLE,
    "W11rot": "W11rot rotate 12.5 degrees, bilinear, black corners, JPEG Q90 4:2:0",
    "W11aff": "W11aff affine 0.9,0.2,-0.1,1.1, bilinear, JPEG Q90 4:2:0",
    "W11pad": "W11pad pad to a 6400x6400 white square, centred, JPEG Q90 4:2:0",
    "W11ext": "W11ext extend 200 pixels on every side, mirrored, JPEG Q90 4:2:0",
    "W11flat": "W11flat flatten the 24 MP RGBA PNG onto white, JPEG Q90 4:2:0",
    "W11trim": "W11trim trim the 24 MP photo's 200-pixel white border (threshold 10/255), JPEG Q90 4:2:0",
    "W11smart": "W11smart smartcrop 1080x1080 attention, JPEG Q90 4:2:0",
    "W11med": "W11med median of the 3x3 window per channel, JPEG Q90 4:2:0",
    "W11conv": "W11conv convolve with the 3x3 sharpening kernel 0,-1,0,-1,5,-1,0,-1,0, JPEG Q90 4:2:0",
    "W11norm": "W11norm normalize: the 1st and 99th percentiles of r,g,b stretched to black and white, JPEG Q90 4:2:0",
    "W11mod": "W11mod modulate brightness 1.1, saturation 1.2, hue +10 degrees in a perceptual LCh, JPEG Q90 4:2:0",
    "W12": "W12 Ultra HDR thumbnail: 24 MP Ultra HDR JPEG (quarter-size map), fit 800x800 Lanczos3, Ultra HDR JPEG Q85",
    "W12sdr": "W12sdr the same file thumbnailed as SDR only (the gain map dropped), JPEG Q85",
    "W12a": "W12a animated GIF: 200 frames of 640x360 (bench/make-animation-input.py), fit 320x320, GIF "
            "(PSNR: median over frames)",
    "W12b": "W12b the same 200-frame animated GIF, fit 320x320, animated WebP Q75",
    "W12c": "W12c animated WebP: 100 frames of 640x360 (W12a's first 100, WebP Q90), crop the central 480x270, "
            "fit 320x320 (320x180), animated WebP Q75",
    "W13": "W13 credit line (recipes/credit.txt: text at 3% of the height, soft shadow, composite) on the 24 MP photo, "
           "JPEG Q90 4:2:0, beside the same recipe without it",
    "W14": "W14 social card (recipes/social-card.txt: 1200 wide, 1200x630 attention crop, blur 12, darken, "
           "title and subtitle wrapped and centred), JPEG Q90 4:2:0",
}
EXT = {"W1": "jpg", "W1a": "jpg", "W2": "png", "W3": "png", "W3s50": "png", "W3s200": "png", "W3s500": "png", "W4a": "png", "W4b": "jpg", "W5": "jpg", "W6": "webp", "W7": "avif", "W8": "jpg",
       "W9": "png", "W9p": "jpg", "W10": "jpg", "W11rot": "jpg", "W11aff": "jpg", "W11pad": "jpg", "W11ext": "jpg", "W11flat": "jpg",
       "W11trim": "jpg", "W11smart": "jpg",
       "W11med": "jpg", "W11conv": "jpg", "W11norm": "jpg", "W11mod": "jpg", "W12": "jpg", "W12sdr": "jpg",
       "W12a": "gif", "W12b": "webp", "W12c": "webp", "W13": "jpg", "W14": "jpg"}
LOSSY = ["W1", "W4b", "W5"]  # the JPEG workloads with a lossless (PNG) variant


def find_imagemagick():
    """The real ImageMagick convert: an ELF binary (a wrapper script may stand in for it)."""
    if os.environ.get("IM_CONVERT"):
        return os.environ["IM_CONVERT"].split()
    for name in ("magick", "convert"):
        for d in os.environ.get("PATH", "").split(os.pathsep):
            p = os.path.join(d, name)
            try:
                with open(p, "rb") as f:
                    if f.read(4) == b"\x7fELF" and os.access(p, os.X_OK):
                        return [p, "convert"] if name == "magick" else [p]
            except OSError:
                pass
    return ["convert"]


def recipe_options(path):
    """fgrun options a recipe asks for in a `# fgrun-options: …` comment line."""
    opts = []
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s.startswith("# fgrun-options:"):
                opts += s.split(":", 1)[1].split()
    return opts


ORACLES_PY = os.path.join(os.path.dirname(HERE), ".venv-oracles", "bin", "python")


def animation_input():
    """W12a's animated GIF, made by bench/make-animation-input.py when missing."""
    path = os.path.join(HERE, "inputs", "anim-640x360.gif")
    if not os.path.exists(path):
        subprocess.run([os.environ.get("PYTHON", "python3"), os.path.join(HERE, "make-animation-input.py"), path],
                       check=True)
    return path


def webp_animation_input():
    """W12c's animated WebP: the first 100 frames of W12a's GIF as WebP Q90 (libvips), made when missing."""
    path = os.path.join(HERE, "inputs", "anim-640x360-100.webp")
    if not os.path.exists(path):
        subprocess.run(["vips", "copy", f"{animation_input()}[n=100]", f"{path}[Q=90]"], check=True)
    return path


def uhdr_input(inp):
    """W12's input: photo-24mp-uhdr.jpg beside the JPEG photo, made from it by
    bench/make-uhdr-input.py in the oracles' venv (scripts/install-hdr-oracles.sh) when missing."""
    jpg = os.path.join(os.path.dirname(inp), "photo-24mp-uhdr.jpg")
    if not os.access(os.path.dirname(inp), os.W_OK) and not os.path.exists(jpg):
        jpg = os.path.join(HERE, "inputs", "photo-24mp-uhdr.jpg")
    if not os.path.exists(jpg):
        subprocess.run([ORACLES_PY, os.path.join(HERE, "make-uhdr-input.py"), inp, jpg], check=True)
    return jpg


def rows_for(w, inp, out, py, im, fgrun, threads):
    """(tool, variant, output file, argv, is the libvips reference) for workload w."""
    o = os.path.join(out, w)
    pe = [py, os.path.join(HERE, "peer_ops.py")]
    r = []
    if w in ("W8", "W11flat"):
        inp = rgba_input(inp, py)
    if w == "W9":
        inp = tiff16_input(inp, py)
    if w == "W9p":
        inp = pyramid_input(inp)
    if w == "W11trim":
        inp = bordered_input(inp)
    if w in ("W12", "W12sdr"):
        inp = uhdr_input(inp)
    if w in ("W12a", "W12b"):
        inp = animation_input()
    if w == "W12c":
        inp = webp_animation_input()
    jpeg90 = "[Q=90,subsample-mode=on,strip]"
    if w == "W6":
        r += [("vips", "vipsthumbnail", f"{o}-vips.webp",
               ["vipsthumbnail", inp, "-s", "800x800", "-o", f"{o}-vips.webp[Q=80,strip]"], True)]
    elif w == "W7":
        # libvips' heifsave default effort 4 is libaom speed 5; fgrun's default is libheif's (speed 6).
        r += [("vips", "vipsthumbnail", f"{o}-vips.avif",
               ["vipsthumbnail", inp, "-s", "2048x2048", "-o", f"{o}-vips.avif[Q=50,strip]"], True)]
    elif w == "W8":
        r += [("vips", "vipsthumbnail", f"{o}-vips.jpg",
               ["vipsthumbnail", inp, "-s", "800x800", "-o", f"{o}-vips.jpg[Q=85,strip]"], True)]
    elif w == "W9":
        # vipsthumbnail exports 8-bit sRGB; the 16-bit reference is pyvips's resize.
        r += [("vips", "pyvips resize lanczos3, 16-bit", f"{o}-vips.png", pe + ["pyvips-W9", inp, f"{o}-vips.png"], True),
              ("vips", "vipsthumbnail (8-bit output)", f"{o}-vipsthumbnail.png",
               ["vipsthumbnail", inp, "-s", "800x800", "-o", f"{o}-vipsthumbnail.png[compression=6,strip]"], False)]
    elif w == "W9p":
        r += [("vips", "vipsthumbnail", f"{o}-vips.jpg",
               ["vipsthumbnail", inp, "-s", "800x800", "-o", f"{o}-vips.jpg[Q=85,strip]"], True)]
    elif w == "W1":
        r += [("vips", "vipsthumbnail", f"{o}-vips.jpg",
               ["vipsthumbnail", inp, "-s", "800x800", "-o", f"{o}-vips.jpg[Q=85,strip]"], True),
              ("imagemagick", "jpeg:size=1600x1600, -resize Lanczos", f"{o}-im.jpg",
               im + ["-define", "jpeg:size=1600x1600", inp, "-filter", "Lanczos", "-resize", "800x800",
                     "-strip", "-quality", "85", f"{o}-im.jpg"], False),
              ("graphicsmagick", "-size 1600x1600, -resize Lanczos", f"{o}-gm.jpg",
               ["gm", "convert", "-size", "1600x1600", inp, "-filter", "Lanczos", "-resize", "800x800",
                "+profile", "*", "-quality", "85", f"{o}-gm.jpg"], False),
              ("pillow", "thumbnail(LANCZOS)", f"{o}-pil.jpg", pe + ["pillow-W1", inp, f"{o}-pil.jpg"], False),
              ("opencv", "REDUCED_COLOR_4 + INTER_AREA", f"{o}-cv.jpg", pe + ["opencv-W1", inp, f"{o}-cv.jpg"], False)]
    elif w == "W1a":
        r += [("vips", "vipsthumbnail --export-profile srgb", f"{o}-vips.jpg",
               ["vipsthumbnail", inp, "-s", "800x800", "--export-profile", "srgb", "-o", f"{o}-vips.jpg[Q=85,strip]"], True)]
    elif w == "W2":
        r += [("vips", "pyvips", f"{o}-vips.png", pe + ["pyvips-W2", inp, f"{o}-vips.png"], True),
              ("imagemagick", "convert", f"{o}-im.png",
               im + [inp, "-filter", "Lanczos", "-resize", "50%", "-fill", "#FF8000", "-colorize", "30%",
                     "-blur", "0x2", "-grayscale", "Rec709Luma", "-strip", "-quality", "65", f"{o}-im.png"], False),
              ("graphicsmagick", "gm convert", f"{o}-gm.png",
               ["gm", "convert", inp, "-filter", "Lanczos", "-resize", "50%", "-fill", "#FF8000", "-colorize", "30",
                "-blur", "0x2", "-colorspace", "Rec709Luma", "-type", "Grayscale", "+profile", "*",
                "-quality", "65", f"{o}-gm.png"], False),
              ("pillow", "Pillow", f"{o}-pil.png", pe + ["pillow-W2", inp, f"{o}-pil.png"], False),
              ("opencv", "OpenCV (INTER_AREA)", f"{o}-cv.png", pe + ["opencv-W2", inp, f"{o}-cv.png"], False)]
    elif w == "W3":
        r += [("vips", "gaussblur min_ampl 0.01, filter=all", f"{o}-vips.png",
               ["vips", "gaussblur", inp, f"{o}-vips.png[compression=6,filter=all]", "5", "--min-ampl", "0.01"], True),
              ("imagemagick", "-blur 0x5", f"{o}-im.png",
               im + [inp, "-blur", "0x5", "-strip", "-quality", "65", f"{o}-im.png"], False),
              ("graphicsmagick", "-blur 0x5", f"{o}-gm.png",
               ["gm", "convert", inp, "-blur", "0x5", "+profile", "*", "-quality", "65", f"{o}-gm.png"], False),
              ("pillow", "GaussianBlur(5)", f"{o}-pil.png", pe + ["pillow-W3", inp, f"{o}-pil.png"], False),
              ("opencv", "GaussianBlur sigma 5", f"{o}-cv.png", pe + ["opencv-W3", inp, f"{o}-cv.png"], False)]
    elif w.startswith("W3s"):
        sigma = w[3:]
        r += [("vips", f"gaussblur {sigma} min_ampl 0.01, filter=all", f"{o}-vips.png",
               ["vips", "gaussblur", inp, f"{o}-vips.png[compression=6,filter=all]", sigma, "--min-ampl", "0.01"], True)]
    elif w == "W4a":
        r += [("vips", "copy, filter=all", f"{o}-vips.png",
               ["vips", "copy", inp, f"{o}-vips.png[compression=6,filter=all]"], True),
              ("imagemagick", "-quality 65", f"{o}-im.png", im + [inp, "-strip", "-quality", "65", f"{o}-im.png"], False),
              ("graphicsmagick", "-quality 65", f"{o}-gm.png",
               ["gm", "convert", inp, "+profile", "*", "-quality", "65", f"{o}-gm.png"], False),
              ("pillow", "compress_level=6", f"{o}-pil.png", pe + ["pillow-W4a", inp, f"{o}-pil.png"], False),
              ("opencv", "PNG_COMPRESSION 6", f"{o}-cv.png", pe + ["opencv-W4a", inp, f"{o}-cv.png"], False)]
    elif w == "W4b":
        r += [("vips", "copy Q=90 4:2:0", f"{o}-vips.jpg",
               ["vips", "copy", inp, f"{o}-vips.jpg[Q=90,subsample-mode=on,strip]"], True),
              ("imagemagick", "-quality 90 2x2", f"{o}-im.jpg",
               im + [inp, "-sampling-factor", "2x2", "-define", "jpeg:optimize-coding=false",
                     "-define", "jpeg:dct-method=islow", "-strip", "-quality", "90", f"{o}-im.jpg"], False),
              ("graphicsmagick", "-quality 90 2x2", f"{o}-gm.jpg",
               ["gm", "convert", inp, "-sampling-factor", "2x2", "-define", "jpeg:optimize-coding=false",
                "+profile", "*", "-quality", "90", f"{o}-gm.jpg"], False),
              ("pillow", "quality=90", f"{o}-pil.jpg", pe + ["pillow-W4b", inp, f"{o}-pil.jpg"], False),
              ("opencv", "JPEG_QUALITY 90", f"{o}-cv.jpg", pe + ["opencv-W4b", inp, f"{o}-cv.jpg"], False),
              ("libjpeg-turbo", "djpeg | cjpeg -quality 90", f"{o}-djpeg.jpg",
               ["sh", "-c", f"djpeg '{inp}' | cjpeg -quality 90 > '{o}-djpeg.jpg'"], False)]
    elif w == "W5":
        r += [("vips", "pyvips scrgb/recomb/srgb", f"{o}-vips.jpg", pe + ["pyvips-W5", inp, f"{o}-vips.jpg"], True),
              ("imagemagick", "-colorspace RGB -color-matrix", f"{o}-im.jpg",
               im + [inp, "-colorspace", "RGB", "-color-matrix", SEPIA, "-colorspace", "sRGB",
                     "-sampling-factor", "2x2", "-define", "jpeg:optimize-coding=false",
                     "-define", "jpeg:dct-method=islow", "-strip", "-quality", "90", f"{o}-im.jpg"], False),
              ("graphicsmagick", "-gamma 0.4545 -recolor -gamma 2.2 (approx.)", f"{o}-gm.jpg",
               ["gm", "convert", inp, "-gamma", "0.454545", "-recolor", SEPIA, "-gamma", "2.2",
                "-sampling-factor", "2x2", "-define", "jpeg:optimize-coding=false", "+profile", "*",
                "-quality", "90", f"{o}-gm.jpg"], False),
              ("pillow", "Pillow + NumPy", f"{o}-pil.jpg", pe + ["pillow-W5", inp, f"{o}-pil.jpg"], False),
              ("opencv", "OpenCV + NumPy", f"{o}-cv.jpg", pe + ["opencv-W5", inp, f"{o}-cv.jpg"], False)]
    elif w == "W11rot":
        r += [("vips", "rotate (bilinear, black)", f"{o}-vips.jpg", ["vips", "rotate", inp, f"{o}-vips.jpg{jpeg90}", "12.5"], True)]
    elif w == "W11aff":
        r += [("vips", "affine (bilinear)", f"{o}-vips.jpg",
               ["vips", "affine", inp, f"{o}-vips.jpg{jpeg90}", "0.9 0.2 -0.1 1.1"], True)]
    elif w == "W11pad":
        r += [("vips", "gravity centre, white", f"{o}-vips.jpg",
               ["vips", "gravity", inp, f"{o}-vips.jpg{jpeg90}", "centre", "6400", "6400",
                "--extend", "background", "--background", "255 255 255"], True)]
    elif w == "W11ext":
        width, height = image_size(inp)
        r += [("vips", "embed, mirror", f"{o}-vips.jpg",
               ["vips", "embed", inp, f"{o}-vips.jpg{jpeg90}", "200", "200", str(width + 400), str(height + 400),
                "--extend", "mirror"], True)]
    elif w == "W11flat":
        r += [("vips", "flatten, white", f"{o}-vips.jpg",
               ["vips", "flatten", inp, f"{o}-vips.jpg{jpeg90}", "--background", "255 255 255"], True)]
    elif w == "W11trim":
        # find_trim prints left, top, width and height, which crop takes as they are.
        r += [("vips", "find_trim + crop (two processes)", f"{o}-vips.jpg",
               ["sh", "-c", f"vips crop '{inp}' '{o}-vips.jpg{jpeg90}' "
                f"$(vips find_trim '{inp}' --threshold 10 --background 255)"], True)]
    elif w == "W11smart":
        r += [("vips", "smartcrop attention", f"{o}-vips.jpg",
               ["vips", "smartcrop", inp, f"{o}-vips.jpg{jpeg90}", "1080", "1080", "--interesting", "attention"], True)]
    elif w == "W11med":
        # vips median is a C convenience over rank, which the command line calls by name.
        r += [("vips", "rank 3 3 4 (median)", f"{o}-vips.jpg", ["vips", "rank", inp, f"{o}-vips.jpg{jpeg90}", "3", "3", "4"], True)]
    elif w == "W11conv":
        r += [("vips", "conv (float precision, its default)", f"{o}-vips.jpg",
               ["vips", "conv", inp, f"{o}-vips.jpg{jpeg90}", os.path.join(HERE, "recipes", "W11conv.mat")], True)]
    elif w == "W11norm":
        # vips hist_norm normalises a histogram image, not an image; the stretch is built from
        # hist_find (peer_ops.py says exactly what each row computes).
        r += [("vips", "pyvips hist_find, percentiles, linear", f"{o}-vips.jpg",
               pe + ["pyvips-W11norm", inp, f"{o}-vips.jpg"], True),
              ("vips", "same, histogram of the 1/2 shrink-on-load decode", f"{o}-vips-half.jpg",
               pe + ["pyvips-W11norm-half", inp, f"{o}-vips-half.jpg"], False)]
    elif w == "W11mod":
        # sharp's modulate: colourspace to CIE LCh, linear on L, C and h, back to sRGB.
        r += [("vips", "pyvips colourspace lch, linear, srgb", f"{o}-vips.jpg",
               pe + ["pyvips-W11mod", inp, f"{o}-vips.jpg"], True),
              # modulate's yardstick: within 2x of fgrun's sepia on the same photo and output.
              ("fgrun sepia", "bench/recipes/W5.txt --quality 90 (modulate's yardstick: fgrun/this <= 2)",
               f"{o}-fgrun-sepia.jpg",
               [fgrun, "--quality", "90"] + (["--threads", str(threads)] if threads else [])
               + [os.path.join(HERE, "recipes", "W5.txt"), inp, f"{o}-fgrun-sepia.jpg"], False)]
    elif w == "W12":
        # libvips 8.18 from pyvips-binary in the oracles' venv (the system libvips has no uhdr).
        r += [("vips 8.18", "pyvips thumbnail + uhdrsave", f"{o}-vips.jpg",
               [ORACLES_PY, os.path.join(HERE, "peer_ops.py"), "pyvips818-W12", inp, f"{o}-vips.jpg"], True)]
    elif w == "W12a":
        r += [("vips", "vipsthumbnail [n=-1] (cgif + libimagequant)", f"{o}-vips.gif",
               ["vipsthumbnail", f"{inp}[n=-1]", "-s", "320x320", "-o", f"{o}-vips.gif"], True),
              ("gifsicle", "--resize-fit 320x320", f"{o}-gifsicle.gif",
               ["gifsicle", "--resize-fit", "320x320", inp, "-o", f"{o}-gifsicle.gif"], False),
              ("gifsicle", "--resize-fit 320x320 --colors 256 -O3", f"{o}-gifsicle-O3.gif",
               ["gifsicle", "--resize-fit", "320x320", "--colors", "256", "-O3", inp, "-o", f"{o}-gifsicle-O3.gif"],
               False)]
    elif w == "W12b":
        r += [("vips", "vipsthumbnail [n=-1], WebP Q75", f"{o}-vips.webp",
               ["vipsthumbnail", f"{inp}[n=-1]", "-s", "320x320", "-o", f"{o}-vips.webp[Q=75]"], True)]
    elif w == "W12c":
        r += [("vips 8.18", "pyvips: crop every page, arrayjoin, resize, webpsave Q75", f"{o}-vips.webp",
               [ORACLES_PY, os.path.join(HERE, "peer_ops.py"), "pyvips818-W12c", inp, f"{o}-vips.webp"], True)]
    elif w == "W13":
        # The text's cost, two ways: the recipe without the credit at all (W4b's identity recipe,
        # which fgrun writes by decoding, copying the rows as bytes and encoding again), and the same
        # recipe with the text replaced by a transparent box of its size (the same decode, shadow,
        # composite and encode). Their `fgrun/this` is the ratio asked of the credit (<= 1.05).
        for name, what in (("W4b", "without the credit (rows copied)"), ("W13-notext", "with a box, no text")):
            plain = os.path.join(HERE, "recipes", f"{name}.txt")
            r += [(f"fgrun {what}", f"bench/recipes/{name}.txt --quality 90", f"{o}-{name}.jpg",
                   [fgrun, *recipe_options(plain), *(["--threads", str(threads)] if threads else []), plain, inp,
                    f"{o}-{name}.jpg"], False)]
    elif w == "W14":
        r += [("vips", "pyvips thumbnail, smartcrop, gaussblur, linear, 2x text (Pango) + composite2", f"{o}-vips.jpg",
               pe + ["pyvips-W14", inp, f"{o}-vips.jpg"], True),
              ("vips CLI", "bench/vips-cli-W14.sh: 8 vips processes, .v files between them", f"{o}-vips-cli.jpg",
               ["sh", os.path.join(HERE, "vips-cli-W14.sh"), inp, f"{o}-vips-cli.jpg"], False)]
    recipe = os.path.join(HERE, "recipes", f"{w}.txt")
    if os.path.exists(recipe):
        extra = recipe_options(recipe) + (["--threads", str(threads)] if threads else [])
        out_file = f"{o}-fgrun.{EXT[w]}"
        r.insert(0, ("fgrun", f"bench/recipes/{w}.txt {' '.join(extra)}".strip(), out_file,
                     [fgrun, *extra, recipe, inp, out_file], False))
    return r


def image_size(path):
    """(width, height) of an image by vipsheader, or the 24 MP photo's when that fails."""
    try:
        out = [subprocess.run(["vipsheader", "-f", f, path], capture_output=True, text=True, check=True).stdout
               for f in ("width", "height")]
        return int(out[0]), int(out[1])
    except (OSError, subprocess.CalledProcessError, ValueError):
        return 6000, 4000


def rgba_input(inp, py):
    """W8's input: photo-24mp-rgba.png beside the JPEG photo, made from it when missing."""
    png = os.path.join(os.path.dirname(inp), "photo-24mp-rgba.png")
    if not os.path.exists(png):
        png = os.path.join(HERE, "inputs", "photo-24mp-rgba.png")
        if not os.path.exists(png):
            os.makedirs(os.path.dirname(png), exist_ok=True)
            subprocess.run([py, os.path.join(HERE, "make-rgba-input.py"), inp, png], check=True)
    return png


def bordered_input(inp):
    """W11trim's input: photo-24mp-bordered.jpg (the photo inside a 200-pixel white border, Q95)
    beside the JPEG photo, made from it with vips embed when missing."""
    jpg = os.path.join(os.path.dirname(inp), "photo-24mp-bordered.jpg")
    if not os.path.exists(jpg):
        jpg = os.path.join(HERE, "inputs", "photo-24mp-bordered.jpg")
        if not os.path.exists(jpg):
            os.makedirs(os.path.dirname(jpg), exist_ok=True)
            width, height = image_size(inp)
            subprocess.run(["vips", "embed", inp, f"{jpg}[Q=95,strip]", "200", "200", str(width + 400),
                            str(height + 400), "--extend", "white"], check=True)
    return jpg


def pyramid_input(inp):
    """W9p's input: photo-24mp-pyramid.tif beside the JPEG photo (the photo as a tiled pyramidal
    TIFF: 256x256 JPEG-Q90 tiles, levels halved down to one tile in the main IFD chain, as
    `vips tiffsave --tile --pyramid` writes them), made from it when missing."""
    tif = os.path.join(os.path.dirname(inp), "photo-24mp-pyramid.tif")
    if not os.path.exists(tif):
        tif = os.path.join(HERE, "inputs", "photo-24mp-pyramid.tif")
        if not os.path.exists(tif):
            os.makedirs(os.path.dirname(tif), exist_ok=True)
            subprocess.run(["vips", "tiffsave", inp, tif, "--tile", "--pyramid", "--tile-width", "256", "--tile-height", "256",
                            "--compression", "jpeg", "--Q", "90", "--strip"], check=True)
    return tif


def tiff16_input(inp, py):
    """W9's input: photo-24mp-16bit.tif beside the JPEG photo, made from it when missing."""
    tif = os.path.join(os.path.dirname(inp), "photo-24mp-16bit.tif")
    if not os.path.exists(tif):
        tif = os.path.join(HERE, "inputs", "photo-24mp-16bit.tif")
        if not os.path.exists(tif):
            os.makedirs(os.path.dirname(tif), exist_ok=True)
            subprocess.run([py, os.path.join(HERE, "make-tiff16-input.py"), inp, tif], check=True)
    return tif


def lossless_rows(w, inp, out, py, fgrun, threads):
    """The lossless variant of a JPEG-writing workload: the same operations by fgrun and by
    libvips, written as PNG (zlib level 1: only the values matter). [(tool, output file, argv)]."""
    o = os.path.join(out, f"{w}-lossless")
    recipe = os.path.join(HERE, "recipes", f"{w}.txt")
    opts, skip = [], False
    for x in recipe_options(recipe):  # the recipe's options, less the JPEG quality
        if skip:
            skip = False
        elif x == "--quality":
            skip = True
        elif not x.startswith("--quality="):
            opts.append(x)
    opts += ["--compression", "1"] + (["--threads", str(threads)] if threads else [])
    vips = {
        "W1": ["vipsthumbnail", inp, "-s", "800x800", "-o", f"{o}-vips.png[compression=1,strip]"],
        "W4b": ["vips", "copy", inp, f"{o}-vips.png[compression=1,strip]"],
        "W5": [py, os.path.join(HERE, "peer_ops.py"), "pyvips-W5", inp, f"{o}-vips.png"],
    }[w]
    return [("fgrun", f"{o}-fgrun.png", [fgrun, *opts, recipe, inp, f"{o}-fgrun.png"]),
            ("vips", f"{o}-vips.png", vips)]


def run_psnr(py, a, b):
    """psnr.py's answer for files a and b ("41.23", "inf" or a reason), "" when one is missing."""
    if not (os.path.exists(a) and os.path.exists(b)):
        return ""
    p = subprocess.run([py, os.path.join(HERE, "psnr.py"), a, b], capture_output=True, text=True)
    return (p.stdout.strip() or (p.stderr.strip().splitlines() or ["failed"])[-1])[:40]


def lossless_check(w, inp, out, py, fgrun, threads, env, results):
    """Runs the lossless variant once per tool (not timed) and returns a Markdown paragraph and
    fgrun's lossless PSNR against libvips: how far apart the two tools' pixels are before JPEG,
    and how much each tool's own JPEG encode moves its pixels."""
    rows = lossless_rows(w, inp, out, py, fgrun, threads)
    files = {}
    for tool, out_file, argv in rows:
        if os.path.exists(out_file):
            os.remove(out_file)
        p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        if p.returncode != 0:
            msg = p.stderr.decode(errors="replace").strip().splitlines()
            return f"Lossless variant: {tool} failed (exit {p.returncode}): {msg[-1] if msg else ''}"[:200], ""
        files[tool] = out_file
    lossy = {t: f for t, _, f, _, m in results if isinstance(m, list)}
    both = run_psnr(py, files["vips"], files["fgrun"])
    own = {t: run_psnr(py, files[t], lossy[t]) for t in files if t in lossy}
    text = (f"Lossless variant (the same operations written as PNG, one untimed run per tool): "
            f"fgrun vs libvips **{both} dB**")
    if own:
        text += "; each tool's JPEG against its own PNG (the encoder's error alone): " + ", ".join(
            f"{'libvips' if t == 'vips' else t} {v} dB" for t, v in own.items())
    text += "."
    if w == "W1":  # where the resampling difference comes from (bench/README.md, "PSNR")
        p = subprocess.run([py, os.path.join(HERE, "resample_check.py"), inp, files["fgrun"], files["vips"]],
                           capture_output=True, text=True)
        if p.returncode == 0:
            text += ("\n\nbench/resample_check.py: both thumbnails against a float64 evaluation of "
                     "Lanczos3 on the same 1/2-size decode, one rounding, under the two coordinate "
                     "conventions (edges: fgrun, Pillow, ImageMagick; uniform: libvips):\n\n" + p.stdout.strip())
        else:
            text += f" (resample_check.py failed: {(p.stderr.strip().splitlines() or [''])[-1][:120]})"
    return text, both


def measure(argv, out_file, runs, env):
    """One warm-up, then `runs` runs: [(wall s, cpu s, peak RSS KB)], or an error string."""
    results = []
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        for i in range(runs + 1):
            if out_file and os.path.exists(out_file):
                os.remove(out_file)
            t0 = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", tf.name, *argv],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            wall = time.perf_counter() - t0
            if p.returncode != 0:
                msg = p.stderr.decode(errors="replace").strip().splitlines()
                return f"failed (exit {p.returncode}): {msg[-1] if msg else ''}"[:160]
            tf.seek(0)
            _, us, sy, rss = tf.read().split()[-4:]
            if i > 0:
                results.append((wall, float(us) + float(sy), int(rss)))
    return results


def fmt_ratio(a, b):
    return f"{a / b:.2f}" if a and b else ""


def main():
    ap = argparse.ArgumentParser(add_help=True, usage=__doc__.split("\n\n")[1])
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("-q", "--quick", action="store_true")
    ap.add_argument("-w", default=",".join(w for w in ALL_WORKLOADS if not w.startswith("W3s")))
    ap.add_argument("-t", default=",".join(ALL_TOOLS))
    ap.add_argument("--threads", type=int)
    ap.add_argument("--fgrun", default=os.environ.get("FGRUN"))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out"))
    ap.add_argument("--no-psnr", action="store_true")
    ap.add_argument("--no-lossless", action="store_true")
    ap.add_argument("--w10-jobs", default="")
    ap.add_argument("input", nargs="?")
    a = ap.parse_args()
    runs = 1 if a.quick else max(1, a.n)
    workloads = []
    for w in a.w.split(","):
        if w == "W4":
            workloads += ["W4a", "W4b"]
        elif w == "W11":
            workloads += [x for x in ALL_WORKLOADS if x.startswith("W11")]
        elif w == "W3s":
            workloads += [x for x in ALL_WORKLOADS if x.startswith("W3s")]
        else:
            workloads += [w]
    bad = [w for w in workloads if w not in ALL_WORKLOADS]
    tools = a.t.split(",")
    bad += [t for t in tools if t not in ALL_TOOLS]
    if bad:
        sys.exit(f"compare: unknown workload or tool: {', '.join(bad)}")

    # The input photo.
    inp = a.input
    if not inp:
        shared = os.path.normpath(os.path.join(ROOT, "..", "shared", "bench", "inputs", "photo-24mp.jpg"))
        own = os.path.join(HERE, "inputs", "photo-24mp.jpg")
        if os.path.exists(shared):
            inp = shared
        else:
            if not os.path.exists(own):
                subprocess.run([os.path.join(HERE, "make-inputs.sh")], check=True)
            inp = own
    inp = os.path.abspath(inp)
    if not os.path.exists(inp):
        sys.exit(f"compare: no such input {inp}")

    # fgrun: a release build.
    fgrun = a.fgrun or os.path.join(ROOT, ".build", "release", "fgrun")
    if "fgrun" in tools and not os.path.exists(fgrun):
        print("compare: building fgrun (swift build -c release --static-swift-stdlib --product fgrun)", file=sys.stderr)
        subprocess.run(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "fgrun"], cwd=ROOT, check=True)
    fgrun = os.path.abspath(fgrun)

    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ)
    if a.threads:
        t = str(a.threads)
        env.update(VIPS_CONCURRENCY=t, OMP_NUM_THREADS=t, MAGICK_THREAD_LIMIT=t, BENCH_THREADS=t)
    py = sys.executable
    im = find_imagemagick()

    lines = [
        f"Input: {inp} ({os.path.getsize(inp)} bytes); {runs} measured run(s) after 1 warm-up per row; "
        f"threads: {a.threads or 'each tool default'}; {os.cpu_count()} cores; "
        f"load at start {open('/proc/loadavg').read().split()[0]}; {time.strftime('%Y-%m-%d %H:%M:%S %Z')}.",
        "",
        "Median and min-max wall time, median CPU time (user + system), largest peak RSS of the runs, "
        "output size; `fgrun/this` = fgrun's median wall time divided by this row's (< 1: fgrun is faster); "
        "PSNR of this row's output against libvips's output of the same workload (8-bit values as stored, "
        "no colour management, RGB; gray against gray on its one channel, gray against colour as RGB; "
        "bench/psnr.py). For the JPEG workloads the two files' own compression error is included, so "
        "each of those sections also gives the PSNR of a lossless (PNG) variant of the same operations.",
        "",
    ]
    summary = ["", "| workload | fgrun s | fastest peer | fgrun/fastest | fgrun/libvips (time) | fgrun/libvips (RSS) "
               "| fgrun PSNR vs libvips | same, lossless variant |",
               "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    print("\n".join(lines), flush=True)
    for w in workloads:
        print(f"== {w} ({time.strftime('%H:%M:%S')}, load {open('/proc/loadavg').read().split()[0]})",
              file=sys.stderr, flush=True)
        if w == "W10":  # a batch of files: rows and table of its own (bench/batch_w10.py)
            table, row = batch_w10.run(
                inp, out, fgrun, recipe_options(os.path.join(HERE, "recipes", "W10.txt")), a.threads, runs, env,
                tools, [int(j) for j in a.w10_jobs.split(",") if j], psnr=not a.no_psnr)
            print("\n".join(table), flush=True)
            lines += table
            summary.append(row)
            continue
        results = []
        winp = inp
        if w == "W1a":  # the photo converted to Adobe RGB (made once, beside the outputs)
            winp = os.path.join(out, "photo-24mp-adobergb.jpg")
            if not os.path.exists(winp):
                subprocess.run([py, os.path.join(HERE, "make-adobergb-input.py"), inp, winp], check=True)
        for tool, variant, out_file, argv, ref in rows_for(w, winp, out, py, im, fgrun, a.threads):
            if tool.split()[0] not in tools:  # "vips 8.18" is a libvips row
                continue
            exe = argv[0]
            if exe != py and shutil.which(exe) is None and not os.path.exists(exe):
                results.append((tool, variant, out_file, ref, f"not available: {exe}"))
                continue
            m = measure(argv, out_file, runs, env)
            results.append((tool, variant, out_file, ref, m))
            if isinstance(m, str):
                print(f"   {tool} [{variant}]: {m}", file=sys.stderr, flush=True)
            else:
                print(f"   {tool} [{variant}]: median {statistics.median(x[0] for x in m):.2f} s",
                      file=sys.stderr, flush=True)

        def med(m):
            return statistics.median(x[0] for x in m) if isinstance(m, list) else None

        fg = next((med(m) for t, _, _, _, m in results if t == "fgrun"), None)
        ref_row = next((r for r in results if r[3] and isinstance(r[4], list)), None)
        ref_file = ref_row[2] if ref_row else None
        table = [f"### {TITLES[w]}", "",
                 "| tool | variant | median s | min–max s | CPU s | peak RSS MB | output KB | fgrun/this | PSNR vs libvips dB |",
                 "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
        psnrs = {}
        for tool, variant, out_file, ref, m in results:
            variant = variant.replace("|", "\\|")  # a shell pipe in a Markdown cell
            if isinstance(m, str):
                table.append(f"| {tool} | {variant} | {m} | | | | | | |")
                continue
            walls = [x[0] for x in m]
            cpu = statistics.median(x[1] for x in m)
            rss = max(x[2] for x in m) / 1024
            size = os.path.getsize(out_file) / 1024 if os.path.exists(out_file) else 0
            ps = ""
            # An "fgrun <operation>" row is a yardstick doing other work: no PSNR against libvips.
            if not a.no_psnr and ref_file and os.path.exists(out_file) and os.path.exists(ref_file) \
                    and not tool.startswith("fgrun "):
                if out_file == ref_file:
                    ps = "(reference)"
                else:
                    ps = run_psnr(py, ref_file, out_file)
            psnrs[tool] = ps
            table.append(f"| {tool} | {variant} | {statistics.median(walls):.2f} | {min(walls):.2f}–{max(walls):.2f} | "
                         f"{cpu:.2f} | {rss:.0f} | {size:.0f} | {fmt_ratio(fg, statistics.median(walls)) if tool != 'fgrun' else ''} | {ps} |")
        table.append("")
        lossless = ""
        if EXT[w] == "png":
            lossless = psnrs.get("fgrun", "")  # the outputs are lossless already
        elif (w in LOSSY and not a.no_psnr and not a.no_lossless and "fgrun" in tools and "vips" in tools
              and ref_file and "fgrun" in psnrs):
            print(f"   lossless variant (fgrun, libvips; PNG; one run each)", file=sys.stderr, flush=True)
            text, lossless = lossless_check(w, inp, out, py, fgrun, a.threads, env, results)
            table += [text, ""]
        print("\n".join(table), flush=True)
        lines += table
        peers = [(med(m), t, v) for t, v, _, _, m in results if t.split()[0] != "fgrun" and isinstance(m, list)]
        fastest = min(peers) if peers else None
        fg_rss = next((max(x[2] for x in m) for t, _, _, _, m in results if t == "fgrun" and isinstance(m, list)), None)
        ref_rss = max(x[2] for x in ref_row[4]) if ref_row else None
        summary.append(
            f"| {w} | {f'{fg:.2f}' if fg else 'n/a'} | "
            f"{f'{fastest[1]} {fastest[0]:.2f}' if fastest else 'n/a'} | "
            f"{fmt_ratio(fg, fastest[0]) if fastest else ''} | "
            f"{fmt_ratio(fg, med(ref_row[4])) if ref_row else ''} | "
            f"{fmt_ratio(fg_rss, ref_rss) if ref_row else ''} | {psnrs.get('fgrun', '')} | {lossless} |")
    print("\n".join(summary))
    lines += summary
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"\n(written to {os.path.join(out, 'results.md')})", file=sys.stderr)


if __name__ == "__main__":
    main()
