// small.h — the perceptual JPEG encoder's kernels (internal to CJPEG; no libjpeg calls).
//
// They turn 8-bit gray or RGB pixels into quantised JPEG DCT coefficients; shim.c hands those to
// libjpeg-turbo's entropy coder (jpeg_write_coefficients). What each step computes:
//
// 1. Colour: JFIF YCbCr (ITU-T T.871 §7: Y = 0.299R + 0.587G + 0.114B, Cb = −0.168736R −
//    0.331264G + 0.5B + 128, Cr = 0.5R − 0.418688G − 0.081312B + 128), in float, minus 128.
//    Edges are repeated out to whole MCUs; subsampled chroma is the mean of each 2×2 (4:2:0) or
//    2×1 (4:2:2) block.
// 2. DCT: the forward DCT of ITU-T T.81 Annex A.3.3, exactly (float, separable):
//    F(u,v) = ¼ C(u) C(v) Σx Σy f(x,y) cos((2x+1)uπ/16) cos((2y+1)vπ/16), C(0) = 1/√2, else 1.
// 3. Masking (the adaptive quantisation field): each 8×8 luma block's activity a is the mean
//    absolute difference between horizontally and vertically adjacent luma samples in it; the
//    field takes the smallest activity of the block and its 8 neighbours (a flat neighbour makes
//    ringing visible, so an edge next to sky is not treated as masked). The block's
//    rate–distortion multiplier is m = clamp(((a + a0) / (aref + a0))^γ, mmin, mmax); a chroma
//    block uses the mean m of the luma blocks it covers.
// 4. Quantisation: DC is rounded (Q = the table's step). The 63 AC coefficients of a block are
//    chosen jointly by a trellis (dynamic programme over zig-zag positions; Crouse & Ramchandran,
//    "Joint thresholding and quantizer selection for transform image coding", IEEE TIP 1997) that
//    minimises J = Σ (F/Q − v)² + λ m R, where v is the coded integer (candidates: the nearest
//    integer and the one below it, or 0), distortion is in quantiser steps (the table carries the
//    perceptual weighting), and R is the bits of T.81 F.1.2.2 Huffman coding of the block: per
//    nonzero coefficient the code of its (run, size) symbol plus `size` magnitude bits, a ZRL code
//    per 16 zeros of run, and an EOB code unless the last coefficient is nonzero. The code lengths
//    are estimated from the image itself: a first pass over a sample of block rows with the
//    standard tables' lengths (T.81 Annex K.3) counts the symbols, and −log2 of their frequencies
//    (clamped to 1…16 bits) is the rate model of the final pass.
#pragma once

#include <stddef.h>
#include <stdint.h>

/// What the kernels need to produce one image's coefficients.
typedef struct {
  int width, height;
  /// 1 (gray) or 3 (RGB pixels, coded as YCbCr).
  int components;
  /// Luma sampling factors: 2, 2 for 4:2:0; 2, 1 for 4:2:2; 1, 1 for 4:4:4 (chroma is 1, 1).
  int h_samp, v_samp;
  /// The quantisation tables in natural (row-major) order: [0] luma, [1] chroma; 1…255.
  uint16_t quant[2][64];
  /// The rate–distortion trade-off λ (squared quantiser steps per bit); 0 rounds every coefficient.
  float lambda;
  /// The masking exponent γ (0: every block gets multiplier 1).
  float masking;
  /// The first pass's rate model: the code length in bits of each AC symbol (run << 4 | size) of
  /// the standard Huffman tables, [0] luma, [1] chroma (0 for a symbol a table lacks).
  uint8_t ac_lengths[2][256];
} cjk_setup;

/// One component's coefficients: `rows[r]` is block row r, `blocks_wide` blocks of 64 values in
/// natural order (libjpeg's JBLOCKROW, so the rows can be libjpeg's own coefficient arrays).
typedef struct {
  int blocks_wide, blocks_high;
  int16_t **rows;
} cjk_plane;

/// The blocks component `c` (0 = Y, 1 = Cb, 2 = Cr) has, as libjpeg counts them
/// (T.81 A.1.1: ceil(ceil(X · H / Hmax) / 8)).
void cjk_plane_size(const cjk_setup *setup, int c, int *blocks_wide, int *blocks_high);

/// Fills `planes[0 … components-1]` (allocated by the caller at cjk_plane_size) from `pixels`
/// (`height` rows of `width` × components bytes, `stride` bytes apart). Returns 0, or −1 when out
/// of memory (nothing is left allocated).
int cjk_compute_coefficients(const cjk_setup *setup, const uint8_t *pixels, size_t stride,
                             cjk_plane *planes);

/// The mean squared difference between each chroma sample and the mean of its 2×2 block, over
/// Cb and Cr (in 8-bit units²): how much colour detail 4:2:0 would remove. 0 for gray.
double cjk_chroma_detail(const uint8_t *pixels, int width, int height, int components, size_t stride);
