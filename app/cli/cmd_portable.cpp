// kiln-cli portable ROOT --target FINGERPRINT|PATH|local [--json]: will this cache hit there? Every
// graph entry, timing cache, .best_config and Triton kernel dir of ROOT judged against the target's
// environment: hit, miss (the components that differ, cached -> target) or unknown (what is unknown).
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "portability/target.hpp"
#include "util/json_out.hpp"
#include "util/utf8.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::portability;

struct PortableArgs {
    std::string root;
    std::string target;
    std::string python;
    const CLI::Option* python_opt = nullptr;
    bool json = false;
    std::size_t limit = 50;
};

void print_report(const PortableReport& r, std::size_t limit) {
    for (const auto& l : r.summary.lines) std::printf("%s\n", l.c_str());
    std::printf("\ntarget: %s\n", r.target.origin.c_str());
    std::size_t shown = 0, graphs = 0;
    for (const auto& it : r.items) {
        if (it.kind != ItemKind::fx_graph && it.kind != ItemKind::aot_autograd) continue;
        if (graphs++ == 0) std::printf("\ngraph entries (cached -> target):\n");
        if (shown >= limit) continue;
        ++shown;
        std::printf("  %-7s %s\n", std::string(verdict_name(it.assessment.verdict)).c_str(), it.path.c_str());
        for (const auto& d : it.assessment.differs)
            std::printf("            %s: %s -> %s\n", d.component.c_str(), shortened(d.cached, 70).c_str(),
                        shortened(d.target, 70).c_str());
        for (const auto& u : it.assessment.unknown)
            std::printf("            %s unknown: %s\n", u.name.c_str(), shortened(u.why, 140).c_str());
    }
    if (graphs > shown) std::printf("  ... %zu more graph entries (--limit, or --json for all)\n", graphs - shown);
    for (const auto& n : r.target.notes) std::printf("note: %s\n", n.c_str());
    if (!r.skipped.empty()) std::printf("(%zu files could not be read; --json lists them)\n", r.skipped.size());
}

TargetSpec target_of(const PortableArgs& args) {
    std::optional<std::string> python;
    if (args.python_opt && args.python_opt->count() > 0) python = args.python;
    return target_spec(args.target, python);
}

int run_portable(const PortableArgs& args) {
    // A Mega-Cache blob is judged as the cache load_cache_artifacts would make of it.
    auto cache = frontend::open_cache(std::filesystem::path(args.root));
    if (!cache) return fail(cache.error());
    auto target = load_target(target_of(args));
    if (!target) return fail(std::move(target.error()).with_context("--target " + args.target));
    auto report = assess_opened(*cache, *target);
    if (!report) return fail(frontend::in_given_terms(*cache, report.error()));
    if (args.json) std::cout << dump_json(report_to_json(*report), 2) << "\n";
    else print_report(*report, args.limit);
    const auto& c = report->summary.counts;
    bool all_hit = c[0].hit == c[0].total && c[1].hit == c[1].total;
    return all_hit ? 0 : 1;
}

Registration portable_command{
    "portable", 47, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<PortableArgs>();
        auto* cmd =
            app.add_subcommand("portable",
                               "Will this cache hit on another machine? Every entry judged against the target's "
                               "environment (exit 0: every graph entry would hit, 1: some would miss or are unknown)");
        add_root_option(cmd, args->root, "Cache root or Mega-Cache blob");
        cmd->add_option("--target", args->target,
                        "The target: a fingerprint file (kiln-cli env --json), a cache root, a TORCH_TRACE directory "
                        "or log, or a "
                        "graph entry written there; `local` for this machine")
            ->required();
        args->python_opt =
            cmd->add_option("--python", args->python, "With --target local: the Python with torch to ask");
        cmd->add_option("--limit", args->limit, "Graph entries listed in the text output (default 50)");
        cmd->add_flag("--json", args->json, "Print JSON");
        cmd->callback([args, &outcome] { outcome.exit_code = run_portable(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
