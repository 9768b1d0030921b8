#pragma once
// Internal to core/health: the pieces of one check run. The scan streams (no file list is kept): each
// file is checked on a worker thread while the walk goes on, and what a check needs of the rest of
// the cache (a module, a key, a Triton kernel dir) is recorded as a reference and resolved against
// the hashes of every path and key once the walk is over (a kept scan's: as soon as it is found).
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "health/health_report.hpp"
#include "inductor/scanner.hpp"
#include "util/regular_file.hpp"

namespace kiln::inductor {
class GraphEntry;
}

namespace kiln::health::detail {

// 64-bit hashes of strings (paths, keys), sorted once after the walk: 8 bytes a file instead of a
// set of strings. A collision could only hide a missing file (about 1 in 10^13 at a million files).
class HashSet {
public:
    void add(std::string_view s) { hashes_.push_back(hash(s)); }
    std::size_t size() const { return hashes_.size(); }
    // Not when it repeats the string added last (a run of files sharing a key: one hash for the run).
    void add_unless_last(std::string_view s) {
        if (const std::uint64_t h = hash(s); hashes_.empty() || hashes_.back() != h) hashes_.push_back(h);
    }
    void seal();
    bool contains(std::string_view s) const;
    static std::uint64_t hash(std::string_view s);

private:
    std::vector<std::uint64_t> hashes_;
};

// A problem found before the walk ends: its group (the scan's id) is named afterwards.
struct Found {
    ProblemKind kind = ProblemKind::entry_undecodable;
    std::string path;  // relative
    std::string detail;
    inductor::GroupId group = inductor::kNoGroup;
};
Found found(ProblemKind kind, const inductor::Artifact& a, std::string detail);
// The problems of a whole walk (hundreds of thousands at 1M files): a deque grows without copying itself
// or keeping a spare half.
using FoundList = std::deque<Found>;

// A file another one needs (relative path or key). The problem reported when it is absent (its owner's
// path and group, `kind`, a detail naming `target` and `what`) is made only then: most references resolve,
// and a million-file cache holds hundreds of thousands of them.
struct Ref {
    std::string target;
    std::string what;  // the kernel's name (kernel modules, Triton kernel dirs), "forward"/"backward" (AOT keys)
    ProblemKind kind = ProblemKind::kernel_module_missing;
};
// The problem of an absent reference, owned by `owner` (its path and group).
Found missing(const Ref& ref, const Found& owner);

// A string that many entries hold alike (Triton's system_info[version] is ~2 KB, in every entry: 46 MB
// at 23,000 entries), kept once by a StringPool; reads and compares as its text.
class PooledString {
public:
    PooledString() = default;
    explicit PooledString(std::shared_ptr<const std::string> s) : s_(std::move(s)) {}
    const std::string& str() const {
        static const std::string none;
        return s_ ? *s_ : none;
    }
    bool empty() const { return str().empty(); }
    friend bool operator==(const PooledString& a, const PooledString& b) { return a.s_ == b.s_ || a.str() == b.str(); }

private:
    std::shared_ptr<const std::string> s_;
};

// One copy of each distinct string, shared by the workers (thread-safe).
class StringPool {
public:
    PooledString intern(std::string s);

private:
    std::mutex mu_;
    std::unordered_map<std::string_view, std::shared_ptr<const std::string>> strings_;  // keys view the values
};

// What one graph entry needs and says.
struct EntryFindings {
    std::string path;  // relative
    inductor::GroupId group = inductor::kNoGroup;
    std::int64_t mtime_ns = 0;
    std::vector<Found> problems;
    std::vector<Ref> keys;                   // AOT: forward/backward FX keys that must be in fxgraph/
    std::vector<Ref> kernel_dirs;            // FX: triton/<device>/<hash> of each bundled Triton kernel
    std::optional<UnusedCandidates> unused;  // its path empty until the report (then `path`, moved)
    // torch_version and system_info[version] (Triton's key) as "[hash] value", for the stale check.
    PooledString torch_version, system_version;
    bool decoded = false;  // a CompiledFxGraph / AOTAutogradResult of the expected kind
};

// What one output code module needs: the kernel modules it imports, the C++ kernels it builds.
struct OutputFindings {
    std::vector<Ref> modules;
    std::vector<std::pair<std::string, std::string>> cpp;  // (kernel source sha256, kernel name)
    Found owner;  // the module's path and group: the problem of a C++ library gone
};

// Every read below opens the artifact's relative path beneath `root_fd` (the root the check holds
// open: a root path swapped meanwhile changes nothing), never following a symlink, with O_NOATIME
// where permitted (util/regular_file). A file this user may not read is ProblemKind::unreadable.
struct ReadBeneath {
    int root_fd = -1;
    // The file, or why not: nullopt after adding an `unreadable` problem (permissions) to `problems`,
    // or when it is gone since the scan (nothing left to be wrong).
    std::optional<OpenedFile> open(const inductor::Artifact& a, std::vector<Found>& problems) const;
    std::optional<OpenedFile> open(const inductor::Artifact& a, FoundList& problems) const;
};

// Graph entries (fxgraph, aotautograd): decode, type, AOT FX keys, bundled kernels, unused candidates.
// `versions` keeps the torch and Triton versions once for all entries.
EntryFindings check_graph_entry(const inductor::Artifact& a, const ReadBeneath& files, StringPool& versions);
// What a decoded entry says, into `out` (its path and group set): the check's own read and SeenEntries'
// (the GUI's shared read) both end here. `want_aot`: the file lies in aotautograd/.
void check_decoded_entry(const inductor::GraphEntry& entry, bool want_aot, EntryFindings& out, StringPool& versions);
// Output code modules: the kernel modules and C++ libraries they load (`unreadable`: its problem).
OutputFindings check_output_code(const inductor::Artifact& a, const ReadBeneath& files, FoundList& unreadable);
// A .main.cpp's kernel-source sha256 (empty when unreadable).
std::string main_cpp_sha(const inductor::Artifact& a, const ReadBeneath& files);
// Binaries (.so, .o, .cubin): empty or truncated.
bool is_binary_name(std::string_view rel);
void check_binary(const inductor::Artifact& a, const ReadBeneath& files, FoundList& out);
// A Triton kernel dir: its group files (`groups`) against the names of the files in it (`names`).
// The file names a Triton group file (__grp__<kernel>.json) lists in its "child_paths", each once, by
// name; nullopt when the text is not such an object. Triton writes it with json.dumps, which is read
// without a full parse; any other form (escapes, other spacing, non-ASCII) takes nlohmann's.
std::optional<std::vector<std::string>> group_file_children(std::string_view text);
void check_triton_dir(const std::vector<inductor::Artifact>& groups, const std::vector<std::string_view>& names,
                      const ReadBeneath& files, FoundList& out);
// Temporaries older than `age_ns` (at `now_ns`).
void check_temp(const inductor::Artifact& a, std::int64_t now_ns, std::int64_t age_ns, FoundList& out);
// Orphan locks: nobody holds them (a try-lock, the flock torch's FileLock and Kiln's util/file_lock
// take), they are older than `age_ns`, and what they guard is gone: locks/<key>.lock whose key has
// no files (`keys`), Kiln's locks/autotune-<hash>.lock whose cache/<hash> is gone, PGO locks whose
// profile is gone (`paths`).
struct LockAge {
    int root_fd = -1;
    std::int64_t now_ns = 0;
    std::int64_t age_ns = 0;
};
void check_lock(const inductor::Artifact& a, const HashSet& keys, const HashSet& paths, const LockAge& age,
                FoundList& out);

}  // namespace kiln::health::detail
