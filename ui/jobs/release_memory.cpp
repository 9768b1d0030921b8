#include "ui/jobs/release_memory.hpp"

#include <cstdlib>  // defines __GLIBC__ where it is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kiln::ui {

void releaseFreedMemory() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

void returnLargeBlocksWhenFreed() {
#if defined(__GLIBC__)
    // Setting the threshold also turns glibc's dynamic raising of it off.
    mallopt(M_MMAP_THRESHOLD, static_cast<int>(kLargeBlockBytes));
#endif
}

}  // namespace kiln::ui
