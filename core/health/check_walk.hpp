#pragma once
// Internal to core/health: the files of a streaming scan handed to worker threads as the walk
// finds them (graph entries, output code, binaries, C++ sources, Triton kernel dirs), so the reads
// and decodes overlap the walk; only what the final report needs is kept.
// Why this shape: a million-file cache must be checked in one walk without a file list. Tasks go in
// batches through a util::BoundedQueue, whose full state pauses the walk (memory stays bounded); the
// walking thread keeps a CPU of its own; each worker keeps its own results, merged at the end. What a
// file needs of the rest of the cache (a module, an FX key, a Triton kernel dir) is a Ref resolved
// after the walk against 64-bit hashes of every relative path and key (8 bytes a file); a kept scan
// (the GUI's) has them all before the walk, so its workers keep only the Refs that do not resolve,
// and its tasks view the scan's paths instead of copying them. Every read
// goes through the root's descriptor (open_regular_file_beneath: no symlink followed, O_NOATIME).
#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "health/check_context.hpp"
#include "portability/fingerprint.hpp"
#include "util/bounded_queue.hpp"

namespace kiln::health {
class SeenEntries;
}

namespace kiln::health::detail {

// What the cache holds, to resolve references against: every relative path and key (locks' excepted,
// the groups' keys included), the Triton kernel dirs and the triton/<device> dirs that hold them.
// Filled by the walk (a streaming scan: sealed after it) or, for a kept scan, at once before it, so
// the workers drop the references that resolve as soon as they find them.
struct Known {
    HashSet paths;  // only those may_be_named
    HashSet keys;
    HashSet kernel_dirs;
    std::set<std::string> devices;
    bool sealed = false;

    void add_file(const inductor::Artifact& a);
    // Whether a reference can name this relative path: a kernel module (<key[1:3]>/<key>.py), a C++
    // library (*.main.so), a lock's guarded file (cache/<hash>, dynamo/...). Never a file in triton/
    // (85% of a large cache: Triton kernel dirs are known as dirs), fxgraph/, aotautograd/ (keys) or
    // locks/: leaving those out keeps `paths` at a fifth of the files, lookups unchanged.
    static bool may_be_named(std::string_view rel);
    void add_groups(const inductor::ScanResult& scan);
    void seal();
    // After seal(): whether a reference certainly names a file the cache holds (else it is looked up).
    bool has_key(const Ref& r) const { return keys.contains(r.target); }
    bool has_path(const Ref& r) const { return paths.contains(r.target); }
    // A kernel dir under a triton/<device> that holds none: the Triton cache lives elsewhere (not judged).
    bool has_kernel_dir(const Ref& r) const;
};

// What the workers and the walk found, merged once every worker is done.
struct WalkFindings {
    FoundList problems;  // final: decode errors, binaries, Triton dirs, temporaries
    std::vector<EntryFindings> entries;
    std::vector<OutputFindings> outputs;
    std::unordered_map<std::string, std::vector<std::string>>
        main_cpp;                                // kernel source sha256 -> rel paths without .main.cpp
    std::vector<inductor::OwnedArtifact> locks;  // streamed artifacts: owned past the callback
    std::vector<StaleEntry> stale;               // with a target: entries that can never hit there
    Known known;                                 // sealed by know_all (a kept scan), else by the caller after the walk
};

class CheckWalk {
public:
    // `target`: prepared (portability::prepare_target) when stale means "can never hit there"; the
    // workers wait for it at their first graph entry. An invalid future or nullopt: no target.
    using Target = std::shared_future<std::optional<portability::Fingerprint>>;
    CheckWalk(unsigned threads, std::int64_t now_ns, std::int64_t temp_age_ns, Target target, int root_fd,
              const std::atomic<bool>* cancel);
    ~CheckWalk();
    CheckWalk(const CheckWalk&) = delete;
    CheckWalk& operator=(const CheckWalk&) = delete;

    void add(const inductor::Artifact& a);  // the scan's on_artifact (the walking thread)
    // A kept scan, before its first add(): what it holds, known at once (the workers keep only the
    // references that do not resolve), and its artifacts' bytes outlive the walk (tasks view them).
    void know_all(const inductor::ScanResult& scan);
    WalkFindings finish();  // after the scan: waits for the workers
    // Before the first add(): graph entries it saw are taken from it instead of read (check_scan's `seen`).
    void take_seen(SeenEntries* seen) { seen_ = seen; }

private:
    // A file (or a Triton kernel dir) for a worker. A kept scan's artifacts are viewed; a streamed
    // one's path is copied (it outlives its callback here).
    struct Task {
        enum Kind : std::uint8_t { entry, output, binary, main_cpp, triton_dir } kind = entry;
        inductor::Artifact file;
        std::string path;                        // a streamed file's relative path (file views root_ then)
        std::vector<inductor::Artifact> groups;  // triton_dir: its __grp__*.json files
        std::vector<std::string> group_paths;    // streamed: their relative paths
        std::string names;                       // triton_dir: the names of its files, each ending in '/'
        inductor::Artifact get() const;
    };
    Task task(Task::Kind kind, const inductor::Artifact& a);
    // A streamed artifact's copy viewing nothing (its relative path goes beside it), its root root_.
    inductor::Artifact detached(const inductor::Artifact& a);
    struct Local {
        FoundList problems;
        std::vector<EntryFindings> entries;
        std::vector<OutputFindings> outputs;
        std::vector<std::pair<std::string, std::string>> main_cpp;
        std::vector<StaleEntry> stale;
        std::string scratch;
    };

    void submit(Task&& t);
    void push_batch();
    void flush_dir();
    void work(Local& local);
    void run(Task& t, Local& local, const Target& target);
    void stale_check(const inductor::Artifact& a, const portability::Fingerprint& target, Local& local);

    std::int64_t now_ns_, temp_age_ns_;
    Target target_;
    int root_fd_;
    const std::atomic<bool>* cancel_;
    SeenEntries* seen_ = nullptr;
    WalkFindings out_;
    bool kept_ = false;    // know_all: the artifacts' bytes outlive the walk
    std::string root_;     // streamed: the root the tasks' paths are under (set by the first file)
    StringPool versions_;  // the entries' torch and Triton versions, once each
    // The Triton kernel dir being walked: its files arrive together.
    inductor::GroupId dir_group_ = inductor::kNoGroup;
    Task dir_;

    // Tasks go to the workers in batches (one lock and one wake-up for many files); a batch closes
    // at a cost of 64 (a graph entry or output code counts 16: few of them still spread out).
    std::vector<Task> batch_;
    int batch_cost_ = 0;
    BoundedQueue<std::vector<Task>> queue_;  // batches waiting: the walk pauses beyond its limit (bounded memory)
    std::vector<Local> locals_;
    std::vector<std::thread> pool_;
};

}  // namespace kiln::health::detail
