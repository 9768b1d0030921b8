// libFuzzer target: any byte string as a TORCH_TRACE log, through every reader Kiln has for one: the
// cache events (read_trace_log, which `diff` and the GUI use), the compile timeline (`timeline`, the
// GUI's Timeline view) and the run's compiles, symbols and events (`misses`). The bytes go to a memfd
// read back through /proc/self/fd, so the readers open a real regular file as they do a log. A crash,
// a sanitizer report, a timeout or an over-allocation is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "memfd_input.hpp"
#include "trace/compile_timeline.hpp"
#include "trace/trace_log.hpp"
#include "trace/trace_run.hpp"

namespace {

const std::string& log_path(const std::uint8_t* data, std::size_t size) {
    return kiln::fuzz::memfd_input("kiln-fuzz-trace.log", data, size);
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
