// kiln-cli guards: evaluate guard expressions like torch's cache lookup (§5), without Python.
//   guards --expr EXPR --sizes 8,1024          one expression
//   guards KEYDIR_OR_ENTRY --sizes V0,V1,...   which entry of a key dir torch would serve
#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "guards/expr.hpp"
#include "inductor/guard_lookup.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/local_copy.hpp"
#include "remote/redis_url.hpp"
#endif

namespace kiln::cli {
namespace {

struct GuardsArgs {
    std::string path;
    std::string expr;
    std::string sizes;
    bool json = false;
};

int exit_code_for(const Error& e) {
    switch (e.code) {
        case Errc::parse:
        case Errc::not_found:
        case Errc::invalid_argument: return 2;
        default: return 1;
    }
}

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

std::string json_or_null(const std::optional<std::string>& s) { return s ? *s : "null"; }

int run_expr(const GuardsArgs& a, const std::vector<std::int64_t>& sizes) {
    auto expr = guards::Expr::parse(a.expr);
    if (!expr) return report_error(expr.error(), 2);
    auto v = expr->check(sizes);
    if (!v) return report_error(v.error(), exit_code_for(v.error()));
    if (a.json) {
        nlohmann::ordered_json j;
        j["pass"] = v->pass;
        j["failing"] = v->failing ? nlohmann::ordered_json(*v->failing) : nlohmann::ordered_json(nullptr);
        std::cout << j.dump(2) << "\n";
    } else {
        std::printf("%s\n", v->pass ? "pass" : ("fail: " + *v->failing).c_str());
    }
    return 0;
}

int run_lookup(const GuardsArgs& a, const std::vector<std::int64_t>& sizes) {
    std::string path = a.path;
    std::string origin;  // a remote entry: shown instead of its private local copy
#ifdef KILN_HAVE_REMOTE
    std::optional<remote::LocalCopy> keep;
    if (remote::is_redis_url(path)) {
        if (auto st = remote::localize(path, keep); !st.ok()) return report_error(st.error(), exit_code_for(st.error()));
        origin = keep->origin();
    }
#endif
    auto r = inductor::lookup_guards(path, sizes);
    if (!r) return report_error(r.error(), exit_code_for(r.error()));
    if (!origin.empty()) {
        for (auto& e : r->entries) e.file = origin;
        if (r->served) r->served = origin;
    }
    if (a.json) {
        nlohmann::ordered_json j;
        j["entries"] = nlohmann::ordered_json::array();
        for (const auto& e : r->entries) {
            nlohmann::ordered_json x;
            x["file"] = e.file;
            x["guards_expr"] = e.guards_expr ? nlohmann::ordered_json(*e.guards_expr) : nlohmann::ordered_json(nullptr);
            x["pass"] = e.pass;
            x["failing"] = e.failing ? nlohmann::ordered_json(*e.failing) : nlohmann::ordered_json(nullptr);
            if (e.error) x["error"] = *e.error;
            j["entries"].push_back(std::move(x));
        }
        j["served"] = r->served ? nlohmann::ordered_json(*r->served) : nlohmann::ordered_json(nullptr);
        j["ambiguous"] = r->ambiguous;
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    for (const auto& e : r->entries) {
        if (e.error) {
            std::printf("bad   %s\n      skipped: %s\n", e.file.c_str(), e.error->c_str());
            continue;
        }
        std::printf("%s  %s\n", e.pass ? "hold" : "fail", e.file.c_str());
        std::printf("      guards: %s\n", json_or_null(e.guards_expr).c_str());
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

int run_guards(const GuardsArgs& a) {
    if (a.expr.empty() == a.path.empty())
        return report_error(make_error(Errc::invalid_argument, "give either --expr EXPR or a KEYDIR_OR_ENTRY", "guards"), 2);
    auto sizes = parse_sizes(a.sizes);
    if (!sizes) return report_error(sizes.error(), 2);
    return a.expr.empty() ? run_lookup(a, *sizes) : run_expr(a, *sizes);
}

Registration reg{"guards", 40, [](CLI::App& app, Outcome& outcome) {
    auto args = std::make_shared<GuardsArgs>();
    auto* cmd = app.add_subcommand("guards", "Evaluate guards: which cached entry of a key dir would serve these sizes");
    cmd->add_option("KEYDIR_OR_ENTRY", args->path, "An fxgraph key dir (fxgraph/<xx>/<key>), one entry file, or a remote entry "
                                                   "redis://host:port[/db]/KEY (would the remote entry serve these sizes?)");
    cmd->add_option("--expr", args->expr, "Evaluate this guard expression instead, e.g. \"2 <= L['t0']\"");
    cmd->add_option("--sizes", args->sizes, "Values of t0,t1,... (the graph's SymInt inputs), e.g. 8,1024");
    cmd->add_flag("--json", args->json, "Print JSON");
    cmd->callback([args, &outcome] { outcome.exit_code = run_guards(*args); });
}};

}  // namespace
}  // namespace kiln::cli
