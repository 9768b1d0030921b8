#include "timings/collect.hpp"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <string_view>
#include <variant>

#include "inductor/beneath_root.hpp"
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

// A file of one op (a braced list would copy it).
void add_op(TimingSet& set, Source src, Op op) {
    std::vector<Op> ops;
    ops.push_back(std::move(op));
    add_ops(set, std::move(src), std::move(ops));
}

}  // namespace

namespace {

// A folder's name that holds_no_timings names.
bool names_no_timings(std::string_view name) {
    static constexpr std::string_view names[] = {"triton", "fxgraph", "aotautograd", "locks", "trace"};
    return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

}  // namespace

bool holds_no_timings(const fs::path& dir) { return names_no_timings(dir.filename().string()); }

namespace {

// What a file is from its name and, for logs and JSON, what `read(n)` gives of its first n bytes (the
// whole file, up to n, for a stderr log).
std::optional<SourceKind> classify_by(
    const fs::path& path, const std::function<std::optional<std::string>(std::size_t n, bool whole)>& read) {
    auto ext = path.extension().string();
    if (ext == ".best_config") return SourceKind::best_config;
    if (ext == ".kernel_perf") return SourceKind::kernel_perf;
    if (looks_like_timing_cache_path(path)) return SourceKind::timing_cache;
    if (ext == ".jsonl") {
        if (looks_like_session_log(read(4096, false).value_or(""))) return SourceKind::session_log;
        return std::nullopt;
    }
    if (ext == ".json") {
        auto head = read(4096, false).value_or("");
        if (looks_like_mm_log(head)) return SourceKind::mm_log;
        if (head.find("\"system\"") != std::string::npos && head.find("\"cache\"") != std::string::npos)
            return SourceKind::timing_cache;  // a timing cache copied out under another name
        return std::nullopt;
    }
    if (ext == ".log" || ext == ".txt" || ext == ".err") {
        auto text = read(256u << 20, true);
        if (text && looks_like_stderr_autotune(*text)) return SourceKind::stderr_log;
    }
    return std::nullopt;
}

}  // namespace

std::optional<SourceKind> classify_timing_file(const fs::path& path) {
    return classify_by(path, [&](std::size_t n, bool whole) -> std::optional<std::string> {
        if (!whole) return head_of(path, n);
        auto text = read_regular_file(path, n);
        return text.ok() ? std::optional<std::string>(std::move(*text)) : std::nullopt;
    });
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
            add_op(set, std::move(src), std::move(op));
            return ok_status();
        }
        case SourceKind::kernel_perf: {
            KILN_TRY(Op op, read_kernel_perf(path));
            add_op(set, std::move(src), std::move(op));
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

namespace {

// A file named (it must parse) or a directory walked by its path (what fails to parse: a warning).
Status collect_path(const fs::path& p, TimingSet& set) {
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
    return ok_status();
}

}  // namespace

namespace {

// read_timing_file for `rel` beneath an opened root, read through its descriptor.
Status read_timing_file_beneath(const inductor::OpenedRoot& root, const std::string& rel, SourceKind kind,
                                TimingSet& set, KernelModuleMemo* modules = nullptr) {
    const std::string path = inductor::path_beneath(root, rel);
    Source src{path, kind, {}, 0};
    switch (kind) {
        case SourceKind::timing_cache: {
            KILN_TRY(auto file, read_timing_cache(root, rel, modules));
            src.device = file.device;
            add_ops(set, std::move(src), std::move(file.ops));
            return ok_status();
        }
        case SourceKind::best_config: {
            KILN_TRY(Op op, read_best_config(root, rel));
            add_op(set, std::move(src), std::move(op));
            return ok_status();
        }
        case SourceKind::kernel_perf: {
            KILN_TRY(Op op, read_kernel_perf(root, rel));
            add_op(set, std::move(src), std::move(op));
            return ok_status();
        }
        case SourceKind::mm_log: {
            KILN_TRY(std::string text, inductor::read_beneath(root, rel, 64u << 20));
            KILN_TRY(MmLog log, parse_mm_log(text, path));
            add_ops(set, std::move(src), std::move(log.ops));
            return ok_status();
        }
        case SourceKind::stderr_log: {
            KILN_TRY(std::string text, inductor::read_beneath(root, rel, 256u << 20));
            add_ops(set, std::move(src), parse_stderr_autotune(text, path));
            return ok_status();
        }
        case SourceKind::session_log: {
            KILN_TRY(std::string text, inductor::read_beneath(root, rel, 256u << 20));
            auto log = parse_session_log(text, path);
            src.device = log.device;
            add_ops(set, std::move(src), std::move(log.ops));
            return ok_status();
        }
    }
    return make_error(Errc::unsupported, "unknown timing source kind", path);
}

using Found = std::vector<std::pair<SourceKind, fs::path>>;  // paths compare by component, as by path

// What the regular file `rel` beneath the root is, read through the root's descriptor. Named by the
// path reports give it: a timing cache is known by its folder's name, which may be the opened
// directory's own ("ROOT/cache").
void classify_beneath(const inductor::OpenedRoot& root, const std::string& rel, Found& found) {
    auto kind =
        classify_by(inductor::path_beneath(root, rel), [&](std::size_t n, bool whole) -> std::optional<std::string> {
            auto file = inductor::open_beneath(root, rel);
            if (!file) return std::nullopt;
            auto text = whole ? read_opened_file(*file, rel, n) : read_prefix(*file, n, rel);
            return text.ok() ? std::optional<std::string>(std::move(*text)) : std::nullopt;
        });
    if (kind) found.emplace_back(*kind, rel);
}

// The timing files beneath `rel` (a directory beneath the root), found depth first, never through a
// symlink; folders that hold no timings are passed over.
void find_beneath(const inductor::OpenedRoot& root, const std::string& rel, Found& found) {
    auto listed = inductor::list_beneath(root, rel);
    if (!listed) return;  // unreadable: as skip_permission_denied
    for (const auto& e : *listed) {
        const std::string child = rel.empty() ? e.name : rel + "/" + e.name;
        if (e.directory) {
            if (!holds_no_timings(e.name)) find_beneath(root, child, found);
            continue;
        }
        if (e.regular) classify_beneath(root, child, found);
    }
}

// As collect_timings over a directory: multi-choice sources first, by path within a kind.
void read_found(const inductor::OpenedRoot& root, Found& found, TimingSet& set) {
    std::sort(found.begin(), found.end());
    KernelModuleMemo modules;
    for (const auto& [kind, rel] : found)
        if (auto st = read_timing_file_beneath(root, rel.string(), kind, set, &modules); !st.ok())
            set.warnings.push_back(st.error().str());
}

Status collect_beneath(const inductor::OpenedRoot& root, TimingSet& set) {
    if (root.fd < 0) return make_error(Errc::invalid_argument, "the cache root was not opened", root.path.string());
    Found found;
    find_beneath(root, "", found);
    read_found(root, found, set);
    return ok_status();
}

// Whether a folder on `rel`'s way down from the root holds no timings (the walk would not enter it).
bool under_no_timings(std::string_view rel) {
    for (auto slash = rel.find('/'); slash != std::string_view::npos; slash = rel.find('/')) {
        if (names_no_timings(rel.substr(0, slash))) return true;
        rel.remove_prefix(slash + 1);
    }
    return false;
}

}  // namespace

Result<TimingSet> collect_timings_from(const std::vector<TimingPlace>& places) {
    TimingSet set;
    for (const auto& place : places) {
        if (const auto* root = std::get_if<inductor::OpenedRoot>(&place)) {
            KILN_CHECK(collect_beneath(*root, set));
            continue;
        }
        KILN_CHECK(collect_path(std::get<fs::path>(place), set));
    }
    // The same autotuning read from a table, a timing cache and an mm log is one op.
    join_sources(set);
    return set;
}

Result<TimingSet> collect_timings_from(const inductor::ScanResult& scan, const std::atomic<bool>* cancel) {
    const inductor::OpenedRoot root = scan.opened_root();
    if (root.fd < 0) return make_error(Errc::invalid_argument, "the scan holds no opened root", scan.root);
    TimingSet set;
    Found found;
    for (const auto& a : scan.artifacts) {
        if (cancel && cancel->load(std::memory_order_relaxed))
            return make_error(Errc::cancelled, "cancelled", scan.root);
        if (!under_no_timings(a.rel_path())) classify_beneath(root, std::string(a.rel_path()), found);
    }
    read_found(root, found, set);
    join_sources(set);
    return set;
}

Result<TimingSet> collect_timings(const std::vector<fs::path>& paths) {
    return collect_timings_from(std::vector<TimingPlace>(paths.begin(), paths.end()));
}

}  // namespace kiln::timings
