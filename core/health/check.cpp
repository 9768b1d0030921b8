#include "health/check.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "cuda/driver.hpp"
#include "health/check_context.hpp"
#include "inductor/roots.hpp"
#include "portability/portable.hpp"
#include "portability/sources.hpp"
#include "util/cpus.hpp"

namespace kiln::health {

using inductor::Artifact;
using inductor::Category;
using namespace detail;

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Runs fn(i) for i in [0, n) on `threads` threads; each call writes only its own slot.
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, const std::atomic<bool>* cancel, Fn fn) {
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < n;) {
            if (cancel && cancel->load(std::memory_order_relaxed)) return;
            fn(i);
        }
    };
    unsigned t = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::min<std::size_t>(n, 64))));
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < t; ++k) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
}

bool is_binary_name(std::string_view p) {
    auto ends = [&](std::string_view s) { return p.size() >= s.size() && p.substr(p.size() - s.size()) == s; };
    return ends(".so") || ends(".o") || ends(".cubin");
}

// Without a target: entries whose torch (or Triton, in system_info[version]) differs from the newest entry's.
void stale_by_version(const CheckContext& ctx, const std::vector<const Artifact*>& entries,
                      const std::vector<EntryFindings>& found, HealthReport& r) {
    std::size_t newest = entries.size();
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (!found[i].torch_version.empty() &&
            (newest == entries.size() || entries[i]->mtime_ns > entries[newest]->mtime_ns))
            newest = i;
    if (newest == entries.size()) return;
    const EntryFindings& ref = found[newest];
    r.stale_against = "the newest entry's torch and Triton (" + std::string(entries[newest]->rel_path()) + ")";
    for (std::size_t i = 0; i < entries.size(); ++i) {
        StaleEntry s;
        if (!found[i].torch_version.empty() && found[i].torch_version != ref.torch_version)
            s.differs.push_back({"torch_version", found[i].torch_version, ref.torch_version});
        if (!found[i].system_version.empty() && !ref.system_version.empty() &&
            found[i].system_version != ref.system_version)
            s.differs.push_back({"system_info[version]", found[i].system_version, ref.system_version});
        if (s.differs.empty()) continue;
        s.path = std::string(entries[i]->rel_path());
        s.group = ctx.group_rel(*entries[i]);
        r.stale.push_back(std::move(s));
    }
}

Status stale_by_target(const inductor::ScanResult& scan, const portability::Fingerprint& target, const CheckOptions& o,
                       HealthReport& r) {
    portability::PortableOptions po;
    po.threads = o.threads;
    po.cancel = o.cancel;
    KILN_TRY(auto report, portability::assess_scan(scan, target, po));
    r.stale_against = target.label();
    for (const auto& item : report.items) {
        if (item.kind != portability::ItemKind::fx_graph && item.kind != portability::ItemKind::aot_autograd) continue;
        if (item.assessment.verdict != portability::Verdict::miss) continue;
        StaleEntry s;
        s.path = item.path;
        auto slash = item.path.rfind('/');
        s.group = slash == std::string::npos ? item.path : item.path.substr(0, slash);
        for (const auto& d : item.assessment.differs) s.differs.push_back({d.component, d.cached, d.target});
        r.stale.push_back(std::move(s));
    }
    return ok_status();
}

}  // namespace

Result<HealthReport> check_cache(const std::filesystem::path& root_arg, const CheckOptions& o) {
    KILN_TRY(auto root, inductor::resolve_root(root_arg.string()));
    inductor::ScanOptions so;
    so.cancel = o.cancel;
    KILN_TRY(inductor::ScanResult scan, inductor::scan_cache(root, so));
    return check_scan(scan, o);
}

Result<HealthReport> check_scan(const inductor::ScanResult& scan, const CheckOptions& o) {
    CheckContext ctx(scan);
    ctx.now_ns = o.now_ns ? o.now_ns : now_ns();
    ctx.temp_age_ns = o.temp_age_ns;
    unsigned threads = o.threads ? o.threads : usable_cpus();

    // Work items by kind, each checked on its own; results land in per-item slots (no locking).
    std::vector<const Artifact*> entries, outputs, binaries, main_cpps;
    std::vector<Problem> serial;
    for (const auto& a : scan.artifacts) {
        switch (a.category) {
            case Category::fxgraph:
            case Category::aotautograd: entries.push_back(&a); break;
            case Category::output_code: outputs.push_back(&a); break;
            default: break;
        }
        if (is_binary_name(a.rel_path())) binaries.push_back(&a);
        if (a.category == Category::cpp_source && a.rel_path().size() > 9 &&
            a.rel_path().substr(a.rel_path().size() - 9) == ".main.cpp")
            main_cpps.push_back(&a);
        check_leftover(ctx, a, serial);
    }
    std::vector<const inductor::Group*> kernel_dirs;
    for (const auto& g : scan.groups)
        if (g.kind == inductor::GroupKind::triton_kernel_dir) kernel_dirs.push_back(&g);

    std::vector<EntryFindings> found(entries.size());
    parallel_for(entries.size(), threads, o.cancel,
                 [&](std::size_t i) { found[i] = check_graph_entry(ctx, *entries[i]); });
    std::vector<std::string> shas(main_cpps.size());
    parallel_for(main_cpps.size(), threads, o.cancel, [&](std::size_t i) { shas[i] = main_cpp_sha(*main_cpps[i]); });
    std::unordered_map<std::string, std::string> main_cpp;
    for (std::size_t i = 0; i < main_cpps.size(); ++i)
        if (!shas[i].empty()) {
            std::string_view rel = main_cpps[i]->rel_path();
            main_cpp.emplace(shas[i], std::string(rel.substr(0, rel.size() - 9)));
        }
    std::vector<std::vector<Problem>> per_output(outputs.size()), per_binary(binaries.size()),
        per_dir(kernel_dirs.size());
    parallel_for(kernel_dirs.size(), threads, o.cancel,
                 [&](std::size_t i) { check_triton_dir(ctx, *kernel_dirs[i], per_dir[i]); });
    parallel_for(outputs.size(), threads, o.cancel,
                 [&](std::size_t i) { check_output_code(ctx, *outputs[i], main_cpp, per_output[i]); });
    parallel_for(binaries.size(), threads, o.cancel,
                 [&](std::size_t i) { check_binary(ctx, *binaries[i], per_binary[i]); });
    if (o.cancel && o.cancel->load()) return make_error(Errc::cancelled, "check cancelled", scan.root);

    HealthReport r;
    r.root = scan.root;
    r.files = scan.artifacts.size();
    r.groups = scan.groups.size();
    r.graph_entries = entries.size();
    r.unreadable = scan.unreadable;
    r.quarantine_files = scan.quarantine_files;
    r.quarantine_bytes = scan.quarantine_bytes;
    for (auto& f : found) {
        for (auto& p : f.problems) r.problems.push_back(std::move(p));
        if (f.unused) r.unused.push_back(std::move(*f.unused));
    }
    for (auto* v : {&per_output, &per_binary, &per_dir})
        for (auto& list : *v)
            for (auto& p : list) r.problems.push_back(std::move(p));
    for (auto& p : serial) r.problems.push_back(std::move(p));
    std::sort(r.problems.begin(), r.problems.end(),
              [](const Problem& a, const Problem& b) { return a.kind != b.kind ? a.kind < b.kind : a.path < b.path; });
    if (o.target) {
        KILN_CHECK(stale_by_target(scan, *o.target, o, r));
    } else {
        stale_by_version(ctx, entries, found, r);
    }
    std::sort(r.stale.begin(), r.stale.end(), [](const StaleEntry& a, const StaleEntry& b) { return a.path < b.path; });
    return r;
}

std::optional<portability::Fingerprint> default_target() {
    // Ask the driver first: the full local fingerprint also runs nvcc, which costs more than a check.
    auto devices = cuda::device_count();
    if (!devices || *devices == 0) return std::nullopt;
    portability::Fingerprint local = portability::local_fingerprint();
    if (local.device_name().empty()) return std::nullopt;
    return local;
}

Result<std::vector<std::string>> stale_groups(const std::filesystem::path& root,
                                              const std::optional<portability::Fingerprint>& target) {
    CheckOptions o;
    o.target = target ? target : default_target();
    KILN_TRY(auto report, check_cache(root, o));
    std::vector<std::string> out;
    for (const auto& s : report.stale)
        if (std::find(out.begin(), out.end(), s.group) == out.end()) out.push_back(s.group);
    return out;
}

Result<std::size_t> count_problems(const std::filesystem::path& root) {
    KILN_TRY(auto report, check_cache(root));
    return report.problems.size();
}

Result<std::size_t> count_problems(const inductor::ScanResult& scan, const std::atomic<bool>* cancel) {
    CheckOptions o;
    o.cancel = cancel;
    KILN_TRY(auto report, check_scan(scan, o));
    return report.problems.size();
}

}  // namespace kiln::health
