#pragma once
// What `kiln-cli stats` and the GUI's overview show: per category files, entries and bytes.
#include <array>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "inductor/newer_torch.hpp"
#include "inductor/scanner.hpp"

namespace kiln::inductor {

struct CategoryStats {
    std::uint64_t files = 0;
    std::uint64_t entries = 0;  // files, except triton_compiled: kernel directories
    std::uint64_t bytes = 0;
};

struct CacheStats {
    std::string root;
    RootKind kind = RootKind::inductor;
    std::array<CategoryStats, kCategoryCount> categories{};
    std::uint64_t fxgraph_keys = 0;  // fxgraph key directories
    std::uint64_t total_files = 0;
    std::uint64_t total_bytes = 0;
    std::uint64_t groups = 0;
    std::uint64_t unreadable = 0;
    std::uint64_t quarantine_files = 0;  // <root>/.kiln-quarantine/ (kiln-cli check --quarantine): not in the totals
    std::uint64_t quarantine_bytes = 0;
    std::int64_t oldest_mtime_ns = 0;  // 0 when the cache is empty
    std::int64_t newest_mtime_ns = 0;
    UnknownToKiln unknown;  // files torch 2.11 does not write; its key components are read by the caller

    const CategoryStats& operator[](Category c) const { return categories[static_cast<std::size_t>(c)]; }
};

CacheStats compute_stats(const ScanResult& scan);

// The same without keeping the file list: one streaming walk whose memory grows with the number of
// groups, not of files (`kiln-cli stats` at a million files). `scan` holds the groups and the
// unreadable count; its artifacts are empty.
struct StatsScan {
    CacheStats stats;
    ScanResult scan;
};
Result<StatsScan> scan_stats(const OpenedRoot& root, ScanOptions options = {});

// Exactly {"root", "categories": {name: {"files", "entries", "bytes"}}, "fxgraph_keys",
// "total": {"files", "bytes"}, "unreadable"}, plus "quarantine": {"files", "bytes"} when there is one;
// categories without files are left out; "unknown_to_kiln" (newer_torch.hpp) when there is any.
nlohmann::ordered_json to_json(const CacheStats& stats);

// "63.9 MB" (powers of 1000, like ccache -s); "0 B", "512 B".
std::string format_bytes(std::uint64_t bytes);
// "2026-11-26 01:15:02 UTC"; "-" for 0.
std::string format_time_utc(std::int64_t ns);

}  // namespace kiln::inductor
