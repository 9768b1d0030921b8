#include "health/health_report.hpp"

#include <array>

namespace kiln::health {

namespace {

struct KindInfo {
    std::string_view name;
    std::string_view why;
};

constexpr std::array<KindInfo, kProblemKinds> kKinds{{
    {"entry_undecodable",
     "torch cannot load this entry: every run that would hit it recompiles the graph (and may log a cache error)"},
    {"entry_not_graph", "the file is not a graph entry torch can use: a lookup that finds it recompiles"},
    {"aot_fx_key_missing",
     "the AOT entry's compiled forward/backward graph is gone: a hit on it falls back to a full recompile"},
    {"kernel_module_missing",
     "a kernel module the output code imports is gone: torch rewrites it from the inline source and "
     "recompiles the Triton kernel (seconds per kernel on every cold start)"},
    {"cpp_library_missing",
     "a C++ kernel library the output code loads is gone: torch rebuilds it with the C++ "
     "compiler on the next run"},
    {"triton_file_missing",
     "the Triton kernel dir is incomplete: Triton treats it as a miss and recompiles, or fails loading it"},
    {"empty_binary", "a zero-length binary: loading it fails (or torch recompiles) on the next run"},
    {"truncated_binary",
     "the ELF file is shorter than its headers say (a half-written build): dlopen / cuModuleLoad fails"},
    {"stale_temp", "a temporary file left by a writer that died more than an hour ago: space, and an inode"},
    {"orphan_lock", "a lock file whose key has no files left: an inode nothing will use again"},
}};

}  // namespace

std::string_view problem_kind_name(ProblemKind k) { return kKinds[static_cast<std::size_t>(k)].name; }
std::string_view problem_why(ProblemKind k) { return kKinds[static_cast<std::size_t>(k)].why; }

std::optional<ProblemKind> problem_kind_from_name(std::string_view name) {
    for (std::size_t i = 0; i < kProblemKinds; ++i)
        if (kKinds[i].name == name) return static_cast<ProblemKind>(i);
    return std::nullopt;
}

std::uint64_t HealthReport::unused_bytes() const {
    std::uint64_t sum = 0;
    for (const auto& u : unused) sum += u.unused_bytes;
    return sum;
}

nlohmann::ordered_json to_json(const HealthReport& r) {
    nlohmann::ordered_json j;
    j["root"] = r.root;
    j["healthy"] = r.problems.empty();
    j["problems"] = nlohmann::ordered_json::array();
    std::array<std::size_t, kProblemKinds> counts{};
    for (const auto& p : r.problems) {
        ++counts[static_cast<std::size_t>(p.kind)];
        j["problems"].push_back({{"kind", problem_kind_name(p.kind)},
                                 {"path", p.path},
                                 {"detail", p.detail},
                                 {"why", problem_why(p.kind)},
                                 {"group", p.group}});
    }
    nlohmann::ordered_json c = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < kProblemKinds; ++i)
        if (counts[i]) c[std::string(kKinds[i].name)] = counts[i];
    j["counts"] = c;
    j["stale_against"] = r.stale_against;
    j["stale"] = nlohmann::ordered_json::array();
    for (const auto& s : r.stale) {
        nlohmann::ordered_json d = nlohmann::ordered_json::array();
        for (const auto& x : s.differs)
            d.push_back({{"component", x.component}, {"cached", x.cached}, {"target", x.target}});
        j["stale"].push_back({{"path", s.path}, {"group", s.group}, {"differs", d}});
    }
    nlohmann::ordered_json u = nlohmann::ordered_json::array();
    for (const auto& e : r.unused)
        u.push_back({{"path", e.path}, {"bundled", e.bundled}, {"unused", e.unused}, {"unused_bytes", e.unused_bytes}});
    j["unused_candidates"] = {{"bytes", r.unused_bytes()}, {"entries", u}};
    j["files"] = r.files;
    j["groups"] = r.groups;
    j["graph_entries"] = r.graph_entries;
    j["unreadable"] = r.unreadable;
    j["quarantine"] = {{"files", r.quarantine_files}, {"bytes", r.quarantine_bytes}};
    return j;
}

}  // namespace kiln::health
