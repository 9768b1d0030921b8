#pragma once
// kiln-cli subcommands register themselves: each app/cli/cmd_*.cpp defines one static
// `kiln::cli::Registration` so adding a command never touches main.cpp.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace kiln::cli {

// The exit status a command sets; 0 ok, 1 failure of the work, 2 bad input/usage.
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

// Prints "kiln-cli: <error>" to stderr and returns `code`.
int report_error(const Error& e, int code = 1);

}  // namespace kiln::cli
