// kiln-cli ls [ROOT] [--trace DIR] [--json]: the graph entries of a cache by what they compiled
// (function, source line, inputs, guards), the hash as a column: inductor::list_graphs.
#include <cstdio>
#include <iostream>
#include <optional>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "inductor/graph_list.hpp"
#include "inductor/newer_torch.hpp"
#include "inductor/stats.hpp"
#include "trace/graph_names.hpp"
#include "util/json_out.hpp"
#include "util/utf8.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::inductor;

struct LsArgs {
    std::string root;
    std::string trace;
    bool json = false;
};

void print_row(const GraphRow& r) {
    std::string ms = r.compile_ns ? std::to_string(*r.compile_ns / 1000000) + " ms" : "-";
    std::printf("%-11s %-13s %9s %10s  %s\n", r.kind == "fxgraph" ? "fxgraph" : "aot",
                printable_name(r.key.substr(0, 13)).c_str(), format_bytes(r.size).c_str(), ms.c_str(),
                printable_name(r.label()).c_str());
    if (!r.code.empty()) std::printf("%49s  called as: %s\n", "", r.code.c_str());
    if (r.guards) std::printf("%49s  guards: %s\n", "", r.guards->c_str());
    for (const auto& s : r.symbols)
        std::printf("%49s  %s = %s%s\n", "", s.name.c_str(), s.symbol.c_str(),
                    s.source.empty() ? "" : (" = " + s.source).c_str());
    if (r.forward_key) std::printf("%49s  forward: %s\n", "", r.forward_key->c_str());
    if (r.backward_key) std::printf("%49s  backward: %s\n", "", r.backward_key->c_str());
    for (const auto& a : r.used_by)
        std::printf("%49s  %s graph of AOT entry %s\n", "", r.role.c_str(), printable_name(a).c_str());
    if (!r.error.empty()) std::printf("%49s  unreadable: %s\n", "", printable_name(r.error).c_str());
}

int run_ls(const LsArgs& args) {
    auto cache = frontend::open_cache(std::filesystem::path(args.root));
    if (!cache) return fail(cache.error());
    std::optional<std::filesystem::path> trace;
    if (!args.trace.empty()) trace = args.trace;
    else trace = kiln::trace::trace_beside(cache->named);  // a blob's: beside the blob file
    auto list = kiln::trace::list_named_graphs(cache->opened(), trace);
    if (!list) return fail(frontend::in_given_terms(*cache, list.error()));
    if (args.json) {
        std::cout << dump_json(to_json(*list)) << "\n";
        return 0;
    }
    std::printf("%zu graph entries under %s%s\n", list->rows.size(), cache->label.c_str(),
                list->trace ? (" (names from the trace " + *list->trace + ")").c_str()
                            : " (no TORCH_TRACE dir found beside it: --trace DIR adds function names)");
    std::printf("%-11s %-13s %9s %10s  %s\n", "kind", "key", "size", "compile", "graph");
    for (const auto& r : list->rows) print_row(r);
    // Keys of a newer torch: named, never read into (ls's rows show what the entries hold).
    UnknownToKiln unknown;
    read_key_components(unknown, cache->opened());
    if (!unknown.components.empty()) std::printf("\n%s\n", describe_unknown(unknown).c_str());
    return 0;
}

Registration ls_command{
    "ls", 12, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<LsArgs>();
        auto* cmd = app.add_subcommand("ls", "Graph entries by function, inputs and guards (fxgraph and AOT, linked)");
        add_root_option(cmd, args->root, "Inductor cache root or Mega-Cache blob");
        cmd->add_option("--trace", args->trace,
                        "TORCH_TRACE log or dir (default: trace/ beside the root, when there is one)");
        cmd->add_flag("--json", args->json, "Print JSON");
        cmd->callback([args, &outcome] { outcome.exit_code = run_ls(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
