// kiln-cli handback [ROOT] --from RUN.json (--write | --publish URL | --pin FILE) ...: hand a saved
// re-tune (`kiln-cli retune ROOT --json > RUN.json`) to torch, as `retune` does with the run it just
// measured (handback_options.hpp); and `--fetch URL --write ROOT`: the fleet's ops for this GPU kind.
#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "handback_options.hpp"

namespace kiln::cli {
namespace {

struct HandbackCommand {
    HandbackArgs args;
    std::string from;
};

int run(const HandbackCommand& c) {
    std::optional<handback::RetuneRun> run;
    if (!c.from.empty()) {
        auto r = handback::read_run_file(c.from);
        if (!r) return fail(frontend::as_bad_input(r.error()));
        run = std::move(r).value();
        for (const auto& p : run->problems) warn(c.from + ": " + p + " (device left out)");
    } else if (c.args.fetch.empty()) {
        return fail(make_error(Errc::invalid_argument, "give --from RUN.json (a saved `retune --json`) or --fetch URL",
                               "handback"));
    }
    // The root goes through open_cache as every command's does (a path that does not exist is its
    // not_found error, nothing is made): --write changes its timing cache (a directory only), --pin
    // and --publish read it (a blob too, unpacked for as long as this runs).
    HandbackArgs args = c.args;
    std::optional<frontend::OpenedCache> cache;
    if (!args.root.empty()) {
        auto opened = frontend::open_cache(std::filesystem::path(args.root),
                                           args.write ? frontend::CacheAccess::write : frontend::CacheAccess::read);
        if (!opened) return fail(opened.error());
        cache = std::move(opened).value();
        args.root = cache->root.string();
        args.root_fd = cache->opened().fd;  // --write writes beneath it (issue 44)
    }
    return run_handback(args, run);
}

const Registration handback_command{
    "handback", 74, [](CLI::App& app, Outcome& outcome) {
        auto c = std::make_shared<HandbackCommand>();
        auto* cmd = app.add_subcommand("handback",
                                       "Hand a saved re-tune to torch: this GPU's timing cache (--write), a fleet "
                                       "through Redis (--publish, --fetch), a lookup table (--pin)");
        cmd->add_option("root", c->args.root, "The cache root (TORCHINDUCTOR_CACHE_DIR) the re-tune read");
        cmd->add_option("--from", c->from, "A saved `kiln-cli retune ROOT --json`")->check(CLI::ExistingFile);
        add_handback_options(cmd, c->args, true);
        cmd->add_flag("--json", c->args.json, "Print what was written as JSON");
        cmd->callback([c, &outcome] { outcome.exit_code = run(*c); });
    }};

}  // namespace
}  // namespace kiln::cli
