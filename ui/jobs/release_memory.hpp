#pragma once
// Hands the heap's free pages back to the system after a job that built and dropped a large value
// (a million-file scan's temporaries, a portability report, a health check): glibc keeps freed
// memory in its arenas, so without this the window's resident size only ever grows, and the jobs
// that run one after another would each add their peak to it. Call it on a worker thread (it walks
// every arena); a no-op where the C library has no malloc_trim.
#include <cstddef>

namespace kiln::ui {

void releaseFreedMemory();

// Every block of at least kLargeBlockBytes gets pages of its own (mmap) and gives them back when it
// is freed. glibc's default raises that threshold to the size of each large block freed (up to
// 32 MiB), after which a scan's growing vectors and a report's lists land in the arenas, where a
// freed block stays resident beside the next one: at a million files that left ~70 MiB of free
// arena pages at the window's peak. Call once, first thing in main(), before any thread starts.
inline constexpr std::size_t kLargeBlockBytes = std::size_t{256} << 10;
void returnLargeBlocksWhenFreed();

}  // namespace kiln::ui
