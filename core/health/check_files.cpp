// File-level checks: binaries against their ELF headers, Triton kernel dirs against their group
// files, temporaries and locks left behind.
#include <nlohmann/json.hpp>

#include "codecache/artifact_check.hpp"
#include "health/check_context.hpp"
#include "util/regular_file.hpp"

namespace kiln::health::detail {

using inductor::Artifact;
using inductor::Category;

CheckContext::CheckContext(const inductor::ScanResult& s) : scan(s) {
    rel_paths.reserve(s.artifacts.size());
    for (const auto& a : s.artifacts) {
        rel_paths.insert(a.rel_path());
        if (a.category != Category::lock && !a.key.empty()) keys.insert(a.key);
    }
    for (const auto& g : s.groups)
        if (g.category != Category::lock && !g.key.empty()) keys.insert(g.key);
}

std::string CheckContext::group_rel(const Artifact& a) const {
    if (a.group == inductor::kNoGroup) return std::string(a.rel_path());
    const std::string& p = scan.groups[a.group].path;
    return p.size() > scan.root.size() + 1 ? p.substr(scan.root.size() + 1) : p;
}

Problem CheckContext::problem(ProblemKind kind, const Artifact& a, std::string detail) const {
    return Problem{kind, std::string(a.rel_path()), std::move(detail), group_rel(a)};
}

namespace {

std::string_view extension(std::string_view path) {
    auto slash = path.rfind('/');
    auto dot = path.rfind('.');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
    return path.substr(dot + 1);
}

std::string_view base_name(std::string_view path) {
    auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

void check_binary(const CheckContext& ctx, const Artifact& a, std::vector<Problem>& out) {
    std::string ext(extension(a.rel_path()));
    if (ext != "so" && ext != "o" && ext != "cubin") return;
    if (a.size == 0) {
        out.push_back(ctx.problem(ProblemKind::empty_binary, a, "0 bytes"));
        return;
    }
    // Reads the ELF header only (64 bytes), whatever the file's size.
    std::string why = codecache::artifact_problem(a.path, ext);
    if (why.empty() || why == "missing") return;  // gone since the scan: nothing left to be wrong
    out.push_back(ctx.problem(why == "empty" ? ProblemKind::empty_binary : ProblemKind::truncated_binary, a, why));
}

void check_triton_dir(const CheckContext& ctx, const inductor::Group& g, std::vector<Problem>& out) {
    std::string dir_rel = g.path.substr(ctx.scan.root.size() + 1);
    for (auto index : g.artifacts) {
        const Artifact& a = ctx.scan.artifacts[index];
        std::string_view name = base_name(a.rel_path());
        if (name.substr(0, 7) != "__grp__" || extension(name) != "json") continue;
        auto text = read_regular_file(a.path, 1 << 20);
        if (!text) continue;  // gone or unreadable since the scan: counted by the scanner
        auto j = nlohmann::json::parse(*text, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("child_paths") || !j["child_paths"].is_object()) {
            out.push_back(ctx.problem(ProblemKind::triton_file_missing, a, "the group file is not Triton's JSON"));
            continue;
        }
        // child_paths name files by absolute paths of the machine that wrote them: the name is what counts.
        for (const auto& [child, where] : j["child_paths"].items()) {
            (void)where;
            if (child.find('/') != std::string::npos) continue;
            std::string rel = dir_rel + "/" + child;
            if (!ctx.rel_paths.count(rel))
                out.push_back(ctx.problem(ProblemKind::triton_file_missing, a, child + " is missing"));
        }
    }
}

void check_leftover(const CheckContext& ctx, const Artifact& a, std::vector<Problem>& out) {
    if (a.category == Category::temp) {
        std::int64_t age = ctx.now_ns - a.mtime_ns;
        if (age > ctx.temp_age_ns)
            out.push_back(
                ctx.problem(ProblemKind::stale_temp, a, "written " + std::to_string(age / 3600000000000LL) + " h ago"));
        return;
    }
    if (a.category != Category::lock) return;
    std::string_view rel = a.rel_path();
    if (rel.substr(0, 6) == "locks/") {
        if (!a.key.empty() && !ctx.keys.count(a.key))
            out.push_back(ctx.problem(ProblemKind::orphan_lock, a, "no file of key " + a.key + " is left"));
        return;
    }
    // dynamo/code_state_<...>.pkl.lock guards the PGO profile beside it.
    if (rel.substr(0, 7) == "dynamo/" && rel.size() > 9 && rel.substr(rel.size() - 9) == ".pkl.lock") {
        std::string profile(rel.substr(0, rel.size() - 5));
        if (!ctx.rel_paths.count(profile))
            out.push_back(ctx.problem(ProblemKind::orphan_lock, a, profile + " is gone"));
    }
}

}  // namespace kiln::health::detail
