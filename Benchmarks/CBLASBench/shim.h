// The system CBLAS interface, for ConvolveComparison's im2col + sgemm candidate only (Debian:
// libblas-dev puts cblas.h in the multiarch include folder).
#include <cblas.h>
