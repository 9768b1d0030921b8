#pragma once
// kiln-cli subcommands register themselves: each app/cli/cmd_*.cpp defines one static
// `kiln::cli::Registration` so adding a command never touches main.cpp.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "frontend/entry_ref.hpp"
#include "frontend/exit_code.hpp"
#include "util/result.hpp"

namespace kiln::cli {

// The exit status a command sets: frontend::exit_code's rule (0 ok, 1 the work failed, 2 bad input).
struct Outcome {
    int exit_code = 0;
};

using Setup = std::function<void(CLI::App& app, Outcome& outcome)>;

struct CommandInfo {
    std::string name;
    int order = 100;  // position in --help
    Setup setup;
};

std::vector<CommandInfo>& registry();

struct Registration {
    Registration(std::string name, int order, Setup setup) {
        registry().push_back({std::move(name), order, std::move(setup)});
    }
};

// Prints "kiln-cli: <error>" to stderr and returns its exit status (frontend/exit_code.hpp).
int fail(const Error& e);
// The check of every option that is a duration in seconds: a finite number above 0 and at most a
// week. CLI11's PositiveNumber lets nan, inf and 1e300 through (a timeout that then overflows into a
// negative wait, issue 16.14); a failed check is a usage error (exit 2).
inline constexpr double kMaxDurationSeconds = 7 * 24 * 3600.0;
CLI::Validator duration_seconds();

// The help of every option that takes a cache root: "<what> (default: $TORCHINDUCTOR_CACHE_DIR, else
// <tmpdir>/torchinductor_<user>)", the order frontend::open_cache looks in.
std::string root_help(const std::string& what);
// The ROOT positional and its `--root` synonym, both into `root`.
void add_root_option(CLI::App* cmd, std::string& root, const std::string& what);

// "kiln-cli: warning: <text>" on stderr.
void warn(const std::string& text);

// How entry references fetch remote entries: remote::fetch_entry with Redis support, else none.
frontend::RemoteFetch remote_fetch();

}  // namespace kiln::cli
