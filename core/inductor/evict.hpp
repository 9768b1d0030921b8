#pragma once
// LRU eviction of whole groups, the way `ccache --evict-older-than` / `--max-size` trim ccache:
// an fxgraph key dir, a Triton kernel dir, a module with its sidecars go together or not at all. A group
// that others need (the FX graphs an AOT entry names, the Triton kernel dirs an FX entry bundles, the
// kernel modules output code imports) is as recent as they are and goes only after them: an entry left
// in the cache never misses a graph or a kernel (`kiln-cli check` finds nothing to quarantine).
// Safety: nothing outside the root is touched, no symlink is followed (a link inside a group is
// removed as a link), a group whose locks/<key>.lock is held (flock) by another process is skipped.
// The root is opened once: the scan and every removal go through that descriptor (openat/unlinkat,
// O_NOFOLLOW), so a root path that is a symlink swapped mid-run cannot redirect the deletions, and a
// group whose directory or files were replaced since the scan (another st_ino) is left alone.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inductor/scanner.hpp"
#include "util/result.hpp"

namespace kiln::inductor {

class EntryNeeds;

struct EvictPolicy {
    std::optional<std::int64_t> older_than_ns;  // remove groups whose last use is older than now - this
    std::optional<std::uint64_t> max_bytes;     // remove LRU groups until the cache is at most this big
    std::optional<std::uint64_t> max_files;     // ...until it holds at most this many files (the inode quota)
    // Groups to remove whatever their age (relative paths, e.g. the key dirs of entries `kiln-cli check`
    // calls stale); removed even when no limit is given.
    std::vector<std::string> named_groups;
    std::vector<Category> categories;  // only groups whose main category is listed (empty: all but kept_by_default)
    bool dry_run = true;
    bool force = false;       // accept a root that does not look like a cache
    std::int64_t now_ns = 0;  // 0: the current time
};

struct EvictedGroup {
    std::string path;
    std::uint64_t bytes = 0;
    GroupKind kind = GroupKind::single_file;
    Category category = Category::other;
    std::int64_t last_use_ns = 0;
    std::vector<std::string> best_configs;  // its .best_config files (absolute): kernels tuned again next run
};

struct SkippedGroup {
    std::string path;
    std::string reason;
};

// A group of which some files were removed before something failed (an undeletable subfolder, a
// racing writer): `bytes` were really freed.
struct PartialGroup {
    std::string path;
    std::uint64_t bytes = 0;
    std::string reason;
};

struct EvictReport {
    std::string root;
    bool dry_run = true;
    std::vector<EvictedGroup> removed;  // in a dry run: what would be removed
    std::vector<SkippedGroup> skipped;  // nothing of these was removed
    std::vector<PartialGroup> partial;
    std::uint64_t freed_bytes = 0;  // removed and partial together
    std::uint64_t bytes_before = 0;
    // False when this user cannot read the cache without updating atimes (another user's cache, no
    // CAP_FOWNER): then Kiln's own reads (show, timings, the GUI) make entries look recently used.
    bool atime_kept = true;
    std::uint64_t files_before = 0;
    std::uint64_t freed_files = 0;  // files of the groups removed whole
};

// Scans the opened root, plans, and (unless policy.dry_run) removes, all through its descriptor.
// Errors: a root that looks like no cache without policy.force (invalid_argument), no limit and no
// named group given.
Result<EvictReport> evict_cache(const OpenedRoot& root, const EvictPolicy& policy);
// The same plan as a dry run over a scan already made (the GUI's browser scan): the report
// evict_cache of the scan's root with dry_run gives, without walking the root again (the lock checks
// go through the directory the scan walked, ScanResult::root_fd). `needs`, when given, is what a read
// of the scan's graph entries already saw of them (evict_needs.hpp): those entries are not read again.
Result<EvictReport> evict_dry_run(const ScanResult& scan, const EvictPolicy& policy, const EntryNeeds* needs = nullptr);

// Removes one group of `scan` safely (see above) through `root_fd`, the directory the scan walked.
// `freed` counts what is really gone even when `status` reports a failure (partial removal);
// Errc::busy when its lock is held or it changed since the scan (then nothing is removed).
struct GroupRemoval {
    std::uint64_t freed = 0;
    Status status;
};
GroupRemoval remove_group(int root_fd, const ScanResult& scan, const Group& group);

// The dry run's opening lines: what would go, per category (the groups' main category), biggest first.
struct CategoryTotal {
    Category category = Category::other;
    std::size_t groups = 0;
    std::uint64_t bytes = 0;
};
std::vector<CategoryTotal> totals_by_category(const EvictReport& report);

// What removing the report's .best_config files costs beyond compiling again: the next run of each
// kernel benchmarks its configs again (and re-runs coordinate descent where that found the config,
// `found_by_coordesc`); torch recorded the time that took in `time_taken_ms`.
struct BestConfigLoss {
    std::size_t files = 0;
    std::size_t by_coordesc = 0;
    std::size_t with_time = 0;     // files whose time_taken_ms was read
    std::int64_t recorded_ms = 0;  // their time_taken_ms, summed
};
BestConfigLoss best_config_loss(const EvictReport& report);

// "30d", "12h", "90m", "45s", "2w", "1.5d"; a bare number is seconds. Exact (integer arithmetic);
// negative, malformed or beyond ~292 years is an error, never a wrapped value.
Result<std::int64_t> parse_age_ns(std::string_view text);
// "500M", "2G", "1.5GiB", "100KB", "123B" (bytes), "20" (GB). Like ccache: a bare number is GB, K, M,
// G, T are powers of 1000, Ki, Mi, Gi, Ti powers of 1024, a trailing "B" is allowed, "B" alone means
// bytes. Exact; more than 2^64-1 bytes is an error, never a limit of 0.
Result<std::uint64_t> parse_size(std::string_view text);

}  // namespace kiln::inductor
