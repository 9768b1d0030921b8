#pragma once
// Hands the heap's free pages back to the system after a job that built and dropped a large value
// (a million-file scan's temporaries, a portability report, a health check): glibc keeps freed
// memory in its arenas, so without this the window's resident size only ever grows, and the jobs
// that run one after another would each add their peak to it. Call it on a worker thread (it walks
// every arena); a no-op where the C library has no malloc_trim.
namespace kiln::ui {

void releaseFreedMemory();

}  // namespace kiln::ui
