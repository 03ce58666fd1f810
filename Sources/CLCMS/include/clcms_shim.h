// clcms_shim.h — the few lcms2 calls FilterGraph needs, behind functions that never abort.
//
// lcms2 reports errors through a per-context callback and returns NULL; it never longjmps or
// exits. Every object here is created in its own context whose error handler copies the message
// into a thread-local buffer (`fg_icc_last_error`), so a corrupt profile gives NULL and a sentence.
// Every function accepts NULL handles and bad sizes and then does nothing (or returns 0 / NULL).
#ifndef CLCMS_SHIM_H
#define CLCMS_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Colour models a profile can describe (its data colour space).
enum { FG_ICC_OTHER = 0, FG_ICC_GRAY = 1, FG_ICC_RGB = 3, FG_ICC_CMYK = 4 };

/// Opens a profile from `length` bytes (copied by lcms2); NULL on failure (see fg_icc_last_error).
void *fg_icc_open(const void *bytes, size_t length);
/// Closes a profile from fg_icc_open (NULL is fine).
void fg_icc_close(void *profile);
/// The profile's colour model (FG_ICC_*).
int fg_icc_model(void *profile);
/// The profile's class signature (e.g. 'mntr', 'prtr', 'scnr'), 0 for NULL.
uint32_t fg_icc_class(void *profile);
/// 1 when the profile is matrix/shaper (three tone curves and a colorant matrix).
int fg_icc_is_matrix_shaper(void *profile);
/// Copies the profile's English description into `buffer` (NUL-terminated); returns its length.
size_t fg_icc_description(void *profile, char *buffer, size_t capacity);

/// Builds a transform from pixels in `profile` to linear-light sRGB primaries (D65), written as
/// four floats per pixel (R, G, B, and an untouched fourth lane), extended range (not clipped).
/// Input: `channels` colour channels (1, 3 or 4) of `bytes` bytes each (1 or 2), followed by
/// `extra` extra channels (alpha) that are skipped; `flavor` 1 = inverted CMYK (Adobe). `intent`
/// is the ICC intent (0 perceptual, 1 relative, 2 saturation, 3 absolute); `bpc` black-point
/// compensation. NULL on failure.
void *fg_icc_transform_to_linear(void *profile, int channels, int bytes, int extra, int flavor, int intent, int bpc);
/// Builds a transform from four floats per pixel of linear-light sRGB (the fourth lane ignored)
/// to `profile`'s encoded values, written as four floats per pixel: `channels` (1 gray or 3 RGB)
/// values, the other lanes untouched. Values are not clipped. NULL on failure.
void *fg_icc_transform_from_linear(void *profile, int channels, int intent, int bpc);
/// For a matrix/shaper RGB or gray profile and intent 0–2: fills `tables` with each channel's tone
/// curve sampled at `entries` evenly spaced codes (channel c at tables[c * entries], 3 channels for
/// RGB, 1 for gray) and `matrix` (row-major 3×3) with the map from those linear values to linear
/// sRGB, as lcms2's own float pipeline computes it. Returns 0 (nothing usable) otherwise.
int fg_icc_matrix_shaper(void *profile, int intent, int bpc, int entries, float *tables, float *matrix);
/// Runs `transform` on `count` pixels.
void fg_icc_run(void *transform, const void *input, void *output, size_t count);
/// Frees a transform (NULL is fine).
void fg_icc_transform_free(void *transform);

/// Writes an RGB matrix/shaper profile with the sRGB tone curve, the given primaries (red, green,
/// blue x/y) and white (x/y), and description `name`, into `buffer` when `capacity` suffices;
/// returns its size (0 on failure). Deterministic: no creation date, no profile ID.
size_t fg_icc_rgb_profile(const double primaries[6], const double white[2], const char *name, void *buffer, size_t capacity);

/// Writes a matrix/shaper profile whose tone curve is the power `exponent` (linear = value^exponent)
/// with white (x/y) and, when `primaries` is not NULL, those primaries (an RGB profile; NULL gives
/// a gray profile), described as `name`, into `buffer` when `capacity` suffices; returns its size
/// (0 on failure, or for an exponent outside 0.05…20). Deterministic like fg_icc_rgb_profile.
size_t fg_icc_gamma_profile(const double *primaries, const double white[2], double exponent, const char *name,
                            void *buffer, size_t capacity);

/// The message of the last lcms2 error on this thread ("" when none).
const char *fg_icc_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
