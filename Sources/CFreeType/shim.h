// shim.h — FreeType's headers, found through pkg-config (freetype2), for the CText shim.
#include <ft2build.h>
#include FT_FREETYPE_H
