// libFuzzer target: any byte string as a TORCH_TRACE log, through every reader Kiln has for one: the
// cache events (read_trace_log, which `diff` and the GUI use), the compile timeline (`timeline`, the
// GUI's Timeline view) and the run's compiles, symbols and events (`misses`). The bytes go to a memfd
// read back through /proc/self/fd, so the readers open a real regular file as they do a log. A crash,
// a sanitizer report, a timeout or an over-allocation is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "trace/compile_timeline.hpp"
#include "trace/trace_log.hpp"
#include "trace/trace_run.hpp"

namespace {

// One memfd for the whole run, rewritten for each input.
const std::string& log_path(const std::uint8_t* data, std::size_t size) {
    static int fd = ::memfd_create("kiln-fuzz-trace.log", MFD_CLOEXEC);
    static const std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
    for (std::size_t off = 0; off < size;) {
        ssize_t n = ::pwrite(fd, data + off, size - off, static_cast<off_t>(off));
        if (n <= 0) std::abort();
        off += static_cast<std::size_t>(n);
    }
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = log_path(data, size);
    std::vector<kiln::trace::TraceGap> gaps;
    auto events = kiln::trace::read_trace_log(path, &gaps);
    if (events.ok())
        for (const auto& e : *events)
            if (e.line == 0 || e.cache.empty()) std::abort();  // every event names its record and cache
    auto timeline = kiln::trace::read_compile_timeline(path);
    if (timeline.ok()) (void)kiln::trace::to_json(*timeline).dump();
    auto run = kiln::trace::read_trace_run(path);
    if (run.ok())
        for (const auto& e : run->events)
            if (e.compile && *e.compile >= run->compiles.size()) std::abort();  // an event names a real compile
    return 0;
}
