#!/bin/sh
# bench/vips-cli-W14.sh IN OUT -- recipes/social-card.txt as a libvips command-line user writes it:
# one `vips` process a step, each step's result in a `.v` file (libvips's own uncompressed format)
# in a temporary directory, removed at the end. The same maths as bench/peer_ops.py's pyvips-W14:
# thumbnail to 1200 wide (shrink-on-load, Lanczos3), smartcrop 1200x630 attention, gaussblur 12,
# stored values x 0.55, the title (DejaVu Sans Bold 72 px) and the subtitle (36 px, 85 % opaque)
# set white by `vips text` (Pango markup, RGBA) wrapped to 1040 px and centred, each laid on with
# composite2 where the recipe puts it (the title's bottom and the subtitle's top 20 px from the
# middle), JPEG Q90 4:2:0.
set -eu
in=$1 out=$2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
vips thumbnail "$in" "$t/thumb.v" 1200 --height 100000
vips smartcrop "$t/thumb.v" "$t/crop.v" 1200 630 --interesting attention
vips gaussblur "$t/crop.v" "$t/blur.v" 12 --min-ampl 0.01
vips linear "$t/blur.v" "$t/background.v" "0.55 0.55 0.55" "0 0 0" --uchar
vips text "$t/title.v" '<span foreground="white">Roses of the Summer Garden</span>' \
    --font "DejaVu Sans Bold 72" --width 1040 --align centre --dpi 72 --rgba
vips text "$t/subtitle.v" '<span foreground="white" fgalpha="85%">A walk through twelve varieties — and how to keep them blooming</span>' \
    --font "DejaVu Sans 36" --width 1040 --align centre --dpi 72 --rgba
tw=$(vipsheader -f width "$t/title.v") th=$(vipsheader -f height "$t/title.v")
sw=$(vipsheader -f width "$t/subtitle.v")
vips composite2 "$t/background.v" "$t/title.v" "$t/titled.v" over --x $(((1200 - tw) / 2)) --y $((315 - 20 - th))
vips composite2 "$t/titled.v" "$t/subtitle.v" "$out[Q=90,subsample-mode=on,strip]" over \
    --x $(((1200 - sw) / 2)) --y $((315 + 20))
