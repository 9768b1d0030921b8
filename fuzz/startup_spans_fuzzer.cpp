// libFuzzer target: any byte string as a TORCH_TRACE log, through `kiln-cli startup`'s reader: the
// compiles and their spans (startup/compile_spans: chromium_event B/E/X records, compilation_metrics),
// then the whole report (phases, causes, the avoidable seconds), compared with itself as warm against
// cold and as two ranks. The bytes go to a memfd read back through /proc/self/fd, as the trace
// fuzzer does. Beyond a crash, a sanitizer report, a timeout or an over-allocation, a finding is a
// time the report would print that is negative, infinite or NaN (issue 42, item 13: spans backwards,
// timestamps of 1e308, metrics of -5 s printed "spent -5000 ms compiling" and `"seconds": null`).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "memfd_input.hpp"
#include "startup/compile_spans.hpp"
#include "startup/startup_compare.hpp"
#include "startup/startup_report.hpp"

namespace {

const std::string& startup_log_path(const std::uint8_t* data, std::size_t size) {
    return kiln::fuzz::memfd_input("kiln-fuzz-startup.log", data, size);
}

bool sane_seconds(double s) { return std::isfinite(s) && s >= 0; }

// Every number of the report's JSON: finite and not negative (nlohmann writes inf and NaN as null).
void check_numbers(const nlohmann::ordered_json& j) {
    if (j.is_null()) std::abort();
    if (j.is_number_float() && !sane_seconds(j.get<double>())) std::abort();
    if (j.is_number_integer() && j.get<std::int64_t>() < 0) std::abort();
    if (j.is_structured())
        for (const auto& v : j) check_numbers(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = startup_log_path(data, size);
    auto spans = kiln::startup::read_process_spans(path);
    if (spans.ok()) {
        for (const auto& c : spans->compiles) {
            if (!sane_seconds(c.seconds())) std::abort();
            for (const auto& [name, s] : c.phases)
                if (!sane_seconds(s)) std::abort();
            for (const auto& a : c.autotunes)
                if (!sane_seconds(a.autotune_seconds) || !sane_seconds(a.precompile_seconds)) std::abort();
        }
        for (const auto& o : spans->outside)
            if (!sane_seconds(o.seconds)) std::abort();
    }
    kiln::startup::StartupOptions options;
    options.find_root = false;
    auto report = kiln::startup::analyze_startup({path}, options);
    if (!report.ok()) return 0;
    check_numbers(kiln::startup::to_json(*report));
    for (const auto& p : report->processes) {
        if (!sane_seconds(p.compile_seconds)) std::abort();
        if (p.headline().rfind("this process spent -", 0) == 0) std::abort();  // "spent -5000 ms compiling"
        (void)kiln::startup::to_json(kiln::startup::compare_processes(p, p)).dump();
    }
    (void)kiln::startup::to_json(kiln::startup::compare_ranks(report->processes)).dump();
    return 0;
}
