#!/usr/bin/env bash
# Installs the system packages FilterGraph needs on Debian 12, only those that are missing.
# Idempotent; run as root (or with sudo available). `--tests` adds the independent references the
# test suite compares against: libvips's tools, Pillow, NumPy and a BLAS (the colour-matrix reference),
# hb-shape and pango-view (text layout and pixels) with fonts for the scripts the text tests set
# (Noto: Arabic, Devanagari, Thai…; Noto Color Emoji; Droid Sans Fallback for CJK),
# the animation fixtures' makers and second readers (webpmux, img2webp; gifsicle, ImageMagick,
# apngasm; apngdis, a second APNG decoder beside Pillow: tools run, never linked),
# and headless Chromium (the image server's browser test loads `<img srcset>` from it).
# `--bench` adds the load generator bench/serve.sh drives (wrk) and GNU time.
set -euo pipefail
packages=(libjpeg62-turbo-dev libpng-dev zlib1g-dev libdeflate-dev libwebp-dev libgif-dev libheif-dev libheif-examples liblcms2-dev libtiff-dev pkg-config
  libharfbuzz-dev libfreetype-dev libfontconfig-dev libicu-dev fonts-dejavu-core)
if [ "${1:-}" = "--tests" ]; then packages+=(libvips-tools python3-pil python3-numpy libblas-dev libopenblas0-serial
  libharfbuzz-bin pango1.0-tools fonts-noto-core fonts-noto-color-emoji fonts-droid-fallback webp gifsicle imagemagick apngasm apngdis chromium); fi
if [ "${1:-}" = "--bench" ]; then packages+=(wrk time curl); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all system packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
