#!/usr/bin/env python3
"""Makes W12's input: the 24 MP photo as an Ultra HDR JPEG, written by libvips 8.18 (uhdrsave).

usage: .venv-oracles/bin/python bench/make-uhdr-input.py PHOTO.jpg OUT.jpg

The HDR scene is the photo in linear light with its highlights boosted up to 4x (factor
1 + 3 * clamp((Y - 0.5) / 0.5, 0, 1)^2 of its luminance Y), saved with a quarter-size gain map
(gainmap_scale_factor=4, as phones write it), Q90. Needs the oracles' venv
(scripts/install-hdr-oracles.sh): pyvips-binary 8.18.
"""
import sys

import pyvips


def main(src, dst):
    lin = pyvips.Image.new_from_file(src).colourspace("scrgb")
    y = lin[0] * 0.2126 + lin[1] * 0.7152 + lin[2] * 0.0722
    t = ((y - 0.5) / 0.5)
    t = (t > 0).ifthenelse(t, 0)
    t = (t < 1).ifthenelse(t, 1)
    hdr = (lin * (t * t * 3 + 1)).copy(interpretation="scrgb")
    hdr.uhdrsave(dst, Q=90, gainmap_scale_factor=4)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
