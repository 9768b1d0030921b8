// kiln-cli guards: evaluate guard expressions like torch's cache lookup (§5), without Python.
//   guards --expr EXPR --sizes 8,1024          one expression
//   guards ENTRY_REF --sizes V0,V1,...         which entry of a key dir (or an entry, or a remote
//                                              entry redis://…/KEY) torch would serve
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "command_registry.hpp"
#include "guards/expr.hpp"
#include "inductor/graph_list.hpp"
#include "inductor/guard_lookup.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

struct GuardsArgs {
    std::string path;
    std::string root;  // where a key prefix is looked up
    std::string expr;
    std::string sizes;
    bool json = false;
};

// "8,1024" -> {8, 1024}; spaces allowed, empty means no sizes.
Result<std::vector<std::int64_t>> parse_sizes(const std::string& text) {
    std::vector<std::int64_t> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        std::string item = text.substr(pos, comma - pos);
        auto b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
        item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
        std::int64_t v = 0;
        auto res = std::from_chars(item.data(), item.data() + item.size(), v);
        if (item.empty() || res.ec != std::errc() || res.ptr != item.data() + item.size())
            return make_error(Errc::invalid_argument, "not an integer size: '" + item + "'", "--sizes",
                              "sizes are comma-separated integers for t0, t1, ...: --sizes 8,1024");
        out.push_back(v);
        pos = comma + 1;
    }
    return out;
}

int run_expr(const GuardsArgs& a, const std::vector<std::int64_t>& sizes) {
    auto expr = guards::Expr::parse(a.expr);
    if (!expr) return fail(frontend::as_bad_input(expr.error()));  // the expression is the argument
    auto v = expr->check(sizes);
    if (!v) return fail(v.error());
    if (a.json) std::cout << dump_json(to_json(*v)) << "\n";
    else std::printf("%s\n", v->pass ? "pass" : ("fail: " + *v->failing).c_str());
    return 0;
}

// A key prefix's key dir is read beneath the cache it was looked up in (issue 44), anything else as named.
int run_lookup(const GuardsArgs& a, const frontend::ResolvedEntryRef& resolved,
               const std::vector<std::int64_t>& sizes) {
    auto r = resolved.cache ? inductor::lookup_guards(resolved.cache->opened(), resolved.key_dir, sizes)
                            : frontend::lookup_entry_guards(resolved.ref, sizes, remote_fetch());
    if (!r) return fail(resolved.cache ? frontend::in_given_terms(*resolved.cache, r.error()) : r.error());
    if (a.json) {
        std::cout << dump_json(to_json(*r)) << "\n";
        return 0;
    }
    for (const auto& e : r->entries) {
        if (e.error) {
            std::printf("bad   %s\n      skipped: %s\n", e.file.c_str(), e.error->c_str());
            continue;
        }
        std::printf("%s  %s\n", e.pass ? "hold" : "fail", e.file.c_str());
        std::printf("      guards: %s\n", e.guards_expr ? e.guards_expr->c_str() : "null");
        if (e.failing) std::printf("      failing: %s\n", e.failing->c_str());
    }
    if (r->served) {
        std::printf("served: %s%s\n", r->served->c_str(),
                    r->ambiguous ? "  (several entries hold; the sorted file-name order decides)" : "");
    } else {
        std::printf("served: none (a cache miss: no entry's guards hold)\n");
    }
    return 0;
}

// No sizes: each entry's guards and the symbols they use (the graph inputs t0, t1, ... stand for). A key
// prefix's key dir is listed beneath the cache it was looked up in (issue 44), anything else as named.
int run_list(const GuardsArgs& a, const frontend::ResolvedEntryRef& resolved) {
    auto rows = resolved.cache ? inductor::list_key_dir(resolved.cache->opened(), resolved.key_dir)
                               : inductor::list_key_dir(resolved.ref.path);
    if (!rows) return fail(resolved.cache ? frontend::in_given_terms(*resolved.cache, rows.error()) : rows.error());
    if (a.json) {
        inductor::GraphList list;
        list.rows = *rows;
        std::cout << dump_json(inductor::to_json(list)) << "\n";
        return 0;
    }
    for (const auto& r : *rows) {
        std::printf("%s\n", r.file.c_str());
        if (!r.error.empty()) {
            std::printf("      unreadable: %s\n", r.error.c_str());
            continue;
        }
        std::printf("      guards: %s\n", r.guards ? r.guards->c_str() : "none (always served)");
        for (const auto& s : inductor::symbols_used(r))
            std::printf("      %s = %s (a SymInt input of the graph)\n", s.name.c_str(), s.symbol.c_str());
    }
    std::printf("(--sizes V0,V1,... evaluates them: which entry torch would serve)\n");
    return 0;
}

int run_guards(const GuardsArgs& a) {
    if (a.expr.empty() == a.path.empty())
        return fail(make_error(Errc::invalid_argument, "give either --expr EXPR or a KEYDIR_OR_ENTRY", "guards"));
    auto sizes = parse_sizes(a.sizes);
    if (!sizes) return fail(sizes.error());
    if (!a.expr.empty()) return run_expr(a, *sizes);
    // A key prefix as `ls` prints it names its key dir under --root (default: the default root).
    auto r = frontend::resolve_entry_ref(a.path,
                                         a.root.empty() ? std::nullopt : std::optional<std::filesystem::path>(a.root));
    if (!r) return fail(r.error());
    if (a.sizes.empty() && r->ref.kind == frontend::EntryRef::Kind::path) return run_list(a, *r);
    return run_lookup(a, *r, *sizes);
}

Registration guards_command{
    "guards", 40, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<GuardsArgs>();
        auto* cmd =
            app.add_subcommand("guards", "Evaluate guards: which cached entry of a key dir would serve these sizes");
        cmd->add_option("KEYDIR_OR_ENTRY", args->path,
                        "An fxgraph key dir (fxgraph/<xx>/<key>), its key as `ls` prints it (a prefix), one entry "
                        "file, or a remote entry redis://host:port[/db]/KEY (would it serve these sizes?)");
        cmd->add_option("--root", args->root,
                        "The cache root or blob a key prefix (as `ls` prints it) is looked up in (default: as `ls`)");
        cmd->add_option("--expr", args->expr, "Evaluate this guard expression instead, e.g. \"2 <= L['t0']\"");
        cmd->add_option("--sizes", args->sizes, "Values of t0,t1,... (the graph's SymInt inputs), e.g. 8,1024");
        cmd->add_flag("--json", args->json, "Print JSON");
        cmd->callback([args, &outcome] { outcome.exit_code = run_guards(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
