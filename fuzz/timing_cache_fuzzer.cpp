// libFuzzer target: any byte string as Inductor's timing cache file (`cache/<system hash>`) through
// the readers Kiln has for it: util/python_json's py_loads (Python's Infinity / NaN, the nesting
// bound), timings' parse_timing_cache (the `timings` view), and the write side's round trip: what
// py_loads accepts, py_dumps writes back, and that text must load again to the same JSON. A crash,
// a sanitizer report, a timeout, an over-allocation or a round trip that fails is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "timings/timing_cache_source.hpp"
#include "util/python_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)kiln::timings::parse_timing_cache(std::string(text), "fuzz", "/nonexistent-kiln-fuzz-root");
    auto j = kiln::py_loads(text, "fuzz");
    if (!j.ok()) return 0;
    for (int indent : {-1, 4}) {
        std::string again = kiln::py_dumps(*j, {.sort_keys = false, .indent = indent});
        auto k = kiln::py_loads(again, "fuzz round trip");
        if (!k.ok() || kiln::py_dumps(*k, {.indent = indent}) != again) std::abort();  // lost or changed data
    }
    return 0;
}
