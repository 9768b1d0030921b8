#pragma once
// LRU eviction of whole groups, the way `ccache --evict-older-than` / `--max-size` trim ccache:
// an fxgraph key dir, a Triton kernel dir, a module with its sidecars go together or not at all.
// Safety: nothing outside the root is touched, no symlink is followed (a link inside a group is
// removed as a link), a group whose locks/<key>.lock is held (flock) by another process is skipped.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inductor/scanner.hpp"
#include "util/result.hpp"

namespace kiln::inductor {

struct EvictPolicy {
    std::optional<std::int64_t> older_than_ns;  // remove groups whose last use is older than now - this
    std::optional<std::uint64_t> max_bytes;     // remove LRU groups until the cache is at most this big
    std::vector<Category> categories;           // only groups whose main category is listed (empty: all but lock)
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
};

struct SkippedGroup {
    std::string path;
    std::string reason;
};

struct EvictReport {
    std::string root;
    bool dry_run = true;
    std::vector<EvictedGroup> removed;  // in a dry run: what would be removed
    std::vector<SkippedGroup> skipped;
    std::uint64_t freed_bytes = 0;
    std::uint64_t bytes_before = 0;
};

// Scans `root`, plans, and (unless policy.dry_run) removes. Errors: a missing root (not_found), a root
// that looks like no cache without policy.force (invalid_argument), neither limit given.
Result<EvictReport> evict_cache(const std::string& root, const EvictPolicy& policy);

// Removes one group of `scan` safely (see above). Returns the bytes removed, Errc::busy if its lock is held.
Result<std::uint64_t> remove_group(const ScanResult& scan, const Group& group);

// "30d", "12h", "90m", "45s", "2w", "1.5d"; a bare number is seconds.
Result<std::int64_t> parse_age_ns(std::string_view text);
// "500M", "2G", "1.5GiB", "100KB", "123" (bytes). Like ccache: K, M, G, T are powers of 1000,
// Ki, Mi, Gi, Ti powers of 1024; a trailing "B" is allowed.
Result<std::uint64_t> parse_size(std::string_view text);

}  // namespace kiln::inductor
