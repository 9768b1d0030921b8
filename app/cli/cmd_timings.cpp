// kiln-cli timings PATH... [--json] [--top N] [--op NAME]: every autotune timing Kiln can read
// (Inductor's timing caches, .best_config/.kernel_perf files, mm logs, stderr AUTOTUNE tables,
// Kiln's session logs) normalized into ops and their choices.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "command_registry.hpp"
#include "inductor/roots.hpp"
#include "timings/collect.hpp"
#include "timings/used_by.hpp"
#include "util/json_out.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/shared_timings.hpp"
#endif

namespace kiln::cli {
namespace {

struct TimingsArgs {
    std::vector<std::string> paths;
    bool json = false;
    int top = 10;
    std::string op_filter;
    std::string redis;  // --redis URL: timings shared by `autotune --share` instead of paths
    bool no_graphs = false;
};

// "  (also triton#4, triton_mm-cy2dwohf74kn…)": the same choice's names in the other sources.
std::string aliases_text(const timings::Choice& c) {
    if (c.aliases.empty()) return {};
    std::string s = "  (also ";
    for (size_t i = 0; i < c.aliases.size(); ++i) {
        const std::string& a = c.aliases[i];
        s += (i ? ", " : "") + (a.size() > 24 ? a.substr(0, 22) + "..." : a);
    }
    return s + ")";
}

// "      ^ used by graph mm (model.py:94) forward ... [fej3ypleo5ccx] as triton_tem_fused_mm_relu_0":
// the graph entries whose compiled code runs this choice, one line each under it.
void print_used_by(const timings::Choice& c) {
    for (const auto& u : c.used_by)
        std::printf("      ^ used by graph %s [%s] as %s\n", u.name.c_str(), u.key.substr(0, 13).c_str(),
                    u.kernel.c_str());
}

void print_op(const timings::Op& op, int top) {
    std::printf("%s  %s", op.op.c_str(), op.inputs.c_str());
    if (!op.precision.empty()) std::printf("  [%s]", op.precision.c_str());
    if (!op.device.empty()) std::printf("  on %s", op.device.c_str());
    std::printf("  (%zu choices)\n", op.choices.size());
    if (!op.also_from.empty()) {
        // One op read from several files (the same autotuning): say where, once.
        std::printf("    joined from %s", op.source.c_str());
        for (const auto& s : op.also_from) std::printf(", %s", s.c_str());
        std::printf("\n");
    }
    std::vector<const timings::Choice*> sorted;
    for (const auto& c : op.choices) sorted.push_back(&c);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](auto* a, auto* b) { return a->ms.value_or(INFINITY) < b->ms.value_or(INFINITY); });
    int shown = 0;
    for (const auto* c : sorted) {
        if (top > 0 && shown++ >= top) {
            std::printf("    ... %zu more (--top 0 shows all)\n", sorted.size() - static_cast<size_t>(top));
            break;
        }
        const char* mark = c->name == op.best ? "*" : " ";
        if (std::string bad = timings::invalid_time_reason(*c); !bad.empty()) {
            std::printf("  %s %-60s %10.4f ms  invalid (%s)  %s\n", mark, c->name.c_str(), *c->ms, bad.c_str(),
                        timings::params_text(c->params).c_str());
        } else if (c->ms) {
            // Inductor's own column: best / this, so the winner reads 100% (from unrounded times).
            double pct = timings::percent_of_best(op, *c).value_or(0.0);
            std::printf("  %s %-60s %10.4f ms %6.1f%%  %s%s\n", mark, c->name.c_str(), *c->ms, pct,
                        timings::params_text(c->params).c_str(), aliases_text(*c).c_str());
            print_used_by(*c);
        } else {
            std::printf("  %s %-60s %13s  failed: %s\n", mark, c->name.c_str(), "-", c->error.c_str());
        }
    }
}

// .best_config files: one line per kernel with the config it settled on (no benchmark to compare).
void print_kernel_configs(const std::vector<const timings::Op*>& ops) {
    if (ops.empty()) return;
    std::printf("\nper-kernel configs (.best_config: the config autotuning or coordinate descent settled on)\n");
    for (const auto* op : ops) {
        for (const auto& c : op->choices) {
            nlohmann::ordered_json p = c.params;
            std::string how = p.value("found_by_coordesc", false) ? "coordinate descent" : "autotuning";
            std::string took = p.contains("time_taken_ms") && p["time_taken_ms"].is_number()
                                   ? ", search took " + p["time_taken_ms"].dump() + " ms"
                                   : "";
            for (const char* k : {"found_by_coordesc", "time_taken_ms", "configs_hash", "triton_cache_hash"})
                p.erase(k);
            std::printf("  %-40s %s  (by %s%s)\n    %s\n", op->inputs.empty() ? "?" : op->inputs.c_str(),
                        timings::params_text(p).c_str(), how.c_str(), took.c_str(), op->source.c_str());
        }
    }
}

int run_timings(const TimingsArgs& args) {
    std::vector<std::filesystem::path> paths(args.paths.begin(), args.paths.end());
    if (paths.empty() && args.redis.empty()) {
        // Like `stats`: the default cache root.
        auto root = inductor::resolve_root(std::nullopt, inductor::RootKind::inductor);
        if (!root) return fail(root.error());
        paths.push_back(*root);
    }
#ifdef KILN_HAVE_REMOTE
    auto set = args.redis.empty() ? timings::collect_timings(paths) : kiln::remote::collect_shared_timings(args.redis);
#else
    auto set = timings::collect_timings(paths);
#endif
    if (!set.ok()) return fail(set.error());
    for (const auto& w : set->warnings) warn(w);
    if (!args.no_graphs) {
        // Which choices the compiled graphs run ("used by graph ..."); a root whose entries cannot be
        // listed still has its timings.
        if (auto marks = timings::mark_used_by(*set); !marks.ok()) warn(marks.error().str());
    }
    if (!args.op_filter.empty()) {
        std::erase_if(set->ops, [&](const timings::Op& op) { return op.op != args.op_filter; });
    }
    if (args.json) {
        std::cout << dump_json(timings::to_json(*set)) << "\n";
        return 0;
    }
    for (const auto& s : set->sources)
        std::printf("source %-12s %3d ops  %s%s%s\n", timings::source_kind_name(s.kind), s.ops, s.path.c_str(),
                    s.device.empty() ? "" : "  on ", s.device.c_str());
    std::vector<const timings::Op*> configs;
    for (const auto& op : set->ops) {
        if (timings::is_per_kernel_config(op)) {
            configs.push_back(&op);
            continue;
        }
        std::printf("\n");
        print_op(op, args.top);
    }
    print_kernel_configs(configs);
    if (set->sources.empty()) std::printf("no timing files found\n");
    return 0;
}

const Registration registration{
    "timings", 60, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<TimingsArgs>();
        auto* cmd = app.add_subcommand("timings",
                                       "Show autotune timings: timing caches, .best_config, .kernel_perf, "
                                       "mm logs, stderr AUTOTUNE tables, session logs");
        auto* paths_opt =
            cmd->add_option("paths", args->paths,
                            "Files, or directories (cache roots) searched for all of them (default: the default "
                            "cache root, as for stats)")
                ->check(CLI::ExistingPath);
#ifdef KILN_HAVE_REMOTE
        paths_opt->required(false);
        cmd->add_option("--redis", args->redis,
                        "Timings shared in Redis by `autotune --share` (redis://host:port[/db])");
#endif
        (void)paths_opt;
        cmd->add_flag("--json", args->json, "Print {\"sources\": [...], \"ops\": [...]} as JSON");
        cmd->add_option("--top", args->top, "Choices shown per op in text output (0: all)")->capture_default_str();
        cmd->add_option("--op", args->op_filter, "Only ops of this name (mm, addmm, kernel_perf, ...)");
        cmd->add_flag("--no-graphs", args->no_graphs,
                      "Skip reading the root's graph entries (no \"used by graph\" marks)");
        cmd->callback([args, &outcome] { outcome.exit_code = run_timings(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
