#include "health/check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <set>
#include <tuple>

#include "cuda/driver.hpp"
#include "health/check_walk.hpp"
#include "health/seen_entries.hpp"
#include "inductor/classify.hpp"
#include "inductor/python_sniff.hpp"
#include "inductor/roots.hpp"
#include "portability/portable.hpp"
#include "portability/sources.hpp"
#include "util/cpus.hpp"
#include "util/parallel.hpp"
#include "util/unique_fd.hpp"

namespace kiln::health {

using inductor::Artifact;
using inductor::Category;
using namespace detail;

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// KILN_CHECK_TIMES=1: each phase's wall time and the process's resident size after it on stderr (where a
// check's time and memory go, for bench/).
struct PhaseTimes {
    bool on = std::getenv("KILN_CHECK_TIMES") != nullptr;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    void mark(const char* phase) {
        if (!on) return;
        auto now = std::chrono::steady_clock::now();
        long pages = 0, resident = 0;
        if (FILE* f = std::fopen("/proc/self/statm", "r")) {
            if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
            std::fclose(f);
        }
        std::fprintf(stderr, "check: %-9s %8.3f s, resident %6.0f MiB\n", phase,
                     std::chrono::duration<double>(now - last).count(),
                     double(resident) * double(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0));
        last = now;
    }
};

// Relative path of a group (the file itself when it has none).
struct GroupNames {
    const inductor::ScanResult& scan;
    std::string operator()(const Found& f) const {
        if (f.group == inductor::kNoGroup || f.group >= scan.groups.size()) return f.path;
        const inductor::Group& g = scan.groups[f.group];
        std::string_view p = g.rel;  // relative, unless built by hand without a root
        if (!g.root && p.size() > scan.root.size() + 1) p = p.substr(scan.root.size() + 1);
        return std::string(p);
    }
};

// Without a target: entries whose torch (or Triton, in system_info[version]) differs from the newest entry's
// (entries sorted by path: the first of equally new ones).
void stale_by_version(const std::vector<EntryFindings>& entries, const GroupNames& group_of, HealthReport& r) {
    const EntryFindings* ref = nullptr;
    for (const auto& e : entries)
        if (!e.torch_version.empty() && (!ref || e.mtime_ns > ref->mtime_ns)) ref = &e;
    if (!ref) return;
    r.stale_against = "the newest entry's torch and Triton (" + ref->path + ")";
    for (const EntryFindings& e : entries) {
        StaleEntry s;
        if (!e.torch_version.empty() && e.torch_version != ref->torch_version)
            s.differs.push_back({"torch_version", e.torch_version.str(), ref->torch_version.str()});
        if (!e.system_version.empty() && !ref->system_version.empty() && e.system_version != ref->system_version)
            s.differs.push_back({"system_info[version]", e.system_version.str(), ref->system_version.str()});
        if (s.differs.empty()) continue;
        s.path = e.path;
        s.group = group_of(Found{ProblemKind::entry_undecodable, e.path, {}, e.group});
        r.stale.push_back(std::move(s));
    }
}

// A reference the walk did not see: missing only when the path really is absent. A folder this user
// may not read hides what is in it (the scan could not list it): that is `unreadable` (reported once
// per folder), never a missing file; a file that exists was written after the walk passed.
class Absence {
public:
    explicit Absence(int root_fd) : root_fd_(root_fd) {}
    bool missing(const std::string& rel, FoundList& out) {
        struct stat st;
        if (::fstatat(root_fd_, rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return false;
        int err = errno;
        if (err == ENOENT || err == ENOTDIR) return true;
        std::string dir = rel.substr(0, rel.rfind('/') == std::string::npos ? 0 : rel.rfind('/'));
        if (reported_.insert(dir).second)
            out.push_back({ProblemKind::unreadable, dir.empty() ? "." : dir,
                           "cannot look into it: " + std::string(std::strerror(err)) + " (what it holds is unknown)",
                           inductor::kNoGroup});
        return false;
    }

private:
    int root_fd_;
    std::set<std::string> reported_;
};

// An FX graph key's directory (fxgraph/<key[1:3]>/<key>).
std::string fx_key_dir(const std::string& key) {
    return key.size() > 3 ? "fxgraph/" + key.substr(1, 2) + "/" + key : "fxgraph/" + key;
}

// The references the workers recorded (those a kept scan's workers could not settle at once), against
// every path and key the walk saw.
void resolve(WalkFindings& w, const inductor::ScanResult& scan, const LockAge& age, FoundList& out) {
    Absence absent(age.root_fd);
    Known& known = w.known;
    if (!known.sealed) {
        known.add_groups(scan);
        known.seal();
    }
    for (auto& e : w.entries) {
        const Found owner{ProblemKind::entry_undecodable, e.path, {}, e.group};
        for (auto& ref : e.keys)
            if (!known.has_key(ref) && absent.missing(fx_key_dir(ref.target), out)) out.push_back(missing(ref, owner));
        // No triton/<device>/ at all: the Triton cache lives elsewhere (TRITON_CACHE_DIR, a blob's root).
        for (auto& ref : e.kernel_dirs)
            if (!known.has_kernel_dir(ref) && absent.missing(ref.target, out)) out.push_back(missing(ref, owner));
        for (auto& p : e.problems) out.push_back(std::move(p));
    }
    for (auto& o : w.outputs) {
        for (auto& ref : o.modules)
            if (!known.has_path(ref) && absent.missing(ref.target, out)) out.push_back(missing(ref, o.owner));
        for (const auto& [sha, name] : o.cpp) {
            auto it = w.main_cpp.find(sha);
            if (it == w.main_cpp.end()) continue;  // never built here (another compile command): nothing lost
            std::vector<std::string>& built = it->second;
            std::sort(built.begin(), built.end());
            if (std::none_of(built.begin(), built.end(),
                             [&](const auto& b) { return known.paths.contains(b + ".main.so"); })) {
                Found f = o.owner;
                f.detail = "C++ kernel " + name + ": " + built.front() + ".main.so is missing";
                out.push_back(std::move(f));
            }
        }
    }
    for (const auto& lock : w.locks) check_lock(lock.get(), known.keys, known.paths, age, out);
}

// Hands the files to the walk: a streaming scan of the root (check_cache) or a kept scan (check_scan).
// Returns the scan whose groups the findings are resolved against.
using Feed = std::function<Result<const inductor::ScanResult*>(CheckWalk& walk, int root_fd)>;

Result<HealthReport> run_check(const inductor::OpenedRoot& root, const CheckOptions& o, const Feed& feed) {
    if (root.fd < 0) return make_error(Errc::invalid_argument, "the cache root was not opened", root.path.string());
    // One descriptor for the walk and for the workers' relative reads: the opened root's, with an offset
    // of its own.
    KILN_TRY(UniqueFd root_fd, inductor::open_root_dir(root.path, root.fd));
    // The target as given (its label) and prepared for the workers; the default one found meanwhile.
    std::shared_future<std::optional<portability::Fingerprint>> given;
    if (o.target || o.default_target)
        given = std::async(std::launch::async, [&o]() -> std::optional<portability::Fingerprint> {
                    return o.target ? o.target : default_target();
                }).share();
    CheckWalk::Target prepared;
    if (given.valid())
        prepared = std::async(std::launch::async, [given]() -> std::optional<portability::Fingerprint> {
                       if (const auto& t = given.get()) return portability::prepare_target(*t);
                       return std::nullopt;
                   }).share();
    PhaseTimes times;
    // The walking thread keeps a CPU of its own.
    const unsigned workers = o.threads ? o.threads : std::max(1u, usable_cpus() - 1);
    CheckWalk walk(workers, o.now_ns ? o.now_ns : now_ns(), o.temp_age_ns, prepared, root_fd.get(), o.cancel);
    times.mark("start");  // what the process held before the walk
    KILN_TRY(const inductor::ScanResult* scanned, feed(walk, root_fd.get()));
    const inductor::ScanResult& scan = *scanned;
    times.mark("walk");
    WalkFindings w = walk.finish();
    times.mark("workers");
    if (o.cancel && o.cancel->load()) return make_error(Errc::cancelled, "check cancelled", scan.root);

    HealthReport r;
    r.root = scan.root;
    r.files = scan.files;
    r.groups = scan.groups.size();
    r.graph_entries = w.entries.size();
    r.unreadable = scan.unreadable;
    r.quarantine_files = scan.quarantine_files;
    r.quarantine_bytes = scan.quarantine_bytes;
    std::sort(w.entries.begin(), w.entries.end(),
              [](const EntryFindings& a, const EntryFindings& b) { return a.path < b.path; });
    GroupNames group_of{scan};
    FoundList found_all = std::move(w.problems);
    resolve(w, scan, LockAge{root_fd.get(), o.now_ns ? o.now_ns : now_ns(), o.temp_age_ns}, found_all);
    times.mark("resolve");
    // Sorted by kind, then path and detail: each kind on its own thread (hundreds of thousands at 1M files).
    // In place: partitioned by kind, each kind's range sorted on its own thread, then moved into the report's
    // list, sized once (hundreds of thousands at 1M files: a second list per kind, or a doubling vector's
    // spare half and its copy on growth, were a large part of the check's transient memory).
    std::array<std::size_t, kProblemKinds + 1> kind_begin{};
    auto from = found_all.begin();
    for (std::size_t k = 0; k < kProblemKinds; ++k) {
        kind_begin[k] = static_cast<std::size_t>(from - found_all.begin());
        from = std::partition(from, found_all.end(),
                              [k](const Found& f) { return static_cast<std::size_t>(f.kind) == k; });
    }
    kind_begin[kProblemKinds] = found_all.size();
    parallel_for(kProblemKinds, workers, nullptr, [&](std::size_t k) {
        std::sort(
            found_all.begin() + static_cast<std::ptrdiff_t>(kind_begin[k]),
            found_all.begin() + static_cast<std::ptrdiff_t>(kind_begin[k + 1]),
            [](const Found& a, const Found& b) { return std::tie(a.path, a.detail) < std::tie(b.path, b.detail); });
    });
    r.problems.reserve(found_all.size());
    for (; !found_all.empty(); found_all.pop_front()) {  // the deque's blocks freed as the report's list fills
        Found& f = found_all.front();
        std::string group = group_of(f);
        r.problems.emplace_back(f.kind, std::move(f.path), std::move(f.detail), group);
    }
    times.mark("problems");
    if (given.valid() && given.get()) r.stale_against = given.get()->label(), r.stale = std::move(w.stale);
    else stale_by_version(w.entries, group_of, r);
    // Last: each entry's path moves into its unused candidates (not copied while the check holds its peak).
    for (auto& e : w.entries)
        if (e.unused) {
            e.unused->path = std::move(e.path);
            r.unused.push_back(std::move(*e.unused));
        }
    std::sort(r.stale.begin(), r.stale.end(), [](const StaleEntry& a, const StaleEntry& b) { return a.path < b.path; });
    times.mark("stale");
    return r;
}

}  // namespace

Result<HealthReport> check_cache(const inductor::OpenedRoot& root, const CheckOptions& o) {
    std::optional<inductor::ScanResult> scan;
    inductor::UnknownToKiln unknown;
    auto r = run_check(root, o, [&](CheckWalk& walk, int root_fd) -> Result<const inductor::ScanResult*> {
        inductor::ScanOptions so;
        so.cancel = o.cancel;
        so.keep_artifacts = false;  // streamed: memory grows with the groups and the findings, not the files
        so.on_artifact = [&walk, &unknown](const Artifact& a) {
            inductor::add_unknown_file(unknown, a);
            walk.add(a);
        };
        KILN_TRY(auto result, inductor::scan_cache(inductor::OpenedRoot{root.path, root_fd}, so));
        scan = std::move(result);
        return &*scan;
    });
    if (r) r->unknown = std::move(unknown);
    return r;
}

Result<HealthReport> check_scan(const inductor::ScanResult& scan, const CheckOptions& o) {
    inductor::UnknownToKiln unknown;
    auto r = run_check(scan.opened_root(), o, [&](CheckWalk& walk, int) -> Result<const inductor::ScanResult*> {
        walk.know_all(scan);
        walk.take_seen(o.seen);
        std::vector<const Artifact*> entries;   // with `seen`: checked once its read is over
        for (const auto& a : scan.artifacts) {  // the walk's order, as the streaming scan passes them
            if (o.cancel && o.cancel->load(std::memory_order_relaxed)) break;
            inductor::add_unknown_file(unknown, a);
            if (o.seen && (a.category == Category::fxgraph || a.category == Category::aotautograd))
                entries.push_back(&a);
            else walk.add(a);
        }
        if (o.seen && o.seen->wait(o.cancel))
            for (const Artifact* a : entries) walk.add(*a);
        return &scan;
    });
    if (r) r->unknown = std::move(unknown);
    return r;
}

Result<HealthReport> check_groups(const inductor::ScanResult& scan, const std::vector<inductor::GroupId>& groups,
                                  const CheckOptions& o_in) {
    CheckOptions o = o_in;
    o.target.reset();  // stale needs every entry (the newest one's versions): not judged here
    o.default_target = false;
    return run_check(scan.opened_root(), o, [&](CheckWalk& walk, int root_fd) -> Result<const inductor::ScanResult*> {
        walk.know_all(scan);
        std::vector<Artifact> files;
        for (inductor::GroupId g : groups)
            if (g < scan.groups.size())
                for (auto i : scan.groups[g].artifacts) files.push_back(scan.artifacts[i]);
        // A scan that read no .py heads (quarantine's) took output code for kernel modules: read these.
        std::vector<std::size_t> modules;
        std::vector<std::string_view> rels;
        for (std::size_t k = 0; k < files.size(); ++k)
            if (inductor::classify_path(files[k].rel_path(), scan.kind).needs_python_sniff) {
                modules.push_back(k);
                rels.push_back(files[k].rel_path());
            }
        auto heads = inductor::sniff_python_heads(root_fd, rels, 1, o.cancel);
        bool output_code = false;
        for (std::size_t n = 0; n < modules.size() && n < heads.size(); ++n) {
            files[modules[n]].category = heads[n].output_code ? Category::output_code : Category::kernel_module;
            output_code |= heads[n].output_code;
        }
        for (const auto& a : files) walk.add(a);
        // Output code's C++ kernels are looked up by their source's hash in every .main.cpp of the cache
        // (a library is missing only where one was built here): those files are read too, as the full
        // check reads them; they report nothing themselves.
        if (output_code)
            for (const auto& a : scan.artifacts)
                if (a.category == Category::cpp_source && a.rel_path().ends_with(".main.cpp") &&
                    std::find(groups.begin(), groups.end(), a.group) == groups.end())
                    walk.add(a);
        return &scan;
    });
}

std::optional<portability::Fingerprint> default_target() {
    // Ask the driver first: the full local fingerprint also runs nvcc, which costs more than a check.
    auto devices = cuda::device_count();
    if (!devices || *devices == 0) return std::nullopt;
    portability::Fingerprint local = portability::local_fingerprint();
    if (local.device_name().empty()) return std::nullopt;
    return local;
}

Result<std::vector<std::string>> stale_groups(const inductor::OpenedRoot& root,
                                              const std::optional<portability::Fingerprint>& target) {
    CheckOptions o;
    o.target = target ? target : default_target();
    KILN_TRY(auto report, check_cache(root, o));
    std::vector<std::string> out;
    for (const auto& s : report.stale)
        if (std::find(out.begin(), out.end(), s.group) == out.end()) out.push_back(s.group);
    return out;
}

Result<std::size_t> count_problems(const inductor::OpenedRoot& root) {
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
