#pragma once
// The cache scanner: one walk over an Inductor (or stand-alone Triton) cache root that classifies
// every file by the rules of docs/inductor-cache-format.md §2 and groups files into the units that
// live and die together (an fxgraph key dir, a Triton kernel dir, a module with its sidecars).
// Symlinks are never followed; unreadable files and directories are counted, never fatal.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inductor/opened_root.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace kiln::inductor {

// One per rule of §2, plus `build_record`: Kiln's own compile sidecars `<key>.<ext>.json`, and the
// other folders and files torch 2.9-2.12 writes under the cache dir (docs/inductor-cache-format.md
// §2, "Every category, and which torch writes it").
enum class Category : std::uint8_t {
    fxgraph,
    aotautograd,
    output_code,
    kernel_module,
    best_config,
    kernel_perf,
    cpp_source,
    cpp_library,
    cuda_source,
    triton_compiled,
    autotune_local_cache,
    lock,
    temp,
    build_record,
    pgo_profile,       // dynamo/code_state_<key>.pkl: learned dynamic shapes; kept by evict unless asked by --category
    precompile_entry,  // dynamo/<hex64>/entry (torch 2.10+, TORCH_CACHING_PRECOMPILE=1)
    triton_autotune,   // triton/<dev>/<hex64>/<fn>.autotune.json (@triton.autotune(cache_results=True))
    picked_kernel,     // <xx>/<key>.picked_kernel: the multi-kernel choice
    object_file,       // <xx>/<key>.o: an object of a C++/CUDA build
    compile_error,     // <xx>/<key>.<ext>.error: a failed CUDA/CUTLASS build's command and output
    aoti_artifact,     // <xx>/<key>.wrapper.* / .kernel.*: AOTInductor builds without an output path
    halide,            // <xx>/<key>.halide/ kernel dirs, halide-runtime-*/ at the top
    aoti_eager,        // aoti_eager/<namespace>/<device>/: AOTI eager kernels and their JSON index
    cutlass,           // configs_*.json op lists, compiled_cache.db, torch_cutlass/
    cutedsl,           // cutedsl_compile_cache/: CuTe-DSL objects (newer than torch 2.11)
    precompiled_header,  // precompiled_headers/ (only in the default dir <tmp>/torchinductor_<user>)
    caching_module,      // cache/<name>/...: the opt-in caching module (TORCHINDUCTOR_ENABLE_CACHING_MODULE)
    toolchain,           // gcc/: a compiler installed through conda by old torch on old systems
    nested_root,         // tmp<8>/: a whole cache left by fresh_cache(delete=False) (force_disable_caches)
    debug_dump,          // opt-in debug and data collection: bisect/, unhashed_kernel_inputs/, autoheuristic/,
                         // memoizer_cache.json, tmp<8>.py tuning code dumps
    other,
};
inline constexpr std::size_t kCategoryCount = static_cast<std::size_t>(Category::other) + 1;

// The names of §2 ("fxgraph", "output_code", ...), used by the CLI's --json and --category.
std::string_view category_name(Category c);
std::optional<Category> category_from_name(std::string_view name);
// Categories evict leaves alone unless they are named with --category: user state that costs more
// than a recompile to rebuild (PGO profiles), and locks that coordinate processes.
bool kept_by_default(Category c);

enum class GroupKind : std::uint8_t {
    key_dir,            // fxgraph/<xx>/<key>/ or aotautograd/<key>/: all entries of one key
    triton_kernel_dir,  // triton/<dev>/<HASH>/ or, in a stand-alone Triton cache, <HASH>/
    module,             // <xx>/<key>.py|.cpp|.so|... with its .kernel_perf, .best_config, build records
    single_file,        // anything else: autotune cache, lock, temp, other
};

// Where `kiln-cli check --quarantine` moves problem groups (<root>/.kiln-quarantine/<id>/): the scan
// never enters it (its files are no cache files) and only counts its size.
inline constexpr std::string_view kQuarantineDirName = ".kiln-quarantine";

using GroupId = std::uint32_t;
inline constexpr GroupId kNoGroup = 0xffffffffu;

// What kind of root was scanned; decides which rules apply.
enum class RootKind : std::uint8_t {
    inductor,  // $TORCHINDUCTOR_CACHE_DIR layout
    triton,    // stand-alone Triton cache: <HASH>/ kernel dirs
};
std::string_view root_kind_name(RootKind k);

// Lifetimes. A kept scan (ScanOptions::keep_artifacts) stores every path once, relative to the root,
// in the ScanStorage its ScanResult shares (with the root itself, once): Artifact::rel_path() and
// Group::rel_path()/key view those bytes, Group::artifacts views its member list there, and path()
// joins the root and the relative path into a new string (the root is not stored on each of a
// million paths). They stay valid while any copy of the ScanResult lives (copies share the storage;
// moving a ScanResult moves no bytes). A streamed Artifact (ScanOptions::on_artifact) views the
// walker's buffer and is valid only during the callback: keep an OwnedArtifact past it. An Artifact
// or Group built or edited by hand views bytes (and a root string) its builder must keep alive
// (never pass a temporary std::string to set_path or assign one to `key`).
struct Artifact {
    const std::string* root = nullptr;  // the root the path is under; null: rel_path() is the whole path
    const char* rel_data = nullptr;     // rel_size bytes: the path relative to the root
    std::uint64_t size = 0;             // bytes (st_size)
    std::int64_t mtime_ns = 0;          // nanoseconds since the Unix epoch
    std::int64_t atime_ns = 0;
    std::uint64_t ino = 0;  // st_ino: eviction removes only the file the scan saw
    GroupId group = kNoGroup;
    std::uint32_t rel_size = 0;
    // The key is a part of the relative path (classify.hpp): stored as its place there, no bytes.
    std::uint16_t key_offset = 0;
    std::uint16_t key_size = 0;
    Category category = Category::other;

    std::string_view rel_path() const { return {rel_data, rel_size}; }
    // Absolute: the root, '/', the relative path (a new string each call).
    std::string path() const;
    // Views `*root` and `rel` (both kept alive by the caller); `root` null: `rel` is the whole path.
    void set_path(const std::string* root, std::string_view rel);
    // fxgraph/aotautograd key, module key "c…", Triton HASH, hex name; may be empty.
    std::string_view key() const { return rel_path().substr(key_offset, key_size); }
    // `key` views rel_path() (as classify_path's keys do) or equals a part of it; else the key is empty.
    void set_key(std::string_view key);
    // Last use for LRU: atime, falling back to mtime where atime is older (noatime mounts).
    std::int64_t last_use_ns() const { return atime_ns > mtime_ns ? atime_ns : mtime_ns; }
};

// An Artifact that owns its path: what a streaming consumer keeps past the on_artifact callback.
class OwnedArtifact {
public:
    OwnedArtifact() = default;
    explicit OwnedArtifact(const Artifact& a)
        : root_(a.root ? *a.root : std::string()), rel_(a.rel_path()), has_root_(a.root != nullptr), fields_(a) {
        fields_.set_path(nullptr, {});
    }
    // Views this object's bytes: valid while it lives unchanged.
    Artifact get() const {
        Artifact a = fields_;
        a.set_path(has_root_ ? &root_ : nullptr, rel_);
        return a;
    }

private:
    std::string root_, rel_;
    bool has_root_ = false;
    Artifact fields_;
};

struct Group {
    GroupId id = kNoGroup;
    GroupKind kind = GroupKind::single_file;
    Category category = Category::other;  // the main category (fxgraph, triton_compiled, kernel_module, …)
    std::uint32_t files = 0;              // members, also when their list is not kept
    const std::string* root = nullptr;    // as Artifact::root
    std::string_view rel;                 // relative to the root: the dir for key/kernel dirs, the main file otherwise
    std::string_view key;                 // the key the group's lock would be named after (locks/<key>.lock)
    std::span<const std::uint32_t> artifacts;  // indices into ScanResult::artifacts (empty when not kept)
    std::uint64_t bytes = 0;
    std::int64_t last_use_ns = 0;  // max of the members' last_use_ns()
    std::uint64_t ino = 0;         // key/kernel dirs: the directory's st_ino at scan time (0: unknown)

    std::string_view rel_path() const { return rel; }
    std::string path() const;  // absolute, as Artifact::path
};

// `root` + '/' + `rel` (`root` null: `rel`), the absolute path of an artifact or group.
std::string join_root(const std::string* root, std::string_view rel);

// Bytes appended once and never moved: chunks of 1 MiB (a longer string gets a chunk of its own),
// so views into them survive the store's growth. Nothing is ever removed.
class PathStore {
public:
    std::string_view add(std::string_view a, std::string_view b = {}, std::string_view c = {});
    std::size_t bytes() const { return bytes_; }  // allocated

private:
    std::vector<std::unique_ptr<char[]>> chunks_;
    char* next_ = nullptr;
    std::size_t left_ = 0;
    std::size_t bytes_ = 0;
};

// What a ScanResult's artifacts and groups view (see "Lifetimes" above).
struct ScanStorage {
    std::string root;                    // what the artifacts' and groups' `root` point at (ScanResult::root)
    PathStore paths;                     // the relative paths
    std::vector<std::uint32_t> members;  // the groups' member lists, one run per group
    UniqueFd root_fd;                    // the directory walked (a descriptor of its own): see ScanResult::root_fd
};

struct ScanProgress {
    std::uint64_t files = 0;
    std::uint64_t dirs = 0;
    std::uint64_t bytes = 0;
    std::string_view current_dir;  // relative to the root; valid only during the callback
};

struct ScanOptions {
    std::optional<RootKind> kind;  // empty: detect (roots.hpp detect_root_kind)
    bool sniff_python = true;      // read ≤ 4 KB of .py files to tell output_code from kernel_module
    unsigned sniff_threads = 0;    // threads reading .py heads after the walk (0: one per core, at most 8)
    // Streaming: every file is passed here once its category and group are final (.py files and
    // .best_config files after the walk). The Artifact's path is valid during the call only. With keep_artifacts false, ScanResult::artifacts stays
    // empty and groups keep no member lists: what `stats` needs at a million files.
    std::function<void(const Artifact&)> on_artifact;
    bool keep_artifacts = true;
    // An Inductor root's graph entries first: with this set (and keep_artifacts), fxgraph/ and
    // aotautograd/ are walked before the rest of the root and their files are passed here, on the
    // scan's thread, so that their read can go on beside the rest of the walk (the GUI reads every
    // entry). The artifacts are the scan's own (same sizes, times, paths); valid during the call only.
    std::function<void(std::span<const Artifact>)> on_graph_dirs;
    std::function<void(const ScanProgress&)> progress;  // called every `progress_every` files and at the end
    std::uint32_t progress_every = 4096;
    const std::atomic<bool>* cancel = nullptr;  // when set to true the scan stops with Errc::cancelled
    std::size_t max_errors = 100;               // errors kept verbatim; all are counted in `unreadable`
};

struct ScanResult {
    std::string root;  // absolute, as given (not resolved through symlinks)
    RootKind kind = RootKind::inductor;
    std::vector<Artifact> artifacts;  // files in walk order (empty when ScanOptions::keep_artifacts is false)
    std::shared_ptr<const ScanStorage> storage;  // the bytes artifacts and groups view; shared by copies
    std::uint64_t files = 0;                     // regular files seen, kept or not
    std::uint64_t bytes = 0;                     // their st_size sum
    std::vector<Group> groups;                   // groups[i].id == i
    std::uint64_t unreadable = 0;                // files and directories that could not be read or stat'ed
    std::vector<Error> errors;                   // the first `max_errors` of them, with paths
    std::uint64_t dirs = 0;
    std::uint64_t symlinks = 0;          // seen and not followed (not artifacts)
    std::uint64_t quarantine_files = 0;  // in <root>/.kiln-quarantine/ (not artifacts)
    std::uint64_t quarantine_bytes = 0;
    std::uint64_t root_dev = 0;  // identity of the directory walked (st_dev, st_ino)
    std::uint64_t root_ino = 0;

    std::uint64_t total_bytes() const { return bytes; }
    // The directory this scan walked, held as long as the scan (its storage): what works on a scan
    // afterwards (evict_dry_run, check_scan, assess_scan) reads and locks through it, never through
    // `root` opened again. -1 for a scan built by hand.
    int root_fd() const { return storage ? storage->root_fd.get() : -1; }
    OpenedRoot opened_root() const { return {root, root_fd()}; }
};

// Walks the opened root once, through its descriptor. Errors: Errc::io when it cannot be read,
// Errc::cancelled when options.cancel was raised.
Result<ScanResult> scan_cache(const OpenedRoot& root, const ScanOptions& options = {});
// Opens `root` (open_root_dir: not_found, io, invalid_argument) and walks it: for tests and tools that
// hold no opened root. Commands scan the root frontend::open_cache opened.
Result<ScanResult> scan_cache(const std::filesystem::path& root, const ScanOptions& options = {});

}  // namespace kiln::inductor
