#include "timings/collect.hpp"

#include <algorithm>
#include <fstream>

#include "timings/join_sources.hpp"
#include "timings/kernel_files.hpp"
#include "timings/mm_log.hpp"
#include "timings/session_log_source.hpp"
#include "timings/stderr_autotune.hpp"
#include "timings/timing_cache_source.hpp"
#include "util/regular_file.hpp"

namespace fs = std::filesystem;

namespace kiln::timings {
namespace {

// The first bytes of a regular file ("" for anything else: a FIFO must not block the sniffing).
std::string head_of(const fs::path& p, size_t n) {
    auto f = open_regular_file(p);
    if (!f.ok()) return {};
    return read_prefix(*f, n, p.string()).value_or({});
}

void add_ops(TimingSet& set, Source src, std::vector<Op> ops) {
    src.ops = static_cast<int>(ops.size());
    for (auto& op : ops) {
        if (op.device.empty()) op.device = src.device;
        set.ops.push_back(std::move(op));
    }
    set.sources.push_back(std::move(src));
}

}  // namespace

bool holds_no_timings(const fs::path& dir) {
    static const char* names[] = {"triton", "fxgraph", "aotautograd", "locks", "trace"};
    auto n = dir.filename().string();
    return std::any_of(std::begin(names), std::end(names), [&](const char* s) { return n == s; });
}

std::optional<SourceKind> classify_timing_file(const fs::path& path) {
    auto ext = path.extension().string();
    if (ext == ".best_config") return SourceKind::best_config;
    if (ext == ".kernel_perf") return SourceKind::kernel_perf;
    if (looks_like_timing_cache_path(path)) return SourceKind::timing_cache;
    if (ext == ".jsonl") {
        if (looks_like_session_log(head_of(path, 4096))) return SourceKind::session_log;
        return std::nullopt;
    }
    if (ext == ".json") {
        auto head = head_of(path, 4096);
        if (looks_like_mm_log(head)) return SourceKind::mm_log;
        if (head.find("\"system\"") != std::string::npos && head.find("\"cache\"") != std::string::npos)
            return SourceKind::timing_cache;  // a timing cache copied out under another name
        return std::nullopt;
    }
    if (ext == ".log" || ext == ".txt" || ext == ".err") {
        auto text = read_regular_file(path, 256u << 20);
        if (text.ok() && looks_like_stderr_autotune(*text)) return SourceKind::stderr_log;
    }
    return std::nullopt;
}

Status read_timing_file(const fs::path& path, SourceKind kind, TimingSet& set) {
    Source src{path.string(), kind, {}, 0};
    switch (kind) {
        case SourceKind::timing_cache: {
            // The kernel modules that triton choices name live in the root above cache/.
            fs::path root = path.parent_path().filename() == "cache" ? path.parent_path().parent_path() : fs::path{};
            KILN_TRY(auto file, read_timing_cache(path, root));
            src.device = file.device;
            add_ops(set, std::move(src), std::move(file.ops));
            return ok_status();
        }
        case SourceKind::best_config: {
            KILN_TRY(Op op, read_best_config(path));
            add_ops(set, std::move(src), {std::move(op)});
            return ok_status();
        }
        case SourceKind::kernel_perf: {
            KILN_TRY(Op op, read_kernel_perf(path));
            add_ops(set, std::move(src), {std::move(op)});
            return ok_status();
        }
        case SourceKind::mm_log: {
            KILN_TRY(MmLog log, read_mm_log(path));
            add_ops(set, std::move(src), std::move(log.ops));
            return ok_status();
        }
        case SourceKind::stderr_log: {
            KILN_TRY(auto ops, read_stderr_autotune(path));
            add_ops(set, std::move(src), std::move(ops));
            return ok_status();
        }
        case SourceKind::session_log: {
            KILN_TRY(auto log, read_session_log(path));
            src.device = log.device;
            add_ops(set, std::move(src), std::move(log.ops));
            return ok_status();
        }
    }
    return make_error(Errc::unsupported, "unknown timing source kind", path.string());
}

Result<TimingSet> collect_timings(const std::vector<fs::path>& paths) {
    TimingSet set;
    for (const auto& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            // Only the timing files are kept: a cache root holds ~10 other files for each (at a
            // million files, a list of every path was 34 MB for each reader).
            std::vector<std::pair<SourceKind, fs::path>> found;
            fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
            if (ec) return io_error("open directory", p.string(), ec.value());
            for (; it != end; it.increment(ec)) {
                if (ec) break;
                if (it->is_directory(ec) && holds_no_timings(it->path())) {
                    it.disable_recursion_pending();
                    continue;
                }
                if (it->is_regular_file(ec))
                    if (auto kind = classify_timing_file(it->path())) found.emplace_back(*kind, it->path());
            }
            // Multi-choice sources first (what a user opens the view for), per-kernel files last;
            // by path within a kind, for the same output whatever the file system's order.
            std::sort(found.begin(), found.end());
            for (const auto& [kind, f] : found)
                if (auto st = read_timing_file(f, kind, set); !st.ok()) set.warnings.push_back(st.error().str());
        } else if (fs::is_regular_file(p, ec)) {
            auto kind = classify_timing_file(p);
            if (!kind)
                return make_error(Errc::unsupported, "not a timing file Kiln knows", p.string(),
                                  "expected cache/<system hash>, *.best_config, *.kernel_perf, an mm log (.json), "
                                  "a stderr log with AUTOTUNE tables, or a Kiln session log (.jsonl)");
            KILN_CHECK(read_timing_file(p, *kind, set));
        } else {
            return wrong_path_error(p, "no such file or directory");
        }
    }
    // The same autotuning read from a table, a timing cache and an mm log is one op.
    join_sources(set);
    return set;
}

}  // namespace kiln::timings
