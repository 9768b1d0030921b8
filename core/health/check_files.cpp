// File-level checks: binaries against their ELF headers, Triton kernel dirs against their group
// files, temporaries and locks left behind.
#include <algorithm>
#include <functional>

#include <nlohmann/json.hpp>

#include "codecache/artifact_check.hpp"
#include "health/check_context.hpp"
#include "util/regular_file.hpp"

namespace kiln::health::detail {

using inductor::Artifact;
using inductor::Category;

std::uint64_t HashSet::hash(std::string_view s) { return std::hash<std::string_view>{}(s); }

void HashSet::seal() {
    std::sort(hashes_.begin(), hashes_.end());
    hashes_.erase(std::unique(hashes_.begin(), hashes_.end()), hashes_.end());
    hashes_.shrink_to_fit();
}

bool HashSet::contains(std::string_view s) const { return std::binary_search(hashes_.begin(), hashes_.end(), hash(s)); }

Found found(ProblemKind kind, const Artifact& a, std::string detail) {
    return Found{kind, std::string(a.rel_path()), std::move(detail), a.group};
}

Found missing(const Ref& ref, const Found& owner) {
    Found f{ref.kind, owner.path, {}, owner.group};
    switch (ref.kind) {
        case ProblemKind::aot_fx_key_missing:
            f.detail = ref.what + " graph " + ref.target + " is not in fxgraph/";
            break;
        case ProblemKind::triton_kernel_missing:
            f.detail = "Triton kernel " + (ref.what.empty() ? std::string("?") : ref.what) + ": " + ref.target +
                       "/ is missing (bundled in this entry)";
            break;
        default: f.detail = "Triton kernel " + ref.what + ": " + ref.target + " is missing"; break;
    }
    return f;
}

namespace {

std::string_view extension(std::string_view path) {
    auto slash = path.rfind('/');
    auto dot = path.rfind('.');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
    return path.substr(dot + 1);
}

}  // namespace

bool is_binary_name(std::string_view rel) {
    auto ext = extension(rel);
    return ext == "so" || ext == "o" || ext == "cubin";
}

void check_binary(const Artifact& a, FoundList& out) {
    std::string ext(extension(a.rel_path()));
    if (ext != "so" && ext != "o" && ext != "cubin") return;
    if (a.size == 0) {
        out.push_back(found(ProblemKind::empty_binary, a, "0 bytes"));
        return;
    }
    // Reads the ELF header only (64 bytes), whatever the file's size.
    std::string why = codecache::artifact_problem(a.path, ext);
    if (why.empty() || why == "missing") return;  // gone since the scan: nothing left to be wrong
    out.push_back(found(why == "empty" ? ProblemKind::empty_binary : ProblemKind::truncated_binary, a, why));
}

void check_triton_dir(const std::vector<Artifact>& groups, const std::vector<std::string>& names, FoundList& out) {
    for (const Artifact& a : groups) {
        auto text = read_regular_file(a.path, 1 << 20);
        if (!text) continue;  // gone or unreadable since the scan: counted by the scanner
        auto j = nlohmann::json::parse(*text, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("child_paths") || !j["child_paths"].is_object()) {
            out.push_back(found(ProblemKind::triton_file_missing, a, "the group file is not Triton's JSON"));
            continue;
        }
        // child_paths name files by absolute paths of the machine that wrote them: the name is what counts.
        for (const auto& [child, where] : j["child_paths"].items()) {
            (void)where;
            if (child.find('/') != std::string::npos) continue;
            if (std::find(names.begin(), names.end(), child) == names.end())
                out.push_back(found(ProblemKind::triton_file_missing, a, child + " is missing"));
        }
    }
}

void check_temp(const Artifact& a, std::int64_t now_ns, std::int64_t age_ns, FoundList& out) {
    std::int64_t age = now_ns - a.mtime_ns;
    if (age > age_ns)
        out.push_back(found(ProblemKind::stale_temp, a, "written " + std::to_string(age / 3600000000000LL) + " h ago"));
}

void check_lock(const Artifact& a, const HashSet& keys, const HashSet& paths, FoundList& out) {
    std::string_view rel = a.rel_path();
    if (rel.substr(0, 6) == "locks/") {
        if (!a.key().empty() && !keys.contains(a.key()))
            out.push_back(found(ProblemKind::orphan_lock, a, "no file of key " + std::string(a.key()) + " is left"));
        return;
    }
    // dynamo/code_state_<...>.pkl.lock guards the PGO profile beside it.
    if (rel.substr(0, 7) == "dynamo/" && rel.size() > 9 && rel.substr(rel.size() - 9) == ".pkl.lock") {
        std::string profile(rel.substr(0, rel.size() - 5));
        if (!paths.contains(profile)) out.push_back(found(ProblemKind::orphan_lock, a, profile + " is gone"));
    }
}

}  // namespace kiln::health::detail
