#!/usr/bin/env bash
# Installs the system packages FilterGraph needs on Debian 12, only those that are missing.
# Idempotent; run as root (or with sudo available). `--tests` adds the independent references the
# test suite compares against: libvips's tools, Pillow, NumPy and a BLAS (the colour-matrix reference),
# and the animation fixtures' makers (webpmux, img2webp; gifsicle: a GPL tool run, never linked).
set -euo pipefail
packages=(libjpeg62-turbo-dev libpng-dev zlib1g-dev libdeflate-dev libwebp-dev libgif-dev libheif-dev libheif-examples liblcms2-dev libtiff-dev pkg-config)
if [ "${1:-}" = "--tests" ]; then packages+=(libvips-tools python3-pil python3-numpy libblas-dev libopenblas0-serial webp gifsicle); fi
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
