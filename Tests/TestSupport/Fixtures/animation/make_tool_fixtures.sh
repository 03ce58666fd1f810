#!/usr/bin/env bash
# Writes the animation fixtures made by other tools (run from this folder; needs ImageMagick,
# gifsicle, img2webp from Debian's `webp`, and apngasm: `scripts/install-deps.sh --tests`).
#
# The frames are drawn by ImageMagick (no antialiasing, so each has a few exact colours), then
# animated by the tools that write most of the animations on the web, each choosing its own
# disposal, blending, offsets and palettes:
#   tool-gifsicle.gif      gifsicle from small GIF stills placed on a 24×16 screen: dispose none,
#                          background and previous, a transparent colour, an interlaced frame,
#                          local colour tables, delays 10/5/0/20/7 cs, loop 3.
#   tool-gifsicle-O3.gif   gifsicle -O3 over five full 24×16 frames: its own frame differences,
#                          transparency and disposal.
#   tool-magick.gif        ImageMagick from frames with transparency at offsets (-page), dispose
#                          None, Background, Previous; loop 2.
#   tool-magick-opt.gif    ImageMagick's -layers optimize over the five full frames.
#   tool-img2webp.webp     img2webp (libwebp's WebPAnimEncoder), mixed lossy/lossless, over the
#                          five frames with translucent and transparent pixels: its own
#                          sub-rectangles, blending and disposal; loop 2.
#   tool-apngasm.png       apngasm over the same five RGBA frames: its own dispose and blend ops
#                          and rectangles; delays 1/10 s, loop 2.
#   tool-pillow.png        Pillow's APNG writer over the same five RGBA frames with every dispose
#                          op (NONE, BACKGROUND, PREVIOUS, NONE, PREVIOUS) and blend op (SOURCE,
#                          SOURCE, OVER, OVER, OVER), its own changed rectangles; delays
#                          100/50/10/200/70 ms, loop 2 (needs python3 with Pillow). Frame 4 is
#                          laid over what frame 3's PREVIOUS restores, frame 2's BACKGROUND.
set -euo pipefail
convert=/usr/bin/convert  # ImageMagick itself, not a wrapper earlier on PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

draw() { "$convert" -size "$1" "$2" +antialias "${@:4}" "PNG32:$work/$3"; }
# Five full 24×16 frames, RGBA: opaque, transparent around a box, a line and a box, translucent
# bands, a disc.
draw 24x16 'xc:#3060c0' f1.png -fill '#f0d020' -draw 'rectangle 2,2 9,7' -fill '#20a040' -draw 'circle 16,10 20,10'
draw 24x16 xc:none f2.png -fill '#e03030' -draw 'rectangle 5,3 14,10'
draw 24x16 'xc:#3060c0' f3.png -fill '#ffffff' -draw 'line 0,0 23,15' -fill '#8040a0' -draw 'rectangle 12,6 19,11'
draw 24x16 xc:none f4.png -fill 'rgba(255,128,0,0.5)' -draw 'rectangle 0,8 23,15' -fill '#00ffff' -draw 'rectangle 10,0 13,15'
draw 24x16 'xc:#101010' f5.png -fill '#c0c0c0' -draw 'circle 12,8 12,2'

# Small GIF stills for gifsicle's placed frames.
"$convert" -size 24x16 'xc:#3060c0' +antialias -fill '#f0d020' -draw 'rectangle 2,2 9,7' "$work/g1.gif"
"$convert" -size 10x8 xc:none +antialias -fill '#e03030' -draw 'rectangle 1,1 8,6' "$work/g2.gif"
"$convert" -size 8x6 'xc:#8040a0' +antialias -fill '#ffffff' -draw 'line 0,0 7,5' "$work/g3.gif"
"$convert" -size 12x8 xc:none +antialias -fill '#00ffff' -draw 'rectangle 0,0 11,3' -fill '#ff8000' -draw 'rectangle 4,4 7,7' "$work/g4.gif"
"$convert" -size 6x6 'xc:#c0c0c0' "$work/g5.gif"
gifsicle --loopcount=3 --logical-screen 24x16 \
  -d10 --disposal none "$work/g1.gif" \
  -d5 --disposal background --position 3,2 "$work/g2.gif" \
  -d0 --disposal previous --interlace --position 12,6 "$work/g3.gif" \
  -d20 --disposal none --no-interlace --position 4,4 "$work/g4.gif" \
  -d7 --disposal none --position 18,10 "$work/g5.gif" >tool-gifsicle.gif

for k in 1 2 3 4 5; do "$convert" "$work/f$k.png" -background '#3060c0' -flatten "$work/full$k.gif"; done
gifsicle -O3 --colors 256 --loopcount=0 -d8 "$work"/full{1,2,3,4,5}.gif >tool-gifsicle-O3.gif

"$convert" -loop 2 -delay 10 -dispose None "$work/f1.png" \
  -dispose Background -page +5+3 "$work/g2.gif" \
  -dispose Previous -page +12+6 "$work/g3.gif" \
  -dispose None -page +4+4 "$work/g4.gif" \
  -delay 30 -page +0+0 "$work/full5.gif" tool-magick.gif
"$convert" -loop 0 -delay 12 "$work"/full{1,2,3,4,5}.gif -layers optimize tool-magick-opt.gif

img2webp -loop 2 -mixed -d 100 "$work/f1.png" -d 50 "$work/f2.png" -d 10 "$work/f3.png" -d 200 "$work/f4.png" \
  -d 70 "$work/f5.png" -o tool-img2webp.webp

apngasm tool-apngasm.png "$work"/f{1,2,3,4,5}.png 1 10 -l2 >/dev/null

python3 - "$work" <<'PY'
import sys
from PIL import Image, PngImagePlugin as P
frames = [Image.open(f"{sys.argv[1]}/f{k}.png").convert("RGBA") for k in range(1, 6)]
frames[0].save("tool-pillow.png", save_all=True, append_images=frames[1:], duration=[100, 50, 10, 200, 70], loop=2,
               disposal=[P.Disposal.OP_NONE, P.Disposal.OP_BACKGROUND, P.Disposal.OP_PREVIOUS, P.Disposal.OP_NONE,
                         P.Disposal.OP_PREVIOUS],
               blend=[P.Blend.OP_SOURCE, P.Blend.OP_SOURCE, P.Blend.OP_OVER, P.Blend.OP_OVER, P.Blend.OP_OVER])
PY
