// kiln-cli: the command-line front end. Exceptions stop here; the core returns errors as values.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "version_info.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/entry_source.hpp"
#endif

namespace kiln::cli {

std::vector<CommandInfo>& registry() {
    static std::vector<CommandInfo> commands;
    return commands;
}

int fail(const Error& e) {
    std::fprintf(stderr, "kiln-cli: %s\n", e.str().c_str());
    return frontend::exit_code(e);
}

CLI::Validator duration_seconds() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            std::size_t used = 0;
            try {
                v = std::stod(text, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used != text.size() || !std::isfinite(v) || v <= 0 || v > kMaxDurationSeconds)
                return "a duration in seconds must be a number above 0 and at most " +
                       std::to_string(static_cast<long>(kMaxDurationSeconds)) + " (a week), not '" + text + "'";
            return {};
        },
        "SECONDS");
}

std::string root_help(const std::string& what) {
    return what + " (default: $TORCHINDUCTOR_CACHE_DIR, else <tmpdir>/torchinductor_<user>)";
}

void add_root_option(CLI::App* cmd, std::string& root, const std::string& what) {
    cmd->add_option("ROOT", root, root_help(what));
    cmd->add_option("--root", root, "Same as ROOT");
}

void warn(const std::string& text) { std::fprintf(stderr, "kiln-cli: warning: %s\n", text.c_str()); }

frontend::RemoteFetch remote_fetch() {
#ifdef KILN_HAVE_REMOTE
    return [](std::string_view url) { return remote::fetch_entry(url); };
#else
    return {};
#endif
}

}  // namespace kiln::cli

int main(int argc, char** argv) {
    using namespace kiln::cli;
    CLI::App app{"kiln-cli: inspect, check and tune torch.compile (Inductor) caches"};
    app.require_subcommand(1);
    app.set_version_flag(
        "--version", [] { return version_report("kiln-cli"); }, "Print versions and exit");
    Outcome outcome;
    auto& cmds = registry();
    std::stable_sort(cmds.begin(), cmds.end(), [](auto& a, auto& b) { return a.order < b.order; });
    for (auto& c : cmds) c.setup(app, outcome);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kiln-cli: internal error: %s\n", e.what());
        return 1;
    }
    std::fflush(stdout);
    return outcome.exit_code;
}
