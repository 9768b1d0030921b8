#pragma once
// Shared state of one check run (internal to core/health).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "health/health_report.hpp"
#include "inductor/scanner.hpp"

namespace kiln::health::detail {

struct CheckContext {
    const inductor::ScanResult& scan;
    std::unordered_set<std::string_view> rel_paths;  // every file the scan saw
    std::unordered_set<std::string_view> keys;       // every group's and file's key, locks excepted
    std::int64_t now_ns = 0;
    std::int64_t temp_age_ns = 0;

    explicit CheckContext(const inductor::ScanResult& s);
    std::string group_rel(const inductor::Artifact& a) const;
    Problem problem(ProblemKind kind, const inductor::Artifact& a, std::string detail) const;
};

// What the per-file checks of one graph entry found.
struct EntryFindings {
    std::vector<Problem> problems;
    std::optional<UnusedCandidates> unused;
    // torch_version and system_info[version] (Triton's key) as "[hash] value", for the stale check.
    std::string torch_version, system_version;
};

// Graph entries (fxgraph, aotautograd): decode, type, AOT FX keys, unused autotune candidates.
EntryFindings check_graph_entry(const CheckContext& ctx, const inductor::Artifact& a);
// Output code modules: the kernel modules and C++ libraries they load. `main_cpp` maps the
// kernel-source sha256 of every .main.cpp to its relative path without extension.
void check_output_code(const CheckContext& ctx, const inductor::Artifact& a,
                       const std::unordered_map<std::string, std::string>& main_cpp, std::vector<Problem>& out);
// A .main.cpp's kernel-source sha256 (empty when unreadable).
std::string main_cpp_sha(const inductor::Artifact& a);
// Binaries (.so, .o, .cubin): empty or truncated.
void check_binary(const CheckContext& ctx, const inductor::Artifact& a, std::vector<Problem>& out);
// Triton kernel dirs: the files the group files name.
void check_triton_dir(const CheckContext& ctx, const inductor::Group& g, std::vector<Problem>& out);
// Temporaries and locks.
void check_leftover(const CheckContext& ctx, const inductor::Artifact& a, std::vector<Problem>& out);

}  // namespace kiln::health::detail
