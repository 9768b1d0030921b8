// kiln-cli autotune SPEC: tune a kernel template over its parameter grid on the CPU or on each GPU
// (one kiln-worker per device), verify every choice against the reference, keep the timings in
// Inductor's timing cache format and print Inductor's AUTOTUNE table.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "tuning/selector.hpp"
#include "tuning/spec.hpp"
#include "util/json_out.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/timing_share.hpp"
#endif

namespace kiln::cli {
namespace {

using namespace kiln::tuning;

struct AutotuneArgs {
    std::string spec;
    std::string devices;
    bool in_process = false;
    std::string cache_dir;
    std::string global_cache_dir;
    std::string session_log;
    double result_timeout = 120;
    bool json = false;
    bool quiet = false;
    std::string share;  // --share URL: timings shared through Redis (core/remote/timing_share.hpp)
    // Replace the spec's search strategy fields when given (the GUI's launcher passes them).
    std::string strategy;
    std::optional<int> budget;
    std::optional<double> seconds;
};

// --strategy/--budget/--seconds over the spec's "strategy". A budget counts the evaluations of a
// random search: with an exhaustive one it would be ignored, so it is refused instead.
Status apply_strategy_options(const AutotuneArgs& a, TuningSpec& spec) {
    if (!a.strategy.empty()) spec.strategy.kind = *strategy_kind_from_name(a.strategy);  // checked by CLI11
    if (a.budget) {
        if (spec.strategy.kind != SearchStrategy::random)
            return make_error(Errc::invalid_argument, "--budget limits a random search, but the strategy is exhaustive",
                              spec.path.string(), "add --strategy random, or leave --budget out to run every choice");
        spec.strategy.budget = *a.budget;
    }
    if (a.seconds) spec.strategy.seconds = *a.seconds;
    return ok_status();
}

int run_autotune(const AutotuneArgs& a) {
    auto spec = load_spec(a.spec);
    if (!spec.ok()) return fail(frontend::as_bad_input(spec.error()));  // the spec is the user's input
    if (auto st = apply_strategy_options(a, *spec); !st.ok()) return fail(st.error());
    TuneOptions o;
    if (!a.devices.empty()) {
        auto d = worker::parse_devices(a.devices);
        if (!d.ok()) return fail(d.error());
        o.devices = *d;
    }
    o.in_process = a.in_process;
    // Inductor's own default root, so that both read and write one timing cache. The timing cache is
    // written there: a root that exists must be a directory (never a blob); one that does not, torch
    // (and this command) makes.
    o.cache_root = a.cache_dir.empty() ? frontend::default_cache_root() : std::filesystem::path(a.cache_dir);
    if (std::error_code ec; std::filesystem::exists(o.cache_root, ec)) {
        auto cache = frontend::open_cache(o.cache_root, frontend::CacheAccess::write);
        if (!cache) return fail(cache.error());
    }
    if (!a.global_cache_dir.empty()) o.global_cache_dir = a.global_cache_dir;
    o.session_log = a.session_log;
    o.timeouts.result = std::chrono::milliseconds(static_cast<long long>(a.result_timeout * 1000));
    if (!a.quiet) o.progress = [](const std::string& s) { std::fprintf(stderr, "kiln-cli: %s\n", s.c_str()); };
#ifdef KILN_HAVE_REMOTE
    std::optional<kiln::remote::TimingShare> share;
    if (!a.share.empty()) {
        auto s = kiln::remote::TimingShare::open(a.share, o.global_cache_dir);
        if (!s.ok()) return fail(s.error());
        share.emplace(std::move(*s));
        o.global_cache_dir = share->global_dir();
    }
#endif
    auto rep = tune(*spec, o);
#ifdef KILN_HAVE_REMOTE
    if (share && rep.ok()) {
        auto published = share->publish(*rep);
        if (!published.ok()) return fail(published.error());
        std::fprintf(stderr, "kiln-cli: %s\n", share->describe(*published).c_str());
    }
#endif
    if (!rep.ok()) return fail(rep.error());
    if (!a.quiet) std::fputs(format_autotune_table(*rep, *spec).c_str(), stderr);
    if (a.json) {
        std::cout << dump_json(to_json(*rep)) << "\n";
    } else {
        for (const auto& c : rep->choices)
            if (c.key == rep->best) std::printf("best: %s %.4f ms (%s)\n", c.id.c_str(), c.ms, c.name.c_str());
        std::printf("timing cache: %s%s\nsession log: %s\n", rep->cache_file.c_str(),
                    rep->cache_hit ? " (full hit)" : "", rep->session_log.c_str());
    }
    if (rep->cache_error) return fail(*rep->cache_error);  // measured and reported, but not in the cache
    return rep->best.empty() ? 1 : 0;
}

Registration autotune_command("autotune", 70, [](CLI::App& app, Outcome& outcome) {
    auto args = std::make_shared<AutotuneArgs>();
    auto* cmd = app.add_subcommand(
        "autotune", "Tune a kernel template (JSON spec) on the CPU or on each GPU; keeps timings in Inductor's cache");
    cmd->add_option("spec", args->spec, "Tuning spec (JSON); examples in resources/examples/")->required();
    cmd->add_option("--devices", args->devices,
                    "Devices: 0,1 or cpu (default: the spec's, else CUDA_VISIBLE_DEVICES, else every GPU)");
    cmd->add_flag("--in-process", args->in_process,
                  "Benchmark in this process instead of one kiln-worker per device. Unguarded: a crashing kernel "
                  "ends the run; a hang past --result-timeout or a kernel that exits ends it with status 1, "
                  "keeping the results measured before");
    cmd->add_option("--cache-dir", args->cache_dir, root_help("Cache root"));
    cmd->add_option("--global-cache-dir", args->global_cache_dir,
                    "Read-only global timing cache directory (Inductor's global_cache_dir)");
    cmd->add_option("--session-log", args->session_log,
                    "Session log path (JSON lines; default under <cache root>/kiln/autotune/)");
    cmd->add_option("--result-timeout", args->result_timeout,
                    "Seconds to wait for one choice's result before stopping its worker")
        ->check(duration_seconds());
    cmd->add_option("--strategy", args->strategy,
                    "Search strategy, replacing the spec's: exhaustive (every allowed choice) or random "
                    "(a sample; see --budget)")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                if (strategy_kind_from_name(text)) return {};
                return "a strategy is exhaustive or random, not '" + text + "'";
            },
            "exhaustive|random"));
    cmd->add_option("--budget", args->budget,
                    "Random search: how many choices to evaluate, the reference included (0: all); "
                    "needs --strategy random unless the spec's strategy is random")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
                try {
                    std::size_t used = 0;
                    const long v = std::stol(text, &used);
                    if (used == text.size() && v >= 0 && v <= 1000000) return {};
                } catch (const std::exception&) {}
                return "a budget is a whole number of choices from 0 (all) to 1000000, not '" + text + "'";
            },
            "N"));
    cmd->add_option("--seconds", args->seconds,
                    "Time budget: start no new evaluation after this many seconds (replaces the spec's "
                    "strategy.seconds); what was measured by then is kept")
        ->check(duration_seconds());
    cmd->add_flag("--json", args->json, "Print the result as JSON");
    cmd->add_flag("-q,--quiet", args->quiet, "Do not print the AUTOTUNE table and progress on stderr");
#ifdef KILN_HAVE_REMOTE
    cmd->add_option("--share", args->share,
                    "Share timings through Redis (redis://host:port[/db]): use other "
                    "machines' first, publish new ones after");
#endif
    cmd->callback([args, &outcome] { outcome.exit_code = run_autotune(*args); });
});

}  // namespace
}  // namespace kiln::cli
