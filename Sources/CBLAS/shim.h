// The system CBLAS interface (Debian: libblas-dev puts cblas.h in the multiarch include folder).
#include <cblas.h>
