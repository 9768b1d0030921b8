#include "timings/stored_kernel_times.hpp"

#include "timings/collect.hpp"
#include "timings/kernel_files.hpp"

namespace fs = std::filesystem;

namespace kiln::timings {

Result<StoredKernelTimes> read_stored_kernel_times(const fs::path& root, const std::atomic<bool>* cancel) {
    std::error_code ec;
    if (!fs::is_directory(root, ec))
        return make_error(Errc::not_found, "not a cache directory", root.string(),
                          "open an Inductor cache root (the folder holding fxgraph/, triton/, <2 chars>/ ...)");
    struct Found {
        std::string name, key;
        double ms;
    };
    std::vector<Found> found;
    std::map<std::string, int> seen;
    StoredKernelTimes out;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) return io_error("open directory", root.string(), ec.value());
    for (; it != end; it.increment(ec)) {
        if (ec) break;
        if (cancel && cancel->load(std::memory_order_relaxed))
            return make_error(Errc::cancelled, "cancelled", root.string());
        if (it->is_directory(ec) && holds_no_timings(it->path())) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->path().extension() != ".kernel_perf" || !it->is_regular_file(ec)) continue;
        auto op = read_kernel_perf(it->path());
        if (!op.ok()) {
            out.warnings.push_back(op.error().str());
            continue;
        }
        if (op->choices.empty() || !op->choices.front().ms) continue;
        const double ms = *op->choices.front().ms;
        std::string key = it->path().stem().string();
        out.by_key[key] = ms;
        if (op->inputs.empty()) continue;  // no sibling module: no kernel name
        ++seen[op->inputs];
        found.push_back({std::move(op->inputs), std::move(key), ms});
    }
    for (auto& f : found) out.by_name[seen[f.name] > 1 ? f.name + " (" + f.key.substr(0, 12) + ")" : f.name] = f.ms;
    return out;
}

std::optional<double> stored_time_for(const StoredKernelTimes& stored, std::string_view kernel,
                                      std::string_view key_prefix) {
    if (key_prefix.size() >= 3) {
        // Keys sort, so the first stored key not below the prefix is the only candidate.
        auto it = stored.by_key.lower_bound(std::string(key_prefix));
        if (it != stored.by_key.end() && std::string_view(it->first).substr(0, key_prefix.size()) == key_prefix)
            return it->second;
    }
    if (auto it = stored.by_name.find(std::string(kernel)); it != stored.by_name.end()) return it->second;
    return std::nullopt;
}

}  // namespace kiln::timings
