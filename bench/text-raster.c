// text-raster.c — the text source's rasterising, once for the whole text against once per tile.
//
// The text source rasterises its layout once per render, whole (TextSource.swift). The other
// way would rasterise, for each output tile, the glyphs whose ink reaches that tile, into the
// tile. This program times both on the same layouts with the library's own code
// (Sources/CText, compiled into it by bench/text-raster.sh at -O2, as a release build compiles
// it): fg_text_layout_render over the whole image, then over every tile of a grid in turn (each
// tile zeroed first, as a fresh tile is). Layout (shaping, line breaking) is made once and not
// timed: it is made when the image is made, either way.
//
//   bash bench/text-raster.sh            # builds it and prints the table
//
// usage: text-raster RUNS   (prints, per text and tile grid: the median milliseconds of RUNS)
#include "ctext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct {
  const char *name, *text, *family;
  double size, width;
  int weight;
} sample;

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 9;
  if (runs < 1 || runs > 1000) runs = 9;
  static char paragraph[8192];
  paragraph[0] = 0;
  for (int i = 0; i < 12; i++)
    strcat(paragraph, "The roses of the summer garden open in June and flower until the first frost, "
                      "if their dead heads are cut and they are fed in July. ");
  const sample samples[] = {
    {"credit line (W13: 120 px, 3 % of 4000)", "\xC2\xA9 2026 A. Photographer", "DejaVu Sans", 120, 0, 80},
    {"title (W14: 72 px bold, wrapped to 1040)", "Roses of the Summer Garden", "DejaVu Sans", 72, 1040, 200},
    {"long text (24 px, 12 sentences wrapped to 1000)", paragraph, "DejaVu Sans", 24, 1000, 80},
  };
  const int tiles[][2] = {{0, 0}, {512, 64}, {256, 32}, {64, 16}};
  printf("| text | image | tiles | tile grid | ms (median of %d) | vs whole |\n| --- | --- | --- | --- | --- | --- |\n", runs);
  for (size_t s = 0; s < sizeof samples / sizeof *samples; s++) {
    const sample *t = &samples[s];
    fg_text_run run = {0, strlen(t->text), t->family, NULL, t->size, t->weight, 0};
    fg_text_settings settings = {t->text, strlen(t->text), &run, 1, t->width, FG_TEXT_ALIGN_CENTRE, 1, 1 << 20, 65535, 16e6};
    fg_text_layout *layout;
    char message[512];
    if (fg_text_layout_create(&settings, &layout, message, sizeof message)) {
      fprintf(stderr, "text-raster: %s\n", message);
      return 1;
    }
    int w = fg_text_layout_width(layout), h = fg_text_layout_height(layout);
    float colour[4] = {1, 1, 1, 1};
    double whole = 0;
    for (size_t g = 0; g < sizeof tiles / sizeof *tiles; g++) {
      int tw = tiles[g][0] ? tiles[g][0] : w, th = tiles[g][1] ? tiles[g][1] : h;
      if (tw > w) tw = w;
      if (th > h) th = h;
      float *pixels = malloc((size_t)tw * th * 4 * sizeof(float));
      double *times = malloc(runs * sizeof(double));
      int count = 0;
      for (int r = 0; r < runs; r++) {
        double start = now();
        count = 0;
        for (int y = 0; y < h; y += th)
          for (int x = 0; x < w; x += tw) {
            int cw = x + tw > w ? w - x : tw, ch = y + th > h ? h - y : th;
            memset(pixels, 0, (size_t)cw * ch * 4 * sizeof(float));
            fg_text_layout_render(layout, x, y, cw, ch, pixels, (size_t)cw * 4, colour);
            count++;
          }
        times[r] = (now() - start) * 1000;
      }
      qsort(times, runs, sizeof *times, by_value);
      double median = times[runs / 2];
      if (g == 0) whole = median;
      char grid[32];
      snprintf(grid, sizeof grid, g == 0 ? "whole" : "%d×%d", tw, th);
      printf("| %s | %d×%d | %d | %s | %.2f | %.2f× |\n", t->name, w, h, count, grid, median, median / whole);
      free(times);
      free(pixels);
    }
    fg_text_layout_free(layout);
  }
  return 0;
}
