#pragma once
// What `kiln-cli check` finds in a cache root: problems (files a torch.compile run cannot use as
// they are), stale entries (that can never hit on the target, reported apart), and the space
// entries spend on autotune candidates they do not launch (reported, not a problem).
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/newer_torch.hpp"
#include "util/result.hpp"

namespace kiln::health {

enum class ProblemKind : std::uint8_t {
    entry_undecodable,      // a graph entry pickle that does not decode (truncated, corrupt)
    entry_not_graph,        // decodes, but to something that is not a CompiledFxGraph / AOTAutogradResult
    aot_fx_key_missing,     // an AOT entry's forward/backward FX graph is not in the cache
    kernel_module_missing,  // output code launches a Triton kernel whose module file is gone
    cpp_library_missing,    // output code launches a C++ kernel whose .main.so is gone
    triton_kernel_missing,  // a graph entry bundles a Triton kernel whose triton/<device>/<hash>/ dir is gone
    triton_file_missing,    // a Triton kernel dir's group file names a file that is absent
    empty_binary,           // a zero-length .cubin / .so / .o
    truncated_binary,       // an ELF (.so/.o/.cubin) shorter than its headers say
    stale_temp,             // a write_atomic temporary (.<pid>.<tid>.tmp) older than an hour
    orphan_lock,            // locks/<key>.lock (or a PGO profile's .lock) whose key has no files left
    unreadable,             // a file or folder this user may not read: nothing known of it, never quarantined
};
inline constexpr std::size_t kProblemKinds = static_cast<std::size_t>(ProblemKind::unreadable) + 1;

std::string_view problem_kind_name(ProblemKind k);
std::optional<ProblemKind> problem_kind_from_name(std::string_view name);
// One sentence for a reader who meets the kind cold: what the user loses.
std::string_view problem_why(ProblemKind k);

struct Problem {
    ProblemKind kind = ProblemKind::entry_undecodable;
    std::string path;    // relative to the root: the file at fault (or the one that names a missing file)
    std::string detail;  // what exactly: the decoder's error, the missing file, the sizes

    Problem() = default;
    Problem(ProblemKind k, std::string p, std::string d, std::string_view group);
    // Relative path of the group quarantine moves (the key dir, kernel dir, module). Most often `path`'s
    // dir or `path` itself: then kept as a length into `path`, not a second string (a broken million-file
    // cache has hundreds of thousands of problems).
    std::string_view group() const;
    void set_group(std::string_view group);

private:
    std::uint32_t group_prefix_ = 0;  // the group is path.substr(0, group_prefix_ - 1); 0: group_other_
    std::string group_other_;
};

struct StaleComponent {
    std::string component;  // "torch_version", "system_info[device]", ...
    std::string cached;
    std::string target;
};

struct StaleEntry {
    std::string path;   // relative: the entry file
    std::string group;  // its key dir
    std::vector<StaleComponent> differs;
};

struct UnusedCandidates {
    std::string path;  // relative: the fxgraph entry
    std::size_t bundled = 0;
    std::size_t unused = 0;
    std::uint64_t unused_bytes = 0;
};

struct HealthReport {
    std::string root;
    std::string stale_against;  // "newest torch/Triton in the cache" or the target's label
    std::vector<Problem> problems;
    std::vector<StaleEntry> stale;
    std::vector<UnusedCandidates> unused;
    std::uint64_t files = 0;
    std::uint64_t groups = 0;
    std::uint64_t graph_entries = 0;
    std::uint64_t quarantine_bytes = 0;
    std::uint64_t quarantine_files = 0;
    std::uint64_t unreadable = 0;
    // What torch 2.11 does not write (Kiln's facts are 2.11's): never a problem, named as such.
    inductor::UnknownToKiln unknown;

    std::uint64_t unused_bytes() const;
    // Problems (and, with strict, stale entries) that make the check fail.
    bool healthy(bool strict = false) const { return problems.empty() && (!strict || stale.empty()); }
};

// {"root", "healthy", "problems": [{"kind", "path", "detail", "why", "group"}], "stale_against",
//  "stale": [{"path", "group", "differs": [{"component", "cached", "target"}]}], "unused_candidates":
//  {"bytes", "entries": [...]}, "counts": {kind: n}, "files", "graph_entries", "quarantine": {...}}
nlohmann::ordered_json to_json(const HealthReport& r);
// dump_json(to_json(r) with `extra`'s fields added), byte for byte, written without building the
// problems' JSON values (a million-file cache has hundreds of thousands).
void write_json(std::ostream& out, const HealthReport& r,
                const nlohmann::ordered_json& extra = nlohmann::ordered_json::object());

}  // namespace kiln::health
