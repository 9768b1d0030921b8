#include "health/health_report.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <ostream>

#include "util/cpus.hpp"
#include "util/json_out.hpp"
#include "util/parallel.hpp"

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
    {"triton_kernel_missing",
     "the Triton cache lost a kernel this graph compiled: a hit writes it back from the entry's bundle only "
     "while bundling is on (torch's default outside fbcode); with TORCHINDUCTOR_BUNDLE_TRITON_INTO_FX_GRAPH_CACHE=0, "
     "or where the kernel module is loaded on its own, Triton compiles it again (seconds per kernel)"},
    {"triton_file_missing",
     "the Triton kernel dir is incomplete: Triton treats it as a miss and recompiles, or fails loading it"},
    {"empty_binary", "a zero-length binary: loading it fails (or torch recompiles) on the next run"},
    {"truncated_binary",
     "the ELF file is shorter than its headers say (a half-written build): dlopen / cuModuleLoad fails"},
    {"stale_temp", "a temporary file left by a writer that died more than an hour ago: space, and an inode"},
    {"orphan_lock",
     "a lock file nobody holds, older than an hour, whose key has no files left: an inode nothing will use again"},
    {"unreadable",
     "this user may not read it (permissions), so nothing is known of its health; torch running as this user "
     "cannot use it either. Kiln never quarantines it: fix the permissions or check as its owner"},
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

Problem::Problem(ProblemKind k, std::string p, std::string d, std::string_view group)
    : kind(k), path(std::move(p)), detail(std::move(d)) {
    set_group(group);
}

std::string_view Problem::group() const {
    return group_prefix_ ? std::string_view(path).substr(0, group_prefix_ - 1) : std::string_view(group_other_);
}

void Problem::set_group(std::string_view group) {
    const bool prefix = group.size() <= path.size() && std::string_view(path).substr(0, group.size()) == group &&
                        (group.size() == path.size() || path[group.size()] == '/') &&
                        group.size() < std::numeric_limits<std::uint32_t>::max();
    group_prefix_ = prefix ? static_cast<std::uint32_t>(group.size() + 1) : 0;
    group_other_ = prefix ? std::string() : std::string(group);
}

namespace {

nlohmann::ordered_json report_json(const HealthReport& r, bool with_problems) {
    nlohmann::ordered_json j;
    j["root"] = r.root;
    j["healthy"] = r.problems.empty();
    j["problems"] = nlohmann::ordered_json::array();
    std::array<std::size_t, kProblemKinds> counts{};
    for (const auto& p : r.problems) {
        ++counts[static_cast<std::size_t>(p.kind)];
        if (!with_problems) continue;
        j["problems"].push_back({{"kind", problem_kind_name(p.kind)},
                                 {"path", p.path},
                                 {"detail", p.detail},
                                 {"why", problem_why(p.kind)},
                                 {"group", std::string(p.group())}});
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
    if (!r.unknown.empty()) j["unknown_to_kiln"] = inductor::to_json(r.unknown);
    return j;
}

// One problem as dump_json(…, 2) writes it inside the top-level "problems" array.
void append_problem(std::string& out, const Problem& p) {
    auto field = [&](std::string_view key, std::string_view value, bool last) {
        out += "      \"";
        out += key;
        out += "\": ";
        append_json_string(out, value);
        out += last ? "\n" : ",\n";
    };
    out += "    {\n";
    field("kind", problem_kind_name(p.kind), false);
    field("path", p.path, false);
    field("detail", p.detail, false);
    field("why", problem_why(p.kind), false);
    field("group", p.group(), true);
    out += "    }";
}

}  // namespace

nlohmann::ordered_json to_json(const HealthReport& r) { return report_json(r, true); }

void write_json(std::ostream& os, const HealthReport& r, const nlohmann::ordered_json& extra) {
    nlohmann::ordered_json j = report_json(r, false);
    for (const auto& [k, v] : extra.items()) j[k] = v;
    std::string text = dump_json(j);
    // The problems are written one at a time into the place of the empty array: at a million files
    // they are 100 MB of JSON that is never held whole.
    static constexpr std::string_view kEmpty = "\n  \"problems\": []";
    std::size_t at = text.find(kEmpty);
    if (at == std::string::npos || r.problems.empty()) {
        os << text;
        return;
    }
    std::size_t cut = at + kEmpty.size() - 1;                      // before the ']'
    os.write(text.data(), static_cast<std::streamsize>(cut - 1));  // without the '['
    os << "[\n";
    // Formatted in parallel a round of chunks at a time, written in order: bounded memory.
    constexpr std::size_t kChunk = 4096;
    const std::size_t n = r.problems.size();
    const auto threads = static_cast<unsigned>(std::min<std::size_t>(usable_cpus(), (n + kChunk - 1) / kChunk));
    std::vector<std::string> chunks(threads);
    for (std::size_t round = 0; round < n; round += kChunk * threads) {
        parallel_for(threads, threads, nullptr, [&](std::size_t c) {
            std::string& out = chunks[c];
            out.clear();
            for (std::size_t i = round + c * kChunk; i < std::min(n, round + (c + 1) * kChunk); ++i) {
                append_problem(out, r.problems[i]);
                out += i + 1 < n ? ",\n" : "\n  ";
            }
        });
        for (const auto& c : chunks) os << c;
    }
    os.write(text.data() + cut, static_cast<std::streamsize>(text.size() - cut));
}

}  // namespace kiln::health
