#include "fleet/util/malloc_tuning.h"

#include <malloc.h>

namespace fleet::util {

void tune_malloc_for_streaming() {
  // Allocations below 32 MiB come from the heap (not one mmap each), and up to 256 MiB freed at
  // the top of a heap stays there for the next batch. Fixed values also switch off glibc's
  // dynamic mmap threshold, so the behaviour does not depend on allocation history.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

}  // namespace fleet::util
