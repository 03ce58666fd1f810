// shim.c — lcms2 behind functions that never abort; see clcms_shim.h.
#include "clcms_shim.h"

#include <lcms2.h>
#include <pthread.h>
#include <string.h>

static _Thread_local char last_error[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void log_error(cmsContext context, cmsUInt32Number code, const char *text) {
  (void)context;
  (void)code;
  strncpy(last_error, text ? text : "lcms2 error", sizeof last_error - 1);
  last_error[sizeof last_error - 1] = 0;
}

static void install_handler(void) { cmsSetLogErrorHandler(log_error); }

static void begin(void) {
  pthread_once(&once, install_handler);
  last_error[0] = 0;
}

const char *fg_icc_last_error(void) { return last_error; }

void *fg_icc_open(const void *bytes, size_t length) {
  begin();
  if (!bytes || length < 132 || length > 0x7FFFFFFF) {
    strcpy(last_error, length < 132 ? "the profile is shorter than an ICC header" : "no profile bytes");
    return NULL;
  }
  cmsHPROFILE p = cmsOpenProfileFromMem(bytes, (cmsUInt32Number)length);
  if (!p && !last_error[0]) strcpy(last_error, "lcms2 could not read the profile");
  return p;
}

void fg_icc_close(void *profile) {
  if (profile) cmsCloseProfile(profile);
}

int fg_icc_model(void *profile) {
  if (!profile) return FG_ICC_OTHER;
  switch (cmsGetColorSpace(profile)) {
  case cmsSigGrayData: return FG_ICC_GRAY;
  case cmsSigRgbData: return FG_ICC_RGB;
  case cmsSigCmykData: return FG_ICC_CMYK;
  default: return FG_ICC_OTHER;
  }
}

uint32_t fg_icc_class(void *profile) { return profile ? (uint32_t)cmsGetDeviceClass(profile) : 0; }

int fg_icc_is_matrix_shaper(void *profile) { return profile ? cmsIsMatrixShaper(profile) != 0 : 0; }

size_t fg_icc_description(void *profile, char *buffer, size_t capacity) {
  if (!profile || !buffer || capacity == 0) return 0;
  begin();
  cmsUInt32Number n = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", buffer, (cmsUInt32Number)capacity);
  buffer[capacity - 1] = 0;
  return n ? strlen(buffer) : 0;
}

/// Linear-light sRGB: the sRGB primaries and D65 white with identity tone curves.
static cmsHPROFILE linear_srgb(void) {
  cmsCIExyY white = {0.3127, 0.3290, 1.0};
  cmsCIExyYTRIPLE primaries = {{0.64, 0.33, 1.0}, {0.30, 0.60, 1.0}, {0.15, 0.06, 1.0}};
  cmsToneCurve *linear = cmsBuildGamma(NULL, 1.0);
  if (!linear) return NULL;
  cmsToneCurve *curves[3] = {linear, linear, linear};
  cmsHPROFILE p = cmsCreateRGBProfile(&white, &primaries, curves);
  cmsFreeToneCurve(linear);
  return p;
}

static cmsUInt32Number pixel_type(int model, int channels, int bytes, int extra) {
  int pt = model == FG_ICC_GRAY ? PT_GRAY : model == FG_ICC_CMYK ? PT_CMYK : PT_RGB;
  return COLORSPACE_SH(pt) | CHANNELS_SH(channels) | BYTES_SH(bytes) | EXTRA_SH(extra);
}

static int valid(int channels, int bytes, int extra, int intent) {
  return (channels == 1 || channels == 3 || channels == 4) && (bytes == 1 || bytes == 2) && extra >= 0 && extra <= 1 &&
         intent >= 0 && intent <= 3;
}

static cmsUInt32Number flags(int bpc) {
  return cmsFLAGS_NOCACHE | (bpc ? cmsFLAGS_BLACKPOINTCOMPENSATION : 0);
}

void *fg_icc_transform_to_linear(void *profile, int channels, int bytes, int extra, int flavor, int intent, int bpc) {
  begin();
  if (!profile || !valid(channels, bytes, extra, intent)) return NULL;
  int model = fg_icc_model(profile);
  if (model == FG_ICC_OTHER || model != (channels == 1 ? FG_ICC_GRAY : channels == 3 ? FG_ICC_RGB : FG_ICC_CMYK)) {
    strcpy(last_error, "the profile's colour model does not match the image's channels");
    return NULL;
  }
  cmsHPROFILE out = linear_srgb();
  if (!out) return NULL;
  cmsUInt32Number in_type = pixel_type(model, channels, bytes, extra) | (flavor ? FLAVOR_SH(1) : 0);
  cmsUInt32Number out_type = FLOAT_SH(1) | COLORSPACE_SH(PT_RGB) | CHANNELS_SH(3) | BYTES_SH(4) | EXTRA_SH(1);
  cmsHTRANSFORM t = cmsCreateTransform(profile, in_type, out, out_type, (cmsUInt32Number)intent, flags(bpc));
  cmsCloseProfile(out);
  if (!t && !last_error[0]) strcpy(last_error, "lcms2 could not build the transform");
  return t;
}

void *fg_icc_transform_from_linear(void *profile, int channels, int intent, int bpc) {
  begin();
  if (!profile || !valid(channels, 1, 0, intent) || channels == 4) return NULL;
  int model = fg_icc_model(profile);
  if (model != (channels == 1 ? FG_ICC_GRAY : FG_ICC_RGB)) {
    strcpy(last_error, "the profile's colour model does not match the output's channels");
    return NULL;
  }
  cmsHPROFILE in = linear_srgb();
  if (!in) return NULL;
  cmsUInt32Number in_type = FLOAT_SH(1) | COLORSPACE_SH(PT_RGB) | CHANNELS_SH(3) | BYTES_SH(4) | EXTRA_SH(1);
  // Float in and out: lcms2 then runs its float pipeline, which keeps values outside 0…1 (integer
  // outputs would clip the linear input before the matrix, changing out-of-gamut hues).
  cmsUInt32Number out_type = FLOAT_SH(1) | pixel_type(model, channels, 4, 4 - channels);
  cmsHTRANSFORM t = cmsCreateTransform(in, in_type, profile, out_type, (cmsUInt32Number)intent, flags(bpc));
  cmsCloseProfile(in);
  if (!t && !last_error[0]) strcpy(last_error, "lcms2 could not build the transform");
  return t;
}

int fg_icc_matrix_shaper(void *profile, int intent, int bpc, int entries, float *tables, float *matrix) {
  begin();
  if (!profile || entries < 2 || !tables || !matrix || intent < 0 || intent > 2) return 0;
  int model = fg_icc_model(profile);
  if (!cmsIsMatrixShaper(profile) || (model != FG_ICC_RGB && model != FG_ICC_GRAY)) return 0;
  int channels = model == FG_ICC_RGB ? 3 : 1;
  static const cmsTagSignature tags[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
  for (int c = 0; c < channels; c++) {
    cmsToneCurve *curve = cmsReadTag(profile, channels == 3 ? tags[c] : cmsSigGrayTRCTag);
    if (!curve) return 0;
    for (int i = 0; i < entries; i++) tables[c * entries + i] = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)i / (cmsFloat32Number)(entries - 1));
  }
  if (channels == 1) {
    // Gray: the linear gray value is each of R, G and B (relative colorimetric maps white to white).
    for (int i = 0; i < 9; i++) matrix[i] = (i % 4 == 0) ? 1.0f : 0.0f;
    return 1;
  }
  // The matrix, column by column, from lcms2's own float pipeline (unbounded): the linear sRGB of
  // each primary at full strength, minus that of black.
  cmsHPROFILE out = linear_srgb();
  if (!out) return 0;
  cmsHTRANSFORM t = cmsCreateTransform(profile, TYPE_RGB_FLT, out, TYPE_RGB_FLT, (cmsUInt32Number)intent, flags(bpc));
  cmsCloseProfile(out);
  if (!t) return 0;
  float in[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, res[12];
  cmsDoTransform(t, in, res, 4);
  cmsDeleteTransform(t);
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) matrix[i * 3 + j] = res[3 * (j + 1) + i] - res[i];
  return 1;
}

void fg_icc_run(void *transform, const void *input, void *output, size_t count) {
  if (!transform || !input || !output || count == 0 || count > 0x7FFFFFFF) return;
  cmsDoTransform(transform, input, output, (cmsUInt32Number)count);
}

void fg_icc_transform_free(void *transform) {
  if (transform) cmsDeleteTransform(transform);
}

/// Describes `p` as `name` (no copyright), saves it into `buffer` with the creation date zeroed,
/// closes it, and returns its size (0 when it does not fit or cannot be saved).
static size_t save_described(cmsHPROFILE p, const char *name, void *buffer, size_t capacity) {
  cmsMLU *description = cmsMLUalloc(NULL, 1);
  cmsMLU *copyright = cmsMLUalloc(NULL, 1);
  if (description && copyright) {
    cmsMLUsetASCII(description, "en", "US", name);
    cmsMLUsetASCII(copyright, "en", "US", "No copyright, use freely");
    cmsWriteTag(p, cmsSigProfileDescriptionTag, description);
    cmsWriteTag(p, cmsSigCopyrightTag, copyright);
  }
  cmsMLUfree(description);
  cmsMLUfree(copyright);
  cmsSetProfileVersion(p, 4.3);
  cmsUInt32Number size = 0;
  size_t result = 0;
  if (cmsSaveProfileToMem(p, NULL, &size) && size <= capacity && buffer) {
    if (cmsSaveProfileToMem(p, buffer, &size)) {
      memset((uint8_t *)buffer + 24, 0, 12);
      result = size;
    }
  }
  cmsCloseProfile(p);
  return result;
}

size_t fg_icc_gamma_profile(const double *primaries, const double white[2], double exponent, const char *name,
                            void *buffer, size_t capacity) {
  begin();
  if (!white || !name || !(exponent > 0.05 && exponent < 20)) return 0;
  cmsCIExyY w = {white[0], white[1], 1.0};
  cmsToneCurve *curve = cmsBuildGamma(NULL, exponent);
  if (!curve) return 0;
  cmsHPROFILE p;
  if (primaries) {
    cmsCIExyYTRIPLE rgb = {{primaries[0], primaries[1], 1.0}, {primaries[2], primaries[3], 1.0}, {primaries[4], primaries[5], 1.0}};
    cmsToneCurve *curves[3] = {curve, curve, curve};
    p = cmsCreateRGBProfile(&w, &rgb, curves);
  } else {
    p = cmsCreateGrayProfile(&w, curve);
  }
  cmsFreeToneCurve(curve);
  if (!p) return 0;
  return save_described(p, name, buffer, capacity);
}

size_t fg_icc_rgb_profile(const double primaries[6], const double white[2], const char *name, void *buffer, size_t capacity) {
  begin();
  if (!primaries || !white || !name) return 0;
  cmsCIExyY w = {white[0], white[1], 1.0};
  cmsCIExyYTRIPLE p3 = {{primaries[0], primaries[1], 1.0}, {primaries[2], primaries[3], 1.0}, {primaries[4], primaries[5], 1.0}};
  // The sRGB curve: IEC 61966-2-1's piecewise function as ICC parametric type 4.
  cmsFloat64Number srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
  cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, 4, srgb);
  if (!curve) return 0;
  cmsToneCurve *curves[3] = {curve, curve, curve};
  cmsHPROFILE p = cmsCreateRGBProfile(&w, &p3, curves);
  cmsFreeToneCurve(curve);
  if (!p) return 0;
  return save_described(p, name, buffer, capacity);
}
