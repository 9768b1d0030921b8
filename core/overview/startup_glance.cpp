// The Overview's startup glance: the biggest avoidable compile cost of the logs beside the root.
#include "overview/overview.hpp"
#include "startup/startup_report.hpp"

namespace kiln::overview {

StartupGlance startup_section(const std::vector<std::string>& trace_dirs) {
    StartupGlance g;
    if (trace_dirs.empty()) return g;
    std::vector<std::filesystem::path> paths(trace_dirs.begin(), trace_dirs.end());
    startup::StartupOptions options;
    options.find_root =
        false;  // the misses compared with the earlier processes only: no decoding of the root's entries
    auto r = startup::analyze_startup(paths, options);
    g.computed = true;
    if (!r) {
        g.error = r.error().str();
        return g;
    }
    const startup::ProcessStartup* best = nullptr;
    for (const auto& p : r->processes)
        if (!p.avoidable.empty() && (!best || p.avoidable.front().seconds > best->avoidable.front().seconds)) best = &p;
    if (!best) best = &r->processes.front();
    g.process = best->label;
    g.compile_seconds = best->compile_seconds;
    g.headline = best->headline();
    if (!best->avoidable.empty()) {
        g.what = best->avoidable.front().what;
        g.fix = best->avoidable.front().fix;
        g.seconds = best->avoidable.front().seconds;
        if (best->avoidable.front().inferred) g.inferred = best->avoidable.front().basis;
    }
    return g;
}

}  // namespace kiln::overview
