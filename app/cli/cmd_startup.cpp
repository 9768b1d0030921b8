// kiln-cli startup TRACE_LOG_OR_DIR... [--root ROOT] [--json] [--compare] [--ranks]: where each
// process's compile time went (phases: self time of torch's chromium_event spans) and what would
// remove it (a recompile and why, autotuning, coordinate descent, Triton or C++ compiles on a warm
// start, the vector-ISA probe of a CPU graph), with what is left unexplained. --compare sets the
// first process that ran against each later one (warm against cold), --ranks the processes as the
// ranks of one job (where they differ in hit or miss, and why).
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "startup/causes.hpp"
#include "startup/startup_compare.hpp"
#include "startup/startup_report.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::startup;

struct StartupArgs {
    std::vector<std::string> paths;
    std::string root;
    bool json = false, compare = false, ranks = false, all_phases = false, no_root = false;
};

// A compile, then its phases: those an avoidable cause claimed grouped under that cause and its fix,
// the rest one a line with what they are (the small ones folded), then the unexplained rest.
void print_compile(const CompileCost& c, bool all_phases) {
    std::string state = c.fx_state.empty() ? "" : "  FX " + c.fx_state;
    std::printf("  %-52s %9s%s\n", c.label().c_str(), seconds_text(c.seconds).c_str(), state.c_str());
    std::vector<std::string> whys;  // in the order of their largest phase
    for (const auto& p : c.phases)
        if (!p.why.empty() && std::find(whys.begin(), whys.end(), p.why) == whys.end()) whys.push_back(p.why);
    for (const auto& why : whys) {
        double total = 0;
        std::string names, fix;
        int n = 0;
        for (const auto& p : c.phases) {
            if (p.why != why) continue;
            total += p.seconds;
            fix = p.fix;
            if (p.seconds < 0.0005 && n > 0) continue;  // a phase under a millisecond says nothing here
            if (n < 4) names += (n ? ", " : "") + p.name + (n ? " " + seconds_text(p.seconds) : std::string());
            ++n;
        }
        if (n > 4) names += " and " + std::to_string(n - 4) + " more";
        if (n > 1)
            names = names.substr(0, names.find(',')) + " " +
                    seconds_text(c.phase_seconds(names.substr(0, names.find(',')))) + names.substr(names.find(','));
        std::printf("    %9s  %s\n               why: %s\n", seconds_text(total).c_str(), names.c_str(), why.c_str());
        if (!fix.empty()) std::printf("               fix: %s\n", fix.c_str());
    }
    double folded = 0;
    int folded_n = 0;
    for (const auto& p : c.phases) {
        if (!p.why.empty()) continue;
        if (!all_phases && p.seconds < std::max(0.02 * c.seconds, 0.01)) {
            folded += p.seconds;
            ++folded_n;
            continue;
        }
        std::printf("    %9s  %s: %s\n", seconds_text(p.seconds).c_str(), p.name.c_str(), p.about.c_str());
    }
    if (folded_n) std::printf("    %9s  %d smaller phases\n", seconds_text(folded).c_str(), folded_n);
    std::printf("    %9s  unexplained (no span covers it)\n", seconds_text(c.unexplained_seconds).c_str());
    for (const auto& g : c.gaps) std::printf("               gap: %s\n", g.c_str());
}

void print_process(const ProcessStartup& p, bool all_phases) {
    std::printf("%s (pid %s, %s)\n  %s\n", p.label.c_str(), p.pid.empty() ? "?" : p.pid.c_str(),
                std::filesystem::path(p.log).filename().string().c_str(), p.headline().c_str());
    if (!p.avoidable.empty()) {
        std::printf("  avoidable:\n");
        for (const auto& a : p.avoidable) {
            std::printf("    %9s  %s\n", seconds_text(a.seconds).c_str(), a.what.c_str());
            if (a.inferred) std::printf("               inferred: %s\n", a.basis.c_str());
            std::printf("               fix: %s\n", a.fix.c_str());
        }
    }
    std::printf("  compiles, in the order they ran (phases: self time of torch's spans, largest first):\n");
    for (const auto& c : p.compiles) print_compile(c, all_phases);
    for (const auto& o : p.outside)
        std::printf("  at a first call, outside the compiles: %s %s%s\n", seconds_text(o.seconds).c_str(),
                    o.name.c_str(), o.kernel.empty() ? "" : (" (" + o.kernel + ")").c_str());
    for (const auto& g : p.gaps) std::printf("  gap: %s\n", g.c_str());
    std::printf("\n");
}

void print_comparison(const ProcessComparison& c) {
    std::printf("%s\n", c.summary().c_str());
    for (const auto& d : c.compiles) {
        std::string times = (d.in_before ? seconds_text(d.before) : std::string("-")) + " -> " +
                            (d.in_after ? seconds_text(d.after) : std::string("-"));
        std::printf("  %-11s %-44s %20s  %s\n", d.verdict.c_str(), d.compile.c_str(), times.c_str(), d.why.c_str());
    }
    std::printf("\n");
}

int run_startup(const StartupArgs& args) {
    std::vector<std::filesystem::path> paths(args.paths.begin(), args.paths.end());
    StartupOptions options;
    std::optional<frontend::OpenedCache> cache;  // a blob's temporary root lives as long as this
    if (!args.root.empty()) {
        auto opened = frontend::open_cache(std::filesystem::path(args.root));
        if (!opened) return fail(opened.error());
        cache = std::move(opened).value();
        options.root = cache->opened();
    }
    options.find_root = !args.no_root;
    auto report = analyze_startup(paths, options);
    if (!report) return fail(report.error());
    if (cache && cache->is_blob()) report->root = cache->label;  // never the temporary root
    std::vector<ProcessComparison> comparisons;
    if (args.compare) {
        if (report->processes.size() < 2)
            return fail(make_error(Errc::invalid_argument, "--compare needs two processes",
                                   std::to_string(report->processes.size()) + " log read",
                                   "give the cold and the warm run's logs (or their TORCH_TRACE dirs)"));
        for (std::size_t i = 1; i < report->processes.size(); ++i)
            comparisons.push_back(compare_processes(report->processes.front(), report->processes[i]));
    }
    std::vector<RankDifference> ranks;
    if (args.ranks) ranks = compare_ranks(report->processes);
    if (args.json) {
        auto out = to_json(*report);
        if (args.compare) {
            nlohmann::ordered_json cs = nlohmann::ordered_json::array();
            for (const auto& c : comparisons) cs.push_back(to_json(c));
            out["comparisons"] = std::move(cs);
        }
        if (args.ranks) out["ranks"] = to_json(ranks);
        std::cout << dump_json(out) << "\n";
        // On stderr too: a span or metric dropped as impossible must not pass unseen by a script.
        for (const auto& w : report->warnings) warn(w);
        return 0;
    }
    if (!report->root.empty())
        std::printf("FX graph key misses compared with the entries of %s%s\n\n", report->root.c_str(),
                    args.root.empty() ? " (found beside the logs; --root names another)" : "");
    for (const auto& p : report->processes) print_process(p, args.all_phases);
    for (const auto& c : comparisons) print_comparison(c);
    if (args.ranks) {
        if (ranks.empty())
            std::printf("the %zu ranks agree: every compile hit or missed alike on all of them\n",
                        report->processes.size());
        for (const auto& d : ranks) {
            std::printf("%s\n  %s\n", d.compile.c_str(), d.summary.c_str());
            if (d.why.size() > 1)
                for (const auto& w : d.why) std::printf("    %s\n", w.c_str());
        }
    }
    for (const auto& w : report->warnings) warn(w);
    return 0;
}

Registration startup_command{
    "startup", 47, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<StartupArgs>();
        auto* cmd = app.add_subcommand("startup",
                                       "Where each process's compile time went (phases from TORCH_TRACE spans) and "
                                       "what would remove it: recompiles and why, autotuning, kernel compiles");
        cmd->add_option("TRACE_LOG_OR_DIR", args->paths, "TORCH_TRACE logs or directories")->required();
        cmd->add_option("--root", args->root,
                        "Inductor cache root: FX graph key misses compared with its entries (default: an inductor/ "
                        "cache beside the logs, if any)");
        cmd->add_flag("--no-root", args->no_root,
                      "Compare FX graph key misses only with the processes given that ran before (no cache root)")
            ->excludes("--root");
        cmd->add_flag("--json", args->json, "Print JSON");
        cmd->add_flag("--compare", args->compare,
                      "Warm against cold: the first process that ran against each later one, compile by compile");
        cmd->add_flag("--ranks", args->ranks,
                      "The processes are the ranks of one job: where they differ in FX graph hit or miss, and why");
        cmd->add_flag("--all-phases", args->all_phases, "Print every phase, not only those of 2 % or more");
        cmd->callback([args, &outcome] { outcome.exit_code = run_startup(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
