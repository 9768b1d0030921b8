#include "inductor/guard_lookup.hpp"

#include <algorithm>
#include <functional>

#include "guards/expr.hpp"
#include "inductor/beneath_root.hpp"
#include "pickle/buffer.hpp"
#include "util/regular_file.hpp"

namespace kiln::inductor {

Result<std::vector<std::filesystem::path>> key_dir_entries(const std::filesystem::path& key_dir) {
    std::error_code ec;
    std::vector<std::filesystem::path> out;
    std::filesystem::directory_iterator it(key_dir, ec);
    if (ec) return io_error("list", key_dir.string(), ec.value());
    for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
        if (ec) return io_error("list", key_dir.string(), ec.value());
        std::string name = it->path().filename().string();
        if (name.empty() || name[0] == '.') continue;  // torch skips dot-names (and our temp files)
        if (!it->is_regular_file(ec)) continue;
        out.push_back(it->path());
    }
    // Python's sorted() on str compares code points: the same order as bytes of UTF-8.
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.filename().string() < b.filename().string(); });
    return out;
}

Result<std::vector<std::string>> key_dir_entries(const OpenedRoot& root, std::string_view rel_key_dir) {
    auto listed = list_beneath(root, rel_key_dir);
    if (!listed) return listed.error();
    std::vector<std::string> out;
    for (const auto& e : *listed)
        if (e.regular && e.name[0] != '.') out.push_back(std::string(rel_key_dir) + "/" + e.name);
    std::sort(out.begin(), out.end());  // one directory: the names' order
    return out;
}

Result<GuardCheck> check_entry_guards(const GraphEntry& entry, std::string file, std::span<const std::int64_t> sizes) {
    GuardCheck c;
    c.file = std::move(file);
    if (!entry.is_fx_graph() && !entry.is_aot_autograd())
        return make_error(Errc::parse,
                          "not a graph entry: the pickle builds " + entry.type() +
                              ", which torch would run while loading it; Kiln never does",
                          c.file, "a cache dir should hold only what torch wrote; check where this file came from");
    pickle::Ref g = entry.field("guards_expr");
    if (g && g->kind() != pickle::Kind::none && g->kind() != pickle::Kind::string)
        return make_error(Errc::parse,
                          std::string("guards_expr is not a string but ") + pickle::kind_name(g->kind()) +
                              ": torch would fail on this entry, not one it wrote",
                          c.file);
    c.guards_expr = entry.guards_expr();
    if (!c.guards_expr || c.guards_expr->empty()) {
        c.pass = true;
        return c;
    }
    auto parsed = guards::Expr::parse(*c.guards_expr);
    if (!parsed) return std::move(parsed.error()).with_context(c.file);
    auto verdict = parsed->check(sizes);
    if (!verdict) return std::move(verdict.error()).with_context(c.file);
    c.pass = verdict->pass;
    c.failing = verdict->failing;
    return c;
}

namespace {

// The lookup over a key dir's `files` (paths as errors name them), each decoded by `load`; `single`:
// one entry file named alone (its error is the lookup's).
Result<GuardLookup> lookup_files(const std::vector<std::string>& files, bool single,
                                 const std::function<Result<GraphEntry>(const std::string& file)>& load,
                                 std::span<const std::int64_t> sizes) {
    GuardLookup out;
    int holding = 0;
    for (const auto& path : files) {
        const std::filesystem::path f = path;
        auto checked = [&]() -> Result<GuardCheck> {
            KILN_TRY(GraphEntry entry, load(path));
            return check_entry_guards(entry, f.filename().string(), sizes);
        }();
        if (!checked) {
            // Too few sizes is the caller's mistake, not the entry's: the whole lookup fails.
            if (single || checked.error().code == Errc::not_found) return std::move(checked.error());
            GuardCheck bad;
            bad.file = f.filename().string();
            // The file is named beside the reason: keep the rest of the context (byte offset, opcode).
            Error e = std::move(checked.error());
            for (const std::string& prefix : {f.string(), bad.file})
                if (e.context.starts_with(prefix)) e.context.erase(0, std::min(e.context.size(), prefix.size() + 2));
            bad.error = e.str();
            out.entries.push_back(std::move(bad));
            continue;
        }
        GuardCheck c = std::move(*checked);
        if (c.pass) {
            ++holding;
            if (!out.served) out.served = c.file;
        }
        out.entries.push_back(std::move(c));
    }
    out.ambiguous = holding > 1;
    return out;
}
}  // namespace

Result<GuardLookup> lookup_guards(const std::filesystem::path& path, std::span<const std::int64_t> sizes) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(path, ec)) {
        KILN_TRY(files, key_dir_entries(path));
        if (files.empty())
            return make_error(Errc::not_found, "no cache entries in the key dir", path.string(),
                              "expected fxgraph/<xx>/<key>/ holding entry files");
    } else if (std::filesystem::is_regular_file(path, ec)) {
        files.push_back(path);
    } else {
        return wrong_path_error(path, "no such key dir or entry");
    }
    const bool single = files.size() == 1 && !std::filesystem::is_directory(path, ec);
    std::vector<std::string> names;
    for (const auto& f : files) names.push_back(f.string());
    return lookup_files(
        names, single, [](const std::string& f) { return load_graph_entry(f); }, sizes);
}

Result<GuardLookup> lookup_guards(const OpenedRoot& root, std::string_view rel_key_dir,
                                  std::span<const std::int64_t> sizes) {
    const std::string dir = path_beneath(root, rel_key_dir);
    if (!is_directory_beneath(root, rel_key_dir)) return wrong_path_error(dir, "no such key dir or entry");
    KILN_TRY(auto rels, key_dir_entries(root, rel_key_dir));
    if (rels.empty())
        return make_error(Errc::not_found, "no cache entries in the key dir", dir,
                          "expected fxgraph/<xx>/<key>/ holding entry files");
    std::vector<std::string> names;
    for (const auto& r : rels) names.push_back(path_beneath(root, r));
    const std::size_t prefix = dir.size() + 1;
    return lookup_files(
        names, false,
        [&](const std::string& f) -> Result<GraphEntry> {
            const std::string rel = std::string(rel_key_dir) + "/" + f.substr(prefix);
            KILN_TRY(OpenedFile file, open_beneath(root, rel));
            KILN_TRY(auto buffer, pickle::load_opened_file(file, f));
            return decode_graph_entry(std::move(buffer));
        },
        sizes);
}

namespace {
nlohmann::ordered_json or_null(const std::optional<std::string>& s) {
    return s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json();
}
}  // namespace

nlohmann::ordered_json to_json(const GuardLookup& lookup) {
    nlohmann::ordered_json j;
    j["entries"] = nlohmann::ordered_json::array();
    for (const auto& e : lookup.entries) {
        nlohmann::ordered_json x = {{"file", e.file},
                                    {"guards_expr", or_null(e.guards_expr)},
                                    {"pass", e.pass},
                                    {"failing", or_null(e.failing)}};
        if (e.error) x["error"] = *e.error;  // skipped, as torch skips it
        j["entries"].push_back(std::move(x));
    }
    j["served"] = or_null(lookup.served);
    j["ambiguous"] = lookup.ambiguous;
    return j;
}

}  // namespace kiln::inductor
