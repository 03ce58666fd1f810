// nclx.c — the ICC profile an nclx colour description defines, built by lcms2 (see cheif_shim.h).
#include "cheif_shim.h"

#include <lcms2.h>
#include <string.h>

size_t cheif_nclx_profile(const double xy[8], const double curve[5], const char *name, uint8_t *buffer,
                          size_t capacity) {
  if (!xy || !curve || !name || !buffer) return 0;
  cmsCIExyY white = {xy[6], xy[7], 1.0};
  cmsCIExyYTRIPLE primaries = {{xy[0], xy[1], 1.0}, {xy[2], xy[3], 1.0}, {xy[4], xy[5], 1.0}};
  cmsFloat64Number parameters[5] = {curve[0], curve[1], curve[2], curve[3], curve[4]};
  cmsToneCurve *tone = cmsBuildParametricToneCurve(NULL, 4, parameters);
  if (!tone) return 0;
  cmsToneCurve *curves[3] = {tone, tone, tone};
  cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
  cmsFreeToneCurve(tone);
  if (!profile) return 0;
  cmsMLU *description = cmsMLUalloc(NULL, 1);
  if (description) {
    cmsMLUsetASCII(description, "en", "US", name);
    cmsWriteTag(profile, cmsSigProfileDescriptionTag, description);
    cmsMLUfree(description);
  }
  cmsSetProfileVersion(profile, 4.3);
  cmsUInt32Number size = 0;
  size_t result = 0;
  if (cmsSaveProfileToMem(profile, NULL, &size) && size <= capacity && cmsSaveProfileToMem(profile, buffer, &size)) {
    memset(buffer + 24, 0, 12);  // no creation date: the bytes depend only on the description
    result = size;
  }
  cmsCloseProfile(profile);
  return result;
}
